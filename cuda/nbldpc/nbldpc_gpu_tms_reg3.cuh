/*
 * The trellis min-sum check update for GF(64) in registers, third form (included by
 * nbldpc_gpu_tms.cu only): form 2's result (nbldpc_gpu_tms_reg2.cuh, which is
 * codec/nbldpc/nbldpc_tms.c's steps 1-9 bit for bit, step 9's normalisation deferred) in fewer
 * instructions on the integer ALU pipe, the pipe that bounds form 2 (NBLDPC_GPU.md, "tms toward
 * 4 Gb/s"). Same lane layout (values 2 ln and 2 ln + 1 in the 16-bit halves of a register); what
 * changes:
 *  - the candidate loop (steps 5-6): a lane's two keys m1 << 8 | eta (16 bits each) travel in one
 *    word, the smaller in the high half, so that one reduction finds the warp's smallest key and
 *    the lane holding it, and taking it out is a compare and a select (form 2: a minimum, two
 *    compares and two selects); the candidate's parity is a warp-uniform branch between two
 *    copies of the pair step instead of two selects a word; its value-only and keep words are
 *    shuffled from its lane ready-made (one more shuffle, two fewer ALU operations a word). The
 *    source lane is the key shifted (a shuffle reads the lane index's low 5 bits only);
 *  - byte permutes with a computed selector are prmt.b32 as they stand (tms3_prmt): __byte_perm
 *    masks its selector to 3 bits a nibble first, one more ALU operation a permute;
 *  - a row's variable, coefficient and the coefficient's inverse travel in one word: one shuffle
 *    an edge and no inverse lookup an edge (the lane of each edge looks its own up), which needs
 *    variables below 65536 (tms_choose checks n);
 *  - steps 1-2's key is W + 255 in the high half and the value below; step 6's words are formed
 *    once from m1 and from m2 and picked per edge by m1's one-hot edge bit; step 7 works on step
 *    6's value-only words, two edges a word;
 *  - in the chip kernel's flow form (tms_reg3_flow) the row's tables are read once for the
 *    wait, the check and the count.
 * Everything else is form 2's, step for step: the comments there say why each step gives the
 * CPU's values.
 */
#ifndef NBLDPC_GPU_TMS_REG3_CUH
#define NBLDPC_GPU_TMS_REG3_CUH

#include "nbldpc_gpu_tms_reg2.cuh"

/* prmt.b32 with the selector as given (bit 3 of a nibble would replicate the chosen byte's sign:
 * every selector here leaves it clear). The host form serves a host-side transcription. */
__device__ __forceinline__ uint32_t tms3_prmt(uint32_t a, uint32_t b, uint32_t s)
{
#if defined(__CUDA_ARCH__)
	uint32_t d;

	asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(s));
	return d;
#else
	const uint64_t v = (uint64_t)b << 32 | a;
	uint32_t d = 0;

	for (int i = 0; i < 4; i++) {
		const unsigned n = (s >> (4 * i)) & 0xfu;
		uint32_t byte = (uint32_t)(v >> (8 * (n & 7u))) & 0xffu;

		if (n & 8u)
			byte = byte & 0x80u ? 0xffu : 0u;
		d |= byte << (8 * i);
	}
	return d;
#endif
}

/* The step-6 word of keys D << 4 | e in 16-bit halves: D | (1 << e) << 8 a half (the one-hot
 * from a byte table of 1 << e, selected by the edge fields). */
__device__ __forceinline__ uint32_t tms3_word(uint32_t m)
{
	const uint32_t sel = ((m << 4) & 0xf0u) | ((m >> 4) & 0xf000u); /* bytes 1, 3: 1 << e */

	return ((m >> 4) & 0x00ff00ffu) | (tms3_prmt(0x08040201u, 0x80402010u, sel) & 0xff00ff00u);
}

/* x & m and x | m, kept where they are written: the compiler would otherwise recompute the
 * candidate loop's value-only and keep words in each candidate (two ALU operations a word and
 * candidate, which is what form 3 takes out). */
