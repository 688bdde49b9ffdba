/*
 * The generic GPU LDPC kernel: every code, algorithm (spa, ms, nms, oms), schedule and input type,
 * one thread block per frame, the frame's arrays (values, channel, messages) in the workspace.
 * Its threads share out the rows of a layer (layered) or all rows, then all columns (flooding);
 * __syncthreads separates the steps. Arithmetic is codec/ldpc/ldpc_decode.c's (layered int8: the
 * app exact in int32, messages int8): min-sum on int8 gives the same bits, status and iterations;
 * float paths follow the same rules in float32 (the tanh rule through fast-math tanhf/atanhf,
 * so spa agrees on decoded bits, not to the last ulp).
 * Where the fast kernel applies (ldpc_gpu_fast.cu) it is used instead.
 */
#include <stdio.h>

#include "ldpc_gpu.cuh"

#define GEN_THREADS  256
#define MS_FLOAT_TOP 1e30f
#define WS_CAP       ((size_t)1 << 30) /* workspace of one launch, at most */

/* Per-block working arrays, laid out in its workspace slice. */
struct gen_ws {
	int32_t *val;  /* n: layered app / flooding totals (int32 or float bits) */
	int32_t *chan; /* n: flooding channel values */
	int32_t *c2v;  /* nnz messages (int32 or float bits) */
	float *tmp;    /* nnz: spa suffix products */
};

static size_t align256(size_t v)
{
	return (v + 255) / 256 * 256;
}

static size_t gen_ws_bytes(const struct lgpu_code *c)
{
	return 2 * align256((size_t)c->n * 4) + 2 * align256((size_t)c->nnz * 4);
}

__device__ static struct gen_ws gen_ws_map(const struct lgpu_code &c, char *base)
{
	struct gen_ws w;
	const size_t nb = ((size_t)c.n * 4 + 255) / 256 * 256;
	const size_t eb = ((size_t)c.nnz * 4 + 255) / 256 * 256;

	w.val = (int32_t *)base;
	w.chan = (int32_t *)(base + nb);
	w.c2v = (int32_t *)(base + 2 * nb);
	w.tmp = (float *)(base + 2 * nb + eb);
	return w;
}

__device__ __forceinline__ int sat8(int v)
{
	return v > 127 ? 127 : v < -127 ? -127 : v;
}

__device__ __forceinline__ int ms_norm8(const struct lgpu_code &c, int m)
{
	if (c.algo == LDPC_ALGO_NMS)
		return (m * c.alpha16) >> 4;
	if (c.algo == LDPC_ALGO_OMS)
		return m > c.offset8 ? m - c.offset8 : 0;
	return m;
}

/* One row, int8 min-sum: edges [e0, e1) of the message array, columns col[]. Layered: val is
 * the exact app (L + the column's messages) and is updated from the exact difference;
 * flooding: val holds the totals and is only read. */
__device__ static void row_ms8(const struct lgpu_code &c, int32_t *val, int32_t *c2v,
                               const uint32_t *col, uint32_t e0, uint32_t e1, bool layered)
{
	int m1 = 127, m2 = 127;
	unsigned s = 0;

	for (uint32_t e = e0; e < e1; e++) {
		const int xe = val[col[e - e0]] - c2v[e], x = sat8(xe);
		const int a = x < 0 ? -x : x;

		c2v[e] = xe; /* the exact incoming value, until the second pass */
		if (a < m1) {
			m2 = m1;
			m1 = a;
		} else if (a < m2) {
			m2 = a;
		}
		s ^= x < 0;
	}
	const int n1 = ms_norm8(c, m1), n2 = ms_norm8(c, m2);
	for (uint32_t e = e0; e < e1; e++) {
		const int xe = c2v[e], x = sat8(xe), a = x < 0 ? -x : x;
		const int mag = a == m1 ? n2 : n1;
		const int m = (s ^ (x < 0)) ? -mag : mag;

		c2v[e] = m;
		if (layered)
			val[col[e - e0]] = xe + m;
	}
}

