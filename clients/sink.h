/*
 * fecd-sink's state, shared by the receiver (sink.c) and the report (sink_report.c).
 */
#ifndef FECD_SINK_H
#define FECD_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "sink_track.h"

#define SINK_MAX_PARTS 4
#define SINK_MAX_GENS  64
/* How far past what has arrived a message may place itself (--window): a sender's number alone
 * never makes the sink allocate or compute more than this. */
#define SINK_WINDOW_BITS   (1ull << 32) /* streams: information bits */
#define SINK_WINDOW_FRAMES (1ull << 20) /* frames: frame indices */
/* Largest message part received (--max-msg-bytes); libzmq drops the connection beyond it. */
#define SINK_MAX_MSG_BYTES (64ll << 20)

struct sink_opts {
	const char *endpoint, *input, *stamps, *latency_log;
	const char *curve_secret, *curve_server; /* key files; NULL: no CURVE */
	int sock_type;
	bool bind, pdu, json, allow_loss, allow_reorder, frame_index_count, max_fer_set;
	int hwm, timeout_ms, deadline_ms;
	uint64_t seed, seq_start, expect_bits, expect_frames, until_eos, replay, window;
	uint64_t bit_start; /* streams: the first stream bit this sink expects */
	int64_t max_msg_bytes;
	uint32_t split;
	struct frame_sched sched;
	double max_ber, max_fer;
};

struct sink {
	struct sink_opts o;
	void *zctx, *zsock;
	struct info_source src;
	struct frame_table frames;
	uint8_t *ref, *refpk, *pk; /* reference bits unpacked / packed, received bits packed */
	size_t cap_bits;
	/* streams */
	uint64_t base, cur_end;
	bool cur_has_bits, stream_ended;
	struct track bits_track, frame_track;
	/* counts */
	uint64_t msgs, stream_msgs, frame_msgs, bits, bit_errors, msg_errors, malformed, eos_seen;
	uint64_t out_of_window; /* messages placed beyond the window: reported, not checked */
	uint64_t status[3], status_other, code_changed, restarts;
	uint32_t gens[SINK_MAX_GENS];
	unsigned ngens;
	/* latency: (in_seq, receive time) per message, matched with the stamps at the end */
	uint64_t *lat_seq, *lat_rx;
	size_t nlat, cap_lat;
	struct lat lat;
	uint64_t t_first, t_last;
	/* --replay: the period packed eight times, copy c starting at period bit c */
	uint8_t *rp_ref[8];
	uint64_t rp_len;
};

/* Matches the receive times with the feed's stamps file into s->lat. Returns 0 or -1. */
int sink_stamps_match(struct sink *s);
/* --replay (sink_replay.c): bit errors of n received packed bits at stream bit pos, bit i being
 * source bit i mod o.replay. Returns 0 or -1 (out of memory). */
int sink_replay_compare(struct sink *s, uint64_t pos, const uint8_t *rx, size_t n,
                        uint64_t *errors);
void sink_replay_free(struct sink *s);
/* Builds the copies before the first message, so that building them does not hold up receiving
 * (and the latency measured); messages up to SINK_REPLAY_PREPARED_BITS long need no more. Returns
 * 0 or -1 (out of memory). */
#define SINK_REPLAY_PREPARED_BITS ((1u << 21) + 8)
int sink_replay_prepare(struct sink *s);
/* Prints the report (text or JSON); returns true when every expectation held. */
bool sink_report(struct sink *s);

#endif
