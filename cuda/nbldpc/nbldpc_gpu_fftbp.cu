/*
 * FFT belief propagation on the GPU, flooding, float32, in the probability or the (signed) log
 * domain, the same steps as codec/nbldpc/nbldpc_decode.c nbldpc__fftbp on every job of a batch.
 *
 * Shape: one thread block per frame in flight (frames across blocks; a block takes the next frame
 * when done), its threads in groups of L = min(q, 32) lanes, each group one warp or part of one.
 * A group works on one check at a time (and on one variable in the variable phase); lane l holds
 * the q/L values l (q/L) .. (l + 1) (q/L) - 1 of a message, so the Walsh-Hadamard transform's
 * butterflies of distance below q/L stay in registers and the rest are warp shuffles, and the
 * coefficient permutations are a gather (a = y / h on the way in) and an exchange through the
 * group's shared buffer (y = h x on the way out). The q-templated kernels unroll every step.
 *
 * Messages: the variable-to-check message of an edge is formed where the check needs it, from the
 * prior and the column's other check-to-variable messages of the last iteration (ping-pong
 * buffers), exactly as the CPU's variable phase forms it, so only the check-to-variable messages
 * are stored. The variable phase (a-posteriori values, hard decision, syndrome) runs where its
 * result is used: every iteration with early stop, else after the last.
 *
 * Arithmetic: the CPU's operations in its order where they are elementwise (products and sums of
 * the messages, the butterflies); the signed-log additions take logf(1 + e^d) and a series for
 * 1 - e^d where the CPU calls log1pf and expm1f (slog_add); group sums and maxima are tree
 * reductions and expf/logf are the fast-math versions, so values differ from the CPU's by
 * rounding and the decisions agree (cuda/nbldpc/test/test_gpu_nbldpc.c says how closely).
 */
#include "nbldpc_gpu.cuh"
#include "nbldpc_gpu_group.cuh"

#define LOG_FLOOR     (-80.0f) /* as nbldpc_decode.c */
#define NBGPU_THREADS 256
#define GF_SMEM_BYTES 768 /* the field's exponent (512) and logarithm (256) tables */

template <int Q> struct nbgpu_geo {
	static constexpr int L = Q < 32 ? Q : 32; /* lanes of a group */
	static constexpr int V = Q / L;           /* values per lane */
};

/* normalise_prob / normalise_log of nbldpc_decode.c over the group's q values. */
template <int Q, bool LOG>
__device__ __forceinline__ void gnorm(float (&r)[nbgpu_geo<Q>::V], unsigned mask)
{
	constexpr int L = nbgpu_geo<Q>::L, V = nbgpu_geo<Q>::V;

	if (LOG) {
		float mx = r[0];

#pragma unroll
		for (int v = 1; v < V; v++)
			mx = fmaxf(mx, r[v]);
		mx = gmax<L>(mx, mask);
#pragma unroll
		for (int v = 0; v < V; v++) {
			r[v] -= mx;
			if (!(r[v] > LOG_FLOOR))
				r[v] = LOG_FLOOR;
		}
	} else {
		group_norm_prob<L, V>(r, mask);
	}
}

/* The unnormalised Walsh-Hadamard transform over the group (nbldpc_gpu_group.cuh): value
 * a = ln V + v in r[v]. */
template <int Q>
__device__ __forceinline__ void gwht(float (&r)[nbgpu_geo<Q>::V], unsigned ln, unsigned mask)
{
	group_wht<Q, nbgpu_geo<Q>::V>(r, ln, mask);
}

/* a + b for signed logarithms: nbldpc_decode.c slog_add's values without its library calls
 * (log1pf and expm1f are tens of instructions each, and a warp whose lanes' signs differ runs
 * both branches): log(1 + e^d) as logf(1 + e^d), whose absolute error where log1pf keeps e^d
 * below float's epsilon is at most 6e-8; 1 - e^d by its series -d (1 + d/2! + ... + d^7/8!) for
 * d > -0.7 (truncation below 2e-7 relative) and as it is below. Measured on the host against
 * log1pf and expm1f over d in [-100, 0] in steps of 1e-5: at most 6e-8 and 5e-7 apart in the
 * logarithm. */
