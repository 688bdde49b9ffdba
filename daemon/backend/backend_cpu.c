/*
 * The CPU backend: a pool of worker threads that share one FIFO of batches. A batch is split into
 * chunks of jobs, about one per thread, so a single busy channel still uses every core; the thread
 * that finishes a batch's last chunk reports it through task->done. Each thread keeps one scratch
 * buffer, grown to the largest a decoder has asked for, so steady state allocates nothing.
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

/* Jobs per chunk of a task: about one chunk per thread, in whole SIMD groups (a padded group
 * costs as much as a full one). */
static uint32_t chunk_jobs(const struct cpu_backend *be, const struct backend_task *t)
{
	uint32_t count = t->batch.count, group = fec_decoder_info(t->dec)->job_group;
	uint32_t chunk = (count + be->nthreads - 1) / be->nthreads;

	if (group > 1)
		chunk = (chunk + group - 1) / group * group;
	return chunk ? chunk : 1;
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
		uint32_t count = t->batch.count;
		uint32_t chunk = chunk_jobs(be, t);
		uint32_t first = t->claimed_;
		uint32_t n = count - first < chunk ? count - first : chunk;

		t->claimed_ += n;
		if (t->claimed_ == count) {
			be->head = t->next_;
			if (!be->head)
				be->tail = NULL;
		} else {
			pthread_cond_signal(&be->work); /* more chunks of this task for others */
		}
		pthread_mutex_unlock(&be->lock);

		const struct fec_info *info = fec_decoder_info(t->dec);
		int rc = cpu_scratch_reserve(w, info->scratch_bytes ? info->scratch_bytes : 1);
		if (rc == 0 && n > 0)
			rc = fec_decode(t->dec, w->scratch, &t->batch, first, n);

		pthread_mutex_lock(&be->lock);
		if (rc < 0 && t->status == 0)
			t->status = rc;
		t->finished_ += n;
		if (t->finished_ == count) {
			pthread_mutex_unlock(&be->lock);
			t->done(t);
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
	t->next_ = NULL;
	t->claimed_ = 0;
	t->finished_ = 0;
	pthread_mutex_lock(&be->lock);
	if (be->stopping) {
		pthread_mutex_unlock(&be->lock);
		return -FEC_EINVAL;
	}
	if (be->tail)
		be->tail->next_ = t;
	else
		be->head = t;
	be->tail = t;
	/* Wake a thread per chunk at once: the chunks of one batch start together instead of each
	 * woken thread waking the next in turn. */
	for (uint32_t n = (t->batch.count + chunk_jobs(be, t) - 1) / chunk_jobs(be, t); n; n--)
		pthread_cond_signal(&be->work);
	pthread_mutex_unlock(&be->lock);
	return 0;
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
