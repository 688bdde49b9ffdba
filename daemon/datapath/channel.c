/*
 * A channel's life: creation (decoder, buffers, sockets), live updates (a new code generation
 * that takes effect at a sender sequence number), and closing (stop reading, decode and publish
 * everything accepted, then release sockets and memory once the last handle has closed).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "log.h"
#include "loops.h"
#include "offload.h"
#include "port_owner.h"
#include "service.h"

#define BIND_RETRY_MS     20
#define BIND_RETRY_MAX_MS 10000
/* How long a channel waits for another fecd, still draining after SIGTERM, to let go of its port:
 * fecd.service's TimeoutStopSec, after which systemd ends the old one. */
#define BIND_WAIT_DRAIN_MS 30000
#define BATCH_BYTES_MAX   (1ull << 30)

uint64_t now_ns(void)
{
	return uv_hrtime();
}

static size_t round_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

/* ---- Epochs */

/* Learns from the code's own encoder how many symbols the first k bits of a unit are sent as (a
 * punctured code sends a period's bits as an uneven number of symbols each). Without it, a stream
 * that ends inside a unit loses that unit's bits. */
static void epoch_unit_table(struct epoch *ep)
{
	const struct fec_info *in = ep->info;
	struct fec_encoder *enc;
	uint8_t zeros[256] = {0}, *code;

	if (in->kind != FEC_KIND_STREAM || in->unit_bits < 2 || in->unit_bits > sizeof(zeros))
		return;
	if (fec_encoder_create(&ep->cfg.spec, &enc) < 0)
		return;
	code = malloc(fec_encoded_len(&ep->cfg.spec, in->unit_bits) + 1);
	ep->unit_cum = calloc(in->unit_bits + 1, sizeof(*ep->unit_cum));
	for (uint32_t k = 1; code && ep->unit_cum && k <= in->unit_bits; k++) {
		size_t n = 0;
		fec_encoder_reset(enc);
		if (fec_encode(enc, zeros, k, code, &n) < 0 || n > in->unit_syms) {
			free(ep->unit_cum);
			ep->unit_cum = NULL;
			break;
		}
		ep->unit_cum[k] = (uint32_t)n;
	}
	free(code);
	fec_encoder_destroy(enc);
}

/* The epoch's slot layout (jobslot.h), from the decoder's fec_info alone. */
static int epoch_input_kind(struct epoch *ep, char *err, size_t errlen)
{
	const struct fec_info *in = ep->info;
	const float chan = ep->cfg.llr_scale, code = in->frame.llr_scale;

	if (slot_layout_of(in, chan, ep->cfg.in_proto == IN_GNURADIO, &ep->slot, err, errlen))
		return -1;
	/* A frame family's int8 input: f32 input becomes int8 at input.llr_scale, and the
	 * decoder reads int8 at the code's llr_scale: different values mis-scale sum-product and
	 * offset min-sum. */
	if (in->in_kind == FEC_IN_S8_LLR && code > 0 && chan != code)
		log_warn("channel %s: input.llr_scale %g differs from the code's llr_scale %g: f32 "
		         "input will reach the decoder %g times too %s",
		         ep->cfg.name, (double)chan, (double)code,
		         (double)(chan > code ? chan / code : code / chan),
		         chan > code ? "strong" : "weak");
	return 0;
}

/* batch.jobs and batch.inflight at 0 (auto): the backend's choice for the code (at least eight
 * of the decoder's SIMD groups), with no more jobs than fit BATCH_BYTES_MAX (large frames). */
