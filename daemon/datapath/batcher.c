/*
 * The batcher: turns accepted symbols into decoder jobs laid out in batch slots.
 *
 * Streams keep a buffer of int8 symbols indexed by their channel-wide position. A block owns
 * block_syms symbols from the cursor and is cut as soon as its tail_syms of look-ahead have
 * arrived, with up to head_syms of history before it (less only at the stream's start, where the
 * job says STREAM_START). When the batch deadline fires, one short block takes everything but the
 * last tail_syms, so latency stays bounded without errors at block edges. The end of a stream cuts
 * everything left, the last job flagged STREAM_END. A stream that receives nothing for
 * input.idle_flush_ms has those last symbols cut too, with no tail, but stays open: a sender that
 * never ends its stream (GNU Radio) still gets its last bits, and when it goes on, so does the
 * stream.
 *
 * Batch slots come from a small per-channel pool (max_inflight + 1) whose buffers are sized when
 * the channel or its geometry is set up. A full batch goes to the backend if fewer than
 * max_inflight are in flight, else it waits; when no slot is free, ingest stops reading until one
 * is published (backpressure all the way back to a PUSH sender).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"
#include "log.h"
#include "service.h"

/* ---- Slot buffers */

static int grow_host(struct backend *be, void **p, size_t *cap, size_t need)
{
	void *n;

	if (need <= *cap)
		return 0;
	n = be->ops->host_alloc(be, need);
	if (!n)
		return -ENOMEM;
	if (*p)
		be->ops->host_free(be, *p);
	*p = n;
	*cap = need;
	return 0;
}

static int grow_plain(void **p, size_t *cap, size_t need)
{
	void *n;

	if (need <= *cap)
		return 0;
	n = malloc(need);
	if (!n)
		return -ENOMEM;
	free(*p);
	*p = n;
	*cap = need;
	return 0;
}

/* Sizes a slot's buffers for a batch of ep's geometry (a no-op once they are large enough). */
static int batch_reserve(struct channel *ch, struct batch *b, const struct epoch *ep, bool stream)
{
	struct backend *be = fecd_backend(ch->d);
	size_t jobs = ep->cfg.batch_jobs, jobs_cap = b->cap_jobs, meta_cap = b->cap_jobs;
	size_t jobs_bytes = jobs_cap * sizeof(struct fec_job),
	       meta_bytes = meta_cap * sizeof(struct job_meta);
	size_t pdu = 0;
	int rc = 0;

	rc |= grow_host(be, (void **)&b->jobs, &jobs_bytes, jobs * sizeof(struct fec_job));
	rc |= grow_plain((void **)&b->meta, &meta_bytes, jobs * sizeof(struct job_meta));
	if (rc)
		return -ENOMEM;
	b->cap_jobs = (uint32_t)jobs;
	rc |= grow_host(be, (void **)&b->in, &b->in_cap, jobs * ep->in_stride * ep->slot.elem);
	rc |= grow_host(be, (void **)&b->out, &b->out_cap, jobs * ep->out_stride);
	if (ep->soft_stride)
		rc |= grow_host(be, (void **)&b->soft, &b->soft_cap,
		                jobs * ep->soft_stride * sizeof(float));
	if (stream) {
		rc |= grow_plain((void **)&b->msg, &b->msg_cap, jobs * ep->out_stride);
		if (ep->soft_stride)
			rc |= grow_plain((void **)&b->msg_soft, &b->msg_soft_cap,
			                 jobs * ep->soft_stride * sizeof(float));
	}
	if (ep->cfg.out_proto == OUT_PDU) {
		uint64_t bits = (uint64_t)ep->info->max_out_bits * (stream ? jobs : 1);
		pdu = fecd_pdu_max_len(bits > UINT32_MAX ? UINT32_MAX : (uint32_t)bits,
		                       ep->cfg.pdu_unpacked);
		rc |= grow_plain((void **)&b->pdu, &b->pdu_cap, pdu);
	}
	return rc ? -ENOMEM : 0;
}

static void batch_free_buffers(struct channel *ch, struct batch *b)
{
	struct backend *be = fecd_backend(ch->d);

	if (b->jobs)
		be->ops->host_free(be, b->jobs);
	if (b->in)
		be->ops->host_free(be, b->in);
	if (b->out)
		be->ops->host_free(be, b->out);
	if (b->soft)
		be->ops->host_free(be, b->soft);
	free(b->meta);
	free(b->msg);
	free(b->msg_soft);
	free(b->pdu);
	free(b);
}

