/*
 * The min-max decoder's slot in the GPU nbldpc family (nbldpc_gpu.cu dispatches by decoder): its
 * kernel and launcher live in nbldpc_gpu_minmax.cu, apart from FFT-BP's. Until that kernel is
 * written, nbgpu_minmax_supports says no to every spec, so fecd_cuda_supports is false for
 * min-max channels and the CPU backend decodes them, as it does any code the GPU does not.
 * The kernel must give codec/nbldpc's layered min-max output bit for bit (integer costs).
 */
#ifndef NBLDPC_GPU_MINMAX_H
#define NBLDPC_GPU_MINMAX_H

#include "nbldpc_gpu.cuh"

/* Whether the min-max kernel decodes this (finished) spec. */
bool nbgpu_minmax_supports(const struct fec_spec *spec);
/* The launch shape for the code on the device; a cudaError_t, false in *ok where the kernel
 * cannot take the code. */
int nbgpu_minmax_prepare(const struct nbgpu_code *c, const struct fecd_cuda_device *dev,
                         struct nbgpu_shape *sh, bool *ok);
/* Enqueues the decode of b on stream s; a cudaError_t (cudaGetLastError after the launch). */
int nbgpu_minmax_launch(const struct nbgpu_code *c, const struct nbgpu_shape *sh,
                        const struct gpu_batch *b, void *ws, cudaStream_t s);

#endif