__device__ __forceinline__ void slog_add(float ma, float sa, float mb, float sb, float &m, float &s)
{
	const bool a_big = ma >= mb;
	const float hi = a_big ? ma : mb, d = a_big ? mb - ma : ma - mb;
	const float e = expf(d);

	if (sa == sb) {
		m = hi + logf(1.0f + e);
		s = sa;
	} else {
		float p = 1.0f / 40320.0f;

		p = fmaf(p, d, 1.0f / 5040.0f);
		p = fmaf(p, d, 1.0f / 720.0f);
		p = fmaf(p, d, 1.0f / 120.0f);
		p = fmaf(p, d, 1.0f / 24.0f);
		p = fmaf(p, d, 1.0f / 6.0f);
		p = fmaf(p, d, 0.5f);
		p = fmaf(p, d, 1.0f);
		const float t = d > -0.7f ? -d * p : 1.0f - e;

		m = t > 0.0f ? hi + logf(t) : LOG_FLOOR;
		s = a_big ? sa : sb;
	}
	if (m < LOG_FLOOR)
		m = LOG_FLOOR;
}

/* The transform on signed logarithms (nbldpc_decode.c wht_slog). */
template <int Q>
__device__ __forceinline__ void gwht_slog(float (&m)[nbgpu_geo<Q>::V], float (&s)[nbgpu_geo<Q>::V],
                                          unsigned ln, unsigned mask)
{
	constexpr int V = nbgpu_geo<Q>::V;

#pragma unroll
	for (int h = 1; h < Q; h <<= 1) {
		if (h < V) {
#pragma unroll
			for (int j = 0; j < V; j++)
				if (!(j & h)) {
					const float ma = m[j], sa = s[j], mb = m[j + h],
					            sb = s[j + h];

					slog_add(ma, sa, mb, sb, m[j], s[j]);
					slog_add(ma, sa, mb, -sb, m[j + h], s[j + h]);
				}
		} else {
			const int d = h / V;

#pragma unroll
			for (int v = 0; v < V; v++) {
				const float om = __shfl_xor_sync(mask, m[v], d);
				const float os = __shfl_xor_sync(mask, s[v], d);

				if (ln & d) /* this lane holds b of the pair, the partner a */
					slog_add(om, os, m[v], -s[v], m[v], s[v]);
				else
					slog_add(m[v], s[v], om, os, m[v], s[v]);
			}
		}
	}
}

/* ---- A frame's arrays in its workspace slice. */

struct fbp_ws {
	float *ch[2]; /* check-to-variable messages, nnz q each: last iteration's and this one's */
	float *pr;    /* n q: the priors in the decoder's domain */
	float *app;   /* n q: the a-posteriori values of the last variable phase */
	uint8_t *hard;
};

static __host__ __device__ size_t align256(size_t v)
{
	return (v + 255) / 256 * 256;
}

static __host__ __device__ size_t fbp_ws_bytes(const struct nbgpu_code &c)
{
	return 2 * align256((size_t)c.nnz * c.q * 4) + 2 * align256((size_t)c.n * c.q * 4) +
	       align256(c.n);
}

__device__ static struct fbp_ws fbp_ws_map(const struct nbgpu_code &c, char *base)
{
	const size_t eb = align256((size_t)c.nnz * c.q * 4), nb = align256((size_t)c.n * c.q * 4);
	struct fbp_ws w;

	w.ch[0] = (float *)base;
	w.ch[1] = (float *)(base + eb);
	w.pr = (float *)(base + 2 * eb);
	w.app = (float *)(base + 2 * eb + nb);
	w.hard = (uint8_t *)(base + 2 * eb + 2 * nb);
	return w;
}

/* Words (4 bytes) of shared memory a group uses: its edges' transforms (two arrays of
 * max_row_deg q: products or signs beside them), the permutation's exchange buffer (q) and the
 * check's edges staged from the tables (per edge its variable, coefficient, number of other
 * edges in the column and those edges). */
