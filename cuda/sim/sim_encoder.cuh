/*
 * Shared by the families' device encoders for the simulator (cuda/<family>/<family>_gpu_sim.cu,
 * gpu_family.h's gpu_sim_encoder_ops): the launch of an encoding kernel, with the checks each
 * encode would otherwise write again. A family keeps its kernel and picks its grid; this
 * enqueues it on the engine's stream and turns a refused launch into fecd's error convention.
 */
#ifndef SIM_ENCODER_CUH
#define SIM_ENCODER_CUH

#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>

/* The codec's headers are C: their functions have C linkage. */
extern "C" {
#include "fec.h"
}
#include "gpu_family.h"

/* Most blocks a grid's x dimension holds (every device fecd runs on: compute capability 3.0 on). */
#define SIM_GRID_MAX 0x7fffffffu

/* Blocks of `block` threads that cover `threads` threads. */
static inline uint64_t sim_blocks(uint64_t threads, unsigned block)
{
	return (threads + block - 1) / block;
}

/* Enqueues kernel<<<blocks, block, smem, s>>>(args...) and checks the launch (cudaGetLastError).
 * 0, also where blocks is 0 (no frames: nothing enqueued); -FEC_EINVAL where blocks passes
 * SIM_GRID_MAX, -FEC_EDEVICE where CUDA refuses the launch, each with name (the kernel's) in
 * err. The arguments convert to the kernel's parameters as in a call. */
template <typename... Params, typename... Args>
static int sim_encode_launch(void (*kernel)(Params...), const char *name, uint64_t blocks,
                             unsigned block, size_t smem, cudaStream_t s, char *err, size_t errlen,
                             Args... args)
{
	if (blocks == 0)
		return 0;
	if (blocks > SIM_GRID_MAX) {
		snprintf(err, errlen, "%s: %llu blocks, more than a grid holds (%u)", name,
		         (unsigned long long)blocks, SIM_GRID_MAX);
		return -FEC_EINVAL;
	}
	kernel<<<(unsigned)blocks, block, smem, s>>>(args...);
	const cudaError_t e = cudaGetLastError();

	return e == cudaSuccess ? 0 : gpu_error(e, name, err, errlen);
}

#endif