__device__ static void row_float(const struct lgpu_code &c, float *val, float *c2v, float *tmp,
                                 const uint32_t *col, uint32_t e0, uint32_t e1, bool layered)
{
	if (c.algo == LDPC_ALGO_SPA) {
		const float top = 1.0f - 1e-7f;
		float suf = 1.0f, pre = 1.0f;

		for (uint32_t e = e0; e < e1; e++)
			c2v[e] = val[col[e - e0]] - c2v[e];
		for (uint32_t e = e1; e-- > e0;) {
			const float v = fminf(fmaxf(c2v[e], -LDPC_SPA_CLAMP), LDPC_SPA_CLAMP);

			tmp[e] = suf;
			suf *= tanhf(0.5f * v);
		}
		for (uint32_t e = e0; e < e1; e++) {
			const float x = c2v[e];
			const float v = fminf(fmaxf(x, -LDPC_SPA_CLAMP), LDPC_SPA_CLAMP);
			const float p = fminf(fmaxf(pre * tmp[e], -top), top);
			const float m = 2.0f * atanhf(p);

			c2v[e] = m;
			if (layered)
				val[col[e - e0]] = x + m;
			pre *= tanhf(0.5f * v);
		}
		return;
	}
	float m1 = MS_FLOAT_TOP, m2 = MS_FLOAT_TOP, n1, n2;
	unsigned s = 0;

	for (uint32_t e = e0; e < e1; e++) {
		const float x = val[col[e - e0]] - c2v[e], a = fabsf(x);

		c2v[e] = x;
		if (a < m1) {
			m2 = m1;
			m1 = a;
		} else if (a < m2) {
			m2 = a;
		}
		s ^= x < 0;
	}
	n1 = m1;
	n2 = m2;
	if (c.algo == LDPC_ALGO_NMS) {
		n1 *= c.alpha;
		n2 *= c.alpha;
	} else if (c.algo == LDPC_ALGO_OMS) {
		n1 = fmaxf(n1 - c.offset, 0.0f);
		n2 = fmaxf(n2 - c.offset, 0.0f);
	}
	for (uint32_t e = e0; e < e1; e++) {
		const float x = c2v[e];
		const float mag = fabsf(x) == m1 ? n2 : n1;
		const float m = (s ^ (x < 0)) ? -mag : mag;

		c2v[e] = m;
		if (layered)
			val[col[e - e0]] = x + m;
	}
}

/* Value v of the frame's decision array is negative (hard decision 1). */
template <bool F32> __device__ __forceinline__ bool neg(const int32_t *val, uint32_t v)
{
	return F32 ? __int_as_float(val[v]) < 0.0f : val[v] < 0;
}

/* Whether some check fails: every thread takes rows, the block ORs. */
template <bool F32>
__device__ static bool syndrome_bad(const struct lgpu_code &c, const int32_t *val)
{
	int bad = 0;

	for (uint32_t p = threadIdx.x; p < c.m; p += blockDim.x) {
		unsigned par = 0;

		for (uint32_t e = c.sched_start[p]; e < c.sched_start[p + 1]; e++)
			par ^= neg<F32>(val, c.sched_col[e]);
		bad |= par;
	}
	return __syncthreads_or(bad) != 0;
}

