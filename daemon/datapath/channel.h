/*
 * Internal to the data path: one channel's state and the functions its parts share. A channel
 * moves symbols through ingest (ZMQ in -> int8 LLRs), the batcher (stream blocks or frames -> batch
 * slots), the backend (decode on worker threads) and publish (in order -> ZMQ out). Everything
 * here runs on the channel's loop thread (the main one, or one of the data-path loops: loops.h)
 * except the backend's done callback, which only queues the batch under done_lock and wakes the
 * loop.
 *
 * Frames arrive in their own messages (consume.c), or in a raw stream behind sync markers
 * (consume_asm.c, with the marker search of asm_sync.c); a code may decode float32 LLRs or q-ary
 * symbol log-probabilities, whose job slots then hold floats (the epoch's slot layout, from the
 * decoder's fec_info: jobslot.h).
 *
 * Code generations ("epochs"): every create or update makes an epoch holding the configuration and
 * the decoder it implies. Ingest switches to a pending epoch at the sender sequence number the
 * update named; the batcher cuts stream blocks with the epoch in force where each block starts
 * (same-code updates) or ends the stream at the switch (code changes). Batches hold a reference,
 * so a decoder lives until the last batch that used it is published.
 */
#ifndef FECD_CHANNEL_H
#define FECD_CHANNEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <uv.h>
#include <zmq.h>

#include "asm_sync.h"
#include "backend.h"
#include "curve.h"
#include "fecd.h"
#include "health.h"
#include "jobslot.h"
#include "sockmon.h"
#include "stats.h"

#define CHAN_PENDING_MAX    4  /* updates waiting for their sequence number */
#define CHAN_IN_BUDGET_MSGS 64 /* messages per turn before other channels get a go */
#define CHAN_IN_BUDGET_SYMS (1u << 22)
#define CHAN_STREAM_MARGIN  65536 /* stream buffer room beyond two jobs' input */
#define CHAN_SCRATCH_SYMS   4096  /* symbols converted at a time outside the stream buffer */
#define CHAN_OUT_MAX_RECV_BYTES 65536 /* largest message an output peer may send (subscriptions) */

struct epoch {
	unsigned refs;
	uint32_t gen;
	struct chan_config cfg;
	struct fec_decoder *dec;
	const struct fec_info *info;
	uint64_t at_seq;    /* pending: first sender sequence number it applies to */
	uint64_t start_abs; /* stream, same code: first block start cut with it */
	size_t in_stride;   /* symbols per job slot */
	struct slot_layout slot; /* what a slot holds: kind, bytes per symbol, framing, scale */
	size_t out_stride;  /* bytes per job's packed output */
	size_t soft_stride; /* floats per job's soft output; 0: no soft output */
	/* Streams with units of several bits (puncturing): unit_cum[k] is the symbols the first k
	 * bits of a unit are sent as, so a stream ending inside a unit still yields its bits. */
	uint32_t *unit_cum;
};

enum batch_state { BATCH_FREE, BATCH_FILLING, BATCH_CLOSED, BATCH_INFLIGHT, BATCH_DONE };

/* What publish needs of each job beyond struct fec_job. */
struct job_meta {
	uint64_t in_first; /* channel index of the first owned symbol */
	uint64_t in_seq;   /* sender sequence number of the message holding it */
	uint64_t accept_ns;
	uint32_t pad_syms;  /* erasures appended to fill the stream's last unit */
	uint32_t lead_syms; /* frames: symbols before the frame the output also owns (its marker) */
	uint32_t trim_bits; /* decoded bits of those erasures, not published */
};

