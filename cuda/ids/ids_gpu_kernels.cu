/*
 * The ids family's GPU kernels (the seed's section V: gamma, alpha, beta and L) and their
 * launcher. Frames in flight each own a slice of the workspace (ids_gpu.cuh):
 *
 *   gamma   one thread per (frame, symbol i, start drift m', D mod 4): the corridor lattice of
 *           each of its symbols D (eq. 7-10) in registers, gamma = prior F(n, d) (eq. 6) kept
 *           (global storage) and summed over D in double as ids_map.c's gamma_sum does: each
 *           thread's running sum is one of its four partial sums, combined (s0 + s1) + (s2 + s3)
 *           across the four threads by shuffles;
 *   scan    one warp per frame: alpha, the forward recursion over i (eq. 4, 11) from those
 *           sums, pruned as the CPU prunes it (values below `prune` dropped), then beta, the
 *           backward recursion (eq. 5, 12), 0 where alpha is 0;
 *   post    one thread per (frame, symbol i, D): the posterior's sum over m' and d (eq. 1-3) in
 *           the CPU's order, from the kept gammas or recomputing each lattice (local storage),
 *           then per symbol the normalisation, log-probabilities and the hard decision;
 *   finish  per frame, the packed bits and the job's outputs (without an outer code).
 *
 * Every sum runs in the order ids_map.c runs it and this folder builds without FMA contraction
 * and with subnormals kept, so gammas, sums and posteriors are the CPU's bit for bit (the
 * log-probabilities up to the device's double log, within an ulp).
 */
#include <math.h>

#include "ids_gpu.cuh"
#include "ids_gpu_lattice.cuh"

extern "C" {
#include "ids_map.h"
}

#define IDSG_FULL 0xffffffffu

/* Whether job f is a frame the MAP decoder decodes (codec/ids/ids_coder.c and ids_map_decode):
 * no head, at most rho_max received values and a final drift within the frame's limits. */
__device__ __forceinline__ bool idsg_usable(const struct idsg_code &c, const struct fec_job *job)
{
	const long last = (long)job->in_len - (long)c.tau;

	return job->head_len == 0 && job->in_len <= c.rho_max && last >= c.fmin && last <= c.fmax;
}

/* Received value k of frame f as the CPU's decoder reads it (ids_coder.c received_s8). */
__device__ __forceinline__ int idsg_rx(const struct idsg_code &c, const struct gpu_batch &b,
                                       uint32_t f, long k)
{
	const char *slot = (const char *)b.in + (size_t)f * b.in_stride;

	if (c.in == FEC_IN_S8_LLR)
		return ((const int8_t *)slot)[k];
	const float v = roundf(((const float *)slot)[k] * c.llr_scale);

	return v > 127.0f ? 127 : v < -127.0f ? -127 : (int)(int8_t)v;
}

/* The block's window of Q values: win[2 w + x] = Q(y_(k0 + w) | x) for the received values
 * k0 .. k0 + width - 1 that exist (0 elsewhere, never read). */
__device__ void idsg_load_window(const struct idsg_code &c, const struct gpu_batch &b, uint32_t f,
                                 uint32_t rho, long k0, long width, float *win)
{
	for (long w = threadIdx.x; w < width; w += blockDim.x) {
		const long k = k0 + w;
		float q0 = 0.0f, q1 = 0.0f;

		if (k >= 0 && k < (long)rho) {
			const int v = idsg_rx(c, b, f, k) + 128;

			q0 = c.qx[2 * v];
			q1 = c.qx[2 * v + 1];
		}
		win[2 * w] = q0;
		win[2 * w + 1] = q1;
	}
}

/* The frame slot's parts. */
struct idsg_slot {
	double *gsum, *alpha, *beta;
	float *gamma, *post;
	uint8_t *sym;
	int *flag;
};

__device__ __forceinline__ struct idsg_slot idsg_slot_of(const struct idsg_frame_ws &L, char *ws,
                                                         uint32_t fl)
{
	char *base = ws + (size_t)fl * L.total;

	return {(double *)(base + L.gsum), (double *)(base + L.alpha), (double *)(base + L.beta),
	        (float *)(base + L.gamma), (float *)(base + L.post),   (uint8_t *)(base + L.sym),
	        (int *)(base + L.flag)};
}

