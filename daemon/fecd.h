/*
 * The service's internal API: configuration structures, the channel operations that control and
 * configuration reloads call, and statistics. The data path (ingest -> batch -> backend -> publish)
 * lives behind these functions; control sits beside it and only calls them from the main loop
 * thread, and they run each channel's part on the channel's own loop thread (loops.h).
 */
#ifndef FECD_H
#define FECD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "fec.h"

#define FECD_NAME_MAX 64
#define FECD_ENDPOINT_MAX 256
#define FECD_PATH_MAX 108 /* sun_path */
#define FECD_MAX_CHANNELS 256
#define FECD_CODES_DIR_MAX 256
#define FECD_KEY_PATH_MAX 256

enum sock_kind { SOCK_PULL = 1, SOCK_SUB, SOCK_PUSH, SOCK_PUB };

/* ZMQ CURVE for one socket (curve.h): key files only, never keys. */
struct curve_config {
	char secret_key_file[FECD_KEY_PATH_MAX]; /* this end's secret key; empty: no CURVE */
	char server_key_file[FECD_KEY_PATH_MAX]; /* connecting: the server's public key */
	char clients_file[FECD_KEY_PATH_MAX];    /* binding: the client public keys allowed in */
};

struct endpoint_config {
	char endpoint[FECD_ENDPOINT_MAX]; /* ZMQ endpoint, e.g. tcp://127.0.0.1:5550 */
	enum sock_kind kind;              /* input: PULL or SUB; output: PUSH or PUB */
	bool bind;                        /* bind (true) or connect (false) */
	uint32_t hwm;                     /* ZMQ high-water mark, messages */
	struct curve_config curve;
};

enum in_proto { IN_NATIVE = 1, IN_GNURADIO };   /* fecd headers, or raw gr-zeromq items */
enum out_proto { OUT_NATIVE = 1, OUT_PDU };     /* fecd headers, or GNU Radio PMT PDUs */
enum gr_tags_mode { GR_TAGS_AUTO = 1, GR_TAGS_ON, GR_TAGS_OFF };

struct chan_config {
	uint32_t id;                     /* the wire's channel number; unique */
	char name[FECD_NAME_MAX];        /* unique, [A-Za-z0-9_.-] */
	struct fec_spec spec;            /* the code */
	/* input */
	struct endpoint_config in;
	enum in_proto in_proto;
	enum fecd_format gr_format;      /* gnuradio input: item format (f32, s8, u8) */
	enum gr_tags_mode gr_tags;       /* gnuradio input: pass_tags header expected? */
	bool gr_polarity_one;            /* gnuradio input: positive LLR / low u8 favours 1 */
	float llr_scale;                 /* f32 LLR -> int8: round(llr * scale), clamped */
	uint32_t raw_frame_syms;         /* gnuradio input into a frame code: symbols per frame */
	uint32_t idle_flush_ms;          /* streams: decode the held tail after this long idle */
	/* output */
	struct endpoint_config out;
	enum out_proto out_proto;
	bool pdu_unpacked;               /* PDU vector: one bit per byte instead of packed */
	bool soft_out;                   /* publish soft values where the family has them */
	/* batching */
	uint32_t batch_jobs;             /* blocks or frames per batch; 0 = the backend's choice */
	uint32_t batch_deadline_ms;      /* flush a partial batch after this long (latency bound) */
	uint32_t max_inflight;           /* batches in flight per channel; 0 = the backend's choice */
};

