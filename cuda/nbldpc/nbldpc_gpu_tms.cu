/*
 * The trellis min-sum decoder (algo=tms) on the GPU: codec/nbldpc/nbldpc_tms.c's steps, bit for
 * bit, one warp per frame. Layered decoding takes the checks in order, so a frame's checks run one
 * after another on its warp; frames run side by side on the warps of every block. A warp's lane
 * ln holds values a = v * 32 + ln (v < V = max(1, q / 32)); lanes past q (q < 32) idle. The
 * frame's a-posteriori costs P (int16) and check messages R (uint8) live in the workspace (L1/L2
 * resident for BeiDou-sized codes); each warp has a slice of shared memory for the check in hand:
 * the edges' 8-bit messages Q and 16-bit W, the per-value minima m1, m2, e1, e2, the new message
 * o, the candidate list S and the z_e. The XOR shifts and GF products of steps 3, 6 and 8 are
 * indexed reads of those slices. Integer arithmetic throughout, so the result is the CPU's
 * exactly; soft output is float (expf, logf) and agrees to rounding.
 *
 * Two check updates. GF(64) codes with rows of at most 8 edges (every BeiDou code, the seed's
 * GF64 sizes) take the register check (two values a lane, GF permutations and XOR shifts as
 * shuffles, step 6 in 16-bit pairs; no shared memory for the check and no __syncwarp) in one of
 * three forms: nbldpc_gpu_tms_reg.cuh, nbldpc_gpu_tms_reg2.cuh (rows of 5-8) and
 * nbldpc_gpu_tms_reg3.cuh (rows of 4, the default); every other code the shared-memory check
 * below (tms_check). Where such a GF(64) frame's P, R and decision fit a block's shared memory
 * (B1C: 56 kB), the chip kernel keeps them there, a block a frame: the checks of a stage
 * (nbgpu_code.sched_row: no two share a variable) run on its warps at once, a barrier between
 * stages. FECD_TMS_KERNEL in the environment picks a kernel (tms_choose), to compare them on one
 * card. NBLDPC_GPU.md has the arithmetic against 4 Gb/s.
 */
#include <stdlib.h>
#include <string.h>

#include "nbldpc_gpu_tms.h"
#include "nbldpc_gpu_tms_reg.cuh"
#include "nbldpc_gpu_tms_reg2.cuh"
#include "nbldpc_gpu_tms_reg3.cuh"

#define TMS_WARPS     4   /* warps (frames) per block */
#define GF_SMEM_BYTES 768 /* the field's exponent (512) and logarithm (256) tables */
#define FULL          0xffffffffu

/* The per-warp shared slice of a code, in bytes, with its parts' offsets. */
struct tms_slice {
	size_t qs, wsm, m1, m2, e1, e2, os, sel, zs, bytes;
};

__host__ __device__ static inline size_t align16(size_t v)
{
	return (v + 15) & ~(size_t)15;
}

__host__ __device__ static inline struct tms_slice tms_slice_of(const struct nbgpu_code &c)
{
	struct tms_slice s;
	const size_t q = c.q, d = c.max_row_deg;

	s.qs = 0;
	s.wsm = align16(d * q);
	s.m1 = s.wsm + align16(d * q * 2);
	s.m2 = s.m1 + align16(q);
	s.e1 = s.m2 + align16(q);
	s.e2 = s.e1 + align16(q);
	s.os = s.e2 + align16(q);
	s.sel = s.os + align16(q);
	s.zs = s.sel + align16(q);
	s.bytes = s.zs + align16(d);
	return s;
}

/* A frame's workspace: P (n q int16), R (nnz q uint8), the hard decision (n). */
static size_t tms_ws_bytes(const struct nbgpu_code &c)
{
	return (((size_t)c.n * c.q * 2 + (size_t)c.nnz * c.q + c.n) + 255) & ~(size_t)255;
}

/* Smallest of a warp's unsigned values. */
__device__ __forceinline__ unsigned wmin(unsigned x)
{
	return __reduce_min_sync(FULL, x);
}

/* The register check of form F (1: nbldpc_gpu_tms_reg.cuh, 2: nbldpc_gpu_tms_reg2.cuh, 3:
 * nbldpc_gpu_tms_reg3.cuh; NS: dev2 fixed at compile time, forms 2 and 3) on check r. */
template <int D, int F, int NS, bool PF>
__device__ __forceinline__ void tms_reg_any(const struct nbgpu_code &c, const uint8_t *mul,
                                            const uint8_t *inv, int16_t *P, uint8_t *R, uint32_t r,
                                            unsigned ln)
{
	if constexpr (F == 1)
		tms_reg_check<D, PF>(c, mul, inv, P, R, r, ln);
	else if constexpr (F == 2)
		tms_reg2_check<D, NS, PF>(c, mul, inv, P, R, r, ln);
	else
		tms_reg3_check<D, NS, PF>(c, mul, inv, P, R, r, ln);
}

/* The channel costs of symbol x as nbldpc_coder.c forms tms's (map_in_s8_i16, or map_in_cost
 * then costs_to_i16): lane's values to P. */
