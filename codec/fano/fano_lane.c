/*
 * The fano fast path's search on accumulated code words (fano_lane.h): fano_decode.c's cycle, with
 * results equal bit for bit, arranged so that a forward move (nearly every cycle at good
 * signal-to-noise ratios) is short and has no branch the data decide:
 *   - the branch to try is one word in the stage table's entry format (its metric in the low
 *     half, its input in the top bit), so that arrival at a node is one select of the child's
 *     entry, and a UFA frame's tail rows are built in that form already (fano_fast.c: input 0
 *     first), so that the tail needs no test;
 *   - the threshold's tightening without a division or a branch on the data (tighten());
 *   - a node's record is written on arrival, while its values are in registers; the UFA keeps
 *     a depth's table row and its record together (blocks), so that a frame's search moves one
 *     pointer;
 *   - the UFA decodes two frames in one loop, a cycle of each in turn (their chains of dependent
 *     steps are independent), and runs the cycles that cannot reach the end without its test;
 *   - each loop in a function of its own per n and kind of delta, so that the lanes' state
 *     stays in registers.
 */
#include "fano_lane.h"

#define INLINE static inline __attribute__((always_inline))

enum { STAYED, FORWARD, REACHED_END };

/* An entry's fields (fano_fast.c): the better branch's metric in bits 0..15, the other's in
 * 16..30 (15 bits), the better input in bit 31. */
INLINE unsigned entry_best(uint32_t e)
{
	return e >> 31;
}

/* The try word of the other branch, input b. */
INLINE uint32_t other_try(uint32_t e, unsigned b)
{
	return (uint32_t)(uint16_t)((int32_t)(e << 1) >> 17) | (uint32_t)b << 31;
}

/* The try word of input 0's branch at a tail node. */
INLINE uint32_t tail_try(uint32_t e)
{
	return entry_best(e) ? other_try(e, 0) : e;
}

/* The threshold after a forward move from gamma to ng >= T: on a first visit (gamma < T + delta)
 * raised by the largest multiple of delta that keeps it <= ng. T is always a multiple of delta
 * (it starts at 0 and moves by multiples), and gamma >= T at the node: where delta is a power
 * of two (pow2), the raised T is ng rounded down to a multiple of delta, one mask. Elsewhere the
 * steps are (ng - T) / delta, by a multiply (dmul, dshift: fano_fast_init's exact reciprocal;
 * ng - T < 2^30), not a division. */
INLINE int32_t tighten(const struct delta_k *dk, int32_t gamma, int32_t ng, int32_t T, bool pow2)
{
	const int32_t over = gamma - T, gap = ng - T;

	if (pow2)
		return over < dk->delta ? (int32_t)((uint32_t)ng & dk->dmask) : T;

	const uint32_t q = (uint32_t)(((uint64_t)(uint32_t)gap * dk->dmul) >> dk->dshift);

	return over < dk->delta ? T + (int32_t)q * dk->delta : T;
}

/* The cycle's look back (the test gamma + metric >= T failed), as fano_decode.c's. */
INLINE void lane_back(const struct lane_k *k, struct lane *l, ptrdiff_t step)
{
	uint32_t d = l->depth;
	unsigned b = 0;
	bool stop = false;

	while (d > 0 && l->rec[d - 1].gamma >= l->T) {
		b = l->bits[--d];
		l->crow -= step;
		if (d < k->info && b == entry_best(l->rec[d].entry)) {
			stop = true; /* left by its better branch: the other one next */
			break;
		}
	}
	const uint32_t e = l->rec[d].entry;

	l->depth = d;
	if (stop) {
		l->tr = other_try(e, b ^ 1u);
		return;
	}
	l->T -= k->dk.delta;
	l->tr = d < k->info ? e : tail_try(e);
}

/* One cycle. The chosen child's entry (the table has a zero row past each end, for the last
 * node's) is loaded alone, once its input is known, as in ulane_cycle (whd-k7 at 6 dB: 21.8 ->
 * 20.3 cycles per bit). */
INLINE int lane_cycle(const struct lane_k *k, struct lane *l, unsigned n, bool pow2, bool backward)
{
	const ptrdiff_t step = backward ? -((ptrdiff_t)1 << n) : (ptrdiff_t)1 << n; /* row to row */

	const int32_t gamma = l->rec[l->depth].gamma;
	const uint64_t reg = l->rec[l->depth].reg;
	const int32_t ng = gamma + (int16_t)(uint16_t)l->tr;

	if (__builtin_expect(ng < l->T, 0)) {
		lane_back(k, l, step);
		return STAYED;
	}
	const uint64_t take = (uint64_t)(int64_t)((int32_t)l->tr >> 31); /* all ones: input 1 */
	const uint64_t nreg = (reg >> n) ^ (l->g & take);
	const uint32_t e = l->crow[nreg & ((1u << n) - 1)]; /* the child's entry */

	l->T = tighten(&k->dk, gamma, ng, l->T, pow2);
	l->bits[l->depth] = (uint8_t)entry_best(l->tr);
	l->rec[++l->depth] = (struct rec){.gamma = ng, .entry = e, .reg = nreg};
	if (__builtin_expect(l->depth == k->stages, 0))
		return REACHED_END;
	l->crow += step;
	l->tr = l->depth < k->info ? e : tail_try(e);
	return FORWARD;
}

