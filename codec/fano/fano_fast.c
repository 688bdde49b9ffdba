/*
 * The fano family's fast CPU path: the same search as fano_decode.c's reference (its top comment
 * is the specification), arranged for speed, with results equal bit for bit (bits, status, work,
 * metric), UFA and BFA. This file builds each frame's tables, runs the search and writes the
 * results; the search itself is in fano_lane.c for the codes whose K - 1 code words fit 64 bits
 * (fano_lane.h: every preset), and here (struct fw) for the longer ones:
 *   - a table of the branch metrics of every stage, built once per frame from per-output rows
 *     (vectorized sums; fano_stage.h, built with AVX2 too): entry w of a stage holds, in 32
 *     bits, the sorted metrics of code word w (input 0's word of a node) and w ^ c1 (the same
 *     node's input 1; c1 is the code word of the current input alone) and which input is the
 *     better, so that a node's two branches cost one load and no comparison;
 *   - int32 path metrics and threshold, where fano_fast_init finds that no sum or difference of
 *     them can leave int32 within the budget (else the reference's int64 path decodes);
 *   - a node's children's entries loaded while its own are compared (BFA and the long codes;
 *     the UFA lanes load the chosen child's alone, fano_lane.c);
 *   - the whole path's node history instead of the 8-entry queue (the queue is a cache of the
 *     same values): a 16-byte record per depth (gamma, the node's entry, its register) and the
 *     decided input, no read-modify-write of path words;
 *   - UFA frames two at a time in one loop (fano_fast_frames: when one ends, the next frame of
 *     the batch takes its place).
 */
#include <string.h>

#include "cpu_simd.h"
#include "fano_fast.h"
#include "fano_lane.h"
#include "fano_stage.h"

#define MET_SCALE 16

enum { STAYED, FORWARD, REACHED_END };

/* A stage's entry, for the node whose input-0 code word is w: its two branches' metrics sorted
 * (w's and w ^ c1's, c1 the code word of the current input alone), and which input is the
 * better (1 only when input 1's metric is strictly larger). Bits 0..15: the better branch's
 * metric (int16); bits 16..30: the other branch's (15-bit two's complement: a branch's metric
 * is at least n x the metric floor, -16384, and at most 64); bit 31: the better input. In the
 * tail form of a UFA frame's tail rows (fano_lane.c), input 0's branch, the only one there, is
 * the "better": bit 31 clear, its metric in bits 0..15, input 1's in bits 16..30. */
static inline unsigned entry_best(uint32_t e)
{
	return e >> 31;
}

static inline int32_t entry_tm0(uint32_t e)
{
	return (int16_t)(uint16_t)(e & 0xffffu);
}

static inline int32_t entry_tm1(uint32_t e)
{
	return (int32_t)(e << 1) >> 17;
}

/* The metric of input 0's branch. */
static inline int32_t entry_m0(uint32_t e)
{
	return entry_best(e) ? entry_tm1(e) : entry_tm0(e);
}

/* A node on a walker's current path: what a move back to it needs. */
struct rec {
	int32_t gamma;
	uint32_t entry; /* its stage table entry */
	uint64_t reg;   /* its state */
};

/* The frame's constants (struct fw). */
struct fk {
	int32_t delta;
	uint32_t stages, info;
	unsigned lut_bytes;
	uint64_t smask; /* the K-1 bits of a state */
};

/* One search direction of a code too long for fano_lane.c: the node's state (K - 1 inputs, the
 * latest in bit 0) and the look-up tables give the code words. The branch it tries next is kept
 * as its input and metric (nb, cur): a node's better branch (ties: input 0; the tail: input 0
 * only) on arrival or after the threshold falls, the other one when a look back stops there. */