static __host__ __device__ uint32_t fbp_col_others(const struct nbgpu_code &c)
{
	return c.max_col_deg > 1 ? c.max_col_deg - 1 : 0;
}

static __host__ __device__ size_t fbp_group_floats(const struct nbgpu_code &c)
{
	return 2 * (size_t)c.max_row_deg * c.q + c.q +
	       (size_t)c.max_row_deg * (3 + fbp_col_others(c));
}

/* ---- The phases of one iteration, by one group. */

/* One check: row r's edges' new messages (chn) from the priors and the old messages (cho; none
 * in the first iteration). F, P: the group's transform arrays, X its exchange buffer; F and P
 * hold value a = ln V + v of edge i at i q + v L + ln, lane-private. */
template <int Q, bool LOG>
__device__ static void fbp_check(const struct nbgpu_code &c, const uint8_t *ex, const uint8_t *lg,
                                 const struct fbp_ws &w, const float *cho, float *chn, bool first,
                                 uint32_t r, float *F, float *P, float *X, unsigned ln,
                                 unsigned mask)
{
	constexpr int L = nbgpu_geo<Q>::L, V = nbgpu_geo<Q>::V;
	const uint32_t e0 = c.row_start[r], deg = c.row_start[r + 1] - e0;
	const uint32_t C1 = fbp_col_others(c);
	uint32_t *mx = (uint32_t *)X + Q, *mh = mx + c.max_row_deg, *mo = mh + c.max_row_deg;
	uint32_t *me = mo + c.max_row_deg;

	/* the edges' table entries, fetched by the lanes at once (their loads overlap) */
	__syncwarp(mask); /* the last check's readers are done with them */
	for (uint32_t i = ln; i < deg; i += L) {
		const uint32_t e = e0 + i, o0 = c.oth_start[e], no = c.oth_start[e + 1] - o0;

		mx[i] = c.row_col[e];
		mh[i] = c.row_val[e];
		mo[i] = no;
		for (uint32_t k = 0; k < no; k++)
			me[i * C1 + k] = c.oth_edge[o0 + k];
	}
	__syncwarp(mask);
	/* each edge's variable-to-check message, permuted (the check sees h x) and transformed */
	for (uint32_t i = 0; i < deg; i++) {
		const uint32_t x = mx[i], no = first ? 0 : mo[i];
		const unsigned h = mh[i];
		float r_[V], s_[V];

#pragma unroll
		for (int v = 0; v < V; v++) {
			const unsigned a = nbgpu_div(ex, lg, Q, ln * V + v, h);
			float t = w.pr[(size_t)x * Q + a];

			for (uint32_t k = 0; k < no; k++) {
				const float m = cho[(size_t)me[i * C1 + k] * Q + a];

				t = LOG ? t + m : t * m;
			}
			r_[v] = t;
			s_[v] = 1.0f;
		}
		if (!first) /* the first iteration's messages are the priors themselves */
			gnorm<Q, LOG>(r_, mask);
		if (LOG)
			gwht_slog<Q>(r_, s_, ln, mask);
		else
			gwht<Q>(r_, ln, mask);
#pragma unroll
		for (int v = 0; v < V; v++) {
			F[(size_t)i * Q + v * L + ln] = r_[v];
			if (LOG)
				P[(size_t)i * Q + v * L + ln] = s_[v];
		}
	}
	float acc_m[V], acc_s[V];

#pragma unroll
	for (int v = 0; v < V; v++) {
		acc_m[v] = LOG ? 0.0f : 1.0f;
		acc_s[v] = 1.0f;
	}
	/* log: the product of all (sum and sign), each edge's by taking its own out; prob: products
	 * of the others from both sides, prefixes in P */
	for (uint32_t i = 0; i < deg; i++)
#pragma unroll
		for (int v = 0; v < V; v++) {
			const size_t o = (size_t)i * Q + v * L + ln;

			if (LOG) {
				acc_m[v] += F[o];
				acc_s[v] *= P[o];
			} else {
				P[o] = acc_m[v];
				acc_m[v] *= F[o];
			}
		}
	if (!LOG)
#pragma unroll
		for (int v = 0; v < V; v++)
			acc_m[v] = 1.0f;
	for (uint32_t k = 0; k < deg; k++) {
		const uint32_t i = LOG ? k : deg - 1 - k; /* the CPU's order */
		const uint32_t e = e0 + i;
		const unsigned h = mh[i];
		float tm[V], ts[V];

#pragma unroll
		for (int v = 0; v < V; v++) {
			const size_t o = (size_t)i * Q + v * L + ln;

			if (LOG) {
				tm[v] = acc_m[v] - F[o];
				ts[v] = acc_s[v] * P[o];
			} else {
				tm[v] = P[o] * acc_m[v];
				acc_m[v] *= F[o];
			}
		}
		if (LOG)
			gwht_slog<Q>(tm, ts, ln, mask);
		else
			gwht<Q>(tm, ln, mask);
			/* back to the variable's values: out(x) = T(h x); a negative log-domain
			 * result is rounding around zero */
#pragma unroll
		for (int v = 0; v < V; v++)
			X[ln * V + v] = LOG ? (ts[v] > 0.0f ? tm[v] : LOG_FLOOR) : tm[v];
		__syncwarp(mask);
#pragma unroll
		for (int v = 0; v < V; v++)
			tm[v] = X[nbgpu_mul(ex, lg, h, ln * V + v)];
		__syncwarp(mask);
		gnorm<Q, LOG>(tm, mask);
#pragma unroll
		for (int v = 0; v < V; v++)
			chn[(size_t)e * Q + ln * V + v] = tm[v];
	}
}

