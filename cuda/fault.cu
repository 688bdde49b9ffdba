/*
 * A deliberate device fault for the fallback tests: a kernel that traps, which the driver reports
 * exactly like a real fault (an asynchronous, sticky launch failure that the next synchronisation
 * returns and that leaves the context unusable).
 */
#include "gpu_core.h"

/* ---- Kernels */

__global__ void gpu_fault_kernel(void)
{
	__trap();
}

/* ---- Launcher */

extern "C" int gpu_fault_launch(cudaStream_t s, char *err, size_t errlen)
{
	gpu_fault_kernel<<<1, 1, 0, s>>>();
	cudaError_t e = cudaGetLastError();
	return e == cudaSuccess ? 0 : gpu_error(e, "launching the fault kernel", err, errlen);
}
