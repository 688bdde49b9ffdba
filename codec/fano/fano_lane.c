/*
 * The fano fast path's search on accumulated code words (fano_lane.h): fano_decode.c's cycle, with
 * results equal bit for bit, arranged so that a forward move (nearly every cycle at good
 * signal-to-noise ratios) is short and has no branch the data decide:
 *   - the branch to try is one word in the stage table's entry format (its metric in the low
 *     half, its input in the top bit), so that arrival at a node is one load of the child's
 *     entry, and a UFA frame's tail rows are built in that form already (fano_fast.c: input 0
 *     first), so that the tail needs no test;
 *   - the threshold's tightening without a division or a branch on the data (tighten());
 *   - a node's record is written on arrival, while its values are in registers; a depth's table
 *     row and its record are kept together (blocks; the BFA's two directions share one block per
 *     stage), so that a search direction moves one pointer, and its decided inputs are a byte
 *     array of their own;
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

/* The cycle's look back (the test gamma + metric >= T failed), as fano_decode.c's, on the UFA's
 * blocks: back while the parent's gamma is at least T, stopping at a node left by its better
 * branch (then its other branch is tried), else T falls by delta. Tail nodes never stop it: in
 * the tail form their try word is their entry. */
INLINE void ulane_back(const struct ulane_k *k, struct ulane *l, unsigned n)
{
	const size_t S = fano__ublock_bytes(n);
	const uint32_t mask = (1u << n) - 1;
	uint8_t *p = l->p, *bp = l->bp;
	unsigned b = 0;
	bool stop = false;

	while (p != l->base && fano__ublock_rec(p - S, n)->gamma >= l->T) {
		b = *--bp & 1u;
		p -= S;
		if (p < l->info_at &&
		    b == entry_best(((const uint32_t *)p)[fano__ublock_rec(p, n)->reg & mask])) {
			stop = true; /* left by its better branch: the other one next */
			break;
		}
	}
	l->p = p;
	l->bp = bp;
	l->reg = fano__ublock_rec(p, n)->reg;
	l->gamma = fano__ublock_rec(p, n)->gamma;
	const uint32_t e = ((const uint32_t *)p)[l->reg & mask];

	if (stop) {
		l->tr = other_try(e, b ^ 1u);
		return;
	}
	l->T -= k->dk.delta;
	l->tr = e;
}

/* One UFA cycle on blocks: the test, then the forward move or the look back. The child's entry
 * is loaded once its input is known, one load at the low code word of the child's register, not
 * both children's while the node is compared (as before session fano-cpu4): fewer instructions
 * (21 a forward cycle against 28), and the loop keeps its values in registers (whd-k7 at 6 dB,
 * the inputs already in their own array: 16.9 -> 16.2 cycles per bit). The chain from one try
 * word to the next is then the search's limit at good signal-to-noise ratios: the register is
 * kept in a register, not read back from the record just written (a store-to-load forwarding on
 * the chain), and the child's index is the node's next code word and the input's part of it
 * (16.8 -> 15.9); gamma too (15.7 -> 15.4; at 4 dB 25.5 -> 24.2). */