struct fecd_config {
	char control_socket[FECD_PATH_MAX]; /* Unix socket path for JSON-RPC */
	char control_tcp[64];               /* "127.0.0.1:PORT" or empty: no TCP control */
	char metrics_listen[64];            /* metrics over HTTP: "HOST:PORT"; empty: off */
	uint32_t control_max_line;          /* bytes per JSON-RPC request line */
	uint32_t control_max_depth;         /* JSON nesting limit */
	uint32_t control_idle_timeout_ms;   /* close connections idle this long; 0: never */
	char control_token_file[FECD_PATH_MAX]; /* TCP control's token; empty: beside the socket */
	uint32_t control_build_timeout_ms;  /* longest one channel's code may take to build */
	char backend[16];                   /* "auto", "cuda" or "cpu" */
	uint32_t workers;                   /* CPU backend threads; 0 = one per core */
	uint32_t gpu_device;                /* CUDA device index */
	uint32_t gpu_lanes;                 /* CUDA streams per channel; 0 = the device's default */
	uint32_t io_threads;                /* ZMQ I/O threads; 0 = chosen from the cores */
	uint32_t loop_threads;              /* data-path loops; 0 = chosen, 1 = the main loop */
	uint32_t linger_ms;                 /* how long output may take to leave on shutdown */
	uint32_t stats_interval_ms;         /* throughput window; also STATUS= updates */
	char log_level[16];
	char codes_dir[FECD_CODES_DIR_MAX]; /* code files; empty: the codec's default */
	enum fec_path_policy codes_paths;   /* which code paths are read: the folder's, or any */
	uint32_t nchannels;
	struct chan_config channels[FECD_MAX_CHANNELS];
};

/* Why input messages were refused whole (ingest.c): one counter each; their sum is bad_msgs. */
#define FECD_BAD_MSG_MAP(X)                                                                        \
	X(PARTS, "parts", "wrong number of message parts")                                         \
	X(HEADER, "header",                                                                        \
	  "malformed header: truncated, bad magic, version, type or header length, unknown flag "  \
	  "bits; a malformed GNU Radio tag header")                                                \
	X(FORMAT, "format",                                                                        \
	  "unknown symbol format, or one the code cannot take (bit LLRs or q-ary symbols)")        \
	X(LENGTH, "length",                                                                        \
	  "payload length does not match the symbol count, or larger than fecd accepts; GNU "      \
	  "Radio items that are not whole")                                                        \
	X(CHANNEL, "channel", "the header names another channel")                                  \
	X(FRAMING, "framing", "frame flags on a channel that finds its frames after sync markers")

/* How many rows a three-column table has. */
#define FECD_MAP_ROW3(a, b, c) +1

enum fecd_bad_msg {
#define X(name, label, help) FECD_BAD_##name,
	FECD_BAD_MSG_MAP(X)
#undef X
};
enum { FECD_BAD_COUNT = 0 FECD_BAD_MSG_MAP(FECD_MAP_ROW3) };

/* Why frames were dropped at assembly (consume.c, consume_asm.c, channel.c): their sum is
 * frame_errors. */
#define FECD_FRAME_ERROR_MAP(X)                                                                    \
	X(FRAME_LEN, "frame_len", "frame_len out of range, or not the code's frame length")        \
	X(OVERRUN, "overrun", "more symbols arrived than the frame's frame_len")                   \
	X(SHORT, "short", "FRAME_END before the frame's frame_len symbols")                        \
	X(UNSTARTED, "unstarted", "a message continues a frame that never started")                \
	X(UNFINISHED, "unfinished", "a new frame started before the last one's FRAME_END")         \
	X(GAP, "gap", "input messages were lost in the middle of the frame")                       \
	X(TRUNCATED, "truncated", "the stream ended or the channel closed in the middle of a frame")

enum fecd_frame_error {
#define X(name, label, help) FECD_FRAME_ERR_##name,
	FECD_FRAME_ERROR_MAP(X)
#undef X
};
enum { FECD_FRAME_ERR_COUNT = 0 FECD_FRAME_ERROR_MAP(FECD_MAP_ROW3) };

/* FECD_STATUS_* values run 0, 1, 2, ...: this many. */
enum { FECD_STATUS_COUNT = 0 FECD_STATUS_MAP(FECD_MAP_ROW3) };

/* Upper bounds of the latency histogram's buckets in microseconds (Prometheus's "le", shown in
 * seconds): 1 ms to 10 s in 1-2-5 steps around batch.deadline_ms's default of 20 ms. A last
 * bucket, +Inf, follows. */
