/*
 * fecd-bench end to end: the real daemon (build/bin/fecd, spawned on a generated configuration in
 * a temporary folder, backend cpu and, where a GPU is present, cuda) with fecd-feed -> fecd ->
 * fecd-sink on loopback, one channel per connection, 1 and several connections at once; beside
 * it a bare ZeroMQ PUSH/PULL link (threads of this process, TCP loopback) carrying the same bytes
 * in messages of the same size. The feed replays a pre-simulated period (--replay) and the sink
 * checks it at memory speed, so neither limits the daemon. Then the latency at a set input rate
 * (the feed's --stamps, the sink's percentiles; each sink's samples in the temporary folder's
 * latency-N.log, kept with FECD_BENCH_KEEP=1; fecd's own accept-to-publish p99 and its batches'
 * time on the backend from stats.get). Processes are ended by the PIDs started here.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zmq.h>

#include "bench.h"

extern char **environ;

#define E2E_MAX_CONN  8
#define E2E_MSG_SYMS  32768      /* symbols per message, daemon and bare ZeroMQ alike */
#define E2E_PERIOD    (1u << 20) /* replayed information bits */
#define E2E_HDR_BYTES 32         /* native input header */
#define E2E_SECS      4.0        /* a daemon run lasts about this long at bare ZeroMQ's speed */

struct e2e {
	const struct bench_opts *o;
	const struct bench_data *d; /* the decoder alone on the same code, for the CPU's ratio */
	char dir[64];
	pid_t fecd;
	unsigned nchan;
	int port;
	unsigned lat_runs; /* latency runs so far: their sinks' logs are latency-N.log */
};

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Starts argv[0] (a path) with stdout and stderr into out_path; returns the PID or -1. */
static pid_t spawn(char *const argv[], const char *out_path)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/* Waits for pid at most secs; ends it (TERM, then KILL) when it outlives that. Returns the exit
 * status, or -1; *cpu_s (optional) gets the CPU seconds the process used. */
