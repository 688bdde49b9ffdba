/*
 * fecd-feed: the transmit side of a simulated link, for demos, tests and measurements.
 *
 * Information bits (a seeded fec_bitstream, so that fecd-sink can regenerate bit i from the seed,
 * or the bits of a file, MSB first) are encoded with any code fecd knows (given as text, e.g.
 * "ccsds" or "ccsds,mode=terminated"), passed through a channel model (codec/channel_model.h; by
 * default awgn: BPSK over AWGN at a given Eb/N0) into channel LLRs, quantized to a wire format and
 * sent over ZeroMQ, as native fecd messages or as the raw items a gr-zeromq sink sends
 * (optionally with the pass_tags header).
 *
 * Streams: the information bits form one stream; --switch SEQ:CODE restarts the encoder with
 * another code from message SEQ on while the information bits carry on (paired with a
 * channel.update at_seq=SEQ on the daemon). Frames: one frame per message, or --split K messages
 * per frame; frame lengths are fixed (--frame-bits B) or drawn from a seeded schedule
 * (--frame-bits MIN:MAX) that the sink regenerates (common.h); a --switch to a code whose frames
 * carry k bits each (LDPC) sends frames of k bits from the switch on, which fecd-sink follows
 * from the output headers of the new code generation.
 *
 * Frames carry the code's information bits each (fec_info.frame_info_bits). --asm (feed_asm.c,
 * for frame codes with framing=asm) sends every frame behind the code's sync marker in one raw
 * stream instead.
 *
 * Test hooks: --skip-seq drops chosen messages (SUB gap counting), --inject-bad sends a table of
 * malformed native messages between the good ones (feed_wire.h), --stamps writes (seq, send time)
 * records for the sink's latency figures.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zmq.h>

#include "channel_model.h"
#include "fec.h"
#include "fecd_proto.h"
#include "prng.h"
#include "softbits.h"

#include "common.h"
#include "feed.h"
#include "feed_wire.h"

volatile sig_atomic_t feed_stop;

static void on_signal(int sig)
{
	(void)sig;
	feed_stop = 1;
}

/* The wire format of a code's messages: bit codes take --format, q-ary codes f32v (the bits
 * of a symbol in the family's order: nbldpc's bit_order). */
static int wire_format(const struct feed *f, const char *text, struct feed_code *fc)
{
	fc->format = f->o.format;
	fc->wire_q = 1;
	fc->sym_bits = 1;
	if (fc->info.in_kind != FEC_IN_F32_SYMLOGP) {
		if (f->o.format != FECD_FMT_F32V)
			return 0;
		fprintf(stderr,
		        "fecd-feed: --format f32v: code '%s' takes bit LLRs, not q-ary "
		        "symbols (in=f32v)\n",
		        text);
		return -1;
	}
	if (fc->spec.family != FECD_FAMILY_NBLDPC ||
	    (f->o.format_set && f->o.format != FECD_FMT_F32V) || f->o.polarity_one ||
	    f->o.gnuradio || f->o.asm_stream || f->o.replay) {
		fprintf(stderr,
		        "fecd-feed: code '%s' takes q-ary symbols (in=f32v): it is sent as f32v "
		        "(nbldpc), in native messages, with no other --format, --polarity one, "
		        "--gnuradio, --asm or --replay\n",
		        text);
		return -1;
	}
	fc->format = FECD_FMT_F32V;
	fc->wire_q = fc->info.in_q;
	fc->sym_bits = fc->spec.u.nbldpc.p;
	return 0;
}

/* Whether the ldpc family, reading the image at path, takes its first kbits bits as the
 * information in order (as nbldpc does when its own information symbols come first): 1 yes, 0 no,
 * -1 where the image does not load (err says why). */
static int image_info_first(const char *path, uint32_t kbits, char *err, size_t errlen)
{
	struct fec_info_range r[2];
	struct fec_decoder *dec = NULL;
	struct fec_spec spec;
	uint32_t unsent = 0;
	char text[600];
	int n;

	snprintf(text, sizeof(text), "ldpc,code=%s", path);
	if (fec_spec_from_string(text, &spec, err, errlen))
		return -1;
	if (fec_decoder_create(&spec, &dec)) {
		snprintf(err, errlen, "the ldpc family does not load it");
		return -1;
	}
	n = fec_decoder_info_ranges(dec, r, 2, &unsent);
	fec_decoder_destroy(dec);
	return n == 1 && !unsent && r[0].first == 0 && r[0].last + 1 == kbits;
}

