/*
 * The trellis min-sum check update for GF(64) in registers, second form (included by
 * nbldpc_gpu_tms.cu only): the same result as nbldpc_gpu_tms_reg.cuh (codec/nbldpc/nbldpc_tms.c's
 * steps 1-9, bit for bit) in fewer warp instructions, by keeping a lane's two values (a = 2 ln and
 * 2 ln + 1) side by side in the 16-bit halves of one register and using sm_90's 16x2 integer
 * instructions (min.u16x2 and max.u16x2 as tms2_min, tms2_max; __viaddmin_u16x2 and
 * __viaddmax_s16x2) and byte permutes (__byte_perm) instead of per-value compares and
 * selects. Per edge:
 *  - steps 1-2: W + 255 = P - R + 255 (both halves non-negative: one add), and the warp's
 *    minimum and its first value in one reduction of (W + 255) << 7 | a (the smallest key is the
 *    minimum with the smallest a): a_e without ballots;
 *  - steps 3-4: the two deviations' source values come from one 16-bit read of the division
 *    table (the pair eta ^ z_e of 2 ln, 2 ln + 1 is a pair of the table, swapped where z_e is
 *    odd), two shuffles and one byte permute whose selector is the sources' low bits; m1, e1, m2,
 *    e2 are kept as keys D << 4 | e in 16-bit halves, so the CPU's scan (strict <, edges
 *    upwards) is a sorting step of three 16x2 minima and maxima: the smallest key is (m1, e1),
 *    the second (m2, e2), ties going to the smaller edge as on the CPU;
 *  - step 6's words (v | one-hot edge << 8, the form nbldpc_gpu_tms_reg.cuh describes) from the
 *    keys with one permute whose selector is the edge fields (a byte table of 1 << e);
 *  - steps 7-9: the minimum of v and T, less the offset floored at 0 (one __viaddmax_s16x2: the
 *    value 0 comes out 0 by itself, m1(0) being 0), the GF product's gather as in steps 3-4, and
 *    P = min(W + R, 32767) by one __viaddmin_u16x2, left so: step 9's P -= min P is not done
 *    here. Every later use of P is unchanged by a constant per symbol (step 1 subtracts W's
 *    own minimum, saturating after it; step 9's cap is on W + R, which P does not enter), so
 *    the kernels normalise P only where it is read as costs (tms_reg2_norm: before each hard
 *    decision, which also leaves it normalised for soft output), bit for bit the CPU's.
 * NS > 0: dev2 is NS (at most 63), and the candidate loop unrolls; 0: dev2 from the code. Values
 * with cost 255 carry whatever edge the sort gives them (the CPU's e2 = 255): their sums saturate,
 * so no T changes either way.
 */
#ifndef NBLDPC_GPU_TMS_REG2_CUH
#define NBLDPC_GPU_TMS_REG2_CUH

#include "nbldpc_gpu_tms_reg.cuh"

/* Halfword minimum and maximum, unsigned: min.u16x2 and max.u16x2 of sm_90 (one instruction
 * there; __vminu2 / __vmaxu2 before it; the host form serves a host-side transcription of this
 * file). */
