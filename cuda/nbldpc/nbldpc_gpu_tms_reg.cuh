/*
 * The trellis min-sum check update for GF(64) in registers (included by nbldpc_gpu_tms.cu only):
 * codec/nbldpc/nbldpc_tms.c's steps 1-9 on one check, bit for bit, by one warp, with no shared
 * memory for the check in hand and no __syncwarp. Lane ln holds the values a = 2 ln and
 * 2 ln + 1 of every edge's message, so a symbol's 64 int16 costs are one 32-bit load a lane and an
 * edge's 64 uint8 messages one 16-bit load. The GF permutations of steps 3 and 8 are shuffles
 * from the lane holding the source value (its index from a 64 x 64 product table and the inverses
 * in shared memory); the XOR shifts of step 6 are __shfl_xor_sync by eta1 / 2 with the pair of
 * values swapped where eta1 is odd.
 *
 * Step 6 packs the per-edge values of one eta two edges to a 32-bit word, a 16-bit half each:
 * the edge's best single deviation v_e (m1 or m2, bits 0-7) and, one-hot, the edge it deviates
 * d_e (e1 or e2: bit 8 + d_e; none for e2 = 255, where v_e = 255 anyway). A candidate eta1 costs
 * three shuffles a word (its own word from lane eta1 / 2, and both values' eta ^ eta1 words from
 * lane ln ^ eta1 / 2) and, per value, one AND and one __viaddmin_u16x2 (min(T, v1 + v2) on both
 * halves, add.u16x2 and min.u16x2 on sm_90): AND-ing eta2's word with v1's word's one-hot bits
 * (and 0xff) leaves v2 where the deviations are on different edges and v2 + 2^(8 + d) >= 256 >
 * T where they are on the same edge, the CPU's skip. The value eta = 0 carries v = 255 on every
 * edge, so the pairs with eta2 = 0 (eta = eta1) leave T as it is too. Selection (step 5) and
 * step 6 are one loop: T is a minimum, so the order the candidates come in does not matter, and
 * a candidate is used as soon as the warp's minimum key finds it.
 *
 * D is the largest row degree the kernel takes (4 or 8, a multiple of 2): every per-edge loop
 * unrolls over D with the row's degree as a uniform bound.
 */
#ifndef NBLDPC_GPU_TMS_REG_CUH
#define NBLDPC_GPU_TMS_REG_CUH

#include "nbldpc_gpu.cuh"

#define TMS_REG_Q      64
#define TMS_REG_TABLES (TMS_REG_Q * TMS_REG_Q + TMS_REG_Q) /* shared bytes: products, inverses */

/* The product table mul[h * 64 + a] = h a and the inverses inv[h] = 1 / h (inv[0] = 0) of
 * GF(64), filled by the block's threads from the field's tables ex, lg: a / h is
 * mul[inv[h] * 64 + a]. */
__device__ static void tms_reg_tables(const uint8_t *ex, const uint8_t *lg, uint8_t *mul,
                                      uint8_t *inv)
{
	for (unsigned i = threadIdx.x; i < TMS_REG_Q * TMS_REG_Q; i += blockDim.x)
		mul[i] = (uint8_t)nbgpu_mul(ex, lg, i / TMS_REG_Q, i % TMS_REG_Q);
	for (unsigned h = threadIdx.x; h < TMS_REG_Q; h += blockDim.x)
		inv[h] = h ? (uint8_t)nbgpu_div(ex, lg, TMS_REG_Q, 1, h) : 0;
}

/* Value idx of a message held two values a lane (byte idx & 1 of lane idx / 2's x), to every
 * lane: each lane names its own idx. */
__device__ __forceinline__ unsigned tms_reg_byte(unsigned x, unsigned idx)
{
	return (__shfl_sync(0xffffffffu, x, (int)(idx >> 1)) >> ((idx & 1) * 8)) & 0xffu;
}

