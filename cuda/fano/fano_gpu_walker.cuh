/*
 * Internal to the GPU fano files: one search direction of the Fano algorithm on the device,
 * exactly as codec/fano/fano_decode.c's cycle() runs it: the tables in shared memory, the walker
 * (its state in registers, its context queue in shared memory, its path in device memory with
 * the word being written in a register, its input through a register window) and one cycle.
 * fano_gpu_kernel.cu builds UFA and BFA and the ladder from it; FANO_GPU.md has the design.
 */
#ifndef FANO_GPU_WALKER_CUH
#define FANO_GPU_WALKER_CUH

#include "fano_gpu.cuh"

enum { ST_STAYED, ST_FORWARD, ST_END };

/* The tables every thread reads, in shared memory. met: [an int8 LLR as a byte], the metrics of
 * bits 0 and 1 plus FGPU_MET_BIAS in the low and high 16 bits (so that sums of up to four
 * entries' halves stay in their halves). sel[dir][w0]: for each of the n symbols r, the __byte_perm
 * selector (16 bits, .x for r = 0, 1 and .y for r = 2, 3) that takes from a met entry the half of
 * code word w0's bit r into the low 16 bits and the half of the input-1 branch's word's bit r
 * into the high 16 bits: one permute and one add per symbol give both branches' metrics. */
struct fgpu_smem {
	uint32_t met[256];
	uint2 sel[2][16];
	uint2 selreg[256]; /* K <= 8 (UFA): sel[0][lut[0][0][reg]] by the register reg */
	uint8_t lut[2][8][256];
};

/* The bytes of x that the 16-bit selector s picks (PTX prmt; s's nibbles are 0..3, so this is
 * __byte_perm(x, 0, s) without the masking of s that __byte_perm costs). */
__device__ __forceinline__ uint32_t prmt(uint32_t x, uint32_t s)
{
	uint32_t r;

	asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(x), "r"(s));
	return r;
}

__device__ __forceinline__ unsigned path_bit(const uint64_t *p, uint32_t stride, uint32_t t)
{
	return (unsigned)(p[(size_t)(t >> 6) * stride] >> (t & 63) & 1u);
}

/* Bits [pos, pos + cnt) of a path (cnt 1..64; positions below 0 read 0), bit 0 = pos. */
__device__ uint64_t path_bits(const uint64_t *p, uint32_t stride, long long pos, unsigned cnt)
{
	unsigned shift = 0;
	uint64_t v;

	if (pos < 0) {
		if (pos + cnt <= 0)
			return 0;
		shift = (unsigned)-pos;
		cnt -= shift;
		pos = 0;
	}
	const uint32_t w = (uint32_t)(pos >> 6), o = (uint32_t)(pos & 63);

	v = p[(size_t)w * stride] >> o;
	if (o && o + cnt > 64)
		v |= p[(size_t)(w + 1) * stride] << (64 - o);
	if (cnt < 64)
		v &= (1ull << cnt) - 1;
	return v << shift;
}

/* The n-bit code word of the branch whose register is reg, in direction dir (B: the most
 * register bytes the code can have, so that the loop unrolls; 1 needs no test). */
template <unsigned B = 8>
__device__ __forceinline__ unsigned code_word(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                              unsigned dir, uint64_t reg)
{
	unsigned w = sm.lut[dir][0][reg & 0xffu];

#pragma unroll
	for (unsigned j = 1; j < B; j++)
		if (j < c.lut_bytes)
			w ^= sm.lut[dir][j][(reg >> (8 * j)) & 0xffu];
	return w;
}

/* The metric of code word `word` against the n symbols at s. */
__device__ __forceinline__ int32_t word_metric(const struct fgpu_code &c,
                                               const struct fgpu_smem &sm, const int8_t *s,
                                               unsigned word)
{
	int32_t m = 0;

	for (unsigned r = 0; r < c.n; r++) {
		const uint32_t p = sm.met[(uint8_t)s[r]];

		m += (int32_t)((word >> r & 1u) ? p >> 16 : p & 0xffffu) - FGPU_MET_BIAS;
	}
	return m;
}

/* One search direction's walker, in registers. The path lives in the workspace (word w at
 * path[w * stride]) except the word being written, pw (word pwi = depth / 64), which goes to
 * memory when the walker moves past it (and after every forward move in BFA, where the other
 * decoder reads it). The input is read through a window of 20 bytes (five aligned 32-bit words
 * from win) that follows the walker. The context queue is in shared memory: entry j of this
 * thread at q[j * FGPU_THREADS]: x = the two sorted branch metrics (16 bits each), y = depth << 2
 * | best << 1 | the state's oldest input (what a move back needs besides what it knows). */
