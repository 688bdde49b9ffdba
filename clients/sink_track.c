/*
 * Loss, duplicate and order bookkeeping, and latency percentiles, for fecd-sink (sink_track.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sink_track.h"

void track_init(struct track *t)
{
	memset(t, 0, sizeof(*t));
}

static uint64_t overlap(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t lo = a > c ? a : c, hi = b < d ? b : d;

	return hi > lo ? hi - lo : 0;
}

/* Removes [a, b) from the open gaps; returns how many units it filled. */
static uint64_t fill_gaps(struct track *t, uint64_t a, uint64_t b)
{
	uint64_t filled = 0;

	for (unsigned i = 0; i < t->ngaps;) {
		struct track_gap *g = &t->gaps[i];
		uint64_t o = overlap(a, b, g->a, g->b);

		if (!o) {
			i++;
			continue;
		}
		filled += o;
		if (a <= g->a && b >= g->b) { /* gap filled entirely */
			t->gaps[i] = t->gaps[--t->ngaps];
			continue;
		}
		if (a <= g->a) {
			g->a = b;
		} else if (b >= g->b) {
			g->b = a;
		} else if (t->ngaps < TRACK_MAX_GAPS) { /* split in two */
			t->gaps[t->ngaps++] = (struct track_gap){b, g->b};
			g->b = a;
		} else {
			t->gap_overflow += g->b - b;
			g->b = a;
		}
		i++;
	}
	return filled;
}

void track_add(struct track *t, uint64_t a, uint64_t b)
{
	if (b <= a)
		return;
	if (a >= t->next) {
		if (a > t->next) {
			t->gaps_opened++;
			if (t->ngaps < TRACK_MAX_GAPS)
				t->gaps[t->ngaps++] = (struct track_gap){t->next, a};
			else
				t->gap_overflow += a - t->next;
		}
		t->delivered += b - a;
		t->next = b;
		return;
	}
	/* Starts below next: part may extend past it. */
	uint64_t below_end = b < t->next ? b : t->next;
	uint64_t filled = fill_gaps(t, a, below_end);

	if (filled)
		t->out_of_order++;
	t->delivered += filled;
	t->duplicates += (below_end - a) - filled;
	if (b > t->next) {
		t->delivered += b - t->next;
		t->next = b;
	}
}

uint64_t track_lost(const struct track *t, uint64_t upto)
{
	uint64_t lost = t->gap_overflow;

	for (unsigned i = 0; i < t->ngaps; i++)
		lost += t->gaps[i].b - t->gaps[i].a;
	if (upto > t->next)
		lost += upto - t->next;
	return lost;
}

int lat_add(struct lat *l, int64_t ns)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		int64_t *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = ns;
	l->sorted = 0;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

double lat_percentile_ms(struct lat *l, double p)
{
	if (!l->n)
		return 0.0;
	if (!l->sorted) {
		qsort(l->v, l->n, sizeof(*l->v), cmp_i64);
		l->sorted = 1;
	}
	/* Nearest rank: the smallest sample with at least p% of samples at or below it. */
	size_t rank = (size_t)((p / 100.0) * (double)l->n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > l->n)
		rank = l->n;
	return (double)l->v[rank - 1] * 1e-6;
}

void lat_free(struct lat *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