/* Makes the pool and the stream buffer ready for ep: done at creation and at every update, so the
 * hot path finds its buffers already large enough. */
int batcher_prepare(struct channel *ch, const struct epoch *ep)
{
	unsigned want = ep->cfg.max_inflight + 1;
	bool stream = ep->info->kind == FEC_KIND_STREAM;

	if (want > ch->npool) {
		struct batch **pool = realloc(ch->pool, want * sizeof(*pool));
		if (!pool)
			return -ENOMEM;
		ch->pool = pool;
		for (unsigned i = ch->npool; i < want; i++) {
			struct batch *b = calloc(1, sizeof(*b));
			if (!b)
				return -ENOMEM;
			b->ch = ch;
			b->state = BATCH_FREE;
			ch->pool[ch->npool++] = b;
		}
	}
	for (unsigned i = 0; i < ch->npool; i++)
		if (ch->pool[i]->state == BATCH_FREE && batch_reserve(ch, ch->pool[i], ep, stream))
			return -ENOMEM;
	if ((ep->slot.kind == FEC_IN_F32_LLR || ep->slot.asm_framing) && !ch->scratch) {
		ch->scratch = malloc(CHAN_SCRATCH_SYMS);
		if (!ch->scratch)
			return -ENOMEM;
	}
	if (stream) {
		struct stream_buf *sb = &ch->sb;
		size_t need = 2 * ep->in_stride + CHAN_STREAM_MARGIN;
		if (need > sb->cap) {
			int8_t *nb = realloc(sb->buf, need);
			if (!nb)
				return -ENOMEM;
			sb->buf = nb;
			sb->cap = need;
		}
	}
	return 0;
}

void batcher_free(struct channel *ch)
{
	for (unsigned i = 0; i < ch->npool; i++) {
		if (ch->pool[i]->ep)
			epoch_put(ch->pool[i]->ep);
		batch_free_buffers(ch, ch->pool[i]);
	}
	free(ch->pool);
	ch->pool = NULL;
	ch->npool = 0;
	free(ch->sb.buf);
	ch->sb.buf = NULL;
}

bool batcher_idle(const struct channel *ch)
{
	for (unsigned i = 0; i < ch->npool; i++)
		if (ch->pool[i]->state != BATCH_FREE)
			return false;
	return true;
}

/* ---- Batch life cycle */

static struct batch *pool_take(struct channel *ch)
{
	unsigned busy = 0;
	struct batch *free_b = NULL;

	for (unsigned i = 0; i < ch->npool; i++) {
		if (ch->pool[i]->state != BATCH_FREE)
			busy++;
		else if (!free_b)
			free_b = ch->pool[i];
	}
	if (busy >= ch->max_inflight + 1)
		return NULL;
	return free_b;
}

struct batch *batch_filling(struct channel *ch, struct epoch *ep, bool stream)
{
	struct batch *b = ch->filling;

	if (b && (b->ep != ep || b->stream != stream)) {
		batch_close(ch, b);
		b = NULL;
	}
	if (b)
		return b;
	b = pool_take(ch);
	if (!b)
		return NULL;
	if (batch_reserve(ch, b, ep, stream)) {
		log_err("channel %s: out of memory for a batch of %u jobs", ch->cfg.name,
		        ep->cfg.batch_jobs);
		return NULL;
	}
	b->state = BATCH_FILLING;
	b->seq = ch->next_batch_seq++;
	b->ep = epoch_get(ep);
	b->stream = stream;
	b->stream_start = false;
	b->end_of_stream = false;
	b->end_cause = FECD_END_UNSAID;
	b->count = 0;
	b->next = NULL;
	b->pub_started = false;
	ch->filling = b;
	return b;
}

void batch_release(struct channel *ch, struct batch *b)
{
	epoch_put(b->ep);
	b->ep = NULL;
	b->state = BATCH_FREE;
	ingest_unblock(ch);
}