template <typename S, int B> struct fgpu_walker {
	unsigned dir;
	const int8_t *in;
	uint64_t *path;
	uint32_t stride;
	uint32_t depth;
	unsigned best, i;
	S state;          /* 32 bits where K <= 32 */
	int32_t gamma, T; /* int64 on the CPU; FANO_GPU.md shows both stay well inside int32 */
	int32_t tm0, tm1;
	uint64_t pw;
	uint32_t pwi;
	uint32_t skew; /* the frame's first symbol's place in its aligned 32-bit word */
	uint32_t wofs; /* the window's first byte, from that word (a multiple of 4) */
	uint32_t win[5];
	uint2 *q;
};

/* Path bit t of a walker (t < depth). */
template <typename S, int B>
__device__ __forceinline__ unsigned walker_bit(const struct fgpu_walker<S, B> &w, uint32_t t)
{
	if ((t >> 6) == w.pwi)
		return (unsigned)(w.pw >> (t & 63) & 1u);
	return path_bit(w.path, w.stride, t);
}

template <typename S, int B>
__device__ __forceinline__ void walker_flush(const struct fgpu_walker<S, B> &w)
{
	w.path[(size_t)w.pwi * w.stride] = w.pw;
}

/* The n symbols of stage `stage` as 4 bytes (symbol r in byte r), through the window. N: the
 * code's n where the kernel is built for one (0: c.n). */
template <int N, typename S, int B>
__device__ __forceinline__ uint32_t stage_syms(const struct fgpu_code &c,
                                               struct fgpu_walker<S, B> &w, uint32_t stage)
{
	const unsigned n = N ? N : c.n;
	/* in bytes from the aligned word that holds the frame's first symbol (32-bit offsets: an
	 * empty window's wofs is 2^31, so that every position is outside it) */
	const uint32_t pos = stage * n + w.skew;
	uint32_t off = pos - w.wofs;

	if (off > 20 - n) {
		/* forward: the window starts at the symbols; backward: ends at them */
		const uint8_t *base = (const uint8_t *)w.in - w.skew;
		const uint32_t end = c.frame_syms + w.skew;

		w.wofs = pos & ~3u;
		if (w.dir)
			w.wofs = pos + n >= 17 ? (pos + n - 17) & ~3u : 0;
			/* aligned words that start before the frame's end: never past the
			 * allocation */
#pragma unroll
		for (uint32_t j = 0; j < 5; j++)
			w.win[j] = w.wofs + 4 * j < end
			               ? __ldg((const uint32_t *)(base + w.wofs + 4 * j))
			               : 0;
		off = pos - w.wofs;
	}
	/* words k = off / 4 and k + 1 of the window by selects, not branches (the lanes of a
	 * warp are at different places): by bit 1 of k, then bit 0, then k = 4 (whose symbols
	 * are all in word 4: off <= 20 - n) */
	const bool k2 = off & 8u, k1 = off & 4u;
	const uint32_t a0 = k2 ? w.win[2] : w.win[0], a1 = k2 ? w.win[3] : w.win[1];
	const uint32_t a2 = k2 ? w.win[4] : w.win[2];
	const uint32_t lo = off >= 16 ? w.win[4] : k1 ? a1 : a0, hi = k1 ? a2 : a1;

	return __funnelshift_r(lo, hi, off << 3); /* the shift is taken mod 32: 8 (off & 3) */
}

/* The sorted branch metrics of the node at depth t whose state is `state`: the n symbols' metric
 * pairs are read once and summed for both branches' code words. */
template <int N, typename S, int B>
__device__ __forceinline__ void node_metrics(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                             struct fgpu_walker<S, B> &w, uint32_t t, S state,
                                             int32_t *tm0, int32_t *tm1, unsigned *best)
{
	const unsigned n = N ? N : c.n;
	const uint32_t syms = stage_syms<N>(c, w, w.dir ? c.stages - 1 - t : t);
	/* K <= 8: the selectors straight from the register (one look-up, not two) */
	const uint2 sel = B == 1 ? sm.selreg[((uint32_t)state << 1) & 0xffu]
	                         : sm.sel[w.dir][code_word<B>(c, sm, w.dir, (uint64_t)state << 1)];
	uint32_t both = 0; /* branch 0's biased sum in the low half, branch 1's in the high */

#pragma unroll
	for (unsigned r = 0; r < (N ? N : 4); r++) {
		if (!N && r >= n)
			break;
		const uint32_t p = sm.met[(syms >> (8 * r)) & 0xffu];

		both += prmt(p, (r < 2 ? sel.x : sel.y) >> (16 * (r & 1)));
	}
	const int32_t m0 = (int32_t)(both & 0xffffu) - (int32_t)n * FGPU_MET_BIAS;
	const int32_t m1 = (int32_t)(both >> 16) - (int32_t)n * FGPU_MET_BIAS;

	if (t >= c.info_bits) {
		*tm0 = m0;
		*tm1 = 0;
		*best = 0;
		return;
	}
	*best = m1 > m0;
	*tm0 = *best ? m1 : m0;
	*tm1 = *best ? m0 : m1;
}

