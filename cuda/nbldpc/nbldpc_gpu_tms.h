/*
 * The trellis min-sum decoder's (algo=tms) launcher in the GPU nbldpc family (nbldpc_gpu.cu
 * dispatches by decoder): its kernel lives in nbldpc_gpu_tms.cu and gives codec/nbldpc's
 * nbldpc_tms.c output bit for bit (integer costs; soft values are float and agree to rounding).
 */
#ifndef NBLDPC_GPU_TMS_H
#define NBLDPC_GPU_TMS_H

#include "nbldpc_gpu.cuh"

extern "C" {
#include "nbldpc_decoder.h"
}

/* Whether the tms kernel decodes this (finished) spec: every q. */
bool nbgpu_tms_supports(const struct fec_spec *spec);
/* The launch shape for the code on the device (a warp a frame, as many warps a block as the
 * shared memory allows, up to 4); a cudaError_t, false in *ok where one warp's slice of shared
 * memory for the code's longest row is more than a block has. */
int nbgpu_tms_prepare(const struct nbgpu_code *c, const struct fecd_cuda_device *dev,
                      struct nbgpu_shape *sh, bool *ok);
/* Enqueues the decode of b on stream s; a cudaError_t (cudaGetLastError after the launch). */
int nbgpu_tms_launch(const struct nbgpu_code *c, const struct nbgpu_shape *sh,
                     const struct gpu_batch *b, void *ws, cudaStream_t s);

#endif