template <int Q>
__device__ static void tms_prior(const struct nbgpu_code &c, const struct gpu_batch &b, uint32_t f,
                                 uint32_t x, unsigned ln, int16_t *P)
{
	constexpr int V = Q >= 32 ? Q / 32 : 1;
	const char *slot = (const char *)b.in + (size_t)f * b.in_stride;
	int cost[V];
	unsigned lmin = ~0u;

	if (c.in == FEC_IN_F32_SYMLOGP) {
		const float *in = (const float *)slot + (size_t)x * Q;
		const float sc = c.llr_scale;
		float mx = -INFINITY;

#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned a = v * 32 + ln;

			if (a < Q && in[a] > mx)
				mx = in[a];
		}
#pragma unroll
		for (int d = 16; d >= 1; d >>= 1)
			mx = fmaxf(mx, __shfl_xor_sync(FULL, mx, d));
#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned a = v * 32 + ln;
			const float t = a < Q ? (mx - in[a]) * sc : 0.0f;

			cost[v] = t < (float)NBLDPC_COST_MAX ? __float2int_rn(t) : NBLDPC_COST_MAX;
			if (a < Q)
				lmin = min(lmin, (unsigned)cost[v]);
		}
		lmin = wmin(lmin);
#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned a = v * 32 + ln;

			if (a < Q)
				P[(size_t)x * Q + a] = (int16_t)min(cost[v] - (int)lmin, 32767);
		}
		return;
	}
	/* bit LLRs: the sum of |LLR| over the bits where a differs from the bitwise decision */
	int llr[8];

	for (unsigned t = 0; t < c.p; t++) {
		const size_t i = (size_t)x * c.p + t;

		if (c.in == FEC_IN_F32_LLR) {
			float v = ((const float *)slot)[i] * c.llr_scale;

			v = isfinite(v) ? v : 0.0f;
			v = v > 1e4f ? 1e4f : v < -1e4f ? -1e4f : v;
			llr[t] = __float2int_rn(v);
		} else {
			llr[t] = ((const int8_t *)slot)[i];
		}
	}
#pragma unroll
	for (int v = 0; v < V; v++) {
		const unsigned a = v * 32 + ln;
		int s = 0;

		for (unsigned t = 0; t < c.p; t++)
			s += ((a >> c.bit_shift[t]) & 1u) ? max(llr[t], 0) : max(-llr[t], 0);
		if (a < Q)
			P[(size_t)x * Q + a] = (int16_t)min(s, 32767);
	}
}

/* One check, steps 1-9 of nbldpc_tms.c. */
template <int Q>
__device__ static void tms_check(const struct nbgpu_code &c, const uint8_t *ex, const uint8_t *lg,
                                 uint8_t *sl, const struct tms_slice &so, int16_t *P, uint8_t *R,
                                 uint32_t r, unsigned ln)
{
	constexpr int V = Q >= 32 ? Q / 32 : 1;
	uint8_t *qs = sl + so.qs, *m1s = sl + so.m1, *m2s = sl + so.m2, *e1s = sl + so.e1;
	uint8_t *e2s = sl + so.e2, *os = sl + so.os, *sel = sl + so.sel, *zs = sl + so.zs;
	int16_t *wsm = (int16_t *)(sl + so.wsm);
	const uint32_t e0 = c.row_start[r], deg = c.row_start[r + 1] - e0;
	unsigned nsel = c.dev2 < Q - 1 ? c.dev2 : Q - 1;
	unsigned m1[V], m2[V], e1[V], e2[V], key[V], beta = 0;

	/* steps 1 and 2 */
	for (uint32_t i = 0; i < deg; i++) {
		const uint32_t e = e0 + i, x = c.row_col[e];
		const unsigned h = c.row_val[e];
		int w[V];
		unsigned lmin = ~0u, az = Q;

#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned a = v * 32 + ln;

			w[v] = a < Q ? P[(size_t)x * Q + a] - R[(size_t)e * Q + a] : 0;
			if (a < Q)
				lmin = min(lmin, (unsigned)(w[v] + 256)); /* w >= -255 */
		}
		const int mn = (int)wmin(lmin) - 256;

#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned a = v * 32 + ln;
			const int wv = min(w[v] - mn, 32767);
			const unsigned zero = __ballot_sync(FULL, a < Q && wv == 0);

			if (a < Q) {
				wsm[i * Q + a] = (int16_t)wv;
				qs[i * Q + a] = (uint8_t)min(wv, 255);
			}
			if (zero && az == Q)
				az = v * 32 + __ffs(zero) - 1;
		}
		const unsigned z = nbgpu_mul(ex, lg, h, az);

		if (ln == 0)
			zs[i] = (uint8_t)z;
		beta ^= z;
	}
	__syncwarp();
	/* steps 3 and 4 */