/* One variable: its a-posteriori values (the prior and every check's new message) into app and
 * its hard decision. */
template <int Q, bool LOG>
__device__ static void fbp_variable(const struct nbgpu_code &c, const struct fbp_ws &w,
                                    const float *chn, uint32_t x, unsigned ln, unsigned mask)
{
	constexpr int L = nbgpu_geo<Q>::L, V = nbgpu_geo<Q>::V;
	const uint32_t j0 = c.col_start[x], j1 = c.col_start[x + 1];
	float r_[V];

#pragma unroll
	for (int v = 0; v < V; v++) {
		const unsigned a = ln * V + v;
		float t = w.pr[(size_t)x * Q + a];

		for (uint32_t j = j0; j < j1; j++) {
			const float mv = chn[(size_t)c.col_edge[j] * Q + a];

			t = LOG ? t + mv : t * mv;
		}
		r_[v] = t;
	}
	gnorm<Q, LOG>(r_, mask);
	float best = r_[0];
	unsigned bi = ln * V;

#pragma unroll
	for (int v = 0; v < V; v++) {
		if (r_[v] > best) {
			best = r_[v];
			bi = ln * V + v;
		}
		w.app[(size_t)x * Q + ln * V + v] = r_[v];
	}
	bi = gargmax<L>(best, bi, mask);
	if (ln == 0)
		w.hard[x] = (uint8_t)bi;
}

/* The frame's priors in the decoder's domain. */
template <int Q, bool LOG>
__device__ static void fbp_prior(const struct nbgpu_code &c, const struct gpu_batch &b, uint32_t f,
                                 const struct fbp_ws &w, uint32_t x, unsigned ln, unsigned mask)
{
	constexpr int V = nbgpu_geo<Q>::V;
	float r_[V];

#pragma unroll
	for (int v = 0; v < V; v++)
		r_[v] = nbgpu_prior(c, b, f, x, ln * V + v);
	gnorm<Q, true>(r_, mask);
	if (!LOG) {
#pragma unroll
		for (int v = 0; v < V; v++)
			r_[v] = expf(r_[v]);
		gnorm<Q, false>(r_, mask);
	}
#pragma unroll
	for (int v = 0; v < V; v++)
		w.pr[(size_t)x * Q + ln * V + v] = r_[v];
}

/* Information symbol i's soft output: the a-posteriori log-probabilities normalised as the CPU
 * normalises them (nbldpc__fftbp's end, then nbldpc_coder.c; group_soft), as they are (sym) or as
 * bit LLRs. */