/* --binary-image: the nbldpc code's binary image as an alist file; the exit status. */
static int write_binary_image(const char *text, const char *path)
{
	struct nbldpc_code *code;
	struct fec_spec spec;
	uint32_t kbits;
	char err[512];
	int same;

	if (fec_spec_from_string(text, &spec, err, sizeof(err))) {
		fprintf(stderr, "fecd-feed: code '%s': %s\n", text, err);
		return 2;
	}
	if (spec.family != FECD_FAMILY_NBLDPC) {
		fprintf(stderr, "fecd-feed: --binary-image: code '%s' is no nbldpc code\n", text);
		return 2;
	}
	if (nbldpc_binary_image_write(&spec.u.nbldpc, path, err, sizeof(err))) {
		fprintf(stderr, "fecd-feed: --binary-image: %s\n", err);
		return 1;
	}
	if (nbldpc_code_load(&spec.u.nbldpc, &code, err, sizeof(err)))
		return 1;
	kbits = code->k * code->gf.p;
	same = nbldpc_binary_image_same_info(code) ? image_info_first(path, kbits, err, sizeof(err))
	                                           : 0;
	if (same < 0) {
		fprintf(stderr, "fecd-feed: --binary-image: %s: %s\n", path, err);
		nbldpc_code_free(code);
		return 1;
	}
	printf("fecd-feed: %s: the binary image of %s, %u x %u bits%s\n", path, text,
	       code->m * code->gf.p, code->n * code->gf.p,
	       same ? ""
	            : " (note: the ldpc family's information bits on it are not nbldpc's: it takes "
	              "other columns as information, which its decoder's output follows)");
	nbldpc_code_free(code);
	return 0;
}

/* Builds the code from its text form; kind, units and frame limits come from its decoder. */
static int code_open(struct feed *f, const char *text, struct feed_code *fc)
{
	struct fec_decoder *dec;
	char err[1280];
	int rc;

	memset(fc, 0, sizeof(*fc));
	if (fec_spec_from_string(text, &fc->spec, err, sizeof(err))) {
		fprintf(stderr, "fecd-feed: code '%s': %s\n", text, err);
		return -1;
	}
	rc = fec_decoder_create(&fc->spec, &dec);
	if (rc) {
		fprintf(stderr, "fecd-feed: code '%s': %s\n", text, fec_strerror(rc));
		return -1;
	}
	fc->info = *fec_decoder_info(dec);
	fec_decoder_destroy(dec);
	rc = fec_encoder_create(&fc->spec, &fc->enc);
	if (rc) {
		fprintf(stderr, "fecd-feed: code '%s': no encoder: %s\n", text, fec_strerror(rc));
		return -1;
	}
	const struct fec_channel_link link = {
	    .ebn0_db = f->o.ebn0, .rate = fec_spec_rate(&fc->spec), .noiseless = f->o.noiseless};
	if (fec_channel_open(f->o.channel_model, &link, &fc->chan, err, sizeof(err))) {
		fprintf(stderr, "fecd-feed: --channel-model: %s\n", err);
		return -1;
	}
	fc->sigma = fc->chan.sigma;
	if (wire_format(f, text, fc))
		return -1;
	/* Automatic scale: the mean |LLR| (awgn: 2 / sigma^2, or 1 when noiseless) becomes 40 of
	 * int8's 127, leaving headroom for the noise's spread without wasting resolution. */
	double mean = fec_channel_llr_mean(&fc->chan);
	fc->scale = f->o.scale > 0.0f ? f->o.scale : (float)(40.0 / mean);
	return 0;
}

static void code_close(struct feed_code *fc)
{
	if (fc->enc)
		fec_encoder_destroy(fc->enc);
	fc->enc = NULL;
}

static bool code_is_frame(const struct feed_code *fc)
{
	return fc->info.kind == FEC_KIND_FRAME;
}

/* Information bits carried by one stream message of about msg_syms symbols: whole puncturing
 * periods, so every message ends on a period boundary. */
static size_t stream_msg_bits(const struct feed *f)
{
	const struct fec_info *in = &f->code.info;
	size_t units = f->o.msg_syms / in->unit_syms;

	return (units ? units : 1) * in->unit_bits;
}

static bool seq_skipped(const struct feed *f, uint64_t seq)
{
	for (unsigned i = 0; i < f->o.nskips; i++)
		if (f->o.skips[i] == seq)
			return true;
	return false;
}