/* The UFA's look back on blocks (lane_back's; tail nodes never stop it, in the tail form their
 * try word is their entry). */
INLINE void ulane_back(const struct ulane_k *k, struct ulane *l, unsigned n)
{
	const size_t S = fano__ublock_bytes(n);
	const uint32_t mask = (1u << n) - 1;
	uint8_t *p = l->p, *bp = l->bp;
	unsigned b = 0;
	bool stop = false;

	while (p != l->base && fano__ublock_rec(p - S, n)->gamma >= l->T) {
		b = *--bp;
		p -= S;
		if (p < l->info_at &&
		    b == entry_best(((const uint32_t *)p)[fano__ublock_rec(p, n)->reg & mask])) {
			stop = true; /* left by its better branch: the other one next */
			break;
		}
	}
	l->p = p;
	l->bp = bp;
	const uint32_t e = ((const uint32_t *)p)[fano__ublock_rec(p, n)->reg & mask];

	if (stop) {
		l->tr = other_try(e, b ^ 1u);
		return;
	}
	l->T -= k->dk.delta;
	l->tr = e;
}

/* One UFA cycle on blocks: lane_cycle's, but the child's entry is loaded once its input is
 * known, one load at the low code word of the child's register, not both children's while the
 * node is compared: 23 instructions a forward cycle against 28, and the loop keeps its values in
 * registers; the longer chain of dependent steps is hidden by the other frame's (whd-k7 at 6 dB,
 * the inputs already in their own array: 16.9 -> 16.2 cycles per bit). */
INLINE int ulane_cycle(const struct ulane_k *k, struct ulane *l, unsigned n, bool pow2,
                       bool check_end)
{
	const size_t S = fano__ublock_bytes(n);
	const int32_t gamma = fano__ublock_rec(l->p, n)->gamma;
	const uint64_t reg = fano__ublock_rec(l->p, n)->reg;
	const int32_t ng = gamma + (int16_t)(uint16_t)l->tr;

	if (__builtin_expect(ng < l->T, 0)) {
		ulane_back(k, l, n);
		return STAYED;
	}
	const uint64_t take = (uint64_t)(int64_t)((int32_t)l->tr >> 31); /* all ones: input 1 */
	const uint64_t nreg = (reg >> n) ^ (k->g & take);

	l->T = tighten(&k->dk, gamma, ng, l->T, pow2);
	*l->bp++ = (uint8_t)entry_best(l->tr);
	l->p += S;
	fano__ublock_rec(l->p, n)->gamma = ng;
	fano__ublock_rec(l->p, n)->reg = nreg;
	if (check_end && __builtin_expect(l->p == l->end, 0))
		return REACHED_END;
	l->tr = ((const uint32_t *)l->p)[nreg & ((1u << n) - 1)];
	return FORWARD;
}

/* Cycles that cannot reach the end (a cycle moves forward once at most) and the budget allows:
 * run without the end's test. */
INLINE uint64_t ulane_safe(const struct ulane *l, unsigned n)
{
	const uint64_t far = (size_t)(l->end - l->p) / fano__ublock_bytes(n) - 1;

	return far < l->left ? far : l->left;
}

INLINE bool ufa_one(const struct ulane_k *k, struct ulane *lp, unsigned n, bool pow2)
{
	struct ulane l = *lp;
	uint64_t safe;
	bool end = false;

	while ((safe = ulane_safe(&l, n)) >= 16) {
		l.left -= safe;
		for (; safe; safe--)
			ulane_cycle(k, &l, n, pow2, false);
	}
	while (l.left) {
		l.left--;
		if (ulane_cycle(k, &l, n, pow2, true) == REACHED_END) {
			end = true;
			break;
		}
	}
	*lp = l;
	return end;
}

