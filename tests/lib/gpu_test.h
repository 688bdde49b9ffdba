/*
 * What every GPU test starts and ends with: device 0 and one lane, or the ctest skip code where
 * there is no device (label `gpu` tests run everywhere and skip on machines without one).
 */
#ifndef GPU_TEST_H
#define GPU_TEST_H

#include "fecd_cuda.h"

struct gpu_test {
	struct fecd_cuda *ctx;
	struct fecd_cuda_lane *lane;
};

#define GPU_TEST_SKIP 77 /* the ctest SKIP_RETURN_CODE of the gpu tests */

/* 0 with the context and lane open; GPU_TEST_SKIP (having said why) where there is no device;
 * 1 (having said why) where CUDA fails. */
int gpu_test_open(struct gpu_test *g);
void gpu_test_close(struct gpu_test *g);

#endif
