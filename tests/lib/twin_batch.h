/*
 * A batch of jobs decoded twice, by the CPU decoder and by the GPU's, for the GPU tests that
 * compare the two job by job (test_gpu_ids, test_gpu_nbldpc): the jobs' input fields and their
 * symbols once, and each decode's jobs, output bits and soft values apart. The test fills the
 * symbols (in or in_f, at in_stride per job) and the jobs' in_len and own_len, then decodes.
 */
#ifndef TWIN_BATCH_H
#define TWIN_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fec.h"
#include "gpu_test.h"

/* One decode's outputs. */
struct twin_side {
	struct fec_job *jobs;
	uint8_t *out;
	float *soft;
};

struct twin_batch {
	uint32_t count;
	size_t in_stride, out_stride, soft_stride;
	bool f32;             /* the decoder reads in_f (float input kinds), else in */
	struct fec_job *jobs; /* the input fields, copied before each decode */
	int8_t *in;           /* count * in_stride, zeroed */
	float *in_f;          /* count * in_stride, zeroed */
	struct twin_side cpu, gpu;
};

/* Buffers for count jobs of a decoder of info (its input kind, in_stride values a job, out_stride
 * bytes and its max_soft values out): 0, or -1 out of memory (nothing left to free). */
int twin_batch_alloc(struct twin_batch *b, const struct fec_info *info, uint32_t count,
                     size_t in_stride, size_t out_stride);
void twin_batch_free(struct twin_batch *b);

/* The fec_batch that decodes b into side (its jobs reset from b's); soft output where want_soft. */
struct fec_batch twin_batch_view(const struct twin_batch *b, struct twin_side *side,
                                 bool want_soft);

/* Decodes b with dec on the CPU into b->cpu and with gdec on g's lane into b->gpu: 0, or -1 with
 * which decode failed, and why, in err. */
int twin_batch_decode(struct twin_batch *b, const struct fec_decoder *dec, struct gpu_test *g,
                      struct fecd_cuda_decoder *gdec, bool want_soft, char *err, size_t errlen);

#endif
