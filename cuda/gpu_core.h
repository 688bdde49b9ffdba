/*
 * Internal to cuda/: the objects behind fecd_cuda.h's opaque handles, shared by the context code
 * (fecd_cuda.c) and the lanes (lane.c), and the fault-injection launcher (fault.cu).
 */
#ifndef GPU_CORE_H
#define GPU_CORE_H

#include <pthread.h>

#include "gpu_family.h"

/* Batches one lane may have submitted and not yet waited for. */
#define GPU_LANE_RING 32

struct fecd_cuda {
	struct fecd_cuda_device dev;
	pthread_mutex_t lock; /* the lists below */
	struct fecd_cuda_lane *lanes;
	struct fecd_cuda_decoder *decoders;
};

struct fecd_cuda_decoder {
	struct fecd_cuda *ctx;
	const struct gpu_family_ops *ops;
	void *impl;
	const struct fec_decoder *cpu;
	struct fecd_cuda_decoder *next;
};

/* Device memory of one lane, grown on demand. */
struct gpu_buf {
	void *p;
	size_t cap;
};

struct fecd_cuda_lane {
	struct fecd_cuda *ctx;
	cudaStream_t stream;
	struct gpu_buf jobs, in, out, soft, ws;
	/* Pending batches: events recorded after each batch's last copy, oldest at head. Submit
	 * and wait may run on different threads; lock guards head, count and fault_next. */
	pthread_mutex_t lock;
	cudaEvent_t ev[GPU_LANE_RING];
	unsigned head, count;
	bool fault_next;
	uint32_t last_count; /* jobs of the previous submit, for NO_COPY_IN */
	struct fecd_cuda_lane *next;
};

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the device current on the calling thread (CUDA keeps it per thread). */
int gpu_use_device(const struct fecd_cuda *ctx, char *err, size_t errlen);

/* Enqueues a kernel that traps on stream s (fault.cu). */
int gpu_fault_launch(cudaStream_t s, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
