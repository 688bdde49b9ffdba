/*
 * The fano family's CPU decoders: the Fano algorithm, unidirectional (UFA) and bidirectional
 * (BFA), in portable C. This file is the reference the GPU decoder must reproduce bit for bit:
 * bits, status, cycles and metric. What it computes, exactly:
 *
 * Metric. Every code bit's Fano metric comes from its int8 LLR q (float input is first quantized
 * to int8 with llr_scale, as the daemon's s8 path does): with L = q / llr_scale and P(b) the
 * probability of bit b (P(0) = 1 / (1 + e^-L)), m(b, q) = round(16 (log2(2 P(b)) - 1/n)), at least
 * MET_FLOOR; a table of 2 x 256 values built once per decoder. A branch's metric is the sum of
 * its n code bits'; a path's (gamma) the sum of its branches', in int64.
 *
 * Search (one direction; Fano 1963 as Lin & Costello and Karn give it). A node at depth d (d
 * inputs decided) has its two branches sorted: tm[0] the better (ties: input 0), tm[1] the other;
 * a node in the tail (d >= frame_bits) has the input-0 branch only. i is the branch being tried.
 * T starts at 0, gamma at 0, i at 0. One cycle is:
 *   - if gamma + tm[i] >= T: if gamma < T + delta (first visit), raise T by the largest multiple
 *     of delta that keeps T <= gamma + tm[i]; move forward (i = 0 at the new node); the search is
 *     done when it reaches depth frame_bits + K - 1;
 *   - else look back, within the same cycle: while the node is not the root and its parent's
 *     gamma is >= T, move back to the parent; stop there if it is not a tail node and was left by
 *     its better branch (then i = 1). When the root is reached or the parent's gamma is < T
 *     instead, lower T by delta and set i = 0 at the node where the look back stopped.
 * The context of every node left forward (gamma, sorted metrics, state, i) goes into an 8-entry
 * circular queue indexed by depth mod 8 (the seed's indexed context queue); a move back finds its
 * parent there, or, when deeper nodes have overwritten it, recomputes it from the decided inputs
 * (one bit per depth) and gamma - the metric of the branch taken: the same values either way.
 *
 * BFA. A forward decoder (FD) on the code and a backward decoder (BD) on its time reversal (the
 * polynomials' K bits reversed, the stages read from the last) search in turn, one cycle each, the
 * FD first. After each forward move the decoder that moved checks for a merge: a run of K - 2 +
 * merge consecutive inputs that both have decided and agree on, ending (FD) or starting (BD) at
 * the input just decided (the run is then merge consecutive trellis states the two paths share;
 * any new run must hold that input). Merged, the output is the FD's inputs before the run and the
 * BD's from its start. A decoder that reaches its end first gives its whole path.
 *
 * Budget and result. cycles x (frame_bits + K - 1) cycles per frame, counted over both decoders of
 * BFA. A frame decoded within it: DECODED, work = the cycles used (the one that finished
 * included), metric = the output path's gamma / 16 (bits). A frame whose budget ran out:
 * NOT_CONVERGED, work = the budget, metric = the FD's gamma / 16 at that point, and its best guess
 * as bits: the FD's decided inputs, then the BD's (BFA), zeros where neither decided. A search
 * with a larger budget repeats a smaller one's cycles exactly, so a GPU that retries unfinished
 * frames from the start with larger budgets (a budget ladder) ends with this decoder's result.
 * Frames whose input is not frame_syms long are ERASED.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_simd.h"
#include "fano.h"
#include "fano_code.h"
#include "fano_fast.h"
#include "softbits.h"

#define MET_SCALE 16    /* metric units per bit */
#define MET_FLOOR -4096 /* lowest code-bit metric: a path's sum fits easily in int64 */
#define QUEUE     8     /* the context queue's entries (a power of 2) */
#define NO_DEPTH  UINT32_MAX

struct fano_decoder {
	struct fec_decoder base;
	struct fano_code code;
	int32_t met[2][256]; /* [bit][int8 LLR + 128] */
	int64_t delta;
	uint64_t budget;    /* cycles per frame */
	unsigned merge_len; /* K - 2 + merge */
	uint32_t words;     /* uint64 words of one path */
	uint32_t frame_syms;
	float llr_scale;
	bool bfa, f32;
	struct fano_fast fast; /* fano_fast.c: used where usable, above the portable SIMD level */
	size_t fast_at;        /* its scratch's offset */
};