static void epoch_batch_auto(struct epoch *ep, struct backend *be)
{
	struct chan_config *c = &ep->cfg;
	uint32_t jobs = BACKEND_CPU_JOBS, inflight = BACKEND_CPU_INFLIGHT;
	uint64_t fit = BATCH_BYTES_MAX / slot_job_bytes(ep->in_stride, ep->slot.elem,
	                                                ep->out_stride, ep->soft_stride);

	if (c->batch_jobs && c->max_inflight)
		return;
	if (be && be->ops->batch_defaults)
		be->ops->batch_defaults(be, &c->spec, &jobs, &inflight);
	/* A decoder that takes frames in SIMD groups gets whole groups, enough for several threads.
	 */
	if (ep->info->job_group > 1 && jobs < 8 * ep->info->job_group)
		jobs = 8 * ep->info->job_group;
	if (!c->batch_jobs)
		c->batch_jobs = fit < jobs ? (fit ? (uint32_t)fit : 1) : jobs;
	if (!c->max_inflight)
		c->max_inflight = inflight;
}

struct epoch *epoch_create(const struct chan_config *cc, struct backend *be, char *err,
                           size_t errlen)
{
	struct epoch *ep = calloc(1, sizeof(*ep));
	const struct fec_info *in;
	int rc;

	if (!ep) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ep->refs = 1;
	ep->cfg = *cc;
	ep->at_seq = UINT64_MAX;
	rc = fec_decoder_create(&cc->spec, &ep->dec);
	if (rc < 0) {
		if (rc == -FEC_ETIME)
			build_limit_message(err, errlen, "code");
		else
			snprintf(err, errlen, "code: cannot build its decoder: %s",
			         fec_strerror(rc));
		free(ep);
		return NULL;
	}
	in = ep->info = fec_decoder_info(ep->dec);
	if (epoch_input_kind(ep, err, errlen))
		goto out_destroy;
	if (in->kind == FEC_KIND_STREAM) {
		if (!in->block_syms || !in->unit_syms || !in->unit_bits || !in->max_out_bits) {
			snprintf(err, errlen, "code: the decoder reports no block geometry");
			goto out_destroy;
		}
		ep->in_stride =
		    round_up((size_t)in->head_syms + in->block_syms + in->tail_syms, 64);
	} else {
		uint32_t max =
		    in->max_frame_syms > in->frame_syms ? in->max_frame_syms : in->frame_syms;
		if (!max || !in->max_out_bits) {
			snprintf(err, errlen, "code: the decoder reports no frame length");
			goto out_destroy;
		}
		ep->in_stride = round_up(max, 64);
		/* GNU Radio input is cut into frames by length, unless a sync marker finds them. */
		if (cc->in_proto == IN_GNURADIO && !ep->slot.asm_framing &&
		    (cc->raw_frame_syms == 0 || cc->raw_frame_syms > max ||
		     (in->frame_syms && cc->raw_frame_syms != in->frame_syms))) {
			if (in->frame_syms)
				snprintf(err, errlen,
				         "input.gnuradio.frame_len: expected %u (the "
				         "symbols in one frame of this code), got %u",
				         in->frame_syms, cc->raw_frame_syms);
			else
				snprintf(err, errlen,
				         "input.gnuradio.frame_len: expected 1..%u "
				         "symbols per frame for this frame code, got %u",
				         max, cc->raw_frame_syms);
			goto out_destroy;
		}
	}
	ep->out_stride = round_up((in->max_out_bits + 7u) / 8u, 64);
	if (cc->soft_out && in->soft_kind != FEC_SOFT_NONE && in->max_soft) {
		/* the output header carries values per unit in 16 bits */
		if (in->soft_per_unit < 1 || in->soft_per_unit > UINT16_MAX) {
			snprintf(err, errlen,
			         "output.soft: the decoder gives %u soft values per unit; the "
			         "protocol carries 1..65535",
			         in->soft_per_unit);
			goto out_destroy;
		}
		ep->soft_stride = round_up(in->max_soft, 16);
	}
	epoch_unit_table(ep);
	epoch_batch_auto(ep, be);
	uint64_t job_bytes =
	    slot_job_bytes(ep->in_stride, ep->slot.elem, ep->out_stride, ep->soft_stride);
	if ((uint64_t)ep->cfg.batch_jobs * job_bytes > BATCH_BYTES_MAX) {
		snprintf(err, errlen,
		         "batch.jobs: %u jobs of this code need %llu MiB per batch (a job: %zu "
		         "bytes of input, %zu of output, %zu of soft output), more than %llu MiB; "
		         "expected at most %llu%s",
		         ep->cfg.batch_jobs,
		         (unsigned long long)((ep->cfg.batch_jobs * job_bytes + (1u << 20) - 1) >> 20),
		         ep->in_stride * ep->slot.elem, ep->out_stride,
		         ep->soft_stride * sizeof(float), BATCH_BYTES_MAX >> 20,
		         (unsigned long long)(BATCH_BYTES_MAX / job_bytes),
		         ep->soft_stride ? ", or output.soft false" : "");
		goto out_destroy;
	}
	if (be && be->ops->prepare)
		be->ops->prepare(be, cc->id, ep->dec,
		                 &(struct backend_shape){.jobs = ep->cfg.batch_jobs,
		                                         .in_stride = ep->in_stride,
		                                         .in_elem = ep->slot.elem,
		                                         .out_stride = ep->out_stride,
		                                         .soft_stride = ep->soft_stride});
	return ep;

out_destroy:
	fec_decoder_destroy(ep->dec);
	free(ep);
	return NULL;
}

