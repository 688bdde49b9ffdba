/*
 * The fano family's fast CPU path: the same search as fano_decode.c's reference (its top comment
 * is the specification), arranged for speed, with results equal bit for bit (bits, status, work,
 * metric), UFA and BFA:
 *   - a table of the branch metrics of every stage, built once per frame from per-output rows
 *     (vectorized sums; fano_stage.h, built with AVX2 too): entry w of a stage holds, in 32
 *     bits, the sorted metrics of code word w (input 0's word of a node) and w ^ c1 (the same
 *     node's input 1; c1 is the code word of the current input alone) and which input is the
 *     better, so that a node's two branches cost one load and no comparison;
 *   - int32 path metrics and threshold, where fano_fast_init finds that no sum or difference of
 *     them can leave int32 within the budget (else the reference's int64 path decodes);
 *   - a node's children's entries loaded while its own are compared, and code words from an
 *     accumulator of the decided inputs' contributions where it fits (struct fw): a forward move
 *     waits for no load, the search's chain of decisions being its critical path;
 *   - the whole node history instead of the 8-entry queue (the queue is a cache of the same
 *     values): a 16-byte record per depth (gamma, the node's entry, its register) and one byte
 *     per decided input, written once per forward move, no read-modify-write of path words;
 *   - the better branch chosen without branches (it is as random as the data), the tightening's
 *     division only where the threshold rises by more than one step;
 *   - the UFA loops written out with their state in locals, in functions of their own (one per
 *     entries-per-stage count), so that the register allocator keeps the search in registers.
 */
#include <string.h>

#include "cpu_simd.h"
#include "fano_fast.h"
#include "fano_stage.h"

#define MET_SCALE 16

enum { STAYED, FORWARD, REACHED_END };

/* A stage's entry, for the node whose input-0 code word is w: its two branches' metrics sorted
 * (w's and w ^ c1's, c1 the code word of the current input alone), and which input is the
 * better (1 only when input 1's metric is strictly larger). Bits 0..15: the other branch's
 * metric (int16); bit 16: the better input; bits 17..31: the better branch's metric (15-bit two's
 * complement: a branch's metric is at least n x the metric floor, -16384, and at most 64). */
static inline unsigned entry_best(uint32_t e)
{
	return e >> 16 & 1u;
}

static inline int32_t entry_tm0(uint32_t e)
{
	return ((int32_t)(e >> 17) ^ 0x4000) - 0x4000;
}

static inline int32_t entry_tm1(uint32_t e)
{
	return (int16_t)(uint16_t)(e & 0xffffu);
}

/* The metric of input 0's branch. */
static inline int32_t entry_m0(uint32_t e)
{
	return entry_best(e) ? entry_tm1(e) : entry_tm0(e);
}

/* A node left forward: what a move back to it needs (its children's entries are loaded again). */
struct rec {
	int32_t gamma;
	uint32_t entry;
	uint64_t reg; /* its code register (struct fw) */
};

/* The frame's constants. */
struct fk {
	int32_t delta;
	uint32_t stages, info;
	unsigned lut_bytes;
	unsigned n;     /* code bits per stage */
	uint64_t smask; /* the K-1 bits of a state */
};

/* One search direction. The branch it tries next is kept as its input and metric (nb, cur): a
 * node's better branch (ties: input 0; the tail: input 0 only) on arrival or after the threshold
 * falls, the other one when a look back stops there.
 *
 * Code words come from the node's register, in one of two forms (acc, a constant where the
 * search is inlined). The state (K - 1 inputs, the latest in bit 0) and the look-up tables, for
 * any K. Or, where the K - 1 code words of n bits fit 64 bits (acc_fits: K <= 33 for n = 2, 22
 * for 3, 17 for 4), the parts of the next K - 1 input-0 code words that the inputs already
 * decided give, n bits each, the next node's in the lowest: deciding input b shifts it down by n
 * bits and adds b times the code words of the input at lags 1, 2, ... (acc_g). That word is then
 * one shift and one mask away from the decision, where the tables take two dependent loads (and
 * 8 for K = 32): the chain of decisions is the search's critical path. */
