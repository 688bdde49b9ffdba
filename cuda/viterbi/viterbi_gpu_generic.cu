/*
 * The GPU Viterbi decoder for every code: one thread per job, path metrics as int32 in the
 * thread's local memory, decisions one bit per state in 64-bit words laid out [row][word][job] in
 * the workspace so that a warp's stores and loads are coalesced. It follows codec/viterbi/viterbi.c
 * step by step (same metrics, ties, renormalisation, end state and traceback), so it is the
 * reference the fast kernels are checked against as well as the path for K = 9 and rare shapes.
 */
#include "viterbi_gpu_common.cuh"

#define GEN_UNREACHABLE  (-(1 << 20))
#define GEN_RENORM_EVERY 32

/* ---- Kernel */

template <bool S4>
__global__ void viterbi_generic_kernel(const struct vgpu_code code, struct gpu_batch b,
                                       uint64_t *__restrict__ dec)
{
	const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	const uint32_t nst = code.nstates, words = nst > 64 ? nst / 64 : 1;
	int32_t pm[2][CONV_STATES_MAX];
	struct vgpu_plan p;
	struct fec_job job;

	if (i >= b.count)
		return;
	job = b.jobs[i];
	if (!vgpu_plan_job(code, job, &p)) {
		vgpu_job_erased(&b.jobs[i]);
		return;
	}
	const uint8_t *slot = (const uint8_t *)b.in + (size_t)i * b.in_stride;
	const uint32_t total = p.head + p.own + p.tail;
	int32_t *old = pm[0], *nw = pm[1];
	long long offset = 0;
	uint32_t pos = 0, step = 0, end = 0;

	for (uint32_t s = 0; s < nst; s++)
		old[s] = p.start_known && s ? GEN_UNREACHABLE : 0;
	for (uint32_t t = 0; t < total; t++) {
		int32_t bm[16];
		int32_t y[CONV_N_MAX];
		const uint32_t sent = code.sent[step];

		for (uint32_t r = 0; r < code.n; r++)
			y[r] = (sent >> r & 1u) ? vgpu_symbol<S4>(slot, pos++) : 0;
		for (uint32_t w = 0; w < (1u << code.n); w++) {
			int32_t m = 0;

			for (uint32_t r = 0; r < code.n; r++)
				m += (w >> r & 1u) ? -y[r] : y[r];
			bm[w] = m;
		}
		for (uint32_t wd = 0; wd < words; wd++) {
			uint64_t bits = 0;

			for (uint32_t k = 0; k < 64 && 64 * wd + k < nst; k++) {
				const uint32_t ns = 64 * wd + k, bit = ns >> (code.k - 2);
				const uint32_t p0 = (ns << 1) & (nst - 1);
				const uint32_t r0 = bit << (code.k - 1) | p0;
				const int32_t c0 = old[p0] + bm[code.word[r0]];
				const int32_t c1 = old[p0 | 1] + bm[code.word[r0 | 1]];

				bits |= (uint64_t)(c1 > c0) << k;
				nw[ns] = c1 > c0 ? c1 : c0;
			}
			if (t >= p.head)
				dec[((size_t)(t - p.head) * words + wd) * b.count + i] = bits;
		}
		int32_t *tmp = old;
		old = nw;
		nw = tmp;
		step = step + 1 == code.period ? 0 : step + 1;
		if (t % GEN_RENORM_EVERY == GEN_RENORM_EVERY - 1) {
			int32_t top = old[0];

			for (uint32_t s = 1; s < nst; s++)
				top = old[s] > top ? old[s] : top;
			for (uint32_t s = 0; s < nst; s++)
				old[s] -= top;
			offset += top;
		}
	}
	if (!p.end_zero)
		for (uint32_t s = 1; s < nst; s++)
			if (old[s] > old[end])
				end = s;

	uint8_t *out = b.out + (size_t)i * b.out_stride;
	const long long metric = offset + old[end];
	uint32_t acc = 0;

	/* Bytes are built backwards and stored when their first (most significant) bit is in. */
	for (uint32_t r = p.own + p.tail; r-- > 0;) {
		const uint64_t w = dec[((size_t)r * words + end / 64) * b.count + i];

		if (r < p.out_bits) {
			acc |= (end >> (code.k - 2) & 1u) << (7 - r % 8);
			if (r % 8 == 0) {
				out[r / 8] = (uint8_t)acc;
				acc = 0;
			}
		}
		end = ((end << 1) & (nst - 1)) | (uint32_t)(w >> (end % 64) & 1u);
	}
	vgpu_job_decoded(&b.jobs[i], p.out_bits, metric);
}

/* ---- Launcher */

size_t vgpu_generic_ws_bytes(const struct vgpu_code *code, uint32_t count)
{
	const uint32_t words = code->nstates > 64 ? code->nstates / 64 : 1;

	return (size_t)code->rows * words * count * sizeof(uint64_t);
}

static const void *generic_fn(bool s4)
{
	return s4 ? (const void *)viterbi_generic_kernel<true>
	          : (const void *)viterbi_generic_kernel<false>;
}

int vgpu_generic_shape(const struct vgpu_code *code, int *threads, int *blocks_per_sm, int *regs)
{
	struct cudaFuncAttributes fa;
	int min_grid = 0, block = 0, active = 0;
	cudaError_t e;

	(void)code;
	e = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, viterbi_generic_kernel<false>, 0,
	                                       0);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active,
		                                                  viterbi_generic_kernel<false>,
		                                                  block, 0);
	if (e == cudaSuccess)
		e = cudaFuncGetAttributes(&fa, generic_fn(false));
	if (e != cudaSuccess)
		return (int)e;
	*threads = block;
	*blocks_per_sm = active;
	*regs = fa.numRegs;
	return 0;
}

int vgpu_generic_launch(const struct vgpu_code *code, const struct gpu_batch *b, void *ws,
                        int threads, cudaStream_t s)
{
	const unsigned grid = (b->count + (unsigned)threads - 1) / (unsigned)threads;

	if (!b->count)
		return 0;
	if (b->in_kind == GPU_IN_S4_LLR)
		viterbi_generic_kernel<true><<<grid, threads, 0, s>>>(*code, *b, (uint64_t *)ws);
	else
		viterbi_generic_kernel<false><<<grid, threads, 0, s>>>(*code, *b, (uint64_t *)ws);
	return (int)cudaGetLastError();
}
