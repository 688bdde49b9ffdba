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

/* What a cycle (or a step of one) did: stayed (T lowered, or the node's other branch next),
 * moved forward, reached the end; ST_BACK: the forward move failed, a look back follows in the
 * same cycle; ST_MORE: moved back, and the cycle goes on with another step back. */
enum { ST_STAYED, ST_FORWARD, ST_END, ST_BACK, ST_MORE };

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

/* Shared memory by 32-bit address (the new kernels keep a thread's queue and window addresses in
 * registers: the compiler would recompute them from the thread index at every access). */
__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ uint32_t lds32(uint32_t a)
{
	uint32_t v;

	asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
	return v;
}

__device__ __forceinline__ uint2 lds64(uint32_t a)
{
	uint2 v;

	asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(a));
	return v;
}

__device__ __forceinline__ void sts32(uint32_t a, uint32_t v)
{
	asm volatile("st.shared.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
}

__device__ __forceinline__ void sts64(uint32_t a, uint32_t x, uint32_t y)
{
	asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(a), "r"(x), "r"(y) : "memory");
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

/* The same code word by parities (the new walkers, K > 8): bit r is the parity of the register's
 * taps of polynomial r, by population counts instead of ceil(K/8) dependent table reads. */
template <int N, typename S>
__device__ __forceinline__ unsigned code_word_popc(const struct fgpu_code &c, unsigned dir, S reg)
{
	unsigned w = 0;

#pragma unroll
	for (unsigned r = 0; r < (N ? N : 4); r++) {
		if (!N && r >= c.n)
			break;
		const unsigned p = sizeof(S) == 4 ? __popc((uint32_t)reg & (uint32_t)c.poly[dir][r])
		                                  : __popcll((uint64_t)reg & c.poly[dir][r]);

		w |= (p & 1u) << r;
	}
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

/* How a walker keeps its input window, context queue and path word (FECD_FANO_GPU_KERNEL picks;
 * FANO_GPU.md compares them): */
enum {
	/* last session's: a 20-byte window in five registers, reloaded by five 32-bit loads; the
	 * queue through a generic pointer; the path word's bit t at bit t % 64 */
	FGPU_V_REG = 0,
	/* UFA: a 32-byte window in shared memory (word j of thread x at row j, column x: no bank
	 * conflicts), reloaded by two 16-byte loads; the queue and window at 32-bit shared
	 * addresses kept in registers; the path word a shift register (the latest bit at bit 0:
	 * one 64-bit shift and an add per forward move, one shift per move back), bit-reversed
	 * into memory's order when it is stored */
	FGPU_V_UFA = 1,
	/* BFA: as FGPU_V_UFA, but the path word in memory's order (the other decoder reads it
	 * after every forward move) */
	FGPU_V_BFA = 2,
};

/* Rows of the shared-memory window (32 bytes a thread, and one row that a read of the last
 * word's successor may touch without using it). */
#define FGPU_WIN_ROWS 9

/* One search direction's walker, in registers. The path lives in the workspace (word w at
 * path[w * stride]) except the word being written, pw (word depth / 64), which goes to
 * memory when the walker moves past it (and after every forward move in BFA, where the other
 * decoder reads it). The input is read through a window that follows the walker (FGPU_V_REG: 20
 * bytes in win, five aligned 32-bit words from wofs; else 32 bytes in shared memory at wa, two
 * 16-byte aligned chunks from wofs). The context queue is in shared memory: entry j of this
 * thread at q[j * FGPU_THREADS] (shared address qa + 8 * FGPU_THREADS * j): x = the two sorted
 * branch metrics (16 bits each), y = the depth, which branch is better and the state or its
 * oldest input (queue_y: what a move back needs besides what it knows). */
template <typename S, int B, int V> struct fgpu_walker {
	unsigned dir;
	const int8_t *in;
	uint64_t *path;
	uint32_t stride;
	uint32_t depth;
	unsigned best, i;
	S state;          /* 32 bits where K <= 32 */
	int32_t gamma, T; /* int64 on the CPU; FANO_GPU.md shows both stay well inside int32 */
	int32_t tm0, tm1;
	uint64_t pw;   /* path word depth / 64 */
	uint32_t skew; /* the frame's first symbol's place in its aligned word (chunk) */
	uint32_t wofs; /* the window's first byte, from that word (a multiple of 4 (16)) */
	uint32_t win[5];
	uint2 *q;
	uint32_t qa, wa;
};

/* Whether the path word is a shift register (FGPU_V_UFA) or in memory's order. */
template <int V> __device__ __forceinline__ constexpr bool shift_path()
{
	return V == FGPU_V_UFA;
}

/* Path bit t of a walker (t < depth). */
template <typename S, int B, int V>
__device__ __forceinline__ unsigned walker_bit(const struct fgpu_walker<S, B, V> &w, uint32_t t)
{
	if ((t >> 6) == (w.depth >> 6))
		return (unsigned)(w.pw >> (shift_path<V>() ? w.depth - 1 - t : t & 63) & 1u);
	return path_bit(w.path, w.stride, t);
}

/* The word being written goes to memory, whole (in memory's order). */
template <typename S, int B, int V>
__device__ __forceinline__ void walker_flush(const struct fgpu_walker<S, B, V> &w)
{
	w.path[(size_t)(w.depth >> 6) * w.stride] = shift_path<V>() ? __brevll(w.pw) : w.pw;
}

/* The n symbols of stage `stage` as 4 bytes (symbol r in byte r), through the window. N: the
 * code's n where the kernel is built for one (0: c.n). */
template <int N, typename S, int B, int V>
__device__ __forceinline__ uint32_t stage_syms(const struct fgpu_code &c,
                                               struct fgpu_walker<S, B, V> &w, uint32_t stage)
{
	const unsigned n = N ? N : c.n;
	/* in bytes from the aligned word (chunk) that holds the frame's first symbol (32-bit
	 * offsets: an empty window's wofs is 2^31, so that every position is outside it) */
	const uint32_t pos = stage * n + w.skew;
	uint32_t off = pos - w.wofs;

	if (V != FGPU_V_REG) {
		/* a lane must reload when the stage is outside its window; where any lane of
		 * the warp does, the others whose window is used up to c.early bytes (16: the
		 * symbols in its second chunk, or, backward, in its first) reload too, as the
		 * warp runs the reload anyway: so that fewer of the warp's steps run it */
		const bool need = off > 32 - n;
		const bool early =
		    w.dir ? (int32_t)(off + n) <= 32 - (int32_t)c.early : off >= c.early;

		if (__any_sync(__activemask(), need) && (need || early)) {
			/* forward: the window starts at the symbols' chunk; backward: ends just
			 * after them */
			const uint8_t *base = (const uint8_t *)w.in - w.skew;
			const uint32_t end = c.frame_syms + w.skew;

			w.wofs = pos & ~15u;
			if (w.dir)
				w.wofs = pos + n >= 17 ? (pos + n - 17) & ~15u : 0;
			/* the first chunk starts at or before the symbols, inside the frame; the
			 * second, when it starts past the frame's end, is read from the first's
			 * place (its bytes are then never used) */
			const uint4 v0 = __ldg((const uint4 *)(base + w.wofs));
			const uint4 v1 = __ldg(
			    (const uint4 *)(base + (w.wofs + 16 < end ? w.wofs + 16 : w.wofs)));

			sts32(w.wa, v0.x);
			sts32(w.wa + 4 * FGPU_THREADS, v0.y);
			sts32(w.wa + 8 * FGPU_THREADS, v0.z);
			sts32(w.wa + 12 * FGPU_THREADS, v0.w);
			sts32(w.wa + 16 * FGPU_THREADS, v1.x);
			sts32(w.wa + 20 * FGPU_THREADS, v1.y);
			sts32(w.wa + 24 * FGPU_THREADS, v1.z);
			sts32(w.wa + 28 * FGPU_THREADS, v1.w);
			off = pos - w.wofs;
		}
		/* words off / 4 and the next (row 8 when off / 4 is 7: then no byte of it is
		 * used, as off <= 32 - n) */
		const uint32_t a = w.wa + (off >> 2) * (4 * FGPU_THREADS);

		return __funnelshift_r(lds32(a), lds32(a + 4 * FGPU_THREADS), off << 3);
	}
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
template <int N, typename S, int B, int V>
__device__ __forceinline__ void node_metrics(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                             struct fgpu_walker<S, B, V> &w, uint32_t t, S state,
                                             int32_t *tm0, int32_t *tm1, unsigned *best)
{
	const unsigned n = N ? N : c.n;
	const uint32_t syms = stage_syms<N>(c, w, w.dir ? c.stages - 1 - t : t);
	/* K <= 8 (UFA): the selectors straight from the register (one look-up, not two) */
	const uint2 sel = B == 1 ? sm.selreg[((uint32_t)state << 1) & 0xffu]
	                  : V != FGPU_V_REG
	                      ? sm.sel[w.dir][code_word_popc<N, S>(c, w.dir, state << 1)]
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

	if (V != FGPU_V_REG) { /* the same, the sort as a minimum and a maximum */
		const bool info = t < c.info_bits;

		*best = info && m1 > m0;
		*tm0 = info ? max(m0, m1) : m0;
		*tm1 = info ? min(m0, m1) : 0;
		return;
	}
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

/* Queue entry j of a walker (j < FGPU_QUEUE). */
template <typename S, int B, int V>
__device__ __forceinline__ uint2 queue_get(const struct fgpu_walker<S, B, V> &w, uint32_t j)
{
	if (V == FGPU_V_REG)
		return w.q[j * FGPU_THREADS];
	return lds64(w.qa + j * (8 * FGPU_THREADS));
}

template <typename S, int B, int V>
__device__ __forceinline__ void queue_put(const struct fgpu_walker<S, B, V> &w, uint32_t j,
                                          uint32_t x, uint32_t y)
{
	if (V == FGPU_V_REG)
		w.q[j * FGPU_THREADS] = make_uint2(x, y);
	else
		sts64(w.qa + j * (8 * FGPU_THREADS), x, y);
}

/* x as a value the compiler cannot recompute (it would rather recompute a thread's shared
 * addresses from its index at every access than keep them in registers). */
__device__ __forceinline__ uint32_t opaque(uint32_t x)
{
	asm("" : "+r"(x));
	return x;
}

/* Sets the walker's places in shared memory: its queue (q, FGPU_QUEUE rows of FGPU_THREADS
 * entries) and its window (win, FGPU_WIN_ROWS rows of FGPU_THREADS words; unused by
 * FGPU_V_REG). */
template <typename S, int B, int V>
__device__ __forceinline__ void walker_place(struct fgpu_walker<S, B, V> &w, uint2 *q,
                                             uint32_t *win)
{
	w.q = &q[threadIdx.x];
	w.qa = opaque(smem_addr(&q[threadIdx.x]));
	w.wa = opaque(smem_addr(&win[threadIdx.x]));
}

template <int N, typename S, int B, int V>
__device__ __forceinline__ void walker_start(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                             struct fgpu_walker<S, B, V> &w, uint32_t depth,
                                             unsigned i, S state, int32_t gamma, int32_t T)
{
	const uint32_t d = depth & 63;

	w.depth = depth;
	w.i = i;
	w.state = state;
	w.gamma = gamma;
	w.T = T;
	w.skew = (uint32_t)((uintptr_t)w.in & (V == FGPU_V_REG ? 3u : 15u));
	w.wofs = 0x80000000u; /* empty */
	/* the word's bits from the depth on are no longer decided (BFA's memory may hold them) */
	w.pw = 0;
	if (d) {
		const uint64_t m = w.path[(size_t)(depth >> 6) * w.stride];

		w.pw = shift_path<V>() ? __brevll(m) >> (64 - d) : m & ((1ull << d) - 1);
	}
	for (unsigned j = 0; j < FGPU_QUEUE; j++)
		queue_put(w, j, 0, 0xffffffffu);
	node_metrics<N>(c, sm, w, depth, state, &w.tm0, &w.tm1, &w.best);
}

/* Whether a queue entry holds the node's whole state (the new walker where K <= 8: y = depth << 9
 * | best << 8 | state) or only its oldest input (y = depth << 2 | best << 1 | that input; the
 * parent's state is then the child's shifted back with it). */
template <int B, int V> __device__ __forceinline__ constexpr bool whole_state()
{
	return B == 1 && V != FGPU_V_REG;
}

template <typename S, int B, int V>
__device__ __forceinline__ uint32_t queue_y(const struct fgpu_code &c,
                                            const struct fgpu_walker<S, B, V> &w)
{
	if (whole_state<B, V>())
		return w.depth << 9 | w.best << 8 | (uint32_t)w.state;
	return w.depth << 2 | w.best << 1 | (unsigned)(w.state >> (c.k - 2) & 1u);
}

/* A cycle's first part (fano_decode.c's cycle): the forward move if the branch being tried
 * keeps the metric at or above T, else ST_BACK. */
template <bool BFA, int N, typename S, int B, int V>
__device__ __forceinline__ int try_forward(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                           struct fgpu_walker<S, B, V> &w)
{
	const int32_t delta = c.delta;
	const int32_t ng = w.gamma + (w.i ? w.tm1 : w.tm0);
	const S smask = (S)c.smask;

	if (ng < w.T)
		return ST_BACK;
	const unsigned bit = w.best ^ w.i;

	/* the first visit's tightening, T raised by whole steps of delta to at most ng: where
	 * delta is a power of two (the presets' 32), by ng - T with its low bits cleared */
	if (V != FGPU_V_REG && c.delta_lowmask) {
		if (w.gamma < w.T + delta)
			w.T += (int32_t)((uint32_t)(ng - w.T) & ~c.delta_lowmask);
	} else if (w.gamma < w.T + delta && ng - w.T >= delta) {
		/* here 0 <= ng - T < delta + a branch's metric (< 2^17): the quotient from the
		 * float reciprocal is off by at most one, and corrected */
		const uint32_t x = (uint32_t)(ng - w.T);
		uint32_t q = __float2uint_rz(__uint2float_rn(x) * c.delta_inv);

		q -= q * (uint32_t)delta > x;
		q += (q + 1) * (uint32_t)delta <= x;
		w.T += (int32_t)q * delta;
	}
	queue_put(w, w.depth & (FGPU_QUEUE - 1), (uint32_t)(uint16_t)w.tm0 | (uint32_t)w.tm1 << 16,
	          queue_y(c, w));
	if (shift_path<V>())
		w.pw = w.pw << 1 | bit;
	else
		w.pw |= (uint64_t)bit << (w.depth & 63);
	if (BFA)
		walker_flush(w);
	w.state = (w.state << 1 | bit) & smask;
	w.gamma = ng;
	if (((w.depth + 1) & 63) == 0) {
		if (!BFA)
			walker_flush(w);
		w.pw = 0;
	}
	w.depth++;
	if (w.depth == c.stages)
		return ST_END;
	node_metrics<N>(c, sm, w, w.depth, w.state, &w.tm0, &w.tm1, &w.best);
	w.i = 0;
	return ST_FORWARD;
}

/* One step of a cycle's look back: ST_STAYED (the cycle ends: T lowered, or the node's other
 * branch is next) or ST_MORE (moved back; the cycle goes on with another step). */
template <int N, typename S, int B, int V>
__device__ __forceinline__ int back_step(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                         struct fgpu_walker<S, B, V> &w)
{
	S pstate;
	int32_t ptm0, ptm1;
	unsigned pbest;

	if (w.depth == 0) {
		w.T -= c.delta;
		w.i = 0;
		return ST_STAYED;
	}
	const uint32_t t = w.depth - 1;
	const uint2 e = queue_get(w, t & (FGPU_QUEUE - 1));

	if (e.y >> (whole_state<B, V>() ? 9 : 2) == t) {
		ptm0 = (int32_t)(int16_t)(e.x & 0xffffu);
		ptm1 = (int32_t)e.x >> 16;
		if (whole_state<B, V>()) {
			pbest = e.y >> 8 & 1u;
			pstate = (S)(e.y & 0xffu);
		} else {
			pbest = e.y >> 1 & 1u;
			pstate = w.state >> 1 | (S)(e.y & 1u) << (c.k - 2);
		}
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
		w.T -= c.delta;
		w.i = 0;
		return ST_STAYED;
	}
	if ((w.depth & 63) == 0) { /* back into the word before: in memory, whole */
		const uint64_t m = w.path[(size_t)(t >> 6) * w.stride];

		w.pw = shift_path<V>() ? __brevll(m) : m;
	}
	w.depth = t;
	/* bit t no longer decided */
	if (shift_path<V>())
		w.pw >>= 1;
	else
		w.pw &= ~(1ull << (t & 63));
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
	return ST_MORE;
}

/* One cycle of the search (fano_decode.c's cycle): ST_STAYED, ST_FORWARD or ST_END. */
template <bool BFA, int N, typename S, int B, int V>
__device__ __forceinline__ int cycle(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                     struct fgpu_walker<S, B, V> &w)
{
	int st = try_forward<BFA, N>(c, sm, w);

	while (st == ST_BACK || st == ST_MORE)
		st = back_step<N>(c, sm, w);
	return st;
}

#endif