/* Asks for the cache line at p to be brought into L2. */
__device__ __forceinline__ void tms_reg_prefetch(const void *p)
{
	asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/* The next check's P and R lines toward L2 while check r computes, a line a lane (a hint: the
 * loads there read whatever this check writes; the last check's next is row 0). */
__device__ __forceinline__ void tms_reg_prefetch_next(const struct nbgpu_code &c, const int16_t *P,
                                                      const uint8_t *R, uint32_t r, unsigned ln)
{
	const uint32_t rn = r + 1 < c.m ? r + 1 : 0, f0 = c.row_start[rn];
	const uint32_t fd = c.row_start[rn + 1] - f0;

	if (ln < fd)
		tms_reg_prefetch(P + (size_t)c.row_col[f0 + ln] * TMS_REG_Q);
	else if (ln >= 16 && ln - 16 < fd)
		tms_reg_prefetch(R + (size_t)(f0 + ln - 16) * TMS_REG_Q);
}

/* Check r of the frame whose P (n x 64 int16) and R (nnz x 64 uint8) are given: in device
 * memory (PF: the next check's lines are prefetched to L2) or shared memory. */
template <int D, bool PF>
__device__ static void tms_reg_check(const struct nbgpu_code &c, const uint8_t *mul,
                                     const uint8_t *inv, int16_t *P, uint8_t *R, uint32_t r,
                                     unsigned ln)
{
	constexpr unsigned FULLM = 0xffffffffu;
	constexpr int NW = D / 2;
	const uint32_t e0 = c.row_start[r], deg = c.row_start[r + 1] - e0;
	const uint32_t mycol = ln < deg ? c.row_col[e0 + ln] : 0;
	const unsigned myh = ln < deg ? c.row_val[e0 + ln] : 0;
	uint32_t x[D], pw[D], rw[D];
	unsigned h[D], z[D], qp[D], beta = 0;
	int w[D][2];

	/* the row's variables and coefficients, and every edge's P and R, loaded at once */
#pragma unroll
	for (int i = 0; i < D; i++) {
		x[i] = __shfl_sync(FULLM, mycol, i);
		h[i] = __shfl_sync(FULLM, myh, i);
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
	/* steps 1 and 2 */
#pragma unroll
	for (int i = 0; i < D; i++) {
		w[i][0] = w[i][1] = 0;
		qp[i] = 0;
		z[i] = 0;
		if (i >= (int)deg)
			continue;
		const int lo = (int)(int16_t)(pw[i] & 0xffffu) - (int)(rw[i] & 0xffu);
		const int hi = (int)(int16_t)(pw[i] >> 16) - (int)(rw[i] >> 8);
		const int mn = __reduce_min_sync(FULLM, min(lo, hi));

		w[i][0] = min(lo - mn, 32767);
		w[i][1] = min(hi - mn, 32767);
		qp[i] = (unsigned)min(w[i][0], 255) | (unsigned)min(w[i][1], 255) << 8;
		const unsigned b0 = __ballot_sync(FULLM, w[i][0] == 0);
		const unsigned b1 = __ballot_sync(FULLM, w[i][1] == 0);
		const unsigned l = __ffs(b0 | b1) - 1;
		const unsigned a = 2 * l + ((b0 >> l) & 1u ? 0u : 1u);

		z[i] = mul[h[i] * TMS_REG_Q + a];
		beta ^= z[i];
	}
	/* steps 3 and 4: D_e(eta) = Q_e(eta ^ z_e) / h_e), from the lane holding that value */
	unsigned m1[2], m2[2], e1[2], e2[2];

#pragma unroll
	for (int s = 0; s < 2; s++) {
		m1[s] = m2[s] = 255;
		e1[s] = 0;
		e2[s] = 255;
	}
#pragma unroll
	for (int i = 0; i < D; i++) {
		if (i >= (int)deg)
			continue;
		const uint8_t *div_h = mul + inv[h[i]] * TMS_REG_Q; /* a / h_e = div_h[a] */

#pragma unroll
		for (int s = 0; s < 2; s++) {
			const unsigned eta = 2 * ln + s;
			const unsigned v = tms_reg_byte(qp[i], div_h[eta ^ z[i]]);

			if (v < m1[s]) {
				m2[s] = m1[s];
				e2[s] = e1[s];
				m1[s] = v;
				e1[s] = (unsigned)i;
			} else if (v < m2[s]) {
				m2[s] = v;
				e2[s] = (unsigned)i;
			}
		}
	}
	/* steps 5 and 6: each edge's v | one-hot d << 8, two edges a word; T likewise */
	uint32_t uw[2][NW], t[2][NW];
	unsigned key[2];

#pragma unroll
	for (int s = 0; s < 2; s++) {
		const unsigned eta = 2 * ln + s;

#pragma unroll
		for (int j = 0; j < NW; j++) {
			uw[s][j] = 0;
			t[s][j] = 0x00ff00ffu;
#pragma unroll
			for (int hb = 0; hb < 2; hb++) {
				const unsigned i = 2 * j + hb;
				const unsigned v = eta == 0 ? 255u : e1[s] != i ? m1[s] : m2[s];
				const unsigned d = e1[s] != i ? e1[s] : e2[s];

				uw[s][j] |= (v | (d < 8 ? 256u << d : 0u)) << (16 * hb);
			}
		}
		key[s] = eta == 0 ? ~0u : m1[s] << 8 | eta;
	}
	const unsigned nsel = c.dev2 < TMS_REG_Q - 1 ? c.dev2 : TMS_REG_Q - 1;

	for (unsigned k = 0; k < nsel; k++) {
		const unsigned lk = __reduce_min_sync(FULLM, min(key[0], key[1]));

		/* a candidate with m1 = 255 (and all after it) lowers no T: v1 + v2 >= 255 */
		if (lk >> 8 >= 255)
			break;
		key[0] = key[0] == lk ? ~0u : key[0];
		key[1] = key[1] == lk ? ~0u : key[1];
		const unsigned eta1 = lk & 0xffu, src = eta1 >> 1, odd = eta1 & 1u;

#pragma unroll
		for (int j = 0; j < NW; j++) {
			/* value 2 ln' + odd of lane ln' = ln ^ src is eta ^ eta1 for eta = 2 ln */
			const uint32_t su = odd ? uw[1][j] : uw[0][j],
			               ou = odd ? uw[0][j] : uw[1][j];
			const uint32_t u1 = __shfl_sync(FULLM, su, (int)src);
			const uint32_t u20 = __shfl_xor_sync(FULLM, su, (int)src);
			const uint32_t u21 = __shfl_xor_sync(FULLM, ou, (int)src);
			const uint32_t v1 = u1 & 0x00ff00ffu,
			               keep = (u1 & 0xff00ff00u) | 0x00ff00ffu;

			t[0][j] = __viaddmin_u16x2(v1, u20 & keep, t[0][j]);
			t[1][j] = __viaddmin_u16x2(v1, u21 & keep, t[1][j]);
		}
	}
	/* steps 7-9, edge by edge */
#pragma unroll
	for (int i = 0; i < D; i++) {
		if (i >= (int)deg)
			continue;
		const unsigned shift = beta ^ z[i];
		unsigned o[2], rn[2];
		int pv[2];

#pragma unroll
		for (int s = 0; s < 2; s++) {
			const unsigned eta = 2 * ln + s;
			const unsigned v = e1[s] != (unsigned)i ? m1[s] : m2[s];
			const unsigned best = min(v, (t[s][i / 2] >> (16 * (i & 1))) & 0xffffu);

			o[s] = eta == 0 ? 0u : best > c.offset ? best - c.offset : 0u;
		}
		const unsigned op = o[0] | o[1] << 8;

#pragma unroll
		for (int s = 0; s < 2; s++) {
			const unsigned a = 2 * ln + s;

			rn[s] = tms_reg_byte(op, mul[h[i] * TMS_REG_Q + a] ^ shift);
			pv[s] = min(w[i][s] + (int)rn[s], 32767);
		}
		const int mn = __reduce_min_sync(FULLM, min(pv[0], pv[1]));

		((uint32_t *)(P + (size_t)x[i] * TMS_REG_Q))[ln] =
		    (uint32_t)(pv[0] - mn) | (uint32_t)(pv[1] - mn) << 16;
		((uint16_t *)(R + (size_t)(e0 + i) * TMS_REG_Q))[ln] =
		    (uint16_t)(rn[0] | rn[1] << 8);
	}
}

#endif