template <int Q, bool LOG>
__device__ static void fbp_soft(const struct nbgpu_code &c, const struct gpu_batch &b, uint32_t f,
                                const struct fbp_ws &w, uint32_t i, unsigned ln, unsigned mask)
{
	constexpr int V = nbgpu_geo<Q>::V;
	const uint32_t x = c.info_cols[i];
	float r_[V];

#pragma unroll
	for (int v = 0; v < V; v++) {
		r_[v] = w.app[(size_t)x * Q + ln * V + v];
		if (!LOG)
			r_[v] = logf(r_[v]);
	}
	gnorm<Q, true>(r_, mask);
	group_soft<nbgpu_geo<Q>::L, V>(r_, b.soft + (size_t)f * b.soft_stride, i, Q, c.p,
	                               c.soft_bit, c.bit_shift, ln, mask);
}

/* Whether some check fails on the hard decision: every thread takes rows, the block ORs. */
__device__ static bool fbp_syndrome_bad(const struct nbgpu_code &c, const uint8_t *ex,
                                        const uint8_t *lg, const uint8_t *hard)
{
	int bad = 0;

	for (uint32_t r = threadIdx.x; r < c.m; r += blockDim.x) {
		unsigned s = 0;

		for (uint32_t e = c.row_start[r]; e < c.row_start[r + 1]; e++)
			s ^= nbgpu_mul(ex, lg, c.row_val[e], hard[c.row_col[e]]);
		bad |= s != 0;
	}
	return __syncthreads_or(bad) != 0;
}

/* Blocks of NBGPU_THREADS an SM should hold: registers are what limits them (63 a thread
 * unbounded for q = 64 gave 4 blocks, 50% occupancy; shared memory allows 6). */
#define FBP_MIN_BLOCKS(Q) ((Q) >= 256 ? 3 : 5)

template <int Q, bool LOG>
__global__ void __launch_bounds__(NBGPU_THREADS, FBP_MIN_BLOCKS(Q))
    nbldpc_fftbp_kernel(const struct nbgpu_code c, const struct gpu_batch b, char *ws,
                        size_t ws_frame)
{
	constexpr int L = nbgpu_geo<Q>::L;
	extern __shared__ float4 smem4[];
	uint8_t *ex = (uint8_t *)smem4, *lg = ex + 512;
	const unsigned tid = threadIdx.x, nt = blockDim.x;
	const unsigned ln = tid % L, gid = tid / L, ngroups = nt / L;
	const unsigned mask = L == 32 ? 0xffffffffu : ((1u << L) - 1) << ((tid & 31) & ~(L - 1u));
	float *F = (float *)(ex + GF_SMEM_BYTES) + (size_t)gid * fbp_group_floats(c);
	float *P = F + (size_t)c.max_row_deg * Q, *X = P + (size_t)c.max_row_deg * Q;
	const struct fbp_ws w = fbp_ws_map(c, ws + (size_t)blockIdx.x * ws_frame);

	for (unsigned i = tid; i < 512; i += nt)
		ex[i] = c.gf_exp[i];
	for (unsigned i = tid; i < 256; i += nt)
		lg[i] = c.gf_log[i];

	for (uint32_t f = blockIdx.x; f < b.count; f += gridDim.x) {
		struct fec_job *job = &b.jobs[f];
		bool bad = true;
		unsigned it = 0;

		__syncthreads(); /* the tables, and the previous frame's readers are done */
		const bool usable = job->in_len == c.in_syms && job->head_len == 0;
		__syncthreads();
		if (!usable) {
			if (tid == 0)
				nbgpu_job_ok(c, job);
			continue;
		}
		for (uint32_t x = gid; x < c.n; x += ngroups)
			fbp_prior<Q, LOG>(c, b, f, w, x, ln, mask);
		__syncthreads();
		while (it < c.max_iters) {
			const float *cho = w.ch[it & 1];
			float *chn = w.ch[(it + 1) & 1];

			for (uint32_t r = gid; r < c.m; r += ngroups)
				fbp_check<Q, LOG>(c, ex, lg, w, cho, chn, it == 0, r, F, P, X, ln,
				                  mask);
			it++;
			__syncthreads();
			if (!c.early_stop && it < c.max_iters)
				continue;
			for (uint32_t x = gid; x < c.n; x += ngroups)
				fbp_variable<Q, LOG>(c, w, chn, x, ln, mask);
			__syncthreads();
			bad = fbp_syndrome_bad(c, ex, lg, w.hard);
			if (!bad && c.early_stop)
				break;
		}
		nbgpu_out_bits(c, b, f, w.hard, tid, nt);
		if (b.soft)
			for (uint32_t i = gid; i < c.k; i += ngroups)
				fbp_soft<Q, LOG>(c, b, f, w, i, ln, mask);
		if (tid == 0)
			nbgpu_job_done(c, b, job, it, !bad);
	}
}