#pragma unroll
	for (int v = 0; v < V; v++) {
		m1[v] = 255;
		m2[v] = 255;
		e1[v] = 0;
		e2[v] = 255;
	}
	for (uint32_t i = 0; i < deg; i++) {
		const unsigned h = c.row_val[e0 + i], z = zs[i];

#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned eta = v * 32 + ln;
			const unsigned d =
			    eta < Q ? qs[i * Q + nbgpu_div(ex, lg, Q, eta ^ z, h)] : 255;

			if (d < m1[v]) {
				m2[v] = m1[v];
				e2[v] = e1[v];
				m1[v] = d;
				e1[v] = i;
			} else if (d < m2[v]) {
				m2[v] = d;
				e2[v] = i;
			}
		}
	}
	/* step 5: keys m1 << 8 | eta; each minimum found is taken out */
#pragma unroll
	for (int v = 0; v < V; v++) {
		const unsigned eta = v * 32 + ln;

		if (eta < Q) {
			m1s[eta] = (uint8_t)m1[v];
			m2s[eta] = (uint8_t)m2[v];
			e1s[eta] = (uint8_t)e1[v];
			e2s[eta] = (uint8_t)e2[v];
		}
		key[v] = eta == 0 || eta >= Q ? ~0u : m1[v] << 8 | eta;
	}
	for (unsigned k = 0; k < nsel; k++) {
		unsigned lk = ~0u;

#pragma unroll
		for (int v = 0; v < V; v++)
			lk = min(lk, key[v]);
		lk = wmin(lk);
		/* a candidate with m1 = 255 (and all after it) lowers no T: v1 + v2 saturates */
		if (lk >> 8 == 255) {
			nsel = k;
			break;
		}
#pragma unroll
		for (int v = 0; v < V; v++)
			if (key[v] == lk)
				key[v] = ~0u;
		if (ln == 0)
			sel[k] = (uint8_t)(lk & 0xff);
	}
	__syncwarp();
	/* steps 6-9, edge by edge */
	for (uint32_t i = 0; i < deg; i++) {
		const uint32_t e = e0 + i, x = c.row_col[e];
		const unsigned h = c.row_val[e], shift = beta ^ zs[i];
		unsigned t[V], lmin = ~0u;
		int pv[V];

#pragma unroll
		for (int v = 0; v < V; v++)
			t[v] = 255;
		for (unsigned k = 0; k < nsel; k++) {
			const unsigned eta1 = sel[k];
			const bool own1 = e1s[eta1] == i;
			const unsigned v1 = own1 ? m2s[eta1] : m1s[eta1];
			const unsigned d1 = own1 ? e2s[eta1] : e1s[eta1];

#pragma unroll
			for (int v = 0; v < V; v++) {
				const unsigned eta = v * 32 + ln, eta2 = eta ^ eta1;

				if (eta >= Q || eta == 0 || eta == eta1)
					continue;
				const bool own2 = e1s[eta2] == i;
				const unsigned v2 = own2 ? m2s[eta2] : m1s[eta2];
				const unsigned d2 = own2 ? e2s[eta2] : e1s[eta2];

				if (d2 != d1)
					t[v] = min(t[v], min(v1 + v2, 255u));
			}
		}
#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned eta = v * 32 + ln;
			const unsigned best = min(e1[v] != i ? m1[v] : m2[v], t[v]);

			if (eta < Q)
				os[eta] =
				    eta == 0 ? 0 : (uint8_t)(best > c.offset ? best - c.offset : 0);
		}
		__syncwarp();
#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned a = v * 32 + ln;

			if (a < Q) {
				const unsigned rn = os[nbgpu_mul(ex, lg, h, a) ^ shift];

				R[(size_t)e * Q + a] = (uint8_t)rn;
				pv[v] = min(wsm[i * Q + a] + (int)rn, 32767);
				lmin = min(lmin, (unsigned)pv[v]);
			}
		}
		lmin = wmin(lmin);
#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned a = v * 32 + ln;

			if (a < Q)
				P[(size_t)x * Q + a] = (int16_t)(pv[v] - (int)lmin);
		}
		__syncwarp(); /* os is rewritten by the next edge */
	}
}

/* The hard decision (the first value of cost 0) and whether it satisfies every check. */
template <int Q>
__device__ static bool tms_decide(const struct nbgpu_code &c, const uint8_t *ex, const uint8_t *lg,
                                  const int16_t *P, uint8_t *hard, unsigned ln)
{
	unsigned bad = 0;

	for (uint32_t x = ln; x < c.n; x += 32) {
		unsigned a = 0;

		while (a < Q - 1 && P[(size_t)x * Q + a] != 0)
			a++;
		hard[x] = (uint8_t)a;
	}
	__syncwarp();
	for (uint32_t r = ln; r < c.m; r += 32) {
		unsigned s = 0;

		for (uint32_t e = c.row_start[r]; e < c.row_start[r + 1]; e++)
			s ^= nbgpu_mul(ex, lg, c.row_val[e], hard[c.row_col[e]]);
		bad |= s != 0;
	}
	return !__any_sync(FULL, bad);
}

