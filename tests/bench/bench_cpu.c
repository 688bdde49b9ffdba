/*
 * fecd-bench on the CPU: the CPU backend's decoder (fec_decode) on one core and on all cores,
 * each thread with its own scratch taking whole batches from a shared counter (as the daemon's
 * worker pool splits batches), and the sweeps over the constraint length and the batch size,
 * which also carry the GPU kernel's figures for the same data where a GPU is present.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cpu_simd.h"

struct cpu_run {
	const struct bench_data *d;
	struct fec_job *jobs; /* a copy: the decoder writes the jobs' outputs */
	uint8_t *out;
	uint32_t per_batch, nbatches;
	atomic_uint next;
	atomic_int rc;
};

static void *cpu_worker(void *arg)
{
	struct cpu_run *run = arg;
	const struct bench_data *d = run->d;
	void *scratch = malloc(d->info->scratch_bytes ? d->info->scratch_bytes : 1);

	if (!scratch) {
		atomic_store(&run->rc, -FEC_ENOMEM);
		return NULL;
	}
	for (;;) {
		uint32_t i = atomic_fetch_add(&run->next, 1);
		if (i >= run->nbatches)
			break;
		uint32_t first = i * run->per_batch;
		uint32_t count =
		    d->njobs - first < run->per_batch ? d->njobs - first : run->per_batch;
		struct fec_batch b = bench_batch(d, run->jobs, d->in, run->out, first, count);
		int rc = fec_decode(d->dec, scratch, &b, 0, count);

		if (rc)
			atomic_store(&run->rc, rc);
	}
	free(scratch);
	return NULL;
}

/* One pass over all jobs with `threads` threads (0: the calling thread alone); returns 0 or a
 * negative FEC_E* code. */
static int cpu_pass(struct cpu_run *run, unsigned threads)
{
	pthread_t tid[256];
	unsigned started = 0;

	atomic_store(&run->next, 0);
	if (threads == 0) {
		cpu_worker(run);
		return atomic_load(&run->rc);
	}
	for (; started < threads && started < 256; started++)
		if (pthread_create(&tid[started], NULL, cpu_worker, run))
			break;
	if (!started)
		return -FEC_ENOMEM;
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return atomic_load(&run->rc);
}

/* Passes over all jobs in batches of `jobs` jobs on `threads` threads (0: the calling thread),
 * until min_secs have passed: bits a second, or -1. */
static double cpu_rate(const struct bench_data *d, unsigned threads, uint32_t jobs, double min_secs,
                       uint8_t *out)
{
	struct cpu_run run = {.d = d, .out = out, .per_batch = jobs ? jobs : 1};
	double t0, secs;
	uint64_t passes = 0;

	run.nbatches = (d->njobs + run.per_batch - 1) / run.per_batch;
	run.jobs = malloc(d->njobs * sizeof(*run.jobs));
	if (!run.jobs)
		return -1.0;
	memcpy(run.jobs, d->jobs, d->njobs * sizeof(*run.jobs));
	t0 = bench_now();
	do {
		if (cpu_pass(&run, threads)) {
			free(run.jobs);
			return -1.0;
		}
		passes++;
		secs = bench_now() - t0;
	} while (secs < min_secs);
	free(run.jobs);
	return (double)d->nbits * (double)passes / secs;
}

double bench_cpu_rate(const struct bench_data *d, unsigned threads, uint32_t jobs, double min_secs,
                      uint8_t *out)
{
	/* no threads: no pass (cpu_rate's 0 is the calling thread, which bench_cpu_best uses) */
	return threads ? cpu_rate(d, threads, jobs, min_secs, out) : -1.0;
}

struct best_run {
	const struct bench_data *d;
	uint32_t jobs;
	unsigned rounds;
	double min_secs, *rates;
	uint8_t *out;
	int core;
	double rc;
};

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The core to pin to: FECD_BENCH_CORE, else the last the process may run on (core 0 takes
 * more of the host's interrupts); -1 where the set cannot be read. */
static int pick_core(void)
{
	const char *ev = getenv("FECD_BENCH_CORE");
	cpu_set_t set;

	if (ev && *ev)
		return atoi(ev);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set))
			return c;
	return -1;
}

