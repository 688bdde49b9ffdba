/*
 * Prometheus metrics over HTTP (metrics.listen): libmicrohttpd serves GET /metrics from its own
 * thread in the text exposition format 0.0.4. The numbers come from a snapshot the main loop
 * makes when a scrape asks for one (metrics.c); metrics_text.c writes a snapshot as text.
 */
#ifndef FECD_METRICS_H
#define FECD_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "fecd.h"
#include "rpc.h"

struct metrics;

/* Starts serving on cfg->metrics_listen; *out stays NULL when it is empty (metrics off). Call
 * on the main loop thread; err says what failed (the address in use, ...). */
int metrics_start(struct fecd *d, const struct fecd_config *cfg, struct metrics **out, char *err,
                  size_t errlen);
/* Stops the HTTP thread and closes the loop handle; m is freed once the loop has closed it. */
void metrics_stop(struct metrics *m);

struct metrics_channel {
	uint32_t id;
	char name[FECD_NAME_MAX];
	struct chan_stats st;
};

/* Everything one scrape shows, gathered on the main loop. */
struct metrics_snapshot {
	uint64_t taken_ns;  /* uv_hrtime() */
	uint64_t gather_ns; /* how long the main loop took to make it */
	double uptime_s;
	char backend_configured[16];
	struct backend_counters be;
	struct rpc_counters rpc;
	unsigned nchannels;
	struct metrics_channel ch[]; /* nchannels */
};

/* The snapshot as Prometheus text (malloc'ed, *len bytes, not NUL-terminated); age_s: how old
 * the snapshot is. NULL when out of memory. */
char *metrics_render(const struct metrics_snapshot *s, double age_s, size_t *len);

#endif
