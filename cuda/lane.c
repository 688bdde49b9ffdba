/*
 * Lanes: one CUDA stream each, with device buffers for a batch (jobs, input, output, soft output,
 * the family's workspace) grown on demand. A submit enqueues copy in -> decode -> copy out on the
 * stream and records an event; a wait synchronises on the oldest such event. Batches on one lane
 * run in order; several lanes let consecutive batches overlap their copies and kernels.
 *
 * Copies move what a batch's jobs use (fec_batch_extent): whole slots for streams and fixed
 * frames, and for frames of varying length only as much of each slot as the batch's longest
 * frame needs, in and out, as one 2D copy of count rows at the slots' pitch.
 *
 * Submit runs on one thread (the daemon's loop) and wait on another (a waiter thread), so the
 * ring of pending events is shared under the lane's lock; the slot being waited on is never the
 * one a submit records into, because a full ring refuses the submit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_core.h"

/* ---- Device buffers */

/* Grows buf to need bytes. The lane's earlier batches may still read or write the old buffer, so
 * the lane is synchronised first (only the first batches of a new size pay for it). */
static int buf_reserve(struct fecd_cuda_lane *lane, struct gpu_buf *buf, size_t need,
                       const char *what, char *err, size_t errlen)
{
	char call[96];
	cudaError_t e;
	void *p;

	if (need <= buf->cap)
		return 0;
	e = cudaStreamSynchronize(lane->stream);
	if (e != cudaSuccess)
		return gpu_error(e, "cudaStreamSynchronize (growing buffers)", err, errlen);
	e = cudaMalloc(&p, need);
	if (e != cudaSuccess) {
		snprintf(call, sizeof(call), "cudaMalloc of %zu bytes for %s", need, what);
		return gpu_error(e, call, err, errlen);
	}
	if (buf->p)
		cudaFree(buf->p);
	buf->p = p;
	buf->cap = need;
	return 0;
}

static void buf_free(struct gpu_buf *buf)
{
	if (buf->p)
		cudaFree(buf->p);
	buf->p = NULL;
	buf->cap = 0;
}

/* ---- Life */

int fecd_cuda_lane_create(struct fecd_cuda *ctx, struct fecd_cuda_lane **out, char *err,
                          size_t errlen)
{
	struct fecd_cuda_lane *lane;
	cudaError_t e;
	unsigned nev = 0;
	int rc;

	rc = gpu_use_device(ctx, err, errlen);
	if (rc)
		return rc;
	lane = calloc(1, sizeof(*lane));
	if (!lane) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	lane->ctx = ctx;
	/* Non-blocking: the lane never waits for work on the legacy default stream. */
	e = cudaStreamCreateWithFlags(&lane->stream, cudaStreamNonBlocking);
	if (e != cudaSuccess) {
		rc = gpu_error(e, "cudaStreamCreateWithFlags", err, errlen);
		goto out_free;
	}
	for (; nev < GPU_LANE_RING; nev++) {
		e = cudaEventCreateWithFlags(&lane->ev[nev],
		                             cudaEventDisableTiming | cudaEventBlockingSync);
		if (e != cudaSuccess) {
			rc = gpu_error(e, "cudaEventCreateWithFlags", err, errlen);
			goto out_events;
		}
	}
	pthread_mutex_init(&lane->lock, NULL);
	pthread_mutex_lock(&ctx->lock);
	lane->next = ctx->lanes;
	ctx->lanes = lane;
	pthread_mutex_unlock(&ctx->lock);
	*out = lane;
	return 0;

out_events:
	while (nev > 0)
		cudaEventDestroy(lane->ev[--nev]);
	cudaStreamDestroy(lane->stream);
out_free:
	free(lane);
	return rc;
}