/* The largest of the values whose index has (a & msk) == want, over the warp. */
template <int Q>
__device__ static float tms_maxsel(const float (&val)[Q >= 32 ? Q / 32 : 1], unsigned ln,
                                   unsigned msk, unsigned want)
{
	constexpr int V = Q >= 32 ? Q / 32 : 1;
	float mx = -INFINITY;

#pragma unroll
	for (int v = 0; v < V; v++) {
		const unsigned a = v * 32 + ln;

		if (a < Q && (a & msk) == want)
			mx = fmaxf(mx, val[v]);
	}
#pragma unroll
	for (int d = 16; d >= 1; d >>= 1)
		mx = fmaxf(mx, __shfl_xor_sync(FULL, mx, d));
	return mx;
}

/* log of the sum of exp(val) over the values a with (a & msk) == want (nbldpc_coder.c). */
template <int Q>
__device__ static float tms_logsumexp(const float (&val)[Q >= 32 ? Q / 32 : 1], unsigned ln,
                                      unsigned msk, unsigned want)
{
	constexpr int V = Q >= 32 ? Q / 32 : 1;
	const float mx = tms_maxsel<Q>(val, ln, msk, want);
	float s = 0.0f;

#pragma unroll
	for (int v = 0; v < V; v++) {
		const unsigned a = v * 32 + ln;

		if (a < Q && (a & msk) == want)
			s += expf(val[v] - mx);
	}
#pragma unroll
	for (int d = 16; d >= 1; d >>= 1)
		s += __shfl_xor_sync(FULL, s, d);
	return mx + logf(s);
}

/* Soft output of information symbol i, as nbldpc_coder.c: costs to log-likelihoods, normalised,
 * as they are (sym) or as bit LLRs: the max-log ones, as the CPU gives for cost decoders, whose
 * sign is always the decided symbol's bit. */
template <int Q>
__device__ static void tms_soft(const struct nbgpu_code &c, const struct gpu_batch &b, uint32_t f,
                                const int16_t *P, uint32_t i, unsigned ln)
{
	constexpr int V = Q >= 32 ? Q / 32 : 1;
	const uint32_t x = c.info_cols[i];
	float *o = b.soft + (size_t)f * b.soft_stride;
	float val[V];

#pragma unroll
	for (int v = 0; v < V; v++) {
		const unsigned a = v * 32 + ln;

		val[v] = a < Q ? -(float)P[(size_t)x * Q + a] / c.llr_scale : 0.0f;
	}
	const float norm = tms_logsumexp<Q>(val, ln, 0, 0);

#pragma unroll
	for (int v = 0; v < V; v++)
		val[v] -= norm;
	if (!c.soft_bit) {
#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned a = v * 32 + ln;

			if (a < Q)
				o[(size_t)i * Q + a] = val[v];
		}
		return;
	}
	for (unsigned t = 0; t < c.p; t++) {
		const unsigned m = 1u << c.bit_shift[t];
		const float l0 = tms_maxsel<Q>(val, ln, m, 0);
		const float l1 = tms_maxsel<Q>(val, ln, m, m);

		if (ln == 0)
			o[(size_t)i * c.p + t] = l0 - l1;
	}
}

/* D = 0: the check in shared memory (tms_check, every q); D = 4 or 8 (q = 64, rows of at most D
 * edges): the check in registers of form F with NS (tms_reg_any). MINB: blocks an SM the
 * registers are held to (8: 64 registers, 32 warps an SM; "reg,lb8" in FECD_TMS_KERNEL). */
template <int Q, int D, int F, int NS, int MINB = 1>
__global__ void __launch_bounds__(TMS_WARPS * 32, MINB)
    nbldpc_tms_kernel(const struct nbgpu_code c, const struct gpu_batch b, char *ws,
                      size_t ws_frame)
{
	extern __shared__ float4 smem4[];
	uint8_t *ex = (uint8_t *)smem4, *lg = ex + 512;
	const struct tms_slice so = tms_slice_of(c);
	const unsigned ln = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	const uint32_t slot = blockIdx.x * nw + wid;
	uint8_t *sl = ex + GF_SMEM_BYTES + (size_t)wid * so.bytes;
	uint8_t *mul = ex + GF_SMEM_BYTES, *inv = mul + TMS_REG_Q * TMS_REG_Q; /* D > 0 */
	int16_t *P = (int16_t *)(ws + (size_t)slot * ws_frame);
	uint8_t *R = (uint8_t *)(P + (size_t)c.n * Q), *hard = R + (size_t)c.nnz * Q;

	for (unsigned i = threadIdx.x; i < 512; i += blockDim.x)
		ex[i] = c.gf_exp[i];
	for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)
		lg[i] = c.gf_log[i];
	if constexpr (D > 0) {
		__syncthreads();
		tms_reg_tables(ex, lg, mul, inv);
	}
	__syncthreads();

	for (uint32_t f = slot; f < b.count; f += gridDim.x * nw) {
		struct fec_job *job = &b.jobs[f];
		const bool usable = job->in_len == c.in_syms && job->head_len == 0;
		unsigned it = 0;
		bool ok = false;

		__syncwarp();
		if (!usable) {
			if (ln == 0)
				nbgpu_job_ok(c, job);
			continue;
		}
		for (uint32_t x = 0; x < c.n; x++)
			tms_prior<Q>(c, b, f, x, ln, P);
		for (size_t i = ln; i < (size_t)c.nnz * Q; i += 32)
			R[i] = 0;
		__syncwarp();
		while (it < c.max_iters) {
			it++;
			for (uint32_t r = 0; r < c.m; r++)
				if constexpr (D > 0)
					tms_reg_any<D, F, NS, true>(c, mul, inv, P, R, r, ln);
				else
					tms_check<Q>(c, ex, lg, sl, so, P, R, r, ln);
			__syncwarp();
			if (!c.early_stop && it < c.max_iters)
				continue;
			for (uint32_t x = 0; D > 0 && F >= 2 && x < c.n; x++)
				tms_reg2_norm(P, x, ln); /* forms 2 and 3 leave P unnormalised */
			__syncwarp();
			ok = tms_decide<Q>(c, ex, lg, P, hard, ln);
			if (ok && c.early_stop)
				break;
		}
		if (it == 0)
			ok = tms_decide<Q>(c, ex, lg, P, hard, ln);
		__syncwarp();
		nbgpu_out_bits(c, b, f, hard, ln, 32);
		if (b.soft)
			for (uint32_t i = 0; i < c.k; i++)
				tms_soft<Q>(c, b, f, P, i, ln);
		if (ln == 0)
			nbgpu_job_done(c, b, job, it, ok);
	}
}