__device__ __forceinline__ uint32_t tms3_and(uint32_t x, uint32_t m)
{
#if defined(__CUDA_ARCH__)
	uint32_t d;

	asm volatile("and.b32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(m));
	return d;
#else
	return x & m;
#endif
}

__device__ __forceinline__ uint32_t tms3_or(uint32_t x, uint32_t m)
{
#if defined(__CUDA_ARCH__)
	uint32_t d;

	asm volatile("or.b32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(m));
	return d;
#else
	return x | m;
#endif
}

/* Step 6 for a candidate eta1 in lane src (its value-only words uv and keep words uk there; ODD:
 * eta1 is odd, so value 2 ln pairs with value 2 (ln ^ src) + 1 and 2 ln + 1 with 2 (ln ^ src)):
 * T = min(T, v1 + v2) where the deviations are on different edges (form 2's tms_reg2_pair). */
template <int NW, bool ODD>
__device__ __forceinline__ void tms_reg3_pair(unsigned src, const uint32_t (&uv)[2][NW],
                                              const uint32_t (&uk)[2][NW],
                                              const uint32_t (&uw)[2][NW], uint32_t (&t)[2][NW])
{
	constexpr unsigned FULLM = 0xffffffffu;

#pragma unroll
	for (int j = 0; j < NW; j++) {
		const uint32_t v1 = __shfl_sync(FULLM, uv[ODD][j], (int)src);
		const uint32_t keep = __shfl_sync(FULLM, uk[ODD][j], (int)src);
		const uint32_t u20 = __shfl_xor_sync(FULLM, uw[ODD][j], (int)src);
		const uint32_t u21 = __shfl_xor_sync(FULLM, uw[!ODD][j], (int)src);

		t[0][j] = __viaddmin_u16x2(v1, u20 & keep, t[0][j]);
		t[1][j] = __viaddmin_u16x2(v1, u21 & keep, t[1][j]);
	}
}

/* The candidates, smallest key first, for at most nsel of them: kp holds the lane's keys left
 * (high half the smaller; 0xffff: none). False where the loop ran out of candidates that could
 * lower a T (m1 = 255). */
template <int NW>
__device__ __forceinline__ bool tms_reg3_next(uint32_t &kp, const uint32_t (&uv)[2][NW],
                                              const uint32_t (&uk)[2][NW],
                                              const uint32_t (&uw)[2][NW], uint32_t (&t)[2][NW])
{
	const uint32_t lk = __reduce_min_sync(0xffffffffu, kp);

	if (lk >= 0xff000000u) /* m1 = 255, or no key left */
		return false;
	kp = kp == lk ? kp << 16 | 0xffffu : kp; /* the one lane whose smaller key it is */
	if (lk & 0x10000u)
		tms_reg3_pair<NW, true>(lk >> 17, uv, uk, uw, t);
	else
		tms_reg3_pair<NW, false>(lk >> 17, uv, uk, uw, t);
	return true;
}

/* The row's word a lane (lanes below deg, the row's edges from e0): the edge's variable (bits
 * 16-31), the coefficient's inverse (8-15) and the coefficient (0-7). */
__device__ __forceinline__ uint32_t tms_reg3_mine(const struct nbgpu_code &c, const uint8_t *inv,
                                                  uint32_t e0, uint32_t deg, unsigned ln)
{
	if (ln >= deg)
		return 0;
	const unsigned hv = c.row_val[e0 + ln];

	return c.row_col[e0 + ln] << 16 | (uint32_t)inv[hv] << 8 | hv;
}

/* Check r, whose edges are e0 .. e0 + deg - 1 and whose words a lane are mine (tms_reg3_mine).
 * FR: deg is D (the caller has checked), so that no per-edge loop tests the degree. */
template <int D, int NS, bool PF, bool FR>
__device__ static void tms_reg3_row(const struct nbgpu_code &c, const uint8_t *mul, int16_t *P,
                                    uint8_t *R, uint32_t r, uint32_t e0, uint32_t degr,
                                    uint32_t mine, unsigned ln)
{
	constexpr unsigned FULLM = 0xffffffffu;
	constexpr int NW = D / 2;
	const uint32_t deg = FR ? D : degr;
	uint32_t x[D], pw[D], rw[D], w[D], qw[D];
	/* the lane's word of a symbol's costs and half-word of an edge's message */
	uint32_t *Pl = (uint32_t *)P + ln;
	uint16_t *Rl = (uint16_t *)R + ln;
	unsigned h[D], hinv[D], z[D], beta2 = 0; /* beta2: beta in both bytes of a half */

#pragma unroll
	for (int i = 0; i < D; i++) {
		const uint32_t xh = __shfl_sync(FULLM, mine, i);

		x[i] = xh >> 16;
		h[i] = xh & 0xffu;
		hinv[i] = (xh >> 8) & 0xffu;
		pw[i] = 0;
		rw[i] = 0;
		if (i < (int)deg) {
			pw[i] = Pl[(size_t)x[i] * (TMS_REG_Q / 2)];
			rw[i] = Rl[(size_t)(e0 + i) * (TMS_REG_Q / 2)];
		}
	}
	if (PF) {
		tms_reg_prefetch_next(c, P, R, r, ln);
	}
	/* steps 1 and 2: W = min(P - R - min, 32767) in halves; Q << 4 | edge. The key of a value
	 * is W + 255 in the high half and the value in the low (one multiply-add for the low value,
	 * one mask for the high: W + 255 < 65536 as P <= 32767), so the warp's smallest key gives
	 * the minimum and the first value reaching it, as form 2's */
	const uint32_t aodd = 2 * ln + 1;

#pragma unroll
	for (int i = 0; i < D; i++) {
		w[i] = qw[i] = z[i] = 0;
		if (i >= (int)deg)
			continue;
		const uint32_t wp = pw[i] + (0x00ff00ffu - __byte_perm(rw[i], 0, 0x4140));
		const uint32_t klo = wp * 0x10000u + 2 * ln, khi = (wp & 0xffff0000u) | aodd;
		const uint32_t k = __reduce_min_sync(FULLM, min(klo, khi));

		w[i] = tms2_min(wp - (k >> 16) * 0x10001u, 0x7fff7fffu);
		qw[i] = tms2_min(w[i], 0x00ff00ffu) * 16u + (uint32_t)i * 0x10001u;
		z[i] = mul[h[i] * TMS_REG_Q + (k & 63u)];
		beta2 ^= z[i] * 0x101u;
	}
	/* steps 3 and 4: keys D_e(eta) << 4 | e, the two smallest (m1, m2) for each value */
	uint32_t m1 = 0x0ff70ff7u, m2 = 0x0ff70ff7u;

#pragma unroll
	for (int i = 0; i < D; i++) {
		if (i >= (int)deg)
			continue;
		const uint8_t *dv = mul + hinv[i] * TMS_REG_Q; /* a / h_e = dv[a] */
		const uint32_t u = tms3_prmt(*(const uint16_t *)(dv + 2 * (ln ^ (z[i] >> 1))), 0,
		                             0x3210u ^ (z[i] & 1u) * 0x11u);
		const uint32_t g0 = __shfl_sync(FULLM, qw[i], (int)(u >> 1));
		const uint32_t g1 = __shfl_sync(FULLM, qw[i], (int)(u >> 9));
		const uint32_t kk = tms3_prmt(g0, g1, (u & 0x101u) * 0x22u + 0x5410u);
		const uint32_t hi = tms2_max(m1, kk);

		m1 = tms2_min(m1, kk);
		m2 = tms2_min(m2, hi);
	}
	/* steps 5 and 6: each edge's v | one-hot d << 8 (m1's unless e1 is the edge, else m2's):
	 * both words formed once (a1 from m1, a2 from m2), then an edge's is a1 with a2's halves
	 * where a1's one-hot bit of the edge is set; regrouped two edges a word for each value as
	 * in form 2, with the value-only and keep words of each */
	const uint32_t a1 = tms3_word(m1), a2 = tms3_word(m2), ax = a1 ^ a2;
	uint32_t uw[2][NW], uv[2][NW], uk[2][NW], t[2][NW], uu[D];

#pragma unroll
	for (int i = 0; i < D; i++) {
		uu[i] = 0;
		if (i >= (int)deg)
			continue;
		const uint32_t own = ((a1 >> (8 + i)) & 0x00010001u) * 0xffffu; /* e1 = i */

		uu[i] = a1 ^ (ax & own);
	}
#pragma unroll
	for (int j = 0; j < NW; j++) {
		/* no guard on the value 0 (form 2 sets its v to 255): it pairs only with eta =
		 * eta1, whose T it lowers at most to v(eta1) + v(0) >= v(eta1), which step 7's
		 * min(v, T) already has, and with itself (eta = 0) on the same edge, which the mask
		 * excludes */
		uw[0][j] = __byte_perm(uu[2 * j], uu[2 * j + 1], 0x5410u);
		uw[1][j] = __byte_perm(uu[2 * j], uu[2 * j + 1], 0x7632u);
#pragma unroll
		for (int s = 0; s < 2; s++) {
			uv[s][j] = tms3_and(uw[s][j], 0x00ff00ffu);
			uk[s][j] = tms3_or(uw[s][j], 0x00ff00ffu);
		}
		t[0][j] = t[1][j] = 0x00ff00ffu;
	}
	{
		const uint32_t k0 = ln == 0 ? 0xffffu : (m1 & 0xff0u) << 4 | 2 * ln;
		const uint32_t k1 = (m1 >> 12 & 0xff00u) | (2 * ln + 1);
		uint32_t kp = min(k0, k1) << 16 | max(k0, k1);

		if constexpr (NS > 0) {
#pragma unroll
			for (unsigned k = 0; k < NS; k++)
				if (!tms_reg3_next<NW>(kp, uv, uk, uw, t))
					break;
		} else {
			const unsigned nsel = c.dev2 < TMS_REG_Q - 1 ? c.dev2 : TMS_REG_Q - 1;

#pragma unroll 1
			for (unsigned k = 0; k < nsel; k++)
				if (!tms_reg3_next<NW>(kp, uv, uk, uw, t))
					break;
		}
	}
	/* step 7 in the words of step 6 (v is the value-only word): o = max(min(v, T) - offset,
	 * 0), two edges a word for each value */
	const uint32_t negoff = ((0x10000u - c.offset) & 0xffffu) * 0x10001u;
	uint32_t ow[2][NW];

#pragma unroll
	for (int j = 0; j < NW; j++)
#pragma unroll
		for (int s = 0; s < 2; s++)
			ow[s][j] = __viaddmax_s16x2(tms2_min(uv[s][j], t[s][j]), negoff, 0);
	/* steps 8-9, edge by edge */
	const uint8_t *mul2 = mul + 2 * ln; /* the lane's pair of a product table row */

#pragma unroll
	for (int i = 0; i < D; i++) {
		if (i >= (int)deg)
			continue;
		/* o(2 ln), o(2 ln + 1) of the edge as bytes 0 and 1 (2 and 3: a zero high byte) */
		const uint32_t op =
		    __byte_perm(ow[0][i / 2], ow[1][i / 2], i & 1 ? 0x1162u : 0x1140u);
		const uint32_t mh = *(const uint16_t *)(mul2 + h[i] * TMS_REG_Q);
		/* h a ^ beta ^ z_e for a = 2 ln, 2 ln + 1 */
		const uint32_t idx = mh ^ beta2 ^ z[i] * 0x101u;
		const uint32_t g0 = __shfl_sync(FULLM, op, (int)(idx >> 1));
		const uint32_t g1 = __shfl_sync(FULLM, op, (int)(idx >> 9));
		const uint32_t rn = tms3_prmt(g0, g1, 0x6420u | (idx & 0x101u));
		/* P = min(W + R, 32767), not normalised (form 2's deferral) */
		Pl[(size_t)x[i] * (TMS_REG_Q / 2)] = __viaddmin_u16x2(w[i], rn, 0x7fff7fffu);
		Rl[(size_t)(e0 + i) * (TMS_REG_Q / 2)] = (uint16_t)__byte_perm(rn, 0, 0x0020u);
	}
}

/* Check r, its tables read here. */
template <int D, int NS, bool PF>
__device__ __forceinline__ void tms_reg3_check(const struct nbgpu_code &c, const uint8_t *mul,
                                               const uint8_t *inv, int16_t *P, uint8_t *R,
                                               uint32_t r, unsigned ln)
{
	const uint32_t e0 = c.row_start[r], deg = c.row_start[r + 1] - e0;
	const uint32_t mine = tms_reg3_mine(c, inv, e0, deg, ln);

	if (deg == D)
		tms_reg3_row<D, NS, PF, true>(c, mul, P, R, r, e0, deg, mine, ln);
	else
		tms_reg3_row<D, NS, PF, false>(c, mul, P, R, r, e0, deg, mine, ln);
}

/* The chip kernel's flow form with form 3 (nbldpc_gpu_tms.cu's tms_flow_wait, the check and
 * tms_flow_done in one): the row's tables read once, before the wait, for all three. it: the
 * iteration from 0; cnt: the columns' update counts. */
template <int D, int NS>
__device__ __forceinline__ void
tms_reg3_flow(const struct nbgpu_code &c, const uint8_t *mul, const uint8_t *inv, int16_t *P,
              uint8_t *R, uint32_t r, unsigned it, volatile uint16_t *cnt, unsigned ln)
{
	const uint32_t e0 = c.row_start[r], deg = c.row_start[r + 1] - e0;
	const uint32_t mine = tms_reg3_mine(c, inv, e0, deg, ln);
	const uint32_t x = mine >> 16;
	unsigned want = 0;

	if (ln < deg) {
		const uint32_t t = c.edge_turn[e0 + ln];

		want = (it * (t >> 16) + (t & 0xffffu)) & 0xffffu;
	}
	while (__any_sync(0xffffffffu, ln < deg && cnt[x] != want))
		__nanosleep(32);
	__threadfence_block();
	if (deg == D)
		tms_reg3_row<D, NS, false, true>(c, mul, P, R, r, e0, deg, mine, ln);
	else
		tms_reg3_row<D, NS, false, false>(c, mul, P, R, r, e0, deg, mine, ln);
	__syncwarp();
	__threadfence_block();
	if (ln < deg)
		cnt[x] = (uint16_t)(want + 1);
}

#endif