void epoch_put(struct epoch *ep)
{
	if (!ep || --ep->refs)
		return;
	fec_decoder_destroy(ep->dec);
	free(ep->unit_cum);
	free(ep);
}

/* ---- Checks */

static int check_config(const struct chan_config *cc, char *err, size_t errlen)
{
	if (cc->in.kind != SOCK_PULL && cc->in.kind != SOCK_SUB)
		snprintf(err, errlen, "input.socket: expected pull or sub");
	else if (cc->out.kind != SOCK_PUSH && cc->out.kind != SOCK_PUB)
		snprintf(err, errlen, "output.socket: expected push or pub");
	else if (!cc->in.endpoint[0] || !cc->out.endpoint[0])
		snprintf(err, errlen, "%s.endpoint: expected a ZMQ endpoint",
		         cc->in.endpoint[0] ? "output" : "input");
	else if (cc->in_proto != IN_NATIVE && cc->in_proto != IN_GNURADIO)
		snprintf(err, errlen, "input.protocol: expected native or gnuradio");
	else if (cc->out_proto != OUT_NATIVE && cc->out_proto != OUT_PDU)
		snprintf(err, errlen, "output.protocol: expected native or pdu");
	else if (cc->in_proto == IN_GNURADIO && fecd_format_bytes(cc->gr_format, 2) == 0)
		snprintf(err, errlen, "input.gnuradio.format: expected f32, s8 or u8");
	else if (cc->in_proto == IN_GNURADIO && cc->gr_tags != GR_TAGS_AUTO &&
	         cc->gr_tags != GR_TAGS_ON && cc->gr_tags != GR_TAGS_OFF)
		snprintf(err, errlen, "input.gnuradio.tags: expected auto, on or off");
	else if (!(cc->llr_scale > 0) || !isfinite(cc->llr_scale))
		snprintf(err, errlen, "input.llr_scale: expected a positive number");
	else if (cc->max_inflight > 64)
		snprintf(err, errlen, "batch.inflight: expected 0..64");
	else
		return 0;
	return -EINVAL;
}

static bool curve_config_equal(const struct curve_config *a, const struct curve_config *b)
{
	return strcmp(a->secret_key_file, b->secret_key_file) == 0 &&
	       strcmp(a->server_key_file, b->server_key_file) == 0 &&
	       strcmp(a->clients_file, b->clients_file) == 0;
}

