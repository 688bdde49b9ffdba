/*
 * Publish: takes decoded batches back from the backend and sends them out in input order.
 *
 * The backend reports completion on its own thread; the batch goes onto the channel's done list
 * under a mutex and the loop is woken with uv_async. The loop publishes batches strictly by their
 * sequence number, keeping any that finished early until their turn. A stream batch becomes one
 * message with every job's owned bits back to back; a frame batch one message per frame. Sends
 * never block: on EAGAIN the message stays where it is (down to the part that failed) and the
 * output socket's ZMQ_FD is watched until ZMQ_EVENTS shows POLLOUT. Meanwhile no batch slot
 * frees, so ingest stops reading: a stuck reader holds back the sender instead of losing data.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bitpack.h"
#include "channel.h"
#include "service.h"
#include "log.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "soft values are sent as host floats, which the protocol defines as little-endian"
#endif

void publish_task_done(struct backend_task *t)
{
	struct batch *b = t->arg;
	struct channel *ch = b->ch;

	b->done_ns = now_ns();
	health_sample(b, &b->health);
	pthread_mutex_lock(&ch->done_lock);
	b->next = ch->done_head;
	ch->done_head = b;
	/* Under the lock: the channel cannot close its async handle between our push and this. */
	uv_async_send(&ch->done_async);
	pthread_mutex_unlock(&ch->done_lock);
}

void publish_on_async(uv_async_t *h)
{
	struct channel *ch = h->data;
	struct batch *list;

	pthread_mutex_lock(&ch->done_lock);
	list = ch->done_head;
	ch->done_head = NULL;
	pthread_mutex_unlock(&ch->done_lock);
	while (list) {
		struct batch *b = list;
		list = b->next;
		b->next = NULL;
		b->state = BATCH_DONE;
		ch->inflight--;
		stats_batch_time(&ch->stats, b->done_ns - b->submit_ns);
		ch->stats.jobs_retried += b->task.retried;
		health_account(ch, &b->health);
		if (b->task.ran_on == BACKEND_RAN_GPU)
			ch->stats.batches_gpu++;
		else
			ch->stats.batches_cpu++;
	}
	batcher_submit_ready(ch);
	publish_run(ch);
}

/* ---- Building messages */

static uint32_t job_expected_bits(const struct batch *b, const struct fec_job *j)
{
	const struct fec_info *in = b->ep->info;

	if (!b->stream || !in->unit_syms)
		return 0;
	return j->own_len / in->unit_syms * in->unit_bits;
}

/* A batch the backend could not decode still goes out, marked erased, so nothing is silently
 * skipped and the decoded-bit offsets stay right. */
static void batch_mark_erased(struct channel *ch, struct batch *b)
{
	unsigned skipped;

	if (ratelimit_ok(&ch->rl_decode, now_ns(), &skipped))
		log_err("channel %s: decoding a batch of %u jobs failed: %s; published as erased",
		        ch->cfg.name, b->count, fec_strerror(b->task.status));
	for (uint32_t i = 0; i < b->count; i++) {
		struct fec_job *j = &b->jobs[i];
		uint32_t bits = job_expected_bits(b, j);
		size_t max = b->ep->out_stride * 8;
		j->out_bits = bits < max ? bits : (uint32_t)max;
		j->soft_count = 0;
		j->status = FECD_STATUS_ERASED;
		j->work = 0;
		j->metric = 0;
		memset(b->out + i * b->ep->out_stride, 0, (j->out_bits + 7) / 8);
	}
}

static void hdr_common(struct channel *ch, const struct batch *b, struct fecd_out_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->version = FECD_PROTO_VERSION;
	h->type = FECD_MSG_DECODED;
	h->hdr_len = FECD_OUT_HDR_LEN;
	h->channel = ch->cfg.id;
	h->family = (uint8_t)b->ep->cfg.spec.family;
	h->code_gen = b->ep->gen;
	h->instance = ch->instance;
	h->frame_seq = ch->frame_seq;
	if (b->ep->gen != ch->pub_gen)
		h->flags |= FECD_OUT_CODE_CHANGED;
}