static void pace(struct feed *f)
{
	if (f->o.rate <= 0.0)
		return;
	uint64_t due = f->t0 + (uint64_t)((double)f->syms * 1e9 / f->o.rate);
	struct timespec ts = {.tv_sec = (time_t)(due / 1000000000u),
	                      .tv_nsec = (long)(due % 1000000000u)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !feed_stop)
		;
}

/* Sends one ZMQ part; returns 0 or -1 after printing why (a timeout names the likely cause). */
static int send_part(struct feed *f, const void *buf, size_t len, int more)
{
	while (zmq_send(f->zsock, buf, len, more ? ZMQ_SNDMORE : 0) < 0) {
		if (errno == EINTR && !feed_stop)
			continue;
		if (errno == EAGAIN)
			fprintf(stderr,
			        "fecd-feed: send blocked for %d ms: is the daemon reading?\n",
			        f->o.send_timeout_ms);
		else if (!feed_stop)
			fprintf(stderr, "fecd-feed: zmq_send: %s\n", zmq_strerror(errno));
		return -1;
	}
	return 0;
}

size_t feed_modulate_llr(struct feed *f, size_t nbits)
{
	size_t nsyms = 0, nrx = 0;
	int rc;

	if (fec_encoded_len(&f->code.spec, nbits) > f->cap_syms) {
		fprintf(stderr,
		        "fecd-feed: %zu bits of this code do not fit the buffers sized for the "
		        "first code; lower --msg-syms or --frame-bits\n",
		        nbits);
		return 0;
	}
	rc = fec_encode(f->code.enc, f->bits, nbits, f->cbits, &nsyms);
	if (rc) {
		fprintf(stderr, "fecd-feed: encoding %zu bits: %s%s\n", nbits, fec_strerror(rc),
		        code_is_frame(&f->code) && f->code.info.unit_bits > 1
		            ? " (a frame of a punctured code must fill whole puncturing periods, "
		              "tail included: pick lengths with --frame-bits MIN:MAX:STEP)"
		            : "");
		return 0;
	}
	if (fec_channel_max_out_len(&f->code.chan, nsyms) > f->cap_rx) {
		fprintf(stderr,
		        "fecd-feed: %zu code bits through this channel do not fit the "
		        "buffers sized for the first code; lower --msg-syms or --frame-bits\n",
		        nsyms);
		return 0;
	}
	rc = fec_channel_apply(&f->code.chan, &f->noise, f->cbits, nsyms, f->llr, &nrx);
	if (rc) {
		fprintf(stderr, "fecd-feed: channel %s: %s\n", f->code.chan.model->name,
		        fec_strerror(rc));
		return 0;
	}
	return nrx;
}

/* feed_modulate_llr, then quantized into f->wire. */
static size_t modulate(struct feed *f, size_t nbits)
{
	const struct feed_code *fc = &f->code;
	size_t nsyms = feed_modulate_llr(f, nbits);

	if (nsyms && fc->format == FECD_FMT_F32V) {
		/* q-ary symbols of sym_bits code bits: the protocol's f32v is host float32, which
		 * softbits.c requires to be little-endian */
		nsyms /= fc->sym_bits;
		nbldpc_llr_to_symlogp(f->llr, nsyms, fc->sym_bits, fc->spec.u.nbldpc.bit_order,
		                      (float *)(void *)f->wire);
	} else if (nsyms) {
		/* --invert without --asm: every symbol negated and not said so, as a receiver whose
		 * sign convention is the other way round sends them */
		if (f->o.invert_to)
			for (size_t i = 0; i < nsyms; i++)
				f->llr[i] = -f->llr[i];
		fec_llr_quantize(fc->format, f->llr, nsyms, f->o.polarity_one, fc->scale, f->wire);
	}
	return nsyms;
}

static void write_stamp(struct feed *f, uint64_t seq)
{
	uint8_t rec[STAMP_RECORD_LEN];

	put_le64(rec, seq);
	put_le64(rec + 8, now_ns());
	fwrite(rec, 1, sizeof(rec), f->stamps);
}

/* gr-zeromq sends items alone, or behind a pass_tags header: one part either way. */
static int send_gnuradio(struct feed *f, uint64_t seq, const uint8_t *items, size_t len, size_t n)
{
	size_t hlen = 0;

	if (f->o.gr_tags)
		hlen = gr_tag_header_write(f->grmsg, f->items_sent,
		                           seq == f->o.seq_start || seq % 16 == 0, f->o.seed);
	memcpy(f->grmsg + hlen, items, len);
	if (send_part(f, f->grmsg, hlen + len, 0))
		return -1;
	f->items_sent += n;
	return 0;
}