/* Settings fixed for a channel's life: its identity and its sockets. */
static int check_fixed(const struct chan_config *a, const struct chan_config *b, char *err,
                       size_t errlen)
{
	const char *what = NULL;

	if (a->id != b->id)
		what = "id";
	else if (strcmp(a->name, b->name))
		what = "name";
	else if (strcmp(a->in.endpoint, b->in.endpoint))
		what = "input.endpoint";
	else if (a->in.kind != b->in.kind)
		what = "input.socket";
	else if (a->in.bind != b->in.bind)
		what = "input.bind";
	else if (a->in.hwm != b->in.hwm)
		what = "input.hwm";
	else if (a->in_proto != b->in_proto)
		what = "input.protocol";
	else if (strcmp(a->out.endpoint, b->out.endpoint))
		what = "output.endpoint";
	else if (a->out.kind != b->out.kind)
		what = "output.socket";
	else if (a->out.bind != b->out.bind)
		what = "output.bind";
	else if (a->out.hwm != b->out.hwm)
		what = "output.hwm";
	else if (!curve_config_equal(&a->in.curve, &b->in.curve))
		what = "input.curve";
	else if (!curve_config_equal(&a->out.curve, &b->out.curve))
		what = "output.curve";
	if (!what)
		return 0;
	snprintf(err, errlen,
	         "%s cannot change on a running channel; delete the channel and "
	         "create it again",
	         what);
	return -EPERM;
}

/* ---- Sockets */

/* libzmq binds an ipc:// endpoint by unlinking whatever is at its path first, so a second
 * process would silently take a live endpoint over (and a regular file at the path would be
 * deleted). A path where a process still accepts connections is in use, as a TCP port would be;
 * a socket nobody answers on is a stale one left by a dead process and may be taken over.
 * Returns 0 (free or stale), -EADDRINUSE or -EEXIST (not a socket), with err set. */
static int ipc_endpoint_check(const char *endpoint, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *path = endpoint + strlen("ipc://");
	struct stat st;
	int fd, rc;

	/* Abstract names (@) are refused by the kernel when taken; * makes a fresh path; a path
	 * too long for a socket address fails in zmq_bind with its own error. */
	if (strncmp(endpoint, "ipc://", 6) != 0 || path[0] == '@' || strcmp(path, "*") == 0 ||
	    strlen(path) >= sizeof(sa.sun_path))
		return 0;
	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket; not replacing it", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 0 : errno;
	close(fd);
	if (rc == 0 || rc == EAGAIN || rc == EPROTOTYPE) {
		snprintf(err, errlen, "%s", zmq_strerror(EADDRINUSE));
		return -EADDRINUSE;
	}
	return 0;
}

/* zmq_bind, with ipc:// endpoints in use refused as TCP ones are; errno tells why it failed. */
static int bind_endpoint(void *sock, const char *endpoint, char *err, size_t errlen)
{
	int rc = ipc_endpoint_check(endpoint, err, errlen);

	if (rc) {
		errno = -rc;
		return -1;
	}
	if (zmq_bind(sock, endpoint) != 0) {
		rc = errno;
		snprintf(err, errlen, "%s", zmq_strerror(rc));
		errno = rc;
		return -1;
	}
	return 0;
}

static void on_bind_retry(uv_timer_t *t)
{
	struct channel *ch = t->data;
	void *socks[2] = {ch->in_sock, ch->out_sock};
	const struct endpoint_config *ecs[2] = {&ch->cfg.in, &ch->cfg.out};
	char why[160];

	for (int i = 0; i < 2; i++) {
		if (!(ch->bind_wait & (1u << i)))
			continue;
		if (!socks[i]) {
			ch->bind_wait &= ~(1u << i);
			continue;
		}
		if (bind_endpoint(socks[i], ecs[i]->endpoint, why, sizeof(why)) == 0) {
			ch->bind_wait &= ~(1u << i);
			log_info("channel %s: bound %s", ch->cfg.name, ecs[i]->endpoint);
		} else if (errno != EADDRINUSE || now_ns() > ch->bind_give_up_ns) {
			ch->bind_wait &= ~(1u << i);
			log_err("channel %s: cannot bind %s: %s; the channel goes on without it",
			        ch->cfg.name, ecs[i]->endpoint, why);
		}
	}
	if (!ch->bind_wait)
		uv_timer_stop(t);
}

