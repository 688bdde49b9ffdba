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
 *     frame schedule (--frame-bits B or MIN:MAX[:STEP], same seed) gives it.
 *   - Streams: the daemon numbers a stream's bits from 0 (out_bit_offset) and starts again at 0
 *     when a stream restarts: after an END_OF_STREAM, and when a code switch ends a stream. The
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
 * Exit status 0 only when every expectation holds: at least one message; bit error rate at most
 * --max-ber (default 0: any bit error fails); frame error rate at most --max-fer when given; the
 * --expect-bits / --expect-frames count reached and --until-eos seen; and, unless --allow-loss /
 * --allow-reorder, no lost, duplicated or reordered units and no malformed or out-of-window
 * message.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "bitpack.h"
#include "fecd_proto.h"

#include "sink.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: fecd-sink [options]\n"
	    "  --endpoint EP        ZMQ endpoint (default tcp://127.0.0.1:5551)\n"
	    "  --socket pull|sub    socket type (default pull); --bind or --connect (default)\n"
	    "  --hwm N              receive high-water mark (default 1000)\n"
	    "  --curve-secret-key FILE  ZMQ CURVE: this end's secret key file (fecd\n"
	    "                       --curve-keygen); with --connect also --curve-server-key FILE,\n"
	    "                       the public key of the end that binds\n"
	    "  --pdu                messages are GNU Radio PDUs, not native fecd messages\n"
	    "  --seed N | --input FILE   the feed's information bits (default seed 1)\n"
	    "  --frame-bits B|MIN:MAX[:STEP]  the feed's frame lengths (default 1024)\n"
	    "  --split K, --seq-start N  the feed's messages per frame and first seq (1, 0)\n"
	    "  --frame-index seq|count   frame index from in_seq (default) or frame_seq\n"
	    "  --expect-bits N | --expect-frames N   stop when delivered, fail when not\n"
	    "  --bit-start N        streams: the first bit expected is stream bit N (a stream\n"
	    "                       that an earlier sink received up to N; --expect-bits still\n"
	    "                       counts from bit 0)\n"
	    "  --until-eos[=N]      stop after the Nth END_OF_STREAM (default 1)\n"
	    "  --timeout MS         stop after this much silence (default 5000)\n"
	    "  --deadline MS        stop after this long in all (default: none)\n"
	    "  --max-ber X          highest bit error rate that passes (default 0)\n"
	    "  --max-fer X          highest frame/message error rate that passes (default: any)\n"
	    "  --allow-loss, --allow-reorder   do not fail on lost / duplicate / reordered data\n"
	    "  --stamps FILE        the feed's stamps, for latency percentiles\n"
	    "  --latency-log FILE   with --stamps: each sample as a line \"SENT_S RECEIVED_S SEQ\n"
	    "                       LATENCY_MS\" (times from the first send), to see when it grew\n"
	    "  --json               print the report as one JSON object\n"
	    "  --replay BITS        streams: bit i is source bit i mod BITS (fecd-feed --replay),\n"
	    "                       checked against a packed copy at memory speed\n"
	    "  --window N           a message may place itself at most N units past those that\n"
	    "                       arrived (default 2^32 bits, 2^20 frames); beyond: an error\n"
	    "  --max-msg-bytes N    largest message part accepted (default 64 MiB)\n");
}

enum {
	OPT_ENDPOINT = 256,
	OPT_SOCKET,
	OPT_BIND,
	OPT_CONNECT,
	OPT_HWM,
	OPT_CURVE_SECRET,
	OPT_CURVE_SERVER,
	OPT_PDU,
	OPT_SEED,
	OPT_INPUT,
	OPT_FRAMEBITS,
	OPT_SPLIT,
	OPT_SEQSTART,
	OPT_FRAMEINDEX,
	OPT_EXPBITS,
	OPT_EXPFRAMES,
	OPT_BITSTART,
	OPT_EOS,
	OPT_TIMEOUT,
	OPT_DEADLINE,
	OPT_MAXBER,
	OPT_MAXFER,
	OPT_ALLOWLOSS,
	OPT_ALLOWREORDER,
	OPT_STAMPS,
	OPT_LATLOG,
	OPT_JSON,
	OPT_REPLAY,
	OPT_WINDOW,
	OPT_MAXMSG,
	OPT_HELP,
};

