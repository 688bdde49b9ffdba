/*
 * Internal to the GPU Viterbi files: the multi-lane kernel (2, 4 or 8 threads per job, K 8..9)
 * launch data (template instance, launch shape, the lane-independent branch-metric selectors)
 * and its host-side entry points.
 */
#ifndef VITERBI_GPU_LANES_CUH
#define VITERBI_GPU_LANES_CUH

#include "viterbi_gpu_common.cuh"

#define VGPU_LANES_K_MIN  7
#define VGPU_LANES_LB_MIN 1 /* log2 of the lanes per job */
#define VGPU_LANES_LB_MAX 3
/* Stages per relayout cycle (K - 2 - lb) and packed registers per lane (2^(K - 2 - lb)), at most.
 */
#define VGPU_LANES_CMAX (CONV_K_MAX - 2 - VGPU_LANES_LB_MIN)
#define VGPU_LANES_RMAX (1 << VGPU_LANES_CMAX)

/* PRMT selectors for lane 0's registers: [dest phase][register][0: from P, 1: from Q][0: outputs
 * 0-1, 1: outputs 2-3]. Other lanes use the same selectors on a table whose index is XORed with
 * the lane's part of the code word (symbol signs flipped), so the selectors stay uniform. */
struct vgpu_lsel {
	uint32_t s[VGPU_LANES_CMAX][VGPU_LANES_RMAX][2][2];
};

struct vgpu_lanes {
	bool ok;
	int lb;   /* log2 lanes per job */
	int wide; /* n = 3..4 */
	int threads, blocks_per_sm, regs;
	size_t smem; /* dynamic shared memory per block */
	struct vgpu_lsel sel;
};

/* Fills l for the code with 2^lb lanes per job (lb 0: the default for K); l->ok false when the
 * kernel does not fit the code. Returns a cudaError_t. */
int vgpu_lanes_prepare(const struct vgpu_code *code, int lb, struct vgpu_lanes *l);
size_t vgpu_lanes_ws_bytes(const struct vgpu_code *code, uint32_t count);
int vgpu_lanes_launch(const struct vgpu_code *code, const struct vgpu_lanes *l,
                      const struct gpu_batch *b, void *ws, cudaStream_t s);

#endif