int channel_attach(struct channel *ch, void *sock, const struct endpoint_config *ec,
                   const char *what, char *err, size_t errlen)
{
	bool input = sock == ch->in_sock;
	int64_t maxsize = -1;
	size_t len = sizeof(maxsize);
	char why[160], label[FECD_NAME_MAX + 24];
	int rc;

	zmq_getsockopt(sock, ZMQ_MAXMSGSIZE, &maxsize, &len);
	rc = sockmon_open(input ? &ch->mon_in : &ch->mon_out, ch, what, sock, ec, maxsize, err,
	                  errlen);
	if (rc)
		return rc;
	snprintf(label, sizeof(label), "channel %s %s", ch->cfg.name, what);
	rc = curve_socket_setup(ch->d, sock, ec, what, label, ch->zap_domain[input ? 0 : 1], err,
	                        errlen);
	if (rc)
		return rc;
	rc = ec->bind ? bind_endpoint(sock, ec->endpoint, why, sizeof(why))
	              : zmq_connect(sock, ec->endpoint);
	if (rc == 0)
		return 0;
	rc = errno;
	if (!ec->bind)
		snprintf(why, sizeof(why), "%s", zmq_strerror(rc));
	if (ec->bind && rc == EADDRINUSE && fecd_endpoint_releasing(ch->d, ec->endpoint)) {
		/* A deleted channel still flushes through it (a reload that re-creates a
		 * channel): bind as soon as it lets go. */
		ch->bind_wait |= sock == ch->in_sock ? 1u : 2u;
		ch->bind_give_up_ns = now_ns() + (uint64_t)BIND_RETRY_MAX_MS * 1000000u;
		uv_timer_start(&ch->bind_timer, on_bind_retry, BIND_RETRY_MS, BIND_RETRY_MS);
		log_info("channel %s: %s endpoint %s is still held by a closing channel; binding "
		         "when it is released",
		         ch->cfg.name, what, ec->endpoint);
		return 0;
	}
	if (ec->bind && rc == EADDRINUSE) {
		char comm[32];
		long pid = port_owner(ec->endpoint, comm, sizeof(comm));

		if (pid > 0 && pid != (long)getpid() && strcmp(comm, "fecd") == 0) {
			/* Another fecd still draining (fecd started again right after a SIGTERM):
			 * bind when it exits. */
			ch->bind_wait |= sock == ch->in_sock ? 1u : 2u;
			ch->bind_give_up_ns = now_ns() + (uint64_t)BIND_WAIT_DRAIN_MS * 1000000u;
			uv_timer_start(&ch->bind_timer, on_bind_retry, BIND_RETRY_MS,
			               BIND_RETRY_MS);
			log_notice("channel %s: %s endpoint %s is held by fecd (pid %ld), still "
			           "draining; binding when it lets go (at most %d s)",
			           ch->cfg.name, what, ec->endpoint, pid,
			           BIND_WAIT_DRAIN_MS / 1000);
			return 0;
		}
		if (pid > 0)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
			         " (held by process %ld, %s)", pid, comm);
		else if (strncmp(ec->endpoint, "tcp://", 6) == 0)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
			         " (by a process this user cannot see)");
	}
	snprintf(err, errlen, "%s.endpoint: cannot %s %s: %s", what, ec->bind ? "bind" : "connect",
	         ec->endpoint, why);
	return -rc;
}

/* A channel's instance: 64 random bits, never 0 (which headers from before the field read as).
 * getrandom without GRND_NONBLOCK waits only before the kernel's pool is first seeded; if it
 * fails, the clock and the address of a fresh variable stand in (distinct, if not secret). */
static uint64_t instance_draw(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = now_ns() ^ ((uint64_t)(uintptr_t)&v << 16);
	return v ? v : 1;
}

/* ---- Closing */

static void channel_free(struct channel *ch)
{
	struct fecd *d = ch->d;

	batcher_free(ch);
	free(ch->marks.v);
	free(ch->scratch);
	pthread_mutex_destroy(&ch->done_lock);
	fecd_channel_closed(d, ch);
	if (ch->on_closed)
		ch->on_closed(ch, ch->on_closed_arg);
	free(ch);
}