/* A node's context: what a move back needs. */
struct ctx {
	uint32_t depth;
	uint8_t best, i;
	uint64_t state;
	int64_t gamma;
	int64_t tm[2];
};

/* One search direction. */
struct walker {
	const struct fano_decoder *d;
	unsigned dir;     /* 0 forward, 1 backward (the time-reversed code) */
	const int8_t *in; /* the frame's symbols, in sent order */
	uint64_t *path;   /* bit t: the input decided at depth t */
	uint32_t depth;
	uint8_t best, i;
	uint64_t state; /* the K-1 inputs before this node, bit 0 the latest */
	int64_t gamma, T;
	int64_t tm[2];
	struct ctx q[QUEUE];
};

static inline unsigned path_bit(const uint64_t *path, uint32_t t)
{
	return (unsigned)(path[t >> 6] >> (t & 63) & 1u);
}

static inline void path_set(uint64_t *path, uint32_t t, unsigned bit)
{
	path[t >> 6] = (path[t >> 6] & ~(1ull << (t & 63))) | (uint64_t)bit << (t & 63);
}

/* The metric of the branch with code word `word` at depth t of the walker's direction. */
static int64_t branch_metric(const struct walker *w, uint32_t t, unsigned word)
{
	const struct fano_code *c = &w->d->code;
	const uint32_t stage = w->dir ? c->stages - 1 - t : t;
	const int8_t *s = w->in + (size_t)stage * c->n;
	int64_t m = 0;

	for (unsigned r = 0; r < c->n; r++)
		m += w->d->met[word >> r & 1u][(uint8_t)(s[r] + 128)];
	return m;
}

/* The sorted branch metrics of the node at depth t whose state is `state`. */
static void node_metrics(const struct walker *w, uint32_t t, uint64_t state, int64_t tm[2],
                         uint8_t *best)
{
	const struct fano_code *c = &w->d->code;
	const uint64_t reg = state << 1;
	const int64_t m0 = branch_metric(w, t, fano_word(c, w->dir, reg));
	int64_t m1;

	if (t >= c->info_bits) { /* tail: input 0 only */
		tm[0] = m0;
		tm[1] = 0;
		*best = 0;
		return;
	}
	m1 = branch_metric(w, t, fano_word(c, w->dir, reg | 1u));
	*best = m1 > m0;
	tm[0] = *best ? m1 : m0;
	tm[1] = *best ? m0 : m1;
}

static void walker_init(struct walker *w, const struct fano_decoder *d, unsigned dir,
                        const int8_t *in, uint64_t *path)
{
	memset(w, 0, sizeof(*w));
	w->d = d;
	w->dir = dir;
	w->in = in;
	w->path = path;
	memset(path, 0, d->words * sizeof(uint64_t));
	for (unsigned j = 0; j < QUEUE; j++)
		w->q[j].depth = NO_DEPTH;
	node_metrics(w, 0, 0, w->tm, &w->best);
}

/* The parent's context (depth > 0): from the queue, or recomputed from the decided inputs. */
static void parent(const struct walker *w, struct ctx *p)
{
	const struct fano_code *c = &w->d->code;
	const uint32_t t = w->depth - 1;
	unsigned bit;

	if (w->q[t & (QUEUE - 1)].depth == t) {
		*p = w->q[t & (QUEUE - 1)];
		return;
	}
	p->depth = t;
	p->state = w->state >> 1;
	if (t >= c->k - 1)
		p->state |= (uint64_t)path_bit(w->path, t - (c->k - 1)) << (c->k - 2);
	node_metrics(w, t, p->state, p->tm, &p->best);
	bit = path_bit(w->path, t);
	p->i = (uint8_t)(bit ^ p->best);
	p->gamma = w->gamma - p->tm[p->i];
}

enum { STAYED, FORWARD, REACHED_END };