static const struct option sink_longopts[] = {
    {"endpoint", 1, 0, OPT_ENDPOINT},
    {"socket", 1, 0, OPT_SOCKET},
    {"bind", 0, 0, OPT_BIND},
    {"connect", 0, 0, OPT_CONNECT},
    {"hwm", 1, 0, OPT_HWM},
    {"curve-secret-key", 1, 0, OPT_CURVE_SECRET},
    {"curve-server-key", 1, 0, OPT_CURVE_SERVER},
    {"pdu", 0, 0, OPT_PDU},
    {"seed", 1, 0, OPT_SEED},
    {"input", 1, 0, OPT_INPUT},
    {"frame-bits", 1, 0, OPT_FRAMEBITS},
    {"split", 1, 0, OPT_SPLIT},
    {"seq-start", 1, 0, OPT_SEQSTART},
    {"frame-index", 1, 0, OPT_FRAMEINDEX},
    {"expect-bits", 1, 0, OPT_EXPBITS},
    {"expect-frames", 1, 0, OPT_EXPFRAMES},
    {"bit-start", 1, 0, OPT_BITSTART},
    {"until-eos", 2, 0, OPT_EOS},
    {"timeout", 1, 0, OPT_TIMEOUT},
    {"deadline", 1, 0, OPT_DEADLINE},
    {"max-ber", 1, 0, OPT_MAXBER},
    {"max-fer", 1, 0, OPT_MAXFER},
    {"allow-loss", 0, 0, OPT_ALLOWLOSS},
    {"allow-reorder", 0, 0, OPT_ALLOWREORDER},
    {"stamps", 1, 0, OPT_STAMPS},
    {"latency-log", 1, 0, OPT_LATLOG},
    {"json", 0, 0, OPT_JSON},
    {"replay", 1, 0, OPT_REPLAY},
    {"window", 1, 0, OPT_WINDOW},
    {"max-msg-bytes", 1, 0, OPT_MAXMSG},
    {"help", 0, 0, OPT_HELP},
    {0, 0, 0, 0},
};