static int send_native(struct feed *f, uint64_t seq, const uint8_t *payload, size_t len, size_t n,
                       uint16_t flags, uint32_t frame_len)
{
	struct fecd_in_hdr h = {
	    .version = FECD_PROTO_VERSION,
	    .type = FECD_MSG_SYMBOLS,
	    .hdr_len = FECD_IN_HDR_LEN,
	    .channel = f->o.channel,
	    .format = (uint8_t)f->code.format,
	    .flags = (uint16_t)(flags | (f->o.polarity_one ? FECD_IN_POLARITY_ONE : 0)),
	    .seq = seq,
	    .symbol_count = (uint32_t)n,
	    .frame_len = frame_len,
	};
	uint8_t hdr[FECD_IN_HDR_LEN];

	fecd_in_hdr_pack(&h, hdr);
	if (send_part(f, hdr, sizeof(hdr), 1) || send_part(f, payload, len, 0))
		return -1;
	if (f->o.inject_bad && f->bad_sent < feed_bad_count()) {
		if (feed_bad_send(f->zsock, &h, payload, len, (unsigned)f->bad_sent))
			return -1;
		f->bad_sent++;
	}
	if (f->o.oversize_set && seq == f->o.oversize_after) {
		if (feed_oversize_send(f->zsock, &h))
			return -1;
		f->oversize_sent++;
	}
	return 0;
}

int feed_send_wire(struct feed *f, const uint8_t *wire, size_t n, uint16_t flags,
                   uint32_t frame_len)
{
	size_t len = fecd_format_bytes_q(f->code.format, n, f->code.wire_q);
	uint64_t seq = f->seq++;
	int rc;

	if (seq_skipped(f, seq)) {
		f->skipped++;
		return 0;
	}
	pace(f);
	if (f->stamps) {
		write_stamp(f, seq);
		/* The sink reads the stamps once it has the end of the stream: they must be in the
		 * file before the message that ends it leaves. */
		if (flags & FECD_IN_END_OF_STREAM)
			fflush(f->stamps);
	}
	if (f->o.gnuradio)
		rc = send_gnuradio(f, seq, wire, len, n);
	else
		rc = send_native(f, seq, wire, len, n, flags, frame_len);
	if (rc)
		return -1;
	f->msgs++;
	f->syms += n;
	return 0;
}

/* Sends symbols [first, first + n) of the modulated buffer as one message. */
static int send_msg(struct feed *f, size_t first, size_t n, uint16_t flags, uint32_t frame_len)
{
	if (f->o.format == FECD_FMT_S4_PACKED && (first & 1)) {
		fprintf(stderr, "fecd-feed: s4 messages must start on a byte boundary\n");
		return -1;
	}
	return feed_send_wire(f,
	                      f->wire + fecd_format_bytes_q(f->code.format, first, f->code.wire_q),
	                      n, flags, frame_len);
}

/* The switch that takes effect at message seq, if any. */
static const char *switch_at(const struct feed *f, uint64_t seq)
{
	for (unsigned i = 0; i < f->o.nswitches; i++)
		if (f->o.switches[i].seq == seq)
			return f->o.switches[i].code;
	return NULL;
}

static int apply_switch(struct feed *f)
{
	const char *text = switch_at(f, f->seq);
	struct feed_code next;

	if (!text)
		return 0;
	if (code_open(f, text, &next))
		return -1;
	if (next.format != f->code.format || next.wire_q != f->code.wire_q) {
		fprintf(stderr,
		        "fecd-feed: --switch %s: the codes take different input (bit LLRs, or "
		        "q-ary symbols of another q): not supported\n",
		        text);
		code_close(&next);
		return -1;
	}
	if (code_is_frame(&next) != code_is_frame(&f->code)) {
		fprintf(stderr,
		        "fecd-feed: --switch %s: cannot switch between stream and frame "
		        "codes\n",
		        text);
		code_close(&next);
		return -1;
	}
	code_close(&f->code);
	f->code = next;
	return 0;
}

/* --bit-start: the encoder runs through the bits an earlier run sent, so that the symbols sent
 * next continue its stream (its state and puncturing phase as after those bits). */
