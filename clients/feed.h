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
	uint64_t seed, bits, frames, seq_start;
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

/* Fills o from the command line; returns 0, or -1 after printing what was wrong. --help prints
 * the usage and exits 0. */
int feed_parse_args(int argc, char **argv, struct feed_opts *o);

#endif
