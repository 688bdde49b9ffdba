/*
 * fecd_cuda.h for a fecd built without CUDA (no nvcc on the build machine): there is never a
 * device, so the GPU backend falls back to the CPU at start with one log line saying why, and the
 * rest of the daemon needs no #ifdef.
 */
#ifndef FECD_HAVE_CUDA

#include <stdio.h>

#include "fecd_cuda.h"

static const char none_msg[] = "this fecd was built without CUDA (no nvcc when it was built)";

int fecd_cuda_device_count(char *msg, size_t msglen)
{
	if (msg && msglen)
		snprintf(msg, msglen, "%s", none_msg);
	return 0;
}

int fecd_cuda_device_query(int index, struct fecd_cuda_device *out, char *err, size_t errlen)
{
	(void)index, (void)out;
	snprintf(err, errlen, "%s", none_msg);
	return -FEC_EDEVICE;
}

int fecd_cuda_open(int device, struct fecd_cuda **out, char *err, size_t errlen)
{
	(void)device, (void)out;
	snprintf(err, errlen, "%s", none_msg);
	return -FEC_EDEVICE;
}

/* The rest is unreachable without a context; it only has to link. */

void fecd_cuda_close(struct fecd_cuda *ctx)
{
	(void)ctx;
}

const struct fecd_cuda_device *fecd_cuda_device_info(const struct fecd_cuda *ctx)
{
	(void)ctx;
	return NULL;
}

unsigned fecd_cuda_default_lanes(const struct fecd_cuda *ctx)
{
	(void)ctx;
	return 1;
}

void *fecd_cuda_host_alloc(struct fecd_cuda *ctx, size_t len)
{
	(void)ctx, (void)len;
	return NULL;
}

void fecd_cuda_host_free(struct fecd_cuda *ctx, void *p)
{
	(void)ctx, (void)p;
}

bool fecd_cuda_supports(const struct fec_spec *spec)
{
	(void)spec;
	return false;
}

int fecd_cuda_decoder_create(struct fecd_cuda *ctx, const struct fec_decoder *cpu_dec,
                             struct fecd_cuda_decoder **out, char *err, size_t errlen)
{
	(void)ctx, (void)cpu_dec, (void)out;
	snprintf(err, errlen, "%s", none_msg);
	return -FEC_EDEVICE;
}

void fecd_cuda_decoder_destroy(struct fecd_cuda_decoder *dec)
{
	(void)dec;
}

const char *fecd_cuda_decoder_describe(const struct fecd_cuda_decoder *dec)
{
	(void)dec;
	return none_msg;
}

int fecd_cuda_lane_create(struct fecd_cuda *ctx, struct fecd_cuda_lane **out, char *err,
                          size_t errlen)
{
	(void)ctx, (void)out;
	snprintf(err, errlen, "%s", none_msg);
	return -FEC_EDEVICE;
}

void fecd_cuda_lane_destroy(struct fecd_cuda_lane *lane)
{
	(void)lane;
}

int fecd_cuda_lane_submit(struct fecd_cuda_lane *lane, const struct fecd_cuda_decoder *dec,
                          struct fec_batch *b, unsigned flags, char *err, size_t errlen)
{
	(void)lane, (void)dec, (void)b, (void)flags;
	snprintf(err, errlen, "%s", none_msg);
	return -FEC_EDEVICE;
}

int fecd_cuda_lane_reserve(struct fecd_cuda_lane *lane, const struct fecd_cuda_decoder *dec,
                           const struct fecd_cuda_shape *shape, char *err, size_t errlen)
{
	(void)lane, (void)dec, (void)shape;
	snprintf(err, errlen, "%s", none_msg);
	return -FEC_EDEVICE;
}

int fecd_cuda_lane_wait(struct fecd_cuda_lane *lane, char *err, size_t errlen)
{
	(void)lane;
	snprintf(err, errlen, "%s", none_msg);
	return -FEC_EDEVICE;
}

unsigned fecd_cuda_lane_pending(const struct fecd_cuda_lane *lane)
{
	(void)lane;
	return 0;
}

void fecd_cuda_lane_inject_fault(struct fecd_cuda_lane *lane)
{
	(void)lane;
}

#endif