/* ---- gamma: grid (symbol blocks, frames), syms symbols a block, 4 threads per (i, m'). */
template <int MN_T, bool EXACT>
__global__ void idsg_gamma_kernel(const struct idsg_code c, const struct gpu_batch b,
                                  uint32_t first, char *ws, const struct idsg_frame_ws L,
                                  uint32_t syms)
{
	extern __shared__ float win[];
	const uint32_t fl = blockIdx.y, f = first + fl;
	const struct fec_job *job = &b.jobs[f];

	if (!idsg_usable(c, job))
		return;
	const struct idsg_slot sl = idsg_slot_of(L, ws, fl);
	const uint32_t rho = job->in_len, i0 = blockIdx.x * syms, q = c.q;
	const uint32_t Mn = EXACT ? MN_T : c.Mn;
	const long kwin0 = idsg_window_first(c, i0);
	const uint32_t per_sym = c.Mtau * 4, items = syms * per_sym;
	const unsigned lane = threadIdx.x & 31u, mask = 0xfu << (lane & ~3u);

	if (blockIdx.x == 0 && threadIdx.x == 0)
		*sl.flag = 0; /* the scans and the posteriors set it where a normalisation fails */
	idsg_load_window(c, b, f, rho, kwin0, idsg_window(c, syms), win);
	__syncthreads();
	/* blockDim is a multiple of 32, items of 4: a (i, m') group's four threads run together */
	for (uint32_t it = threadIdx.x; it < items; it += blockDim.x) {
		const uint32_t i = i0 + it / per_sym, mi = it % per_sym / 4, k4 = it % 4;

		if (i >= c.N)
			continue;
		const int mp = c.fmin + (int)mi;
		const long start = (long)c.n * i + mp, avail = (long)rho - start;
		const size_t cell0 = ((size_t)i * c.Mtau + mi) * Mn;
		double acc[MN_T];

#pragma unroll
		for (int s = 0; s < MN_T; s++)
			acc[s] = 0.0;
		for (uint32_t D = k4; D < q; D += 4) {
			float F[MN_T + 2];

			if (start < 0 || start > (long)rho) {
				if (c.global)
					for (uint32_t s = 0; s < Mn; s++)
						sl.gamma[(cell0 + s) * q + D] = 0.0f;
				continue;
			}
			idsg_lattice<MN_T, EXACT>(c, win, kwin0, start, avail,
			                          c.cw[(size_t)i * q + D], F);
#pragma unroll
			for (int s = 0; s < MN_T; s++) {
				if (s >= (int)Mn)
					break;
				const int to = mp + c.cmin + s;
				const float g =
				    to >= c.fmin && to <= c.fmax ? c.prior * F[s + 1] : 0.0f;

				if (c.global)
					sl.gamma[(cell0 + s) * q + D] = g;
				acc[s] += (double)g;
			}
		}
		/* (s0 + s1) + (s2 + s3) over the group's threads k4 = 0..3 */
#pragma unroll
		for (int s = 0; s < MN_T; s++) {
			if (s >= (int)Mn)
				break;
			const double v01 = acc[s] + __shfl_down_sync(mask, acc[s], 1, 4);
			const double v23 = __shfl_down_sync(mask, v01, 2, 4);

			if (k4 == 0)
				sl.gsum[cell0 + s] = v01 + v23;
		}
	}
}

/* The sum of v[0 .. len - 1] in increasing order (ids_map.c normalise), on every lane. */
__device__ __forceinline__ double idsg_warp_sum(const double *v, uint32_t len, unsigned lane)
{
	double sum = 0.0;

	for (uint32_t t0 = 0; t0 < len; t0 += 32) {
		const double x = t0 + lane < len ? v[t0 + lane] : 0.0;
		const uint32_t m = len - t0 < 32 ? len - t0 : 32;

		for (uint32_t t = 0; t < m; t++)
			sum += __shfl_sync(IDSG_FULL, x, t);
	}
	return sum;
}

