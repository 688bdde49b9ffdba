/*
 * Jobs of varying length and cost through the backends, on the host: the CPU backend's pieces
 * (sizes, every job decoded once), its further attempts at jobs a decoder gave up on
 * (FEC_STATUS_RETRY: each retried job decoded again, no other, up to FEC_ATTEMPTS, then a final
 * status, in place, counted), the hand-off the GPU backend makes of a batch back from the device
 * (backend_cpu_retry: only the marked jobs, ran_on kept), shutting down with attempts pending,
 * shared decoders (fec_decoder_hold), and what a GPU copy of a batch moves (fec_batch_extent),
 * checked against the output bound real frame decoders keep.
 *
 * The decoder under test is a test double with its own vtable: job i's first input byte says
 * how many attempts it gives up on before it decodes (TIMES_FINAL: every attempt but the last,
 * which says not_converged as decoders must; TIMES_NEVER: every one, breaking that rule, so the
 * backend's erasure is seen), its second byte what it costs (enum job_cost): nothing, 2 ms, or
 * a wait on the other jobs or threads, which only a backend handing out small pieces gets past.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "check.h"
#include "fec_impl.h"
#include "prng.h"

#define JOBS_MAX    512
#define STRIDE_IN   8
#define STRIDE_OUT  64
#define TIMES_FINAL 254
#define TIMES_NEVER 255
#define THREADS_MAX 16

/* What a job costs (its second input byte). */
enum job_cost {
	COST_NONE,
	COST_SLOW,   /* 2 ms */
	COST_GATED,  /* waits until gate_target jobs are decoded: the rest of its batch, unless the
	              * thread decoding it holds some of them (a fixed share per thread) */
	COST_MEETING /* waits until meeting_threads threads have decoded a piece of the batch */
};

/* ---- The test double */

/* Guards the counters of the double below (decoding threads record into them); double_cond
 * wakes jobs waiting on them. */
static pthread_mutex_t double_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t double_cond = PTHREAD_COND_INITIALIZER;

struct double_dec {
	struct fec_decoder base;
	uint32_t calls[JOBS_MAX][FEC_ATTEMPTS]; /* decodes of each job (its id) per attempt */
	uint32_t largest_first;                 /* the most jobs one call of a first attempt took */
	uint32_t unaligned;  /* calls of a first attempt not starting on a piece boundary */
	uint32_t not_marked; /* jobs handed over on a later attempt that were not marked */
	uint32_t decoded;    /* jobs decoded or given up on, all attempts */
	uint32_t gate_target, meeting_threads;
	uint32_t waits_failed; /* COST_GATED and COST_MEETING jobs that waited 10 s in vain */
	pthread_t threads[THREADS_MAX]; /* the distinct threads that called decode */
	uint32_t nthreads;
	unsigned destroyed;
};

static uint16_t job_id(const struct fec_batch *b, uint32_t i)
{
	const int8_t *in = b->in + i * b->in_stride;

	return (uint16_t)((uint8_t)in[2] | (uint8_t)in[3] << 8);
}

/* A COST_GATED or COST_MEETING job: waits up to 10 s for its condition, counting a wait in
 * vain (the test fails on it, rather than hanging). */
static void double_wait(struct double_dec *d, int8_t cost)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&double_lock);
	while (rc == 0 && (cost == COST_GATED ? d->decoded < d->gate_target
	                                      : d->nthreads < d->meeting_threads))
		rc = pthread_cond_timedwait(&double_cond, &double_lock, &until);
	if (rc)
		d->waits_failed++;
	pthread_mutex_unlock(&double_lock);
}