static int parse_rate(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.0 && v <= 1.0))
		return -1;
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct sink_opts *o)
{
	uint64_t v;
	int c;

	*o = (struct sink_opts){
	    .endpoint = "tcp://127.0.0.1:5551",
	    .sock_type = ZMQ_PULL,
	    .hwm = 1000,
	    .timeout_ms = 5000,
	    .seed = 1,
	    .split = 1,
	    .sched = {.min_bits = 1024, .max_bits = 1024, .step = 1},
	    .max_msg_bytes = SINK_MAX_MSG_BYTES,
	};
	while ((c = getopt_long(argc, argv, "h", sink_longopts, NULL)) != -1) {
		const char *arg = optarg;

		switch (c) {
		case OPT_ENDPOINT:
			o->endpoint = arg;
			break;
		case OPT_SOCKET:
			if (!strcmp(arg, "pull"))
				o->sock_type = ZMQ_PULL;
			else if (!strcmp(arg, "sub"))
				o->sock_type = ZMQ_SUB;
			else
				goto bad;
			break;
		case OPT_BIND:
			o->bind = true;
			break;
		case OPT_CONNECT:
			o->bind = false;
			break;
		case OPT_HWM:
			if (parse_u64_arg(arg, &v) || v > INT32_MAX)
				goto bad;
			o->hwm = (int)v;
			break;
		case OPT_CURVE_SECRET:
			o->curve_secret = arg;
			break;
		case OPT_CURVE_SERVER:
			o->curve_server = arg;
			break;
		case OPT_PDU:
			o->pdu = true;
			break;
		case OPT_SEED:
			if (parse_u64_arg(arg, &o->seed))
				goto bad;
			break;
		case OPT_INPUT:
			o->input = arg;
			break;
		case OPT_FRAMEBITS:
			if (frame_sched_parse(&o->sched, arg))
				goto bad;
			break;
		case OPT_SPLIT:
			if (parse_u64_arg(arg, &v) || !v || v > UINT32_MAX)
				goto bad;
			o->split = (uint32_t)v;
			break;
		case OPT_SEQSTART:
			if (parse_u64_arg(arg, &o->seq_start))
				goto bad;
			break;
		case OPT_FRAMEINDEX:
			if (strcmp(arg, "seq") && strcmp(arg, "count"))
				goto bad;
			o->frame_index_count = !strcmp(arg, "count");
			break;
		case OPT_EXPBITS:
			if (parse_u64_arg(arg, &o->expect_bits))
				goto bad;
			break;
		case OPT_EXPFRAMES:
			if (parse_u64_arg(arg, &o->expect_frames))
				goto bad;
			break;
		case OPT_BITSTART:
			if (parse_u64_arg(arg, &o->bit_start))
				goto bad;
			break;
		case OPT_EOS:
			o->until_eos = 1;
			if (arg && (parse_u64_arg(arg, &o->until_eos) || !o->until_eos))
				goto bad;
			break;
		case OPT_TIMEOUT:
			if (parse_u64_arg(arg, &v) || !v || v > INT32_MAX)
				goto bad;
			o->timeout_ms = (int)v;
			break;
		case OPT_DEADLINE:
			if (parse_u64_arg(arg, &v) || v > INT32_MAX)
				goto bad;
			o->deadline_ms = (int)v;
			break;
		case OPT_MAXBER:
			if (parse_rate(arg, &o->max_ber))
				goto bad;
			break;
		case OPT_MAXFER:
			if (parse_rate(arg, &o->max_fer))
				goto bad;
			o->max_fer_set = true;
			break;
		case OPT_ALLOWLOSS:
			o->allow_loss = true;
			break;
		case OPT_ALLOWREORDER:
			o->allow_reorder = true;
			break;
		case OPT_STAMPS:
			o->stamps = arg;
			break;
		case OPT_LATLOG:
			o->latency_log = arg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_REPLAY:
			if (parse_u64_arg(arg, &o->replay) || !o->replay || o->replay > (1ull << 32))
				goto bad;
			break;
		case OPT_WINDOW:
			if (parse_u64_arg(arg, &o->window) || !o->window)
				goto bad;
			break;
		case OPT_MAXMSG:
			if (parse_u64_arg(arg, &v) || !v || v > INT64_MAX)
				goto bad;
			o->max_msg_bytes = (int64_t)v;
			break;
		case OPT_HELP:
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
		continue;
	bad:
		fprintf(stderr, "fecd-sink: bad value for --%s: '%s' (see --help)\n",
		        opt_name(sink_longopts, c), arg ? arg : "");
		return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "fecd-sink: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->replay && o->input) {
		fprintf(stderr, "fecd-sink: --replay checks seeded bits, not --input\n");
		return -1;
	}
	return 0;
}

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

static int verify(struct sink *s, const struct fecd_out_hdr *h, const uint8_t *rx)
{
	uint64_t errors = 0;

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
		if (frame_table_get(&s->frames, idx, &first, &nbits)) {
			fprintf(stderr, "fecd-sink: out of memory\n");
			return -1;
		}
		errors = nbits == h->payload_bits
		             ? compare_bits(s, first, rx, nbits)
		             : (nbits > h->payload_bits ? nbits : h->payload_bits);
		track_add(&s->frame_track, idx, idx + 1);
		s->frame_msgs++;
	}
	s->bits += h->payload_bits;
	s->bit_errors += errors;
	if (errors || h->status != FECD_STATUS_DECODED)
		s->msg_errors++;
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
	const uint8_t *rx;
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
	}
	if (rc) {
		if (s->malformed++ < 10)
			fprintf(stderr, "fecd-sink: malformed message %" PRIu64 ": %s\n", s->msgs,
			        fecd_proto_strerror(rc));
		return 0;
	}
	if (s->o.stamps && note_latency(s, h.in_seq, rx_ns))
		return -1;
	return verify(s, &h, rx);
}

static bool done(const struct sink *s)
{
	if (s->o.until_eos)
		return s->eos_seen >= s->o.until_eos;
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

	if (parse_args(argc, argv, &s.o))
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