/* One cycle of the search (the file's comment). */
static int cycle(struct walker *w)
{
	const struct fano_code *c = &w->d->code;
	const int64_t delta = w->d->delta;
	const int64_t ng = w->gamma + w->tm[w->i];
	const uint64_t smask = (1ull << (c->k - 1)) - 1;

	if (ng >= w->T) {
		const unsigned bit = w->best ^ w->i;

		if (w->gamma < w->T + delta && ng - w->T >= delta)
			w->T += (ng - w->T) / delta * delta;
		w->q[w->depth & (QUEUE - 1)] = (struct ctx){.depth = w->depth,
		                                            .best = w->best,
		                                            .i = w->i,
		                                            .state = w->state,
		                                            .gamma = w->gamma,
		                                            .tm = {w->tm[0], w->tm[1]}};
		path_set(w->path, w->depth, bit);
		w->state = (w->state << 1 | bit) & smask;
		w->gamma = ng;
		if (++w->depth == c->stages)
			return REACHED_END;
		node_metrics(w, w->depth, w->state, w->tm, &w->best);
		w->i = 0;
		return FORWARD;
	}
	for (;;) {
		struct ctx p;

		if (w->depth > 0)
			parent(w, &p);
		if (w->depth == 0 || p.gamma < w->T) {
			w->T -= delta;
			w->i = 0;
			return STAYED;
		}
		w->depth = p.depth;
		w->best = p.best;
		w->i = p.i;
		w->state = p.state;
		w->gamma = p.gamma;
		w->tm[0] = p.tm[0];
		w->tm[1] = p.tm[1];
		if (w->depth < c->info_bits && w->i == 0) {
			w->i = 1;
			return STAYED;
		}
	}
}

/* Information bit t as the BD decided it (valid for t >= frame_bits - BD depth). */
static inline unsigned bd_bit(const struct walker *b, uint32_t t)
{
	return path_bit(b->path, b->d->code.info_bits - 1 - t);
}

/* Information bits (and tail) both decoders decided start at lo; the FD's end at its depth. */
static uint32_t bd_low(const struct walker *b)
{
	const uint32_t nb = b->d->code.info_bits;

	return b->depth >= nb ? 0 : nb - b->depth;
}

static inline unsigned both_bit(const struct walker *w, const struct walker *b, uint32_t t,
                                bool from_fd)
{
	if (t >= w->d->code.info_bits)
		return 0; /* the tail: zeros to both */
	return from_fd ? path_bit(w->path, t) : bd_bit(b, t);
}

/* After the FD's forward move: a run of merge_len agreeing inputs ending at its last one. Returns
 * the run's start, or -1. */
static int64_t merge_after_fd(const struct walker *f, const struct walker *b)
{
	const uint32_t lo = bd_low(b), len = f->d->merge_len;
	uint32_t t = f->depth - 1, run = 0;

	if (t < lo)
		return -1;
	for (;;) {
		if (both_bit(f, b, t, true) != both_bit(f, b, t, false))
			return -1;
		if (++run == len)
			return t;
		if (t == lo)
			return -1;
		t--;
	}
}

/* After the BD's forward move onto an information bit: a run starting at it. */
static int64_t merge_after_bd(const struct walker *f, const struct walker *b)
{
	const uint32_t nb = f->d->code.info_bits, len = f->d->merge_len;
	uint32_t t, run = 0;

	if (b->depth > nb)
		return -1; /* the BD's tail: nothing new to compare */
	for (t = nb - b->depth; t < f->depth; t++) {
		if (both_bit(f, b, t, true) != both_bit(f, b, t, false))
			return -1;
		if (++run == len)
			return nb - b->depth;
	}
	return -1;
}

/* The output path's gamma, from the forward code and bits (one per information bit). */
static int64_t path_metric(const struct fano_decoder *d, const int8_t *in, const uint64_t *bits)
{
	const struct fano_code *c = &d->code;
	const uint64_t mask = c->k == 64 ? ~0ull : (1ull << c->k) - 1;
	struct walker w = {.d = d, .dir = 0, .in = in};
	uint64_t reg = 0;
	int64_t g = 0;

	for (uint32_t t = 0; t < c->stages; t++) {
		reg = (reg << 1 | (t < c->info_bits ? path_bit(bits, t) : 0u)) & mask;
		g += branch_metric(&w, t, fano_word(c, 0, reg));
	}
	return g;
}