struct fw {
	const uint32_t *crow; /* the entries of the depth after this node's (its children's) */
	ptrdiff_t step;       /* entries from one depth's row to the next's (negative backward) */
	const uint8_t (*lut)[256];
	struct rec *rec; /* rec[t]: node t, once left forward */
	uint8_t *bits;   /* bits[t]: the input decided at depth t */
	uint64_t state;
	uint64_t cand;  /* the entries of this node's children (input 0 low, input 1 high) */
	uint32_t entry; /* this node's entry */
	int32_t gamma, T;
	int32_t cur; /* the metric of the branch to try */
	uint32_t depth;
	unsigned nb; /* the input of the branch to try */
};

#define INLINE static inline __attribute__((always_inline))

/* Whether the code's register fits fano_lane.c's form: K - 1 code words of n bits in 64. */
static bool acc_fits(const struct fano_code *c)
{
	return c->n * (c->k - 1) <= 64;
}

/* The code word of the branch with input 0 out of a node whose state is `state`. */
INLINE unsigned word0(const struct fk *k, const uint8_t (*lut)[256], uint64_t state)
{
	const uint64_t reg = state << 1;
	unsigned w = lut[0][reg & 0xffu];

	for (unsigned j = 1; j < k->lut_bytes; j++)
		w ^= lut[j][(reg >> (8 * j)) & 0xffu];
	return w;
}

/* The next branch to try is the node's better one (the tail: input 0's, the only one). */
INLINE void try_best(const struct fk *k, struct fw *w)
{
	if (w->depth >= k->info) {
		w->nb = 0;
		w->cur = entry_m0(w->entry);
		return;
	}
	w->nb = entry_best(w->entry);
	w->cur = entry_tm0(w->entry);
}

/* The entries of the walker's node's children (the table has a zero row past each end, for the
 * last node's). */
INLINE void load_children(const struct fk *k, struct fw *w)
{
	const uint64_t s0 = (w->state << 1) & k->smask;

	w->cand = w->crow[word0(k, w->lut, s0)] | (uint64_t)w->crow[word0(k, w->lut, s0 | 1u)]
	                                              << 32;
}

/* One cycle: fano_decode.c's cycle(), on the history arrays. */
INLINE int fw_cycle(const struct fk *k, struct fw *w)
{
	const int32_t ng = w->gamma + w->cur;

	if (ng >= w->T) {
		if (w->gamma < w->T + k->delta && ng - w->T >= k->delta) {
			const int32_t gap = ng - w->T;

			w->T += gap < 2 * k->delta ? k->delta : gap / k->delta * k->delta;
		}
		w->rec[w->depth] =
		    (struct rec){.gamma = w->gamma, .entry = w->entry, .reg = w->state};
		w->bits[w->depth] = (uint8_t)w->nb;
		w->state = (w->state << 1 | w->nb) & k->smask;
		w->gamma = ng;
		if (++w->depth == k->stages)
			return REACHED_END;
		w->crow += w->step;
		w->entry = (uint32_t)(w->cand >> (32 * w->nb));
		load_children(k, w);
		try_best(k, w);
		return FORWARD;
	}
	for (;;) {
		struct rec p;
		unsigned b;

		if (w->depth == 0)
			break;
		p = w->rec[w->depth - 1];
		if (p.gamma < w->T)
			break;
		b = w->bits[--w->depth];
		w->crow -= w->step;
		w->gamma = p.gamma;
		w->entry = p.entry;
		w->state = p.reg;
		if (w->depth < k->info && b == entry_best(w->entry)) {
			/* left by its better branch: the other one next */
			load_children(k, w);
			w->nb = b ^ 1u;
			w->cur = entry_tm1(w->entry);
			return STAYED;
		}
	}
	load_children(k, w);
	w->T -= k->delta;
	try_best(k, w);
	return STAYED;
}

