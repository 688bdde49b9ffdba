/*
 * fecd-sink: the receive side of a simulated link. It takes fecd's decoded output (native
 * multipart messages, or GNU Radio PDUs with --pdu), regenerates the information bits the feed
 * sent (same --seed, or the same --input file) and reports bit and frame errors, losses,
 * duplicates, reordering, statuses, code generations and latency.
 *
 * Where a decoded message belongs in the information bits:
 *   - Frames: frame index i = (in_seq - seq_start) / split (the sender sequence number of the
 *     frame's first message, as the feed numbers them), or frame_seq with --frame-index count
 *     (for GNU Radio raw input, which has no sequence numbers). Frame i holds the bits the feed's
 *     frame schedule (--frame-bits B or MIN:MAX[:STEP], same seed) gives it; from the first frame
 *     of a new code generation whose length differs, frames have that length (the feed's
 *     --switch to a code of another k).
 *   - Streams: the daemon numbers a stream's bits from 0 (out_bit_offset) and starts again at 0
 *     when a stream restarts: after an END_OF_STREAM, the sender's own or one fecd made where a
 *     code change takes effect, at a hole in a SUB input or at a close (the header's end_cause
 *     says which; --until-eos counts only the sender's). The
 *     sink keeps `base`, the information bits of all earlier streams, and maps a bit to
 *     base + out_bit_offset. A new stream begins with the first stream message after one flagged
 *     END_OF_STREAM, or with a message at out_bit_offset 0 once the current stream has bits (a
 *     restart whose end was not flagged); base then grows by the ended stream's length, its
 *     highest out_bit_offset + payload_bits. This holds as long as the first and last messages of
 *     each stream arrive (always over PUSH/PULL); over a lossy SUB link a lost stream end shifts
 *     what follows and shows up as errors, never as silent success.
 *
 * Latency (with the feed's --stamps file): the time a decoded message arrives minus the time the
 * feed sent the message holding its first input symbol (in_seq), both CLOCK_MONOTONIC, so feed and
 * sink must run on one host. It includes the wait for the symbols after that message that the
 * block needs (its own and the traceback's), so it is what an application sees, not decode time.
 *
 * A message never makes the sink allocate or compute in proportion to a number it carries: one
 * that places itself more than --window units past what has arrived (2^32 bits, 2^20 frames) is
 * reported as out of window and not checked, and a message part over --max-msg-bytes (64 MiB) is
 * refused by libzmq, which drops the connection.
 *
 * Soft values (part 3, where fecd's output.soft publishes them) are checked in every message that
 * carries them (sink_code.c): their count against the decoded bits, and each bit LLR's sign
 * against its decoded bit. --code names the feed's code: frame lengths come from it where its
 * frames carry a fixed number of bits, and the kind of soft output it gives.
 *
 * Exit status 0 only when every expectation holds: at least one message; bit error rate at most
 * --max-ber (default 0: any bit error fails); frame error rate at most --max-fer when given; the
 * --expect-bits / --expect-frames count reached and --until-eos seen; no soft value that does not
 * fit or agree with its bits; and, unless --allow-loss / --allow-reorder, no lost, duplicated or
 * reordered units and no malformed or out-of-window message.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "bitpack.h"
#include "fecd_proto.h"

#include "sink.h"

/* Grows the bit buffers to hold n bits. */
static int reserve_bits(struct sink *s, size_t n)
{
	if (n <= s->cap_bits)
		return 0;
	size_t cap = n < 65536 ? 65536 : n;
	uint8_t *ref = realloc(s->ref, cap), *refpk = realloc(s->refpk, cap / 8 + 1);
	uint8_t *pk = realloc(s->pk, cap / 8 + 1);

	if (ref)
		s->ref = ref;
	if (refpk)
		s->refpk = refpk;
	if (pk)
		s->pk = pk;
	if (!ref || !refpk || !pk)
		return -1;
	s->cap_bits = cap;
	return 0;
}

/* Bit errors of n received packed bits against information bits [pos, pos + n); bits past the
 * end of an input file all count as errors. */
static uint64_t compare_bits(struct sink *s, uint64_t pos, const uint8_t *rx, size_t n)
{
	uint64_t have = info_source_len(&s->src);
	size_t known = pos >= have ? 0 : (have - pos < n ? (size_t)(have - pos) : n);

	info_source_read(&s->src, pos, known, s->ref);
	fec_pack_bits(s->ref, known, s->refpk);
	return fec_count_bit_errors(rx, s->refpk, known) + (n - known);
}