void batch_close(struct channel *ch, struct batch *b)
{
	if (ch->filling == b) {
		ch->filling = NULL;
		if (ch->deadline_armed) {
			uv_timer_stop(&ch->deadline);
			ch->deadline_armed = false;
		}
	}
	if (b->count == 0 && !b->end_of_stream) {
		/* Never used: give its sequence number back (it is always the newest). */
		ch->next_batch_seq--;
		epoch_put(b->ep);
		b->ep = NULL;
		b->state = BATCH_FREE;
		return;
	}
	b->state = BATCH_CLOSED;
	b->next = NULL;
	if (ch->closed_tail)
		ch->closed_tail->next = b;
	else
		ch->closed_head = b;
	ch->closed_tail = b;
	batcher_submit_ready(ch);
}

void batch_job_added(struct channel *ch, struct batch *b)
{
	if (b->count >= b->ep->cfg.batch_jobs)
		batch_close(ch, b);
}

void batcher_submit_ready(struct channel *ch)
{
	struct backend *be = fecd_backend(ch->d);
	struct batch *b;
	bool any_done = false;

	while ((b = ch->closed_head)) {
		if (b->count && ch->inflight >= ch->max_inflight)
			break;
		ch->closed_head = b->next;
		if (!ch->closed_head)
			ch->closed_tail = NULL;
		b->next = NULL;
		if (b->count == 0) {
			b->task.status = 0;
			b->state = BATCH_DONE;
			any_done = true;
			continue;
		}
		const struct epoch *ep = b->ep;
		b->task.dec = ep->dec;
		b->task.channel = ch->cfg.id;
		b->task.batch = (struct fec_batch){
		    .count = b->count,
		    .jobs = b->jobs,
		    .in = ep->slot.kind == FEC_IN_S8_LLR ? b->in : NULL,
		    .in_f32 = ep->slot.kind == FEC_IN_S8_LLR ? NULL
		                                             : (const float *)(const void *)b->in,
		    .in_stride = ep->in_stride * ep->slot.vals, /* values */
		    .out = b->out,
		    .out_stride = ep->out_stride,
		    .soft = ep->soft_stride ? b->soft : NULL,
		    .soft_stride = ep->soft_stride,
		};
		b->task.done = publish_task_done;
		b->task.arg = b;
		b->state = BATCH_INFLIGHT;
		ch->inflight++;
		b->submit_ns = now_ns();
		int rc = be->ops->submit(be, &b->task);
		if (rc < 0) {
			log_err("channel %s: the backend refused a batch: %s", ch->cfg.name,
			        fec_strerror(rc));
			ch->inflight--;
			b->task.status = rc;
			b->state = BATCH_DONE;
			any_done = true;
		}
	}
	if (any_done)
		publish_run(ch);
}

bool batch_mark_eos(struct channel *ch, struct epoch *ep, bool stream, uint64_t seq,
                    enum fecd_end_cause cause)
{
	struct batch *b = ch->filling;

	if (b && b->count > 0 && b->stream == stream && !(ch->fr.active && ch->fr.b == b)) {
		b->end_of_stream = true;
		b->end_cause = (uint8_t)cause;
		batch_close(ch, b);
		return true;
	}
	b = batch_filling(ch, ep, stream);
	if (!b)
		return false;
	b->end_of_stream = true;
	b->end_cause = (uint8_t)cause;
	b->eos_meta =
	    (struct job_meta){.in_first = ch->abs_next, .in_seq = seq, .accept_ns = now_ns()};
	batch_close(ch, b);
	return true;
}

/* ---- Stream cutting */

static uint32_t ep_unit(const struct epoch *ep)
{
	return ep->info->unit_syms ? ep->info->unit_syms : 1;
}

/* Largest number of symbols one job may own without overrunning its output slot. */
static uint64_t ep_max_own(const struct epoch *ep)
{
	const struct fec_info *in = ep->info;
	uint64_t by_out = in->unit_bits ? (uint64_t)in->max_out_bits / in->unit_bits * ep_unit(ep)
	                                : in->block_syms;
	uint64_t by_in = ep->in_stride - in->head_syms;

	return by_out < by_in ? by_out : by_in;
}

static void stream_keep_head(struct channel *ch)
{
	size_t keep = ch->cut_ep->info->head_syms;

	for (unsigned i = 0; i < ch->ncut_next; i++)
		if (ch->cut_next[i]->info->head_syms > keep)
			keep = ch->cut_next[i]->info->head_syms;
	ch->sb.keep_head = keep;
}