/* Direction dir's table of the frame in, stage s's row at tab + s * stride. */
static void stage_table(const struct fano_fast *f, unsigned dir, const int8_t *in, uint32_t *tab,
                        size_t stride)
{
	const struct fano_code *c = f->code;

#ifdef FECD_SIMD_X86
	if (fec_simd_level() >= FEC_SIMD_AVX2) {
		fano_stage_table_avx2(f->vt[dir], in, tab, c->stages, c->n, stride);
		return;
	}
#endif
	fano_stage_table_sse2(f->vt[dir], in, tab, c->stages, c->n, stride);
}

/* This file's build of the stage table (SSE2 on x86-64, whatever the target has elsewhere). */
FANO_STAGE_TABLE(fano_stage_table_sse2)

/* The tail rows (depths info..stages-1, at tab + depth * stride) in the tail form (the entry's
 * comment). */
static void tail_form(const struct fano_code *c, uint32_t *tab, size_t stride)
{
	for (uint32_t t = c->info_bits; t < c->stages; t++)
		for (size_t j = 0; j < (size_t)1 << c->n; j++) {
			uint32_t *e = tab + t * stride + j;
			const uint32_t swapped =
			    (uint16_t)entry_tm1(*e) | ((uint32_t)entry_tm0(*e) & 0x7fffu) << 16;

			const uint32_t swap = 0 - entry_best(*e); /* all ones: swap */

			/* masks, not a branch: which entries swap is as random as the data */
			*e = (*e & ~swap) | (swapped & swap);
		}
}

static void walker_init(struct fw *w, const struct fano_fast *f, unsigned dir, const uint32_t *tab,
                        struct rec *rec, uint8_t *bits)
{
	const struct fano_code *c = f->code;
	const ptrdiff_t words = (ptrdiff_t)1 << c->n;
	const struct fk k = {
	    .info = c->info_bits, .lut_bytes = c->lut_bytes, .smask = (1ull << (c->k - 1)) - 1};

	memset(w, 0, sizeof(*w));
	w->step = dir ? -words : words;
	w->crow = (dir ? tab + (ptrdiff_t)(c->stages - 1) * words : tab) + w->step;
	w->lut = c->lut[dir];
	w->rec = rec;
	w->bits = bits;
	w->entry = (w->crow - w->step)[0]; /* the root: every register bit zero, code word 0 */
	try_best(&k, w);
	load_children(&k, w);
}

/* The code words of an input at lags 1..K-1 in direction dir, n bits each (fano_lane.h); 0 for
 * the codes they do not fit. */
static uint64_t lane_g(const struct fano_code *c, unsigned dir)
{
	uint64_t g = 0;

	for (unsigned j = 1; j < c->k && acc_fits(c); j++)
		g |= (uint64_t)fano_word(c, dir, 1ull << j) << (c->n * (j - 1));
	return g;
}

/* The UFA on a code too long for the lanes: cycles until the end or the budget; the cycles
 * used. */
static __attribute__((noinline)) uint64_t ufa_lut(const struct fk *k, struct fw *fd,
                                                  uint64_t budget, int *done)
{
	struct fw w = *fd;
	uint64_t left = budget;

	while (left) {
		left--;
		if (fw_cycle(k, &w) == REACHED_END) {
			*done = 1;
			break;
		}
	}
	*fd = w;
	return budget - left;
}

/* The BFA on a code too long for the lanes (fano_lane.h's fano__bfa). */
static __attribute__((noinline)) uint64_t bfa_lut(const struct fk *k, const struct fano_fast *f,
                                                  struct fw *fdp, struct fw *bdp, int *done,
                                                  int64_t *at)
{
	struct fw fd = *fdp, bd = *bdp;
	uint64_t used = 0;

	while (used < f->budget && !*done) {
		int r;

		used++;
		r = fw_cycle(k, &fd);
		if (r == REACHED_END)
			*done = 1;
		else if (r == FORWARD &&
		         (*at = fano__merge_after_fd(fd.bits, fd.depth, bd.bits, bd.depth, k->info,
		                                     f->merge_len)) >= 0)
			*done = 3;
		if (*done || used == f->budget)
			continue;
		used++;
		r = fw_cycle(k, &bd);
		if (r == REACHED_END)
			*done = 2;
		else if (r == FORWARD &&
		         (*at = fano__merge_after_bd(fd.bits, fd.depth, bd.bits, bd.depth, k->info,
		                                     f->merge_len)) >= 0)
			*done = 3;
	}
	*fdp = fd;
	*bdp = bd;
	return used;
}