static int double_decode(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                         uint32_t first, uint32_t count)
{
	struct double_dec *d = (struct double_dec *)(uintptr_t)dec;
	uint32_t group = dec->info.job_group > 1 ? dec->info.job_group : 1;

	(void)scratch;
	pthread_mutex_lock(&double_lock);
	bool seen = false;
	for (uint32_t t = 0; t < d->nthreads && !seen; t++)
		seen = pthread_equal(d->threads[t], pthread_self());
	if (!seen && d->nthreads < THREADS_MAX) {
		d->threads[d->nthreads++] = pthread_self();
		pthread_cond_broadcast(&double_cond);
	}
	if (b->attempt == 0) {
		if (count > d->largest_first)
			d->largest_first = count;
		if (first % group)
			d->unaligned++;
	}
	for (uint32_t i = first; i < first + count; i++) {
		uint16_t id = job_id(b, i);
		if (b->attempt > 0 && b->jobs[i].status != FEC_STATUS_RETRY)
			d->not_marked++;
		if (id < JOBS_MAX && b->attempt < FEC_ATTEMPTS)
			d->calls[id][b->attempt]++;
	}
	pthread_mutex_unlock(&double_lock);

	for (uint32_t i = first; i < first + count; i++) {
		const int8_t *in = b->in + i * b->in_stride;
		struct fec_job *j = &b->jobs[i];
		uint8_t times = (uint8_t)in[0], *out = b->out + i * b->out_stride;
		bool last = b->attempt + 1 >= FEC_ATTEMPTS;

		if (in[1] == COST_SLOW) {
			struct timespec ts = {0, 2000000};
			nanosleep(&ts, NULL);
		} else if (in[1] == COST_GATED || in[1] == COST_MEETING) {
			double_wait(d, in[1]);
		}
		j->work = b->attempt + 1;
		j->soft_count = 0;
		if (times == TIMES_NEVER || (b->attempt < times && !last)) {
			j->status = FEC_STATUS_RETRY;
			j->out_bits = 0;
			continue;
		}
		j->status = times == TIMES_FINAL ? FECD_STATUS_NOT_CONVERGED : FECD_STATUS_DECODED;
		j->out_bits = 16;
		out[0] = in[2];
		out[1] = in[3];
	}
	pthread_mutex_lock(&double_lock);
	d->decoded += count;
	pthread_cond_broadcast(&double_cond);
	pthread_mutex_unlock(&double_lock);
	return 0;
}

static void double_destroy(struct fec_decoder *dec)
{
	((struct double_dec *)dec)->destroyed++;
}

static const struct fec_decoder_vtbl double_vtbl = {.decode = double_decode,
                                                    .destroy = double_destroy};

static void double_init(struct double_dec *d, enum fec_kind kind, uint32_t group, bool varies)
{
	memset(d, 0, sizeof(*d));
	d->base.vt = &double_vtbl;
	d->base.info.kind = kind;
	d->base.info.unit_syms = 2;
	d->base.info.unit_bits = 1;
	d->base.info.max_out_bits = STRIDE_OUT * 8;
	d->base.info.max_frame_syms = STRIDE_IN;
	d->base.info.job_group = group;
	d->base.info.cost_varies = varies;
}

/* ---- Tasks and their completion */

struct task {
	struct backend_task t;
	struct fec_job jobs[JOBS_MAX];
	int8_t in[JOBS_MAX * STRIDE_IN];
	uint8_t out[JOBS_MAX * STRIDE_OUT];
	uint8_t times[JOBS_MAX];
	uint16_t first_id;
	pthread_t done_on;
};

static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static unsigned done_count;

static void task_done(struct backend_task *t)
{
	struct task *k = t->arg;

	k->done_on = pthread_self();
	pthread_mutex_lock(&done_lock);
	done_count++;
	pthread_cond_broadcast(&done_cond);
	pthread_mutex_unlock(&done_lock);
}

/* Waits up to 30 s for done_count to reach n. */
static bool wait_done(unsigned n)
{
	struct timespec until;
	bool ok = true;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	pthread_mutex_lock(&done_lock);
	while (done_count < n && ok)
		ok = pthread_cond_timedwait(&done_cond, &done_lock, &until) == 0;
	ok = done_count >= n;
	pthread_mutex_unlock(&done_lock);
	return ok;
}