static void pack_out(const uint64_t *bits, uint32_t nbits, uint8_t *out)
{
	memset(out, 0, (nbits + 7) / 8);
	for (uint32_t t = 0; t < nbits; t++)
		out[t >> 3] |= (uint8_t)(path_bit(bits, t) << (7 - (t & 7)));
}

/* One frame; fills the job's outputs. paths: 3 x words of scratch. */
static void decode_frame(const struct fano_decoder *d, const int8_t *in, uint64_t *paths,
                         struct fec_job *job, uint8_t *out)
{
	const struct fano_code *c = &d->code;
	uint64_t *res = paths + 2 * (size_t)d->words;
	struct walker f, b;
	uint64_t used = 0;
	int64_t at = -1;
	int done = 0; /* 1: FD complete, 2: BD complete, 3: merged at `at` */

	walker_init(&f, d, 0, in, paths);
	if (d->bfa)
		walker_init(&b, d, 1, in, paths + d->words);
	while (used < d->budget && !done) {
		int r;

		used++;
		r = cycle(&f);
		if (r == REACHED_END)
			done = 1;
		else if (d->bfa && r == FORWARD && (at = merge_after_fd(&f, &b)) >= 0)
			done = 3;
		if (done || !d->bfa || used == d->budget)
			continue;
		used++;
		r = cycle(&b);
		if (r == REACHED_END)
			done = 2;
		else if (r == FORWARD && (at = merge_after_bd(&f, &b)) >= 0)
			done = 3;
	}
	memset(res, 0, d->words * sizeof(uint64_t));
	for (uint32_t t = 0; t < c->info_bits; t++) {
		unsigned bit = 0;

		if (done == 1 || (done == 3 && t < at) || (!done && t < f.depth))
			bit = path_bit(f.path, t);
		else if (done == 2 || done == 3 || (d->bfa && t >= bd_low(&b)))
			bit = bd_bit(&b, t);
		path_set(res, t, bit);
	}
	pack_out(res, c->info_bits, out);
	job->out_bits = c->info_bits;
	job->soft_count = 0;
	job->work = (uint32_t)used;
	if (done) {
		job->status = FECD_STATUS_DECODED;
		job->metric = (float)(done == 1 ? f.gamma : path_metric(d, in, res)) / MET_SCALE;
	} else {
		job->status = FECD_STATUS_NOT_CONVERGED;
		job->metric = (float)f.gamma / MET_SCALE;
	}
}

/* The jobs of one fano_decode call, for the fast path (fano_fast_next_fn). */
struct batch_iter {
	const struct fano_decoder *d;
	struct fec_batch *b;
	uint32_t j, end;
	int8_t *q8;
};

/* A job whose input is not one frame: ERASED. */
static bool erase_bad(const struct fano_decoder *d, struct fec_job *job)
{
	if (job->in_len == d->frame_syms && job->head_len == 0)
		return false;
	job->status = FECD_STATUS_ERASED;
	job->out_bits = job->soft_count = job->work = 0;
	job->metric = 0.0f;
	return true;
}

/* Job j's int8 LLRs (float input quantized into q8). */
static const int8_t *job_input(const struct fano_decoder *d, const struct fec_batch *b, uint32_t j,
                               int8_t *q8)
{
	if (!d->f32)
		return b->in + j * b->in_stride;
	fec_llr_quantize(FECD_FMT_S8_LLR, b->in_f32 + j * b->in_stride, d->frame_syms, false,
	                 d->llr_scale, q8);
	return q8;
}

static const int8_t *next_job(void *ctx, struct fec_job **job, uint8_t **out)
{
	struct batch_iter *it = ctx;

	for (; it->j < it->end; it->j++) {
		const uint32_t j = it->j;

		if (erase_bad(it->d, &it->b->jobs[j]))
			continue;
		it->j++;
		*job = &it->b->jobs[j];
		*out = it->b->out + j * it->b->out_stride;
		return job_input(it->d, it->b, j, it->q8);
	}
	return NULL;
}