void fecd_cuda_lane_destroy(struct fecd_cuda_lane *lane)
{
	struct fecd_cuda *ctx;

	if (!lane)
		return;
	ctx = lane->ctx;
	pthread_mutex_lock(&ctx->lock);
	for (struct fecd_cuda_lane **pp = &ctx->lanes; *pp; pp = &(*pp)->next) {
		if (*pp == lane) {
			*pp = lane->next;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	gpu_use_device(ctx, NULL, 0);
	/* After a sticky error this returns at once with the error; nothing more will run. */
	cudaStreamSynchronize(lane->stream);
	for (unsigned i = 0; i < GPU_LANE_RING; i++)
		cudaEventDestroy(lane->ev[i]);
	buf_free(&lane->jobs);
	buf_free(&lane->in);
	buf_free(&lane->out);
	buf_free(&lane->soft);
	buf_free(&lane->ws);
	cudaStreamDestroy(lane->stream);
	cudaGetLastError();
	pthread_mutex_destroy(&lane->lock);
	free(lane);
}

/* ---- Submit and wait */

static int copy(void *dst, const void *src, size_t len, enum cudaMemcpyKind kind, cudaStream_t s,
                const char *what, char *err, size_t errlen)
{
	cudaError_t e;

	if (len == 0)
		return 0;
	e = cudaMemcpyAsync(dst, src, len, kind, s);
	return e == cudaSuccess ? 0 : gpu_error(e, what, err, errlen);
}

/* Copies count rows of row bytes, pitch bytes apart, between host and device: one plain copy
 * where the rows fill their slots or there is one row (it moves what the rows use, (count - 1) *
 * pitch + row bytes), else a 2D copy of just the rows, which moves count * row bytes, fewer. */
static int copy_rows(void *dst, const void *src, size_t pitch, size_t row, uint32_t count,
                     enum cudaMemcpyKind kind, cudaStream_t s, const char *what, char *err,
                     size_t errlen)
{
	cudaError_t e;

	if (row > pitch)
		row = pitch;
	if (row == 0 || count == 0)
		return 0;
	if (row == pitch || count == 1)
		return copy(dst, src, (size_t)(count - 1) * pitch + row, kind, s, what, err,
		            errlen);
	e = cudaMemcpy2DAsync(dst, pitch, src, pitch, row, count, kind, s);
	return e == cudaSuccess ? 0 : gpu_error(e, what, err, errlen);
}

/* After a failed submit: copies already enqueued may still read b->in or write b->out, b->jobs;
 * the caller redoes the batch on the CPU from those buffers as soon as submit returns, so the
 * lane must have finished with them (after a sticky error this returns at once). */
static void submit_unwind(struct fecd_cuda_lane *lane)
{
	cudaStreamSynchronize(lane->stream);
	cudaGetLastError();
}

/* Device buffers for batches of that shape decoded by dec. */
static int lane_reserve(struct fecd_cuda_lane *lane, const struct fecd_cuda_decoder *dec,
                        const struct fecd_cuda_shape *s, char *err, size_t errlen)
{
	int rc;

	rc = buf_reserve(lane, &lane->jobs, (size_t)s->count * sizeof(struct fec_job), "jobs", err,
	                 errlen);
	if (!rc)
		rc = buf_reserve(lane, &lane->in, (size_t)s->count * s->in_stride * s->in_elem,
		                 "input", err, errlen);
	if (!rc)
		rc = buf_reserve(lane, &lane->out, (size_t)s->count * s->out_stride, "output", err,
		                 errlen);
	if (!rc)
		rc = buf_reserve(lane, &lane->soft, (size_t)s->count * s->soft_stride * sizeof(float),
		                 "soft output", err, errlen);
	if (!rc)
		rc = buf_reserve(lane, &lane->ws, dec->ops->workspace_bytes(dec->impl, s->count),
		                 "workspace", err, errlen);
	return rc;
}

int fecd_cuda_lane_reserve(struct fecd_cuda_lane *lane, const struct fecd_cuda_decoder *dec,
                           const struct fecd_cuda_shape *shape, char *err, size_t errlen)
{
	int rc;

	if (!lane || !dec || !shape || shape->count == 0) {
		snprintf(err, errlen, "invalid batch shape: no jobs");
		return -FEC_EINVAL;
	}
	rc = gpu_use_device(lane->ctx, err, errlen);
	return rc ? rc : lane_reserve(lane, dec, shape, err, errlen);
}

const char *gpu_in_kind_name(enum gpu_in_kind kind)
{
	switch (kind) {
	case GPU_IN_S8_LLR:
		return "int8 LLR";
	case GPU_IN_S4_LLR:
		return "packed 4-bit LLR";
	case GPU_IN_F32_LLR:
		return "float32 LLR";
	case GPU_IN_F32_SYMLOGP:
		return "q-ary symbol log-probability";
	}
	return "unknown";
}

/* What the batch's slots hold (gpu_family.h): the decoder's input kind, int8 packed two to a
 * byte with FECD_CUDA_IN_S4; the host input the batch must have for it (in or in_f32). */
static int batch_in_kind(const struct fecd_cuda_decoder *dec, const struct fec_batch *b,
                         unsigned flags, enum gpu_in_kind *kind, uint32_t *q, char *err,
                         size_t errlen)
{
	const struct fec_info *info = fec_decoder_info(dec->cpu);
	bool f32 = info->in_kind != FEC_IN_S8_LLR;

	*q = 1;
	switch (info->in_kind) {
	case FEC_IN_S8_LLR:
		*kind = flags & FECD_CUDA_IN_S4 ? GPU_IN_S4_LLR : GPU_IN_S8_LLR;
		break;
	case FEC_IN_F32_LLR:
		*kind = GPU_IN_F32_LLR;
		break;
	case FEC_IN_F32_SYMLOGP:
		*kind = GPU_IN_F32_SYMLOGP;
		*q = info->in_q;
		break;
	default:
		snprintf(err, errlen, "the decoder reports no input kind");
		return -FEC_EINVAL;
	}
	if (f32 && (flags & FECD_CUDA_IN_S4)) {
		snprintf(err, errlen, "packed 4-bit input is for decoders of int8 LLRs");
		return -FEC_EINVAL;
	}
	if (!(flags & FECD_CUDA_NO_COPY_IN) && (f32 ? !b->in_f32 : !b->in)) {
		snprintf(err, errlen, "the decoder takes %s input (fec_batch.%s)",
		         gpu_in_kind_name(*kind), f32 ? "in_f32" : "in");
		return -FEC_EINVAL;
	}
	return 0;
}

int fecd_cuda_lane_submit(struct fecd_cuda_lane *lane, const struct fecd_cuda_decoder *dec,
                          struct fec_batch *b, unsigned flags, char *err, size_t errlen)
{
	enum gpu_in_kind in_kind;
	uint32_t in_q;
	unsigned slot;
	bool fault;
	cudaError_t e;
	int rc;

	if (!lane || !dec || !b || b->count == 0 || !b->jobs) {
		snprintf(err, errlen, "invalid batch: no jobs");
		return -FEC_EINVAL;
	}
	rc = batch_in_kind(dec, b, flags, &in_kind, &in_q, err, errlen);
	if (rc)
		return rc;
	/* float32 input (fec_batch.in_f32): in_stride counts values there, bytes here */
	const bool f32 = in_kind == GPU_IN_F32_LLR || in_kind == GPU_IN_F32_SYMLOGP;
	const size_t in_elem = f32 ? sizeof(float) : 1;
	const void *in_host = f32 ? (const void *)b->in_f32 : (const void *)b->in;
	size_t jobs_bytes = (size_t)b->count * sizeof(struct fec_job);
	struct fec_batch_extent ext;

	if (b->attempt != 0) {
		snprintf(err, errlen,
		         "attempt %u at a batch: the GPU decodes first attempts only "
		         "(later ones are the CPU backend's)",
		         b->attempt);
		return -FEC_EINVAL;
	}
	fec_batch_extent(fec_decoder_info(dec->cpu), b, &ext);
	if (in_kind == GPU_IN_S4_LLR)
		ext.in_elems = b->in_stride; /* packed: whole slots, in_stride counts bytes */

	if ((flags & FECD_CUDA_NO_COPY_IN) && b->count > lane->last_count) {
		snprintf(err, errlen, "NO_COPY_IN with %u jobs: the lane holds only %u", b->count,
		         lane->last_count);
		return -FEC_EINVAL;
	}
	pthread_mutex_lock(&lane->lock);
	if (lane->count >= GPU_LANE_RING) {
		pthread_mutex_unlock(&lane->lock);
		snprintf(err, errlen, "the lane already has %d batches pending", GPU_LANE_RING);
		return -FEC_ERANGE;
	}
	slot = (lane->head + lane->count) % GPU_LANE_RING;
	fault = lane->fault_next;
	lane->fault_next = false;
	pthread_mutex_unlock(&lane->lock);

	rc = gpu_use_device(lane->ctx, err, errlen);
	if (rc)
		return rc;
	rc = lane_reserve(lane, dec,
	                  &(struct fecd_cuda_shape){.count = b->count,
	                                            .in_stride = b->in_stride,
	                                            .in_elem = in_elem,
	                                            .out_stride = b->out_stride,
	                                            .soft_stride = b->soft ? b->soft_stride : 0},
	                  err, errlen);
	if (rc)
		return rc;

	if (!(flags & FECD_CUDA_NO_COPY_IN)) {
		rc = copy(lane->jobs.p, b->jobs, jobs_bytes, cudaMemcpyHostToDevice, lane->stream,
		          "cudaMemcpyAsync (jobs to the device)", err, errlen);
		if (!rc)
			rc = copy_rows(lane->in.p, in_host, b->in_stride * in_elem,
			               ext.in_elems * in_elem, b->count, cudaMemcpyHostToDevice,
			               lane->stream, "cudaMemcpy(2D)Async (input to the device)",
			               err, errlen);
		if (rc)
			goto out_sync;
		lane->last_count = b->count;
	}
	if (fault) {
		rc = gpu_fault_launch(lane->stream, err, errlen);
		if (rc)
			goto out_sync;
	}
	struct gpu_batch gb = {
	    .count = b->count,
	    .jobs = lane->jobs.p,
	    .in = lane->in.p,
	    .in_stride = b->in_stride * in_elem,
	    .in_kind = in_kind,
	    .in_q = in_q,
	    .out = lane->out.p,
	    .out_stride = b->out_stride,
	    .soft = b->soft ? lane->soft.p : NULL,
	    .soft_stride = b->soft_stride,
	};
	rc = dec->ops->launch(dec->impl, &gb, lane->ws.p, lane->ws.cap, lane->stream, err, errlen);
	if (rc)
		goto out_sync;
	if (!(flags & FECD_CUDA_NO_COPY_OUT)) {
		rc = copy_rows(b->out, lane->out.p, b->out_stride, ext.out_bytes, b->count,
		               cudaMemcpyDeviceToHost, lane->stream,
		               "cudaMemcpy(2D)Async (output to the host)", err, errlen);
		if (!rc && b->soft)
			rc =
			    copy_rows(b->soft, lane->soft.p, b->soft_stride * sizeof(float),
			              ext.soft_vals * sizeof(float), b->count,
			              cudaMemcpyDeviceToHost, lane->stream,
			              "cudaMemcpy(2D)Async (soft output to the host)", err, errlen);
		if (!rc)
			rc = copy(b->jobs, lane->jobs.p, jobs_bytes, cudaMemcpyDeviceToHost,
			          lane->stream, "cudaMemcpyAsync (jobs to the host)", err, errlen);
		if (rc)
			goto out_sync;
	}
	e = cudaEventRecord(lane->ev[slot], lane->stream);
	if (e != cudaSuccess) {
		rc = gpu_error(e, "cudaEventRecord", err, errlen);
		goto out_sync;
	}
	pthread_mutex_lock(&lane->lock);
	lane->count++;
	pthread_mutex_unlock(&lane->lock);
	return 0;

out_sync:
	submit_unwind(lane);
	return rc;
}

int fecd_cuda_lane_wait(struct fecd_cuda_lane *lane, char *err, size_t errlen)
{
	cudaEvent_t ev;
	cudaError_t e;
	int rc;

	pthread_mutex_lock(&lane->lock);
	if (lane->count == 0) {
		pthread_mutex_unlock(&lane->lock);
		snprintf(err, errlen, "no batch is pending on this lane");
		return -FEC_EINVAL;
	}
	ev = lane->ev[lane->head];
	pthread_mutex_unlock(&lane->lock);

	rc = gpu_use_device(lane->ctx, err, errlen);
	e = cudaEventSynchronize(ev);
	if (!rc && e != cudaSuccess)
		rc = gpu_error(e, "decoding a batch (cudaEventSynchronize)", err, errlen);

	pthread_mutex_lock(&lane->lock);
	lane->head = (lane->head + 1) % GPU_LANE_RING;
	lane->count--;
	pthread_mutex_unlock(&lane->lock);
	return rc;
}

unsigned fecd_cuda_lane_pending(const struct fecd_cuda_lane *lane)
{
	struct fecd_cuda_lane *l = (struct fecd_cuda_lane *)lane;
	unsigned n;

	pthread_mutex_lock(&l->lock);
	n = l->count;
	pthread_mutex_unlock(&l->lock);
	return n;
}

void fecd_cuda_lane_inject_fault(struct fecd_cuda_lane *lane)
{
	pthread_mutex_lock(&lane->lock);
	lane->fault_next = true;
	pthread_mutex_unlock(&lane->lock);
}