/* Packs nbits values (bit 0 of each byte) into out, first bit in the top bit; src has 8 readable
 * bytes past nbits. */
static void pack_bits(const uint8_t *src, uint32_t nbits, uint8_t *out)
{
	uint32_t t = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* byte i's bit 0 to bit 7 - i: every partial product lands on its own bit */
	for (; t + 8 <= nbits; t += 8) {
		uint64_t x;

		memcpy(&x, src + t, 8);
		x &= 0x0101010101010101ull;
		out[t >> 3] = (uint8_t)((x * 0x8040201008040201ull) >> 56);
	}
#endif
	if (t < nbits)
		memset(out + (t >> 3), 0, (nbits - t + 7) / 8);
	for (; t < nbits; t++)
		out[t >> 3] |= (uint8_t)((src[t] & 1u) << (7 - (t & 7)));
}

/* The gamma of the path of bits (one per byte, info_bits of them, then the zero tail). */
static int64_t path_metric(const struct fano_code *c, const uint32_t *tab, const uint8_t *bits)
{
	const uint64_t mask = c->k == 64 ? ~0ull : (1ull << c->k) - 1;
	const unsigned words = 1u << c->n;
	uint64_t reg = 0;
	int64_t g = 0;

	for (uint32_t t = 0; t < c->stages; t++, tab += words) {
		reg = (reg << 1 | (t < c->info_bits ? bits[t] & 1u : 0u)) & mask;
		g += entry_m0(tab[fano_word(c, 0, reg)]);
	}
	return g;
}

/* One frame's scratch: a slot. The lanes keep the table and the records in blocks (fano_lane.h)
 * and a decided input per depth (the BFA's in bits); the walkers a table per direction (each with
 * a zero row before and after) and a record and a decided input per depth. */
struct slot {
	uint8_t *blk;     /* lanes: the blocks (the BFA's: block 0) */
	uint32_t *tab[2]; /* each direction's stage table (one, where both have the same c1) */
	struct rec *rec[2];
	uint8_t *bits[2];
	uint8_t *res;
	struct fec_job *job; /* the frame a UFA lane decodes, and its output */
	uint8_t *out;
};

static size_t round64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

/* Whether the UFA runs on lanes: two frames at a time. */
static bool ufa_lanes(const struct fano_fast *f)
{
	return !f->bfa && acc_fits(f->code);
}

/* The scratch's parts, per slot (two for UFA lanes): the blocks (UFA lanes; BFA lanes and their
 * decided inputs) or the stage tables (the backward decoder's only where its c1 differs), each
 * direction's records and decided inputs (the backward's for BFA); the output's inputs. */