/* A task of count jobs with ids from first_id; times[i] from times_of(i), slow every slow_every
 * jobs (0: none); out filled with 0xaa so that erasure is seen to zero it. */
static void task_init(struct task *k, struct double_dec *d, uint32_t count, uint16_t first_id,
                      uint8_t (*times_of)(uint32_t), uint32_t slow_every)
{
	memset(&k->t, 0, sizeof(k->t));
	memset(k->jobs, 0, sizeof(k->jobs));
	memset(k->out, 0xaa, sizeof(k->out));
	k->first_id = first_id;
	for (uint32_t i = 0; i < count; i++) {
		int8_t *in = k->in + i * STRIDE_IN;
		uint16_t id = (uint16_t)(first_id + i);

		k->times[i] = times_of(i);
		in[0] = (int8_t)k->times[i];
		in[1] = slow_every && i % slow_every == 0;
		in[2] = (int8_t)(id & 0xff);
		in[3] = (int8_t)(id >> 8);
		k->jobs[i] = (struct fec_job){.in_len = STRIDE_IN, .own_len = STRIDE_IN};
	}
	k->t.dec = &d->base;
	k->t.batch = (struct fec_batch){.count = count,
	                                .jobs = k->jobs,
	                                .in = k->in,
	                                .in_stride = STRIDE_IN,
	                                .out = k->out,
	                                .out_stride = STRIDE_OUT};
	k->t.done = task_done;
	k->t.arg = k;
}

static uint8_t times_none(uint32_t i)
{
	(void)i;
	return 0;
}

/* Most jobs decode at once; some after one or two attempts given up, some never. */
static uint8_t times_mixed(uint32_t i)
{
	static const uint8_t pattern[] = {0,           0, 1, 0,           2, 0, 0,
	                                  TIMES_FINAL, 0, 1, TIMES_NEVER, 0, 0};
	return pattern[i % sizeof(pattern)];
}

/* Attempts job i of k should have had, and the re-runs they make. */
static uint32_t attempts_expected(const struct task *k, uint32_t i)
{
	uint32_t t = k->times[i];

	return t >= FEC_ATTEMPTS ? FEC_ATTEMPTS : t + 1;
}

/* Every job of k: decoded once per expected attempt starting at first_attempt, no more; its final
 * status and output in its own slot; the re-runs counted. */
static void check_task(const struct task *k, const struct double_dec *d, uint32_t first_attempt,
                       const char *what)
{
	uint32_t reruns = 0;

	CHECK(k->t.status == 0, "%s: status %d", what, k->t.status);
	for (uint32_t i = 0; i < k->t.batch.count; i++) {
		const struct fec_job *j = &k->jobs[i];
		const uint8_t *out = k->out + i * STRIDE_OUT;
		uint32_t want = attempts_expected(k, i), id = k->first_id + i, bad = 0;

		for (uint32_t a = 0; a < FEC_ATTEMPTS; a++)
			bad += d->calls[id][a] != (a >= first_attempt && a < want);
		CHECK(bad == 0, "%s: job %u (gives up %u times): decoded %u/%u/%u times by attempt",
		      what, i, k->times[i], d->calls[id][0], d->calls[id][1], d->calls[id][2]);
		reruns += want - 1;
		if (k->times[i] == TIMES_NEVER) {
			CHECK(j->status == FECD_STATUS_ERASED && j->out_bits == 0,
			      "%s: job %u never decoded: status %u, %u bits", what, i, j->status,
			      j->out_bits);
			continue;
		}
		uint8_t status =
		    k->times[i] == TIMES_FINAL ? FECD_STATUS_NOT_CONVERGED : FECD_STATUS_DECODED;
		CHECK(j->status == status && j->out_bits == 16 && out[0] == (id & 0xff) &&
		          out[1] == id >> 8 && j->work == want,
		      "%s: job %u: status %u, %u bits, output %02x%02x, work %u", what, i,
		      j->status, j->out_bits, out[1], out[0], j->work);
	}
	CHECK(k->t.retried == reruns, "%s: %u jobs retried, expected %u", what, k->t.retried,
	      reruns);
}

