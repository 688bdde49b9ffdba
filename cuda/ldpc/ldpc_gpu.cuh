/*
 * Internal to the GPU LDPC files: the code's tables as the kernels take them (device pointers
 * and scalars, passed by value at each launch), the per-frame rules both kernels apply exactly as
 * codec/ldpc/ldpc_decode.c does (which jobs are usable, channel values, packed output), and the two
 * kernels' launchers: the generic one (any code, algorithm, schedule and input type) and the
 * fast one (layered min-sum on int8, two frames per thread in 16-bit halves).
 */
#ifndef LDPC_GPU_CUH
#define LDPC_GPU_CUH

#include <stdint.h>

#include <cuda_runtime.h>

/* The codec's headers are C: their functions have C linkage. */
extern "C" {
#include "fec.h"
#include "ldpc.h"
}
#include "gpu_family.h"

/* Everything a kernel reads about the code and the decoder's parameters. Edges of the layered
 * walk ("schedule", codec/ldpc/ldpc_decoder.h) are numbered by position; flooding uses the matrix's
 * own row order (row_start/row_col) and its column lists (col_start/col_edge). */
struct lgpu_code {
	uint32_t n, m, nnz, punct, n_tx, out_n, nlayers;
	const uint32_t *sched_start, *sched_col, *layer_start;
	const uint32_t *row_start, *row_col, *col_start, *col_edge;
	const uint32_t *out_cols; /* NULL: output bit j is column j */
	int algo;                 /* enum ldpc_algo */
	bool layered, early_stop, in_f32;
	int alpha16, offset8;
	float inv_scale, alpha, offset;
	uint32_t max_iters;
	/* the fast kernel's walk (ldpc_gpu.cu upload_fast): levels, steps, level ends in steps */
	uint32_t nlevels, nsteps;
	const uint32_t *step_end;
	uint32_t four;     /* 4: a multiplier the fast kernel's compiler cannot turn into a shift */
	uint32_t minus1;   /* -1 (all ones), the same for subtractions and negations */
	uint32_t two, one; /* 2, 1: the packed columns' byte multipliers; 1: the walk's too */
	uint32_t m65536;   /* -65536: a column pair's low column as cw - (cw >> 16) * 65536 */
};

/* The fast kernel's own table: per position of its step-major walk, the row's up to 8 columns
 * as 16-bit indices below 0xfffe (0xffff past the row's end; a padding position has none). */
#define LGPU_FAST_DEG 8
#define LGPU_PAD_COL  0xffffu
/* In a row's eighth slot, mixed layout: the row is DVB-S2's kind, 7 edges, 5 word columns then 2
 * packed (one test where the kernel would otherwise look at four columns). */
#define LGPU_ROW_5W2P 0xfffeu

/* Whether job i is decodable (codec/ldpc/ldpc_decode.c ldpc__job_ok); an unusable one gets its
 * ERASED outputs here. */
__device__ __forceinline__ bool lgpu_job_ok(const struct lgpu_code &c, struct fec_job *job)
{
	if (job->in_len == c.n_tx && job->head_len == 0)
		return true;
	job->out_bits = 0;
	job->soft_count = 0;
	job->work = 0;
	job->metric = 0.0f;
	job->status = FECD_STATUS_ERASED;
	return false;
}

__device__ __forceinline__ void lgpu_job_done(const struct lgpu_code &c, const struct gpu_batch &b,
                                              struct fec_job *job, unsigned it, bool ok)
{
	job->out_bits = c.out_n;
	job->soft_count = b.soft ? c.out_n : 0;
	job->work = it;
	job->metric = 0.0f;
	job->status = ok ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
}

__device__ __forceinline__ int lgpu_in8(const struct gpu_batch &b, uint32_t f, uint32_t t)
{
	const int v = ((const int8_t *)b.in)[(size_t)f * b.in_stride + t];

	return v < -127 ? -127 : v;
}

__device__ __forceinline__ float lgpu_inf(const struct lgpu_code &c, const struct gpu_batch &b,
                                          uint32_t f, uint32_t t)
{
	if (c.in_f32)
		return ((const float *)((const char *)b.in + (size_t)f * b.in_stride))[t];
	return (float)lgpu_in8(b, f, t) * c.inv_scale;
}

__device__ __forceinline__ uint32_t lgpu_out_col(const struct lgpu_code &c, uint32_t j)
{
	return c.out_cols ? c.out_cols[j] : j;
}

/* How the fast kernel keeps the two frames' app in shared memory: a 32-bit word per column,
 * every column packed to 12 bits per value (3 bytes), or words for the columns below a split
 * (DVB-S2: the information columns, degree 3 and 8) and the rest packed (its degree-2 parity
 * columns), which saves most edges the unpacking and packing. */
enum lgpu_layout { LGPU_APP_WORDS, LGPU_APP_PACKED, LGPU_APP_MIXED };

/* Launch shapes chosen at create() from the device and the kernels' resources. */
struct lgpu_shape {
	int threads, blocks_per_sm, regs, grid;
	size_t smem, ws_per_block;
	enum lgpu_layout layout; /* fast kernel's app */
	uint32_t recs;  /* fast kernel: records of LGPU_FAST_DEG columns per row (1, 2, 4) */
	uint32_t split; /* LGPU_APP_MIXED: columns below it are words */
};

/* Generic kernel: one block per frame; its working arrays in the workspace. */
int lgpu_generic_prepare(const struct lgpu_code *c, const struct fecd_cuda_device *dev,
                         struct lgpu_shape *sh);
int lgpu_generic_launch(const struct lgpu_code *c, const struct lgpu_shape *sh,
                        const struct gpu_batch *b, void *ws, cudaStream_t s);

/* Fast kernel: false in *ok when the code or parameters are outside what it handles.
 * col_start: the matrix's column bounds on the host (column degrees, for the layout); max_deg:
 * the most edges in a row (up to 4 LGPU_FAST_DEG). */
int lgpu_fast_prepare(const struct lgpu_code *c, const struct fecd_cuda_device *dev,
                      const uint32_t *col_start, uint32_t max_deg, struct lgpu_shape *sh, bool *ok);
/* Bytes of a row's messages in the fast kernel's workspace, for recs records per row. */
size_t lgpu_fast_rec_bytes(uint32_t recs);
int lgpu_fast_launch(const struct lgpu_code *c, const uint4 *tab, const struct lgpu_shape *sh,
                     const struct gpu_batch *b, void *ws, cudaStream_t s);

#endif
