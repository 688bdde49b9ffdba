/*
 * The CPU backend: a pool of worker threads that share one FIFO of batches. Threads take a batch's
 * jobs in pieces from a cursor under the lock: small pieces (a SIMD group) where the decoder says
 * jobs cost unequal amounts (fec_info.cost_varies), else a few pieces per thread, so that a single
 * busy channel still uses every core and a thread held up (a slow job, another process on its
 * core) leaves the rest of its share to the others. Jobs a decoder gave up on within an attempt's
 * budget (FEC_STATUS_RETRY) are decoded again, attempt by attempt, before the batch is reported:
 * the thread that finishes an attempt's last piece starts the next one or reports the batch
 * through task->done. Each thread keeps one scratch buffer, grown to the largest a decoder has
 * asked for, so steady state allocates nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "log.h"
#include "loops.h"

#define CPU_ALIGN       64
#define CPU_MAX_THREADS 1024

struct cpu_worker {
	struct cpu_backend *be;
	pthread_t tid;
	void *scratch;
	size_t scratch_len;
	bool started;
};

struct cpu_backend {
	struct backend base;
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct backend_task *head, *tail; /* tasks with jobs not yet claimed */
	bool stopping;
	unsigned nthreads;
	struct cpu_worker *workers;
};

static size_t round_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

static int cpu_scratch_reserve(struct cpu_worker *w, size_t need)
{
	void *p;

	if (need <= w->scratch_len)
		return 0;
	p = aligned_alloc(CPU_ALIGN, round_up(need, CPU_ALIGN));
	if (!p)
		return -FEC_ENOMEM;
	free(w->scratch);
	w->scratch = p;
	w->scratch_len = round_up(need, CPU_ALIGN);
	return 0;
}

/* Pieces per thread of a batch whose jobs cost alike: enough that a thread held up (another
 * process on its core) delays the batch by a fraction of its share, few enough that taking a
 * piece (the lock, twice) stays rare beside decoding it. */
#define CPU_PIECES_PER_THREAD 4

/* Jobs per piece of a task's current attempt, in whole SIMD groups (a padded group costs as much
 * as a full one): one group where jobs cost unequal amounts, and on every attempt after the
 * first (the jobs given up on are the costly ones). */
static uint32_t piece_jobs(const struct cpu_backend *be, const struct backend_task *t)
{
	const struct fec_info *info = fec_decoder_info(t->dec);
	uint32_t group = info->job_group > 1 ? info->job_group : 1;
	uint32_t pieces = be->nthreads * CPU_PIECES_PER_THREAD;
	uint32_t piece = (t->batch.count + pieces - 1) / pieces;

	if (info->cost_varies || t->batch.attempt > 0)
		return group;
	piece = (piece + group - 1) / group * group;
	return piece ? piece : group;
}

/* Wakes up to n idle threads (as many as there are pieces that can start at once). */
static void wake_locked(struct cpu_backend *be, uint32_t n)
{
	for (n = n < be->nthreads ? n : be->nthreads; n; n--)
		pthread_cond_signal(&be->work);
}

/* Takes the next piece of the task at the head of the queue: *first and the count (0 only for a
 * task of no jobs). The first attempt hands out every job in order; later ones the runs of jobs
 * still marked FEC_STATUS_RETRY after the cursor, which no thread writes during the attempt. A
 * task all handed out leaves the queue. */
static uint32_t task_claim_locked(struct cpu_backend *be, struct backend_task *t, uint32_t *first)
{
	const struct fec_job *jobs = t->batch.jobs;
	uint32_t count = t->batch.count, i = t->cursor_, n = 0;

	if (t->batch.attempt == 0) {
		n = count - i < t->piece_ ? count - i : t->piece_;
	} else if (t->unclaimed_) {
		while (i < count && jobs[i].status != FEC_STATUS_RETRY)
			i++;
		while (n < t->piece_ && i + n < count && jobs[i + n].status == FEC_STATUS_RETRY)
			n++;
	}
	*first = i;
	t->cursor_ = i + n;
	t->unclaimed_ = n < t->unclaimed_ ? t->unclaimed_ - n : 0;
	if (t->unclaimed_ == 0) {
		be->head = t->next_;
		if (!be->head)
			be->tail = NULL;
	} else {
		pthread_cond_signal(&be->work); /* more pieces of this task for others */
	}
	return n;
}

/* Queues the task's current attempt: last in the queue for a first attempt, first for a later one
 * (the rest of a batch otherwise decoded goes before batches not started). */
