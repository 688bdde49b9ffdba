/*
 * The fano family's fast CPU path: the same search as fano_decode.c's reference (its top comment
 * is the specification), arranged for speed, with results equal bit for bit (bits, status, work,
 * metric), UFA and BFA:
 *   - a table of the 2^n branch metrics of every stage, int16, built once per frame, so that a
 *     node's two branches cost two loads (code word w0 of input 0 from the look-up tables, and
 *     w0 ^ c1 for input 1, c1 the code word of the current input alone);
 *   - int32 path metrics and threshold, where fano_fast_init finds that no sum or difference of
 *     them can leave int32 within the budget (else the reference's int64 path decodes);
 *   - the whole node history instead of the 8-entry queue (the queue is a cache of the same
 *     values): an 8-byte record per depth (gamma and the two sorted branch metrics) and one byte
 *     per decided input (the input, and at bit 1 which input was the better branch), written
 *     once per forward move, no read-modify-write of path words;
 *   - the tightening's division only where the threshold rises by more than one step;
 *   - each direction's cycle inlined into the frame's loop, its state in locals.
 */
#include <string.h>

#include "fano_fast.h"

#define MET_SCALE 16
#define BITS_PAD  64 /* zero bytes before a path's depth 0: the state's oldest input below K-1 */

enum { STAYED, FORWARD, REACHED_END };

/* A node left forward: what a move back to it needs. */
struct rec {
	int32_t gamma;
	int16_t tm0, tm1; /* the better branch's metric, the other's (0 in the tail) */
};

/* The frame's constants. */
struct fk {
	int32_t delta;
	uint32_t stages, info;
	unsigned k, lut_bytes;
	uint64_t smask; /* the K-1 bits of a state */
};

/* One search direction. */
struct fw {
	const int16_t *row0; /* the branch metrics of this direction's depth 0 */
	ptrdiff_t step;      /* entries from one depth's row to the next's (negative backward) */
	const uint8_t (*lut)[256];
	unsigned c1;     /* the code word of the current input bit alone */
	struct rec *rec; /* rec[t]: node t, once left forward */
	uint8_t *bits;   /* bits[t]: input decided at depth t | its node's better input << 1 */
	uint64_t state;  /* the K-1 inputs before this node, bit 0 the latest */
	int32_t gamma, T, tm0, tm1;
	uint32_t depth;
	unsigned best, i;
};

#define INLINE static inline __attribute__((always_inline))

/* The code word of the branch with input 0 out of a node whose state is `state`. */
INLINE unsigned word0(const struct fk *k, const uint8_t (*lut)[256], uint64_t state)
{
	const uint64_t reg = state << 1;
	unsigned w = lut[0][reg & 0xffu];

	for (unsigned j = 1; j < k->lut_bytes; j++)
		w ^= lut[j][(reg >> (8 * j)) & 0xffu];
	return w;
}

/* The sorted branch metrics of the walker's node. */
INLINE void node_metrics(const struct fk *k, struct fw *w)
{
	const int16_t *row = w->row0 + w->step * (ptrdiff_t)w->depth;
	const unsigned w0 = word0(k, w->lut, w->state);
	const int32_t m0 = row[w0];
	int32_t m1;

	if (w->depth >= k->info) { /* tail: input 0 only */
		w->tm0 = m0;
		w->tm1 = 0;
		w->best = 0;
		return;
	}
	m1 = row[w0 ^ w->c1];
	w->best = m1 > m0;
	w->tm0 = w->best ? m1 : m0;
	w->tm1 = w->best ? m0 : m1;
}

/* One cycle: fano_decode.c's cycle(), on the history arrays. */
INLINE int fw_cycle(const struct fk *k, struct fw *w)
{
	const int32_t ng = w->gamma + (w->i ? w->tm1 : w->tm0);

	if (ng >= w->T) {
		const unsigned bit = w->best ^ w->i;

		if (w->gamma < w->T + k->delta && ng - w->T >= k->delta) {
			const int32_t gap = ng - w->T;

			w->T += gap < 2 * k->delta ? k->delta : gap / k->delta * k->delta;
		}
		w->rec[w->depth] =
		    (struct rec){.gamma = w->gamma, .tm0 = (int16_t)w->tm0, .tm1 = (int16_t)w->tm1};
		w->bits[w->depth] = (uint8_t)(bit | w->best << 1);
		w->state = (w->state << 1 | bit) & k->smask;
		w->gamma = ng;
		if (++w->depth == k->stages)
			return REACHED_END;
		node_metrics(k, w);
		w->i = 0;
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
		w->gamma = p.gamma;
		w->tm0 = p.tm0;
		w->tm1 = p.tm1;
		w->best = b >> 1;
		w->i = (b ^ w->best) & 1u;
		/* the oldest input comes back into the state (zeros before depth 0: BITS_PAD) */
		w->state = w->state >> 1 |
		           (uint64_t)(w->bits[(ptrdiff_t)w->depth - (k->k - 1)] & 1u) << (k->k - 2);
		if (w->depth < k->info && w->i == 0) {
			w->i = 1;
			return STAYED;
		}
	}
	w->T -= k->delta;
	w->i = 0;
	return STAYED;
}

/* The metrics of the 2^n code words of every stage: row s, entry w = sum over outputs r of
 * met[bit r of w][LLR r of stage s]. */