/* ---- The frame on chip (GF(64), rows of at most 8, P, R and the decision in shared memory) */

#define TMS_CHIP_WARPS     8 /* warps a block (a frame a block); 4 with FECD_TMS_KERNEL=chip4 */
#define TMS_CHIP_WARPS_MAX 8

/* Byte offsets in the chip kernel's shared memory: after the field's tables and the register
 * check's, P (n 64 int16), R (nnz 64 uint8), the hard decision (n), and in the flow form the
 * columns' update counts (n uint16); and the total. */
__host__ __device__ static inline size_t tms_chip_p(void)
{
	return align16(GF_SMEM_BYTES + TMS_REG_TABLES);
}

__host__ __device__ static inline size_t tms_chip_bytes(const struct nbgpu_code &c, bool flow)
{
	return tms_chip_p() + (size_t)c.n * TMS_REG_Q * 2 + (size_t)c.nnz * TMS_REG_Q +
	       align16(c.n) + (flow ? align16((size_t)c.n * 2) : 0);
}

/* The flow form's wait before check r of iteration it (from 0): until every column of the row
 * has had the updates of every check before r in row order (the row's turn, edge_turn), so
 * that the check reads what the serial order would have it read. The lanes of the row's edges
 * poll their column's count; the fence keeps the check's reads of P and R after the wait. */
__device__ __forceinline__ void tms_flow_wait(const struct nbgpu_code &c,
                                              const volatile uint16_t *cnt, uint32_t r, unsigned it,
                                              unsigned ln, uint32_t *x, unsigned *want)
{
	const uint32_t e0 = c.row_start[r], deg = c.row_start[r + 1] - e0;

	*x = 0;
	*want = 0;
	if (ln < deg) {
		const uint32_t t = c.edge_turn[e0 + ln];

		*x = c.row_col[e0 + ln];
		*want = (it * (t >> 16) + (t & 0xffffu)) & 0xffffu;
	}
	while (__any_sync(FULL, ln < deg && cnt[*x] != *want))
		__nanosleep(32);
	__threadfence_block();
}

/* After the check: its writes of P and R visible to the block, then its columns' counts one up. */
__device__ __forceinline__ void tms_flow_done(const struct nbgpu_code &c, volatile uint16_t *cnt,
                                              uint32_t r, unsigned ln, uint32_t x, unsigned want)
{
	__syncwarp();
	__threadfence_block();
	if (ln < c.row_start[r + 1] - c.row_start[r])
		cnt[x] = (uint16_t)(want + 1);
}

/* The hard decision (the first value of cost 0) and whether it satisfies every check, by the
 * block; every thread gets the answer. */
__device__ static bool tms_chip_decide(const struct nbgpu_code &c, const uint8_t *mul,
                                       const int16_t *P, uint8_t *hard)
{
	int bad = 0;

	for (uint32_t x = threadIdx.x; x < c.n; x += blockDim.x) {
		unsigned a = 0;

		while (a < TMS_REG_Q - 1 && P[(size_t)x * TMS_REG_Q + a] != 0)
			a++;
		hard[x] = (uint8_t)a;
	}
	__syncthreads();
	for (uint32_t r = threadIdx.x; r < c.m; r += blockDim.x) {
		unsigned sy = 0;

		for (uint32_t e = c.row_start[r]; e < c.row_start[r + 1]; e++)
			sy ^= mul[c.row_val[e] * TMS_REG_Q + hard[c.row_col[e]]];
		bad |= sy != 0;
	}
	return __syncthreads_or(bad) == 0;
}

/* A frame a block: P, R and the decision in shared memory, the checks of one stage (c.sched_row)
 * on the block's warps at once, a barrier between stages. The checks of a stage share no
 * variable and each waits for every earlier check it shares one with, so the result is the
 * serial order's, bit for bit. FLOW: no barriers between stages; warp w takes checks w, w + nw,
 * ... of sched_row in turn, each after its columns' earlier updates (tms_flow_wait), so that
 * a warp goes on to its next check while others finish a stage. No deadlock: the earliest check
 * (iteration, place in sched_row) not done is its warp's next and waits for none. */