static int skip_to_bit_start(struct feed *f)
{
	size_t chunk = stream_msg_bits(f), nsyms;

	if (f->o.bit_start % f->code.info.unit_bits) {
		fprintf(stderr,
		        "fecd-feed: --bit-start %" PRIu64 ": expected a multiple of %u, the code's "
		        "puncturing period in bits\n",
		        f->o.bit_start, f->code.info.unit_bits);
		return -1;
	}
	while (f->info_bits < f->o.bit_start) {
		size_t n =
		    f->o.bit_start - f->info_bits < chunk ? f->o.bit_start - f->info_bits : chunk;

		if (info_source_read(&f->src, f->info_bits, n, f->bits) ||
		    fec_encode(f->code.enc, f->bits, n, f->cbits, &nsyms)) {
			fprintf(stderr,
			        "fecd-feed: --bit-start %" PRIu64 ": cannot read or encode "
			        "the bits before it\n",
			        f->o.bit_start);
			return -1;
		}
		f->info_bits += n;
	}
	return 0;
}

static int run_stream(struct feed *f)
{
	uint64_t left = f->o.bits;

	if (skip_to_bit_start(f))
		return -1;
	while (left && !feed_stop) {
		if (apply_switch(f))
			return -1;
		size_t nbits = stream_msg_bits(f);
		if (nbits > f->cap_bits) {
			fprintf(stderr, "fecd-feed: --switch code needs larger messages than the "
			                "first code; lower --msg-syms\n");
			return -1;
		}
		if (nbits >= left) {
			/* A punctured stream only ends cleanly on a whole period: round up with
			 * more bits of the same source rather than send a symbol fecd cannot use.
			 */
			size_t unit = f->code.info.unit_bits, want = (size_t)left;

			nbits = want % unit ? want + unit - want % unit : want;
			if (nbits != want)
				fprintf(
				    stderr,
				    "fecd-feed: note: %zu bits in the last message instead of %zu, "
				    "to end on a whole puncturing period\n",
				    nbits, want);
			left = nbits;
		}
		size_t nsyms;
		if (f->o.replay) {
			nsyms = fec_encoded_len(&f->code.spec, nbits);
			feed_replay_read(&f->replay, f->replay_pos, nsyms, f->wire);
			f->replay_pos += nsyms;
		} else {
			if (info_source_read(&f->src, f->info_bits, nbits, f->bits))
				goto short_file;
			nsyms = modulate(f, nbits);
		}
		if (!nsyms)
			return -1;
		left -= nbits;
		uint16_t flags =
		    (!left && !f->o.no_eos && !f->o.gnuradio) ? FECD_IN_END_OF_STREAM : 0;
		if (send_msg(f, 0, nsyms, flags, 0))
			return -1;
		f->info_bits += nbits;
	}
	return 0;
short_file:
	fprintf(stderr, "fecd-feed: %s holds only %" PRIu64 " bits\n", f->o.input,
	        info_source_len(&f->src));
	return -1;
}

/* A --switch at frame fr's first message: a code whose frames carry k information bits each
 * takes frames of k bits from fr on (fecd-sink follows it from the output headers). Returns 0,
 * or -1 after printing why. */
static int frame_switch(struct feed *f, uint64_t fr)
{
	const char *text = switch_at(f, f->seq);
	uint32_t k;

	if (!text)
		return 0;
	if (apply_switch(f))
		return -1;
	k = f->code.info.frame_info_bits;
	if (!k)
		return 0;
	if (k > f->cap_bits) {
		fprintf(stderr,
		        "fecd-feed: --switch %s: frames of %u bits do not fit the buffers\n", text,
		        k);
		return -1;
	}
	const struct frame_sched fixed = {.min_bits = k, .max_bits = k, .step = 1};
	if (frame_table_switch(&f->frames, fr, &fixed)) {
		fprintf(stderr, "fecd-feed: out of memory\n");
		return -1;
	}
	return 0;
}

static int run_frames(struct feed *f)
{
	for (uint64_t fr = 0; fr < f->o.frames && !feed_stop; fr++) {
		uint64_t first_bit;
		uint32_t nbits;

		if (frame_switch(f, fr) || frame_table_get(&f->frames, fr, &first_bit, &nbits)) {
			fprintf(stderr, "fecd-feed: out of memory\n");
			return -1;
		}
		if (info_source_read(&f->src, first_bit, nbits, f->bits)) {
			fprintf(stderr, "fecd-feed: %s ends before frame %" PRIu64 "\n", f->o.input,
			        fr);
			return -1;
		}
		size_t nsyms = modulate(f, nbits);
		if (!nsyms)
			return -1;
		size_t per = (nsyms + f->o.split - 1) / f->o.split;

		if (f->o.format == FECD_FMT_S4_PACKED)
			per += per & 1;
		for (size_t first = 0; first < nsyms; first += per) {
			size_t n = nsyms - first < per ? nsyms - first : per;
			uint16_t flags = 0;

			if (first == 0)
				flags |= FECD_IN_FRAME_START;
			if (first + n == nsyms) {
				flags |= FECD_IN_FRAME_END;
				if (fr + 1 == f->o.frames && !f->o.no_eos)
					flags |= FECD_IN_END_OF_STREAM;
			}
			if (send_msg(f, first, n, flags, (uint32_t)nsyms))
				return -1;
		}
		f->info_bits += nbits;
		f->frames_sent++;
	}
	return 0;
}