static void note_gen(struct sink *s, uint32_t gen)
{
	for (unsigned i = 0; i < s->ngens; i++)
		if (s->gens[i] == gen)
			return;
	if (s->ngens < SINK_MAX_GENS)
		s->gens[s->ngens++] = gen;
}

/* Whether a stream message starts a new stream (the rule at the top). */
static bool stream_restarts(const struct sink *s, const struct fecd_out_hdr *h)
{
	return s->stream_ended || (h->out_bit_offset == 0 && s->cur_has_bits);
}

/* Frames without --frame-bits or a --code that fixes their length: the first frame's header
 * gives the length (the feed sends frames of one length unless told otherwise), said once.
 * Returns 0, or -1 out of memory. */
static int frame_len_from_header(struct sink *s, const struct fecd_out_hdr *h)
{
	if (s->o.sched_set || s->have_code || s->hdr_frame_bits || !h->payload_bits)
		return 0;
	s->hdr_frame_bits = h->payload_bits;
	s->o.sched = (struct frame_sched){
	    .min_bits = h->payload_bits, .max_bits = h->payload_bits, .step = 1};
	frame_table_free(&s->frames);
	if (frame_table_init(&s->frames, &s->o.sched, s->o.seed))
		return -1;
	fprintf(stderr,
	        "fecd-sink: frames of %" PRIu32 " bits, as the first frame's header says "
	        "(--frame-bits or --code to say otherwise)\n",
	        h->payload_bits);
	return 0;
}

/* A code change to a code of another k (fecd-feed --switch across LDPC codes): the first frame
 * of a new code generation, where its length is not the one the table gives, takes its length
 * from the header for itself and every later frame, as the feed does from the switch on. A wrong
 * length from fecd cannot pass for right this way: the next frame's bits would then be compared
 * at the wrong place. A frame of an older generation arriving late keeps its place. Returns 0, or
 * -1 out of memory. */
static int frame_len_follow_gen(struct sink *s, const struct fecd_out_hdr *h, uint64_t idx)
{
	uint64_t first;
	uint32_t nbits;

	if (!s->table_gen_set) {
		s->table_gen_set = true;
		s->table_gen = h->code_gen;
		return 0;
	}
	if (h->code_gen == s->table_gen || idx < s->table_from)
		return 0;
	s->table_gen = h->code_gen;
	s->table_from = idx;
	if (frame_table_get(&s->frames, idx, &first, &nbits))
		return -1;
	if (nbits == h->payload_bits || !h->payload_bits)
		return 0;
	const struct frame_sched fixed = {
	    .min_bits = h->payload_bits, .max_bits = h->payload_bits, .step = 1};
	s->len_changes++;
	fprintf(stderr,
	        "fecd-sink: frames of %" PRIu32 " bits from frame %" PRIu64
	        " on, as the header of the first frame of code generation %" PRIu32 " says\n",
	        h->payload_bits, idx, h->code_gen);
	return frame_table_switch(&s->frames, idx, &fixed);
}

/* Where a stream message's bits sit in the information bits (the rule at the top). */
static uint64_t stream_position(struct sink *s, const struct fecd_out_hdr *h)
{
	if (stream_restarts(s, h)) {
		s->base += s->cur_end;
		s->cur_end = 0;
		s->cur_has_bits = false;
		s->restarts++;
	}
	s->stream_ended = false;
	uint64_t end = h->out_bit_offset + h->payload_bits;
	if (end > s->cur_end)
		s->cur_end = end;
	if (h->payload_bits)
		s->cur_has_bits = true;
	if (h->flags & FECD_OUT_END_OF_STREAM)
		s->stream_ended = true;
	return s->base + h->out_bit_offset;
}

/* True for a message whose first unit (stream bit base + first, or frame index first) lies more
 * than the window past the `arrived` units received so far. Such a number is the sender's word,
 * not data: it is reported and left unchecked rather than followed with memory or time. */
static bool beyond_window(struct sink *s, uint64_t base, uint64_t first, uint64_t arrived,
                          uint64_t window, const char *unit)
{
	uint64_t limit = arrived + window;

	if (base <= limit && first <= limit - base)
		return false;
	s->out_of_window++;
	if (s->out_of_window <= 10)
		fprintf(stderr,
		        "fecd-sink: message %" PRIu64 " places itself at %s %" PRIu64
		        "%s, more than %" PRIu64 " past the %" PRIu64
		        " received (--window); not checked\n",
		        s->msgs, unit, first, base ? " of a later stream" : "", window, arrived);
	return true;
}