template <int D, int F, int NS, bool FLOW>
__global__ void __launch_bounds__(TMS_CHIP_WARPS_MAX * 32)
    nbldpc_tms_chip_kernel(const struct nbgpu_code c, const struct gpu_batch b)
{
	extern __shared__ float4 smem4[];
	uint8_t *ex = (uint8_t *)smem4, *lg = ex + 512;
	uint8_t *mul = ex + GF_SMEM_BYTES, *inv = mul + TMS_REG_Q * TMS_REG_Q;
	int16_t *P = (int16_t *)(ex + tms_chip_p());
	uint8_t *R = (uint8_t *)(P + (size_t)c.n * TMS_REG_Q),
	        *hard = R + (size_t)c.nnz * TMS_REG_Q;
	uint16_t *cnt = (uint16_t *)(hard + align16(c.n)); /* FLOW */
	const unsigned ln = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;

	for (unsigned i = threadIdx.x; i < 512; i += blockDim.x)
		ex[i] = c.gf_exp[i];
	for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)
		lg[i] = c.gf_log[i];
	__syncthreads();
	tms_reg_tables(ex, lg, mul, inv);

	for (uint32_t f = blockIdx.x; f < b.count; f += gridDim.x) {
		struct fec_job *job = &b.jobs[f];
		unsigned it = 0;
		bool ok = false;

		__syncthreads(); /* the tables; the last frame's readers of P and hard are done */
		const bool usable = job->in_len == c.in_syms && job->head_len == 0;
		__syncthreads();
		if (!usable) {
			if (threadIdx.x == 0)
				nbgpu_job_ok(c, job);
			continue;
		}
		for (uint32_t x = wid; x < c.n; x += nw)
			tms_prior<TMS_REG_Q>(c, b, f, x, ln, P);
		for (uint32_t i = threadIdx.x; i < c.nnz * (TMS_REG_Q / 4); i += blockDim.x)
			((uint32_t *)R)[i] = 0;
		for (uint32_t x = threadIdx.x; FLOW && x < c.n; x += blockDim.x)
			cnt[x] = 0;
		__syncthreads();
		while (it < c.max_iters) {
			it++;
			for (uint32_t j = wid; FLOW && j < c.m; j += nw) {
				const uint32_t r = c.sched_row[j];
				uint32_t fx;
				unsigned want;

				if constexpr (F == 3 && D == 4) { /* the row's tables read once */
					tms_reg3_flow<D, NS>(c, mul, inv, P, R, r, it - 1, cnt, ln);
					continue;
				}
				tms_flow_wait(c, cnt, r, it - 1, ln, &fx, &want);
				tms_reg_any<D, F, NS, false>(c, mul, inv, P, R, r, ln);
				tms_flow_done(c, cnt, r, ln, fx, want);
			}
			if (FLOW && (c.early_stop || it == c.max_iters))
				__syncthreads(); /* the iteration's checks done: the decision may
				                    read P */
			for (uint32_t st = 0; !FLOW && st < c.nstage; st++) {
				const uint32_t j1 = c.stage_start[st + 1];

				for (uint32_t j = c.stage_start[st] + wid; j < j1; j += nw)
					tms_reg_any<D, F, NS, false>(c, mul, inv, P, R,
					                             c.sched_row[j], ln);
				__syncthreads();
			}
			if (!c.early_stop && it < c.max_iters)
				continue;
			if constexpr (F >= 2) { /* forms 2 and 3 leave P unnormalised */
				for (uint32_t x = wid; x < c.n; x += nw)
					tms_reg2_norm(P, x, ln);
				__syncthreads();
			}
			ok = tms_chip_decide(c, mul, P, hard);
			if (ok && c.early_stop)
				break;
		}
		if (it == 0)
			ok = tms_chip_decide(c, mul, P, hard);
		nbgpu_out_bits(c, b, f, hard, threadIdx.x, blockDim.x);
		if (b.soft)
			for (uint32_t i = wid; i < c.k; i += nw)
				tms_soft<TMS_REG_Q>(c, b, f, P, i, ln);
		if (threadIdx.x == 0)
			nbgpu_job_done(c, b, job, it, ok);
	}
}

/* ---- Launchers */

typedef void (*tms_kernel_t)(const struct nbgpu_code, const struct gpu_batch, char *, size_t);

/* The register check's variant: D (4 or 8: the longest row; 0: the shared-memory check), form
 * (1: nbldpc_gpu_tms_reg.cuh, 2: nbldpc_gpu_tms_reg2.cuh, 3: nbldpc_gpu_tms_reg3.cuh) and ns
 * (dev2 unrolled, 0: not), and
 * the chip kernel's warps a block (0: the frame in device memory). */
struct tms_variant {
	int d, form, ns, chip_warps;
	bool flow; /* the chip kernel without barriers between stages */
	bool lb8;  /* the kernel in device memory held to 64 registers (dev2 unrolled only) */
};