static struct task tasks[6];
static struct double_dec dbl;

/* Submits tasks[0..n) to cpu, all built by init, and waits for them. */
static bool run_tasks(struct backend *cpu, unsigned n)
{
	unsigned base;

	pthread_mutex_lock(&done_lock);
	base = done_count;
	pthread_mutex_unlock(&done_lock);
	for (unsigned i = 0; i < n; i++)
		if (cpu->ops->submit(cpu, &tasks[i].t)) {
			CHECK(0, "submit %u refused", i);
			return false;
		}
	bool ok = wait_done(base + n);
	CHECK(ok, "%u tasks not all reported within 30 s", n);
	return ok;
}

/* ---- Pieces */

/* Batches whose jobs cost alike go out in a few pieces per thread, in whole SIMD groups, and
 * every job is decoded once; jobs that cost unequal amounts go one group at a time. */
static void test_pieces(struct backend *cpu, unsigned threads)
{
	static const struct {
		uint32_t count, group;
		bool varies;
		uint32_t largest; /* the piece expected */
	} cases[] = {
	    {100, 1, false, 0}, {100, 4, false, 0}, {512, 16, false, 0},
	    {7, 1, false, 0},   {100, 1, true, 1},  {96, 8, true, 8},
	};

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint32_t count = cases[c].count, group = cases[c].group, piece = cases[c].largest;
		char what[64];

		if (!piece) {
			uint32_t pieces = threads * 4;
			piece = (count + pieces - 1) / pieces;
			piece = (piece + group - 1) / group * group;
		}
		snprintf(what, sizeof(what), "%u jobs, group %u%s", count, group,
		         cases[c].varies ? ", cost varies" : "");
		double_init(&dbl, FEC_KIND_FRAME, group, cases[c].varies);
		task_init(&tasks[0], &dbl, count, 0, times_none, cases[c].varies ? 9 : 0);
		if (!run_tasks(cpu, 1))
			return;
		check_task(&tasks[0], &dbl, 0, what);
		CHECK(dbl.largest_first == piece, "%s: largest piece %u, expected %u", what,
		      dbl.largest_first, piece);
		CHECK(dbl.unaligned == 0, "%s: %u pieces not on a group boundary", what,
		      dbl.unaligned);
		CHECK(tasks[0].t.ran_on == BACKEND_RAN_CPU, "%s: ran_on %d", what,
		      tasks[0].t.ran_on);
	}
}

/* A costly job does not hold up the jobs after it: while one thread is on it, the others decode
 * the rest of the batch (the job waits for them, so a backend that gave each thread a fixed share
 * would leave the jobs of that share undecoded and the wait in vain), each job once. */
static void test_costly_job(struct backend *cpu, unsigned threads)
{
	static const struct {
		uint32_t count, group, costly;
		bool varies;
	} cases[] = {{60, 1, 0, true}, {60, 1, 31, true}, {96, 8, 40, true}, {120, 1, 0, false}};

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint32_t count = cases[c].count, group = cases[c].group, piece = group;
		char what[80];

		if (!cases[c].varies) {
			uint32_t pieces = threads * 4;
			piece = (count + pieces - 1) / pieces;
			piece = (piece + group - 1) / group * group;
		}
		snprintf(what, sizeof(what), "costly job %u of %u, group %u%s", cases[c].costly,
		         count, group, cases[c].varies ? ", cost varies" : "");
		double_init(&dbl, FEC_KIND_FRAME, group, cases[c].varies);
		dbl.gate_target = count - piece; /* every job outside its piece */
		task_init(&tasks[0], &dbl, count, 0, times_none, 0);
		tasks[0].in[cases[c].costly * STRIDE_IN + 1] = COST_GATED;
		if (!run_tasks(cpu, 1))
			return;
		check_task(&tasks[0], &dbl, 0, what);
		CHECK(dbl.waits_failed == 0,
		      "%s: the rest of the batch was not decoded while one thread was on it", what);
	}
}