/* ---- alpha: alpha_0 is drift 0; alpha_(i+1)(to) sums over m' increasing, is normalised, and
 * dropped (0) below c.prune. One warp; false where a normalisation fails (the flag set). */
__device__ bool idsg_alpha(const struct idsg_code &c, const struct idsg_slot &sl, unsigned lane)
{
	const uint32_t Mt = c.Mtau, Mn = c.Mn;

	for (uint32_t to = lane; to < Mt; to += 32)
		sl.alpha[to] = (int)to == -c.fmin ? 1.0 : 0.0;
	__syncwarp();
	for (uint32_t i = 0; i < c.N; i++) {
		const double *a = sl.alpha + (size_t)i * Mt, *g = sl.gsum + (size_t)i * Mt * Mn;
		double *an = sl.alpha + (size_t)(i + 1) * Mt;

		for (uint32_t to = lane; to < Mt; to += 32) {
			const long hi = (long)to - c.cmin, lo = hi - (long)Mn + 1;
			double acc = 0.0;

			for (long mp = lo > 0 ? lo : 0; mp <= hi && mp < (long)Mt; mp++) {
				const double av = a[mp];

				if (av == 0.0)
					continue;
				acc += av * g[(size_t)mp * Mn + (size_t)(hi - mp)];
			}
			an[to] = acc;
		}
		__syncwarp();
		const double sum = idsg_warp_sum(an, Mt, lane);

		if (!(sum > 0.0) || !isfinite(sum)) {
			if (lane == 0)
				*sl.flag = 1;
			return false;
		}
		for (uint32_t to = lane; to < Mt; to += 32) {
			const double v = an[to] / sum;

			an[to] = v < c.prune ? 0.0 : v;
		}
		__syncwarp();
	}
	return true;
}

/* ---- beta: beta_N is the final drift rho - tau (its state last); beta_i(m') sums over d, 0
 * where alpha_i(m') is 0 (no path the forward pass kept goes through there). One warp, after
 * alpha. */
__device__ void idsg_beta(const struct idsg_code &c, const struct idsg_slot &sl, long last,
                          unsigned lane)
{
	const uint32_t Mt = c.Mtau, Mn = c.Mn;

	for (uint32_t to = lane; to < Mt; to += 32)
		sl.beta[(size_t)c.N * Mt + to] = (long)to == last ? 1.0 : 0.0;
	__syncwarp();
	for (uint32_t i = c.N; i-- > 0;) {
		const double *bb = sl.beta + (size_t)(i + 1) * Mt,
		             *g = sl.gsum + (size_t)i * Mt * Mn;
		double *bn = sl.beta + (size_t)i * Mt;

		const double *a = sl.alpha + (size_t)i * Mt;

		for (uint32_t mp = lane; mp < Mt; mp += 32) {
			double acc = 0.0;

			for (uint32_t d = 0; d < Mn && a[mp] != 0.0; d++) {
				const long to = (long)mp + c.cmin + (long)d;

				if (to < 0 || to >= (long)Mt || bb[to] == 0.0)
					continue;
				acc += bb[to] * g[(size_t)mp * Mn + d];
			}
			bn[mp] = acc;
		}
		__syncwarp();
		const double sum = idsg_warp_sum(bn, Mt, lane);

		if (!(sum > 0.0) || !isfinite(sum)) {
			if (lane == 0)
				*sl.flag = 1;
			return;
		}
		for (uint32_t mp = lane; mp < Mt; mp += 32)
			bn[mp] = bn[mp] / sum;
		__syncwarp();
	}
}

/* ---- the scans: one warp a frame, alpha then beta (which reads alpha's zeros); either failing
 * a normalisation erases the frame, as on the CPU. */