/* A file that cannot supply every bit asked for is refused before anything is sent, so a run
 * never stops half way without its END_OF_STREAM. */
static bool input_too_short(struct feed *f)
{
	uint64_t need = f->o.bits, first = 0;
	uint32_t last = 0;

	if (code_is_frame(&f->code) && f->o.frames) {
		if (frame_table_get(&f->frames, f->o.frames - 1, &first, &last)) {
			fprintf(stderr, "fecd-feed: out of memory\n");
			return true;
		}
		need = first + last;
	}
	if (need <= info_source_len(&f->src))
		return false;
	fprintf(stderr, "fecd-feed: %s holds %" PRIu64 " bits; %" PRIu64 " are needed\n",
	        f->o.input, info_source_len(&f->src), need);
	return true;
}

/* How long the feed waits at its end for a peer, when none has connected yet: its linger time. */
#define FEED_PEER_WAIT_MS 10000

static int open_socket(struct feed *f)
{
	int linger = FEED_PEER_WAIT_MS;

	f->zctx = zmq_ctx_new();
	f->zsock = f->zctx ? zmq_socket(f->zctx, f->o.sock_type) : NULL;
	if (!f->zsock) {
		fprintf(stderr, "fecd-feed: zmq socket: %s\n", zmq_strerror(errno));
		return -1;
	}
	zmq_setsockopt(f->zsock, ZMQ_SNDHWM, &f->o.hwm, sizeof(f->o.hwm));
	zmq_setsockopt(f->zsock, ZMQ_LINGER, &linger, sizeof(linger));
	if (f->o.send_timeout_ms >= 0)
		zmq_setsockopt(f->zsock, ZMQ_SNDTIMEO, &f->o.send_timeout_ms,
		               sizeof(f->o.send_timeout_ms));
	if (client_curve_setup(f->zsock, f->o.curve_secret, f->o.curve_server, f->o.bind,
	                       "fecd-feed"))
		return -1;
	/* Told when a peer completes its handshake: messages sent with none are only queued, and
	 * lost when the feed exits (peer_seen). */
	if (zmq_socket_monitor(f->zsock, "inproc://fecd-feed-monitor",
	                       ZMQ_EVENT_HANDSHAKE_SUCCEEDED) == 0) {
		f->zmon = zmq_socket(f->zctx, ZMQ_PAIR);
		if (f->zmon && zmq_connect(f->zmon, "inproc://fecd-feed-monitor")) {
			zmq_close(f->zmon);
			f->zmon = NULL;
		}
	}
	if ((f->o.bind ? zmq_bind : zmq_connect)(f->zsock, f->o.endpoint)) {
		fprintf(stderr, "fecd-feed: %s %s: %s\n", f->o.bind ? "bind" : "connect",
		        f->o.endpoint, zmq_strerror(errno));
		return -1;
	}
	return 0;
}

/* Whether a peer has completed a handshake, waiting at most wait_ms for one. True where the
 * monitor could not be set up (nothing known: no warning). */
