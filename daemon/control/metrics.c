/*
 * The metrics server: libmicrohttpd answers GET /metrics on its own thread; other paths get 404,
 * other methods 405.
 *
 * Channel counters belong to each channel's loop thread, so the HTTP thread never reads them.
 * A scrape asks the main loop for a snapshot (uv_async) and waits on a condition for it, at most
 * METRICS_WAIT_MS: the main loop collects every channel's stats on its loop thread (the same
 * loop_call as stats.get, a copy of a few hundred bytes) and hands the snapshot over under the
 * lock. If the main loop does not answer in time (a long control request), the scrape gets the
 * last snapshot with its age in fecd_metrics_snapshot_age_seconds; the data path only ever
 * pauses for the copy of its counters, never for the HTTP side. A rendered answer is kept for
 * METRICS_FRESH_NS and given to every scrape within that time (libmicrohttpd responses are
 * reference counted), so however often clients ask, the loops make at most one snapshot per
 * METRICS_FRESH_NS. Asking on demand rather than rendering on every stats tick costs nothing while
 * nobody scrapes, and a scrape sees counters as they are (a test can compare them with stats.get).
 *
 * Hostile or slow clients: at most METRICS_CONN_MAX connections (METRICS_PER_IP_MAX from one
 * address), each dropped after METRICS_IDLE_S seconds without progress and limited to
 * METRICS_CONN_MEMORY bytes of request; the server has no authentication (README says to keep
 * it on loopback or behind a firewall).
 *
 * FECD_METRICS_TEST_DELAY_MS=N (tests only) makes the main loop take N ms longer over each
 * snapshot, as a busy loop would: the test of the fallback to the last snapshot.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "log.h"
#include "metrics.h"
#include "settings.h"

#define METRICS_FRESH_NS     (250ull * 1000000ull)
#define METRICS_WAIT_MS      2000
#define METRICS_CONN_MAX     16
#define METRICS_PER_IP_MAX   4
#define METRICS_IDLE_S       10
#define METRICS_CONN_MEMORY  (16u * 1024u)
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics {
	struct fecd *d;
	char listen[64];
	uint64_t start_ns;
	unsigned test_delay_ms; /* FECD_METRICS_TEST_DELAY_MS */
	uv_async_t wake;        /* a scrape asks the main loop for a snapshot */
	struct MHD_Daemon *mhd;
	struct MHD_Response *not_found, *not_allowed, *unavailable;
	pthread_mutex_t lock;           /* serial, fresh, stopping */
	pthread_cond_t made;            /* serial moved on */
	uint64_t serial;                /* snapshots the main loop has answered with */
	struct metrics_snapshot *fresh; /* made by the main loop, not yet taken */
	bool stopping;
	/* The HTTP thread's own. */
	struct metrics_snapshot *last;
	struct MHD_Response *answer; /* rendered from last */
	uint64_t answer_ns;
};

/* ---- The main loop side */

static struct metrics_snapshot *gather(struct metrics *m)
{
	const struct fecd_config *cfg = fecd_running_config(m->d);
	struct backend *be = fecd_backend(m->d);
	struct metrics_snapshot *s;
	uint64_t t0 = uv_hrtime();
	unsigned n = 0;

	for (struct channel *ch = fecd_channel_next(m->d, NULL); ch;
	     ch = fecd_channel_next(m->d, ch))
		n++;
	s = calloc(1, sizeof(*s) + n * sizeof(s->ch[0]));
	if (!s)
		return NULL;
	for (struct channel *ch = fecd_channel_next(m->d, NULL); ch && s->nchannels < n;
	     ch = fecd_channel_next(m->d, ch)) {
		struct metrics_channel *c = &s->ch[s->nchannels++];
		c->id = channel_config(ch)->id;
		snprintf(c->name, sizeof(c->name), "%s", channel_config(ch)->name);
		channel_get_stats(ch, &c->st);
	}
	snprintf(s->backend_configured, sizeof(s->backend_configured), "%s", cfg->backend);
	if (be->ops->counters)
		be->ops->counters(be, &s->be);
	rpc_counters_get(&s->rpc);
	s->taken_ns = uv_hrtime();
	s->gather_ns = s->taken_ns - t0;
	s->uptime_s = (s->taken_ns - m->start_ns) / 1e9;
	return s;
}