/* Lays out the current message's parts: the header (or one PDU), the bits, the soft values. */
static int msg_layout(struct channel *ch, struct batch *b, struct fecd_out_hdr *h,
                      const uint8_t *bits, const float *soft)
{
	if (b->ep->cfg.out_proto == OUT_PDU) {
		long n = fecd_pdu_write(h, bits, b->ep->cfg.pdu_unpacked, b->pdu, b->pdu_cap);
		if (n < 0) {
			log_err("channel %s: cannot write a PDU: %s", ch->cfg.name,
			        fecd_proto_strerror((int)n));
			return (int)n;
		}
		b->part[0] = b->pdu;
		b->part_len[0] = (size_t)n;
		b->nparts = 1;
		return 0;
	}
	fecd_out_hdr_pack(h, b->hdr);
	b->part[0] = b->hdr;
	b->part_len[0] = FECD_OUT_HDR_LEN;
	b->part[1] = bits ? bits : b->hdr;
	b->part_len[1] = (h->payload_bits + 7) / 8;
	b->nparts = 2;
	if (h->flags & FECD_OUT_SOFT) {
		b->part[2] = soft ? (const void *)soft : (const void *)b->hdr;
		b->part_len[2] = (size_t)h->soft_count * sizeof(float);
		b->nparts = 3;
	}
	return 0;
}

static bool want_soft(const struct batch *b)
{
	return b->ep->soft_stride && b->ep->cfg.out_proto == OUT_NATIVE;
}

/* The soft layout and the work counter (iterations: the work saturated at 16 bits). */
static void hdr_soft_work(const struct batch *b, struct fecd_out_hdr *h, uint32_t work)
{
	h->work = work;
	h->iterations = work > UINT16_MAX ? UINT16_MAX : (uint16_t)work;
	if (h->flags & FECD_OUT_SOFT) {
		h->soft_kind = (uint8_t)b->ep->info->soft_kind;
		h->soft_per_unit = (uint16_t)b->ep->info->soft_per_unit;
	}
}

/* Soft values a stream job keeps when its last trim of out_bits decoded bits are erasures' (a
 * padded last unit): the units (bits, or q-ary symbols) that cover the bits kept, at soft_per_unit
 * values each. The family writes whole units: soft_count / per units for out_bits bits. */
static uint32_t soft_kept(const struct fec_job *j, uint32_t trim, uint32_t per)
{
	uint32_t units, kept_bits;

	if (!trim || !j->soft_count || !j->out_bits || !per)
		return j->soft_count;
	units = j->soft_count / per;
	kept_bits = j->out_bits > trim ? j->out_bits - trim : 0;
	return (uint32_t)((uint64_t)units * kept_bits / j->out_bits) * per;
}

static int build_stream(struct channel *ch, struct batch *b)
{
	struct fecd_out_hdr *h = &b->pub_hdr;
	const struct job_meta *first = b->count ? &b->meta[0] : &b->eos_meta;
	uint64_t bits = 0, soft = 0, in_count = 0;
	uint8_t status = FECD_STATUS_DECODED;
	uint32_t work = 0;

	hdr_common(ch, b, h);
	for (uint32_t i = 0; i < b->count; i++) {
		const struct fec_job *j = &b->jobs[i];
		const struct job_meta *m = &b->meta[i];
		/* A padded last unit: its erasures' bits (and their soft values) stay out. */
		uint32_t jbits = j->out_bits > m->trim_bits ? j->out_bits - m->trim_bits : 0;
		uint32_t jsoft = soft_kept(j, m->trim_bits, b->ep->info->soft_per_unit);
		fec_copy_bits(b->msg, bits, b->out + i * b->ep->out_stride, 0, jbits);
		bits += jbits;
		if (want_soft(b) && jsoft) {
			memcpy(b->msg_soft + soft, b->soft + i * b->ep->soft_stride,
			       jsoft * sizeof(float));
			soft += jsoft;
		}
		in_count += j->own_len - m->pad_syms;
		if (j->status > status)
			status = j->status;
		if (j->work > work)
			work = j->work;
	}
	if (b->stream_start)
		ch->stream_bits = 0;
	h->flags |= FECD_OUT_STREAM;
	if (b->end_of_stream) {
		h->flags |= FECD_OUT_END_OF_STREAM;
		h->end_cause = b->end_cause;
	}
	if (want_soft(b))
		h->flags |= FECD_OUT_SOFT;
	h->status = status;
	h->in_first = first->in_first;
	h->in_seq = first->in_seq;
	h->out_bit_offset = ch->stream_bits;
	h->in_count = (uint32_t)in_count;
	h->payload_bits = (uint32_t)bits;
	h->soft_count = (uint32_t)soft;
	hdr_soft_work(b, h, work);
	h->metric = b->count ? b->jobs[b->count - 1].metric : 0;
	return msg_layout(ch, b, h, b->msg, b->msg_soft);
}