INLINE int ulane_cycle(const struct ulane_k *k, struct ulane *l, unsigned n, bool pow2,
                       bool check_end)
{
	const size_t S = fano__ublock_bytes(n);
	const int32_t gamma = l->gamma;
	const int32_t ng = gamma + (int16_t)(uint16_t)l->tr;

	if (__builtin_expect(ng < l->T, 0)) {
		ulane_back(k, l, n);
		return STAYED;
	}
	const int32_t take = (int32_t)l->tr >> 31; /* all ones: input 1 */
	const uint64_t r = l->reg >> n;
	const unsigned idx = ((unsigned)r & ((1u << n) - 1)) ^ (k->g1 & (uint32_t)take);

	l->reg = r ^ (k->g & (uint64_t)(int64_t)take);
	l->T = tighten(&k->dk, gamma, ng, l->T, pow2);
	*l->bp++ = (uint8_t)take; /* 0 or 0xff: the input in every bit */
	l->p += S;
	fano__ublock_rec(l->p, n)->gamma = ng;
	l->gamma = ng;
	fano__ublock_rec(l->p, n)->reg = l->reg;
	if (check_end && __builtin_expect(l->p == l->end, 0))
		return REACHED_END;
	l->tr = ((const uint32_t *)l->p)[idx];
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

/* Whether the node at block p of direction dir decides an information bit. */
INLINE bool binfo(const struct blane_k *k, const uint8_t *p, unsigned dir)
{
	return dir ? p >= k->bd_info : p < k->fd_info;
}

/* Direction dir's row in block p. */
INLINE const uint32_t *brow(const uint8_t *p, unsigned n, bool two, unsigned dir)
{
	return (const uint32_t *)(p + (dir && two ? (size_t)4 << n : 0));
}

/* The entry of the node at block p of direction dir. */
INLINE uint32_t bentry(uint8_t *p, unsigned n, bool two, unsigned dir)
{
	return brow(p, n, two, dir)[fano__bblock_recp(p, n, two, dir)->reg & ((1u << n) - 1)];
}

/* A BFA lane's look back (ulane_back's, with the tail's rows as built and a sentinel record
 * before each root). */
INLINE void blane_back(const struct blane_k *k, struct blane *l, unsigned n, bool two, unsigned dir)
{
	const ptrdiff_t step = (dir ? -1 : 1) * (ptrdiff_t)fano__bblock_bytes(n, two);
	uint8_t *p = l->p, *bp = l->bp;
	unsigned b = 0;
	bool stop = false;

	while (fano__bblock_recp(p - step, n, two, dir)->gamma >= l->T) {
		b = *--bp & 1u;
		p -= step;
		if (binfo(k, p, dir) && b == entry_best(bentry(p, n, two, dir))) {
			stop = true; /* left by its better branch: the other one next */
			break;
		}
	}
	const uint32_t e = bentry(p, n, two, dir);

	l->p = p;
	l->bp = bp;
	l->reg = fano__bblock_recp(p, n, two, dir)->reg;
	if (stop) {
		l->tr = other_try(e, b ^ 1u);
		return;
	}
	l->T -= k->dk.delta;
	l->tr = binfo(k, p, dir) ? e : tail_try(e);
}

/* One BFA cycle (ulane_cycle's, the tail's try word chosen on arrival). Each lane keeps four
 * values and the constants are in k, so that the two lanes' loop keeps them in registers (with
 * the merge checks out of line: whd-k7 at 6 dB, 20.3 -> 18.9 cycles per bit). */
INLINE int blane_cycle(const struct blane_k *k, struct blane *l, unsigned n, bool two, unsigned dir,
                       bool pow2)
{
	const ptrdiff_t step = (dir ? -1 : 1) * (ptrdiff_t)fano__bblock_bytes(n, two);
	const int32_t gamma = fano__bblock_recp(l->p, n, two, dir)->gamma;
	const uint64_t reg = l->reg;
	const int32_t ng = gamma + (int16_t)(uint16_t)l->tr;

	if (__builtin_expect(ng < l->T, 0)) {
		blane_back(k, l, n, two, dir);
		return STAYED;
	}
	const uint64_t take = (uint64_t)(int64_t)((int32_t)l->tr >> 31); /* all ones: input 1 */
	const uint64_t nreg = (reg >> n) ^ (k->g[dir] & take);

	l->T = tighten(&k->dk, gamma, ng, l->T, pow2);
	*l->bp++ = (uint8_t)take; /* as ulane_cycle's */
	l->p += step;
	*fano__bblock_recp(l->p, n, two, dir) = (struct ublock_rec){.gamma = ng, .reg = nreg};
	l->reg = nreg;
	if (__builtin_expect(l->p == (dir ? k->bd_end : k->fd_end), 0))
		return REACHED_END;
	const uint32_t e = brow(l->p, n, two, dir)[nreg & ((1u << n) - 1)];

	l->tr = binfo(k, l->p, dir) ? e : tail_try(e);
	return FORWARD;
}

/* The merge checks once the two paths overlap (fano_lane.h's), out of the loop. */
static __attribute__((noinline)) int64_t merge_fd(const struct blane_k *k, const struct blane *fd,
                                                  const struct blane *bd)
{
	return fano__merge_after_fd(k->fd_bits, (uint32_t)(fd->bp - k->fd_bits), k->bd_bits,
	                            (uint32_t)(bd->bp - k->bd_bits), k->info, k->merge_len);
}

static __attribute__((noinline)) int64_t merge_bd(const struct blane_k *k, const struct blane *fd,
                                                  const struct blane *bd)
{
	return fano__merge_after_bd(k->fd_bits, (uint32_t)(fd->bp - k->fd_bits), k->bd_bits,
	                            (uint32_t)(bd->bp - k->bd_bits), k->info, k->merge_len);
}

/* The BFA's loop. Neither merge check can succeed while the two depths add up to info or less
 * (the paths do not overlap: fano_lane.h's checks return at once), which the sum of the two
 * lanes' bits pointers tells against k->meet. */
INLINE uint64_t bfa(const struct blane_k *k, struct blane *fdp, struct blane *bdp, unsigned n,
                    bool two, bool pow2, int *done, int64_t *at)
{
	struct blane fd = *fdp, bd = *bdp;
	uint64_t left = k->budget;

	while (left) {
		int r;

		left--;
		r = blane_cycle(k, &fd, n, two, 0, pow2);
		if (r == REACHED_END) {
			*done = 1;
			break;
		}
		if (r == FORWARD && (uintptr_t)fd.bp + (uintptr_t)bd.bp > k->meet &&
		    (*at = merge_fd(k, &fd, &bd)) >= 0) {
			*done = 3;
			break;
		}
		if (!left)
			break;
		left--;
		r = blane_cycle(k, &bd, n, two, 1, pow2);
		if (r == REACHED_END) {
			*done = 2;
			break;
		}
		if (r == FORWARD && (uintptr_t)fd.bp + (uintptr_t)bd.bp > k->meet &&
		    (*at = merge_bd(k, &fd, &bd)) >= 0) {
			*done = 3;
			break;
		}
	}
	*fdp = fd;
	*bdp = bd;
	return k->budget - left;
}

/* The loops for n = 2, 3, 4 and delta a power of two or not (and for the BFA, one table or
 * two), each a function of its own. */
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
	static __attribute__((noinline))                                                           \
	uint64_t bfa_##NAME(const struct blane_k *k, struct blane *fd, struct blane *bd, bool two, \
	                    int *done, int64_t *at)                                                \
	{                                                                                          \
		if (two)                                                                           \
			return bfa(k, fd, bd, N, true, P, done, at);                               \
		return bfa(k, fd, bd, N, false, P, done, at);                                      \
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

uint64_t fano__bfa(const struct blane_k *k, struct blane *fd, struct blane *bd, unsigned n,
                   bool two, int *done, int64_t *at)
{
	if (pow2(k->dk.delta))
		return n == 2   ? bfa_2p(k, fd, bd, two, done, at)
		       : n == 3 ? bfa_3p(k, fd, bd, two, done, at)
		                : bfa_4p(k, fd, bd, two, done, at);
	return n == 2   ? bfa_2(k, fd, bd, two, done, at)
	       : n == 3 ? bfa_3(k, fd, bd, two, done, at)
	                : bfa_4(k, fd, bd, two, done, at);
}