struct fw {
	const uint32_t *crow; /* the entries of the depth after this node's (its children's) */
	ptrdiff_t step;       /* entries from one depth's row to the next's (negative backward) */
	const uint8_t (*lut)[256];
	uint64_t acc_g;  /* acc: the code words of an input at lags 1..K-1, n bits each */
	struct rec *rec; /* rec[t]: node t, once left forward */
	uint8_t *bits;   /* bits[t]: the input decided at depth t */
	uint64_t reg;    /* the state, or the accumulated code words (acc) */
	uint64_t cand;   /* the entries of this node's children (input 0 low, input 1 high) */
	uint32_t entry;  /* this node's entry */
	int32_t gamma, T;
	int32_t cur; /* the metric of the branch to try */
	uint32_t depth;
	unsigned nb; /* the input of the branch to try */
};

#define INLINE static inline __attribute__((always_inline))

/* Whether the code's register fits the accumulated form: K - 1 code words of n bits in 64. */
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

/* The register after deciding input bit. */
INLINE uint64_t next_reg(const struct fk *k, const struct fw *w, unsigned bit, bool acc)
{
	if (acc)
		return (w->reg >> k->n) ^ (w->acc_g & (0 - (uint64_t)bit));
	return (w->reg << 1 | bit) & k->smask;
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
INLINE void load_children(const struct fk *k, struct fw *w, bool acc)
{
	if (acc) {
		const unsigned mask = (1u << k->n) - 1;
		const unsigned x = (unsigned)(w->reg >> k->n) & mask,
		               g1 = (unsigned)w->acc_g & mask;

		w->cand = w->crow[x] | (uint64_t)w->crow[x ^ g1] << 32;
		return;
	}
	const uint64_t s0 = (w->reg << 1) & k->smask;

	w->cand = w->crow[word0(k, w->lut, s0)] | (uint64_t)w->crow[word0(k, w->lut, s0 | 1u)]
	                                              << 32;
}

/* One cycle: fano_decode.c's cycle(), on the history arrays. */
INLINE int fw_cycle(const struct fk *k, struct fw *w, bool acc)
{
	const int32_t ng = w->gamma + w->cur;

	if (ng >= w->T) {
		if (w->gamma < w->T + k->delta && ng - w->T >= k->delta) {
			const int32_t gap = ng - w->T;

			w->T += gap < 2 * k->delta ? k->delta : gap / k->delta * k->delta;
		}
		w->rec[w->depth] =
		    (struct rec){.gamma = w->gamma, .entry = w->entry, .reg = w->reg};
		w->bits[w->depth] = (uint8_t)w->nb;
		w->reg = next_reg(k, w, w->nb, acc);
		w->gamma = ng;
		if (++w->depth == k->stages)
			return REACHED_END;
		w->crow += w->step;
		w->entry = (uint32_t)(w->cand >> (32 * w->nb));
		load_children(k, w, acc);
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
		w->reg = p.reg;
		if (w->depth < k->info && b == entry_best(w->entry)) {
			/* left by its better branch: the other one next */
			load_children(k, w, acc);
			w->nb = b ^ 1u;
			w->cur = entry_tm1(w->entry);
			return STAYED;
		}
	}
	load_children(k, w, acc);
	w->T -= k->delta;
	try_best(k, w);
	return STAYED;
}

static void stage_table(const struct fano_fast *f, unsigned dir, const int8_t *in, uint32_t *tab)
{
	const struct fano_code *c = f->code;

#ifdef FECD_SIMD_X86
	if (fec_simd_level() >= FEC_SIMD_AVX2) {
		fano_stage_table_avx2(f->vt[dir], in, tab, c->stages, c->n);
		return;
	}
#endif
	fano_stage_table_sse2(f->vt[dir], in, tab, c->stages, c->n);
}

/* This file's build of the stage table (SSE2 on x86-64, whatever the target has elsewhere). */
FANO_STAGE_TABLE(fano_stage_table_sse2)

static void walker_init(struct fw *w, const struct fano_fast *f, unsigned dir, const uint32_t *tab,
                        struct rec *rec, uint8_t *bits, bool acc)
{
	const struct fano_code *c = f->code;
	const ptrdiff_t words = (ptrdiff_t)1 << c->n;
	const struct fk k = {.info = c->info_bits,
	                     .lut_bytes = c->lut_bytes,
	                     .n = c->n,
	                     .smask = (1ull << (c->k - 1)) - 1};

	memset(w, 0, sizeof(*w));
	w->step = dir ? -words : words;
	w->crow = (dir ? tab + (ptrdiff_t)(c->stages - 1) * words : tab) + w->step;
	w->lut = c->lut[dir];
	for (unsigned j = 1; acc && j < c->k; j++)
		w->acc_g |= (uint64_t)fano_word(c, dir, 1ull << j) << (c->n * (j - 1));
	w->rec = rec;
	w->bits = bits;
	w->entry = (w->crow - w->step)[0]; /* the root: every register bit zero, code word 0 */
	try_best(&k, w);
	load_children(&k, w, acc);
}

/* UFA: cycles until the end or the budget; the cycles used. */
INLINE uint64_t run_ufa(const struct fk *k, struct fw *fd, uint64_t budget, bool acc, int *done)
{
	struct fw w = *fd;
	uint64_t left = budget;

	while (left) {
		left--;
		if (fw_cycle(k, &w, acc) == REACHED_END) {
			*done = 1;
			break;
		}
	}
	*fd = w;
	return budget - left;
}

/* UFA on accumulated code words (acc_fits): fw_cycle's search written out with its state
 * in locals and the entries per depth (words) a constant, so that the hot loop keeps all of it in
 * registers. The same cycles as run_ufa's, which the tests compare with the reference too. */
INLINE uint64_t run_ufa_acc(const struct fk *k, struct fw *fw, uint64_t budget, unsigned words,
                            int *done)
{
	const int32_t delta = k->delta;
	const uint32_t info = k->info;
	const unsigned n = words == 4 ? 2 : words == 8 ? 3 : 4;
	const uint64_t g = fw->acc_g;
	struct rec *const rec = fw->rec;
	uint8_t *const bits = fw->bits;
	const uint32_t *crow = fw->crow;
	uint64_t reg = fw->reg, cand = fw->cand, left = budget;
	uint32_t entry = fw->entry, depth = fw->depth;
	int32_t gamma = fw->gamma, T = fw->T, cur = fw->cur;
	unsigned nb = fw->nb, x;

	while (left) {
		const int32_t ng = gamma + cur;
		unsigned b = 0;
		bool stop = false;

		left--;
		if (ng >= T) {
			if (gamma < T + delta && ng - T >= delta) {
				const int32_t gap = ng - T;

				T += gap < 2 * delta ? delta : gap / delta * delta;
			}
			rec[depth] = (struct rec){.gamma = gamma, .entry = entry, .reg = reg};
			bits[depth] = (uint8_t)nb;
			reg = (reg >> n) ^ (g & (0 - (uint64_t)nb));
			gamma = ng;
			entry = (uint32_t)(cand >> (32 * nb));
			crow += words;
			x = (unsigned)(reg >> n) & (words - 1);
			cand = crow[x] | (uint64_t)crow[x ^ ((unsigned)g & (words - 1))] << 32;
			if (++depth >= info) { /* the tail: input 0 only */
				if (depth == k->stages) {
					*done = 1;
					break;
				}
				nb = 0;
				cur = entry_m0(entry);
			} else {
				nb = entry_best(entry);
				cur = entry_tm0(entry);
			}
			continue;
		}
		while (depth > 0 && rec[depth - 1].gamma >= T) {
			const struct rec p = rec[--depth];

			b = bits[depth];
			crow -= words;
			gamma = p.gamma;
			entry = p.entry;
			reg = p.reg;
			if (depth < info && b == entry_best(entry)) {
				stop = true;
				break;
			}
		}
		x = (unsigned)(reg >> n) & (words - 1);
		cand = crow[x] | (uint64_t)crow[x ^ ((unsigned)g & (words - 1))] << 32;
		if (stop) { /* left by its better branch: the other one next */
			nb = b ^ 1u;
			cur = entry_tm1(entry);
			continue;
		}
		T -= delta;
		nb = depth < info ? entry_best(entry) : 0;
		cur = depth < info ? entry_tm0(entry) : entry_m0(entry);
	}
	fw->crow = crow;
	fw->reg = reg;
	fw->cand = cand;
	fw->entry = entry;
	fw->depth = depth;
	fw->gamma = gamma;
	fw->T = T;
	fw->cur = cur;
	fw->nb = nb;
	return budget - left;
}

/* The UFA loops, each a function of its own so that the register allocator sees nothing else. */
static __attribute__((noinline)) uint64_t ufa_acc4(const struct fk *k, struct fw *fw,
                                                   uint64_t budget, int *done)
{
	return run_ufa_acc(k, fw, budget, 4, done);
}

static __attribute__((noinline)) uint64_t ufa_acc8(const struct fk *k, struct fw *fw,
                                                   uint64_t budget, int *done)
{
	return run_ufa_acc(k, fw, budget, 8, done);
}

static __attribute__((noinline)) uint64_t ufa_acc16(const struct fk *k, struct fw *fw,
                                                    uint64_t budget, int *done)
{
	return run_ufa_acc(k, fw, budget, 16, done);
}

static __attribute__((noinline)) uint64_t ufa_lut(const struct fk *k, struct fw *fw,
                                                  uint64_t budget, int *done)
{
	return run_ufa(k, fw, budget, false, done);
}

/* Whether the FD's and the BD's decided input t agree (the tail: zeros to both). */
INLINE bool agree(const struct fw *fd, const struct fw *bd, uint32_t info, uint32_t t)
{
	return t >= info || ((fd->bits[t] ^ bd->bits[info - 1 - t]) & 1u) == 0;
}

/* The first information bit the BD has decided. */
INLINE uint32_t bd_low(const struct fw *bd, uint32_t info)
{
	return bd->depth >= info ? 0 : info - bd->depth;
}

/* After the FD's forward move: a run of len agreeing inputs ending at its last; the run's start
 * (as fano_decode.c returns it: the run's last input examined), or -1. */
static int64_t merge_after_fd(const struct fw *fd, const struct fw *bd, uint32_t info, unsigned len)
{
	const uint32_t lo = bd_low(bd, info);
	uint32_t t = fd->depth - 1, run = 0;

	if (t < lo)
		return -1;
	for (;;) {
		if (!agree(fd, bd, info, t))
			return -1;
		if (++run == len)
			return t;
		if (t == lo)
			return -1;
		t--;
	}
}

/* After the BD's forward move onto an information bit: a run starting at it. */
static int64_t merge_after_bd(const struct fw *fd, const struct fw *bd, uint32_t info, unsigned len)
{
	uint32_t run = 0;

	if (bd->depth > info)
		return -1;
	for (uint32_t t = info - bd->depth; t < fd->depth; t++) {
		if (!agree(fd, bd, info, t))
			return -1;
		if (++run == len)
			return info - bd->depth;
	}
	return -1;
}

/* BFA: the FD and the BD in turn, the FD first, until one completes, their paths merge or the
 * budget (counted over both) is spent; the cycles used. done: 1 FD complete, 2 BD complete, 3
 * merged at *at. */
INLINE uint64_t run_bfa(const struct fk *k, const struct fano_fast *f, struct fw *fdp,
                        struct fw *bdp, bool acc, int *done, int64_t *at)
{
	struct fw fd = *fdp, bd = *bdp;
	uint64_t used = 0;

	while (used < f->budget && !*done) {
		int r;

		used++;
		r = fw_cycle(k, &fd, acc);
		if (r == REACHED_END)
			*done = 1;
		else if (r == FORWARD &&
		         (*at = merge_after_fd(&fd, &bd, k->info, f->merge_len)) >= 0)
			*done = 3;
		if (*done || used == f->budget)
			continue;
		used++;
		r = fw_cycle(k, &bd, acc);
		if (r == REACHED_END)
			*done = 2;
		else if (r == FORWARD &&
		         (*at = merge_after_bd(&fd, &bd, k->info, f->merge_len)) >= 0)
			*done = 3;
	}
	*fdp = fd;
	*bdp = bd;
	return used;
}

static __attribute__((noinline)) uint64_t bfa_acc(const struct fk *k, const struct fano_fast *f,
                                                  struct fw *fd, struct fw *bd, int *done,
                                                  int64_t *at)
{
	return run_bfa(k, f, fd, bd, true, done, at);
}

static __attribute__((noinline)) uint64_t bfa_lut(const struct fk *k, const struct fano_fast *f,
                                                  struct fw *fd, struct fw *bd, int *done,
                                                  int64_t *at)
{
	return run_bfa(k, f, fd, bd, false, done, at);
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

struct scratch {
	uint32_t *tab[2]; /* each direction's stage table (one, where both have the same c1) */
	struct rec *rec[2];
	uint8_t *bits[2];
	uint8_t *res;
};

static size_t round64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

/* The scratch's parts: the stage tables (the backward decoder's only where its c1 differs), each
 * direction's records and decided inputs (the backward's for BFA), the output's inputs. */
static void scratch_layout(const struct fano_fast *f, uint8_t *base, struct scratch *s,
                           size_t *total)
{
	const struct fano_code *c = f->code;
	const size_t tab_bytes = round64(((size_t)c->stages + 2) << c->n << 2);
	const unsigned dirs = f->bfa ? 2 : 1;
	size_t at = 0;

	for (unsigned d = 0; d < (f->two_tabs ? 2u : 1u); d++, at += tab_bytes)
		if (s) /* a zero row before and after */
			s->tab[d] = (uint32_t *)(base + at) + ((size_t)1 << c->n);
	if (s && !f->two_tabs)
		s->tab[1] = s->tab[0];
	for (unsigned d = 0; d < dirs; d++) {
		if (s) {
			s->rec[d] = (struct rec *)(base + at);
			s->bits[d] = base + at + round64((size_t)c->stages * sizeof(struct rec));
		}
		at += round64((size_t)c->stages * sizeof(struct rec)) +
		      round64((size_t)c->stages + 8);
	}
	if (s)
		s->res = base + at;
	at += round64((size_t)c->info_bits + 8);
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

void fano_fast_frame(const struct fano_fast *f, const int8_t *in, void *scratch,
                     struct fec_job *job, uint8_t *out)
{
	const struct fano_code *c = f->code;
	const uint32_t info = c->info_bits;
	const struct fk k = {.delta = f->delta,
	                     .stages = c->stages,
	                     .info = info,
	                     .lut_bytes = c->lut_bytes,
	                     .n = c->n,
	                     .smask = (1ull << (c->k - 1)) - 1};
	const size_t words = (size_t)1 << c->n;
	const bool acc = acc_fits(c);
	struct scratch s;
	struct fw fd, bd = {0};
	uint64_t used = 0;
	int64_t at = -1;
	int done = 0; /* 1: FD complete, 2: BD complete, 3: merged at `at` */

	scratch_layout(f, scratch, &s, NULL);
	for (unsigned d = 0; d < (f->two_tabs ? 2u : 1u); d++) {
		memset(s.tab[d] - words, 0, words * sizeof(uint32_t));
		memset(s.tab[d] + (size_t)c->stages * words, 0, words * sizeof(uint32_t));
		stage_table(f, d, in, s.tab[d]);
	}
	walker_init(&fd, f, 0, s.tab[0], s.rec[0], s.bits[0], acc);
	if (!f->bfa) {
		if (!acc)
			used = ufa_lut(&k, &fd, f->budget, &done);
		else if (c->n == 2)
			used = ufa_acc4(&k, &fd, f->budget, &done);
		else if (c->n == 3)
			used = ufa_acc8(&k, &fd, f->budget, &done);
		else
			used = ufa_acc16(&k, &fd, f->budget, &done);
	} else {
		walker_init(&bd, f, 1, s.tab[1], s.rec[1], s.bits[1], acc);
		used = acc ? bfa_acc(&k, f, &fd, &bd, &done, &at)
		           : bfa_lut(&k, f, &fd, &bd, &done, &at);
	}
	job->out_bits = info;
	job->soft_count = 0;
	job->work = (uint32_t)used;
	job->status = done ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
	if (done == 1) { /* the FD's whole path */
		pack_bits(fd.bits, info, out);
		job->metric = (float)(int64_t)fd.gamma / MET_SCALE;
		return;
	}
	/* The FD's inputs below its end (merged: below the run), the BD's from its start (merged:
	 * from the run), zeros between (not converged) */
	const uint32_t fd_end = done == 2 ? 0 : done == 3 ? (uint32_t)at : fd.depth;
	const uint32_t bd_start = done == 2 || done == 3 ? fd_end
	                          : f->bfa               ? bd_low(&bd, info)
	                                                 : info;

	for (uint32_t t = 0; t < info; t++) {
		if (t < fd_end)
			s.res[t] = fd.bits[t] & 1u;
		else if (t >= bd_start)
			s.res[t] = bd.bits[info - 1 - t] & 1u;
		else
			s.res[t] = 0;
	}
	pack_bits(s.res, info, out);
	job->metric =
	    (float)(done ? path_metric(c, s.tab[0], s.res) : (int64_t)fd.gamma) / MET_SCALE;
}