/* Stream output from before this sink's data: until a stream message starts where the sink
 * expects (out_bit_offset --bit-start, 0 by default), stream messages belong to an earlier run
 * on the channel (the tail of a stream a reset or a close ended, held until a consumer came), and
 * are counted as stale instead of being placed among the sink's bits. */
static bool stale_stream(struct sink *s, const struct fecd_out_hdr *h)
{
	if (s->stream_begun || !(h->flags & FECD_OUT_STREAM))
		return false;
	if (h->out_bit_offset == s->o.bit_start) {
		s->stream_begun = true;
		return false;
	}
	/* A place no run reaches is the sender's word, not data: out of window (verify). */
	if (h->out_bit_offset > s->o.bit_start &&
	    h->out_bit_offset - s->o.bit_start > (s->o.window ? s->o.window : SINK_WINDOW_BITS))
		return false;
	if (s->stale++ < 10)
		fprintf(stderr,
		        "fecd-sink: message %" PRIu64 " continues an earlier stream (bit %" PRIu64
		        "%s%s) before this sink's starts at bit %" PRIu64 ": not checked\n",
		        s->msgs, h->out_bit_offset,
		        h->flags & FECD_OUT_END_OF_STREAM ? ", its end: " : "",
		        h->flags & FECD_OUT_END_OF_STREAM
		            ? fecd_end_name(h->end_cause) ? fecd_end_name(h->end_cause) : "unknown"
		            : "",
		        s->o.bit_start);
	return true;
}

static int verify(struct sink *s, const struct fecd_out_hdr *h, const uint8_t *rx)
{
	uint64_t errors = 0, checked = h->payload_bits;

	if (s->o.instance && h->instance && h->instance != s->o.instance) {
		if (s->stale++ < 10)
			fprintf(stderr,
			        "fecd-sink: message %" PRIu64
			        " comes from channel instance %016" PRIx64 ", not %016" PRIx64
			        " (--instance): stale, not checked\n",
			        s->msgs, h->instance, s->o.instance);
		return 0;
	}
	if (stale_stream(s, h))
		return 0;
	if (reserve_bits(s, h->payload_bits)) {
		fprintf(stderr, "fecd-sink: out of memory\n");
		return -1;
	}
	if (h->status < 3)
		s->status[h->status]++;
	else
		s->status_other++;
	note_gen(s, h->code_gen);
	if (h->flags & FECD_OUT_CODE_CHANGED)
		s->code_changed++;
	if (h->flags & FECD_OUT_END_OF_STREAM)
		s->eos_seen++;
	if (fecd_out_sender_ended(h))
		s->sender_ends++;

	if (h->flags & FECD_OUT_STREAM) {
		uint64_t base = s->base + (stream_restarts(s, h) ? s->cur_end : 0);

		if (beyond_window(s, base, h->out_bit_offset, s->o.bit_start + s->bits,
		                  s->o.window ? s->o.window : SINK_WINDOW_BITS, "bit"))
			return 0;
		uint64_t pos = stream_position(s, h);

		if (!s->o.replay)
			errors = compare_bits(s, pos, rx, h->payload_bits);
		else if (sink_replay_compare(s, pos, rx, h->payload_bits, &errors)) {
			fprintf(stderr, "fecd-sink: out of memory\n");
			return -1;
		}
		track_add(&s->bits_track, pos, pos + h->payload_bits);
		s->stream_msgs++;
	} else if (h->payload_bits == 0 && h->in_count == 0 &&
	           (h->flags & FECD_OUT_END_OF_STREAM)) {
		/* A bare end-of-stream marker (PROTOCOL.md section 5): fecd sends one when the
		 * sender's last frame had already left in an earlier output. No frame to check. */
	} else {
		uint64_t idx, first;
		uint32_t nbits;

		if (s->o.frame_index_count) {
			idx = h->frame_seq;
		} else if (h->in_seq < s->o.seq_start ||
		           (h->in_seq - s->o.seq_start) % s->o.split) {
			fprintf(stderr,
			        "fecd-sink: frame %" PRIu64 " starts at seq %" PRIu64
			        ", not at a frame's first message (--split %u, --seq-start %" PRIu64
			        ")\n",
			        h->frame_seq, h->in_seq, s->o.split, s->o.seq_start);
			s->malformed++;
			return 0;
		} else {
			idx = (h->in_seq - s->o.seq_start) / s->o.split;
		}
		if (beyond_window(s, 0, idx, s->frame_msgs,
		                  s->o.window ? s->o.window : SINK_WINDOW_FRAMES, "frame"))
			return 0;
		if (frame_len_from_header(s, h) || frame_len_follow_gen(s, h, idx) ||
		    frame_table_get(&s->frames, idx, &first, &nbits)) {
			fprintf(stderr, "fecd-sink: out of memory\n");
			return -1;
		}
		if (nbits == h->payload_bits) {
			errors = compare_bits(s, first, rx, nbits);
		} else {
			/* A frame of the wrong length: every bit of the longer of the two is wrong,
			 * and counts as checked, so that the rate stays a rate. */
			checked = nbits > h->payload_bits ? nbits : h->payload_bits;
			errors = checked;
			if (s->frame_len_errors++ < 10)
				fprintf(stderr,
				        "fecd-sink: frame %" PRIu64 " has %" PRIu32
				        " bits where the feed sent %" PRIu32 "\n",
				        idx, h->payload_bits, nbits);
		}
		track_add(&s->frame_track, idx, idx + 1);
		s->frame_msgs++;
	}
	s->bits += checked;
	s->bit_errors += errors;
	if (errors || h->status != FECD_STATUS_DECODED) {
		s->msg_errors++;
		if (errors)
			s->errors_wrong++;
		else
			s->errors_status++;
	}
	return 0;
}