__global__ void idsg_scan_kernel(const struct idsg_code c, const struct gpu_batch b, uint32_t first,
                                 uint32_t count, char *ws, const struct idsg_frame_ws L)
{
	const uint32_t fl = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
	const unsigned lane = threadIdx.x & 31u;

	if (fl >= count)
		return;
	const struct fec_job *job = &b.jobs[first + fl];

	if (!idsg_usable(c, job))
		return;
	const struct idsg_slot sl = idsg_slot_of(L, ws, fl);

	if (idsg_alpha(c, sl, lane))
		idsg_beta(c, sl, (long)job->in_len - (long)c.tau - c.fmin, lane);
}

/* ---- post: grid (symbol blocks, frames), blockDim = syms q: thread (i, D). Shared: the
 * posteriors' sums and probabilities (2 blockDim doubles), the symbols' sums (syms doubles),
 * then (local storage) the window of Q values. */
template <int MN_T, bool EXACT>
__global__ void idsg_post_kernel(const struct idsg_code c, const struct gpu_batch b, uint32_t first,
                                 char *ws, const struct idsg_frame_ws L, uint32_t syms)
{
	extern __shared__ double sh[];
	const uint32_t fl = blockIdx.y, f = first + fl;
	const struct fec_job *job = &b.jobs[f];

	if (!idsg_usable(c, job))
		return;
	const struct idsg_slot sl = idsg_slot_of(L, ws, fl);

	/* erased by alpha or beta; read by one thread: other blocks of this kernel may set it */
	if (__syncthreads_or(threadIdx.x == 0 && *sl.flag))
		return;
	const uint32_t q = c.q, Mt = c.Mtau, Mn = EXACT ? MN_T : c.Mn, rho = job->in_len;
	const uint32_t il = threadIdx.x / q, D = threadIdx.x % q, i = blockIdx.x * syms + il;
	const long kwin0 = idsg_window_first(c, blockIdx.x * syms);
	double *lsh = sh, *psh = sh + blockDim.x, *ssum = sh + 2 * blockDim.x;
	float *win = (float *)(ssum + syms);
	const bool active = i < c.N;
	double lsum = 0.0;

	if (!c.global) {
		idsg_load_window(c, b, f, rho, kwin0, idsg_window(c, syms), win);
		__syncthreads();
	}
	if (active) {
		const double *a = sl.alpha + (size_t)i * Mt, *bb = sl.beta + (size_t)(i + 1) * Mt;
		const float *gi = sl.gamma + (size_t)i * Mt * Mn * q;
		const unsigned cw = c.cw[(size_t)i * q + D];

		for (uint32_t mp = 0; mp < Mt; mp++) {
			const double av = a[mp];
			const long start = (long)c.n * i + c.fmin + (long)mp;
			float F[MN_T + 2];

			/* a zero alpha makes every product zero, as a start outside the frame makes
			 * every gamma zero: the CPU adds nothing from either */
			if (av == 0.0 || start < 0 || start > (long)rho)
				continue;
			if (!c.global)
				idsg_lattice<MN_T, EXACT>(c, win, kwin0, start, (long)rho - start,
				                          cw, F);
#pragma unroll
			for (int d = 0; d < MN_T; d++) {
				if (d >= (int)Mn)
					break;
				const long to = (long)mp + c.cmin + d;
				float g;

				if (to < 0 || to >= (long)Mt)
					continue;
				const double bv = bb[to];

				if (bv == 0.0)
					continue;
				const double ab = av * bv;

				if (ab == 0.0)
					continue;
				if (c.global)
					g = gi[((size_t)mp * Mn + d) * q + D];
				else
					g = c.prior * F[d + 1];
				lsum += ab * (double)g;
			}
		}
	}
	lsh[threadIdx.x] = lsum;
	__syncthreads();
	if (active && D == 0) {
		double sum = 0.0;

		for (uint32_t k = 0; k < q; k++)
			sum += lsh[il * q + k];
		ssum[il] = sum;
		if (!(sum > 0.0) || !isfinite(sum))
			*sl.flag = 1;
	}
	__syncthreads();
	const double sum = active ? ssum[il] : 0.0;
	const bool ok = active && sum > 0.0 && isfinite(sum);

	if (ok) {
		const double p = lsum / sum;
		float lp = p > 0.0 ? (float)log(p) : IDS_LOGP_FLOOR;
		float *out = c.outer  ? sl.post + (size_t)i * q
		             : b.soft ? b.soft + (size_t)f * b.soft_stride + (size_t)i * q
		                      : NULL;

		psh[threadIdx.x] = p;
		lp = lp > IDS_LOGP_FLOOR ? lp : IDS_LOGP_FLOOR;
		if (out)
			out[D] = lp;
	}
	__syncthreads();
	if (ok && D == 0) {
		double best = -1.0;
		unsigned sym = 0;

		for (uint32_t k = 0; k < q; k++)
			if (psh[il * q + k] > best) {
				best = psh[il * q + k];
				sym = k;
			}
		sl.sym[i] = (uint8_t)sym;
	}
}

