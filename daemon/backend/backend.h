/*
 * Decoder backends: where batches are decoded. The CPU backend is a pool of worker threads; the
 * CUDA backend (backend_cuda.c over cuda/) plugs in behind the same operations. Completion is
 * reported on a backend thread through task->done; the service hands it back to its loop with
 * uv_async, so the loop never waits for a decode.
 */
#ifndef FECD_BACKEND_H
#define FECD_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "fec.h"

struct cJSON;
struct backend;

/* Where a batch was decoded (the CUDA backend hands some to its CPU backend). */
enum backend_ran { BACKEND_RAN_CPU, BACKEND_RAN_GPU };

/* A batch's geometry: jobs, and per job its input symbols (of in_elem bytes: 1 for int8 LLRs, 4
 * for float32 LLRs, 4 q for q-ary symbols), packed output bytes and soft values (0: none). */
struct backend_shape {
	uint32_t jobs;
	size_t in_stride, in_elem, out_stride, soft_stride;
};

/* A batch to decode. Every job comes back with a final status: jobs whose decoder gave up within
 * an attempt's budget (FEC_STATUS_RETRY, fec.h) are decoded again before done runs, and those
 * still given up after the last attempt come back erased. */
struct backend_task {
	const struct fec_decoder *dec; /* kept alive by the submitter until done runs */
	uint32_t channel; /* the submitter's channel: its batches share its GPU lanes */
	struct fec_batch batch;
	int status;              /* set before done: 0 or a negative FEC_E* code */
	enum backend_ran ran_on; /* set before done: where its first attempt ran */
	uint32_t retried; /* set before done: jobs decoded again (a job run 3 times counts 2) */
	void (*done)(struct backend_task *t); /* on a backend thread */
	void *arg;
	/* The backend's own bookkeeping while the task is queued or running; the submitter leaves
	 * these alone. The CPU backend hands out the jobs of the current attempt in pieces: cursor_
	 * is the next job to hand out, unclaimed_ and unfinished_ count the attempt's jobs not yet
	 * handed out and not yet decoded. */
	struct backend_task *next_;
	uint32_t cursor_, unclaimed_, unfinished_, piece_;
	void *priv_;
};

/* What the GPU backend tells metrics about itself. */
struct backend_counters {
	bool gpu_active;         /* batches go to a GPU (no fallback to the CPU) */
	uint64_t batches_to_cpu; /* given to the CPU at submission: no usable GPU, or the code */
	uint64_t batches_redone; /* decoded again on the CPU after a CUDA error */
};

struct backend_ops {
	const char *name;
	int (*submit)(struct backend *b, struct backend_task *t);
	/* Host memory for batch buffers (pinned where the backend copies to a device). */
	void *(*host_alloc)(struct backend *b, size_t len);
	void (*host_free)(struct backend *b, void *p);
	/* Batch geometry for a channel that leaves batch.jobs or batch.inflight at 0 (auto): what
	 * keeps this backend busy for the code. NULL: the CPU's (backend_cpu_batch_defaults). */
	void (*batch_defaults)(struct backend *b, const struct fec_spec *spec, uint32_t *jobs,
	                       uint32_t *inflight);
	/* Readies what a channel's batches of this shape decoded by dec will need (a GPU decoder,
	 * lanes, device buffers), so that its first batch does not wait for them. Called when a
	 * channel or its code is set up, off the hot path; a failure only means the first batch
	 * does the work. NULL: nothing to ready. */
	void (*prepare)(struct backend *b, uint32_t channel, const struct fec_decoder *dec,
	                const struct backend_shape *shape);
	/* Fills a JSON object for backend.info. */
	void (*info)(struct backend *b, struct cJSON *obj);
	/* Fills the counters above, from any thread; NULL: a backend without a GPU. */
	void (*counters)(struct backend *b, struct backend_counters *out);
	/* Waits for submitted tasks to finish, then frees the backend. */
	void (*destroy)(struct backend *b);
};

struct backend {
	const struct backend_ops *ops;
};

int backend_cpu_create(unsigned threads, struct backend **out);
/* Finishes a task whose first attempt ran elsewhere (the GPU backend's batches, back from the
 * device): the jobs marked FEC_STATUS_RETRY are decoded again on the CPU backend's threads, from
 * attempt t->batch.attempt + 1, then t->done runs (at once, on the calling thread, when no job is
 * marked). t->ran_on and t->status are left as they are; t->retried counts from 0. Fails, leaving
 * t untouched, only when the backend is being destroyed. */
int backend_cpu_retry(struct backend *cpu, struct backend_task *t);
/* The CPU's batches: 16 jobs per worker thread, 64 to 1024, and double buffering. Each batch is
 * split over every thread, so a batch must give each a few jobs: on a 16-core H100 host
 * (fecd-bench, CCSDS D=2048, 4 connections) 64 jobs carried 1041 Mb/s through fecd, 256 1282
 * and 1024 1300, with a batch's time on the backend (p99) 0.35, 4.6 and 12 ms. */
#define BACKEND_CPU_JOBS            64
#define BACKEND_CPU_JOBS_PER_THREAD 16
#define BACKEND_CPU_JOBS_MAX        1024
#define BACKEND_CPU_INFLIGHT        2
/* The CPU backend's batch geometry for its thread count (its batch_defaults). */
void backend_cpu_batch_defaults(struct backend *cpu, uint32_t *jobs, uint32_t *inflight);
/* The GPU's, measured end to end on an H200 (fecd-bench, CCSDS D=2048): 1024 jobs with 4 in flight
 * carried a connection at the speed of bare ZeroMQ; 4096 halved it (a batch is filled, copied
 * and published whole, so the pipeline drains in coarser steps), 64 ran at a fifth of it. */
#define BACKEND_GPU_JOBS     1024
#define BACKEND_GPU_INFLIGHT 4

/* The GPU backend (backend_cuda.c), with an embedded CPU backend for the codes the GPU does not
 * decode and as the fallback: when mode is "auto" or "cuda" and no device can be used, or when a
 * CUDA error happens while running, every batch is decoded on the CPU (one log line says why).
 * lanes: CUDA streams per channel, 0 for the device's default. Fails only when the CPU backend
 * cannot start. */
struct backend_cuda_config {
	const char *mode; /* "auto" or "cuda" */
	int device;
	unsigned lanes;
	unsigned workers; /* CPU backend threads, 0: one per core */
};
int backend_cuda_create(const struct backend_cuda_config *c, struct backend **out);

#endif