static int reap_cpu(pid_t pid, double secs, double *cpu_s)
{
	double end = bench_now() + secs;
	struct rusage ru;
	int st;

	memset(&ru, 0, sizeof(ru));
	while (wait4(pid, &st, WNOHANG, &ru) == 0) {
		if (bench_now() > end) {
			kill(pid, SIGTERM);
			sleep_ms(500);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		sleep_ms(2);
	}
	if (cpu_s)
		*cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		         ru.ru_stime.tv_usec / 1e6;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int reap(pid_t pid, double secs)
{
	return reap_cpu(pid, secs, NULL);
}

static int fecd_start(struct e2e *e, const char *backend, char *why, size_t whylen)
{
	char cfg[128], ctl[128], log[128], path[4096];
	FILE *f;

	snprintf(cfg, sizeof(cfg), "%s/fecd-%s.json", e->dir, backend);
	snprintf(ctl, sizeof(ctl), "%s/control-%s.sock", e->dir, backend);
	snprintf(log, sizeof(log), "%s/fecd-%s.log", e->dir, backend);
	f = fopen(cfg, "w");
	if (!f) {
		snprintf(why, whylen, "cannot write %s", cfg);
		return -1;
	}
	fprintf(f,
	        "{\"control\": {\"socket\": \"%s\"}, \"log_level\": \"notice\", \"backend\": "
	        "\"%s\", ",
	        ctl, backend);
	if (e->o->loop_threads >= 0)
		fprintf(f, "\"loop_threads\": %d, ", e->o->loop_threads);
	fprintf(f, "\"channels\": [");
	for (unsigned i = 0; i < e->nchan; i++)
		fprintf(
		    f,
		    "%s{\"id\": %u, \"code\": {\"preset\": \"ccsds\", \"decode_len\": %u, "
		    "\"traceback_len\": %u, \"head_len\": %u}, \"input\": {\"endpoint\": "
		    "\"tcp://127.0.0.1:%d\"}, \"output\": {\"endpoint\": \"tcp://127.0.0.1:%d\"}}",
		    i ? ", " : "", i + 1, e->o->decode_len, e->o->traceback_len,
		    e->o->traceback_len, e->port + 2 * (int)i, e->port + 2 * (int)i + 1);
	fprintf(f, "]}\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/fecd", e->o->bindir);
	char *argv[] = {path, "--config", cfg, NULL};
	e->fecd = spawn(argv, log);
	for (int i = 0; e->fecd > 0 && i < 200; i++) {
		struct stat st;

		if (!stat(ctl, &st))
			return 0;
		if (waitpid(e->fecd, NULL, WNOHANG) == e->fecd)
			break;
		sleep_ms(50);
	}
	snprintf(why, whylen, "fecd (%s backend) did not start; see its log %s", backend, log);
	if (e->fecd > 0)
		reap(e->fecd, 0);
	e->fecd = -1;
	return -1;
}

static void fecd_stop(struct e2e *e)
{
	if (e->fecd <= 0)
		return;
	kill(e->fecd, SIGTERM);
	reap(e->fecd, 20);
	e->fecd = -1;
}

/* A finished sink's JSON report, or NULL. */
static cJSON *sink_report(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[8192];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return n ? cJSON_Parse(buf) : NULL;
}

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

struct flow_result {
	double bits, secs, ber;
	double client_cpu_s; /* CPU seconds its feed and sink used */
	bool pass;
	cJSON *report;
};

/* nconn feeds and sinks at once, `bits` each, at `rate` symbols/s (0: full speed), with stamps
 * when asked. Fills res[] and *wall (first feed started to last sink done). Returns 0 or -1. */
static int run_flows(struct e2e *e, unsigned nconn, uint64_t bits, double rate, bool stamps,
                     struct flow_result *res, double *wall)
{
	char feed[4096], sink[4096], a[E2E_MAX_CONN][9][160];
	pid_t fp[E2E_MAX_CONN], sp[E2E_MAX_CONN];
	int rc = 0;

	snprintf(feed, sizeof(feed), "%s/fecd-feed", e->o->bindir);
	snprintf(sink, sizeof(sink), "%s/fecd-sink", e->o->bindir);
	for (unsigned i = 0; i < nconn; i++) {
		/* a[i]: 0 in-ep, 1 out-ep, 2 bits, 3 rate, 4 stamps, 5 sink json, 6 feed log, 7 ch
		 */
		snprintf(a[i][0], 160, "tcp://127.0.0.1:%d", e->port + 2 * (int)i);
		snprintf(a[i][1], 160, "tcp://127.0.0.1:%d", e->port + 2 * (int)i + 1);
		snprintf(a[i][2], 160, "%llu", (unsigned long long)bits);
		snprintf(a[i][3], 160, "%.0f", rate);
		snprintf(a[i][4], 160, "%s/stamps-%u", e->dir, i);
		snprintf(a[i][5], 160, "%s/sink-%u.json", e->dir, i);
		snprintf(a[i][6], 160, "%s/feed-%u.log", e->dir, i);
		snprintf(a[i][7], 160, "%u", i + 1);
		snprintf(a[i][8], 160, "%s/latency-%u.log", e->dir, e->lat_runs + i);
		char *sargv[] = {sink,     "--endpoint", a[i][1],   "--until-eos",
		                 "--json", "--replay",   "1048576", "--max-ber",
		                 "0.01",   "--timeout",  "20000",   stamps ? "--stamps" : NULL,
		                 a[i][4],  "--latency-log", a[i][8], NULL};
		sp[i] = spawn(sargv, a[i][5]);
	}
	if (stamps)
		e->lat_runs += nconn;
	sleep_ms(200); /* the sinks connect before the first output leaves */
	double t0 = bench_now(), last = t0;
	for (unsigned i = 0; i < nconn; i++) {
		char *fargv[] = {feed,      "--endpoint", a[i][0], "--channel",
		                 a[i][7],   "--bits",     a[i][2], "--ebn0",
		                 "4",       "--msg-syms", "32768", "--replay",
		                 "1048576", "--rate",     a[i][3], stamps ? "--stamps" : NULL,
		                 a[i][4],   NULL};
		fp[i] = spawn(fargv, a[i][6]);
	}
	for (unsigned i = 0; i < nconn; i++) {
		double limit = 120 + (rate > 0 ? 2.0 * (double)bits / rate : 0);

		if (fp[i] < 0 || reap_cpu(fp[i], limit, &res[i].client_cpu_s) != 0)
			rc = -1;
	}
	for (unsigned i = 0; i < nconn; i++) {
		double sink_cpu = 0;
		int st = sp[i] > 0 ? reap_cpu(sp[i], 60, &sink_cpu) : -1;

		res[i].client_cpu_s += sink_cpu;
		if (bench_now() > last)
			last = bench_now();
		res[i].report = sink_report(a[i][5]);
		res[i].pass = st == 0 && res[i].report;
		res[i].bits = jnum(res[i].report, "bits");
		res[i].secs = jnum(res[i].report, "seconds");
		res[i].ber = jnum(res[i].report, "ber");
		if (!res[i].pass)
			rc = -1;
	}
	*wall = last - t0;
	return rc;
}

/* ---- Bare ZeroMQ: the same bytes in the same messages, PUSH -> PULL on loopback. */

struct bare_link {
	void *ctx;      /* the receiving side's, shared by every link as fecd's is */
	void *push_ctx; /* the sender's own, as each fecd-feed process has */
	uint64_t affinity;
	int port;
	uint64_t msgs;
	double secs;
	int rc;
};

static void *bare_pull(void *arg)
{
	struct bare_link *l = arg;
	void *s = zmq_socket(l->ctx, ZMQ_PULL);
	char ep[64];
	zmq_msg_t m;
	double t0 = 0;

	snprintf(ep, sizeof(ep), "tcp://127.0.0.1:%d", l->port);
	if (!s || zmq_setsockopt(s, ZMQ_AFFINITY, &l->affinity, sizeof(l->affinity)) ||
	    zmq_bind(s, ep)) {
		l->rc = -1;
		return NULL;
	}
	zmq_msg_init(&m);
	for (uint64_t i = 0; i < 2 * l->msgs; i++) { /* two parts per message */
		if (zmq_msg_recv(&m, s, 0) < 0) {
			l->rc = -1;
			break;
		}
		if (!i)
			t0 = bench_now();
	}
	l->secs = bench_now() - t0;
	zmq_msg_close(&m);
	zmq_close(s);
	return NULL;
}

static void *bare_push(void *arg)
{
	struct bare_link *l = arg;
	void *s = zmq_socket(l->push_ctx, ZMQ_PUSH);
	static uint8_t hdr[E2E_HDR_BYTES];
	uint8_t *payload = calloc(1, E2E_MSG_SYMS);
	char ep[64];

	snprintf(ep, sizeof(ep), "tcp://127.0.0.1:%d", l->port);
	if (!s || !payload || zmq_connect(s, ep)) {
		l->rc = -1;
		goto out;
	}
	for (uint64_t i = 0; i < l->msgs; i++)
		if (zmq_send(s, hdr, sizeof(hdr), ZMQ_SNDMORE) < 0 ||
		    zmq_send(s, payload, E2E_MSG_SYMS, 0) < 0) {
			l->rc = -1;
			break;
		}
out:
	free(payload);
	if (s)
		zmq_close(s);
	return NULL;
}

/* Information bits per second each link would carry (r=1/2: two symbols per bit); total in
 * *total. Returns 0 or -1. */
static int bare_zmq(int port, unsigned nconn, uint64_t bits, double *per, double *total)
{
	struct bare_link l[E2E_MAX_CONN];
	pthread_t tp[E2E_MAX_CONN], tq[E2E_MAX_CONN];
	void *ctx = zmq_ctx_new();
	uint64_t msgs = 2 * bits / E2E_MSG_SYMS + 1;
	double t0 = bench_now(), slowest = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int io = cores >= 16 ? 8 : cores >= 4 ? (int)(cores / 2) : 1, rc = 0;

	if (!ctx)
		return -1;
	/* The receiving side gets fecd's default zmq.io_threads (half the cores, 1..8) and puts
	 * each link on its own I/O thread as fecd does; each sender has its own context like the
	 * separate fecd-feed processes. One shared context with a thread per link put senders and
	 * receivers on the same few threads and capped the total below what fecd reaches. */
	zmq_ctx_set(ctx, ZMQ_IO_THREADS, io);
	for (unsigned i = 0; i < nconn; i++) {
		l[i] = (struct bare_link){.ctx = ctx,
		                          .push_ctx = zmq_ctx_new(),
		                          .affinity = 1ull << (i % (unsigned)io),
		                          .port = port + (int)i,
		                          .msgs = msgs};
		if (!l[i].push_ctx) {
			nconn = i;
			rc = -1;
			break;
		}
	}
	for (unsigned i = 0; i < nconn; i++)
		pthread_create(&tq[i], NULL, bare_pull, &l[i]);
	sleep_ms(50);
	t0 = bench_now();
	for (unsigned i = 0; i < nconn; i++)
		pthread_create(&tp[i], NULL, bare_push, &l[i]);
	*per = 0;
	for (unsigned i = 0; i < nconn; i++) {
		pthread_join(tp[i], NULL);
		pthread_join(tq[i], NULL);
		rc |= l[i].rc;
		*per += (double)msgs * E2E_MSG_SYMS / 2 / l[i].secs / nconn;
	}
	slowest = bench_now() - t0;
	*total = nconn ? (double)nconn * msgs * E2E_MSG_SYMS / 2 / slowest : 0;
	for (unsigned i = 0; i < nconn; i++)
		zmq_ctx_term(l[i].push_ctx);
	zmq_ctx_term(ctx);
	return rc;
}

/* fecd's own view of channel 1: its stats.get answer through fecdctl, or NULL. */
static cJSON *fecd_stats(struct e2e *e, const char *backend)
{
	char ctl[4096], sock[128], out[160], buf[16384];
	cJSON *j = NULL;
	FILE *f;
	size_t n;

	snprintf(ctl, sizeof(ctl), "%s/fecdctl", e->o->bindir);
	snprintf(sock, sizeof(sock), "%s/control-%s.sock", e->dir, backend);
	snprintf(out, sizeof(out), "%s/stats-%s.json", e->dir, backend);
	char *argv[] = {ctl, "--socket", sock, "stats.get", "{\"id\": 1}", NULL};
	if (reap(spawn(argv, out), 10) != 0)
		return NULL;
	f = fopen(out, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	if (n)
		j = cJSON_Parse(buf);
	return j;
}

/* How long a latency run at `rate` must last for `want` output messages: a stream batch is one
 * message, sent when full (jobs blocks of D bits) or batch.deadline_ms (20) after its first
 * block, whichever comes first. */
static double latency_secs(const struct bench_opts *o, bool gpu, double rate, unsigned want)
{
	double jobs = gpu ? BENCH_FECD_GPU_JOBS : BENCH_FECD_CPU_JOBS(o->threads);
	double per_s = rate / (jobs * o->decode_len), secs;

	if (per_s < 1000.0 / BENCH_FECD_DEADLINE_MS)
		per_s = 1000.0 / BENCH_FECD_DEADLINE_MS;
	secs = want / per_s;
	return secs < 2 ? 2 : secs > 30 ? 30 : secs;
}

/* One latency row: a flow at `rate` with stamps, the sink's percentiles, fecd's batch times and
 * the bound the latency is held to (2 deadlines and a batch's time on the backend). */
static void latency_row(struct e2e *e, const char *backend, const char *what, double rate,
                        cJSON *ls)
{
	const struct bench_opts *o = e->o;
	bool gpu = !strcmp(backend, "cuda");
	double secs = o->short_mode ? 1.0 : latency_secs(o, gpu, rate, 1200), wall = 0;
	struct flow_result res[1];
	char label[64];

	progress("latency: %s backend at %.0f Mb/s (%s) for %.0f s", backend, rate / 1e6, what,
	         secs);
	memset(res, 0, sizeof(res));
	bool pass = run_flows(e, 1, (uint64_t)(rate * secs), 2 * rate, true, res, &wall) == 0;
	const cJSON *lat = cJSON_GetObjectItem(res[0].report, "latency_ms");
	cJSON *st = fecd_stats(e, backend);
	double batch = jnum(st, "batch_p99_ms"), own = jnum(st, "lat_p99_ms");
	double bound = 2.0 * BENCH_FECD_DEADLINE_MS + batch, p99 = jnum(lat, "p99");

	snprintf(label, sizeof(label), "%s, %s", backend, what);
	cJSON *row = report_row(ls, label);
	row_num(row, "input Mb/s", rate / 1e6);
	row_num(row, "p50 ms", jnum(lat, "p50"));
	row_num(row, "p90 ms", jnum(lat, "p90"));
	row_num(row, "p99 ms", p99);
	row_num(row, "max ms", jnum(lat, "max"));
	row_num(row, "samples", jnum(lat, "samples"));
	row_num(row, "fecd p99 ms", own);
	row_num(row, "batch p99 ms", batch);
	row_num(row, "bound ms", st ? bound : 0);
	row_str(row, "p99 in bound", !st ? "?" : p99 <= bound ? "yes" : "NO");
	row_str(row, "verified", pass ? "yes" : "FAIL");
	cJSON_Delete(st);
	cJSON_Delete(res[0].report);
}

/* The CPU backend's yardstick: the decoder alone (fec_decode on threads, no daemon) on the cores
 * that the feeds and sinks left free, on the same code; the row gets both and their ratio. */
static void decoder_alone(struct e2e *e, cJSON *row, double through, double client_cores)
{
	double free_cores = e->o->threads - client_cores, rate;
	unsigned threads = free_cores < 1 ? 1 : (unsigned)(free_cores + 0.5);
	uint8_t *out = calloc(e->d->njobs, e->d->out_stride);

	if (!out)
		return;
	progress("e2e: the decoder alone on %u threads (feeds and sinks used %.2f cores)", threads,
	         client_cores);
	rate = bench_cpu_rate(e->d, threads, e->o->cpu_jobs, e->o->min_secs, out);
	free(out);
	row_num(row, "client cores", client_cores);
	row_num(row, "decoder Mb/s", rate > 0 ? rate / 1e6 : 0);
	row_num(row, "ratio decoder", rate > 0 ? through / rate : 0);
}

static void e2e_backend(struct e2e *e, const char *backend, cJSON *es, cJSON *ls)
{
	const struct bench_opts *o = e->o;
	struct flow_result res[E2E_MAX_CONN];
	unsigned counts[2] = {1, e->nchan};
	char why[256], label[64];
	double one_conn = 0;

	if (fecd_start(e, backend, why, sizeof(why))) {
		report_note(es, "%s backend: skipped: %s", backend, why);
		report_note(ls, "%s backend: skipped: %s", backend, why);
		return;
	}
	for (unsigned c = 0; c < 2; c++) {
		unsigned n = counts[c];
		double wall = 0, bare_per = 0, bare_total = 0, per = 0, sum = 0, ber = 0, cpu_s = 0;
		uint64_t bare_bits = o->short_mode ? (8u << 20) : (1u << 30), bits = o->e2e_bits;
		bool pass;

		/* Bare ZeroMQ first: its speed sizes the daemon's run (E2E_SECS at that speed, so
		 * starting and stopping weigh little), unless --e2e-bits says. */
		progress("e2e: bare ZeroMQ, %u connection%s", n, n > 1 ? "s" : "");
		if (bare_zmq(o->port + 50, n, bare_bits, &bare_per, &bare_total))
			report_note(es, "bare ZeroMQ with %u connections failed", n);
		if (!bits)
			bits = o->short_mode || bare_per <= 0
			           ? bare_bits
			           : ((uint64_t)(bare_per * E2E_SECS) / E2E_PERIOD + 1) * E2E_PERIOD;
		progress("e2e: %s backend, %u connection%s x %llu bits", backend, n,
		         n > 1 ? "s" : "", (unsigned long long)bits);
		memset(res, 0, sizeof(res));
		pass = run_flows(e, n, bits, 0, false, res, &wall) == 0;
		for (unsigned i = 0; i < n; i++) {
			per += res[i].secs > 0 ? res[i].bits / res[i].secs / n : 0;
			sum += res[i].bits;
			ber += res[i].ber / n;
			cpu_s += res[i].client_cpu_s;
			cJSON_Delete(res[i].report);
		}
		if (n == 1)
			one_conn = per;
		snprintf(label, sizeof(label), "%s, %u conn", backend, n);
		cJSON *row = report_row(es, label);
		row_num(row, "conns", n);
		row_num(row, "Mb/s/conn", per / 1e6);
		row_num(row, "Mb/s total", wall > 0 ? sum / wall / 1e6 : 0);
		row_num(row, "bare Mb/s/conn", bare_per / 1e6);
		row_num(row, "bare total", bare_total / 1e6);
		row_num(row, "ratio/conn", bare_per > 0 ? per / bare_per : 0);
		row_num(row, "ratio total",
		        bare_total > 0 && wall > 0 ? sum / wall / bare_total : 0);
		row_num(row, "BER", ber);
		row_str(row, "verified", pass ? "yes" : "FAIL");
		if (!strcmp(backend, "cpu") && wall > 0)
			decoder_alone(e, row, sum / wall, cpu_s / wall);
		if (n == counts[1])
			break;
	}
	/* Latency at a set rate (50 Mb/s unless --latency-rate), and at half of what one
	 * connection carried above: the load the latency bound is promised at. */
	latency_row(e, backend, "set rate",
	            o->lat_rate > 0 ? o->lat_rate : o->short_mode ? 2e6 : 50e6, ls);
	if (!o->short_mode && one_conn > 0)
		latency_row(e, backend, "half capacity", one_conn / 2, ls);
	fecd_stop(e);
}

static void remove_dir(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		progress("e2e: could not remove %s", dir);
}

void bench_e2e(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	const struct bench_data *d = c->d;
	static const char *const ecols[] = {
	    "conns",      "Mb/s/conn",   "Mb/s total", "bare Mb/s/conn", "bare total",
	    "ratio/conn", "ratio total", "BER",        "verified",       "client cores",
	    "decoder Mb/s", "ratio decoder", NULL};
	static const char *const lcols[] = {
	    "input Mb/s",   "p50 ms",   "p90 ms",       "p99 ms",   "max ms", "samples",
	    "fecd p99 ms", "batch p99 ms", "bound ms", "p99 in bound", "verified", NULL};
	cJSON *es = report_section(r, "e2e", ecols);
	cJSON *ls = report_section(r, "latency", lcols);
	struct e2e e = {.o = o, .d = d, .fecd = -1, .port = o->port};
	char path[4096];

	e.nchan = o->short_mode ? 2 : 4;
	if (e.nchan > o->threads && o->threads >= 2)
		e.nchan = o->threads;
	snprintf(path, sizeof(path), "%s/fecd", o->bindir);
	if (access(path, X_OK)) {
		report_skip(es, "%s not found (fecd-bench looks beside itself)", path);
		report_skip(ls, "%s not found", path);
		return;
	}
	snprintf(e.dir, sizeof(e.dir), "/tmp/fecd-bench.XXXXXX");
	if (!mkdtemp(e.dir)) {
		report_skip(es, "no temporary folder: %s", strerror(errno));
		report_skip(ls, "no temporary folder");
		return;
	}
	report_note(es,
	            "messages of %u symbols (+%u-byte header), one channel per connection; "
	            "Mb/s = decoded information bits; bare ZeroMQ carries the same bytes; batches: "
	            "the daemon's defaults (batch.jobs and batch.inflight 0: the backend's choice); "
	            "the CPU backend beside the decoder alone on the cores the "
	            "feeds and sinks left free (client cores: the CPU they used over the run)",
	            E2E_MSG_SYMS, E2E_HDR_BYTES);
	e2e_backend(&e, "cpu", es, ls);
	if (c->had_gpu)
		e2e_backend(&e, "cuda", es, ls);
	else
		report_note(es, "cuda backend: skipped: no GPU (or --no-gpu / --short)");
	if (!getenv("FECD_BENCH_KEEP"))
		remove_dir(e.dir);
	else
		report_note(es, "kept %s", e.dir);
}