/* Which kernel decodes the code. By default GF(64) codes with rows of at most 4 (and fewer than
 * 65536 variables) take the register check of form 3, rows of 5-8 that of form 2, with the frame
 * on chip (8 warps a block, the flow form for rows of at most 4) where it fits a block, dev2
 * unrolled where it is one of TMS_NS's values and rows have at most 4 edges; the rest the
 * shared-memory check. FECD_TMS_KERNEL in the environment may name another, to compare them on
 * one card: "smem" (the shared-memory check), "reg" (the register check with the frame in device
 * memory), "chip4" (on chip, 4 warps a block) or "chip8", each register one followed by ",v1"
 * (form 1, rows of 4 only), ",v2" (form 2), ",dyn" (dev2 not unrolled), ",bar" (on chip:
 * barriers between stages, not the flow form; form 2) or, in device memory with dev2 unrolled,
 * ",lb8" (64 registers, 8 blocks an SM; form 2) if wanted: "chip8,v1" is the kernel of before
 * form 2, "chip8,v2" the default of before form 3. */
#define TMS_NS(X) X(3) X(4) X(5) X(8)
static struct tms_variant tms_choose(const struct nbgpu_code &c, size_t smem_max)
{
	const char *env = getenv("FECD_TMS_KERNEL");
	const unsigned dev2 = c.dev2 < TMS_REG_Q - 1 ? c.dev2 : TMS_REG_Q - 1;
	struct tms_variant v = {0, 2, 0, 0, false, false};

	v.d = c.q != TMS_REG_Q ? 0 : c.max_row_deg <= 4 ? 4 : c.max_row_deg <= 8 ? 8 : 0;
	if (!v.d || (env && !strncmp(env, "smem", 4))) {
		v.d = 0;
		return v;
	}
	if (v.d == 4 && c.n < 65536 &&
	    !(env && (strstr(env, ",v2") || strstr(env, ",bar") || strstr(env, ",lb8"))))
		v.form = 3;
	if (env && strstr(env, ",v1") && v.d == 4)
		v.form = 1;
#define TMS_NS_PICK(N)                                                                             \
	if (v.form >= 2 && v.d == 4 && dev2 == (N) && !(env && strstr(env, ",dyn")))               \
		v.ns = (N);
	TMS_NS(TMS_NS_PICK)
#undef TMS_NS_PICK
	v.flow = (!(env && strstr(env, ",bar")) || v.form == 3) && v.form >= 2 && v.d == 4;
	if (!(env && !strncmp(env, "reg", 3)) && tms_chip_bytes(c, v.flow) <= smem_max)
		v.chip_warps = env && !strncmp(env, "chip4", 5) ? 4 : TMS_CHIP_WARPS;
	v.flow = v.flow && v.chip_warps;
	v.lb8 = env && strstr(env, ",lb8") && !v.chip_warps && v.ns && v.form == 2;
	return v;
}

typedef void (*tms_chip_kernel_t)(const struct nbgpu_code, const struct gpu_batch);

static tms_chip_kernel_t tms_chip_kernel(const struct tms_variant &v)
{
	if (v.d == 8)
		return nbldpc_tms_chip_kernel<8, 2, 0, false>;
	if (v.d != 4)
		return NULL;
	if (v.form == 1)
		return nbldpc_tms_chip_kernel<4, 1, 0, false>;
#define TMS_NS_CHIP(N)                                                                             \
	if (v.ns == (N) && v.form == 3)                                                            \
		return nbldpc_tms_chip_kernel<4, 3, (N), true>;                                    \
	if (v.ns == (N))                                                                           \
		return v.flow ? nbldpc_tms_chip_kernel<4, 2, (N), true>                            \
		              : nbldpc_tms_chip_kernel<4, 2, (N), false>;
	TMS_NS(TMS_NS_CHIP)
#undef TMS_NS_CHIP
	if (v.form == 3)
		return nbldpc_tms_chip_kernel<4, 3, 0, true>;
	return v.flow ? nbldpc_tms_chip_kernel<4, 2, 0, true>
	              : nbldpc_tms_chip_kernel<4, 2, 0, false>;
}

static tms_kernel_t tms_kernel(unsigned q, const struct tms_variant &v)
{
	if (q == TMS_REG_Q && v.d == 8)
		return nbldpc_tms_kernel<64, 8, 2, 0>;
	if (q == TMS_REG_Q && v.d == 4) {
		if (v.form == 1)
			return nbldpc_tms_kernel<64, 4, 1, 0>;
#define TMS_NS_DEV(N)                                                                              \
	if (v.ns == (N) && v.form == 3)                                                            \
		return nbldpc_tms_kernel<64, 4, 3, (N)>;                                           \
	if (v.ns == (N))                                                                           \
		return v.lb8 ? nbldpc_tms_kernel<64, 4, 2, (N), 8>                                 \
		             : nbldpc_tms_kernel<64, 4, 2, (N)>;
		TMS_NS(TMS_NS_DEV)
#undef TMS_NS_DEV
		return v.form == 3 ? nbldpc_tms_kernel<64, 4, 3, 0>
		                   : nbldpc_tms_kernel<64, 4, 2, 0>;
	}
	switch (q) {
	case 2:
		return nbldpc_tms_kernel<2, 0, 0, 0>;
	case 4:
		return nbldpc_tms_kernel<4, 0, 0, 0>;
	case 8:
		return nbldpc_tms_kernel<8, 0, 0, 0>;
	case 16:
		return nbldpc_tms_kernel<16, 0, 0, 0>;
	case 32:
		return nbldpc_tms_kernel<32, 0, 0, 0>;
	case 64:
		return nbldpc_tms_kernel<64, 0, 0, 0>;
	case 128:
		return nbldpc_tms_kernel<128, 0, 0, 0>;
	case 256:
		return nbldpc_tms_kernel<256, 0, 0, 0>;
	}
	return NULL;
}