/* ---- Launchers */

typedef void (*fbp_kernel_t)(const struct nbgpu_code, const struct gpu_batch, char *, size_t);

static fbp_kernel_t fbp_kernel(unsigned q, bool log)
{
#define K(Q)                                                                                       \
	case Q:                                                                                    \
		return log ? nbldpc_fftbp_kernel<Q, true> : nbldpc_fftbp_kernel<Q, false>;
	switch (q) {
		K(2)
		K(4)
		K(8)
		K(16)
		K(32)
		K(64)
		K(128)
		K(256)
	}
#undef K
	return NULL;
}

/* Workspace of one launch at most: frames in flight are bounded by it as well as by residency. */
static size_t ws_cap(const struct fecd_cuda_device *dev)
{
	const size_t cap = dev->mem_total / 16;

	return cap > ((size_t)256 << 20) ? cap : ((size_t)256 << 20);
}

int nbgpu_fftbp_prepare(const struct nbgpu_code *c, const struct fecd_cuda_device *dev,
                        struct nbgpu_shape *sh, bool *ok)
{
	const fbp_kernel_t k = fbp_kernel(c->q, c->log);
	const unsigned lanes = c->q < 32 ? c->q : 32;
	const size_t group_bytes = fbp_group_floats(*c) * sizeof(float);
	const size_t smem_max =
	    dev->smem_per_block_optin ? dev->smem_per_block_optin : (size_t)48 << 10;
	struct cudaFuncAttributes fa;
	int groups = NBGPU_THREADS / (int)lanes, per_sm = 0;
	cudaError_t e;

	*ok = false;
	if (!k)
		return (int)cudaErrorInvalidValue;
	/* as many groups as the shared memory allows, in whole warps */
	while (groups > 32 / (int)lanes && GF_SMEM_BYTES + groups * group_bytes > smem_max)
		groups -= 32 / (int)lanes;
	if (GF_SMEM_BYTES + groups * group_bytes > smem_max)
		return (int)cudaSuccess;
	sh->groups = groups;
	sh->threads = groups * (int)lanes;
	sh->smem = GF_SMEM_BYTES + groups * group_bytes;
	e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh->smem);
	if (e == cudaSuccess)
		e = cudaFuncGetAttributes(&fa, k);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, sh->threads,
		                                                  sh->smem);
	if (e != cudaSuccess)
		return (int)e;
	sh->blocks_per_sm = per_sm > 0 ? per_sm : 1;
	sh->regs = fa.numRegs;
	sh->ws_per_frame = fbp_ws_bytes(*c);
	sh->grid = dev->sm_count * sh->blocks_per_sm;
	while (sh->grid > dev->sm_count && (size_t)sh->grid * sh->ws_per_frame > ws_cap(dev))
		sh->grid -= dev->sm_count;
	*ok = true;
	return (int)cudaSuccess;
}

int nbgpu_fftbp_launch(const struct nbgpu_code *c, const struct nbgpu_shape *sh,
                       const struct gpu_batch *b, void *ws, cudaStream_t s)
{
	const fbp_kernel_t k = fbp_kernel(c->q, c->log);
	const int grid = (int)(b->count < (uint32_t)sh->grid ? b->count : (uint32_t)sh->grid);

	if (!k)
		return (int)cudaErrorInvalidValue;
	k<<<grid, sh->threads, sh->smem, s>>>(*c, *b, (char *)ws, sh->ws_per_frame);
	return (int)cudaGetLastError();
}