void stream_begin(struct channel *ch)
{
	struct stream_buf *sb = &ch->sb;

	sb->base = sb->end = sb->start = sb->cursor = ch->abs_next;
	sb->open = true;
	sb->pad_syms = sb->pad_trim = 0;
	if (ch->cut_ep)
		epoch_put(ch->cut_ep);
	ch->cut_ep = epoch_get(ch->in_ep);
	stream_keep_head(ch);
}

void stream_queue_epoch(struct channel *ch, struct epoch *ep, uint64_t at_abs)
{
	if (ch->ncut_next == CHAN_PENDING_MAX) {
		/* Same-code updates faster than the blocks they govern: the newest replaces the
		 * one queued last. The code is the same, so only that geometry goes unused. */
		epoch_put(ch->cut_next[--ch->ncut_next]);
	}
	ep->start_abs = at_abs;
	ch->cut_next[ch->ncut_next++] = epoch_get(ep);
	stream_keep_head(ch);
}

static void stream_advance_epoch(struct channel *ch)
{
	bool changed = false;

	while (ch->ncut_next && ch->cut_next[0]->start_abs <= ch->sb.cursor) {
		epoch_put(ch->cut_ep);
		ch->cut_ep = ch->cut_next[0];
		memmove(ch->cut_next, ch->cut_next + 1, --ch->ncut_next * sizeof(ch->cut_next[0]));
		changed = true;
	}
	if (changed)
		stream_keep_head(ch);
}

static void stream_drop_queued(struct channel *ch)
{
	while (ch->ncut_next)
		epoch_put(ch->cut_next[--ch->ncut_next]);
}

size_t stream_room(struct channel *ch)
{
	struct stream_buf *sb = &ch->sb;
	uint64_t keep_from =
	    sb->cursor - sb->start > sb->keep_head ? sb->cursor - sb->keep_head : sb->start;
	size_t used = (size_t)(sb->end - sb->base);

	/* Slide the live part to the front once the free end runs short; the live part is below
	 * one job's input, at most half the buffer, so this costs O(1) per symbol. */
	if (keep_from > sb->base && sb->cap - used < sb->cap / 4) {
		memmove(sb->buf, sb->buf + (keep_from - sb->base), (size_t)(sb->end - keep_from));
		sb->base = keep_from;
		used = (size_t)(sb->end - sb->base);
	}
	return sb->cap - used;
}

/* Cuts one job owning own symbols from the cursor, with tail symbols after them; the last pad of
 * them are erasures whose trim decoded bits are not published. */
static bool cut_job(struct channel *ch, uint32_t own, uint32_t tail, bool end, uint32_t pad,
                    uint32_t trim)
{
	struct stream_buf *sb = &ch->sb;
	struct epoch *ep = ch->cut_ep;
	struct batch *b = batch_filling(ch, ep, true);
	struct msg_mark mark;

	if (!b)
		return false;
	uint64_t head = sb->cursor - sb->start;
	if (head > ep->info->head_syms)
		head = ep->info->head_syms;
	uint32_t i = b->count;
	memcpy(b->in + i * ep->in_stride, sb->buf + (sb->cursor - head - sb->base),
	       (size_t)(head + own + tail));
	struct fec_job *j = &b->jobs[i];
	memset(j, 0, sizeof(*j));
	j->in_len = (uint32_t)(head + own + tail);
	j->head_len = (uint32_t)head;
	j->own_len = own;
	j->flags = (sb->cursor - head == sb->start ? FEC_JOB_STREAM_START : 0) |
	           (end ? FEC_JOB_STREAM_END : 0);
	if (!marks_find(&ch->marks, sb->cursor, &mark))
		mark = (struct msg_mark){.seq = ch->last_seq, .accept_ns = now_ns()};
	b->meta[i] = (struct job_meta){.in_first = sb->cursor,
	                               .in_seq = mark.seq,
	                               .accept_ns = mark.accept_ns,
	                               .pad_syms = pad,
	                               .trim_bits = trim};
	if (i == 0)
		b->stream_start = sb->cursor == sb->start;
	sb->cursor += own;
	b->count++;
	if (end) {
		b->end_of_stream = true;
		b->end_cause = sb->end_cause;
		batch_close(ch, b);
	} else {
		batch_job_added(ch, b);
	}
	return true;
}