/* A batch uses every thread: each job waits until every thread has decoded a piece of it. */
static void test_all_threads(struct backend *cpu, unsigned threads)
{
	static const struct {
		uint32_t count, group;
		bool varies;
	} cases[] = {{12, 1, true}, {120, 1, false}, {128, 4, false}};

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char what[64];

		snprintf(what, sizeof(what), "all threads, %u jobs, group %u%s", cases[c].count,
		         cases[c].group, cases[c].varies ? ", cost varies" : "");
		double_init(&dbl, FEC_KIND_FRAME, cases[c].group, cases[c].varies);
		dbl.meeting_threads = threads;
		task_init(&tasks[0], &dbl, cases[c].count, 0, times_none, 0);
		for (uint32_t i = 0; i < cases[c].count; i++)
			tasks[0].in[i * STRIDE_IN + 1] = COST_MEETING;
		if (!run_tasks(cpu, 1))
			return;
		check_task(&tasks[0], &dbl, 0, what);
		CHECK(dbl.nthreads == threads && dbl.waits_failed == 0,
		      "%s: %u of %u threads decoded pieces (%u waits in vain)", what, dbl.nthreads,
		      threads, dbl.waits_failed);
	}
}

/* ---- Further attempts */

/* Several batches at once, with jobs given up on once, twice, always but the last time, and
 * always: each comes back complete, with final statuses in its own slots. */
static void test_retries(struct backend *cpu)
{
	static const uint32_t counts[] = {13, 64, 100, 77, 1};
	const unsigned n = sizeof(counts) / sizeof(counts[0]);
	uint16_t id = 0;

	double_init(&dbl, FEC_KIND_FRAME, 1, true);
	for (unsigned i = 0; i < n; i++) {
		task_init(&tasks[i], &dbl, counts[i], id, times_mixed, 5);
		id = (uint16_t)(id + counts[i]);
	}
	if (!run_tasks(cpu, n))
		return;
	for (unsigned i = 0; i < n; i++)
		check_task(&tasks[i], &dbl, 0, "retries");
	CHECK(dbl.not_marked == 0, "%u jobs decoded again without being given up on",
	      dbl.not_marked);

	/* The same with jobs that cost alike, in pieces of a SIMD group: later attempts take runs
	 * of marked jobs, which need not start on a group boundary. */
	double_init(&dbl, FEC_KIND_FRAME, 4, false);
	task_init(&tasks[0], &dbl, 200, 0, times_mixed, 0);
	if (run_tasks(cpu, 1))
		check_task(&tasks[0], &dbl, 0, "retries, group 4");
	CHECK(dbl.not_marked == 0, "group 4: %u jobs decoded again without being given up on",
	      dbl.not_marked);
}

/* A stream job given up on after the last attempt keeps its length in zero bits, so the bit
 * offsets after it stay right. */
static void test_stream_give_up(struct backend *cpu)
{
	double_init(&dbl, FEC_KIND_STREAM, 1, false);
	task_init(&tasks[0], &dbl, 3, 0, times_none, 0);
	tasks[0].in[1 * STRIDE_IN] = (int8_t)TIMES_NEVER;
	tasks[0].jobs[1].own_len = 6; /* 3 bits at 2 symbols a bit */
	tasks[0].jobs[1].head_len = 2;
	if (!run_tasks(cpu, 1))
		return;
	const struct fec_job *j = &tasks[0].jobs[1];
	CHECK(j->status == FECD_STATUS_ERASED && j->out_bits == 3 &&
	          (tasks[0].out[STRIDE_OUT] & 0xe0) == 0,
	      "stream job given up: status %u, %u bits, first byte %02x", j->status, j->out_bits,
	      tasks[0].out[STRIDE_OUT]);
	CHECK(tasks[0].jobs[0].status == FECD_STATUS_DECODED &&
	          tasks[0].jobs[2].status == FECD_STATUS_DECODED,
	      "the stream jobs around it: %u, %u", tasks[0].jobs[0].status,
	      tasks[0].jobs[2].status);
	CHECK(tasks[0].t.retried == FEC_ATTEMPTS - 1, "stream: %u retried", tasks[0].t.retried);
}