struct batch {
	struct channel *ch;
	enum batch_state state;
	uint64_t seq;             /* per channel: publish order */
	struct epoch *ep;         /* referenced while the batch is in use */
	uint32_t count;           /* jobs */
	bool stream;              /* one output message for all jobs */
	bool stream_start;        /* the first job starts a stream: decoded-bit offsets restart */
	bool end_of_stream;       /* the output ends the stream (or the sender's frames) */
	uint8_t end_cause;        /* with end_of_stream: why (enum fecd_end_cause) */
	struct job_meta eos_meta; /* a job-less end-of-stream marker's position */
	struct backend_task task;
	uint64_t submit_ns, done_ns; /* on the backend: submitted, decoded (its thread sets it) */
	struct in_health health;     /* its input sampled (the backend thread sets it) */
	struct batch *next;          /* closed queue */
	/* buffers, grown only when the geometry grows */
	uint32_t cap_jobs;
	struct fec_job *jobs;
	struct job_meta *meta;
	int8_t *in;
	size_t in_cap;
	uint8_t *out;
	size_t out_cap;
	float *soft;
	size_t soft_cap;
	uint8_t *msg; /* a stream batch's bits back to back */
	size_t msg_cap;
	float *msg_soft; /* and its soft values */
	size_t msg_soft_cap;
	uint8_t *pdu; /* one PDU */
	size_t pdu_cap;
	/* publishing progress, kept across EAGAIN */
	bool pub_started, pub_built, pub_failed;
	uint32_t pub_job;  /* next message (frames: job index) */
	unsigned pub_part; /* next part of the current message */
	unsigned nparts;
	const void *part[3];
	size_t part_len[3];
	struct fecd_out_hdr pub_hdr;
	uint8_t hdr[FECD_OUT_HDR_LEN];
};

/* The received message being consumed (it may stop halfway when batch slots run out). */
struct in_msg {
	bool active;
	zmq_msg_t part[2];
	unsigned nparts;
	const uint8_t *data; /* the symbols, inside the last part */
	size_t nsyms, done;  /* symbols in the message, consumed so far */
	bool gap;            /* SUB: messages were lost before it (not yet acted on) */
	uint64_t gap_syms;   /* streams: erasures still to insert before it for lost messages */
	int format;
	bool polarity_one;
	uint16_t flags; /* FECD_IN_* */
	uint64_t seq;
	uint32_t frame_len;
	uint32_t q; /* values per symbol: f32v's q (the code's), 1 for bit formats */
	uint64_t accept_ns;
	bool started; /* pending updates checked */
	bool eos_done;
	bool skip;   /* frames: the rest of this message is dropped */
	bool marked; /* its start is in the mark ring (sync-marker framing) */
	unsigned frame_stage;
};

/* Where each message's symbols start, so outputs can name the sender sequence number. */
struct msg_mark {
	uint64_t abs;
	uint64_t seq;
	uint64_t accept_ns;
};

struct mark_ring {
	struct msg_mark *v;
	size_t cap, head, len; /* cap is a power of two */
};

struct stream_buf {
	int8_t *buf;
	size_t cap;
	uint64_t base;    /* channel index of buf[0] */
	uint64_t end;     /* one past the last symbol held */
	uint64_t start;   /* first symbol of the current stream */
	uint64_t cursor;  /* first symbol not yet owned by a job */
	bool open;        /* a stream has begun and not ended */
	size_t keep_head; /* history kept before the cursor: the largest head any epoch needs */
	uint32_t pad_syms, pad_trim; /* the stream's end: erasures filling its last unit */
	uint8_t end_cause;           /* the stream's end: why it ends (enum fecd_end_cause) */
	uint64_t last_in_ns; /* when its last message arrived (the idle flush counts from it) */
};

struct frame_asm {
	bool active;
	bool negate;   /* sync-marker framing: the marker came inverted, so is the frame */
	uint32_t want; /* symbols the frame should have */
	uint32_t have;
	uint32_t lead; /* sync-marker framing: the marker's symbols, owned with the frame */
	uint64_t in_first, in_seq, accept_ns;
	struct batch *b; /* the frame is written into slot b->count of this batch */
};

enum chan_state { CHAN_RUNNING, CHAN_CLOSING, CHAN_CLOSED };

struct channel {
	struct fecd *d;
	uv_loop_t *loop;      /* every handle of the channel lives on it */
	struct data_loop *dl; /* its loop thread; NULL: the main loop (loop_threads 1) */
	struct channel *next;   /* service list, creation order */
	struct chan_config cfg; /* as configured now (the last update) */
	uint32_t max_inflight;  /* cfg's batch.inflight, auto resolved */
	uint32_t gen;           /* generation of cfg */
	enum chan_state state;

	struct epoch *in_ep; /* in force at ingest */
	struct epoch *pending[CHAN_PENDING_MAX];
	unsigned npending;
	struct epoch *cut_ep;                     /* streams: cuts the next block */
	struct epoch *cut_next[CHAN_PENDING_MAX]; /* streams: same-code successors by start_abs */
	unsigned ncut_next;