void channel_handle_closed(struct channel *ch)
{
	if (--ch->open_handles == 0 && ch->state == CHAN_CLOSED)
		channel_free(ch);
}

static void on_handle_closed(uv_handle_t *h)
{
	channel_handle_closed(h->data);
}

static void close_handle(struct channel *ch, uv_handle_t *h, bool *open)
{
	(void)ch;
	if (!*open)
		return;
	*open = false;
	uv_close(h, on_handle_closed);
}

static void drop_epochs(struct channel *ch)
{
	while (ch->npending)
		epoch_put(ch->pending[--ch->npending]);
	while (ch->ncut_next)
		epoch_put(ch->cut_next[--ch->ncut_next]);
	epoch_put(ch->cut_ep);
	ch->cut_ep = NULL;
	epoch_put(ch->in_ep);
	ch->in_ep = NULL;
}

/* Releases sockets and handles; the memory goes when the last handle has closed. Only when no
 * batch is in use (or none was ever made). */
static void channel_finalize(struct channel *ch)
{
	ch->state = CHAN_CLOSED;
	ingest_stop(ch);
	if (ch->msg.active) {
		for (unsigned i = 0; i < ch->msg.nparts; i++)
			zmq_msg_close(&ch->msg.part[i]);
		ch->msg.active = false;
	}
	close_handle(ch, (uv_handle_t *)&ch->out_poll, &ch->out_poll_open);
	sockmon_close(&ch->mon_out);
	if (ch->out_sock) {
		uint64_t now = now_ns();
		int linger = ch->close_deadline_ns > now
		                 ? (int)((ch->close_deadline_ns - now) / 1000000u)
		                 : 0;
		zmq_setsockopt(ch->out_sock, ZMQ_LINGER, &linger, sizeof(linger));
		zmq_close(ch->out_sock);
		ch->out_sock = NULL;
	}
	close_handle(ch, (uv_handle_t *)&ch->in_resume, &ch->in_resume_open);
	close_handle(ch, (uv_handle_t *)&ch->deadline, &ch->deadline_open);
	close_handle(ch, (uv_handle_t *)&ch->bind_timer, &ch->bind_timer_open);
	close_handle(ch, (uv_handle_t *)&ch->linger, &ch->linger_open);
	close_handle(ch, (uv_handle_t *)&ch->idle_timer, &ch->idle_timer_open);
	/* A backend thread may be inside uv_async_send under done_lock: wait it out. */
	pthread_mutex_lock(&ch->done_lock);
	pthread_mutex_unlock(&ch->done_lock);
	close_handle(ch, (uv_handle_t *)&ch->done_async, &ch->async_open);
	drop_epochs(ch);
	curve_socket_forget(ch->d, ch->zap_domain[0]);
	curve_socket_forget(ch->d, ch->zap_domain[1]);
	if (ch->cfg.in.bind)
		fecd_endpoint_released(ch->d, ch->cfg.in.endpoint);
	if (ch->cfg.out.bind)
		fecd_endpoint_released(ch->d, ch->cfg.out.endpoint);
	if (ch->open_handles == 0)
		channel_free(ch);
}