static int build_frame(struct channel *ch, struct batch *b, uint32_t i)
{
	struct fecd_out_hdr *h = &b->pub_hdr;

	hdr_common(ch, b, h);
	if (b->end_of_stream && (b->count == 0 || i == b->count - 1)) {
		h->flags |= FECD_OUT_END_OF_STREAM;
		h->end_cause = b->end_cause;
	}
	if (b->count == 0) {
		h->in_first = b->eos_meta.in_first;
		h->in_seq = b->eos_meta.in_seq;
		return msg_layout(ch, b, h, NULL, NULL);
	}
	const struct fec_job *j = &b->jobs[i];
	if (want_soft(b))
		h->flags |= FECD_OUT_SOFT;
	h->status = j->status;
	h->in_first = b->meta[i].in_first;
	h->in_seq = b->meta[i].in_seq;
	h->in_count = j->own_len + b->meta[i].lead_syms; /* a sync marker is owned with its frame */
	h->payload_bits = j->out_bits;
	h->soft_count = want_soft(b) ? j->soft_count : 0;
	hdr_soft_work(b, h, j->work);
	h->metric = j->metric;
	return msg_layout(ch, b, h, b->out + i * b->ep->out_stride,
	                  b->soft ? b->soft + i * b->ep->soft_stride : NULL);
}

/* ---- Sending */

static void on_out_poll(uv_poll_t *h, int status, int events)
{
	struct channel *ch = h->data;
	int ev = 0;
	size_t evlen = sizeof(ev);

	(void)status;
	(void)events;
	if (zmq_getsockopt(ch->out_sock, ZMQ_EVENTS, &ev, &evlen) == 0 && !(ev & ZMQ_POLLOUT))
		return;
	ch->out_blocked = false;
	uv_poll_stop(h);
	publish_run(ch);
}

static void out_wait(struct channel *ch)
{
	ch->out_blocked = true;
	uv_poll_start(&ch->out_poll, UV_READABLE, on_out_poll);
}

/* Sends the current message from the part that has not left yet. */
static int send_parts(struct channel *ch, struct batch *b)
{
	while (b->pub_part < b->nparts) {
		unsigned p = b->pub_part;
		int flags = ZMQ_DONTWAIT | (p + 1 < b->nparts ? ZMQ_SNDMORE : 0);
		if (zmq_send(ch->out_sock, b->part[p], b->part_len[p], flags) >= 0) {
			b->pub_part++;
			continue;
		}
		if (errno == EAGAIN)
			return -EAGAIN;
		if (errno == EINTR)
			continue;
		unsigned skipped;
		if (ratelimit_ok(&ch->rl_send, now_ns(), &skipped))
			log_err("channel %s: send failed, message dropped: %s", ch->cfg.name,
			        zmq_strerror(errno));
		return -EIO;
	}
	return 0;
}

/* Counts one message that left (sent true) or was given up. */
static void account(struct channel *ch, struct batch *b, const struct fecd_out_hdr *h,
                    uint64_t accept_ns, bool sent)
{
	if (sent) {
		ch->stats.msgs_out++;
		/* A bare END_OF_STREAM marker (no job) and stream messages are not frames. */
		if (!(h->flags & FECD_OUT_STREAM) && b->count > 0)
			ch->stats.frames_out++;
		if (h->status < FECD_STATUS_COUNT) {
			ch->stats.msgs_by_status[h->status]++;
			if (!(h->flags & FECD_OUT_STREAM) && b->count > 0)
				ch->stats.frames_by_status[h->status]++;
		}
		ch->stats.bits_out += h->payload_bits;
		ch->stats.syms_out += h->in_count;
		if (h->status != FECD_STATUS_DECODED)
			ch->stats.failures++;
		if (accept_ns)
			stats_latency(&ch->stats, now_ns() - accept_ns);
	} else {
		ch->stats.syms_dropped += h->in_count;
		ch->stats.syms_abandoned += h->in_count;
	}
	if (h->flags & FECD_OUT_STREAM)
		ch->stream_bits += h->payload_bits;
	ch->frame_seq++;
	ch->pub_gen = b->ep->gen;
}