static void on_wake(uv_async_t *a)
{
	struct metrics *m = a->data;
	struct metrics_snapshot *s = gather(m);

	if (m->test_delay_ms)
		uv_sleep(m->test_delay_ms);
	pthread_mutex_lock(&m->lock);
	if (s) {
		free(m->fresh);
		m->fresh = s;
	}
	m->serial++;
	pthread_cond_broadcast(&m->made);
	pthread_mutex_unlock(&m->lock);
}

/* ---- The HTTP thread */

/* Asks the main loop for a snapshot and waits for it, at most METRICS_WAIT_MS; m->last is the
 * newest one there is afterwards (NULL when none ever came). */
static void refresh_snapshot(struct metrics *m)
{
	struct timespec until;
	uint64_t serial;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += METRICS_WAIT_MS / 1000;
	until.tv_nsec += (METRICS_WAIT_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&m->lock);
	serial = m->serial;
	if (!m->stopping) {
		uv_async_send(&m->wake);
		while (m->serial == serial && !m->stopping && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&m->made, &m->lock, &until);
	}
	if (m->fresh) {
		free(m->last);
		m->last = m->fresh;
		m->fresh = NULL;
	}
	pthread_mutex_unlock(&m->lock);
	if (rc == ETIMEDOUT)
		log_warn("metrics: the main loop did not answer within %d ms; serving %s",
		         METRICS_WAIT_MS, m->last ? "the last snapshot" : "503 (no snapshot yet)");
}

/* The answer to GET /metrics: the one kept, while fresh; else rendered from a new snapshot.
 * NULL: no snapshot, or out of memory. */
static struct MHD_Response *metrics_answer(struct metrics *m)
{
	uint64_t now = uv_hrtime();
	struct MHD_Response *r;
	size_t len;
	char *text;

	if (m->answer && now - m->answer_ns < METRICS_FRESH_NS)
		return m->answer;
	refresh_snapshot(m);
	if (!m->last)
		return NULL;
	now = uv_hrtime();
	text = metrics_render(m->last, (now - m->last->taken_ns) / 1e9, &len);
	if (!text)
		return NULL;
	log_debug("metrics: %u channels: snapshot made in %.3f ms on the main loop, %zu bytes "
	          "rendered in %.3f ms",
	          m->last->nchannels, m->last->gather_ns / 1e6, len, (uv_hrtime() - now) / 1e6);
	r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, METRICS_CONTENT_TYPE);
	/* Connections still sending the old answer hold their own reference to it. */
	if (m->answer)
		MHD_destroy_response(m->answer);
	m->answer = r;
	m->answer_ns = now;
	return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
	struct metrics *m = cls;
	struct MHD_Response *r;

	(void)version, (void)upload_data, (void)upload_data_size, (void)req_cls;
	if (strcmp(url, "/metrics") != 0)
		return MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, m->not_found);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return MHD_queue_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED, m->not_allowed);
	r = metrics_answer(m);
	if (!r)
		return MHD_queue_response(conn, MHD_HTTP_SERVICE_UNAVAILABLE, m->unavailable);
	return MHD_queue_response(conn, MHD_HTTP_OK, r);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[256];
	size_t n;

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	log_warn("metrics: %s", line);
}

/* ---- Life */

static struct MHD_Response *fixed_text(const char *text, const char *allow)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);

	if (r) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
		                        "text/plain; charset=utf-8");
		if (allow)
			MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	}
	return r;
}