/* ---- The GPU backend's hand-off */

/* A batch back from the device: jobs the kernel decoded carry their results, those it gave up on
 * say FEC_STATUS_RETRY. backend_cpu_retry decodes just those, from attempt 1, and leaves ran_on;
 * a batch with none is reported at once, on the calling thread. */
static void test_gpu_hand_off(struct backend *cpu)
{
	struct task *k = &tasks[0];
	unsigned base;

	double_init(&dbl, FEC_KIND_FRAME, 1, true);
	task_init(k, &dbl, 120, 0, times_mixed, 7);
	for (uint32_t i = 0; i < k->t.batch.count; i++) {
		struct fec_job *j = &k->jobs[i];
		uint8_t *out = k->out + i * STRIDE_OUT;
		if (k->times[i]) {
			j->status = FEC_STATUS_RETRY;
			continue;
		}
		j->status = FECD_STATUS_DECODED; /* as the device left it */
		j->out_bits = 16;
		j->work = 1;
		out[0] = (uint8_t)i;
		out[1] = 0;
	}
	k->t.ran_on = BACKEND_RAN_GPU;
	pthread_mutex_lock(&done_lock);
	base = done_count;
	pthread_mutex_unlock(&done_lock);
	CHECK(backend_cpu_retry(cpu, &k->t) == 0, "backend_cpu_retry refused");
	if (!wait_done(base + 1)) {
		CHECK(0, "the handed-off batch was not reported within 30 s");
		return;
	}
	check_task(k, &dbl, 1, "hand-off");
	CHECK(k->t.ran_on == BACKEND_RAN_GPU, "hand-off: ran_on %d", k->t.ran_on);
	CHECK(dbl.not_marked == 0, "hand-off: %u unmarked jobs decoded", dbl.not_marked);

	/* Nothing marked: reported before backend_cpu_retry returns, on this thread. */
	double_init(&dbl, FEC_KIND_FRAME, 1, true);
	task_init(k, &dbl, 10, 0, times_none, 0);
	for (uint32_t i = 0; i < 10; i++)
		k->jobs[i].status = FECD_STATUS_DECODED;
	pthread_mutex_lock(&done_lock);
	base = done_count;
	pthread_mutex_unlock(&done_lock);
	CHECK(backend_cpu_retry(cpu, &k->t) == 0, "backend_cpu_retry refused");
	pthread_mutex_lock(&done_lock);
	CHECK(done_count == base + 1 && pthread_equal(k->done_on, pthread_self()),
	      "a batch with nothing to retry was not reported at once on the calling thread");
	pthread_mutex_unlock(&done_lock);
	for (uint32_t a = 0; a < FEC_ATTEMPTS; a++)
		CHECK(dbl.calls[0][a] == 0, "nothing to retry, yet job 0 decoded on attempt %u", a);
}

/* ---- Shutting down */

/* Destroying the backend with batches queued and attempts still to come: each is reported,
 * complete. */
static void test_destroy_pending(unsigned threads)
{
	struct backend *cpu;
	uint16_t id = 0;
	unsigned base;

	if (backend_cpu_create(threads, &cpu)) {
		CHECK(0, "backend_cpu_create");
		return;
	}
	double_init(&dbl, FEC_KIND_FRAME, 1, true);
	pthread_mutex_lock(&done_lock);
	base = done_count;
	pthread_mutex_unlock(&done_lock);
	for (unsigned i = 0; i < 4; i++) {
		task_init(&tasks[i], &dbl, 40, id, times_mixed, 3);
		id += 40;
		CHECK(cpu->ops->submit(cpu, &tasks[i].t) == 0, "submit %u", i);
	}
	cpu->ops->destroy(cpu);
	pthread_mutex_lock(&done_lock);
	CHECK(done_count == base + 4, "destroy returned with %u of 4 batches reported",
	      done_count - base);
	pthread_mutex_unlock(&done_lock);
	for (unsigned i = 0; i < 4; i++)
		check_task(&tasks[i], &dbl, 0, "destroyed with attempts pending");
}

