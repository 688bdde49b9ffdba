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

static void hist_add(struct lat_hist *h, uint64_t ns)
{
	h->n[lat_bucket(ns)]++;
	h->count++;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void stats_latency(struct chan_stats_acc *s, uint64_t ns)
{
	s->lat_life[lat_life_bucket(ns)]++;
	s->lat_life_sum_ns += ns;
	hist_add(&s->cur, ns);
}

void stats_batch_time(struct chan_stats_acc *s, uint64_t ns)
{
	hist_add(&s->batch_cur, ns);
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
	s->batch_prev = s->batch_cur;
	memset(&s->batch_cur, 0, sizeof(s->batch_cur));
}

/* Percentile p of the samples in two histograms (this interval and the last), in ms: the top of
 * the bucket holding it, or the largest sample where that is smaller. */
static double hist_percentile(const struct lat_hist *cur, const struct lat_hist *prev, double p)
{
	uint64_t total = cur->count + prev->count, seen = 0;
	uint64_t want = (uint64_t)(p * (double)total + 0.999999);
	double max = (cur->max_ns > prev->max_ns ? cur->max_ns : prev->max_ns) / 1e6;

	if (want == 0)
		want = 1;
	for (unsigned b = 0; b < LAT_BUCKETS; b++) {
		seen += cur->n[b] + prev->n[b];
		if (seen >= want) {
			double top = lat_bucket_top_ms(b);
			return top < max ? top : max;
		}
	}
	return max;
}

void stats_fill(const struct chan_stats_acc *s, struct chan_stats *out)
{
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
	out->conn_drops = s->conn_drops;
	out->handshake_failures = s->handshake_failures;
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
	out->jobs_retried = s->jobs_retried;
	for (unsigned b = 0; b < FECD_LAT_BUCKETS; b++) {
		out->lat_count += s->lat_life[b];
		out->lat_le[b] = out->lat_count;
	}
	out->lat_sum_s = s->lat_life_sum_ns / 1e9;
	out->in_polarity = "unknown";
	out->in_sampled_syms = s->health_syms;
	out->in_clipped_syms = s->health_clipped;
	out->in_health_warnings = s->health_warnings;
	if (s->health_windows) {
		out->in_clipped_frac = s->health_frac;
		out->in_mean_abs_llr = s->health_mean;
		out->in_health = s->health_verdict ? s->health_verdict : "ok";
		out->in_unsat_checks_frac = s->health_unsat_frac;
		out->in_unsat_checks_negated_frac = s->health_unsat_neg_frac;
		if (s->health_verdict && !strcmp(s->health_verdict, "inverted"))
			out->in_polarity = "inverted";
		else if (s->health_checks)
			out->in_polarity = "normal";
	} else {
		if (s->hw_syms) {
			out->in_clipped_frac = (double)s->hw_clipped / (double)s->hw_syms;
			out->in_mean_abs_llr = s->hw_abs / (double)s->hw_syms;
		}
		out->in_health = "unknown";
	}
	if (s->cur.count + s->prev.count) {
		out->lat_p50_ms = hist_percentile(&s->cur, &s->prev, 0.50);
		out->lat_p90_ms = hist_percentile(&s->cur, &s->prev, 0.90);
		out->lat_p99_ms = hist_percentile(&s->cur, &s->prev, 0.99);
		out->lat_max_ms = hist_percentile(&s->cur, &s->prev, 1.0);
	}
	if (s->batch_cur.count + s->batch_prev.count) {
		out->batch_p50_ms = hist_percentile(&s->batch_cur, &s->batch_prev, 0.50);
		out->batch_p99_ms = hist_percentile(&s->batch_cur, &s->batch_prev, 0.99);
		out->batch_max_ms = hist_percentile(&s->batch_cur, &s->batch_prev, 1.0);
	}
}

bool ratelimit_ok(struct ratelimit *rl, uint64_t now, unsigned *suppressed)
{
	if (rl->last_ns && now - rl->last_ns < (rl->interval_ns ? rl->interval_ns : 1000000000ull)) {
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