template <int N, typename S, int B>
__device__ __forceinline__ void walker_start(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                             struct fgpu_walker<S, B> &w, uint32_t depth,
                                             unsigned i, S state, int32_t gamma, int32_t T)
{
	w.depth = depth;
	w.i = i;
	w.state = state;
	w.gamma = gamma;
	w.T = T;
	w.skew = (uint32_t)((uintptr_t)w.in & 3u);
	w.wofs = 0x80000000u; /* empty */
	w.pwi = depth >> 6;
	/* the word's bits from the depth on are no longer decided (BFA's memory may hold them) */
	w.pw = depth & 63 ? w.path[(size_t)w.pwi * w.stride] & ((1ull << (depth & 63)) - 1) : 0;
	for (unsigned j = 0; j < FGPU_QUEUE; j++)
		w.q[j * FGPU_THREADS].y = 0xffffffffu;
	node_metrics<N>(c, sm, w, depth, state, &w.tm0, &w.tm1, &w.best);
}

/* One cycle of the search (fano_decode.c's cycle). */
template <bool BFA, int N, typename S, int B>
__device__ __forceinline__ int cycle(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                     struct fgpu_walker<S, B> &w)
{
	const int32_t delta = c.delta;
	const int32_t ng = w.gamma + (w.i ? w.tm1 : w.tm0);
	const S smask = (S)c.smask;

	if (ng >= w.T) {
		const unsigned bit = w.best ^ w.i;

		/* here 0 <= ng - T < delta + a branch's metric (< 2^17): the quotient from the
		 * float reciprocal is off by at most one, and corrected */
		if (w.gamma < w.T + delta && ng - w.T >= delta) {
			const uint32_t x = (uint32_t)(ng - w.T);
			uint32_t q = __float2uint_rz(__uint2float_rn(x) * c.delta_inv);

			q -= q * (uint32_t)delta > x;
			q += (q + 1) * (uint32_t)delta <= x;
			w.T += (int32_t)q * delta;
		}
		w.q[(w.depth & (FGPU_QUEUE - 1)) * FGPU_THREADS] =
		    make_uint2((uint32_t)(uint16_t)w.tm0 | (uint32_t)w.tm1 << 16,
		               w.depth << 2 | w.best << 1 | (unsigned)(w.state >> (c.k - 2) & 1u));
		w.pw |= (uint64_t)bit << (w.depth & 63);
		if (BFA)
			walker_flush(w);
		w.state = (w.state << 1 | bit) & smask;
		w.gamma = ng;
		if ((++w.depth & 63) == 0) {
			if (!BFA)
				walker_flush(w);
			w.pwi++;
			w.pw = 0;
		}
		if (w.depth == c.stages)
			return ST_END;
		node_metrics<N>(c, sm, w, w.depth, w.state, &w.tm0, &w.tm1, &w.best);
		w.i = 0;
		return ST_FORWARD;
	}
	for (;;) {
		S pstate;
		int32_t ptm0, ptm1;
		unsigned pbest;

		if (w.depth == 0) {
			w.T -= delta;
			w.i = 0;
			return ST_STAYED;
		}
		const uint32_t t = w.depth - 1;
		const uint2 e = w.q[(t & (FGPU_QUEUE - 1)) * FGPU_THREADS];

		if (e.y >> 2 == t) {
			ptm0 = (int32_t)(int16_t)(e.x & 0xffffu);
			ptm1 = (int32_t)e.x >> 16;
			pbest = e.y >> 1 & 1u;
			pstate = w.state >> 1 | (S)(e.y & 1u) << (c.k - 2);
		} else { /* overwritten: the same values from the decided inputs */
			pstate = w.state >> 1;
			if (t >= c.k - 1)
				pstate |= (S)walker_bit(w, t - (c.k - 1)) << (c.k - 2);
			node_metrics<N>(c, sm, w, t, pstate, &ptm0, &ptm1, &pbest);
		}
		/* the input decided at t is the state's latest */
		const unsigned pi = (unsigned)(w.state & 1u) ^ pbest;
		const int32_t pgamma = w.gamma - (pi ? ptm1 : ptm0);

		if (pgamma < w.T) {
			w.T -= delta;
			w.i = 0;
			return ST_STAYED;
		}
		w.depth = t;
		if ((t >> 6) != w.pwi) { /* back into the word before: it is in memory */
			w.pwi = t >> 6;
			w.pw = w.path[(size_t)w.pwi * w.stride];
		}
		w.pw &= ~(1ull << (t & 63)); /* no longer decided */
		w.best = pbest;
		w.i = pi;
		w.state = pstate;
		w.gamma = pgamma;
		w.tm0 = ptm0;
		w.tm1 = ptm1;
		if (w.depth < c.info_bits && w.i == 0) {
			w.i = 1;
			return ST_STAYED;
		}
	}
}

#endif