static void scratch_layout(const struct fano_fast *f, uint8_t *base, struct slot *s, size_t *total)
{
	const struct fano_code *c = f->code;
	const size_t tab_bytes = round64(((size_t)c->stages + 2) << c->n << 2);
	const size_t rec_bytes = round64(((size_t)c->stages + 1) * sizeof(struct rec));
	const unsigned dirs = f->bfa ? 2 : 1;
	size_t at = 0;

	for (unsigned j = 0; j < (ufa_lanes(f) ? 2u : 1u); j++, s = s ? s + 1 : NULL) {
		if (ufa_lanes(f)) {
			if (s)
				s->blk = base + at;
			at += round64(((size_t)c->stages + 1) * fano__ublock_bytes(c->n));
		} else if (acc_fits(c)) { /* BFA lanes: blocks -1..stages */
			const size_t S = fano__bblock_bytes(c->n, f->two_tabs);

			if (s)
				s->blk = base + at + S;
			at += round64(((size_t)c->stages + 2) * S);
			for (unsigned d = 0; d < 2; d++, at += round64((size_t)c->stages + 8))
				if (s)
					s->bits[d] = base + at;
		} else {
			for (unsigned d = 0; d < (f->two_tabs ? 2u : 1u); d++, at += tab_bytes)
				if (s) /* a zero row before and after */
					s->tab[d] = (uint32_t *)(base + at) + ((size_t)1 << c->n);
			if (s && !f->two_tabs)
				s->tab[1] = s->tab[0];
			for (unsigned d = 0; d < dirs; d++) {
				if (s) {
					s->rec[d] = (struct rec *)(base + at);
					s->bits[d] = base + at + rec_bytes;
				}
				at += rec_bytes + round64((size_t)c->stages + 8);
			}
		}
		if (s)
			s->res = base + at;
		at += round64((size_t)c->stages + 8);
	}
	if (total)
		*total = at;
}

size_t fano_fast_scratch_bytes(const struct fano_fast *f)
{
	size_t total;

	scratch_layout(f, NULL, NULL, &total);
	return total;
}

void fano_fast_init(struct fano_fast *f, const struct fano_code *c, const int32_t met[2][256],
                    uint32_t delta, uint64_t budget, unsigned merge_len, bool bfa)
{
	const unsigned words = 1u << c->n;
	int64_t most = 0; /* the largest |code-bit metric| */
	uint64_t bound;

	memset(f, 0, sizeof(*f));
	f->code = c;
	f->delta = (int32_t)delta;
	/* Granlund and Montgomery's reciprocal, l = ceil(log2 delta): m = ceil(2^(32 + l) / delta)
	 * has m delta - 2^(32 + l) < delta <= 2^l, so that floor(x m / 2^(32 + l)) = floor(x /
	 * delta) for all x < 2^32. m <= 2^33 + 1 and the quotients taken are of x < 2^30 (usable's
	 * bound): x m fits 64 bits */
	while (delta > 1u << f->dshift)
		f->dshift++;
	f->dmul = ((1ull << (32 + f->dshift)) + delta - 1) / delta;
	f->dshift += 32;
	f->budget = budget;
	f->merge_len = merge_len;
	f->bfa = bfa;
	f->two_tabs = bfa && c->lut[0][0][1] != c->lut[1][0][1];
	for (unsigned d = 0; d < 2; d++)
		for (unsigned r = 0; r < c->n; r++)
			for (unsigned q = 0; q < 256; q++)
				for (unsigned w = 0; w < words; w++) {
					const unsigned w1 = w ^ c->lut[d][0][1];
					const unsigned m =
					    (q + 128) & 0xffu; /* met's index of LLR q */
					int16_t *e = f->vt[d] + ((size_t)r * 256 + q) * 2 * words;

					e[w] = (int16_t)met[w >> r & 1u][m];
					e[words + w] = (int16_t)met[w1 >> r & 1u][m];
				}
	for (unsigned b = 0; b < 2; b++)
		for (unsigned q = 0; q < 256; q++)
			most = met[b][q] < -most ? -(int64_t)met[b][q]
			                         : (met[b][q] > most ? met[b][q] : most);
	/* |gamma| and gamma + a branch stay below (stages + 1) n most; the threshold rises only to
	 * a gamma and falls by delta at most once a cycle: every value, and every difference of
	 * two, stays within 2 (that + (budget + 1) delta) */
	bound = ((uint64_t)c->stages + 1) * c->n * (uint64_t)most;
	f->usable = budget < (1ull << 40) && bound < (1ull << 29) &&
	            bound + (budget + 1) * delta < (1ull << 29);
}

