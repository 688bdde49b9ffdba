/*
 * Per-channel statistics on the loop thread: counters, throughput over the last stats interval,
 * and accept->publish latency in a fixed histogram of logarithmic buckets (eight per octave of
 * microseconds), so recording a sample never allocates. Percentiles cover the current interval and
 * the one before it, so they follow changes without going empty between samples. Beside them, a
 * histogram over the channel's whole life with a few fixed bounds (FECD_LAT_LE_US_MAP), which
 * Prometheus needs: its buckets only ever grow.
 */
#ifndef FECD_STATS_H
#define FECD_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fecd.h"

#define LAT_SUB     8  /* buckets per octave */
#define LAT_OCTAVES 36 /* 1 us .. 2^36 us */
#define LAT_BUCKETS (1 + LAT_OCTAVES * LAT_SUB)

struct lat_hist {
	uint32_t n[LAT_BUCKETS];
	uint64_t count;
	uint64_t max_ns;
};

struct chan_stats_acc {
	uint64_t msgs_in, symbols_in, bytes_in;
	uint64_t bad_msgs, gaps, gap_msgs;
	uint64_t frames_out, bits_out, msgs_out;
	uint64_t failures, frame_errors;
	uint64_t syms_out;       /* accepted symbols whose outputs were published */
	uint64_t syms_dropped;   /* accepted symbols that will never be published */
	uint64_t syms_abandoned; /* of those, decoded but not sent: closing ran out of time */
	uint64_t syms_filled;    /* erasures bridging lost SUB stream messages (not input) */
	/* sync-marker framing */
	uint64_t asm_frames;    /* markers found (frames started) */
	uint64_t asm_inverted;  /* of those, with inverted polarity */
	uint64_t asm_lost_syms; /* symbols given up while searching for a marker */
	uint64_t asm_misses;    /* markers not found where the frame before them ended */
	/* breakdowns (fecd.h's tables) */
	uint64_t bad_by_reason[FECD_BAD_COUNT];
	uint64_t frame_errors_by_reason[FECD_FRAME_ERR_COUNT];
	uint64_t msgs_by_status[FECD_STATUS_COUNT], frames_by_status[FECD_STATUS_COUNT];
	uint64_t batches_cpu, batches_gpu;
	uint64_t jobs_retried; /* a job decoded three times counts 2 */
	/* latency over the channel's life (Prometheus): samples per bucket, not cumulative */
	uint64_t lat_life[FECD_LAT_BUCKETS];
	uint64_t lat_life_sum_ns;
	/* connections (sockmon.c) */
	uint64_t conn_drops;         /* dropped by libzmq mid-message: oversized part, bad framing */
	uint64_t handshake_failures; /* refused: CURVE keys, a wrong server key, mechanisms */
	/* input health (health.c): sampled symbols over the channel's life, the window being
	 * filled (hw_), and the last full window's figures and verdict (NULL: looks fine) */
	uint64_t health_syms, health_clipped, health_windows, health_warnings;
	double health_abs;
	uint64_t hw_syms, hw_clipped, hw_checks, hw_unsat, hw_unsat_negated;
	double hw_abs;
	double health_frac, health_mean;
	uint64_t health_checks; /* the last window's decided checks (0: no polarity hint) */
	double health_unsat_frac, health_unsat_neg_frac;
	const char *health_verdict;
	/* throughput window */
	uint64_t win_ns, win_syms, win_bits;
	double in_rate, out_rate;
	struct lat_hist cur, prev;        /* accept -> publish, this interval and the last */
	struct lat_hist batch_cur, batch_prev; /* batches' time on the backend, the same */
};

/* One log line per second (or per interval_ns when set) at most for a kind of problem; the next
 * says how many were held back. */
struct ratelimit {
	uint64_t last_ns;
	unsigned suppressed;
	uint64_t interval_ns;
};

void stats_init(struct chan_stats_acc *s, uint64_t now);
void stats_latency(struct chan_stats_acc *s, uint64_t ns);
/* A batch's time on the backend: submitted to decoded (queueing, copies and decoding). */
void stats_batch_time(struct chan_stats_acc *s, uint64_t ns);
/* Closes the throughput window and rotates the latency histograms. */
void stats_tick(struct chan_stats_acc *s, uint64_t now);
void stats_fill(const struct chan_stats_acc *s, struct chan_stats *out);

/* True when a line may be logged now; *suppressed gets how many were skipped since the last. */
bool ratelimit_ok(struct ratelimit *rl, uint64_t now, unsigned *suppressed);
/* " (N more not logged)" for a line that follows suppressed ones, "" otherwise. */
const char *ratelimit_note(unsigned suppressed, char *buf, size_t len);

#endif
