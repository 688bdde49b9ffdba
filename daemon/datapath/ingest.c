/*
 * Ingest: reads a channel's input socket and turns messages into accepted ones.
 *
 * ZMQ_FD only signals that something changed, so every wake-up drains the socket until EAGAIN;
 * when a drain stops early (the fairness budget, or no free batch slot) it is resumed explicitly
 * from an idle handle, never left waiting for a signal that will not come. A message is kept as
 * its zmq_msg_t parts, and consume.c converts it straight from the receive buffer.
 *
 * Native messages are [header][payload]; GNU Radio input is raw items, optionally behind the
 * pass_tags header (or with it as a first part), numbered by message count. Bad messages are
 * counted and logged (rate-limited) and never stop the channel.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"
#include "service.h"
#include "log.h"

#define REJECT_ERR_MAX 200

/* ---- Rejections */

static void reject(struct channel *ch, enum fecd_bad_msg reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void reject(struct channel *ch, enum fecd_bad_msg reason, const char *fmt, ...)
{
	char why[REJECT_ERR_MAX], note[48];
	unsigned skipped;
	va_list ap;

	ch->stats.bad_msgs++;
	ch->stats.bad_by_reason[reason]++;
	if (!ratelimit_ok(&ch->rl_bad, now_ns(), &skipped))
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_warn("channel %s: input message rejected: %s%s", ch->cfg.name, why,
	         ratelimit_note(skipped, note, sizeof(note)));
}

/* The reason a parser's error counts under. */
static enum fecd_bad_msg bad_reason(int proto_err)
{
	switch (-proto_err) {
	case FECD_PROTO_EPARTS:
		return FECD_BAD_PARTS;
	case FECD_PROTO_EFORMAT:
		return FECD_BAD_FORMAT;
	case FECD_PROTO_ELENGTH:
	case FECD_PROTO_ETOO_LARGE:
		return FECD_BAD_LENGTH;
	default:
		return FECD_BAD_HEADER;
	}
}

/* ---- Receiving and validating */

void msg_release(struct in_msg *m)
{
	for (unsigned i = 0; i < m->nparts; i++)
		zmq_msg_close(&m->part[i]);
	m->nparts = 0;
	m->active = false;
}

/* Largest hole in a stream bridged with erasures; past it the stream ends at the hole. */
#define GAP_FILL_MAX_SYMS (1u << 24)

/* Counts sequence gaps on SUB inputs (PULL cannot lose messages: a jump there is a sender
 * restart, as is a seq that does not grow). A stream's lost messages are bridged with as many
 * erasures as they would have held had they been as long as this one (senders of streams send
 * equal messages: fecd-feed and SDR front-ends cutting fixed blocks), so the decoded bits after a
 * hole stay in place and only the hole itself decodes to guesses. */
static void track_seq(struct channel *ch, struct in_msg *m, uint64_t seq)
{
	m->gap = false;
	m->gap_syms = 0;
	if (ch->cfg.in.kind == SOCK_SUB && ch->have_seq && seq > ch->last_seq &&
	    seq - ch->last_seq > 1) {
		uint64_t missing = seq - ch->last_seq - 1;
		if (missing <= GAP_FILL_MAX_SYMS && missing * m->nsyms <= GAP_FILL_MAX_SYMS)
			m->gap_syms = missing * m->nsyms;
		unsigned skipped;
		m->gap = true;
		ch->stats.gaps++;
		ch->stats.gap_msgs += missing;
		if (ratelimit_ok(&ch->rl_gap, now_ns(), &skipped))
			log_info("channel %s: %llu input messages missing before sequence number "
			         "%llu%s",
			         ch->cfg.name, (unsigned long long)missing, (unsigned long long)seq,
			         m->gap_syms || !m->nsyms ? ""
			                                  : " (too many to bridge with erasures: a "
			                                    "stream ends there)");
	} else if (ch->have_seq && seq != ch->last_seq + 1) {
		log_debug("channel %s: sender sequence restarted at %llu (was %llu)", ch->cfg.name,
		          (unsigned long long)seq, (unsigned long long)ch->last_seq);
	}
	ch->have_seq = true;
	ch->last_seq = seq;
}

/* The epoch a message with this sequence number and these flags will be consumed with: the
 * pending updates apply_pending will have put in force by then (consume.c), so that its format
 * is checked against the code that decodes it. */
static const struct epoch *msg_epoch(const struct channel *ch, uint64_t seq, uint16_t flags)
{
	const struct epoch *ep = ch->in_ep;

	for (unsigned i = 0; i < ch->npending; i++) {
		const struct epoch *p = ch->pending[i];

		if (p->at_seq != UINT64_MAX && seq < p->at_seq)
			break;
		/* a frame in progress finishes with its code */
		if (ep->info->kind != FEC_KIND_STREAM && ch->fr.active &&
		    (!(flags & FECD_IN_FRAME_START) || ch->cfg.in_proto != IN_NATIVE))
			break;
		ep = p;
	}
	return ep;
}

static bool parse_native(struct channel *ch, struct in_msg *m, unsigned extra)
{
	const struct epoch *ep;
	struct fecd_in_hdr h;
	char why[REJECT_ERR_MAX];
	int rc;

	if (m->nparts != 2 || extra) {
		reject(ch, FECD_BAD_PARTS, "%s: expected 2 parts ([header][payload]), got %u",
		       fecd_proto_strerror(FECD_PROTO_EPARTS), m->nparts + extra);
		return false;
	}
	rc = fecd_in_hdr_parse(zmq_msg_data(&m->part[0]), zmq_msg_size(&m->part[0]), &h);
	if (rc < 0) {
		reject(ch, bad_reason(rc), "%s (header %zu bytes, payload %zu bytes)",
		       fecd_proto_strerror(rc), zmq_msg_size(&m->part[0]),
		       zmq_msg_size(&m->part[1]));
		return false;
	}
	/* Bit formats for bit LLR input, f32v (q values per symbol, q the code's) for q-ary. */
	ep = msg_epoch(ch, h.seq, h.flags);
	if (h.symbol_count && slot_format_check(&ep->slot, h.format, why, sizeof(why))) {
		reject(ch, FECD_BAD_FORMAT, "%s", why);
		return false;
	}
	m->q = fecd_format_is_vector(h.format) ? ep->slot.vals : 1;
	rc = fecd_in_payload_check_q(&h, zmq_msg_size(&m->part[1]), m->q);
	if (rc < 0) {
		reject(ch, bad_reason(rc), "%s (header %zu bytes, payload %zu bytes)",
		       fecd_proto_strerror(rc), zmq_msg_size(&m->part[0]),
		       zmq_msg_size(&m->part[1]));
		return false;
	}
	if (h.channel != ch->cfg.id) {
		reject(ch, FECD_BAD_CHANNEL, "header names channel %u; this channel is %u",
		       h.channel, ch->cfg.id);
		return false;
	}
	if (ch->in_ep->slot.asm_framing && (h.flags & (FECD_IN_FRAME_START | FECD_IN_FRAME_END))) {
		reject(ch, FECD_BAD_FRAMING,
		       "the code finds its frames after sync markers (framing asm): expected a raw "
		       "stream, messages without FRAME_START or FRAME_END");
		return false;
	}
	m->data = zmq_msg_data(&m->part[1]);
	m->nsyms = h.symbol_count;
	m->format = h.format;
	m->polarity_one = h.flags & FECD_IN_POLARITY_ONE;
	m->flags = h.flags;
	m->seq = h.seq;
	m->frame_len = h.frame_len;
	track_seq(ch, m, h.seq);
	return true;
}

static bool parse_gnuradio(struct channel *ch, struct in_msg *m, unsigned extra)
{
	const struct chan_config *cc = &ch->in_ep->cfg;
	const uint8_t *p = zmq_msg_data(&m->part[m->nparts - 1]);
	size_t len = zmq_msg_size(&m->part[m->nparts - 1]), hdr = 0, item;
	uint64_t offset;
	int rc;

	if (m->nparts + extra > 2) {
		reject(ch, FECD_BAD_PARTS,
		       "%s: GNU Radio input is one part (or a PUB key + one part), got %u",
		       fecd_proto_strerror(FECD_PROTO_EPARTS), m->nparts + extra);
		return false;
	}
	/* Two parts: a gr-zeromq PUB sink made with a key sends the key first; the tag header,
	 * when there is one, still heads the part that carries the items. */
	item = cc->gr_format == FECD_FMT_S4_PACKED ? 1 : fecd_format_bytes(cc->gr_format, 1);
	if (cc->gr_tags != GR_TAGS_OFF) {
		rc = fecd_gr_tag_header_parse(p, len, &hdr, &offset);
		if (rc < 0 && cc->gr_tags == GR_TAGS_ON) {
			reject(ch, FECD_BAD_HEADER,
			       "%s (input.gnuradio.tags is on: every message starts with one)",
			       fecd_proto_strerror(rc));
			return false;
		}
		/* auto: raw items that merely look like a header are taken as items */
		if (rc < 0 || (cc->gr_tags == GR_TAGS_AUTO && item && (len - hdr) % item))
			hdr = 0;
	}
	p += hdr;
	len -= hdr;
	if (cc->gr_format == FECD_FMT_S4_PACKED) {
		m->nsyms = len * 2;
	} else {
		item = fecd_format_bytes(cc->gr_format, 1);
		if (!item || len % item) {
			reject(ch, FECD_BAD_LENGTH,
			       "%zu bytes of items is not a whole number of %s items (%zu bytes "
			       "each)",
			       len,
			       fecd_format_name(cc->gr_format) ? fecd_format_name(cc->gr_format)
			                                       : "?",
			       item);
			return false;
		}
		m->nsyms = len / item;
	}
	m->data = p;
	m->gap = false;
	m->gap_syms = 0;
	m->q = 1;
	m->format = cc->gr_format;
	m->polarity_one = cc->gr_polarity_one;
	m->flags = 0;
	m->seq = ch->gr_msgs++;
	m->frame_len = 0;
	ch->have_seq = true;
	ch->last_seq = m->seq;
	return true;
}

/* Receives one whole message. Returns 1 with ch->msg active, 0 when there is none, -1 when it
 * was rejected. */
static int ingest_recv(struct channel *ch)
{
	struct in_msg *m = &ch->msg;
	unsigned extra = 0;
	int more;

	zmq_msg_init(&m->part[0]);
	if (zmq_msg_recv(&m->part[0], ch->in_sock, ZMQ_DONTWAIT) < 0) {
		int e = errno;
		zmq_msg_close(&m->part[0]);
		if (e != EAGAIN && e != EINTR)
			log_err("channel %s: receive failed: %s", ch->cfg.name, zmq_strerror(e));
		return 0;
	}
	m->nparts = 1;
	more = zmq_msg_more(&m->part[0]);
	if (more) {
		zmq_msg_init(&m->part[1]);
		/* ZMQ delivers all parts of a message at once: the rest is already here. */
		if (zmq_msg_recv(&m->part[1], ch->in_sock, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&m->part[1]);
			msg_release(m);
			return -1;
		}
		m->nparts = 2;
		more = zmq_msg_more(&m->part[1]);
	}
	while (more) {
		zmq_msg_t x;
		zmq_msg_init(&x);
		if (zmq_msg_recv(&x, ch->in_sock, ZMQ_DONTWAIT) < 0)
			more = 0;
		else
			more = zmq_msg_more(&x);
		zmq_msg_close(&x);
		extra++;
	}
	bool ok = ch->cfg.in_proto == IN_GNURADIO ? parse_gnuradio(ch, m, extra)
	                                          : parse_native(ch, m, extra);
	if (!ok) {
		msg_release(m);
		return -1;
	}
	m->active = true;
	m->started = false;
	m->eos_done = false;
	m->frame_stage = 0;
	m->skip = false;
	m->marked = false;
	m->done = 0;
	m->accept_ns = now_ns();
	ch->stats.msgs_in++;
	ch->stats.symbols_in += m->nsyms;
	ch->stats.bytes_in += fecd_format_bytes_q(m->format, m->nsyms, m->q);
	return 1;
}

/* ---- The loop side */

static void ingest_on_poll(uv_poll_t *h, int status, int events)
{
	(void)status;
	(void)events;
	ingest_drain(h->data);
}

static void ingest_on_resume(uv_idle_t *h)
{
	ingest_drain(h->data);
}

void ingest_unblock(struct channel *ch)
{
	if (ch->state != CHAN_CLOSED && ch->in_resume_open &&
	    !uv_is_active((uv_handle_t *)&ch->in_resume))
		uv_idle_start(&ch->in_resume, ingest_on_resume);
}

void ingest_drain(struct channel *ch)
{
	unsigned msgs = 0;
	size_t syms = 0;
	bool budget_left = true;

	if (ch->in_busy || ch->state == CHAN_CLOSED)
		return;
	ch->in_busy = true;
	if (ch->flush_due)
		batcher_flush_due(ch);
	for (;;) {
		if (ch->msg.active && !ingest_consume(ch)) {
			/* ZMQ_FD stays readable while the socket holds commands that only reading
			 * would process: watching it now would spin the loop. A freed slot resumes
			 * the drain from the idle handle instead. */
			ch->in_blocked = true;
			if (ch->in_poll_open)
				uv_poll_stop(&ch->in_poll);
			break;
		}
		ch->in_blocked = false;
		if (ch->in_poll_open && !uv_is_active((uv_handle_t *)&ch->in_poll))
			uv_poll_start(&ch->in_poll, UV_READABLE, ingest_on_poll);
		if (ch->in_stopped || !ch->in_sock)
			break;
		if (msgs >= CHAN_IN_BUDGET_MSGS || syms >= CHAN_IN_BUDGET_SYMS) {
			budget_left = false;
			break;
		}
		int r = ingest_recv(ch);
		if (r == 0) {
			int ev = 0;
			size_t evlen = sizeof(ev);
			if (zmq_getsockopt(ch->in_sock, ZMQ_EVENTS, &ev, &evlen) == 0 &&
			    (ev & ZMQ_POLLIN))
				continue;
			break;
		}
		msgs++;
		if (r > 0)
			syms += ch->msg.nsyms;
	}
	if (budget_left)
		uv_idle_stop(&ch->in_resume);
	else
		uv_idle_start(&ch->in_resume, ingest_on_resume);
	batcher_arm_deadline(ch);
	ch->in_busy = false;
	if (ch->state == CHAN_CLOSING)
		channel_close_pump(ch);
}

int ingest_open(struct channel *ch, char *err, size_t errlen)
{
	const struct endpoint_config *ec = &ch->cfg.in;
	int type = ec->kind == SOCK_SUB ? ZMQ_SUB : ZMQ_PULL, zero = 0, hwm = (int)ec->hwm, fd;
	int64_t maxsize = (int64_t)FECD_MAX_PAYLOAD_BYTES + FECD_HDR_MAX_LEN + 65536;
	size_t fdlen = sizeof(fd);

	ch->in_sock = zmq_socket(fecd_zmq_ctx(ch->d), type);
	if (!ch->in_sock) {
		snprintf(err, errlen, "cannot create the input socket: %s", zmq_strerror(errno));
		return -errno;
	}
	uint64_t aff = fecd_zmq_affinity(ch->d, true);
	zmq_setsockopt(ch->in_sock, ZMQ_AFFINITY, &aff, sizeof(aff));
	zmq_setsockopt(ch->in_sock, ZMQ_LINGER, &zero, sizeof(zero));
	zmq_setsockopt(ch->in_sock, ZMQ_RCVHWM, &hwm, sizeof(hwm));
	/* A peer sending more than any valid message is cut off before it can exhaust memory. */
	zmq_setsockopt(ch->in_sock, ZMQ_MAXMSGSIZE, &maxsize, sizeof(maxsize));
	if (type == ZMQ_SUB)
		zmq_setsockopt(ch->in_sock, ZMQ_SUBSCRIBE, "", 0);
	int rc = channel_attach(ch, ch->in_sock, ec, "input", err, errlen);
	if (rc)
		return rc;
	if (zmq_getsockopt(ch->in_sock, ZMQ_FD, &fd, &fdlen)) {
		snprintf(err, errlen, "input socket: no ZMQ_FD: %s", zmq_strerror(errno));
		return -errno;
	}
	rc = uv_poll_init(ch->loop, &ch->in_poll, fd);
	if (rc) {
		snprintf(err, errlen, "input socket: cannot poll it: %s", uv_strerror(rc));
		return rc;
	}
	ch->in_poll.data = ch;
	ch->open_handles++;
	ch->in_poll_open = true;
	uv_idle_init(ch->loop, &ch->in_resume);
	ch->in_resume.data = ch;
	ch->open_handles++;
	ch->in_resume_open = true;
	return 0;
}

void ingest_start(struct channel *ch)
{
	uv_poll_start(&ch->in_poll, UV_READABLE, ingest_on_poll);
	/* Messages may already be queued: the descriptor only signals new ones. */
	ingest_unblock(ch);
}

static void ingest_on_poll_closed(uv_handle_t *h)
{
	channel_handle_closed(h->data);
}

void ingest_stop(struct channel *ch)
{
	if (ch->in_stopped)
		return;
	ch->in_stopped = true;
	if (ch->in_poll_open) {
		uv_close((uv_handle_t *)&ch->in_poll, ingest_on_poll_closed);
		ch->in_poll_open = false;
	}
	sockmon_close(&ch->mon_in);
	if (ch->in_sock) {
		zmq_close(ch->in_sock);
		ch->in_sock = NULL;
	}
	ingest_unblock(ch);
}
