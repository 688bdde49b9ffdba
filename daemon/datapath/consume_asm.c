/*
 * Sync-marker framing (a frame code with framing=asm): consuming a raw stream in which each frame
 * follows an attached sync marker. The marker search itself is asm_sync.c; here the symbols move
 * through it, the frames after the markers found go into job slots (negated when the marker came
 * inverted), updates take effect between frames, and what could not be used is counted.
 */
#include <stdio.h>

#include "channel.h"
#include "log.h"

void asm_give_up(struct channel *ch)
{
	unsigned n = asm_sync_reset(&ch->as);

	ch->stats.asm_lost_syms += n;
	ch->stats.syms_dropped += n;
}

/* The marker of the code in force (its fec_info's frame block); false when it holds none that
 * can be searched for (spec_finish refuses such specs, so this is a safeguard against searching
 * with no marker). */
static bool asm_configure(struct channel *ch)
{
	const struct fec_frame_opts *ls = &ch->in_ep->info->frame;
	const struct asm_sync_params p = {
	    .marker = ls->asm_marker,
	    .bits = ls->asm_bits,
	    .threshold = ls->asm_threshold,
	    .lock_threshold = ls->asm_lock_threshold,
	    .flywheel = ls->asm_flywheel,
	    .frame_syms = ch->in_ep->info->frame_syms,
	};
	uint64_t dropped = 0;
	unsigned skipped;
	char note[48];

	if (ch->as.bits && ch->as_gen == ch->in_ep->gen)
		return true;
	if (!p.frame_syms || asm_sync_config(&ch->as, &p, &dropped)) {
		if (ratelimit_ok(&ch->rl_frame, now_ns(), &skipped))
			log_err("channel %s: code generation %u has no usable sync marker (%u "
			        "bits, thresholds %g and %g); its input is dropped%s",
			        ch->cfg.name, ch->in_ep->gen, (unsigned)ls->asm_bits,
			        (double)ls->asm_threshold, (double)ls->asm_lock_threshold,
			        ratelimit_note(skipped, note, sizeof(note)));
		ch->as.bits = 0;
		return false;
	}
	ch->stats.asm_lost_syms += dropped;
	ch->stats.syms_dropped += dropped;
	ch->as_gen = ch->in_ep->gen;
	return true;
}

/* Starts the frame after the marker just found; false when it must wait for a batch slot. */
static bool asm_frame_begin(struct channel *ch, struct in_msg *m)
{
	struct frame_asm *fr = &ch->fr;
	struct msg_mark mark;

	if (!frame_begin(ch, m, ch->in_ep->info->frame_syms))
		return false;
	ch->as_marker = false;
	fr->negate = ch->as_inverted;
	fr->lead = ch->as.bits;
	fr->in_first = ch->as_marker_abs;
	if (marks_find(&ch->marks, ch->as_marker_abs, &mark)) {
		fr->in_seq = mark.seq;
		fr->accept_ns = mark.accept_ns;
	}
	return true;
}

/* missed locked tests in the last scan; the flywheel may still hold the timing. */
static void asm_note_miss(struct channel *ch, unsigned missed)
{
	char note[48];
	unsigned skipped;

	ch->stats.asm_misses += missed;
	if (ratelimit_ok(&ch->rl_frame, now_ns(), &skipped))
		log_info("channel %s: no sync marker where it was expected (before symbol %llu); "
		         "%s%s",
		         ch->cfg.name, (unsigned long long)ch->abs_next,
		         ch->as.locked ? "flywheel: that frame is given up, the next marker is "
		                         "expected after it"
		                       : "searching",
		         ratelimit_note(skipped, note, sizeof(note)));
}

/* A raw stream (messages without frame flags, or GNU Radio items): the marker is searched for,
 * and the frame_syms symbols after each one found make a frame, negated when the marker came
 * inverted. Symbols outside frames and markers are counted and dropped. */
bool consume_asm(struct channel *ch, struct in_msg *m)
{
	struct frame_asm *fr = &ch->fr;

	if (m->gap) {
		if (fr->active)
			frame_drop(ch, FECD_FRAME_ERR_GAP, 0,
			           "input messages were lost in the middle of the frame");
		asm_give_up(ch);
		m->gap = false;
	}
	if (!m->marked && m->nsyms) {
		if (marks_push(&ch->marks, ch->abs_next, m->seq, m->accept_ns))
			log_err("channel %s: out of memory for message marks", ch->cfg.name);
		m->marked = true;
	}
	if (ch->as_marker && !asm_frame_begin(ch, m))
		return false;
	while (m->done < m->nsyms) {
		size_t left = m->nsyms - m->done;

		if (fr->active) {
			size_t n = left < fr->want - fr->have ? left : fr->want - fr->have;
			frame_write(ch, m, n);
			fr->have += (uint32_t)n;
			m->done += n;
			ch->abs_next += n;
			if (fr->have == fr->want) {
				frame_complete(ch);
				asm_sync_expect(&ch->as);
			}
			continue;
		}
		if (!apply_pending(ch, m))
			return false;
		if (!ch->in_ep->slot.asm_framing || ch->in_ep->info->kind == FEC_KIND_STREAM) {
			asm_give_up(ch);
			return consume_stream_or_frames(ch, m);
		}
		if (!asm_configure(ch)) {
			ch->stats.syms_dropped += left;
			ch->abs_next += left;
			m->done = m->nsyms;
			break;
		}
		/* Locked, only the rest of one marker is needed to test it. */
		size_t k = asm_sync_expecting(&ch->as) ? ch->as.bits - asm_sync_held(&ch->as)
		                                       : CHAN_SCRATCH_SYMS;
		if (k > left)
			k = left;
		struct asm_scan r;
		wire_to_s8(ch, m, m->done, k, ch->scratch);
		size_t used = asm_sync_scan(&ch->as, ch->scratch, k, &r);
		m->done += used;
		ch->abs_next += used;
		ch->stats.asm_lost_syms += r.skipped;
		ch->stats.syms_dropped += r.skipped;
		if (r.missed)
			asm_note_miss(ch, r.missed);
		if (!r.found)
			continue;
		ch->stats.asm_frames++;
		if (r.inverted)
			ch->stats.asm_inverted++;
		ch->as_marker = true;
		ch->as_inverted = r.inverted;
		ch->as_marker_abs = ch->abs_next - ch->as.bits;
		if (!asm_frame_begin(ch, m))
			return false;
	}
	/* Forget the marks of messages no frame or marker can start in any more. */
	struct msg_mark mark;
	marks_find(&ch->marks, fr->active ? fr->in_first : ch->abs_next - asm_sync_held(&ch->as),
	           &mark);
	return true;
}