/* The job's outputs when erased (ids_coder.c). */
__device__ __forceinline__ void idsg_erase(struct fec_job *job)
{
	job->out_bits = 0;
	job->soft_count = 0;
	job->work = 0;
	job->metric = 0.0f;
	job->status = FECD_STATUS_ERASED;
}

/* ---- finish (no outer code): one block per frame; the symbols' bits, most significant first,
 * packed from the top of the first byte (codec bitpack.h). */
__global__ void idsg_finish_kernel(const struct idsg_code c, const struct gpu_batch b,
                                   uint32_t first, char *ws, const struct idsg_frame_ws L)
{
	const uint32_t fl = blockIdx.x, f = first + fl;
	struct fec_job *job = &b.jobs[f];
	const struct idsg_slot sl = idsg_slot_of(L, ws, fl);
	const bool ok = idsg_usable(c, job) && *sl.flag == 0;
	const uint32_t nbits = c.N * c.p;

	if (!ok) {
		if (threadIdx.x == 0)
			idsg_erase(job);
		return;
	}
	uint8_t *out = b.out + (size_t)f * b.out_stride;

	for (uint32_t j8 = threadIdx.x; j8 < (nbits + 7) / 8; j8 += blockDim.x) {
		unsigned byte = 0;

		for (uint32_t j = j8 * 8; j < j8 * 8 + 8 && j < nbits; j++)
			byte |= (sl.sym[j / c.p] >> (c.p - 1 - j % c.p) & 1u) << (7 - j % 8);
		out[j8] = (uint8_t)byte;
	}
	if (threadIdx.x == 0) {
		job->out_bits = nbits;
		job->soft_count = b.soft ? c.N * c.q : 0;
		job->work = 0;
		job->metric = 0.0f;
		job->status = FECD_STATUS_DECODED;
	}
}

/* ---- the outer code's jobs, before and after its decoder. */
__global__ void idsg_outer_jobs_kernel(const struct idsg_code c, const struct gpu_batch b,
                                       uint32_t first, uint32_t count, const char *ws,
                                       const struct idsg_frame_ws L, struct fec_job *ojobs,
                                       uint32_t in_syms)
{
	const uint32_t fl = blockIdx.x * blockDim.x + threadIdx.x;

	if (fl >= count)
		return;
	const int *flag = (const int *)(ws + (size_t)fl * L.total + L.flag);
	const bool ok = idsg_usable(c, &b.jobs[first + fl]) && *flag == 0;
	struct fec_job oj = {};

	oj.in_len = ok ? in_syms : 0;
	oj.own_len = oj.in_len;
	ojobs[fl] = oj;
}

__global__ void idsg_outer_done_kernel(const struct gpu_batch b, uint32_t first, uint32_t count,
                                       const struct fec_job *ojobs)
{
	const uint32_t fl = blockIdx.x * blockDim.x + threadIdx.x;

	if (fl >= count)
		return;
	struct fec_job *job = &b.jobs[first + fl];
	const struct fec_job *oj = &ojobs[fl];

	job->out_bits = oj->out_bits;
	job->soft_count = oj->soft_count;
	job->work = oj->work;
	job->metric = oj->metric;
	job->status = oj->status;
}

/* ---- launchers */