	void *in_sock, *out_sock;
	uv_poll_t in_poll, out_poll;
	uv_idle_t in_resume;
	uv_timer_t deadline, bind_timer, linger, idle_timer;
	uv_async_t done_async;
	unsigned open_handles;
	bool in_poll_open, out_poll_open, in_resume_open, deadline_open, bind_timer_open,
	    linger_open, async_open, idle_timer_open;
	unsigned bind_wait; /* bit 0 input, bit 1 output: bind retried until released */
	uint64_t bind_give_up_ns;
	struct sock_monitor mon_in, mon_out; /* dropped connections, refused handshakes */
	char zap_domain[2][CURVE_DOMAIN_MAX]; /* CURVE servers: input, output ("": none) */

	/* ingest */
	struct in_msg msg;
	bool in_busy;    /* inside ingest_drain */
	bool in_blocked; /* waiting for a free batch slot */
	bool in_stopped; /* closing: read no more */
	bool have_seq;
	bool reset_pending; /* channel.reset: end the stream before the next message */
	uint64_t instance;  /* channel_instance (fecd.h): set at creation, never changed */
	uint64_t last_seq;
	uint64_t gr_msgs;  /* GNU Radio input: messages so far, used as seq */
	uint64_t abs_next; /* channel index of the next accepted symbol */
	struct mark_ring marks;
	struct stream_buf sb;
	struct frame_asm fr;
	/* sync-marker framing */
	struct asm_sync as;
	bool as_marker; /* a marker was found; its frame waits for a batch slot */
	bool as_inverted;
	uint64_t as_marker_abs; /* channel index of that marker's first symbol */
	uint32_t as_gen;        /* generation of the epoch the marker was configured from */
	int8_t *scratch;        /* wire symbols converted to int8 on their way elsewhere */

	/* batches */
	struct batch **pool;
	unsigned npool;
	struct batch *filling;
	struct batch *closed_head, *closed_tail; /* waiting for an in-flight place */
	bool deadline_armed, flush_due;
	bool idle_armed, idle_due; /* the idle flush: timer running; a flush waiting for a slot */
	unsigned inflight;
	uint64_t next_batch_seq, next_pub_seq;
	pthread_mutex_t done_lock;
	struct batch *done_head; /* decoded on backend threads, not yet taken by the loop */

	/* publish */
	bool in_publish;
	bool out_blocked;   /* the output socket said EAGAIN */
	bool out_abandoned; /* closing and out of time: drop what cannot leave */
	uint64_t frame_seq;
	uint64_t stream_bits; /* decoded bits of the current stream published */
	uint32_t pub_gen;     /* generation of the last published output */

	struct chan_stats_acc stats;
	struct ratelimit rl_bad, rl_frame, rl_gap, rl_send, rl_decode, rl_health;

	/* closing */
	bool flushed;
	uint64_t close_deadline_ns;
	void (*on_closed)(struct channel *ch, void *arg);
	void *on_closed_arg;
};

uint64_t now_ns(void);

/* channel.c */
/* Builds the code and its decoder (slow: off the loop thread, fecd_epoch_build; pure but for
 * reading be's batch defaults, which takes the backend's lock where it has state). be: whose
 * batch geometry fills in batch.jobs / batch.inflight left at 0 (auto); ep->cfg holds the numbers
 * in force. The generation is set when a channel takes the epoch. */
struct epoch *epoch_create(const struct chan_config *cc, struct backend *be, char *err,
                           size_t errlen);
void epoch_put(struct epoch *ep);
static inline struct epoch *epoch_get(struct epoch *ep)
{
	ep->refs++;
	return ep;
}
/* Monitors a socket (sockmon.h), then binds or connects it; a bind refused because a closing
 * channel still holds the endpoint is retried until it is released. */
int channel_attach(struct channel *ch, void *sock, const struct endpoint_config *ec,
                   const char *what, char *err, size_t errlen);
/* Closing: moves on as far as it can (flush, wait for publishing, release). */
void channel_close_pump(struct channel *ch);
void channel_handle_closed(struct channel *ch);

