/*
 * fecd-feed's command line (feed_opts.c): what to send, how, and the test hooks. feed.c runs it.
 */
#ifndef FECD_FEED_H
#define FECD_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"

#define FEED_MAX_SWITCHES     16
#define FEED_MAX_SKIPS        256
#define FEED_DEFAULT_MSG_SYMS 4096

struct feed_switch {
	uint64_t seq;
	const char *code;
};

struct feed_opts {
	const char *endpoint, *code, *input, *stamps;
	int sock_type; /* ZMQ_PUSH or ZMQ_PUB */
	bool bind, noiseless, gnuradio, gr_tags, no_eos, inject_bad, polarity_one;
	int hwm, send_timeout_ms, start_delay_ms;
	uint64_t seed, bits, frames, seq_start, replay;
	uint32_t channel, msg_syms, split;
	struct frame_sched sched;
	bool bits_set;
	double ebn0, rate;
	float scale; /* < 0: automatic */
	int format;
	struct feed_switch switches[FEED_MAX_SWITCHES];
	unsigned nswitches;
	uint64_t skips[FEED_MAX_SKIPS];
	unsigned nskips;
};

/* --replay (feed_replay.c): two periods of wire symbols, the first from the encoder's zero state. */
struct feed_replay {
	uint8_t *wire;
	size_t period_syms;
	int format;
};

struct fec_spec;
struct fec_prng;
/* Encodes, modulates and quantizes two periods of period_bits seeded bits. Returns 0 or a
 * negative FEC_E* code. */
int feed_replay_build(struct feed_replay *r, const struct fec_spec *spec, uint64_t seed,
                      uint64_t period_bits, double sigma, float scale, int format,
                      bool polarity_one, struct fec_prng *noise);
/* Copies the wire bytes of symbols [pos, pos + n) of the endless replayed stream to dst (pos and
 * n even for s4). */
void feed_replay_read(const struct feed_replay *r, uint64_t pos, size_t n, uint8_t *dst);
void feed_replay_free(struct feed_replay *r);

/* Fills o from the command line; returns 0, or -1 after printing what was wrong. --help prints
 * the usage and exits 0. */
int feed_parse_args(int argc, char **argv, struct feed_opts *o);

#endif