static int note_latency(struct sink *s, uint64_t in_seq, uint64_t rx_ns)
{
	if (s->nlat == s->cap_lat) {
		size_t cap = s->cap_lat ? 2 * s->cap_lat : 4096;
		uint64_t *a = realloc(s->lat_seq, cap * sizeof(*a));
		uint64_t *b = a ? realloc(s->lat_rx, cap * sizeof(*b)) : NULL;

		if (a)
			s->lat_seq = a;
		if (!b)
			return -1;
		s->lat_rx = b;
		s->cap_lat = cap;
	}
	s->lat_seq[s->nlat] = in_seq;
	s->lat_rx[s->nlat++] = rx_ns;
	return 0;
}

/* Handles one received message of nparts parts. Returns 0, or -1 on a fatal error. */
static int on_message(struct sink *s, zmq_msg_t *parts, int nparts, uint64_t rx_ns)
{
	struct fecd_out_hdr h;
	const uint8_t *rx, *soft = NULL;
	int rc;

	s->msgs++;
	if (s->o.pdu) {
		const uint8_t *bytes;
		size_t nbytes;
		bool unpacked = false;

		rc = nparts == 1
		         ? fecd_pdu_parse_ex(zmq_msg_data(&parts[0]), zmq_msg_size(&parts[0]), &h,
		                             &bytes, &nbytes, &unpacked)
		         : -FECD_PROTO_EPARTS;
		if (!rc && unpacked) {
			if (reserve_bits(s, h.payload_bits))
				return -1;
			fec_pack_bits(bytes, h.payload_bits, s->pk);
			bytes = s->pk;
		}
		rx = bytes;
	} else {
		rc = nparts >= 2 && nparts <= 3 ? 0 : -FECD_PROTO_EPARTS;
		if (!rc)
			rc = fecd_out_hdr_parse(zmq_msg_data(&parts[0]), zmq_msg_size(&parts[0]),
			                        &h);
		if (!rc)
			rc = fecd_out_payload_check(&h, zmq_msg_size(&parts[1]),
			                            nparts == 3 ? zmq_msg_size(&parts[2]) : 0);
		rx = rc ? NULL : zmq_msg_data(&parts[1]);
		soft = !rc && nparts == 3 ? zmq_msg_data(&parts[2]) : NULL;
	}
	if (rc) {
		if (s->malformed++ < 10)
			fprintf(stderr, "fecd-sink: malformed message %" PRIu64 ": %s\n", s->msgs,
			        fecd_proto_strerror(rc));
		return 0;
	}
	if (s->o.stamps && note_latency(s, h.in_seq, rx_ns))
		return -1;
	sink_soft_check(s, &h, rx, soft);
	return verify(s, &h, rx);
}

static bool done(const struct sink *s)
{
	if (s->o.until_eos)
		return s->sender_ends >= s->o.until_eos;
	if (s->o.expect_bits && s->bits_track.next >= s->o.expect_bits)
		return true;
	if (s->o.expect_frames && s->frame_track.next >= s->o.expect_frames)
		return true;
	return false;
}