/* ingest.c */
int ingest_open(struct channel *ch, char *err, size_t errlen);
void ingest_start(struct channel *ch);
void ingest_drain(struct channel *ch);   /* reads what is there, within the fairness budget */
void ingest_unblock(struct channel *ch); /* something freed: go on from the loop's idle phase */
void ingest_stop(struct channel *ch);    /* closes the input socket; the message in hand goes on */
void msg_release(struct in_msg *m);

/* consume.c */
/* Consumes the message in hand as far as batch slots allow; false when it must wait. */
bool ingest_consume(struct channel *ch);
void frame_drop(struct channel *ch, enum fecd_frame_error reason, uint64_t extra_syms,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Shared with consume_asm.c: putting pending updates in force (false: wait for a slot), frame
 * assembly in the job slot, and the conversion of a message's symbols [first, first + n). */
bool apply_pending(struct channel *ch, struct in_msg *m);
/* channel.reset on the channel's loop: the sender starts again. The stream in progress ends
 * (its tail decoded and published now, to whoever reads the output now, the last output marked
 * END_OF_STREAM with end_cause reset), a frame in progress is dropped, and the next message
 * starts a new stream (out_bit_offset from 0) and a new sequence count. Where no batch slot is
 * free now, the end waits for one, before the next message. */
void channel_reset(struct channel *ch);
bool channel_reset_apply(struct channel *ch, uint64_t seq);
bool frame_begin(struct channel *ch, struct in_msg *m, uint32_t want);
void frame_write(struct channel *ch, const struct in_msg *m, size_t n);
void frame_complete(struct channel *ch);
void wire_to_s8(const struct channel *ch, const struct in_msg *m, size_t first, size_t n,
                int8_t *dst);
bool consume_stream_or_frames(struct channel *ch, struct in_msg *m);

/* consume_asm.c */
bool consume_asm(struct channel *ch, struct in_msg *m);
/* The symbols the marker search still holds are given up (stream end, lost messages, closing, a
 * code without sync-marker framing). */
void asm_give_up(struct channel *ch);
int marks_push(struct mark_ring *r, uint64_t abs, uint64_t seq, uint64_t accept_ns);
/* The mark of the message holding symbol abs; forgets the marks before it. */
bool marks_find(struct mark_ring *r, uint64_t abs, struct msg_mark *out);

/* batcher.c */
int batcher_prepare(struct channel *ch, const struct epoch *ep);
void batcher_free(struct channel *ch);
bool batcher_idle(const struct channel *ch); /* every slot free: all accepted is published */
/* The batch open for jobs of ep (a new one from the pool if needed); NULL when no slot is free. */
struct batch *batch_filling(struct channel *ch, struct epoch *ep, bool stream);
void batch_job_added(struct channel *ch, struct batch *b);
void batch_close(struct channel *ch, struct batch *b);
void batch_release(struct channel *ch, struct batch *b);
void batcher_submit_ready(struct channel *ch);
/* Marks the end of the sender's stream on the open batch, or in a job-less batch. False when no
 * slot is free. */
bool batch_mark_eos(struct channel *ch, struct epoch *ep, bool stream, uint64_t seq,
                    enum fecd_end_cause cause);
/* Arms the batch deadline where a batch or a stream block waits, and the idle flush where a
 * stream holds symbols only for the last block's traceback (input.idle_flush_ms). */
void batcher_arm_deadline(struct channel *ch);
void batcher_flush_due(struct channel *ch);
/* Streams. */
void stream_begin(struct channel *ch);
size_t stream_room(struct channel *ch); /* free symbols at the buffer's end (after compaction) */
bool stream_cut(struct channel *ch);    /* cuts every block whose tail is here; false: no slot */
/* Ends the stream for cause (enum fecd_end_cause, in the last output's header): everything left
 * is cut, the last job flagged STREAM_END; for FECD_END_SENDER the output says END_OF_STREAM even
 * when no stream was open. False when it must wait for a slot. */
bool stream_finish(struct channel *ch, enum fecd_end_cause cause, uint64_t seq);
/* Same code, new geometry: blocks starting at or after at_abs are cut with ep. */
void stream_queue_epoch(struct channel *ch, struct epoch *ep, uint64_t at_abs);

/* publish.c */
int publish_open(struct channel *ch, char *err, size_t errlen);
void publish_task_done(struct backend_task *t); /* backend thread */
void publish_run(struct channel *ch);
void publish_abandon(struct channel *ch);

#endif