bool nbgpu_tms_supports(const struct fec_spec *spec)
{
	return spec->family == FECD_FAMILY_NBLDPC && spec->u.nbldpc.algo == NBLDPC_ALGO_TMS;
}

int nbgpu_tms_prepare(const struct nbgpu_code *c, const struct fecd_cuda_device *dev,
                      struct nbgpu_shape *sh, bool *ok)
{
	const size_t smem_max =
	    dev->smem_per_block_optin ? dev->smem_per_block_optin : (size_t)48 << 10;
	const struct tms_variant v = tms_choose(*c, smem_max);
	const int d = v.d, chip_warps = v.chip_warps;
	const bool chip = chip_warps > 0;
	const tms_kernel_t k = tms_kernel(c->q, v);
	const void *kf = chip ? (const void *)tms_chip_kernel(v) : (const void *)k;
	/* shared memory past the field's tables: a slice a warp, or the register check's tables */
	const size_t slice = d ? 0 : tms_slice_of(*c).bytes, tables = d ? TMS_REG_TABLES : 0;
	const size_t ws_cap =
	    dev->mem_total / 16 > ((size_t)256 << 20) ? dev->mem_total / 16 : (size_t)256 << 20;
	struct cudaFuncAttributes fa;
	int warps = chip ? chip_warps : TMS_WARPS, per_sm = 0;
	cudaError_t e;

	*ok = false;
	if (!k || !kf)
		return (int)cudaErrorInvalidValue;
	while (!chip && warps > 1 && GF_SMEM_BYTES + tables + warps * slice > smem_max)
		warps--;
	if (!chip && GF_SMEM_BYTES + tables + warps * slice > smem_max)
		return (int)cudaSuccess;
	sh->groups = warps;
	sh->threads = warps * 32;
	sh->smem = chip ? tms_chip_bytes(*c, v.flow) : GF_SMEM_BYTES + tables + warps * slice;
	sh->tms_d = d;
	sh->tms_form = v.form;
	sh->tms_ns = v.ns;
	sh->tms_flow = v.flow;
	sh->tms_lb8 = v.lb8;
	sh->tms_chip = chip;
	e = cudaFuncSetAttribute(kf, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh->smem);
	if (e == cudaSuccess)
		e = cudaFuncGetAttributes(&fa, kf);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kf, sh->threads,
		                                                  sh->smem);
	if (e != cudaSuccess)
		return (int)e;
	sh->blocks_per_sm = per_sm > 0 ? per_sm : 1;
	sh->regs = fa.numRegs;
	if (chip) { /* frames in flight: a block each, nothing in the workspace */
		sh->ws_per_frame = 0;
		sh->grid = dev->sm_count * sh->blocks_per_sm;
		*ok = true;
		return (int)cudaSuccess;
	}
	sh->ws_per_frame = tms_ws_bytes(*c);
	/* grid: frames in flight (a warp each) */
	sh->grid = dev->sm_count * sh->blocks_per_sm * warps;
	while (sh->grid > dev->sm_count * warps && (size_t)sh->grid * sh->ws_per_frame > ws_cap)
		sh->grid -= dev->sm_count * warps;
	*ok = true;
	return (int)cudaSuccess;
}

int nbgpu_tms_launch(const struct nbgpu_code *c, const struct nbgpu_shape *sh,
                     const struct gpu_batch *b, void *ws, cudaStream_t s)
{
	const struct tms_variant v = {sh->tms_d,    sh->tms_form, sh->tms_ns,
	                              sh->tms_chip, sh->tms_flow, sh->tms_lb8};
	const tms_kernel_t k = tms_kernel(c->q, v);
	const uint32_t frames = b->count < (uint32_t)sh->grid ? b->count : (uint32_t)sh->grid;
	const int warps = sh->threads / 32;

	if (sh->tms_chip) {
		const tms_chip_kernel_t kc = tms_chip_kernel(v);

		if (!kc)
			return (int)cudaErrorInvalidValue;
		kc<<<(int)frames, sh->threads, sh->smem, s>>>(*c, *b);
		return (int)cudaGetLastError();
	}
	if (!k)
		return (int)cudaErrorInvalidValue;
	k<<<(int)((frames + warps - 1) / warps), sh->threads, sh->smem, s>>>(*c, *b, (char *)ws,
	                                                                     sh->ws_per_frame);
	return (int)cudaGetLastError();
}
