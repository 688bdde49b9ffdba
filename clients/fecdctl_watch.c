/*
 * fecdctl --watch (fecdctl_watch.h): stats.get's counters, which only grow, turned into rates per
 * second between two calls. Gauges (queue_syms, batches_inflight, latency percentiles) are
 * printed as they are; fecd's own throughput figures are its, over its stats interval.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "fecdctl_watch.h"

/* The counters shown, in this order (stats.get's names). */
static const char *const counters[] = {"msgs_in",  "symbols_in", "bad_msgs",    "msgs_out",
                                       "bits_out", "frames_out", "failures",    "frame_errors",
                                       "gap_msgs", "conn_drops", "jobs_retried"};
#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

struct watch_chan {
	double id;
	double last[NCOUNTERS];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The channel's slot, made on first sight; NULL when out of memory. */
static struct watch_chan *chan_slot(struct watch_state *st, double id, int *fresh)
{
	for (unsigned i = 0; i < st->n; i++)
		if (st->chans[i].id == id) {
			*fresh = 0;
			return &st->chans[i];
		}
	if (st->n == st->cap) {
		unsigned cap = st->cap ? 2 * st->cap : 8;
		struct watch_chan *c = realloc(st->chans, cap * sizeof(*c));
		if (!c)
			return NULL;
		st->chans = c;
		st->cap = cap;
	}
	*fresh = 1;
	memset(&st->chans[st->n], 0, sizeof(st->chans[0]));
	st->chans[st->n].id = id;
	return &st->chans[st->n++];
}

static void print_chan(struct watch_state *st, const cJSON *ch, double dt, const char *when,
                       FILE *out)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(ch, "id");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(ch, "name");
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(ch, "queue_syms");
	struct watch_chan *c;
	int fresh;

	if (!cJSON_IsNumber(id) || !(c = chan_slot(st, id->valuedouble, &fresh)))
		return;
	fprintf(out, "%s %s:", when, cJSON_IsString(name) ? name->valuestring : "?");
	for (size_t i = 0; i < NCOUNTERS; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(ch, counters[i]);

		if (!cJSON_IsNumber(v))
			continue;
		if (fresh || dt <= 0)
			fprintf(out, " %s=%.0f", counters[i], v->valuedouble);
		else
			fprintf(out, " %s/s=%.1f", counters[i], (v->valuedouble - c->last[i]) / dt);
		c->last[i] = v->valuedouble;
	}
	if (cJSON_IsNumber(q))
		fprintf(out, " queue_syms=%.0f", q->valuedouble);
	fputc('\n', out);
}

void watch_print(struct watch_state *st, const cJSON *result, FILE *out)
{
	const cJSON *chans = cJSON_GetObjectItemCaseSensitive(result, "channels"), *ch;
	uint64_t now = mono_ns();
	double dt = st->calls ? (double)(now - st->last_ns) * 1e-9 : 0.0;
	char when[16];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (cJSON_IsArray(chans)) {
		cJSON_ArrayForEach(ch, chans)
		{
			print_chan(st, ch, dt, when, out);
		}
	} else {
		print_chan(st, result, dt, when, out);
	}
	st->last_ns = now;
	st->calls++;
}

void watch_free(struct watch_state *st)
{
	free(st->chans);
	memset(st, 0, sizeof(*st));
}