/* Publishes one batch; -EAGAIN when the output is full (progress is kept in the batch). */
static int publish_batch(struct channel *ch, struct batch *b)
{
	bool one_msg = b->stream || b->count == 0;
	uint32_t nmsgs = one_msg ? 1 : b->count;

	if (!b->pub_started) {
		if (b->task.status < 0)
			batch_mark_erased(ch, b);
		b->pub_started = true;
		b->pub_job = 0;
		b->pub_built = false;
	}
	while (b->pub_job < nmsgs) {
		if (!b->pub_built) {
			int rc = one_msg && b->stream ? build_stream(ch, b)
			                              : build_frame(ch, b, b->pub_job);
			b->pub_part = rc < 0 ? b->nparts : 0;
			b->pub_failed = rc < 0;
			b->pub_built = true;
		}
		int rc = 0;
		if (!ch->out_abandoned && !b->pub_failed)
			rc = send_parts(ch, b);
		if (rc == -EAGAIN)
			return -EAGAIN;
		const struct job_meta *m = b->count ? &b->meta[one_msg ? 0 : b->pub_job] : NULL;
		account(ch, b, &b->pub_hdr, m ? m->accept_ns : 0,
		        rc == 0 && !ch->out_abandoned && !b->pub_failed);
		b->pub_job++;
		b->pub_built = false;
	}
	return 0;
}

static struct batch *batch_by_seq(struct channel *ch, uint64_t seq)
{
	for (unsigned i = 0; i < ch->npool; i++) {
		struct batch *b = ch->pool[i];
		if (b->state != BATCH_FREE && b->seq == seq)
			return b;
	}
	return NULL;
}

void publish_run(struct channel *ch)
{
	struct batch *b;

	if (ch->in_publish)
		return; /* re-entered from a release below: the outer loop goes on */
	ch->in_publish = true;
	while (!ch->out_blocked && (b = batch_by_seq(ch, ch->next_pub_seq)) &&
	       b->state == BATCH_DONE) {
		if (publish_batch(ch, b) == -EAGAIN) {
			out_wait(ch);
			break;
		}
		ch->next_pub_seq++;
		batch_release(ch, b);
	}
	ch->in_publish = false;
}

/* Closing out of time: what cannot leave is counted as dropped. */
void publish_abandon(struct channel *ch)
{
	ch->out_abandoned = true;
	if (ch->out_blocked) {
		ch->out_blocked = false;
		uv_poll_stop(&ch->out_poll);
	}
	publish_run(ch);
}

int publish_open(struct channel *ch, char *err, size_t errlen)
{
	const struct endpoint_config *ec = &ch->cfg.out;
	int type = ec->kind == SOCK_PUB ? ZMQ_PUB : ZMQ_PUSH, hwm = (int)ec->hwm, fd, rc;
	int64_t maxsize = CHAN_OUT_MAX_RECV_BYTES;
	size_t fdlen = sizeof(fd);

	ch->out_sock = zmq_socket(fecd_zmq_ctx(ch->d), type);
	if (!ch->out_sock) {
		snprintf(err, errlen, "cannot create the output socket: %s", zmq_strerror(errno));
		return -errno;
	}
	uint64_t aff = fecd_zmq_affinity(ch->d, false);
	zmq_setsockopt(ch->out_sock, ZMQ_AFFINITY, &aff, sizeof(aff));
	zmq_setsockopt(ch->out_sock, ZMQ_SNDHWM, &hwm, sizeof(hwm));
	/* Receivers send nothing but subscriptions: a peer sending more is cut off. */
	zmq_setsockopt(ch->out_sock, ZMQ_MAXMSGSIZE, &maxsize, sizeof(maxsize));
	rc = channel_attach(ch, ch->out_sock, ec, "output", err, errlen);
	if (rc)
		return rc;
	if (zmq_getsockopt(ch->out_sock, ZMQ_FD, &fd, &fdlen)) {
		snprintf(err, errlen, "output socket: no ZMQ_FD: %s", zmq_strerror(errno));
		return -errno;
	}
	rc = uv_poll_init(ch->loop, &ch->out_poll, fd);
	if (rc) {
		snprintf(err, errlen, "output socket: cannot poll it: %s", uv_strerror(rc));
		return rc;
	}
	ch->out_poll.data = ch;
	ch->open_handles++;
	ch->out_poll_open = true;
	rc = uv_async_init(ch->loop, &ch->done_async, publish_on_async);
	if (rc) {
		snprintf(err, errlen, "cannot create the completion handle: %s", uv_strerror(rc));
		return rc;
	}
	ch->done_async.data = ch;
	ch->open_handles++;
	ch->async_open = true;
	return 0;
}