/* Receives until done, silence or the deadline. Returns 0 or -1 on a fatal error. */
static int receive(struct sink *s)
{
	zmq_msg_t parts[SINK_MAX_PARTS];
	uint64_t start = now_ns();

	for (int i = 0; i < SINK_MAX_PARTS; i++)
		zmq_msg_init(&parts[i]);
	while (!done(s)) {
		int wait = s->o.timeout_ms;
		if (s->o.deadline_ms) {
			int64_t left =
			    (int64_t)s->o.deadline_ms - (int64_t)((now_ns() - start) / 1000000);
			if (left <= 0)
				break;
			if (left < wait)
				wait = (int)left;
		}
		zmq_pollitem_t pi = {.socket = s->zsock, .events = ZMQ_POLLIN};
		int n = zmq_poll(&pi, 1, wait);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "fecd-sink: zmq_poll: %s\n", zmq_strerror(errno));
			return -1;
		}
		if (n == 0) {
			if (!s->o.deadline_ms || wait == s->o.timeout_ms)
				break; /* silence */
			continue;
		}
		int nparts = 0, more = 1;
		while (more) {
			zmq_msg_t *m =
			    &parts[nparts < SINK_MAX_PARTS ? nparts : SINK_MAX_PARTS - 1];

			if (zmq_msg_recv(m, s->zsock, 0) < 0) {
				if (errno == EINTR)
					continue;
				fprintf(stderr, "fecd-sink: receive: %s\n", zmq_strerror(errno));
				return -1;
			}
			nparts++;
			more = zmq_msg_more(m);
		}
		uint64_t rx = now_ns();
		if (!s->t_first)
			s->t_first = rx;
		s->t_last = rx;
		if (on_message(s, parts, nparts > SINK_MAX_PARTS ? 0 : nparts, rx))
			return -1;
	}
	for (int i = 0; i < SINK_MAX_PARTS; i++)
		zmq_msg_close(&parts[i]);
	return 0;
}

static int open_socket(struct sink *s)
{
	s->zctx = zmq_ctx_new();
	s->zsock = s->zctx ? zmq_socket(s->zctx, s->o.sock_type) : NULL;
	if (!s->zsock) {
		fprintf(stderr, "fecd-sink: zmq socket: %s\n", zmq_strerror(errno));
		return -1;
	}
	int zero = 0;
	zmq_setsockopt(s->zsock, ZMQ_RCVHWM, &s->o.hwm, sizeof(s->o.hwm));
	zmq_setsockopt(s->zsock, ZMQ_MAXMSGSIZE, &s->o.max_msg_bytes, sizeof(s->o.max_msg_bytes));
	zmq_setsockopt(s->zsock, ZMQ_LINGER, &zero, sizeof(zero));
	if (s->o.sock_type == ZMQ_SUB)
		zmq_setsockopt(s->zsock, ZMQ_SUBSCRIBE, "", 0);
	if (client_curve_setup(s->zsock, s->o.curve_secret, s->o.curve_server, s->o.bind,
	                       "fecd-sink"))
		return -1;
	if ((s->o.bind ? zmq_bind : zmq_connect)(s->zsock, s->o.endpoint)) {
		fprintf(stderr, "fecd-sink: %s %s: %s\n", s->o.bind ? "bind" : "connect",
		        s->o.endpoint, zmq_strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct sink s; /* large gap tables: not on the stack */
	int rc = 1;

	rc = sink_parse_args(argc, argv, &s.o);
	if (rc)
		return rc > 0 ? 0 : 2;
	rc = 1;
	if (sink_code_open(&s))
		return 2;
	track_init(&s.bits_track);
	s.bits_track.next = s.o.bit_start; /* bits before it are not this sink's to receive */
	track_init(&s.frame_track);
	if (info_source_open(&s.src, s.o.input, s.o.seed, "fecd-sink"))
		return 1;
	if (frame_table_init(&s.frames, &s.o.sched, s.o.seed) || reserve_bits(&s, 65536) ||
	    (s.o.replay && sink_replay_prepare(&s))) {
		fprintf(stderr, "fecd-sink: out of memory\n");
		goto out;
	}
	if (open_socket(&s) || receive(&s))
		goto out;
	if (s.o.stamps && sink_stamps_match(&s))
		goto out;
	rc = sink_report(&s) ? 0 : 1;
out:
	if (s.zsock)
		zmq_close(s.zsock);
	if (s.zctx)
		zmq_ctx_term(s.zctx);
	free(s.ref);
	free(s.refpk);
	free(s.pk);
	free(s.lat_seq);
	free(s.lat_rx);
	lat_free(&s.lat);
	sink_replay_free(&s);
	frame_table_free(&s.frames);
	info_source_close(&s.src);
	return rc;
}