void idsg_frame_layout(const struct idsg_code *c, struct idsg_frame_ws *w)
{
	const size_t N = c->N, Mt = c->Mtau, Mn = c->Mn;
	size_t off = 0;

#define IDSG_PART(field, bytes)                                                                    \
	do {                                                                                       \
		w->field = off;                                                                    \
		off += ((size_t)(bytes) + 255) & ~(size_t)255;                                     \
	} while (0)
	IDSG_PART(gsum, N * Mt * Mn * sizeof(double));
	IDSG_PART(alpha, (N + 1) * Mt * sizeof(double));
	IDSG_PART(beta, (N + 1) * Mt * sizeof(double));
	IDSG_PART(gamma, c->global ? N * Mt * Mn * c->q * sizeof(float) : 0);
	IDSG_PART(post, c->outer ? N * c->q * sizeof(float) : 0);
	IDSG_PART(sym, N);
	IDSG_PART(flag, sizeof(int));
#undef IDSG_PART
	w->total = off;
}

static size_t idsg_gamma_smem(const struct idsg_code *c, uint32_t syms)
{
	return (size_t)idsg_window(*c, syms) * 2 * sizeof(float);
}

static size_t idsg_post_smem(const struct idsg_code *c, int threads, uint32_t syms)
{
	return (2 * (size_t)threads + syms) * sizeof(double) +
	       (c->global ? 0 : idsg_gamma_smem(c, syms));
}

/* Occupancy and registers of a kernel at a block size and shared memory. */
static cudaError_t idsg_occupancy(const void *fn, int threads, size_t smem, int *blocks, int *regs)
{
	struct cudaFuncAttributes fa;
	cudaError_t e = cudaFuncGetAttributes(&fa, fn);

	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, fn, threads, smem);
	*regs = fa.numRegs;
	return e;
}

/* The gamma kernel's block size: of 128, 64 and 256 threads the one with the most threads
 * resident per SM (registers and shared memory decide), with enough symbols a block that every
 * thread has two (i, m', D mod 4) items or more; the posterior kernel's occupancy. */
template <int MN_T, bool EXACT>
static cudaError_t idsg_prepare_t(const struct idsg_code *c, struct idsg_shape *sh)
{
	static const int cand[] = {128, 64, 256};
	const uint32_t per_sym = c->Mtau * 4;
	int best = -1;
	cudaError_t e;

	for (unsigned k = 0; k < sizeof(cand) / sizeof(cand[0]); k++) {
		uint32_t syms = (2u * (uint32_t)cand[k] + per_sym - 1) / per_sym;
		int blocks = 0, regs = 0;

		syms = syms < c->N ? syms : c->N;
		e = idsg_occupancy((const void *)idsg_gamma_kernel<MN_T, EXACT>, cand[k],
		                   idsg_gamma_smem(c, syms), &blocks, &regs);
		if (e != cudaSuccess)
			return e;
		if (blocks * cand[k] > best) {
			best = blocks * cand[k];
			sh->gamma_threads = cand[k];
			sh->gamma_syms = syms;
			sh->gamma_blocks_per_sm = blocks;
			sh->gamma_regs = regs;
		}
	}
	return idsg_occupancy((const void *)idsg_post_kernel<MN_T, EXACT>, sh->post_threads,
	                      idsg_post_smem(c, sh->post_threads, sh->post_syms),
	                      &sh->post_blocks_per_sm, &sh->post_regs);
}

int idsg_prepare(const struct idsg_code *c, const struct fecd_cuda_device *dev,
                 struct idsg_shape *sh)
{
	(void)dev; /* the occupancy API asks the current device, the decoder's */
	/* M_n 9 (Fig. 17, and every q at its channel) has rows of exactly its length */
	sh->mn_t = c->Mn == 9    ? 9
	           : c->Mn <= 12 ? 12
	           : c->Mn <= 16 ? 16
	           : c->Mn <= 32 ? 32
	                         : IDSG_MN_MAX;
	/* post: q threads a symbol, at least 64 a block */
	sh->post_threads = c->q >= 64 ? (int)c->q : 64;
	sh->post_syms = (uint32_t)sh->post_threads / c->q;
	sh->scan_warps = 4;
	idsg_frame_layout(c, &sh->ws);
	switch (sh->mn_t) {
	case 9:
		return idsg_prepare_t<9, true>(c, sh);
	case 12:
		return idsg_prepare_t<12, false>(c, sh);
	case 16:
		return idsg_prepare_t<16, false>(c, sh);
	case 32:
		return idsg_prepare_t<32, false>(c, sh);
	default:
		return idsg_prepare_t<IDSG_MN_MAX, false>(c, sh);
	}
}