/* What a search left, for the result: each direction's decided inputs and depth, the FD's gamma. */
struct outcome {
	const uint8_t *fd_bits, *bd_bits;
	uint32_t fd_depth, bd_depth;
	int32_t fd_gamma;
	bool has_path_gamma; /* decoded on lanes: path_gamma is the output path's */
	int64_t path_gamma;
	uint64_t used;
	int done; /* 0: the budget ran out; 1: FD complete, 2: BD complete, 3: merged at `at` */
	int64_t at;
};

/* The job's result from what the search left (fano_decode.c's decode_frame). */
static void finish(const struct fano_fast *f, const struct slot *s, const struct outcome *o,
                   struct fec_job *job, uint8_t *out)
{
	const struct fano_code *c = f->code;
	const uint32_t info = c->info_bits;

	job->out_bits = info;
	job->soft_count = 0;
	job->work = (uint32_t)o->used;
	job->status = o->done ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
	if (o->done == 1) { /* the FD's whole path */
		pack_bits(o->fd_bits, info, out);
		job->metric = (float)(int64_t)o->fd_gamma / MET_SCALE;
		return;
	}
	/* The FD's inputs below its end (merged: below the run), the BD's from its start (merged:
	 * from the run), zeros between (not converged) */
	const uint32_t fd_end = o->done == 2 ? 0 : o->done == 3 ? (uint32_t)o->at : o->fd_depth;
	const uint32_t bd_start = o->done == 2 || o->done == 3 ? fd_end
	                          : !f->bfa                    ? info
	                          : o->bd_depth >= info        ? 0
	                                                       : info - o->bd_depth;

	const uint32_t fd_n = fd_end < info ? fd_end : info; /* the FD's first */
	const uint32_t bd_from = bd_start > fd_n ? bd_start : fd_n;

	memcpy(s->res, o->fd_bits, fd_n); /* decided inputs: the input in bit 0 */
	memset(s->res + fd_n, 0, bd_from - fd_n);
	for (uint32_t t = bd_from; t < info; t++)
		s->res[t] = o->bd_bits[info - 1 - t];
	pack_bits(s->res, info, out);
	job->metric = (float)(!o->done            ? (int64_t)o->fd_gamma
	                      : o->has_path_gamma ? o->path_gamma
	                                          : path_metric(c, s->tab[0], s->res)) /
	              MET_SCALE;
}

/* The BFA on lanes: the frame's blocks (fano_lane.h), the search, and what it left. The output
 * path's gamma comes from the lanes' records, not summed along the path again: merged at `at`,
 * the FD's path and the output agree below at + K - 1 (the run's first K - 1 inputs are both
 * decoders'), so that the branches there are the FD's, up to its node of depth at + K - 1, and
 * the branches from there on have the BD's inputs, as the BD's node of depth info - at has them
 * (a branch's code word depends on the K inputs it spans alone, and the BD's code gives the same
 * word for them). Both nodes are on the decoders' current paths: the run lies within what both
 * decided, and is K - 1 inputs long at least. */
static void bfa_blocks(const struct fano_fast *f, const struct slot *s, const int8_t *in,
                       struct outcome *o)
{
	const struct fano_code *c = f->code;
	const unsigned n = c->n;
	const bool two = f->two_tabs;
	const size_t S = fano__bblock_bytes(n, two), R = fano__bblock_rec(n, two);
	uint8_t *const blk = s->blk, *const last = blk + (size_t)c->stages * S;
	const struct blane_k k = {.dk = {f->delta, 0u - (uint32_t)f->delta, f->dshift, f->dmul},
	                          .g = {lane_g(c, 0), lane_g(c, 1)},
	                          .fd_end = last,
	                          .bd_end = blk - S,
	                          .fd_info = blk + (size_t)c->info_bits * S,
	                          .bd_info = blk + (size_t)(c->k - 1) * S,
	                          .fd_bits = s->bits[0],
	                          .bd_bits = s->bits[1],
	                          .meet =
	                              (uintptr_t)s->bits[0] + (uintptr_t)s->bits[1] + c->info_bits,
	                          .info = c->info_bits,
	                          .merge_len = f->merge_len,
	                          .budget = f->budget};
	struct blane fd = {.p = blk, .bp = s->bits[0]}, bd = {.p = last - S, .bp = s->bits[1]};