#define FECD_LAT_LE_US_MAP(X)                                                                      \
	X(1000)                                                                                    \
	X(2000)                                                                                    \
	X(5000)                                                                                    \
	X(10000)                                                                                   \
	X(20000)                                                                                   \
	X(50000)                                                                                   \
	X(100000)                                                                                  \
	X(200000)                                                                                  \
	X(500000)                                                                                  \
	X(1000000)                                                                                 \
	X(2000000)                                                                                 \
	X(5000000)                                                                                 \
	X(10000000)
#define FECD_LAT_LE_COUNT_ONE(us) +1
enum { FECD_LAT_BUCKETS = 1 FECD_LAT_LE_US_MAP(FECD_LAT_LE_COUNT_ONE) };
#undef FECD_LAT_LE_COUNT_ONE

/* Per-channel statistics snapshot. */
struct chan_stats {
	uint64_t msgs_in, symbols_in, bytes_in;
	uint64_t bad_msgs;        /* rejected input messages (parse/validation errors) */
	uint64_t gaps, gap_msgs;  /* SUB: sequence gaps seen and messages missing in them */
	uint64_t frames_out, bits_out, msgs_out;
	uint64_t failures;        /* frames with status not_converged or erased */
	uint64_t frame_errors;    /* frames dropped at assembly (length mismatch, no end) */
	uint64_t asm_frames, asm_inverted, asm_lost_syms, asm_misses; /* sync-marker framing */
	uint64_t conn_drops;         /* connections libzmq dropped mid-message (over the size limit) */
	uint64_t handshake_failures; /* connections refused in the handshake (CURVE) */
	uint64_t queue_syms;      /* symbols accepted and not yet published */
	uint32_t batches_inflight;
	uint32_t code_gen;
	double in_syms_per_s, out_bits_per_s; /* over the last stats interval */
	double lat_p50_ms, lat_p90_ms, lat_p99_ms, lat_max_ms; /* accept -> publish */
	double batch_p50_ms, batch_p99_ms, batch_max_ms; /* a batch on the backend: submit -> done */
	/* The breakdowns and the cumulative latency histogram (over the channel's life). */
	uint64_t bad_by_reason[FECD_BAD_COUNT];                /* FECD_BAD_MSG_MAP */
	uint64_t frame_errors_by_reason[FECD_FRAME_ERR_COUNT]; /* FECD_FRAME_ERROR_MAP */
	uint64_t msgs_by_status[FECD_STATUS_COUNT];   /* messages published, by FECD_STATUS_* */
	uint64_t frames_by_status[FECD_STATUS_COUNT]; /* of those, frames */
	uint64_t batches_cpu, batches_gpu;            /* batches decoded, by where they ran */
	uint64_t jobs_retried;                        /* jobs decoded again (FEC_STATUS_RETRY) */
	uint64_t lat_le[FECD_LAT_BUCKETS]; /* outputs published within each bound (cumulative) */
	uint64_t lat_count;                /* outputs with a latency sample (the +Inf bucket) */
	double lat_sum_s;
	/* Input health (one job per batch sampled, in int8 units): symbols sampled and clipped over
	 * the channel's life, windows that looked wrong; the clipped fraction and mean |LLR| of the
	 * last full window (before one: of the samples so far), and its verdict: "ok", "inverted",
	 * "clipped", "small", or "unknown" (no full window yet). The polarity hint where the family
	 * gives one (fec_input_polarity): the last window's fractions of the code's checks that the
	 * hard input fails, as received and negated, and "normal", "inverted" or "unknown". */
	uint64_t in_sampled_syms, in_clipped_syms, in_health_warnings;
	double in_clipped_frac, in_mean_abs_llr;
	const char *in_health;
	double in_unsat_checks_frac, in_unsat_checks_negated_frac;
	const char *in_polarity;
};

struct fecd;
struct channel;

/* Defaults: one CCSDS Viterbi stream channel on the documented endpoints (config.c). */
void fecd_config_defaults(struct fecd_config *cfg);
void chan_config_defaults(struct chan_config *cc, uint32_t id);