static void stage_table(const struct fano_fast *f, const int8_t *in, int16_t *tab)
{
	const struct fano_code *c = f->code;
	const unsigned n = c->n, words = 1u << n;

	for (uint32_t s = 0; s < c->stages; s++, in += n, tab += words) {
		int32_t e[16], base = 0, d[4];

		for (unsigned r = 0; r < n; r++) {
			const unsigned q = (uint8_t)(in[r] + 128);

			base += f->met[0][q];
			d[r] = f->met[1][q] - f->met[0][q];
		}
		e[0] = base;
		for (unsigned r = 0; r < n; r++)
			for (unsigned j = 0; j < 1u << r; j++)
				e[j | 1u << r] = e[j] + d[r];
		for (unsigned j = 0; j < words; j++)
			tab[j] = (int16_t)e[j];
	}
}

static void walker_init(struct fw *w, const struct fano_fast *f, unsigned dir, const int16_t *tab,
                        struct rec *rec, uint8_t *bits)
{
	const struct fano_code *c = f->code;
	const ptrdiff_t words = (ptrdiff_t)1 << c->n;
	const struct fk k = {.info = c->info_bits, .k = c->k, .lut_bytes = c->lut_bytes};

	memset(w, 0, sizeof(*w));
	w->row0 = dir ? tab + (ptrdiff_t)(c->stages - 1) * words : tab;
	w->step = dir ? -words : words;
	w->lut = c->lut[dir];
	w->c1 = c->lut[dir][0][1];
	w->rec = rec;
	memset(bits - BITS_PAD, 0, BITS_PAD);
	w->bits = bits;
	node_metrics(&k, w);
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
static int64_t merge_after_fd(const struct fw *fd, const struct fw *bd, uint32_t info,
                              unsigned len)
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
static int64_t merge_after_bd(const struct fw *fd, const struct fw *bd, uint32_t info,
                              unsigned len)
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
static int64_t path_metric(const struct fano_code *c, const int16_t *tab, const uint8_t *bits)
{
	const uint64_t mask = c->k == 64 ? ~0ull : (1ull << c->k) - 1;
	const unsigned words = 1u << c->n;
	uint64_t reg = 0;
	int64_t g = 0;

	for (uint32_t t = 0; t < c->stages; t++, tab += words) {
		reg = (reg << 1 | (t < c->info_bits ? bits[t] & 1u : 0u)) & mask;
		g += tab[fano_word(c, 0, reg)];
	}
	return g;
}

struct scratch {
	int16_t *tab;
	struct rec *rec[2];
	uint8_t *bits[2];
	uint8_t *res;
};

static size_t round64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

static void scratch_layout(const struct fano_code *c, uint8_t *base, struct scratch *s,
                           size_t *total)
{
	size_t at = round64((size_t)c->stages << c->n << 1);

	if (s)
		s->tab = (int16_t *)base;
	for (unsigned d = 0; d < 2; d++) {
		if (s) {
			s->rec[d] = (struct rec *)(base + at);
			s->bits[d] = base + at + round64((size_t)c->stages * sizeof(struct rec)) +
			             BITS_PAD;
		}
		at += round64((size_t)c->stages * sizeof(struct rec)) +
		      round64(BITS_PAD + (size_t)c->stages + 8);
	}
	if (s)
		s->res = base + at;
	at += round64((size_t)c->info_bits + 8);
	if (total)
		*total = at;
}

size_t fano_fast_scratch_bytes(const struct fano_code *c)
{
	size_t total;

	scratch_layout(c, NULL, NULL, &total);
	return total;
}

void fano_fast_init(struct fano_fast *f, const struct fano_code *c, const int32_t met[2][256],
                    uint32_t delta, uint64_t budget, unsigned merge_len, bool bfa)
{
	int64_t most = 0; /* the largest |code-bit metric| */
	uint64_t bound;

	memset(f, 0, sizeof(*f));
	f->code = c;
	f->met = met;
	f->delta = (int32_t)delta;
	f->budget = budget;
	f->merge_len = merge_len;
	f->bfa = bfa;
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
	                     .k = c->k,
	                     .lut_bytes = c->lut_bytes,
	                     .smask = (1ull << (c->k - 1)) - 1};
	struct scratch s;
	struct fw fd, bd;
	uint64_t used = 0;
	int64_t at = -1;
	int done = 0; /* 1: FD complete, 2: BD complete, 3: merged at `at` */

	scratch_layout(c, scratch, &s, NULL);
	stage_table(f, in, s.tab);
	walker_init(&fd, f, 0, s.tab, s.rec[0], s.bits[0]);
	if (!f->bfa) {
		while (used < f->budget) {
			used++;
			if (fw_cycle(&k, &fd) == REACHED_END) {
				done = 1;
				break;
			}
		}
	} else {
		walker_init(&bd, f, 1, s.tab, s.rec[1], s.bits[1]);
		while (used < f->budget && !done) {
			int r;

			used++;
			r = fw_cycle(&k, &fd);
			if (r == REACHED_END)
				done = 1;
			else if (r == FORWARD &&
			         (at = merge_after_fd(&fd, &bd, info, f->merge_len)) >= 0)
				done = 3;
			if (done || used == f->budget)
				continue;
			used++;
			r = fw_cycle(&k, &bd);
			if (r == REACHED_END)
				done = 2;
			else if (r == FORWARD &&
			         (at = merge_after_bd(&fd, &bd, info, f->merge_len)) >= 0)
				done = 3;
		}
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
	const uint32_t bd_start = done == 2 || done == 3 ? fd_end : f->bfa ? bd_low(&bd, info) : info;

	for (uint32_t t = 0; t < info; t++) {
		if (t < fd_end)
			s.res[t] = fd.bits[t] & 1u;
		else if (t >= bd_start)
			s.res[t] = bd.bits[info - 1 - t] & 1u;
		else
			s.res[t] = 0;
	}
	pack_bits(s.res, info, out);
	job->metric = (float)(done ? path_metric(c, s.tab, s.res) : (int64_t)fd.gamma) / MET_SCALE;
}