bool stream_cut(struct channel *ch)
{
	struct stream_buf *sb = &ch->sb;

	if (!sb->open)
		return true;
	for (;;) {
		stream_advance_epoch(ch);
		const struct fec_info *in = ch->cut_ep->info;
		if (sb->end - sb->cursor < (uint64_t)in->block_syms + in->tail_syms)
			return true;
		if (!cut_job(ch, in->block_syms, in->tail_syms, false, 0, 0))
			return false;
	}
}

/* Deadline: one short block owning all but the last tail_syms (in whole units). */
static bool stream_cut_short(struct channel *ch)
{
	struct stream_buf *sb = &ch->sb;

	if (!sb->open)
		return true;
	if (!stream_cut(ch))
		return false;
	const struct epoch *ep = ch->cut_ep;
	uint64_t avail = sb->end - sb->cursor, tail = ep->info->tail_syms;
	if (avail <= tail)
		return true;
	uint64_t own = (avail - tail) / ep_unit(ep) * ep_unit(ep);
	if (own == 0)
		return true;
	return cut_job(ch, (uint32_t)own, (uint32_t)tail, false, 0, 0);
}

/* Idle (input.idle_flush_ms): every whole unit held is owned by a job with the look-ahead there is
 * (usually none: the decoder then traces back from the best state), and the stream stays open, so
 * the next block takes these symbols as its head and the bit offsets go on. Symbols short of a
 * whole unit wait for the rest of it. */
static bool stream_flush_idle(struct channel *ch)
{
	struct stream_buf *sb = &ch->sb;

	if (!sb->open)
		return true;
	if (!stream_cut(ch))
		return false;
	const struct epoch *ep = ch->cut_ep;
	uint64_t unit = ep_unit(ep), max_own = ep_max_own(ep) / unit * unit;
	for (;;) {
		uint64_t avail = sb->end - sb->cursor, own = avail / unit * unit;
		if (own == 0)
			return true;
		if (own > max_own)
			own = max_own;
		uint64_t tail = avail - own, room = ep->in_stride - ep->info->head_syms - own;
		if (tail > ep->info->tail_syms)
			tail = ep->info->tail_syms;
		if (!cut_job(ch, (uint32_t)own, (uint32_t)(tail < room ? tail : room), false, 0, 0))
			return false;
	}
}

/* A stream that ends inside a unit (a puncturing period) still carries whole bits: fill the unit
 * with erasures, which add nothing to any path, and publish only the bits the real symbols hold. */
static void stream_pad_last_unit(struct channel *ch, const struct epoch *ep)
{
	struct stream_buf *sb = &ch->sb;
	uint64_t unit = ep_unit(ep), rest = (sb->end - sb->cursor) % unit;
	uint32_t bits = 0;

	if (sb->pad_syms || !rest || !ep->unit_cum)
		return;
	while (bits + 1 < ep->info->unit_bits && ep->unit_cum[bits + 1] <= rest)
		bits++;
	if (!bits || stream_room(ch) < unit - rest)
		return;
	memset(sb->buf + (sb->end - sb->base), 0, (size_t)(unit - rest));
	sb->end += unit - rest;
	sb->pad_syms = (uint32_t)(unit - rest);
	sb->pad_trim = ep->info->unit_bits - bits;
}

