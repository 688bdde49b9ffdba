/*
 * Channel statistics: the latency histogram's bucket arithmetic, the throughput window and the
 * snapshot channel.get / stats.get report.
 */
#include <stdio.h>
#include <string.h>

#include "fecd.h"
#include "stats.h"

static unsigned lat_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned msb, sub;

	if (us == 0)
		return 0;
	msb = 63u - (unsigned)__builtin_clzll(us);
	if (msb >= LAT_OCTAVES)
		return LAT_BUCKETS - 1;
	if (msb >= 3)
		sub = (unsigned)(us >> (msb - 3)) & (LAT_SUB - 1);
	else
		sub = (unsigned)(us << (3 - msb)) & (LAT_SUB - 1);
	return 1 + msb * LAT_SUB + sub;
}

/* Upper edge of a bucket, in milliseconds. */
static double lat_bucket_top_ms(unsigned b)
{
	if (b == 0)
		return 0.001;
	unsigned msb = (b - 1) / LAT_SUB, sub = (b - 1) % LAT_SUB;
	double lo = (double)(1ull << msb);
	return lo * (1.0 + (sub + 1) / (double)LAT_SUB) / 1000.0;
}

void stats_init(struct chan_stats_acc *s, uint64_t now)
{
	memset(s, 0, sizeof(*s));
	s->win_ns = now;
}

static const uint64_t lat_le_ns[FECD_LAT_BUCKETS - 1] = {
#define X(us) (us) * 1000ull,
    FECD_LAT_LE_US_MAP(X)
#undef X
};

/* The first life bucket whose bound is at least ns (Prometheus buckets are "<= le"). */
static unsigned lat_life_bucket(uint64_t ns)
{
	unsigned b = 0;

	while (b < FECD_LAT_BUCKETS - 1 && ns > lat_le_ns[b])
		b++;
	return b;
}

void stats_latency(struct chan_stats_acc *s, uint64_t ns)
{
	s->lat_life[lat_life_bucket(ns)]++;
	s->lat_life_sum_ns += ns;
	s->cur.n[lat_bucket(ns)]++;
	s->cur.count++;
	if (ns > s->cur.max_ns)
		s->cur.max_ns = ns;
}

void stats_tick(struct chan_stats_acc *s, uint64_t now)
{
	double dt = (now - s->win_ns) / 1e9;

	if (dt > 0) {
		s->in_rate = (s->symbols_in - s->win_syms) / dt;
		s->out_rate = (s->bits_out - s->win_bits) / dt;
	}
	s->win_ns = now;
	s->win_syms = s->symbols_in;
	s->win_bits = s->bits_out;
	s->prev = s->cur;
	memset(&s->cur, 0, sizeof(s->cur));
}

static double lat_percentile(const struct chan_stats_acc *s, double p, uint64_t total,
                             uint64_t max_ns)
{
	uint64_t want = (uint64_t)(p * (double)total + 0.999999), seen = 0;

	if (want == 0)
		want = 1;
	for (unsigned b = 0; b < LAT_BUCKETS; b++) {
		seen += s->cur.n[b] + s->prev.n[b];
		if (seen >= want) {
			double top = lat_bucket_top_ms(b), max = max_ns / 1e6;
			return top < max ? top : max;
		}
	}
	return max_ns / 1e6;
}

void stats_fill(const struct chan_stats_acc *s, struct chan_stats *out)
{
	uint64_t total = s->cur.count + s->prev.count;
	uint64_t max_ns = s->cur.max_ns > s->prev.max_ns ? s->cur.max_ns : s->prev.max_ns;

	memset(out, 0, sizeof(*out));
	out->msgs_in = s->msgs_in;
	out->symbols_in = s->symbols_in;
	out->bytes_in = s->bytes_in;
	out->bad_msgs = s->bad_msgs;
	out->gaps = s->gaps;
	out->gap_msgs = s->gap_msgs;
	out->frames_out = s->frames_out;
	out->bits_out = s->bits_out;
	out->msgs_out = s->msgs_out;
	out->failures = s->failures;
	out->frame_errors = s->frame_errors;
	out->asm_frames = s->asm_frames;
	out->asm_inverted = s->asm_inverted;
	out->asm_lost_syms = s->asm_lost_syms;
	out->asm_misses = s->asm_misses;
	/* Outputs own the erasures that bridge lost messages too: count them in with the input. */
	uint64_t done = s->syms_out + s->syms_dropped, taken = s->symbols_in + s->syms_filled;
	out->queue_syms = taken > done ? taken - done : 0;
	out->in_syms_per_s = s->in_rate;
	out->out_bits_per_s = s->out_rate;
	memcpy(out->bad_by_reason, s->bad_by_reason, sizeof(out->bad_by_reason));
	memcpy(out->frame_errors_by_reason, s->frame_errors_by_reason,
	       sizeof(out->frame_errors_by_reason));
	memcpy(out->msgs_by_status, s->msgs_by_status, sizeof(out->msgs_by_status));
	memcpy(out->frames_by_status, s->frames_by_status, sizeof(out->frames_by_status));
	out->batches_cpu = s->batches_cpu;
	out->batches_gpu = s->batches_gpu;
	for (unsigned b = 0; b < FECD_LAT_BUCKETS; b++) {
		out->lat_count += s->lat_life[b];
		out->lat_le[b] = out->lat_count;
	}
	out->lat_sum_s = s->lat_life_sum_ns / 1e9;
	if (total) {
		out->lat_p50_ms = lat_percentile(s, 0.50, total, max_ns);
		out->lat_p90_ms = lat_percentile(s, 0.90, total, max_ns);
		out->lat_p99_ms = lat_percentile(s, 0.99, total, max_ns);
		out->lat_max_ms = max_ns / 1e6;
	}
}

bool ratelimit_ok(struct ratelimit *rl, uint64_t now, unsigned *suppressed)
{
	if (rl->last_ns && now - rl->last_ns < 1000000000ull) {
		rl->suppressed++;
		return false;
	}
	*suppressed = rl->suppressed;
	rl->suppressed = 0;
	rl->last_ns = now;
	return true;
}

const char *ratelimit_note(unsigned suppressed, char *buf, size_t len)
{
	if (!suppressed)
		return "";
	snprintf(buf, len, " (%u more like it not logged)", suppressed);
	return buf;
}
