/*
 * Internal to the GPU Viterbi files: the fast kernel's per-code launch data (which template
 * instance, its launch shape, its branch-metric selectors) and its host-side entry points.
 */
#ifndef VITERBI_GPU_FAST_CUH
#define VITERBI_GPU_FAST_CUH

#include "viterbi_gpu_common.cuh"

#define VGPU_FAST_K_MAX 8
#define VGPU_FAST_THREADS_MAX 1024 /* threads per block (fast_body's shared arrays) */
#define VGPU_FAST_REGS  (1 << (VGPU_FAST_K_MAX - 2)) /* packed metric registers at K_MAX */

/* PRMT selectors that build each candidate's packed branch metrics from the stage's table:
 * [phase - 1][output register][0: from P (even predecessors), 1: from Q][0: outputs 0-1,
 * 1: outputs 2-3]. */
struct vgpu_sel {
	uint32_t s[VGPU_FAST_K_MAX - 2][VGPU_FAST_REGS][2][2];
	int32_t ymat[4];      /* KIND_STD7: canonical symbols = ymat x the code's (row-major 2x2) */
	int32_t mix; /* odd warps trace each job back after the next one's forward pass */
};

struct vgpu_fast {
	bool ok;  /* a fast instance exists for this code */
	int kind; /* 0: n = 2, 1: n = 2 symmetric, 2: n = 3 or 4, 3: K = 7 171/133 family */
	int opt;  /* KIND_STD7: OPT_FULL / OPT_DPX of the instance (viterbi_gpu_fast.cu) */
	bool sym; /* KIND_STD7: compile-time symbol fetch where the code is unpunctured */
	int threads, blocks_per_sm, regs;
	size_t smem; /* static shared memory: the traceback's table */
	int sms;     /* the device's SMs, for the balanced launch shape */
	struct vgpu_sel sel;
};

/* Fills f for the code (f->ok false when no fast kernel fits it); returns a cudaError_t. */
int vgpu_fast_prepare(const struct vgpu_code *code, const struct fecd_cuda_device *dev,
                      struct vgpu_fast *f);
size_t vgpu_fast_ws_bytes(const struct vgpu_code *code, const struct vgpu_fast *f, uint32_t count);
int vgpu_fast_launch(const struct vgpu_code *code, const struct vgpu_fast *f,
                     const struct gpu_batch *b, void *ws, cudaStream_t s);

#endif