static int fano_decode(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                       uint32_t first, uint32_t count)
{
	const struct fano_decoder *d = (const struct fano_decoder *)dec;
	uint64_t *paths = scratch;
	int8_t *q8 = (int8_t *)(paths + 3 * (size_t)d->words);

	if (d->fast.usable && fec_simd_level() > FEC_SIMD_PORTABLE) {
		struct batch_iter it = {.d = d, .b = b, .j = first, .end = first + count, .q8 = q8};

		fano_fast_frames(&d->fast, (uint8_t *)scratch + d->fast_at, next_job, &it);
		return 0;
	}
	for (uint32_t j = first; j < first + count; j++) {
		struct fec_job *job = &b->jobs[j];

		if (!erase_bad(d, job))
			decode_frame(d, job_input(d, b, j, q8), paths, job,
			             b->out + j * b->out_stride);
	}
	return 0;
}

static void fano_decoder_destroy(struct fec_decoder *dec)
{
	free(dec);
}

static const struct fec_decoder_vtbl fano_vtbl = {
    .decode = fano_decode,
    .destroy = fano_decoder_destroy,
};

/* log2(1 + e^x) without overflow. */
static double log2_1p_exp(double x)
{
	const double ln2 = 0.69314718055994530942;

	return x > 30.0 ? x / ln2 : log1p(exp(x)) / ln2;
}

static void metric_table(struct fano_decoder *d, float llr_scale, unsigned n)
{
	for (int q = -128; q < 128; q++) {
		const double llr = q / (double)llr_scale;

		for (unsigned bit = 0; bit < 2; bit++) {
			/* log2(2 P(bit)) = 1 - log2(1 + e^-(+-llr)) */
			const double m = 1.0 - log2_1p_exp(bit ? llr : -llr) - 1.0 / n;
			long v = lround(MET_SCALE * m);

			d->met[bit][q + 128] = (int32_t)(v < MET_FLOOR ? MET_FLOOR : v);
		}
	}
}

bool fano_decoder_fast_usable(const struct fec_decoder *dec)
{
	return ((const struct fano_decoder *)dec)->fast.usable;
}

int fano_decoder_create(const struct fec_spec *spec, struct fec_decoder **out)
{
	struct fec_spec s = *spec;
	const struct fano_spec *f = &s.u.fano;
	struct fano_decoder *d;
	struct fec_info *info;
	int ret = fano_spec_finish(&s, NULL, 0);

	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FEC_ENOMEM;
	d->base.vt = &fano_vtbl;
	d->base.spec = s;
	fano_code_init(&d->code, f);
	metric_table(d, s.frame.llr_scale, f->n);
	d->delta = f->delta;
	d->budget = (uint64_t)f->cycles * d->code.stages;
	d->merge_len = f->k - 2 + f->merge;
	d->words = (d->code.stages + 63) / 64;
	d->frame_syms = d->code.stages * f->n;
	d->llr_scale = s.frame.llr_scale;
	d->bfa = f->algo == FANO_ALGO_BFA;
	d->f32 = s.frame.in == FEC_IN_F32_LLR;
	fano_fast_init(&d->fast, &d->code, (const int32_t(*)[256])d->met, f->delta, d->budget,
	               d->merge_len, d->bfa);
	/* the reference's paths, the f32 copy in int8, then the fast path's, 64-byte aligned */
	d->fast_at = (3 * (size_t)d->words * sizeof(uint64_t) + d->frame_syms + 63) & ~(size_t)63;

	info = &d->base.info;
	info->family = FECD_FAMILY_FANO;
	info->kind = FEC_KIND_FRAME;
	info->unit_syms = d->frame_syms;
	info->unit_bits = f->frame_bits;
	info->frame_syms = d->frame_syms;
	info->max_frame_syms = d->frame_syms;
	info->max_out_bits = f->frame_bits;
	info->max_soft = 0;
	info->in_kind = s.frame.in;
	info->in_q = 1;
	info->soft_kind = FEC_SOFT_NONE;
	info->soft_per_unit = 0;
	info->frame_info_bits = f->frame_bits;
	info->cost_varies = true;
	info->scratch_bytes = d->fast_at + fano_fast_scratch_bytes(&d->fast);
	info->job_group = 1;
	*out = &d->base;
	return 0;
}