void channel_close_pump(struct channel *ch)
{
	if (ch->state != CHAN_CLOSING || ch->msg.active)
		return;
	if (!ch->flushed) {
		if (ch->sb.open && !stream_finish(ch, FECD_END_CLOSED, ch->last_seq))
			return; /* waits for a batch slot */
		if (ch->fr.active)
			frame_drop(ch, FECD_FRAME_ERR_TRUNCATED, 0,
			           "the channel closed in the middle of a frame (%u of %u "
			           "symbols)",
			           ch->fr.have, ch->fr.want);
		asm_give_up(ch);
		if (ch->filling)
			batch_close(ch, ch->filling);
		ch->flushed = true;
	}
	if (!batcher_idle(ch))
		return;
	struct chan_stats st;
	channel_get_stats(ch, &st);
	log_info("channel %s closed: %llu messages and %llu symbols accepted, %llu messages and "
	         "%llu bits published%s",
	         ch->cfg.name, (unsigned long long)st.msgs_in, (unsigned long long)st.symbols_in,
	         (unsigned long long)st.msgs_out, (unsigned long long)st.bits_out,
	         ch->out_abandoned ? " (output gave up)" : "");
	if (ch->stats.syms_abandoned)
		log_warn("channel %s: the decoded output of %llu accepted symbols was not "
		         "published: the output did not drain within the linger time",
		         ch->cfg.name, (unsigned long long)ch->stats.syms_abandoned);
	channel_finalize(ch);
}

static void on_linger(uv_timer_t *t)
{
	struct channel *ch = t->data;

	if (ch->state != CHAN_CLOSING)
		return;
	log_warn("channel %s: output still blocked after the linger time; dropping what is left",
	         ch->cfg.name);
	publish_abandon(ch);
	ingest_unblock(ch);
}

void channel_close(struct channel *ch, uint32_t linger_ms,
                   void (*on_closed)(struct channel *ch, void *arg), void *arg)
{
	if (ch->state != CHAN_RUNNING)
		return;
	ch->state = CHAN_CLOSING;
	ch->on_closed = on_closed;
	ch->on_closed_arg = arg;
	ch->close_deadline_ns = now_ns() + (uint64_t)linger_ms * 1000000u;
	while (ch->npending)
		epoch_put(ch->pending[--ch->npending]);
	uv_timer_start(&ch->linger, on_linger, linger_ms, 0);
	ingest_stop(ch);
}

/* ---- Creation */

static int init_timer(struct channel *ch, uv_timer_t *t, bool *open)
{
	int rc = uv_timer_init(ch->loop, t);

	if (rc)
		return rc;
	t->data = ch;
	*open = true;
	ch->open_handles++;
	return 0;
}

int channel_create(struct fecd *d, struct data_loop *dl, uv_loop_t *loop,
                   const struct chan_config *cc, struct epoch *ep, struct channel **out, char *err,
                   size_t errlen)
{
	struct channel *ch;
	int rc;

	rc = check_config(cc, err, errlen);
	if (rc)
		goto out_put;
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out_put;
	}
	ch->d = d;
	ch->dl = dl;
	ch->loop = loop;
	ch->cfg = *cc;
	ch->gen = 1;
	ch->pub_gen = 1;
	ch->instance = instance_draw();
	ch->state = CHAN_RUNNING;
	pthread_mutex_init(&ch->done_lock, NULL);
	stats_init(&ch->stats, now_ns());
	ch->in_ep = ep;
	ch->in_ep->gen = 1;
	ch->max_inflight = ch->in_ep->cfg.max_inflight;
	rc = batcher_prepare(ch, ch->in_ep);
	if (rc) {
		snprintf(err, errlen, "out of memory for the channel's batch buffers");
		goto out_close;
	}
	if ((rc = init_timer(ch, &ch->deadline, &ch->deadline_open)) ||
	    (rc = init_timer(ch, &ch->bind_timer, &ch->bind_timer_open)) ||
	    (rc = init_timer(ch, &ch->linger, &ch->linger_open)) ||
	    (rc = init_timer(ch, &ch->idle_timer, &ch->idle_timer_open))) {
		snprintf(err, errlen, "cannot create timers: %s", uv_strerror(rc));
		goto out_close;
	}
	rc = publish_open(ch, err, errlen);
	if (rc)
		goto out_close;
	rc = ingest_open(ch, err, errlen);
	if (rc)
		goto out_close;
	ingest_start(ch);
	*out = ch;
	return 0;

out_close:
	channel_finalize(ch);
	return rc;
out_put:
	epoch_put(ep);
	return rc;
}

/* ---- Updates */