bool stream_finish(struct channel *ch, enum fecd_end_cause cause, uint64_t seq)
{
	struct stream_buf *sb = &ch->sb;

	if (!sb->open)
		return cause == FECD_END_SENDER ? batch_mark_eos(ch, ch->in_ep, true, seq, cause)
		                                : true;
	sb->end_cause = (uint8_t)cause;
	if (!stream_cut(ch))
		return false;
	const struct epoch *ep = ch->cut_ep;
	stream_pad_last_unit(ch, ep);
	uint64_t unit = ep_unit(ep), avail = sb->end - sb->cursor;
	uint64_t own = avail / unit * unit, max_own = ep_max_own(ep) / unit * unit;

	/* What is left is under one block and its tail; if the output slot cannot take it all,
	 * a first job takes the excess with a full tail, the last the rest. */
	if (own > max_own) {
		uint64_t first = own - max_own, tail = avail - first;
		if (tail > ep->info->tail_syms)
			tail = ep->info->tail_syms;
		if (!cut_job(ch, (uint32_t)first, (uint32_t)tail, false, 0, 0))
			return false;
		own -= first;
		avail -= first;
	}
	if (own > 0) {
		/* Symbols short of a whole stage cannot be owned; they still help the last bits as
		 * look-ahead. */
		uint64_t rest = avail - own, room = ep->in_stride - ep->info->head_syms - own;
		if (!cut_job(ch, (uint32_t)own, (uint32_t)(rest < room ? rest : room), true,
		             sb->pad_syms, sb->pad_trim))
			return false;
	} else if (!batch_mark_eos(ch, ch->cut_ep, true, seq, cause)) {
		return false;
	}
	if (avail > own) {
		ch->stats.syms_dropped += avail - own;
		log_info(
		    "channel %s: %llu symbols at the stream's end do not make a whole stage of "
		    "the code; not decoded",
		    ch->cfg.name, (unsigned long long)(avail - own));
	}
	sb->cursor = sb->end;
	sb->open = false;
	stream_drop_queued(ch);
	return true;
}

/* ---- Deadline */

static void batcher_on_deadline(uv_timer_t *t)
{
	struct channel *ch = t->data;

	ch->deadline_armed = false;
	ch->flush_due = true;
	batcher_flush_due(ch);
	batcher_arm_deadline(ch);
}

void batcher_flush_due(struct channel *ch)
{
	if (!ch->flush_due)
		return;
	if (ch->fr.active && ch->fr.b == ch->filling)
		return; /* the frame being assembled lives in this batch: flush when it ends */
	if (ch->sb.open && !(ch->idle_due ? stream_flush_idle(ch) : stream_cut_short(ch)))
		return; /* no slot: retried when one frees */
	if (ch->filling && ch->filling->count > 0)
		batch_close(ch, ch->filling);
	ch->flush_due = false;
	ch->idle_due = false;
}

/* ---- Idle flush */

static void batcher_on_idle(uv_timer_t *t)
{
	struct channel *ch = t->data;
	const uint64_t idle_ns = (uint64_t)ch->cfg.idle_flush_ms * 1000000u;

	ch->idle_armed = false;
	/* A message in hand (waiting for a batch slot) is input, not idleness. */
	if (ch->state == CHAN_RUNNING && idle_ns && !ch->msg.active && ch->sb.open &&
	    now_ns() - ch->sb.last_in_ns >= idle_ns) {
		ch->flush_due = true;
		ch->idle_due = true;
		batcher_flush_due(ch);
	}
	batcher_arm_deadline(ch);
}

/* Runs the idle timer while an open stream holds a whole unit no job owns yet: from the last
 * message's arrival, or, with a message in hand, a whole idle time from now. The timer is not
 * restarted by every message: when it fires early it is armed again for the rest. */
static void batcher_arm_idle(struct channel *ch)
{
	const uint64_t idle_ns = (uint64_t)ch->cfg.idle_flush_ms * 1000000u;
	uint64_t since, wait_ns = idle_ns;

	if (ch->idle_armed || ch->idle_due || !ch->idle_timer_open || ch->state != CHAN_RUNNING ||
	    !idle_ns || !ch->sb.open || !ch->cut_ep ||
	    ch->sb.end - ch->sb.cursor < ep_unit(ch->cut_ep))
		return;
	since = now_ns() - ch->sb.last_in_ns;
	if (!ch->msg.active)
		wait_ns = since < idle_ns ? idle_ns - since : 0;
	uv_timer_start(&ch->idle_timer, batcher_on_idle, (wait_ns + 999999) / 1000000, 0);
	ch->idle_armed = true;
}

void batcher_arm_deadline(struct channel *ch)
{
	bool work = ch->filling && ch->filling->count > 0;

	batcher_arm_idle(ch);
	if (ch->deadline_armed || ch->state == CHAN_CLOSED)
		return;
	if (!work && ch->sb.open && ch->cut_ep)
		work = ch->sb.end - ch->sb.cursor > ch->cut_ep->info->tail_syms;
	if (!work)
		return;
	uv_timer_start(&ch->deadline, batcher_on_deadline, ch->cfg.batch_deadline_ms, 0);
	ch->deadline_armed = true;
}