static bool peer_seen(struct feed *f, int wait_ms)
{
	uint64_t until = now_ns() + (uint64_t)wait_ms * 1000000u;

	if (!f->zmon)
		return true;
	while (!f->peer_seen) {
		int64_t left = (int64_t)(until - now_ns()) / 1000000;
		zmq_pollitem_t pi = {.socket = f->zmon, .events = ZMQ_POLLIN};
		zmq_msg_t ev;

		if (left < 0 || zmq_poll(&pi, 1, (long)left) <= 0)
			break;
		/* An event is two parts: the event number and value, then the endpoint. */
		zmq_msg_init(&ev);
		if (zmq_msg_recv(&ev, f->zmon, 0) >= 0 && zmq_msg_size(&ev) >= 2) {
			const uint8_t *d = zmq_msg_data(&ev);
			if ((d[0] | d[1] << 8) == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
				f->peer_seen = true;
		}
		while (zmq_msg_more(&ev) && zmq_msg_recv(&ev, f->zmon, 0) >= 0)
			;
		zmq_msg_close(&ev);
	}
	return f->peer_seen;
}

/* The most information bits a frame of any --switch code carries (its fec_info.frame_info_bits),
 * so that the buffers hold them; 0 where none fixes it, or -1 after printing why. */
static int64_t switch_frame_bits_max(struct feed *f)
{
	int64_t most = 0;

	for (unsigned i = 0; i < f->o.nswitches; i++) {
		struct feed_code fc;

		if (code_open(f, f->o.switches[i].code, &fc))
			return -1;
		if (fc.info.frame_info_bits > most)
			most = fc.info.frame_info_bits;
		code_close(&fc);
	}
	return most;
}

static int alloc_buffers(struct feed *f)
{
	if (code_is_frame(&f->code)) {
		int64_t most = switch_frame_bits_max(f);

		if (most < 0)
			return -1;
		f->cap_bits = f->o.sched.max_bits;
		if ((uint64_t)most > f->cap_bits)
			f->cap_bits = (size_t)most;
		/* in wire symbols: q-ary codes send one per sym_bits code bits */
		if (f->code.info.max_frame_syms &&
		    fec_encoded_len(&f->code.spec, f->o.sched.max_bits) / f->code.sym_bits >
		        f->code.info.max_frame_syms) {
			fprintf(stderr,
			        "fecd-feed: --frame-bits %u is longer than the code's frames "
			        "(max_frame_bits)\n",
			        f->o.sched.max_bits);
			return -1;
		}
	} else {
		/* A message of msg_syms symbols never carries more bits than symbols (rate <= 1).
		 */
		f->cap_bits =
		    f->o.msg_syms > stream_msg_bits(f) ? f->o.msg_syms : stream_msg_bits(f);
	}
	/* Room for later --switch codes of lower rate: up to 4 symbols per bit plus a period. */
	f->cap_syms = fec_encoded_len(&f->code.spec, f->cap_bits);
	if (f->cap_syms < 4 * f->cap_bits + 64)
		f->cap_syms = 4 * f->cap_bits + 64;
	/* What the channel gives for them (a model with insertions gives more). */
	f->cap_rx = fec_channel_max_out_len(&f->code.chan, f->cap_syms);
	f->bits = malloc(f->cap_bits);
	f->cbits = malloc(f->cap_syms);
	f->llr = malloc(f->cap_rx * sizeof(float));
	/* f32v: q floats per symbol of sym_bits received values (--switch keeps the format and q)
	 */
	f->wire = malloc((f->cap_rx / f->code.sym_bits + 1) * f->code.wire_q * sizeof(float));
	f->grmsg = f->o.gnuradio ? malloc(GR_TAG_HEADER_MAX + f->cap_rx * sizeof(float)) : NULL;
	if (!f->bits || !f->cbits || !f->llr || !f->wire || (f->o.gnuradio && !f->grmsg)) {
		fprintf(stderr, "fecd-feed: out of memory\n");
		return -1;
	}
	return 0;
}

/* --replay: the period rounded up to whole puncturing periods; s4 also needs whole bytes. */
static int replay_open(struct feed *f)
{
	const struct feed_code *fc = &f->code;
	uint64_t unit = fc->info.unit_bits, p = (f->o.replay + unit - 1) / unit * unit;
	int rc;

	if (code_is_frame(fc)) {
		fprintf(stderr, "fecd-feed: --replay is for stream codes\n");
		return -1;
	}
	if (f->o.format == FECD_FMT_S4_PACKED && (fec_encoded_len(&fc->spec, p) & 1))
		p *= 2;
	rc = feed_replay_build(&f->replay, &fc->spec, f->o.seed, p, &fc->chan, fc->scale,
	                       f->o.format, f->o.polarity_one, &f->noise);
	if (rc) {
		fprintf(stderr, "fecd-feed: --replay %" PRIu64 ": %s%s\n", p, fec_strerror(rc),
		        rc == -FEC_ENOTSUP ? " (the channel model changes the length)" : "");
		return -1;
	}
	if (p != f->o.replay)
		fprintf(stderr, "fecd-feed: note: --replay period %" PRIu64 " bits\n", p);
	return 0;
}

int main(int argc, char **argv)
{
	struct feed f = {0};
	int rc = 1;

	rc = feed_parse_args(argc, argv, &f.o);
	if (rc)
		return rc > 0 ? 0 : 2;
	rc = 1;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (f.o.binary_image)
		return write_binary_image(f.o.code, f.o.binary_image);
	if (code_open(&f, f.o.code, &f.code))
		goto out;
	/* Codes whose frames carry a fixed number of information bits (fec_info.frame_info_bits):
	 * that is the frame length unless given. */
	if (f.code.info.frame_info_bits) {
		uint32_t k = f.code.info.frame_info_bits;
		if (!f.o.sched_set)
			f.o.sched = (struct frame_sched){.min_bits = k, .max_bits = k, .step = 1};
		if (f.o.sched.min_bits != k || f.o.sched.max_bits != k) {
			fprintf(stderr,
			        "fecd-feed: --frame-bits: this code's frames carry %u bits\n", k);
			goto out_code;
		}
	}
	if (info_source_open(&f.src, f.o.input, f.o.seed, "fecd-feed"))
		goto out_code;
	if (f.o.input && !f.o.bits_set)
		f.o.bits = info_source_len(&f.src) > f.o.bit_start
		               ? info_source_len(&f.src) - f.o.bit_start
		               : 0;
	if (f.o.bit_start && (code_is_frame(&f.code) || f.o.nswitches)) {
		fprintf(stderr,
		        "fecd-feed: --bit-start is for one stream code, without --switch\n");
		goto out_src;
	}
	if (frame_table_init(&f.frames, &f.o.sched, f.o.seed))
		goto out_src;
	if (f.o.input && input_too_short(&f))
		goto out_frames;
	fec_prng_seed(&f.noise, f.o.seed ^ FEED_NOISE_SEED_XOR);
	f.seq = f.o.seq_start;
	if (alloc_buffers(&f) || open_socket(&f))
		goto out_sock;
	if (f.o.replay && replay_open(&f))
		goto out_sock;
	if (f.o.stamps && !(f.stamps = fopen(f.o.stamps, "wb"))) {
		fprintf(stderr, "fecd-feed: %s: %s\n", f.o.stamps, strerror(errno));
		goto out_sock;
	}
	if (f.o.start_delay_ms > 0) {
		struct timespec ts = {f.o.start_delay_ms / 1000,
		                      (f.o.start_delay_ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	f.t0 = now_ns();
	if (f.o.asm_stream)
		rc = feed_run_asm(&f);
	else
		rc = code_is_frame(&f.code) ? run_frames(&f) : run_stream(&f);
	rc = rc ? 1 : 0;
	double secs = (double)(now_ns() - f.t0) * 1e-9;
	printf("fecd-feed: messages=%" PRIu64 " symbols=%" PRIu64 " bits=%" PRIu64
	       " frames=%" PRIu64 " bad=%" PRIu64 " oversize=%" PRIu64 " skipped=%" PRIu64
	       " junk=%" PRIu64 " seconds=%.3f rate=%.0f sym/s%s\n",
	       f.msgs, f.syms, f.info_bits - f.o.bit_start, f.frames_sent, f.bad_sent,
	       f.oversize_sent, f.skipped, f.junk_sent, secs,
	       secs > 0 ? (double)f.syms / secs : 0.0, feed_stop ? " (interrupted)" : "");
	fflush(stdout);
	/* What was sent is queued until a peer takes it: with none after the linger time, it is
	 * lost, and the feed did not deliver what it says it sent. */
	if (!rc && !feed_stop && f.msgs && !peer_seen(&f, FEED_PEER_WAIT_MS)) {
		fprintf(stderr,
		        "fecd-feed: no peer connected to %s within %d s: the %" PRIu64
		        " messages were not delivered (is fecd running, with this endpoint?)\n",
		        f.o.endpoint, FEED_PEER_WAIT_MS / 1000, f.msgs);
		rc = 1;
	}
	if (f.stamps && fclose(f.stamps)) {
		fprintf(stderr, "fecd-feed: %s: %s\n", f.o.stamps, strerror(errno));
		rc = 1;
	}
out_sock:
	if (f.zsock) {
		if (rc || feed_stop) {
			int zero = 0;
			zmq_setsockopt(f.zsock, ZMQ_LINGER, &zero, sizeof(zero));
		}
		zmq_close(f.zsock);
	}
	if (f.zmon)
		zmq_close(f.zmon);
	if (f.zctx)
		zmq_ctx_term(f.zctx);
	free(f.bits);
	free(f.cbits);
	free(f.llr);
	free(f.wire);
	free(f.grmsg);
	feed_replay_free(&f.replay);
out_frames:
	frame_table_free(&f.frames);
out_src:
	info_source_close(&f.src);
out_code:
	code_close(&f.code);
out:
	return rc;
}