template <bool F32>
__global__ void __launch_bounds__(GEN_THREADS)
    ldpc_generic_kernel(struct lgpu_code c, struct gpu_batch b, char *ws, size_t ws_block)
{
	const struct gen_ws w = gen_ws_map(c, ws + (size_t)blockIdx.x * ws_block);
	const unsigned tid = threadIdx.x, nt = blockDim.x;

	for (uint32_t f = blockIdx.x; f < b.count; f += gridDim.x) {
		struct fec_job *job = &b.jobs[f];
		bool bad = true;
		unsigned it = 0;

		__syncthreads(); /* the previous frame's readers are done with the arrays */
		const bool usable = job->in_len == c.n_tx && job->head_len == 0;
		__syncthreads();
		if (!usable) {
			if (tid == 0)
				lgpu_job_ok(c, job);
			continue;
		}
		for (uint32_t v = tid; v < c.n; v += nt) {
			int32_t l;

			if (F32)
				l = __float_as_int(v < c.punct ? 0.0f
				                               : lgpu_inf(c, b, f, v - c.punct));
			else
				l = v < c.punct ? 0 : lgpu_in8(b, f, v - c.punct);
			w.val[v] = l;
			w.chan[v] = l;
		}
		for (uint32_t e = tid; e < c.nnz; e += nt)
			w.c2v[e] = 0; /* 0.0f has the same bits */
		__syncthreads();
		while (it < c.max_iters) {
			if (c.layered) {
				for (uint32_t l = 0; l < c.nlayers; l++) {
					for (uint32_t p = c.layer_start[l] + tid;
					     p < c.layer_start[l + 1]; p += nt) {
						const uint32_t e0 = c.sched_start[p],
						               e1 = c.sched_start[p + 1];

						if (F32)
							row_float(c, (float *)w.val, (float *)w.c2v,
							          w.tmp, c.sched_col + e0, e0, e1,
							          true);
						else
							row_ms8(c, w.val, w.c2v, c.sched_col + e0,
							        e0, e1, true);
					}
					__syncthreads();
				}
			} else {
				for (uint32_t r = tid; r < c.m; r += nt) {
					const uint32_t e0 = c.row_start[r], e1 = c.row_start[r + 1];

					if (F32)
						row_float(c, (float *)w.val, (float *)w.c2v, w.tmp,
						          c.row_col + e0, e0, e1, false);
					else
						row_ms8(c, w.val, w.c2v, c.row_col + e0, e0, e1,
						        false);
				}
				__syncthreads();
				for (uint32_t v = tid; v < c.n; v += nt) {
					const uint32_t j0 = c.col_start[v], j1 = c.col_start[v + 1];

					if (F32) {
						float t = __int_as_float(w.chan[v]);

						for (uint32_t j = j0; j < j1; j++)
							t += __int_as_float(w.c2v[c.col_edge[j]]);
						w.val[v] = __float_as_int(t);
					} else {
						int32_t t = w.chan[v];

						for (uint32_t j = j0; j < j1; j++)
							t += w.c2v[c.col_edge[j]];
						w.val[v] = t;
					}
				}
				__syncthreads();
			}
			it++;
			bad = syndrome_bad<F32>(c, w.val);
			if (!bad && c.early_stop)
				break;
		}
		/* Output: one thread per output byte; soft values in LLR units. */
		uint8_t *out = b.out + (size_t)f * b.out_stride;
		for (uint32_t j8 = tid; j8 < (c.out_n + 7) / 8; j8 += nt) {
			unsigned byte = 0;

			for (uint32_t j = j8 * 8; j < j8 * 8 + 8 && j < c.out_n; j++)
				byte |= (unsigned)neg<F32>(w.val, lgpu_out_col(c, j))
				        << (7 - j % 8);
			out[j8] = (uint8_t)byte;
		}
		if (b.soft) {
			float *soft = b.soft + (size_t)f * b.soft_stride;

			for (uint32_t j = tid; j < c.out_n; j += nt) {
				const int32_t v = w.val[lgpu_out_col(c, j)];

				soft[j] = F32 ? __int_as_float(v) : (float)v * c.inv_scale;
			}
		}
		if (tid == 0)
			lgpu_job_done(c, b, job, it, !bad);
	}
}

int lgpu_generic_prepare(const struct lgpu_code *c, const struct fecd_cuda_device *dev,
                         struct lgpu_shape *sh)
{
	const bool f32 = c->algo == LDPC_ALGO_SPA || c->in_f32;
	struct cudaFuncAttributes fa;
	cudaError_t e;
	int per_sm = 0;

	e = f32 ? cudaFuncGetAttributes(&fa, ldpc_generic_kernel<true>)
	        : cudaFuncGetAttributes(&fa, ldpc_generic_kernel<false>);
	if (e == cudaSuccess)
		e = f32 ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		              &per_sm, ldpc_generic_kernel<true>, GEN_THREADS, 0)
		        : cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		              &per_sm, ldpc_generic_kernel<false>, GEN_THREADS, 0);
	if (e != cudaSuccess)
		return (int)e;
	sh->threads = GEN_THREADS;
	sh->blocks_per_sm = per_sm > 0 ? per_sm : 1;
	sh->regs = fa.numRegs;
	sh->smem = fa.sharedSizeBytes;
	sh->ws_per_block = gen_ws_bytes(c);
	/* Every resident block keeps a frame's arrays: as many blocks as fit, within WS_CAP. */
	sh->grid = dev->sm_count * sh->blocks_per_sm;
	while (sh->grid > dev->sm_count && (size_t)sh->grid * sh->ws_per_block > WS_CAP)
		sh->grid -= dev->sm_count;
	return 0;
}

int lgpu_generic_launch(const struct lgpu_code *c, const struct lgpu_shape *sh,
                        const struct gpu_batch *b, void *ws, cudaStream_t s)
{
	const bool f32 = c->algo == LDPC_ALGO_SPA || c->in_f32;
	const int grid = (int)(b->count < (uint32_t)sh->grid ? b->count : (uint32_t)sh->grid);

	if (f32)
		ldpc_generic_kernel<true>
		    <<<grid, sh->threads, 0, s>>>(*c, *b, (char *)ws, sh->ws_per_block);
	else
		ldpc_generic_kernel<false>
		    <<<grid, sh->threads, 0, s>>>(*c, *b, (char *)ws, sh->ws_per_block);
	return (int)cudaGetLastError();
}
