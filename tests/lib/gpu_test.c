/*
 * The GPU tests' opening and closing (gpu_test.h).
 */
#include <stdio.h>

#include "gpu_test.h"

int gpu_test_open(struct gpu_test *g)
{
	char msg[256] = "";

	g->ctx = NULL;
	g->lane = NULL;
	if (fecd_cuda_device_count(msg, sizeof(msg)) <= 0) {
		printf("SKIP: no CUDA device (%s)\n", msg);
		return GPU_TEST_SKIP;
	}
	if (fecd_cuda_open(0, &g->ctx, msg, sizeof(msg)) ||
	    fecd_cuda_lane_create(g->ctx, &g->lane, msg, sizeof(msg))) {
		fprintf(stderr, "CUDA: %s\n", msg);
		gpu_test_close(g);
		return 1;
	}
	return 0;
}

void gpu_test_close(struct gpu_test *g)
{
	if (g->lane)
		fecd_cuda_lane_destroy(g->lane);
	if (g->ctx)
		fecd_cuda_close(g->ctx);
	g->ctx = NULL;
	g->lane = NULL;
}
