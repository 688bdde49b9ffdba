/*
 * fecdctl --watch: each channel's counters from consecutive stats.get results, as rates per
 * second over the time between them (fecdctl_watch.c).
 */
#ifndef FECD_FECDCTL_WATCH_H
#define FECD_FECDCTL_WATCH_H

#include <stdint.h>
#include <stdio.h>

struct cJSON;

/* The last result's counters, per channel id, and when it came. */
struct watch_state {
	struct watch_chan *chans;
	unsigned n, cap;
	uint64_t last_ns;
	unsigned calls;
};

/* Prints one line per channel of result (stats.get's: one channel object, or {"channels": [...]}):
 * its name and each counter's rate per second since the previous result, or, on the first call,
 * its totals. */
void watch_print(struct watch_state *st, const struct cJSON *result, FILE *out);
void watch_free(struct watch_state *st);

#endif
