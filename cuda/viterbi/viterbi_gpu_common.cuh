/*
 * Internal to the GPU Viterbi files: the code's tables as the kernels take them (by value, as a
 * kernel parameter, so several decoders with different codes can share the module), and the
 * per-job rules every kernel applies exactly as codec/viterbi/viterbi.c does: job planning
 * (geometry checks, head/own/tail), symbol fetch from int8 or packed 4-bit input, and the job's
 * outputs.
 */
#ifndef VITERBI_GPU_COMMON_CUH
#define VITERBI_GPU_COMMON_CUH

#include <stdint.h>

#include <cuda_runtime.h>

/* The codec's headers are C: their functions have C linkage. */
extern "C" {
#include "conv_code.h"
#include "fec.h"
}
#include "gpu_family.h"

/* The code as every kernel needs it; mirrors struct conv_code plus the decoder's limits. */
struct vgpu_code {
	uint32_t k, n, nstates, period, unit_syms, mode;
	uint32_t rows;         /* decision rows per job: the most stages traceback reads */
	uint32_t max_out_bits; /* stream: decode_len */
	uint8_t word[2 * CONV_STATES_MAX];
	uint8_t sent[CONV_PUNCT_MAX];
	uint8_t cum[CONV_PUNCT_MAX + 1];
};

/* What one job decodes (codec/viterbi/viterbi.c plan_job). */
struct vgpu_plan {
	uint32_t head, own, tail, out_bits;
	bool start_known, end_zero;
};

__device__ __forceinline__ uint32_t vgpu_stages_in_syms(const struct vgpu_code &c, uint32_t nsyms)
{
	uint32_t stages = nsyms / c.unit_syms * c.period, rest = nsyms % c.unit_syms, t = 0;

	while (t < c.period && c.cum[t + 1] <= rest)
		t++;
	return stages + t;
}

__device__ __forceinline__ bool vgpu_plan_job(const struct vgpu_code &c, const struct fec_job &job,
                                              struct vgpu_plan *p)
{
	const uint32_t u = c.unit_syms, per = c.period;

	p->head = p->own = p->tail = p->out_bits = 0;
	p->start_known = p->end_zero = false;
	if (c.mode == CONV_MODE_STREAM) {
		uint32_t tail;

		if (job.head_len % u || job.own_len % u ||
		    (uint64_t)job.head_len + job.own_len > job.in_len)
			return false;
		p->head = job.head_len / u * per;
		p->own = job.own_len / u * per;
		if (p->own > c.max_out_bits)
			return false;
		tail = vgpu_stages_in_syms(c, job.in_len - job.head_len - job.own_len);
		p->tail = tail < c.rows - p->own ? tail : c.rows - p->own;
		p->out_bits = p->own;
		p->start_known = job.flags & FEC_JOB_STREAM_START;
		return true;
	}
	if (job.in_len % u)
		return false;
	p->own = job.in_len / u * per;
	if (p->own > c.rows)
		return false;
	p->start_known = true;
	p->out_bits = p->own;
	if (c.mode == CONV_MODE_TERMINATED) {
		if (p->own < c.k - 1)
			return false;
		p->out_bits = p->own - (c.k - 1);
		p->end_zero = true;
	}
	return true;
}

/* Symbol i of a job's slot: int8 as it is, or one nibble of packed 4-bit input expanded exactly
 * as codec/softbits.c does (two's complement, -8 -> -7, times 18). */
template <bool S4>
__device__ __forceinline__ int32_t vgpu_symbol(const uint8_t *slot, uint32_t i)
{
	if (!S4)
		return (int8_t)slot[i];
	uint32_t byte = slot[i / 2];
	int32_t v = (int32_t)((i & 1u) ? byte & 0xfu : byte >> 4);

	v = v >= 8 ? v - 16 : v;
	v = v == -8 ? -7 : v;
	return v * 18;
}

__device__ __forceinline__ int32_t vgpu_symbol_rt(const uint8_t *slot, uint32_t i, bool s4)
{
	return s4 ? vgpu_symbol<true>(slot, i) : vgpu_symbol<false>(slot, i);
}

__device__ __forceinline__ void vgpu_job_erased(struct fec_job *job)
{
	job->out_bits = 0;
	job->soft_count = 0;
	job->work = 0;
	job->metric = 0.0f;
	job->status = FECD_STATUS_ERASED;
}

__device__ __forceinline__ void vgpu_job_decoded(struct fec_job *job, uint32_t out_bits,
                                                 long long metric)
{
	job->out_bits = out_bits;
	job->soft_count = 0;
	job->work = 0;
	job->metric = (float)metric;
	job->status = FECD_STATUS_DECODED;
}

/* Launchers, one per kernel file (host side). */
int vgpu_generic_launch(const struct vgpu_code *code, const struct gpu_batch *b, void *ws,
                        int threads, cudaStream_t s);
size_t vgpu_generic_ws_bytes(const struct vgpu_code *code, uint32_t count);
int vgpu_generic_shape(const struct vgpu_code *code, int *threads, int *blocks_per_sm, int *regs);

#endif