/* ---- Shared decoders */

static void test_hold(void)
{
	double_init(&dbl, FEC_KIND_FRAME, 1, false);
	CHECK(fec_decoder_hold(&dbl.base) == &dbl.base, "fec_decoder_hold returns its decoder");
	fec_decoder_hold(&dbl.base);
	fec_decoder_destroy(&dbl.base);
	fec_decoder_destroy(&dbl.base);
	CHECK(dbl.destroyed == 0, "freed with a holder left");
	fec_decoder_destroy(&dbl.base);
	CHECK(dbl.destroyed == 1, "the last holder's destroy freed it %u times", dbl.destroyed);
}

/* ---- What a GPU copy moves */

/* Streams and fixed frames: whole slots. Frames of varying length: the longest input (times in_q
 * values a symbol) and the output bound it gives, never past the slots. */
static void test_extent_rules(void)
{
	struct fec_job jobs[3] = {{.in_len = 10}, {.in_len = 33}, {.in_len = 7}};
	float soft[1];
	struct fec_batch b = {.count = 3,
	                      .jobs = jobs,
	                      .in_stride = 400,
	                      .out_stride = 128,
	                      .soft = soft,
	                      .soft_stride = 1024};
	struct fec_info info = {.kind = FEC_KIND_STREAM,
	                        .unit_syms = 2,
	                        .unit_bits = 1,
	                        .max_out_bits = 1024,
	                        .in_q = 1};
	struct fec_batch_extent e;

	fec_batch_extent(&info, &b, &e);
	CHECK(e.in_elems == 400 && e.out_bytes == 128 && e.soft_vals == 1024, "stream: %zu %zu %zu",
	      e.in_elems, e.out_bytes, e.soft_vals);
	info.kind = FEC_KIND_FRAME;
	info.frame_syms = 400;
	fec_batch_extent(&info, &b, &e);
	CHECK(e.in_elems == 400 && e.out_bytes == 128 && e.soft_vals == 1024,
	      "fixed frames: %zu %zu %zu", e.in_elems, e.out_bytes, e.soft_vals);
	/* varying: 33 symbols -> ceil(33 / 2) = 17 bits, 3 bytes; 17 soft values */
	info.frame_syms = 0;
	info.soft_kind = FEC_SOFT_BIT_LLR;
	fec_batch_extent(&info, &b, &e);
	CHECK(e.in_elems == 33 && e.out_bytes == 3 && e.soft_vals == 17,
	      "varying frames: %zu %zu %zu", e.in_elems, e.out_bytes, e.soft_vals);
	b.soft = NULL;
	fec_batch_extent(&info, &b, &e);
	CHECK(e.soft_vals == 0, "no soft output wanted: %zu soft values", e.soft_vals);
	/* q-ary symbols of 16 values, q-ary soft output: every soft value of the slot */
	b.soft = soft;
	info.in_q = 16;
	info.in_kind = FEC_IN_F32_SYMLOGP;
	info.soft_kind = FEC_SOFT_SYM_LOGP;
	fec_batch_extent(&info, &b, &e);
	CHECK(e.in_elems == 400 && e.soft_vals == 1024, "q = 16: %zu elements, %zu soft values",
	      e.in_elems, e.soft_vals);
	jobs[1].in_len = 20;
	fec_batch_extent(&info, &b, &e);
	CHECK(e.in_elems == 320, "q = 16, 20 symbols: %zu elements", e.in_elems);
	/* a bound past max_out_bits stops there; no unit: the whole output slot */
	info.in_q = 1;
	info.max_out_bits = 4;
	fec_batch_extent(&info, &b, &e);
	CHECK(e.out_bytes == 1, "max_out_bits 4: %zu bytes", e.out_bytes);
	info.unit_syms = 0;
	fec_batch_extent(&info, &b, &e);
	CHECK(e.out_bytes == 128, "no unit: %zu bytes", e.out_bytes);
}

