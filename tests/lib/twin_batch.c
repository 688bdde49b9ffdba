/*
 * A batch decoded on the CPU and on the GPU (twin_batch.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twin_batch.h"

static int side_alloc(struct twin_side *s, uint32_t count, size_t out_stride, size_t soft_stride)
{
	s->jobs = calloc(count, sizeof(struct fec_job));
	s->out = calloc(count, out_stride);
	s->soft = calloc((size_t)count * soft_stride + 1, sizeof(float)); /* + 1: none wanted */
	return s->jobs && s->out && s->soft ? 0 : -1;
}

static void side_free(struct twin_side *s)
{
	free(s->jobs);
	free(s->out);
	free(s->soft);
}

int twin_batch_alloc(struct twin_batch *b, const struct fec_info *info, uint32_t count,
                     size_t in_stride, size_t out_stride)
{
	memset(b, 0, sizeof(*b));
	b->count = count;
	b->in_stride = in_stride;
	b->out_stride = out_stride;
	b->soft_stride = info->max_soft;
	b->f32 = info->in_kind != FEC_IN_S8_LLR;
	b->jobs = calloc(count, sizeof(struct fec_job));
	b->in = calloc(count, in_stride);
	b->in_f = calloc((size_t)count * in_stride, sizeof(float));
	if (!b->jobs || !b->in || !b->in_f ||
	    side_alloc(&b->cpu, count, out_stride, b->soft_stride) ||
	    side_alloc(&b->gpu, count, out_stride, b->soft_stride)) {
		twin_batch_free(b);
		return -1;
	}
	return 0;
}

void twin_batch_free(struct twin_batch *b)
{
	free(b->jobs);
	free(b->in);
	free(b->in_f);
	side_free(&b->cpu);
	side_free(&b->gpu);
	memset(b, 0, sizeof(*b));
}

struct fec_batch twin_batch_view(const struct twin_batch *b, struct twin_side *side, bool want_soft)
{
	memcpy(side->jobs, b->jobs, b->count * sizeof(struct fec_job));
	return (struct fec_batch){
	    .count = b->count,
	    .jobs = side->jobs,
	    .in = b->f32 ? NULL : b->in,
	    .in_f32 = b->f32 ? b->in_f : NULL,
	    .in_stride = b->in_stride,
	    .out = side->out,
	    .out_stride = b->out_stride,
	    .soft = want_soft ? side->soft : NULL,
	    .soft_stride = b->soft_stride,
	};
}

int twin_batch_decode(struct twin_batch *b, const struct fec_decoder *dec, struct gpu_test *g,
                      struct fecd_cuda_decoder *gdec, bool want_soft, char *err, size_t errlen)
{
	const size_t scratch_bytes = fec_decoder_info(dec)->scratch_bytes;
	struct fec_batch bc = twin_batch_view(b, &b->cpu, want_soft);
	struct fec_batch bg = twin_batch_view(b, &b->gpu, want_soft);
	void *scratch = malloc(scratch_bytes ? scratch_bytes : 1);
	char why[256] = "";
	int rc;

	if (!scratch) {
		snprintf(err, errlen, "CPU decode: out of memory");
		return -1;
	}
	rc = fec_decode(dec, scratch, &bc, 0, b->count);
	free(scratch);
	if (rc) {
		snprintf(err, errlen, "CPU decode: %s", fec_strerror(rc));
		return -1;
	}
	if (fecd_cuda_lane_submit(g->lane, gdec, &bg, 0, why, sizeof(why)) ||
	    fecd_cuda_lane_wait(g->lane, why, sizeof(why))) {
		snprintf(err, errlen, "GPU decode: %s", why);
		return -1;
	}
	return 0;
}
