/*
 * Consuming an accepted message: putting pending code generations in force at their sequence
 * number, appending stream symbols to the stream buffer, and assembling frames straight into
 * their job slot (int8 LLRs, or, for codes that take them, float32 LLRs or q float32
 * log-probabilities per q-ary symbol: the epoch's slot layout). Frames come one per
 * message or group of messages (FRAME_START .. FRAME_END), by length from GNU Radio input, or
 * after a sync marker found in a raw stream (asm_sync.h). Symbols are converted from the
 * message's receive buffer in one pass; a message may be consumed in several goes when batch
 * slots run out, and each step can resume where it stopped.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"
#include "log.h"
#include "softbits.h"

#define DROP_WHY_MAX 200

/* ---- Message marks: where each message's symbols start */

int marks_push(struct mark_ring *r, uint64_t abs, uint64_t seq, uint64_t accept_ns)
{
	if (r->len == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 64;
		struct msg_mark *nv = malloc(ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		for (size_t i = 0; i < r->len; i++)
			nv[i] = r->v[(r->head + i) & (r->cap - 1)];
		free(r->v);
		r->v = nv;
		r->cap = ncap;
		r->head = 0;
	}
	r->v[(r->head + r->len) & (r->cap - 1)] = (struct msg_mark){abs, seq, accept_ns};
	r->len++;
	return 0;
}

bool marks_find(struct mark_ring *r, uint64_t abs, struct msg_mark *out)
{
	while (r->len > 1 && r->v[(r->head + 1) & (r->cap - 1)].abs <= abs) {
		r->head = (r->head + 1) & (r->cap - 1);
		r->len--;
	}
	if (r->len == 0 || r->v[r->head].abs > abs)
		return false;
	*out = r->v[r->head];
	return true;
}

/* ---- Dropped frames */

void frame_drop(struct channel *ch, enum fecd_frame_error reason, uint64_t extra_syms,
                const char *fmt, ...)
{
	char why[DROP_WHY_MAX], note[48];
	unsigned skipped;
	va_list ap;

	ch->stats.frame_errors++;
	ch->stats.frame_errors_by_reason[reason]++;
	ch->stats.syms_dropped += extra_syms + (ch->fr.active ? ch->fr.have + ch->fr.lead : 0);
	ch->fr.active = false;
	ch->fr.b = NULL;
	if (ratelimit_ok(&ch->rl_frame, now_ns(), &skipped)) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		log_warn("channel %s: frame dropped: %s%s", ch->cfg.name, why,
		         ratelimit_note(skipped, note, sizeof(note)));
	}
	if (ch->flush_due)
		batcher_flush_due(ch);
}

/* ---- Consuming: code switches, streams, frames */

static bool ep_is_stream(const struct epoch *ep)
{
	return ep->info->kind == FEC_KIND_STREAM;
}

/* Puts in force the updates whose sequence number has come. False when ending the old stream
 * must wait for a batch slot. */
bool apply_pending(struct channel *ch, struct in_msg *m)
{
	while (ch->npending) {
		struct epoch *ep = ch->pending[0], *old = ch->in_ep;
		if (ep->at_seq != UINT64_MAX && m->seq < ep->at_seq)
			break;
		if (ep_is_stream(old) && ch->sb.open) {
			if (ep_is_stream(ep) && fec_spec_same_code(&old->cfg.spec, &ep->cfg.spec))
				stream_queue_epoch(ch, ep, ch->sb.end + ep->info->head_syms);
			else if (!stream_finish(ch, FECD_END_CODE_CHANGE, m->seq))
				return false;
		} else if (!ep_is_stream(old) && ch->fr.active) {
			if (!(m->flags & FECD_IN_FRAME_START) || ch->cfg.in_proto != IN_NATIVE)
				break; /* the frame in progress finishes with its code */
			frame_drop(ch, FECD_FRAME_ERR_UNFINISHED, 0,
			           "a new frame started before FRAME_END of the last one");
		}
		memmove(ch->pending, ch->pending + 1, --ch->npending * sizeof(ch->pending[0]));
		ch->in_ep = ep;
		log_info("channel %s: code generation %u in force from sender sequence number %llu",
		         ch->cfg.name, ep->gen, (unsigned long long)m->seq);
		epoch_put(old);
	}
	return true;
}

/* Converts the message's symbols [first, first + n) to int8 LLRs. The format was validated when
 * the message was parsed, so this cannot fail. 4-bit symbols come two to a byte: a range that
 * starts on the second of a pair (a frame after a sync marker) takes that one alone first. */