/* The frame decoders of varying length keep fec_info's bound: no job writes more bits than
 * fec_batch_extent lets a copy bring back, whatever its length (random, some not whole units). */
static void test_extent_bound(void)
{
	static const char *const codes[] = {
	    "ccsds,mode=terminated,max_frame_bits=600",
	    "ccsds,mode=truncated,max_frame_bits=600",
	    "viterbi,k=7,polys=171:133,puncture=3/4,mode=terminated,max_frame_bits=500",
	    "viterbi,k=9,polys=753:561,mode=truncated,max_frame_bits=300",
	};
	struct fec_prng rng;

	fec_prng_seed(&rng, 15);
	for (unsigned c = 0; c < sizeof(codes) / sizeof(codes[0]); c++) {
		struct fec_spec spec;
		struct fec_decoder *dec;
		char err[256];
		enum { N = 40 };

		if (fec_spec_from_string(codes[c], &spec, err, sizeof(err)) ||
		    fec_decoder_create(&spec, &dec)) {
			CHECK(0, "%s: %s", codes[c], err);
			continue;
		}
		const struct fec_info *info = fec_decoder_info(dec);
		size_t stride = info->max_frame_syms, out_stride = (info->max_out_bits + 7) / 8;
		struct fec_job jobs[N];
		int8_t *in = malloc(N * stride);
		uint8_t *out = malloc(N * out_stride);
		void *scratch = malloc(info->scratch_bytes);
		unsigned over = 0, decoded = 0;

		for (size_t i = 0; in && i < N * stride; i++)
			in[i] = (int8_t)(fec_prng_next(&rng) % 255 - 127);
		for (unsigned i = 0; i < N; i++) {
			uint32_t len = 1 + (uint32_t)(fec_prng_next(&rng) % stride);
			if (i % 3)
				len = len / info->unit_syms *
				      info->unit_syms; /* mostly whole units */
			jobs[i] = (struct fec_job){.in_len = len, .own_len = len};
		}
		struct fec_batch b = {.count = N,
		                      .jobs = jobs,
		                      .in = in,
		                      .in_stride = stride,
		                      .out = out,
		                      .out_stride = out_stride};
		if (in && out && scratch && fec_decode(dec, scratch, &b, 0, N) == 0) {
			for (unsigned i = 0; i < N; i++) {
				struct fec_batch one = b;
				struct fec_batch_extent e;
				one.count = 1;
				one.jobs = &jobs[i];
				fec_batch_extent(info, &one, &e);
				over += (jobs[i].out_bits + 7) / 8 > e.out_bytes;
				decoded += jobs[i].out_bits > 0;
			}
			CHECK(over == 0, "%s: %u jobs wrote past the extent", codes[c], over);
			CHECK(decoded > N / 2, "%s: only %u of %u jobs decoded", codes[c], decoded,
			      N);
		} else {
			CHECK(0, "%s: decoding failed", codes[c]);
		}
		free(in);
		free(out);
		free(scratch);
		fec_decoder_destroy(dec);
	}
}

int main(void)
{
	const unsigned threads = 3;
	struct backend *cpu;

	test_hold();
	test_extent_rules();
	test_extent_bound();
	if (backend_cpu_create(threads, &cpu)) {
		CHECK(0, "backend_cpu_create");
		return check_done();
	}
	test_pieces(cpu, threads);
	test_costly_job(cpu, threads);
	test_all_threads(cpu, threads);
	test_retries(cpu);
	test_stream_give_up(cpu);
	test_gpu_hand_off(cpu);
	cpu->ops->destroy(cpu);
	test_destroy_pending(2);
	return check_done();
}