INLINE unsigned ufa_two(const struct ulane_k *k, struct ulane *ap, struct ulane *bp, unsigned n,
                        bool pow2)
{
	struct ulane a = *ap, b = *bp;
	uint64_t safe, most, m;
	unsigned which = 2;

	for (;;) {
		const uint64_t sa = ulane_safe(&a, n), sb = ulane_safe(&b, n);

		if ((safe = sa < sb ? sa : sb) < 16)
			break;
		a.left -= safe;
		b.left -= safe;
		for (; safe; safe--) {
			ulane_cycle(k, &a, n, pow2, false);
			ulane_cycle(k, &b, n, pow2, false);
		}
	}
	/* one counter for both: min(left) pairs of cycles at most */
	most = a.left < b.left ? a.left : b.left;
	for (m = most; m; m--) {
		if (ulane_cycle(k, &a, n, pow2, true) == REACHED_END) {
			which = 0;
			break;
		}
		if (ulane_cycle(k, &b, n, pow2, true) == REACHED_END) {
			which = 1;
			break;
		}
	}
	if (which == 2) { /* a budget's end */
		a.left -= most;
		b.left -= most;
		which = a.left == 0 ? 0 : 1;
	} else {
		a.left -= most - m + 1;
		b.left -= most - m + which;
	}
	*ap = a;
	*bp = b;
	return which;
}

INLINE uint64_t bfa(const struct lane_k *k, struct lane *fdp, struct lane *bdp, unsigned n,
                    bool pow2, int *done, int64_t *at)
{
	struct lane fd = *fdp, bd = *bdp;
	uint64_t used = 0;

	while (used < k->budget) {
		int r;

		used++;
		r = lane_cycle(k, &fd, n, pow2, false);
		if (r == REACHED_END) {
			*done = 1;
			break;
		}
		if (r == FORWARD &&
		    (*at = fano__merge_after_fd(fd.bits, fd.depth, bd.bits, bd.depth, k->info,
		                                k->merge_len)) >= 0) {
			*done = 3;
			break;
		}
		if (used == k->budget)
			break;
		used++;
		r = lane_cycle(k, &bd, n, pow2, true);
		if (r == REACHED_END) {
			*done = 2;
			break;
		}
		if (r == FORWARD &&
		    (*at = fano__merge_after_bd(fd.bits, fd.depth, bd.bits, bd.depth, k->info,
		                                k->merge_len)) >= 0) {
			*done = 3;
			break;
		}
	}
	*fdp = fd;
	*bdp = bd;
	return used;
}

/* The loops for n = 2, 3, 4 and delta a power of two or not, each a function of its own. */
#define LANE_LOOPS(N, P, NAME)                                                                     \
	static __attribute__((noinline)) bool ufa_one_##NAME(const struct ulane_k *k,              \
	                                                     struct ulane *l)                      \
	{                                                                                          \
		return ufa_one(k, l, N, P);                                                        \
	}                                                                                          \
	static __attribute__((noinline)) unsigned ufa_two_##NAME(const struct ulane_k *k,          \
	                                                         struct ulane *a, struct ulane *b) \
	{                                                                                          \
		return ufa_two(k, a, b, N, P);                                                     \
	}                                                                                          \
	static __attribute__((noinline)) uint64_t bfa_##NAME(                                      \
	    const struct lane_k *k, struct lane *fd, struct lane *bd, int *done, int64_t *at)      \
	{                                                                                          \
		return bfa(k, fd, bd, N, P, done, at);                                             \
	}
LANE_LOOPS(2, false, 2)
LANE_LOOPS(3, false, 3)
LANE_LOOPS(4, false, 4)
LANE_LOOPS(2, true, 2p)
LANE_LOOPS(3, true, 3p)
LANE_LOOPS(4, true, 4p)

/* Whether delta is a power of two. */
static bool pow2(int32_t delta)
{
	return (delta & (delta - 1)) == 0;
}

bool fano__ufa_one(const struct ulane_k *k, struct ulane *l, unsigned n)
{
	if (pow2(k->dk.delta))
		return n == 2 ? ufa_one_2p(k, l) : n == 3 ? ufa_one_3p(k, l) : ufa_one_4p(k, l);
	return n == 2 ? ufa_one_2(k, l) : n == 3 ? ufa_one_3(k, l) : ufa_one_4(k, l);
}

unsigned fano__ufa_two(const struct ulane_k *k, struct ulane *a, struct ulane *b, unsigned n)
{
	if (pow2(k->dk.delta))
		return n == 2   ? ufa_two_2p(k, a, b)
		       : n == 3 ? ufa_two_3p(k, a, b)
		                : ufa_two_4p(k, a, b);
	return n == 2 ? ufa_two_2(k, a, b) : n == 3 ? ufa_two_3(k, a, b) : ufa_two_4(k, a, b);
}

uint64_t fano__bfa(const struct lane_k *k, struct lane *fd, struct lane *bd, unsigned n, int *done,
                   int64_t *at)
{
	if (pow2(k->dk.delta))
		return n == 2   ? bfa_2p(k, fd, bd, done, at)
		       : n == 3 ? bfa_3p(k, fd, bd, done, at)
		                : bfa_4p(k, fd, bd, done, at);
	return n == 2   ? bfa_2(k, fd, bd, done, at)
	       : n == 3 ? bfa_3(k, fd, bd, done, at)
	                : bfa_4(k, fd, bd, done, at);
}