void wire_to_s8(const struct channel *ch, const struct in_msg *m, size_t first, size_t n,
                int8_t *dst)
{
	float scale = ch->in_ep->cfg.llr_scale;

	if (m->format == FECD_FMT_S4_PACKED && (first & 1) && n) {
		int8_t pair[2];
		fec_syms_to_s8(m->format, m->data + first / 2, 2, m->polarity_one, scale, pair);
		*dst++ = pair[1];
		first++;
		n--;
	}
	fec_syms_to_s8(m->format, m->data + fecd_format_bytes(m->format, first), n, m->polarity_one,
	               scale, dst);
}

static void convert(struct channel *ch, struct in_msg *m, size_t n, int8_t *dst)
{
	wire_to_s8(ch, m, m->done, n, dst);
}

/* Largest float LLR a float slot takes: beyond it (and for infinities) the decoders' sums could
 * overflow; NaN carries no information and becomes 0, as in the int8 conversion. */
#define SLOT_F32_MAX 1.0e6f

/* Converts the message's symbols [first, first + n) to float32 LLRs for a code that takes them:
 * f32 as sent (times polarity), the int8 formats as the decoder reads its int8 input, value /
 * the code's llr_scale (the slot layout's). negate: the frame came with an inverted sync marker.
 */
static void wire_to_f32(struct channel *ch, const struct in_msg *m, size_t first, size_t n,
                        bool negate, float *dst)
{
	bool minus = m->polarity_one != negate;

	if (m->format == FECD_FMT_F32_LLR) {
		const uint8_t *p = m->data + 4 * first;
		for (size_t i = 0; i < n; i++) {
			float v;
			memcpy(&v, p + 4 * i, sizeof(v));
			if (isnan(v))
				v = 0.0f;
			else if (!(fabsf(v) <= SLOT_F32_MAX))
				v = v < 0 ? -SLOT_F32_MAX : SLOT_F32_MAX;
			dst[i] = minus ? -v : v;
		}
		return;
	}
	/* negate is applied here; wire_to_s8 already applied the message's polarity */
	float inv = 1.0f / ch->in_ep->slot.llr_scale;
	if (negate)
		inv = -inv;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < CHAN_SCRATCH_SYMS ? n - done : CHAN_SCRATCH_SYMS;
		wire_to_s8(ch, m, first + done, k, ch->scratch);
		for (size_t i = 0; i < k; i++)
			dst[done + i] = (float)ch->scratch[i] * inv;
		done += k;
	}
}

/* Writes the message's next n symbols into the frame being assembled. */
void frame_write(struct channel *ch, const struct in_msg *m, size_t n)
{
	struct frame_asm *fr = &ch->fr;
	struct batch *b = fr->b;
	const struct slot_layout *l = &b->ep->slot;
	size_t at = (size_t)b->count * b->ep->in_stride + fr->have;

	if (fecd_format_is_vector(m->format) != (l->kind == FEC_IN_F32_SYMLOGP)) {
		/* Ingest refuses formats the code in force cannot take; this is only a safeguard
		 * against an update changing the input kind inside a message: erasures. */
		memset((uint8_t *)b->in + at * l->elem, 0, n * l->elem);
		return;
	}
	if (l->kind == FEC_IN_F32_SYMLOGP) { /* no polarity, and no negation (no sync markers) */
		fec_syms_to_f32v(m->format, m->data + fecd_format_bytes_q(m->format, m->done, m->q),
		                 n, l->vals, (float *)(void *)b->in + at * l->vals);
		return;
	}
	if (l->kind == FEC_IN_F32_LLR) {
		wire_to_f32(ch, m, m->done, n, fr->negate, (float *)(void *)b->in + at);
		return;
	}
	int8_t *dst = b->in + at;
	wire_to_s8(ch, m, m->done, n, dst);
	if (fr->negate) /* int8 LLRs are -127..127: negating stays in range */
		for (size_t i = 0; i < n; i++)
			dst[i] = (int8_t)-dst[i];
}