/* The listening socket, made here so that a failure to bind says why. */
static int listen_socket(const char *spec, bool *ipv6, char *err, size_t errlen)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	int fd, one = 1, e;

	if (listen_addr_parse(spec, &sa, &salen) != 0) {
		snprintf(err, errlen, "metrics.listen: \"%s\" is not HOST:PORT", spec);
		return -EINVAL;
	}
	*ipv6 = sa.ss_family == AF_INET6;
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "metrics.listen %s: cannot make a socket: %s", spec,
		         strerror(e));
		return -e;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (*ipv6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, salen) != 0 || listen(fd, 16) != 0) {
		e = errno;
		snprintf(err, errlen, "metrics.listen %s: cannot listen there: %s", spec,
		         strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

static void free_metrics(struct metrics *m)
{
	if (m->answer)
		MHD_destroy_response(m->answer);
	if (m->not_found)
		MHD_destroy_response(m->not_found);
	if (m->not_allowed)
		MHD_destroy_response(m->not_allowed);
	if (m->unavailable)
		MHD_destroy_response(m->unavailable);
	free(m->fresh);
	free(m->last);
	pthread_cond_destroy(&m->made);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static void on_wake_closed(uv_handle_t *h)
{
	free_metrics(h->data);
}

int metrics_start(struct fecd *d, const struct fecd_config *cfg, struct metrics **out, char *err,
                  size_t errlen)
{
	struct metrics *m;
	const char *delay;
	pthread_condattr_t ca;
	bool ipv6 = false;
	int fd, rc;

	*out = NULL;
	if (!cfg->metrics_listen[0])
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "metrics: out of memory");
		return -ENOMEM;
	}
	m->d = d;
	m->start_ns = uv_hrtime();
	if ((delay = getenv("FECD_METRICS_TEST_DELAY_MS")))
		m->test_delay_ms = (unsigned)strtoul(delay, NULL, 10);
	snprintf(m->listen, sizeof(m->listen), "%s", cfg->metrics_listen);
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->made, &ca);
	pthread_condattr_destroy(&ca);
	m->not_found = fixed_text("not found: fecd serves its metrics at /metrics\n", NULL);
	m->not_allowed = fixed_text("method not allowed: /metrics answers GET and HEAD\n",
	                            MHD_HTTP_METHOD_GET ", " MHD_HTTP_METHOD_HEAD);
	m->unavailable = fixed_text("no metrics yet: fecd's main loop has not answered\n", NULL);
	if (!m->not_found || !m->not_allowed || !m->unavailable) {
		snprintf(err, errlen, "metrics: out of memory");
		free_metrics(m);
		return -ENOMEM;
	}
	fd = listen_socket(m->listen, &ipv6, err, errlen);
	if (fd < 0) {
		free_metrics(m);
		return fd;
	}
	rc = uv_async_init(fecd_loop(d), &m->wake, on_wake);
	if (rc) {
		snprintf(err, errlen, "metrics: cannot create the loop handle: %s",
		         uv_strerror(rc));
		close(fd);
		free_metrics(m);
		return rc;
	}
	m->wake.data = m;
	m->mhd = MHD_start_daemon(
	    MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | (ipv6 ? MHD_USE_IPv6 : 0), 0, NULL,
	    NULL, on_request, m, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
	    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)METRICS_CONN_MAX, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	    (unsigned)METRICS_PER_IP_MAX, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_IDLE_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_CONN_MEMORY, MHD_OPTION_END);
	if (!m->mhd) {
		/* The socket is left as it is (libmicrohttpd may have closed it already): fecd
		 * exits on this error. */
		snprintf(err, errlen, "metrics.listen %s: libmicrohttpd did not start (see above)",
		         m->listen);
		uv_close((uv_handle_t *)&m->wake, on_wake_closed);
		return -EIO;
	}
	log_notice("metrics: serving http://%s/metrics (no authentication: keep it on loopback or "
	           "behind a firewall)",
	           m->listen);
	*out = m;
	return 0;
}

void metrics_stop(struct metrics *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->stopping = true;
	pthread_cond_broadcast(&m->made);
	pthread_mutex_unlock(&m->lock);
	/* Joins the HTTP thread (a scrape waiting for the loop wakes up above) and closes the
	 * listening socket. */
	MHD_stop_daemon(m->mhd);
	m->mhd = NULL;
	uv_close((uv_handle_t *)&m->wake, on_wake_closed);
}