static void *best_worker(void *arg)
{
	struct best_run *br = arg;

	if (br->core >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(br->core, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			br->core = -1;
	}
	br->rc = 0;
	for (unsigned r = 0; r < br->rounds && br->rc >= 0; r++) {
		br->rates[r] = cpu_rate(br->d, 0, br->jobs, br->min_secs, br->out);
		if (br->rates[r] < 0)
			br->rc = -1.0;
	}
	return NULL;
}

double bench_cpu_best(const struct bench_data *d, uint32_t jobs, unsigned rounds, double min_secs,
                      uint8_t *out, double *median, int *core)
{
	double rates[16];
	struct best_run br = {.d = d,
	                      .jobs = jobs,
	                      .rounds = rounds < 1    ? 1
	                                : rounds > 16 ? 16
	                                              : rounds,
	                      .min_secs = min_secs,
	                      .rates = rates,
	                      .out = out,
	                      .core = pick_core()};
	pthread_t tid;

	if (pthread_create(&tid, NULL, best_worker, &br))
		return -1.0;
	pthread_join(tid, NULL);
	*core = br.core;
	if (br.rc < 0)
		return -1.0;
	qsort(rates, br.rounds, sizeof(rates[0]), cmp_double);
	*median = br.rounds % 2 ? rates[br.rounds / 2]
	                        : (rates[br.rounds / 2 - 1] + rates[br.rounds / 2]) / 2;
	return rates[br.rounds - 1];
}

const char *bench_simd_level(void)
{
	return fec_simd_name();
}

static void cpu_row(cJSON *sec, const char *label, const struct bench_data *d, unsigned threads,
                    uint32_t jobs, double rate, const uint8_t *out)
{
	cJSON *row = report_row(sec, label);
	uint64_t n = 0, errs = bench_data_errors(d, out, &n);

	row_num(row, "threads", threads);
	row_num(row, "jobs", jobs);
	row_num(row, "Mb/s", rate / 1e6);
	row_num(row, "Mb/s/core", rate / 1e6 / threads);
	row_num(row, "BER", n ? (double)errs / (double)n : 0.0);
	row_str(row, "same as ref", bench_data_mismatches(d, out) ? "NO" : "yes");
}

void bench_cpu(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	struct bench_data *d = c->d;
	static const char *const cols[] = {"threads", "jobs",        "Mb/s", "Mb/s/core",
	                                   "BER",     "same as ref", NULL};
	cJSON *sec = report_section(r, "cpu", cols);
	uint8_t *out = calloc(d->njobs, d->out_stride);
	char label[64];
	double rate;

	if (!out) {
		report_skip(sec, "out of memory");
		return;
	}
	report_note(sec, "SIMD level %s; reference output = this decoder on all cores",
	            bench_simd_level());
	progress("cpu: %u cores, %u jobs per batch", o->threads, o->cpu_jobs);
	rate = bench_cpu_rate(d, o->threads, o->cpu_jobs, o->min_secs, d->ref);
	if (rate < 0) {
		report_skip(sec, "fec_decode failed");
		goto out_free;
	}
	progress("cpu: one core");
	double one = bench_cpu_rate(d, 1, o->cpu_jobs, o->min_secs, out);
	if (one > 0)
		cpu_row(sec, "1 core", d, 1, o->cpu_jobs, one, out);
	snprintf(label, sizeof(label), "all cores (%u)", o->threads);
	cpu_row(sec, label, d, o->threads, o->cpu_jobs, rate, d->ref);
	char was[32];
	const char *level;

	snprintf(was, sizeof(was), "%s", fec_simd_name());
	for (unsigned i = 0; (level = fec_simd_level_name(i)) != NULL; i++) {
		if (fec_simd_set(level))
			continue; /* not available on this CPU */
		progress("cpu: one core, SIMD level %s", level);
		double lr = bench_cpu_rate(d, 1, o->cpu_jobs, o->min_secs, out);
		snprintf(label, sizeof(label), "1 core, %s", level);
		if (lr > 0)
			cpu_row(sec, label, d, 1, o->cpu_jobs, lr, out);
	}
	fec_simd_set(was);
out_free:
	free(out);
}
