/*
 * fecd-feed's command line (feed_opts.c): what to send, how, and the test hooks; and the sender's
 * state, which feed.c runs and feed_asm.c (--asm) and feed_replay.c (--replay) share.
 */
#ifndef FECD_FEED_H
#define FECD_FEED_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "channel_model.h"
#include "common.h"
#include "fec.h"
#include "opts_common.h"

#define FEED_MAX_SWITCHES     16
#define FEED_MAX_SKIPS        256
#define FEED_DEFAULT_MSG_SYMS 4096

struct feed_switch {
	uint64_t seq;
	const char *code;
};

struct feed_opts {
	CLIENT_OPTS_MEMBER; /* the options fecd-sink shares (opts_common.h) */
	bool noiseless, gnuradio, gr_tags, no_eos, inject_bad, polarity_one, oversize_set;
	uint64_t oversize_after; /* --inject-oversize: after this sequence number */
	int send_timeout_ms, start_delay_ms;
	uint64_t bits, frames;
	uint32_t channel, msg_syms;
	bool bits_set;
	/* --channel-model NAME[,PARAMS]: what the link does to the code bits (channel_model.h) */
	const char *channel_model;
	/* --asm: frames behind sync markers in one raw stream (the code's marker) */
	bool asm_stream;
	uint64_t invert_from, invert_to; /* --invert: frames [from, to) sent with negated symbols */
	uint32_t junk, junk_every;       /* --junk N[:EVERY]: before frames i % EVERY == 0 */
	double ebn0, rate;
	float scale; /* < 0: automatic */
	int format;
	bool format_set;
	const char *binary_image; /* --binary-image FILE: write it and exit */
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

/* The code in use, and the channel model on the link at its rate: rebuilt at every --switch. */
struct feed_code {
	struct fec_spec spec;
	struct fec_encoder *enc;
	struct fec_info info;
	struct fec_channel chan;
	double sigma; /* the link's BPSK noise (chan.sigma), for --asm's markers and junk */
	float scale;
	/* The wire format its messages carry: --format for codes of bit input; f32v, wire_q values
	 * per symbol of sym_bits code bits, for codes of q-ary input (nbldpc in=f32v). */
	int format;
	uint32_t wire_q, sym_bits;
};

struct feed {
	struct feed_opts o;
	struct feed_code code;
	void *zctx, *zsock;
	void *zmon;     /* the socket's monitor: whether a peer ever completed a handshake */
	bool peer_seen; /* one did */
	struct info_source src;
	struct frame_table frames;
	struct fec_prng noise;
	struct feed_replay replay; /* --replay: the symbols, simulated once */
	uint64_t replay_pos;       /* --replay: next symbol of the replayed stream */
	FILE *stamps;
	/* buffers sized once for the largest message: cap_bits information bits, cap_syms code
	 * bits, cap_rx received values (the channel model's most for cap_syms) */
	uint8_t *bits, *cbits, *wire, *grmsg;
	float *llr;
	size_t cap_bits, cap_syms, cap_rx;
	/* counters */
	uint64_t seq, msgs, syms, info_bits, frames_sent, items_sent, bad_sent, skipped, junk_sent;
	uint64_t oversize_sent;
	uint64_t t0;
};

/* Set by SIGTERM / SIGINT: stop sending, report what was sent. */
extern volatile sig_atomic_t feed_stop;

/* feed.c: encodes nbits information bits (already in f->bits) and passes the code bits through
 * the channel model into f->llr; returns the count of received values, or 0 after printing why. */
size_t feed_modulate_llr(struct feed *f, size_t nbits);
/* feed.c: sends n symbols of wire bytes as one message; 0, or -1 after printing why. */
int feed_send_wire(struct feed *f, const uint8_t *wire, size_t n, uint16_t flags,
                   uint32_t frame_len);
/* feed_asm.c: --asm; 0, or -1 after printing why. */
int feed_run_asm(struct feed *f);

/* feed_replay.c: encodes two periods of period_bits seeded bits, passes them through the channel
 * (a model that keeps the length) and quantizes them. Returns 0 or a negative FEC_E* code. */
int feed_replay_build(struct feed_replay *r, const struct fec_spec *spec, uint64_t seed,
                      uint64_t period_bits, const struct fec_channel *chan, float scale, int format,
                      bool polarity_one, struct fec_prng *noise);
/* Copies the wire bytes of symbols [pos, pos + n) of the endless replayed stream to dst (pos and
 * n even for s4). */
void feed_replay_read(const struct feed_replay *r, uint64_t pos, size_t n, uint8_t *dst);
void feed_replay_free(struct feed_replay *r);

/* Fills o from the command line; returns 0, 1 after printing the usage (--help: main exits 0),
 * or -1 after printing what was wrong. */
int feed_parse_args(int argc, char **argv, struct feed_opts *o);

#endif