static void task_queue_locked(struct cpu_backend *be, struct backend_task *t, uint32_t jobs)
{
	t->cursor_ = 0;
	t->unclaimed_ = t->unfinished_ = jobs;
	t->piece_ = piece_jobs(be, t);
	if (t->batch.attempt == 0) {
		t->next_ = NULL;
		if (be->tail)
			be->tail->next_ = t;
		else
			be->head = t;
		be->tail = t;
	} else {
		t->next_ = be->head;
		be->head = t;
		if (!be->tail)
			be->tail = t;
	}
	/* A thread per piece at once: the pieces of a batch start together instead of each woken
	 * thread waking the next in turn. */
	wake_locked(be, jobs ? (jobs + t->piece_ - 1) / t->piece_ : 1);
}

/* A job still given up on after the last attempt: published erased with zero bits (a stream job
 * keeps its length, so that the bit offsets after it stay right), as publish marks a batch that
 * failed. */
static void job_give_up(const struct fec_info *info, struct fec_batch *b, uint32_t i)
{
	struct fec_job *j = &b->jobs[i];
	uint64_t bits = 0;

	if (info->kind == FEC_KIND_STREAM && info->unit_syms)
		bits = (uint64_t)j->own_len / info->unit_syms * info->unit_bits;
	if (bits > (uint64_t)b->out_stride * 8)
		bits = (uint64_t)b->out_stride * 8;
	j->out_bits = (uint32_t)bits;
	j->soft_count = 0;
	j->status = FECD_STATUS_ERASED;
	j->metric = 0;
	memset(b->out + i * b->out_stride, 0, (size_t)(bits + 7) / 8);
}

/* After an attempt at the task's jobs, by the thread that decoded its last piece (the task is out
 * of the queue, so no other thread touches it) or by backend_cpu_retry: queues the next attempt
 * at the jobs given up on, while attempts remain, or else reports the task. -FEC_EINVAL, with the
 * task untouched, when a next attempt is due but the backend is stopping and may have no thread
 * left to run it (refuse_stopping: the caller is not one of its threads). */
static int task_attempt_done(struct cpu_backend *be, struct backend_task *t, bool refuse_stopping)
{
	struct fec_batch *b = &t->batch;
	uint32_t retry = 0;

	for (uint32_t i = 0; i < b->count; i++)
		retry += b->jobs[i].status == FEC_STATUS_RETRY;
	if (retry && t->status == 0 && b->attempt + 1 < FEC_ATTEMPTS) {
		pthread_mutex_lock(&be->lock);
		if (be->stopping && refuse_stopping) {
			pthread_mutex_unlock(&be->lock);
			return -FEC_EINVAL;
		}
		b->attempt++;
		t->retried += retry;
		task_queue_locked(be, t, retry);
		pthread_mutex_unlock(&be->lock);
		return 0;
	}
	for (uint32_t i = 0; retry && i < b->count; i++)
		if (b->jobs[i].status == FEC_STATUS_RETRY)
			job_give_up(fec_decoder_info(t->dec), b, i);
	t->done(t);
	return 0;
}

static void *cpu_worker_main(void *arg)
{
	struct cpu_worker *w = arg;
	struct cpu_backend *be = w->be;

	pthread_mutex_lock(&be->lock);
	for (;;) {
		while (!be->head && !be->stopping)
			pthread_cond_wait(&be->work, &be->lock);
		if (!be->head)
			break; /* stopping and nothing left */
		struct backend_task *t = be->head;
		uint32_t first, n = task_claim_locked(be, t, &first);
		pthread_mutex_unlock(&be->lock);

		const struct fec_info *info = fec_decoder_info(t->dec);
		int rc = cpu_scratch_reserve(w, info->scratch_bytes ? info->scratch_bytes : 1);
		if (rc == 0 && n > 0)
			rc = fec_decode(t->dec, w->scratch, &t->batch, first, n);

		pthread_mutex_lock(&be->lock);
		if (rc < 0 && t->status == 0)
			t->status = rc;
		t->unfinished_ -= n;
		if (t->unfinished_ == 0) {
			pthread_mutex_unlock(&be->lock);
			task_attempt_done(be, t, false);
			pthread_mutex_lock(&be->lock);
		}
	}
	pthread_mutex_unlock(&be->lock);
	return NULL;
}

static int cpu_submit(struct backend *b, struct backend_task *t)
{
	struct cpu_backend *be = (struct cpu_backend *)b;

	if (!t->dec || !t->done)
		return -FEC_EINVAL;
	t->status = 0;
	t->ran_on = BACKEND_RAN_CPU;
	t->retried = 0;
	t->batch.attempt = 0;
	pthread_mutex_lock(&be->lock);
	if (be->stopping) {
		pthread_mutex_unlock(&be->lock);
		return -FEC_EINVAL;
	}
	task_queue_locked(be, t, t->batch.count);
	pthread_mutex_unlock(&be->lock);
	return 0;
}

int backend_cpu_retry(struct backend *b, struct backend_task *t)
{
	if (!t->dec || !t->done)
		return -FEC_EINVAL;
	return task_attempt_done((struct cpu_backend *)b, t, true);
}