	for (unsigned d = 0; d < (two ? 2u : 1u); d++)
		stage_table(f, d, in, (uint32_t *)(blk + ((size_t)d << n << 2)), S / 4);
	/* zero rows past each end, a sentinel before each root, the roots' records */
	memset(blk - S, 0, R);
	memset(last, 0, R);
	fano__bblock_recp(blk - S, n, two, 0)->gamma = INT32_MIN;
	fano__bblock_recp(last, n, two, 1)->gamma = INT32_MIN;
	*fano__bblock_recp(blk, n, two, 0) = (struct ublock_rec){0};
	*fano__bblock_recp(last - S, n, two, 1) = (struct ublock_rec){0};
	/* the roots: every register bit zero, code word 0; not tail nodes (info >= 1) */
	fd.tr = ((const uint32_t *)blk)[0];
	bd.tr = ((const uint32_t *)(last - S + (two ? (size_t)4 << n : 0)))[0];
	o->used = fano__bfa(&k, &fd, &bd, n, two, &o->done, &o->at);
	o->fd_bits = s->bits[0];
	o->bd_bits = s->bits[1];
	o->fd_depth = (uint32_t)(fd.bp - s->bits[0]);
	o->bd_depth = (uint32_t)(bd.bp - s->bits[1]);
	o->fd_gamma = fano__bblock_recp(fd.p, n, two, 0)->gamma;
	o->has_path_gamma = o->done != 0;
	if (o->done == 1)
		o->path_gamma = o->fd_gamma;
	else if (o->done == 2)
		o->path_gamma = fano__bblock_recp(bd.p, n, two, 1)->gamma;
	else if (o->done == 3)
		o->path_gamma =
		    (int64_t)fano__bblock_recp(blk + (size_t)(o->at + c->k - 1) * S, n, two, 0)
		        ->gamma +
		    fano__bblock_recp(blk + (size_t)(o->at + c->k - 2) * S, n, two, 1)->gamma;
}

/* The stage tables of the frame in (not on UFA lanes). */
static void build_tables(const struct fano_fast *f, const struct slot *s, const int8_t *in)
{
	const struct fano_code *c = f->code;
	const size_t words = (size_t)1 << c->n;

	for (unsigned d = 0; d < (f->two_tabs ? 2u : 1u); d++) {
		memset(s->tab[d] - words, 0, words * sizeof(uint32_t));
		memset(s->tab[d] + (size_t)c->stages * words, 0, words * sizeof(uint32_t));
		stage_table(f, d, in, s->tab[d], words);
	}
}

/* One frame on the slot (BFA, and UFA on codes too long for the lanes: one at a time). */
static void one_frame(const struct fano_fast *f, const struct slot *s, const int8_t *in,
                      struct fec_job *job, uint8_t *out)
{
	const struct fano_code *c = f->code;
	const struct fk k = {.delta = f->delta,
	                     .stages = c->stages,
	                     .info = c->info_bits,
	                     .lut_bytes = c->lut_bytes,
	                     .smask = (1ull << (c->k - 1)) - 1};
	struct outcome o = {.at = -1};

	if (acc_fits(c)) { /* BFA on lanes */
		bfa_blocks(f, s, in, &o);
	} else {
		struct fw fd, bd = {0};

		build_tables(f, s, in);
		walker_init(&fd, f, 0, s->tab[0], s->rec[0], s->bits[0]);
		if (f->bfa) {
			walker_init(&bd, f, 1, s->tab[1], s->rec[1], s->bits[1]);
			o.used = bfa_lut(&k, f, &fd, &bd, &o.done, &o.at);
		} else {
			o.used = ufa_lut(&k, &fd, f->budget, &o.done);
		}
		o.fd_bits = fd.bits;
		o.bd_bits = bd.bits;
		o.fd_depth = fd.depth;
		o.bd_depth = bd.depth;
		o.fd_gamma = fd.gamma;
	}
	finish(f, s, &o, job, out);
}