template <int MN_T, bool EXACT>
static void idsg_launch_t(const struct idsg_code *c, const struct idsg_shape *sh,
                          const struct gpu_batch *b, uint32_t first, uint32_t count, char *ws,
                          cudaStream_t s, cudaEvent_t *marks)
{
	const dim3 gg((c->N + sh->gamma_syms - 1) / sh->gamma_syms, count);
	const dim3 gp((c->N + sh->post_syms - 1) / sh->post_syms, count);
	const unsigned scan_blocks = (count + sh->scan_warps - 1) / sh->scan_warps;

	if (marks)
		cudaEventRecord(marks[0], s);
	idsg_gamma_kernel<MN_T, EXACT>
	    <<<gg, sh->gamma_threads, idsg_gamma_smem(c, sh->gamma_syms), s>>>(
	        *c, *b, first, ws, sh->ws, sh->gamma_syms);
	if (marks)
		cudaEventRecord(marks[1], s);
	idsg_scan_kernel<<<scan_blocks, sh->scan_warps * 32, 0, s>>>(*c, *b, first, count, ws,
	                                                             sh->ws);
	if (marks) {
		cudaEventRecord(marks[2], s);
		cudaEventRecord(marks[3], s);
	}
	idsg_post_kernel<MN_T, EXACT>
	    <<<gp, sh->post_threads, idsg_post_smem(c, sh->post_threads, sh->post_syms), s>>>(
	        *c, *b, first, ws, sh->ws, sh->post_syms);
	if (marks)
		cudaEventRecord(marks[4], s);
	if (!c->outer)
		idsg_finish_kernel<<<count, 128, 0, s>>>(*c, *b, first, ws, sh->ws);
	if (marks)
		cudaEventRecord(marks[5], s);
}

int idsg_launch_inner(const struct idsg_code *c, const struct idsg_shape *sh,
                      const struct gpu_batch *b, uint32_t first, uint32_t count, char *ws,
                      cudaStream_t s, cudaEvent_t *marks)
{
	switch (sh->mn_t) {
	case 9:
		idsg_launch_t<9, true>(c, sh, b, first, count, ws, s, marks);
		break;
	case 12:
		idsg_launch_t<12, false>(c, sh, b, first, count, ws, s, marks);
		break;
	case 16:
		idsg_launch_t<16, false>(c, sh, b, first, count, ws, s, marks);
		break;
	case 32:
		idsg_launch_t<32, false>(c, sh, b, first, count, ws, s, marks);
		break;
	default:
		idsg_launch_t<IDSG_MN_MAX, false>(c, sh, b, first, count, ws, s, marks);
	}
	return (int)cudaGetLastError();
}

int idsg_launch_outer_jobs(const struct idsg_code *c, const struct gpu_batch *b, uint32_t first,
                           uint32_t count, const char *ws, const struct idsg_frame_ws *L,
                           struct fec_job *ojobs, uint32_t in_syms, cudaStream_t s)
{
	idsg_outer_jobs_kernel<<<(count + 127) / 128, 128, 0, s>>>(*c, *b, first, count, ws, *L,
	                                                           ojobs, in_syms);
	return (int)cudaGetLastError();
}

int idsg_launch_outer_done(const struct gpu_batch *b, uint32_t first, uint32_t count,
                           const struct fec_job *ojobs, cudaStream_t s)
{
	idsg_outer_done_kernel<<<(count + 127) / 128, 128, 0, s>>>(*b, first, count, ojobs);
	return (int)cudaGetLastError();
}
