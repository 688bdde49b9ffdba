/*
 * Internal to the GPU fano files: the code and decoder parameters as the kernels take them
 * (passed by value at each launch), the layout of a launch's workspace, and the launcher of the
 * budget ladder (fano_gpu_kernel.cu). FANO_GPU.md has the design.
 */
#ifndef FANO_GPU_CUH
#define FANO_GPU_CUH

#include <stdint.h>

#include <cuda_runtime.h>

/* The codec's headers are C: their functions have C linkage. */
extern "C" {
#include "fec.h"
#include "fano.h"
}
#include "gpu_family.h"

#define FGPU_QUEUE   8 /* context queue entries per walker (a power of 2; a cache) */
#define FGPU_RUNGS   12
#define FGPU_THREADS 128
/* UFA: resident blocks per SM the compiler must fit (registers), for latency hiding: a cycle is
 * a chain of dependent shared-memory reads */
#define FGPU_UFA_BLOCKS 12
/* BFA: at most 64 registers (8 blocks) */
#define FGPU_BFA_BLOCKS 8
/* added to each bit's Fano metric (at least -4096, at most 16) in the device's metric table */
#define FGPU_MET_BIAS 4096

/* What the kernels read about the code and the decoder (codec/fano/fano_decode.c's fields). */
struct fgpu_code {
	uint32_t k, n, info_bits, stages, lut_bytes;
	uint32_t frame_syms;
	uint32_t words;     /* uint64 words of one walker's path */
	uint32_t merge_len; /* K - 2 + merge */
	uint32_t budget;    /* cycles per frame */
	uint64_t smask;     /* the K - 1 bits of a state */
	int32_t delta;
	float delta_inv;        /* 1 / delta, for the tightening's quotient */
	uint32_t delta_lowmask; /* delta - 1 where delta is a power of two, else 0 */
	float llr_scale;        /* float32 input: int8 LLR = round(llr * llr_scale) */
	bool bfa;
	unsigned kernel; /* the kernels' build, FECD_FANO_GPU_KERNEL: 0, 1, 2 (FANO_GPU.md) */
	uint32_t early;  /* the new walker: a lane whose window is used this far (bytes) reloads it
	                  * where another lane of its warp must (FECD_FANO_GPU_EARLY, 16) */
	uint64_t poly[2][4]; /* fano_code.poly: [0] forward, [1] backward (Karn's notation) */
	const uint8_t *lut;  /* device: [2][8][256], fano_code.lut */
	const uint32_t *met; /* device: [256] by int8 LLR + 128: met[0] + FGPU_MET_BIAS in the low
	                      * 16 bits, met[1] + FGPU_MET_BIAS in the high 16 bits */
};

/* One launch's device workspace, carved from the lane's buffer (fgpu_ws_layout). Walker slots:
 * one per frame (UFA) or two, forward then backward (BFA). Path word w of slot s is at
 * path[w * slots + s] (neighbouring threads' words side by side). */
struct fgpu_ws {
	uint32_t slots;
	int8_t *in8; /* int8 LLRs converted from packed 4-bit or float32 input, or NULL */
	size_t in8_stride;
	uint64_t *path;
	int32_t *T, *gamma; /* per slot: the walker's state between rungs */
	uint64_t *state;
	uint32_t *depth_i; /* per slot: depth << 1 | i */
	uint32_t *used;    /* per frame: cycles used so far */
	uint32_t *list[2]; /* frames left for the next rung, in turn */
	uint32_t *counter; /* [FGPU_RUNGS]: frames each rung left */
	uint32_t *cursor;  /* [FGPU_RUNGS]: UFA, frames each rung has taken (its queue's head) */
};

/* Bytes of workspace for count jobs; with base, fills *ws (base NULL: size only). */
size_t fgpu_ws_layout(const struct fgpu_code *c, uint32_t count, void *base, struct fgpu_ws *ws);

/* The launch shape for the device: threads per block and resident blocks per SM of the rung
 * kernel; 0 or a CUDA error. */
int fgpu_shape(const struct fgpu_code *c, int *threads, int *blocks_per_sm, int *regs);

/* The cycle budgets of the ladder's rungs (each the budget a frame has used when that rung ends,
 * the last the channel's budget); returns how many. ladder false: one rung. */
unsigned fgpu_rungs(const struct fgpu_code *c, bool ladder, uint32_t rung[FGPU_RUNGS]);

/* Enqueues the whole decode of b on s: the input conversion where needed, then every rung, each
 * continuing the frames the one before left; no host synchronisation. 0 or a CUDA error. */
int fgpu_launch(const struct fgpu_code *c, const struct gpu_batch *b, void *ws_base, int threads,
                int grid, const uint32_t *rung, unsigned nrungs, cudaStream_t s);

/* The simulator's encoder (fano_gpu_sim.cu), fano_gpu_family's sim_encoder. */
extern "C" const struct gpu_sim_encoder_ops fano_gpu_sim_encoder;

#endif
