/*
 * Internal to the GPU ids files: the code and the MAP decoder's state space as the kernels take
 * them (passed by value at each launch), the launch shape chosen at create(), the workspace of
 * the frames decoded at once, and the launcher of ids_gpu_kernels.cu. IDS_GPU.md has the design.
 *
 * The kernels reproduce codec/ids/ids_map.c's arithmetic operation for operation: the lattice and
 * gamma in float, the sums over D, alpha, beta and the posteriors in double, each sum in the
 * CPU's order. This folder's sources are compiled without contraction into FMA and without
 * flushing subnormals (its CMakeLists.txt), so the gammas are the CPU's bit for bit.
 */
#ifndef IDS_GPU_CUH
#define IDS_GPU_CUH

#include <stdint.h>

#include <cuda_runtime.h>

extern "C" {
#include "fec.h"
}
#include "gpu_family.h"

/* The longest lattice row (M_n, the drift change over one codeword) the kernels are compiled
 * for: rows live in registers. Wider corridors (a channel of pi near 1/2) decode on the CPU. */
#define IDSG_MN_MAX 64

/* Everything a kernel reads about the code and the decoder. */
struct idsg_code {
	uint32_t N, q, n, p; /* symbols, alphabet, codeword bits, log2 q */
	uint32_t Mtau, Mn, tau, rho_max;
	int fmin, fmax, cmin, cmax;
	float hpi, pd;      /* lattice weights: 1/2 pi, pd */
	float prior;        /* 1/q: the uniform prior (the GPU decodes without priors) */
	double prune;       /* alpha below it dropped after each normalisation (0: none) */
	const uint16_t *cw; /* device: N * q codewords */
	const float *qx;    /* device: 256 * 2: Q(y | 0), Q(y | 0) + (Q(y | 1) - Q(y | 0)) */
	int in;             /* enum fec_in_kind: s8 or f32 LLRs */
	float llr_scale;
	bool global; /* storage: every gamma kept (else recomputed for the posteriors) */
	bool outer;  /* posteriors to the workspace for the outer decoder */
};

/* Per frame in flight, in the workspace (each part a multiple of 256 bytes). */
struct idsg_frame_ws {
	size_t gsum;  /* N * Mtau * Mn doubles: gamma summed over D */
	size_t alpha; /* (N + 1) * Mtau doubles */
	size_t beta;  /* (N + 1) * Mtau doubles */
	size_t gamma; /* global: N * Mtau * Mn * q floats; local: 0 */
	size_t post;  /* outer: N * q floats (the outer decoder's input); else 0 */
	size_t sym;   /* N bytes: hard symbols */
	size_t flag;  /* one int: nonzero when a normalisation failed (erased) */
	size_t total;
};

/* Launch shape chosen at create() from q, n, the state space and the device. */
struct idsg_shape {
	int mn_t; /* lattice row length compiled for (M_n <= mn_t): 9 (exactly), 12, 16, 32, 64 */
	int gamma_threads;   /* gamma kernel: threads per block */
	uint32_t gamma_syms; /* symbols per block */
	int gamma_regs, gamma_blocks_per_sm;
	int post_threads; /* posterior kernel: threads per block, q per symbol */
	uint32_t post_syms;
	int post_regs, post_blocks_per_sm;
	int scan_warps;  /* the scan kernel: warps (frames) per block */
	uint32_t frames; /* frames in flight: the largest chunk one launch decodes at once */
	struct idsg_frame_ws ws;
};

void idsg_frame_layout(const struct idsg_code *c, struct idsg_frame_ws *ws);
/* Fills the kernel parts of the shape (mn_t, threads, symbols per block, occupancy). */
int idsg_prepare(const struct idsg_code *c, const struct fecd_cuda_device *dev,
                 struct idsg_shape *sh);

/* Decodes jobs first .. first + count - 1 of b (count <= sh->frames) with the workspace ws:
 * the inner code's hard symbols, flags and posteriors (or soft output), and, without an outer
 * code, each job's outputs. With an outer code the posteriors stay in the workspace and the
 * caller runs the outer decoder (ids_gpu.cu). marks: NULL, or 6 events recorded before the
 * gamma kernel and after each stage (gamma, the scans, nothing: alpha and beta run in one
 * kernel, post, finish), for test/bench_gpu_ids.cu. Returns 0 or a cudaError_t. */
int idsg_launch_inner(const struct idsg_code *c, const struct idsg_shape *sh,
                      const struct gpu_batch *b, uint32_t first, uint32_t count, char *ws,
                      cudaStream_t s, cudaEvent_t *marks);

/* For test/bench_gpu_ids.cu: the inner launch of b's first jobs (at most the frames in flight)
 * on an impl from ids_gpu_family.create, each stage's milliseconds into ms[0..4] (as marks).
 * Returns 0 or a cudaError_t. */
int idsg_time_stages(const void *impl, const struct gpu_batch *b, void *ws, cudaStream_t s,
                     float ms[5]);
/* The frames in flight of an impl: the most one launch of the inner kernels takes. */
uint32_t idsg_frames_in_flight(const void *impl);

/* With an outer code: the outer decoder's jobs from the inner results (an erased frame gets
 * in_len 0, which the outer decoder erases), and afterwards the outer results into b's jobs. */
int idsg_launch_outer_jobs(const struct idsg_code *c, const struct gpu_batch *b, uint32_t first,
                           uint32_t count, const char *ws, const struct idsg_frame_ws *L,
                           struct fec_job *ojobs, uint32_t in_syms, cudaStream_t s);
int idsg_launch_outer_done(const struct gpu_batch *b, uint32_t first, uint32_t count,
                           const struct fec_job *ojobs, cudaStream_t s);

#endif