void backend_cpu_batch_defaults(struct backend *b, uint32_t *jobs, uint32_t *inflight)
{
	const struct cpu_backend *be = (const struct cpu_backend *)b;
	uint32_t n = BACKEND_CPU_JOBS_PER_THREAD * be->nthreads;

	*jobs = n < BACKEND_CPU_JOBS ? BACKEND_CPU_JOBS
	        : n > BACKEND_CPU_JOBS_MAX ? BACKEND_CPU_JOBS_MAX
	                                   : n;
	*inflight = BACKEND_CPU_INFLIGHT;
}

static void cpu_batch_defaults(struct backend *b, const struct fec_spec *spec, uint32_t *jobs,
                               uint32_t *inflight)
{
	(void)spec;
	backend_cpu_batch_defaults(b, jobs, inflight);
}

static void *cpu_host_alloc(struct backend *b, size_t len)
{
	(void)b;
	return aligned_alloc(CPU_ALIGN, round_up(len ? len : 1, CPU_ALIGN));
}

static void cpu_host_free(struct backend *b, void *p)
{
	(void)b;
	free(p);
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon || strncmp(line, "model name", 10) != 0)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

static void cpu_simd(cJSON *arr)
{
#if defined(__x86_64__) || defined(__i386__)
#define SIMD_FEATURE_MAP(X)                                                                        \
	X("sse2")                                                                                  \
	X("ssse3")                                                                                 \
	X("sse4.1") X("sse4.2") X("avx") X("avx2") X("fma") X("avx512f") X("avx512bw")             \
	    X("avx512vl")
	__builtin_cpu_init();
#define X(name)                                                                                    \
	if (__builtin_cpu_supports(name))                                                          \
		cJSON_AddItemToArray(arr, cJSON_CreateString(name));
	SIMD_FEATURE_MAP(X)
#undef X
#elif defined(__aarch64__)
	cJSON_AddItemToArray(arr, cJSON_CreateString("neon"));
#else
	(void)arr;
#endif
}

static void cpu_info(struct backend *b, cJSON *obj)
{
	struct cpu_backend *be = (struct cpu_backend *)b;
	char model[256];

	cpu_model(model, sizeof(model));
	cJSON_AddStringToObject(obj, "name", "cpu");
	cJSON_AddNumberToObject(obj, "threads", be->nthreads);
	cJSON_AddStringToObject(obj, "cpu", model);
	cJSON *simd = cJSON_AddArrayToObject(obj, "simd");
	if (simd)
		cpu_simd(simd);
}

static void cpu_destroy(struct backend *b)
{
	struct cpu_backend *be = (struct cpu_backend *)b;

	pthread_mutex_lock(&be->lock);
	be->stopping = true;
	pthread_cond_broadcast(&be->work);
	pthread_mutex_unlock(&be->lock);
	for (unsigned i = 0; i < be->nthreads; i++) {
		if (be->workers[i].started)
			pthread_join(be->workers[i].tid, NULL);
		free(be->workers[i].scratch);
	}
	pthread_cond_destroy(&be->work);
	pthread_mutex_destroy(&be->lock);
	free(be->workers);
	free(be);
}

static const struct backend_ops cpu_ops = {
    .name = "cpu",
    .submit = cpu_submit,
    .host_alloc = cpu_host_alloc,
    .host_free = cpu_host_free,
    .batch_defaults = cpu_batch_defaults,
    .info = cpu_info,
    .destroy = cpu_destroy,
};

int backend_cpu_create(unsigned threads, struct backend **out)
{
	struct cpu_backend *be;
	int rc;

	if (threads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n > 0 ? (unsigned)n : 1;
	}
	if (threads > CPU_MAX_THREADS)
		threads = CPU_MAX_THREADS;
	be = calloc(1, sizeof(*be));
	if (!be)
		return -ENOMEM;
	be->base.ops = &cpu_ops;
	be->nthreads = threads;
	be->workers = calloc(threads, sizeof(*be->workers));
	if (!be->workers) {
		rc = -ENOMEM;
		goto out_free_be;
	}
	pthread_mutex_init(&be->lock, NULL);
	pthread_cond_init(&be->work, NULL);
	for (unsigned i = 0; i < threads; i++) {
		be->workers[i].be = be;
		rc = -pthread_create(&be->workers[i].tid, NULL, cpu_worker_main, &be->workers[i]);
		if (rc < 0)
			goto out_stop;
		be->workers[i].started = true;
		thread_name(be->workers[i].tid, "fecd-cpu/", i);
	}
	*out = &be->base;
	return 0;

out_stop:
	cpu_destroy(&be->base);
	return rc;
out_free_be:
	free(be);
	return rc;
}
