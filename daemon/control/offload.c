/*
 * Control work off the loop thread (offload.h). The work goes to libuv's thread pool through
 * uv_queue_work on the main loop:
 *   - fecd puts nothing else on that pool (no uv_fs, no getaddrinfo), so it is ours alone;
 *   - a uv_work_t keeps the loop alive until its done callback has run, so shutdown waits for a
 *     build in flight (at most the build limit) instead of freeing what the worker uses;
 *   - done runs on the loop thread, where the service's state lives.
 * At most OFFLOAD_MAX pieces of work run at once; the rest wait in order on the loop thread. Two
 * let a small create go on beside a slow one, while the cores builds take from the decoders and
 * their memory stay bounded: a generated code of 2^20 columns holds 1.3 GB within 20 s of
 * building (the encoder's dense part), so the pool's four threads could hold 5 GB.
 * The build limit is armed when the work starts on its thread, not when it is queued: time spent
 * waiting for a turn does not count against a code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fec.h"
#include "offload.h"

#define OFFLOAD_MAX 2

struct offload_req {
	uv_work_t req;
	uv_loop_t *loop;
	uint32_t limit_ms;
	void (*work)(void *arg);
	void (*done)(void *arg);
	void *arg;
	struct offload_req *next; /* waiting for a turn */
};

/* Work running and waiting; the main loop's thread alone touches these. */
static unsigned running;
static struct offload_req *wait_head, *wait_tail;

/* The limit armed on this thread (0: none), for build_limit_restart and the messages. */
static _Thread_local uint32_t limit_here_ms;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void build_limit_begin(uint32_t limit_ms)
{
	limit_here_ms = limit_ms;
	fec_build_deadline_set(limit_ms ? mono_ns() + (uint64_t)limit_ms * 1000000ull : 0);
}

void build_limit_restart(void)
{
	if (limit_here_ms)
		build_limit_begin(limit_here_ms);
}

void build_limit_end(void)
{
	build_limit_begin(0);
}

bool build_limit_passed(void)
{
	uint64_t deadline = fec_build_deadline();

	return deadline && mono_ns() >= deadline;
}

void build_limit_message(char *err, size_t errlen, const char *path)
{
	snprintf(err, errlen,
	         "%s: building the code took longer than control.build_timeout_ms (%u ms); ask "
	         "for a shorter code (a smaller n) or one that builds faster (regular rather than "
	         "peg), or raise control.build_timeout_ms in the configuration file and reload",
	         path, (unsigned)limit_here_ms);
}

static void on_work(uv_work_t *req)
{
	struct offload_req *o = req->data;

	build_limit_begin(o->limit_ms);
	o->work(o->arg);
	build_limit_end();
}

static void on_done(uv_work_t *req, int status);

static int start(struct offload_req *o)
{
	int rc = uv_queue_work(o->loop, &o->req, on_work, on_done);

	if (rc == 0)
		running++;
	return rc;
}

/* status is 0: nothing here cancels queued work (uv_cancel), so the work has always run. */
static void on_done(uv_work_t *req, int status)
{
	struct offload_req *o = req->data;

	(void)status;
	running--;
	/* The next in line starts before done runs: done may queue more work. uv_queue_work fails
	 * only on bad arguments, which these are not. */
	if (wait_head) {
		struct offload_req *next = wait_head;

		wait_head = next->next;
		if (!wait_head)
			wait_tail = NULL;
		start(next);
	}
	o->done(o->arg);
	free(o);
}

int offload_run(uv_loop_t *loop, uint32_t limit_ms, void (*work)(void *arg),
                void (*done)(void *arg), void *arg)
{
	struct offload_req *o = calloc(1, sizeof(*o));
	int rc;

	if (!o)
		return UV_ENOMEM;
	o->req.data = o;
	o->loop = loop;
	o->limit_ms = limit_ms;
	o->work = work;
	o->done = done;
	o->arg = arg;
	if (running >= OFFLOAD_MAX) {
		if (wait_tail)
			wait_tail->next = o;
		else
			wait_head = o;
		wait_tail = o;
		return 0;
	}
	rc = start(o);
	if (rc)
		free(o);
	return rc;
}
