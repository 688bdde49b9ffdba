/*
 * fecd-sink's bookkeeping: which units (information bits of a stream, or frame indices) have
 * arrived, so that losses, duplicates and reordering are told apart, and the latency samples.
 *
 * Units arrive as ranges [a, b). `next` is one past the highest unit seen; a range starting past
 * it opens a gap (lost until something fills it); a range below it either fills part of an open
 * gap (counted out-of-order) or repeats delivered units (counted duplicate).
 */
#ifndef FECD_SINK_TRACK_H
#define FECD_SINK_TRACK_H

#include <stddef.h>
#include <stdint.h>

#define TRACK_MAX_GAPS 4096

struct track_gap {
	uint64_t a, b;
};

struct track {
	uint64_t next;         /* one past the highest unit seen */
	uint64_t delivered;    /* distinct units received */
	uint64_t duplicates;   /* units received again */
	uint64_t out_of_order; /* ranges that arrived after a later one */
	uint64_t gaps_opened;
	uint64_t
	    gap_overflow; /* units of gaps that did not fit the table (counted lost for good) */
	struct track_gap gaps[TRACK_MAX_GAPS];
	unsigned ngaps;
};

void track_init(struct track *t);
void track_add(struct track *t, uint64_t a, uint64_t b);
/* Units missing below `upto` (open gaps, plus [next, upto) when upto is larger). */
uint64_t track_lost(const struct track *t, uint64_t upto);

/* Latency samples in nanoseconds; percentile p in [0, 100] of the samples (sorted on demand). */
struct lat {
	int64_t *v;
	size_t n, cap;
	int sorted;
};
int lat_add(struct lat *l, int64_t ns);
double lat_percentile_ms(struct lat *l, double p);
void lat_free(struct lat *l);

#endif
