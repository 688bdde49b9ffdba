/*
 * fecd-sink's state, shared by the receiver (sink.c) and the report (sink_report.c).
 */
#ifndef FECD_SINK_H
#define FECD_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "opts_common.h"
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
	CLIENT_OPTS_MEMBER; /* the options fecd-feed shares (opts_common.h) */
	const char *latency_log;
	bool pdu, json, allow_loss, allow_reorder, frame_index_count, max_fer_set;
	int timeout_ms, deadline_ms;
	uint64_t expect_bits, expect_frames, until_eos, window;
	int64_t max_msg_bytes;
	uint32_t channel;  /* with -c: the channel whose output endpoint to take */
	uint64_t instance; /* --instance: the channel's (channel.get); 0: any */
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
	uint64_t sender_ends; /* END_OF_STREAMs the sender said (end_cause) */
	uint64_t errors_wrong,
	    errors_status;         /* msg_errors: with bits wrong; bits right, status not */
	uint32_t hdr_frame_bits;   /* frame length from the first frame's header, or 0 */
	uint64_t frame_len_errors; /* frames of another length than the feed's */
	/* frames: the code generation whose lengths the frame table follows from frame table_from
	 * on, and the generation changes whose frames took another length (sink.c) */
	bool table_gen_set;
	uint32_t table_gen;
	uint64_t table_from, len_changes;
	bool stream_begun;      /* a stream message at --bit-start has come */
	uint64_t stale;         /* stream messages of an earlier run, not checked */
	uint64_t out_of_window; /* messages placed beyond the window: reported, not checked */
	uint64_t status[3], status_other, code_changed, restarts;
	uint32_t gens[SINK_MAX_GENS];
	unsigned ngens;
	/* latency: (in_seq, receive time) per message, matched with the stamps at the end */
	uint64_t *lat_seq, *lat_rx;
	size_t nlat, cap_lat;
	struct lat lat;
	uint64_t t_first, t_last;
	/* --code (sink_code.c): what the code gives, and the soft values checked */
	bool have_code;
	struct fec_info code_info;
	/* sym_logp soft output of an nbldpc or ids --code: bits per symbol and their order, so that
	 * each symbol's most probable value is checked against its decoded bits (0: not checked) */
	unsigned sym_bits;
	enum nbldpc_bit_order sym_order;
	uint64_t soft_msgs, soft_values, soft_zero; /* soft_zero: LLRs of exactly 0 */
	uint64_t soft_size_errors;                  /* messages whose count does not fit */
	uint64_t soft_sign_errors, soft_sign_msgs;  /* LLRs against their bits, and messages */
	/* --replay: the period packed eight times, copy c starting at period bit c */
	uint8_t *rp_ref[8];
	uint64_t rp_len;
};

/* Fills o from the command line (sink_opts.c); returns 0, 1 after printing the usage (--help:
 * main exits 0), or -1 after printing what was wrong. */
int sink_parse_args(int argc, char **argv, struct sink_opts *o);
/* --code (sink_code.c): builds the code and takes its frame lengths and soft output kind.
 * Returns 0 (also without --code), or -1 after printing why. */
int sink_code_open(struct sink *s);
/* Checks the soft values of a message (part 3, soft_count float32 little-endian), if it has any,
 * against its decoded bits (part 2). */
struct fecd_out_hdr;
void sink_soft_check(struct sink *s, const struct fecd_out_hdr *h, const uint8_t *bits,
                     const uint8_t *soft);
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