static bool consume_stream(struct channel *ch, struct in_msg *m)
{
	struct stream_buf *sb = &ch->sb;

	sb->last_in_ns = m->accept_ns;
	if (sb->open && !stream_cut(ch))
		return false;
	if (m->gap) {
		/* A hole too large to bridge (below): what follows is not adjacent to what came
		 * before, so the stream ends here and a new one starts with this message (an
		 * empty END_OF_STREAM message ends it anyway). */
		if (!m->gap_syms && m->nsyms && sb->open &&
		    !stream_finish(ch, FECD_END_GAP, m->seq))
			return false;
		m->gap = false;
	}
	while (sb->open && m->gap_syms) {
		/* lost messages: neutral symbols in their place */
		size_t room = stream_room(ch);
		size_t n = m->gap_syms < room ? (size_t)m->gap_syms : room;
		if (n == 0)
			return false;
		memset(sb->buf + (sb->end - sb->base), 0, n);
		sb->end += n;
		ch->abs_next += n;
		ch->stats.syms_filled += n;
		m->gap_syms -= n;
		if (!stream_cut(ch))
			return false;
	}
	m->gap_syms = 0;
	while (m->done < m->nsyms) {
		if (!sb->open)
			stream_begin(ch);
		size_t room = stream_room(ch), left = m->nsyms - m->done;
		size_t n = left < room ? left : room;
		if (m->format == FECD_FMT_S4_PACKED && n < left)
			n &= ~(size_t)1; /* stay on a byte boundary */
		if (n == 0)
			return false; /* full until blocks can be cut */
		convert(ch, m, n, sb->buf + (sb->end - sb->base));
		if (m->done == 0 && marks_push(&ch->marks, sb->end, m->seq, m->accept_ns))
			log_err("channel %s: out of memory for message marks", ch->cfg.name);
		sb->end += n;
		ch->abs_next += n;
		m->done += n;
		if (!stream_cut(ch))
			return false;
	}
	return true;
}

void frame_complete(struct channel *ch)
{
	struct frame_asm *fr = &ch->fr;
	struct batch *b = fr->b;
	uint32_t i = b->count;
	struct fec_job *j = &b->jobs[i];

	memset(j, 0, sizeof(*j));
	j->in_len = fr->want;
	j->own_len = fr->want;
	b->meta[i] = (struct job_meta){.in_first = fr->in_first,
	                               .in_seq = fr->in_seq,
	                               .accept_ns = fr->accept_ns,
	                               .lead_syms = fr->lead};
	b->count++;
	fr->active = false;
	fr->b = NULL;
	batch_job_added(ch, b);
	if (ch->flush_due)
		batcher_flush_due(ch);
}

bool frame_begin(struct channel *ch, struct in_msg *m, uint32_t want)
{
	struct batch *b = batch_filling(ch, ch->in_ep, false);

	if (!b)
		return false;
	ch->fr = (struct frame_asm){.active = true,
	                            .want = want,
	                            .in_first = ch->abs_next,
	                            .in_seq = m->seq,
	                            .accept_ns = m->accept_ns,
	                            .b = b};
	return true;
}

/* Native frames: FRAME_START .. FRAME_END messages, frame_len symbols in all. */
static bool consume_frame(struct channel *ch, struct in_msg *m)
{
	const struct fec_info *info = ch->in_ep->info;
	struct frame_asm *fr = &ch->fr;
	bool has_flags = m->flags & (FECD_IN_FRAME_START | FECD_IN_FRAME_END);
	/* all of it, except after an update that ended sync-marker framing mid-message */
	size_t rest = m->nsyms - m->done;

	if (m->nsyms == 0 && !has_flags)
		return true; /* a bare end-of-stream marker */
	if (m->frame_stage == 0) {
		if (m->gap && fr->active)
			frame_drop(ch, FECD_FRAME_ERR_GAP, 0,
			           "input messages were lost in the middle of the frame");
		m->gap = false;
		if (m->flags & FECD_IN_FRAME_START) {
			uint32_t max =
			    info->max_frame_syms ? info->max_frame_syms : info->frame_syms;
			if (m->frame_len == 0)
				m->frame_len = info->frame_syms; /* fixed length: "the code's" */
			if (fr->active)
				frame_drop(ch, FECD_FRAME_ERR_UNFINISHED, 0,
				           "FRAME_START arrived before FRAME_END of the last "
				           "frame");
			if (m->frame_len == 0 || m->frame_len > max ||
			    (info->frame_syms && m->frame_len != info->frame_syms)) {
				m->skip = true;
				if (info->frame_syms)
					frame_drop(ch, FECD_FRAME_ERR_FRAME_LEN, m->nsyms,
					           "frame_len %u; this code's frames "
					           "are %u symbols",
					           m->frame_len, info->frame_syms);
				else
					frame_drop(ch, FECD_FRAME_ERR_FRAME_LEN, m->nsyms,
					           "frame_len %u; expected 1..%u", m->frame_len,
					           max);
			} else if (!frame_begin(ch, m, m->frame_len)) {
				return false;
			}
		} else if (!fr->active) {
			m->skip = true;
			frame_drop(ch, FECD_FRAME_ERR_UNSTARTED, rest,
			           "a message continues a frame that never started "
			           "(no FRAME_START)");
		}
		m->frame_stage = 1;
	}
	if (m->skip) {
		ch->abs_next += rest;
		m->done = m->nsyms;
		return true;
	}
	if (m->nsyms > fr->want - fr->have) {
		uint32_t want = fr->want;
		frame_drop(ch, FECD_FRAME_ERR_OVERRUN, m->nsyms,
		           "%u symbols arrived for a frame of frame_len %u",
		           fr->have + (uint32_t)m->nsyms, want);
		ch->abs_next += m->nsyms;
		return true;
	}
	frame_write(ch, m, m->nsyms);
	fr->have += (uint32_t)m->nsyms;
	ch->abs_next += m->nsyms;
	m->done = m->nsyms;
	if (m->flags & FECD_IN_FRAME_END) {
		if (fr->have != fr->want)
			frame_drop(ch, FECD_FRAME_ERR_SHORT, 0,
			           "FRAME_END after %u of the frame's %u symbols", fr->have,
			           fr->want);
		else
			frame_complete(ch);
	}
	return true;
}