__device__ __forceinline__ uint32_t tms2_min(uint32_t a, uint32_t b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	uint32_t d;

	asm("min.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
#elif defined(__CUDA_ARCH__)
	return __vminu2(a, b);
#else
	return min(a & 0xffffu, b & 0xffffu) | min(a >> 16, b >> 16) << 16;
#endif
}

__device__ __forceinline__ uint32_t tms2_max(uint32_t a, uint32_t b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	uint32_t d;

	asm("max.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
#elif defined(__CUDA_ARCH__)
	return __vmaxu2(a, b);
#else
	return max(a & 0xffffu, b & 0xffffu) | max(a >> 16, b >> 16) << 16;
#endif
}

/* Step 6 for the next candidate eta1 (the smallest key left, taken out of key): T = min(T, v1 +
 * v2) on every value and edge where the two deviations are on different edges. False where no
 * candidate is left that could lower a T (m1 = 255). */
template <int NW>
__device__ __forceinline__ bool tms_reg2_pair(unsigned (&key)[2], const uint32_t (&uw)[2][NW],
                                              uint32_t (&t)[2][NW])
{
	constexpr unsigned FULLM = 0xffffffffu;
	const unsigned lk = __reduce_min_sync(FULLM, min(key[0], key[1]));

	if (lk >> 8 >= 255)
		return false;
	key[0] = key[0] == lk ? ~0u : key[0];
	key[1] = key[1] == lk ? ~0u : key[1];
	const unsigned eta1 = lk & 0xffu, src = eta1 >> 1, odd = eta1 & 1u;

#pragma unroll
	for (int j = 0; j < NW; j++) {
		/* value 2 ln' + odd of lane ln' = ln ^ src is eta ^ eta1 for eta = 2 ln */
		const uint32_t su = odd ? uw[1][j] : uw[0][j], ou = odd ? uw[0][j] : uw[1][j];
		const uint32_t u1 = __shfl_sync(FULLM, su, (int)src);
		const uint32_t u20 = __shfl_xor_sync(FULLM, su, (int)src);
		const uint32_t u21 = __shfl_xor_sync(FULLM, ou, (int)src);
		const uint32_t v1 = u1 & 0x00ff00ffu, keep = u1 | 0x00ff00ffu;

		t[0][j] = __viaddmin_u16x2(v1, u20 & keep, t[0][j]);
		t[1][j] = __viaddmin_u16x2(v1, u21 & keep, t[1][j]);
	}
	return true;
}

/* FR: the row has D edges (the caller has checked), so that no per-edge loop tests the degree. */
template <int D, int NS, bool PF, bool FR>
__device__ static void tms_reg2_row(const struct nbgpu_code &c, const uint8_t *mul,
                                    const uint8_t *inv, int16_t *P, uint8_t *R, uint32_t r,
                                    unsigned ln)
{
	constexpr unsigned FULLM = 0xffffffffu;
	constexpr int NW = D / 2;
	const uint32_t e0 = c.row_start[r], deg = FR ? D : c.row_start[r + 1] - e0;
	/* the edge's variable and coefficient in one word: one shuffle an edge below */
	const uint32_t mine = ln < deg ? c.row_col[e0 + ln] << 8 | c.row_val[e0 + ln] : 0;
	uint32_t x[D], pw[D], rw[D], w[D], qw[D], vv[D];
	unsigned h[D], z[D], beta = 0;

#pragma unroll
	for (int i = 0; i < D; i++) {
		const uint32_t xh = __shfl_sync(FULLM, mine, i);

		x[i] = xh >> 8;
		h[i] = xh & 0xffu;
		pw[i] = 0;
		rw[i] = 0;
		if (i < (int)deg) {
			pw[i] = ((const uint32_t *)(P + (size_t)x[i] * TMS_REG_Q))[ln];
			rw[i] = ((const uint16_t *)(R + (size_t)(e0 + i) * TMS_REG_Q))[ln];
		}
	}
	if (PF) {
		tms_reg_prefetch_next(c, P, R, r, ln);
	}
	/* steps 1 and 2: W = min(P - R - min, 32767) in halves; Q << 4 | edge for steps 3-4 */
#pragma unroll
	for (int i = 0; i < D; i++) {
		w[i] = qw[i] = z[i] = 0;
		if (i >= (int)deg)
			continue;
		const uint32_t wp = pw[i] + (0x00ff00ffu - __byte_perm(rw[i], 0, 0x4140));
		const uint32_t klo = (wp & 0xffffu) << 7 | 2 * ln,
		               khi = (wp >> 16) << 7 | (2 * ln + 1);
		const uint32_t k = __reduce_min_sync(FULLM, min(klo, khi));

		w[i] = tms2_min(wp - (k >> 7) * 0x10001u, 0x7fff7fffu);
		qw[i] = (tms2_min(w[i], 0x00ff00ffu) << 4) | (uint32_t)i * 0x10001u;
		z[i] = mul[h[i] * TMS_REG_Q + (k & 63u)];
		beta ^= z[i];
	}
	/* steps 3 and 4: keys D_e(eta) << 4 | e, the two smallest (m1, m2) for each value */
	uint32_t m1 = 0x0ff70ff7u, m2 = 0x0ff70ff7u;

#pragma unroll
	for (int i = 0; i < D; i++) {
		if (i >= (int)deg)
			continue;
		const uint8_t *dv = mul + inv[h[i]] * TMS_REG_Q; /* a / h_e = dv[a] */
		uint32_t u = *(const uint16_t *)(dv + 2 * (ln ^ (z[i] >> 1)));

		u = __byte_perm(u, 0,
		                z[i] & 1u ? 0x3201u : 0x3210u); /* sources of 2 ln, 2 ln + 1 */
		const uint32_t g0 = __shfl_sync(FULLM, qw[i], (int)(u >> 1));
		const uint32_t g1 = __shfl_sync(FULLM, qw[i], (int)(u >> 9));
		const uint32_t kk = __byte_perm(g0, g1, (u & 0x101u) * 0x22u + 0x5410u);
		const uint32_t hi = tms2_max(m1, kk);

		m1 = tms2_min(m1, kk);
		m2 = tms2_min(m2, hi);
	}
	/* steps 5 and 6: each edge's v | one-hot d << 8 (m1's unless e1 is the edge, else m2's),
	 * regrouped two edges a word for each value as nbldpc_gpu_tms_reg.cuh's step 6 takes them
	 */
	const uint32_t e1f = m1 & 0x000f000fu, z0 = ln == 0 ? 0xffu : 0u;
	uint32_t uw[2][NW], t[2][NW], uu[D];

#pragma unroll
	for (int i = 0; i < D; i++) {
		uu[i] = vv[i] = 0;
		if (i >= (int)deg)
			continue;
		const uint32_t y =
		    (e1f ^ (uint32_t)i * 0x10001u) + 0x7fff7fffu; /* bit 15: e1 != i */
		const uint32_t kk = tms2_min(m1 | (~y & 0x80008000u), m2);
		const uint32_t s2 = kk >> 4, sel = ((kk << 4) & 0x0fffu) | (s2 & 0xf000u);
		const uint32_t oh = __byte_perm(0x08040201u, 0x80402010u, sel);

		vv[i] = s2 & 0x00ff00ffu;
		uu[i] = vv[i] | (oh & 0xff00ff00u) | z0; /* the value 0: v = 255, never a pair */
	}
#pragma unroll
	for (int j = 0; j < NW; j++) {
		uw[0][j] = __byte_perm(uu[2 * j], uu[2 * j + 1], 0x5410u);
		uw[1][j] = __byte_perm(uu[2 * j], uu[2 * j + 1], 0x7632u);
		t[0][j] = t[1][j] = 0x00ff00ffu;
	}
	unsigned key[2] = {ln == 0 ? ~0u : (m1 & 0xff0u) << 4 | 2 * ln,
	                   (m1 >> 12 & 0xff00u) | (2 * ln + 1)};
	if constexpr (NS > 0) {
#pragma unroll
		for (unsigned k = 0; k < NS; k++)
			if (!tms_reg2_pair<NW>(key, uw, t))
				break;
	} else {
		const unsigned nsel = c.dev2 < TMS_REG_Q - 1 ? c.dev2 : TMS_REG_Q - 1;

#pragma unroll 1
		for (unsigned k = 0; k < nsel; k++)
			if (!tms_reg2_pair<NW>(key, uw, t))
				break;
	}
	/* steps 7-9, edge by edge */
	const uint32_t negoff = ((0x10000u - c.offset) & 0xffffu) * 0x10001u;

#pragma unroll
	for (int i = 0; i < D; i++) {
		if (i >= (int)deg)
			continue;
		const uint32_t tp =
		    __byte_perm(t[0][i / 2], t[1][i / 2], i & 1 ? 0x7632u : 0x5410u);
		const uint32_t o16 = __viaddmax_s16x2(tms2_min(vv[i], tp), negoff, 0);
		const uint32_t op =
		    __byte_perm(o16, 0, 0x4420u); /* o(2 ln), o(2 ln + 1) as bytes */
		const uint32_t mh = *(const uint16_t *)(mul + h[i] * TMS_REG_Q + 2 * ln);
		const uint32_t idx =
		    mh ^ (beta ^ z[i]) * 0x101u; /* h a ^ beta ^ z_e, a = 2 ln (+1) */
		const uint32_t g0 = __shfl_sync(FULLM, op, (int)(idx >> 1));
		const uint32_t g1 = __shfl_sync(FULLM, op, (int)(idx >> 9));
		const uint32_t rn = __byte_perm(g0, g1, 0x6420u | (idx & 0x101u));
		/* P = min(W + R, 32767), not normalised (see the top of the file) */
		((uint32_t *)(P + (size_t)x[i] * TMS_REG_Q))[ln] =
		    __viaddmin_u16x2(w[i], rn, 0x7fff7fffu);
		((uint16_t *)(R + (size_t)(e0 + i) * TMS_REG_Q))[ln] =
		    (uint16_t)__byte_perm(rn, 0, 0x0020u);
	}
}

/* P of symbol x less its minimum (what nbldpc_tms.c's step 9 leaves), by one warp. */
__device__ __forceinline__ void tms_reg2_norm(int16_t *P, uint32_t x, unsigned ln)
{
	uint32_t *p = (uint32_t *)(P + (size_t)x * TMS_REG_Q) + ln;
	const uint32_t v = *p;

	*p = v - __reduce_min_sync(0xffffffffu, min(v & 0xffffu, v >> 16)) * 0x10001u;
}

template <int D, int NS, bool PF>
__device__ __forceinline__ void tms_reg2_check(const struct nbgpu_code &c, const uint8_t *mul,
                                               const uint8_t *inv, int16_t *P, uint8_t *R,
                                               uint32_t r, unsigned ln)
{
	if (c.row_start[r + 1] - c.row_start[r] == D)
		tms_reg2_row<D, NS, PF, true>(c, mul, inv, P, R, r, ln);
	else
		tms_reg2_row<D, NS, PF, false>(c, mul, inv, P, R, r, ln);
}

#endif
