/*
 * The min-max decoder on the GPU: not written yet (codec/nbldpc's layered min-max is being
 * redefined on the CPU first; its kernel lands here, bit for bit against it). Meanwhile the family
 * reports min-max specs as unsupported, and the daemon's GPU backend hands them to its CPU
 * threads.
 */
#include "nbldpc_gpu_minmax.h"

bool nbgpu_minmax_supports(const struct fec_spec *spec)
{
	(void)spec;
	return false; /* no kernel yet: the CPU decodes min-max channels */
}

int nbgpu_minmax_prepare(const struct nbgpu_code *c, const struct fecd_cuda_device *dev,
                         struct nbgpu_shape *sh, bool *ok)
{
	(void)c;
	(void)dev;
	(void)sh;
	*ok = false;
	return (int)cudaSuccess;
}

int nbgpu_minmax_launch(const struct nbgpu_code *c, const struct nbgpu_shape *sh,
                        const struct gpu_batch *b, void *ws, cudaStream_t s)
{
	(void)c;
	(void)sh;
	(void)b;
	(void)ws;
	(void)s;
	return (int)cudaErrorNotSupported; /* never reached: supports is false */
}
