/*
 * CUDA errors into fecd's error convention: a message naming the call and CUDA's own text, and
 * -FEC_EDEVICE.
 */
#include <stdio.h>

#include "gpu_family.h"

int gpu_error(cudaError_t e, const char *what, char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
	return -FEC_EDEVICE;
}