/* GNU Radio items into a frame code: a frame every raw_frame_syms symbols. */
static bool consume_raw_frames(struct channel *ch, struct in_msg *m)
{
	struct frame_asm *fr = &ch->fr;

	while (m->done < m->nsyms) {
		if (!fr->active) {
			if (!apply_pending(ch, m))
				return false;
			if (ep_is_stream(ch->in_ep) || ch->in_ep->slot.asm_framing)
				return consume_stream_or_frames(ch, m);
			if (!frame_begin(ch, m, ch->in_ep->cfg.raw_frame_syms))
				return false;
		}
		size_t n = m->nsyms - m->done;
		if (n > fr->want - fr->have)
			n = fr->want - fr->have;
		frame_write(ch, m, n);
		fr->have += (uint32_t)n;
		m->done += n;
		ch->abs_next += n;
		if (fr->have == fr->want)
			frame_complete(ch);
	}
	return true;
}

void channel_reset(struct channel *ch)
{
	ch->have_seq = false; /* the next message's seq starts a new count */
	ch->gr_msgs = 0;
	ch->reset_pending = true;
	if (!ch->msg.active)
		channel_reset_apply(ch, ch->last_seq);
}

/* Ends what the sender sent before channel.reset; false when it must wait for a batch slot. */
bool channel_reset_apply(struct channel *ch, uint64_t seq)
{
	if (ep_is_stream(ch->in_ep)) {
		if (!stream_finish(ch, FECD_END_RESET, seq))
			return false;
	} else {
		if (ch->fr.active)
			frame_drop(
			    ch, FECD_FRAME_ERR_TRUNCATED, 0,
			    "the channel was reset in the middle of a frame (%u of %u symbols)",
			    ch->fr.have, ch->fr.want);
		asm_give_up(ch);
	}
	ch->reset_pending = false;
	log_info("channel %s: reset: the next message starts a new stream", ch->cfg.name);
	return true;
}

bool consume_stream_or_frames(struct channel *ch, struct in_msg *m)
{
	if (!ch->in_ep->slot.asm_framing && asm_sync_held(&ch->as))
		asm_give_up(ch); /* an update left sync-marker framing */
	if (ep_is_stream(ch->in_ep))
		return consume_stream(ch, m);
	if (ch->in_ep->slot.asm_framing)
		return consume_asm(ch, m);
	if (ch->cfg.in_proto == IN_GNURADIO)
		return consume_raw_frames(ch, m);
	return consume_frame(ch, m);
}

/* Consumes the active message as far as batch slots allow; false when it must wait. */
bool ingest_consume(struct channel *ch)
{
	struct in_msg *m = &ch->msg;

	if (!m->started) {
		if (ch->reset_pending && !channel_reset_apply(ch, m->seq))
			return false;
		if (!apply_pending(ch, m))
			return false;
		m->started = true;
	}
	if (!consume_stream_or_frames(ch, m))
		return false;
	if ((m->flags & FECD_IN_END_OF_STREAM) && !m->eos_done) {
		if (ep_is_stream(ch->in_ep)) {
			if (!stream_finish(ch, FECD_END_SENDER, m->seq))
				return false;
		} else {
			if (ch->fr.active)
				frame_drop(ch, FECD_FRAME_ERR_TRUNCATED, 0,
				           "END_OF_STREAM in the middle of a frame (%u of %u "
				           "symbols)",
				           ch->fr.have, ch->fr.want);
			asm_give_up(ch); /* a marker never spans two streams */
			if (!batch_mark_eos(ch, ch->in_ep, false, m->seq, FECD_END_SENDER))
				return false;
		}
		m->eos_done = true;
		/* The sender is done: its next run numbers messages afresh (for gaps and at_seq).
		 */
		ch->have_seq = false;
	}
	msg_release(m);
	return true;
}