/* A channel's code made ready to run: the code, its decoder and the batch geometry the backend
 * picks. Building it is the slow part of creating or updating a channel (minutes for the largest
 * generated codes), so it is done off the loop thread, under the calling thread's build limit
 * (offload.h): fecd_epoch_build may run on any thread and touches no channel. NULL with err set
 * when the code cannot be built. */
struct epoch;
struct epoch *fecd_epoch_build(struct fecd *d, const struct chan_config *cc, char *err,
			       size_t errlen);
void fecd_epoch_free(struct epoch *ep);

/* Channel operations; all on the main loop thread (they run on the channel's own loop thread
 * through loops.h), all quick: each takes the epoch built for cc, whatever it returns. err gets
 * a message naming what was wrong. */
int fecd_channel_create(struct fecd *d, const struct chan_config *cc, struct epoch *ep, char *err,
			size_t errlen);
/* Switches the channel to a new configuration. Symbols from sender sequence at_seq on are decoded
 * with the new code (UINT64_MAX: from the next message); those before it with the old one. Only the
 * code, batching, llr_scale and output options may change; endpoints may not. */
int fecd_channel_update(struct fecd *d, uint32_t id, const struct chan_config *cc,
			struct epoch *ep, uint64_t at_seq, char *err, size_t errlen);
/* Stops reading, decodes and publishes what was accepted, then closes the channel. */
int fecd_channel_delete(struct fecd *d, uint32_t id, char *err, size_t errlen);
/* The sender starts again (channel_reset, datapath/channel.h): the stream in progress ends and is
 * published, the next message starts a new one from bit 0. */
int fecd_channel_reset(struct fecd *d, uint32_t id, char *err, size_t errlen);

struct channel *fecd_channel_find(struct fecd *d, uint32_t id);
struct channel *fecd_channel_find_name(struct fecd *d, const char *name);
/* Iteration in creation order: first with prev == NULL; NULL at the end. */
struct channel *fecd_channel_next(struct fecd *d, struct channel *prev);
const struct chan_config *channel_config(const struct channel *ch);
/* The decoder of channel_config's code (the last update's, pending or in force); NULL once the
 * channel is closing. */
const struct fec_decoder *channel_decoder(const struct channel *ch);
/* The channel's instance (the output header's instance): random and nonzero, drawn at creation,
 * so that a consumer can tell this channel's output from an earlier one's on the same endpoint. */
uint64_t channel_instance(const struct channel *ch);
void channel_get_stats(const struct channel *ch, struct chan_stats *out);

/* The running configuration (global part and channels as they are now). */
const struct fecd_config *fecd_running_config(const struct fecd *d);
struct backend *fecd_backend(struct fecd *d);
uv_loop_t *fecd_loop(struct fecd *d);

/* Configuration (config.c): JSON <-> structures, checked against the settings table's bounds. */
int fecd_config_load(const char *path, struct fecd_config *cfg, char *err, size_t errlen);
int fecd_config_parse(const char *text, size_t len, struct fecd_config *cfg, char *err,
		      size_t errlen);
/* Applies a JSON object of channel settings on top of base (absent keys keep base's value). */
struct cJSON;
int chan_config_from_json(const struct cJSON *obj, const struct chan_config *base,
			  struct chan_config *out, char *err, size_t errlen);
struct cJSON *chan_config_to_json(const struct chan_config *cc);
/* Code spec <-> JSON through the family's parameter table. */
int fec_spec_from_json(const struct cJSON *obj, const struct fec_spec *base, struct fec_spec *out,
		       char *err, size_t errlen);
struct cJSON *fec_spec_to_json(const struct fec_spec *spec);

/* Control server (control.c): JSON-RPC 2.0, one request per line, on the Unix socket and
 * optionally TCP on 127.0.0.1. */
struct control;
int control_start(struct fecd *d, const struct fecd_config *cfg, struct control **out);
void control_stop(struct control *c); /* closes listeners and clients */

#endif