/* A UFA lane's frame, ended (reached: it reached its end) or out of budget (its decided inputs,
 * zeros after): the output packed from the lane's decided inputs. */
static void ulane_finish(const struct fano_fast *f, const struct slot *s, const struct ulane *l,
                         bool reached)
{
	const unsigned n = f->code->n;
	const uint32_t info = f->code->info_bits;
	const uint32_t depth = (uint32_t)(l->bp - s->res);
	struct fec_job *job = s->job;

	/* the decided inputs, zeros after */
	if (depth < info)
		memset(s->res + depth, 0, info - depth);
	pack_bits(s->res, info, s->out);
	job->out_bits = info;
	job->soft_count = 0;
	job->work = (uint32_t)(f->budget - l->left);
	job->status = reached ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
	job->metric = (float)(int64_t)fano__ublock_rec(l->p, n)->gamma / MET_SCALE;
}

/* Starts the next frame on a UFA lane; false when there is none. */
static bool ulane_start(const struct fano_fast *f, struct slot *s, struct ulane *l,
                        fano_fast_next_fn next, void *ctx)
{
	const struct fano_code *c = f->code;
	const unsigned n = c->n;
	const size_t S = fano__ublock_bytes(n), words = (size_t)1 << n;
	const int8_t *in = next(ctx, &s->job, &s->out);

	if (!in)
		return false;
	stage_table(f, 0, in, (uint32_t *)s->blk, S / 4);
	tail_form(c, (uint32_t *)s->blk, S / 4);
	memset(s->blk + (size_t)c->stages * S, 0, words * sizeof(uint32_t)); /* no children */
	memset(l, 0, sizeof(*l));
	l->p = l->base = s->blk;
	l->bp = s->res; /* stages + 8 bytes: the decided inputs */
	l->info_at = s->blk + (size_t)c->info_bits * S;
	l->end = s->blk + (size_t)c->stages * S;
	l->left = f->budget;
	/* the root: every register bit zero, code word 0; not a tail node (info >= 1) */
	*fano__ublock_rec(s->blk, n) = (struct ublock_rec){0};
	l->tr = ((const uint32_t *)s->blk)[0];
	return true;
}

void fano_fast_frames(const struct fano_fast *f, void *scratch, fano_fast_next_fn next, void *ctx)
{
	const struct fano_code *c = f->code;
	const uint64_t g = lane_g(c, 0);
	const struct ulane_k k = {.dk = {f->delta, 0u - (uint32_t)f->delta, f->dshift, f->dmul},
	                          .g = g,
	                          .g1 = (uint32_t)g & ((1u << c->n) - 1)};
	struct slot s[2];
	struct ulane l[2];
	bool busy[2];

	scratch_layout(f, scratch, s, NULL);
	if (!ufa_lanes(f)) {
		const int8_t *in;

		while ((in = next(ctx, &s[0].job, &s[0].out)))
			one_frame(f, &s[0], in, s[0].job, s[0].out);
		return;
	}
	/* two frames at a time; one that ends gives its place to the next */
	busy[0] = ulane_start(f, &s[0], &l[0], next, ctx);
	busy[1] = busy[0] && ulane_start(f, &s[1], &l[1], next, ctx);
	while (busy[0] && busy[1]) {
		const unsigned j = fano__ufa_two(&k, &l[0], &l[1], c->n);

		ulane_finish(f, &s[j], &l[j], l[j].p == l[j].end);
		busy[j] = ulane_start(f, &s[j], &l[j], next, ctx);
	}
	for (unsigned j = 0; j < 2; j++)
		if (busy[j])
			ulane_finish(f, &s[j], &l[j], fano__ufa_one(&k, &l[j], c->n));
}
