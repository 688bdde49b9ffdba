/*
 * Internal to cuda/: what the backend core (contexts, lanes, copies) needs of one family's GPU
 * decoder. A family implements these operations in its folder (viterbi/viterbi_gpu.cu, ...) and
 * adds itself to GPU_FAMILY_MAP; the core never looks inside.
 *
 * The core copies a batch to the device as it is: the jobs array (struct fec_job, the same layout
 * as on the host) and the input slots at in_stride. The family's launch decodes every job exactly
 * as the CPU decoder would (same out_bits, status, metric, bits and soft values) and writes the
 * outputs at out_stride / soft_stride on the device; the core copies them back.
 */
#ifndef GPU_FAMILY_H
#define GPU_FAMILY_H

#include <cuda_runtime_api.h>

#include "fecd_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A batch in device memory. */
struct gpu_batch {
	uint32_t count;
	struct fec_job *jobs;   /* device: inputs filled by the host, outputs by the launch */
	const void *in;         /* device: int8 symbols, or packed 4-bit when in_s4 */
	size_t in_stride;       /* bytes between jobs' input slots */
	bool in_s4;
	bool in_f32;            /* float32 LLRs (in_stride still in bytes here) */
	uint8_t *out;           /* device */
	size_t out_stride;
	float *soft;            /* device, NULL when no soft output is wanted */
	size_t soft_stride;
};

struct gpu_family_ops {
	enum fecd_family family;
	/* Whether this family's GPU decoder handles the (finished) spec. */
	bool (*supports)(const struct fec_spec *spec);
	/* Builds the device-side decoder for cpu_dec (tables uploaded, launch shape chosen from the
	 * device's properties and the code); *impl is the family's own object. */
	int (*create)(const struct fecd_cuda_device *dev, const struct fec_decoder *cpu_dec,
		      void **impl, char *err, size_t errlen);
	/* Device workspace one launch of up to count jobs needs (survivors, ...), in bytes. */
	size_t (*workspace_bytes)(const void *impl, uint32_t count);
	/* Enqueues the decode of b on stream s; checks the launch (cudaGetLastError). */
	int (*launch)(const void *impl, const struct gpu_batch *b, void *workspace, size_t ws_bytes,
		      cudaStream_t s, char *err, size_t errlen);
	const char *(*describe)(const void *impl);
	void (*destroy)(void *impl);
};

#define GPU_FAMILY_MAP(X) X(viterbi_gpu_family) X(ldpc_gpu_family)

#define X(ops) extern const struct gpu_family_ops ops;
GPU_FAMILY_MAP(X)
#undef X

/* "cudaMemcpyAsync: invalid argument" into err; returns -FEC_EDEVICE (for the families too). */
int gpu_error(cudaError_t e, const char *what, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