int channel_update(struct channel *ch, const struct chan_config *cc, struct epoch *ep,
                   uint64_t at_seq, char *err, size_t errlen)
{
	struct epoch *last = ch->npending ? ch->pending[ch->npending - 1] : NULL;
	bool replace = false;
	int rc;

	if (ch->state != CHAN_RUNNING) {
		snprintf(err, errlen, "the channel is closing");
		rc = -ENOENT;
		goto out_put;
	}
	rc = check_config(cc, err, errlen);
	if (!rc)
		rc = check_fixed(&ch->cfg, cc, err, errlen);
	if (rc)
		goto out_put;
	rc = -ERANGE;
	if (at_seq != UINT64_MAX && ch->have_seq && at_seq <= ch->last_seq) {
		snprintf(err, errlen,
		         "at_seq %llu has already passed: the last sequence number "
		         "received is %llu; expected a later one (or none: from the next message)",
		         (unsigned long long)at_seq, (unsigned long long)ch->last_seq);
		goto out_put;
	}
	rc = -EBUSY;
	if (last) {
		if (last->at_seq == at_seq) {
			replace = true;
		} else if (last->at_seq == UINT64_MAX) {
			snprintf(err, errlen,
			         "an update is already waiting for the next message; expected no "
			         "at_seq (this update then replaces it), or the update again once "
			         "that one is in force");
			goto out_put;
		} else if (at_seq == UINT64_MAX || last->at_seq > at_seq) {
			snprintf(err, errlen,
			         "an update is already waiting for sequence number "
			         "%llu; expected at_seq after it",
			         (unsigned long long)last->at_seq);
			goto out_put;
		} else if (ch->npending == CHAN_PENDING_MAX) {
			snprintf(err, errlen,
			         "%d updates are already waiting for their sequence "
			         "numbers; expected fewer",
			         CHAN_PENDING_MAX);
			goto out_put;
		}
	}
	ep->gen = ch->gen + 1;
	ep->at_seq = at_seq;
	rc = batcher_prepare(ch, ep);
	if (rc) {
		snprintf(err, errlen, "out of memory for the new batch buffers");
		goto out_put;
	}
	if (replace)
		epoch_put(ch->pending[--ch->npending]);
	ch->pending[ch->npending++] = ep;
	ch->cfg = *cc;
	ch->max_inflight = ep->cfg.max_inflight;
	ch->gen = ep->gen;
	/* input.idle_flush_ms may have changed: its timer starts again from the last input. */
	if (ch->idle_armed) {
		uv_timer_stop(&ch->idle_timer);
		ch->idle_armed = false;
	}
	batcher_arm_deadline(ch);
	if (at_seq == UINT64_MAX)
		log_info("channel %s: code generation %u takes effect from the next message",
		         ch->cfg.name, ep->gen);
	else
		log_info("channel %s: code generation %u takes effect at sequence number %llu",
		         ch->cfg.name, ep->gen, (unsigned long long)at_seq);
	return 0;
out_put:
	epoch_put(ep);
	return rc;
}

/* ---- Read access */

const struct chan_config *channel_config(const struct channel *ch)
{
	return &ch->cfg;
}

const struct fec_decoder *channel_decoder(const struct channel *ch)
{
	const struct epoch *ep = ch->npending ? ch->pending[ch->npending - 1] : ch->in_ep;

	return ep ? ep->dec : NULL;
}

uint64_t channel_instance(const struct channel *ch)
{
	return ch->instance;
}

struct stats_call {
	const struct channel *ch;
	struct chan_stats *out;
};

static void get_stats_here(void *arg)
{
	struct stats_call *c = arg;

	stats_fill(&c->ch->stats, c->out);
	c->out->batches_inflight = c->ch->inflight;
	c->out->code_gen = c->ch->gen;
}

/* The counters belong to the channel's loop thread: read them there. */
void channel_get_stats(const struct channel *ch, struct chan_stats *out)
{
	struct stats_call c = {ch, out};

	loop_call(ch->dl, get_stats_here, &c);
}
