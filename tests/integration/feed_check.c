/*
 * it-feedcheck: receives what fecd-feed sends and compares every message, byte for byte, with
 * the feed's output as it was before channel models (codec/channel_model.h) existed, rebuilt here
 * from the codec's primitives alone:
 *   - information bits: the seeded bit stream (fec_bitstream, --seed), read in order;
 *   - streams: messages of (msg_syms / unit_syms) whole units of unit_bits bits, the encoder
 *     running on from message to message; frames: one message per frame of the code's own
 *     information bits (fec_info.frame_info_bits) or FRAME_BITS;
 *   - noise: a PRNG seeded with seed ^ FEED_NOISE_SEED_XOR, running on across messages, through
 *     fec_awgn_llr at sigma = fec_awgn_sigma(Eb/N0, code rate) (0 noiseless, LLR +-1);
 *   - quantized with fec_llr_quantize at scale 40 / mean LLR (2 / sigma^2; 1 noiseless).
 * fecd-feed on its default channel model (awgn) must send exactly this.
 *     it-feedcheck ENDPOINT MESSAGES SEED CODE EBN0|noiseless FORMAT MSG_SYMS FRAME_BITS
 * binds a PULL socket on ENDPOINT, checks MESSAGES messages (header and payload), and exits 0 when
 * all match, 1 at the first difference (said on stderr), 2 on a usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "awgn.h"
#include "common.h"
#include "fec.h"
#include "fecd_proto.h"
#include "prng.h"
#include "softbits.h"

struct recipe {
	struct fec_spec spec;
	struct fec_info info;
	struct fec_encoder *enc;
	struct fec_bitstream bits;
	struct fec_prng noise;
	double sigma;
	float scale;
	int format;
	uint32_t msg_syms, frame_bits;
	uint8_t *ib, *cb, *wire;
	float *llr;
	size_t cap;
};

static int recipe_open(struct recipe *r, char **argv)
{
	char err[256];
	struct fec_decoder *dec;
	uint64_t seed = strtoull(argv[3], NULL, 0);

	memset(r, 0, sizeof(*r));
	if (fec_spec_from_string(argv[4], &r->spec, err, sizeof(err))) {
		fprintf(stderr, "it-feedcheck: %s: %s\n", argv[4], err);
		return -1;
	}
	if (fec_decoder_create(&r->spec, &dec) || fec_encoder_create(&r->spec, &r->enc)) {
		fprintf(stderr, "it-feedcheck: %s: no decoder or encoder\n", argv[4]);
		return -1;
	}
	r->info = *fec_decoder_info(dec);
	fec_decoder_destroy(dec);
	fec_bitstream_init(&r->bits, seed);
	fec_prng_seed(&r->noise, seed ^ FEED_NOISE_SEED_XOR);
	r->sigma = strcmp(argv[5], "noiseless")
	               ? fec_awgn_sigma(atof(argv[5]), fec_spec_rate(&r->spec))
	               : 0.0;
	r->scale = (float)(40.0 / (r->sigma > 0.0 ? 2.0 / (r->sigma * r->sigma) : 1.0));
	r->format = fecd_format_from_name(argv[6]);
	r->msg_syms = (uint32_t)strtoul(argv[7], NULL, 0);
	r->frame_bits =
	    r->info.frame_info_bits ? r->info.frame_info_bits : (uint32_t)strtoul(argv[8], NULL, 0);
	r->cap = 4 * (size_t)(r->msg_syms > r->frame_bits ? r->msg_syms : r->frame_bits) + 4096;
	r->ib = malloc(r->cap);
	r->cb = malloc(r->cap);
	r->llr = malloc(r->cap * sizeof(float));
	r->wire = malloc(r->cap * sizeof(float));
	if (r->format < 0 || !r->msg_syms || !r->ib || !r->cb || !r->llr || !r->wire) {
		fprintf(stderr, "it-feedcheck: bad format or sizes\n");
		return -1;
	}
	return 0;
}

/* The next message's symbols into r->wire; returns their count, or 0. */
static size_t recipe_next(struct recipe *r)
{
	size_t nbits, n = 0;

	if (r->info.kind == FEC_KIND_FRAME) {
		nbits = r->frame_bits;
	} else {
		size_t units = r->msg_syms / r->info.unit_syms;
		nbits = (units ? units : 1) * r->info.unit_bits;
	}
	if (fec_encoded_len(&r->spec, nbits) > r->cap)
		return 0;
	fec_bitstream_read(&r->bits, r->ib, nbits);
	if (fec_encode(r->enc, r->ib, nbits, r->cb, &n))
		return 0;
	fec_awgn_llr(&r->noise, r->cb, n, r->sigma, 1.0f, r->llr);
	fec_llr_quantize(r->format, r->llr, n, false, r->scale, r->wire);
	return n;
}

/* Receives one message of two parts into hdr and payload; returns the payload size or -1. */
static int receive(void *sock, struct fecd_in_hdr *h, zmq_msg_t *payload)
{
	zmq_msg_t head;
	int rc;

	zmq_msg_init(&head);
	if (zmq_msg_recv(&head, sock, 0) < 0 || !zmq_msg_more(&head) ||
	    zmq_msg_recv(payload, sock, 0) < 0) {
		fprintf(stderr, "it-feedcheck: receive: %s\n", zmq_strerror(errno));
		zmq_msg_close(&head);
		return -1;
	}
	rc = fecd_in_hdr_parse(zmq_msg_data(&head), zmq_msg_size(&head), h);
	zmq_msg_close(&head);
	if (rc) {
		fprintf(stderr, "it-feedcheck: header: %s\n", fecd_proto_strerror(rc));
		return -1;
	}
	return (int)zmq_msg_size(payload);
}

int main(int argc, char **argv)
{
	struct recipe r;
	void *ctx, *sock;
	int timeout = 20000, rc = 1;
	uint64_t want;

	if (argc != 9) {
		fprintf(stderr, "usage: it-feedcheck ENDPOINT MESSAGES SEED CODE EBN0|noiseless "
		                "FORMAT MSG_SYMS FRAME_BITS\n");
		return 2;
	}
	want = strtoull(argv[2], NULL, 0);
	if (recipe_open(&r, argv))
		return 2;
	ctx = zmq_ctx_new();
	sock = zmq_socket(ctx, ZMQ_PULL);
	zmq_setsockopt(sock, ZMQ_RCVTIMEO, &timeout, sizeof(timeout));
	if (zmq_bind(sock, argv[1])) {
		fprintf(stderr, "it-feedcheck: bind %s: %s\n", argv[1], zmq_strerror(errno));
		return 2;
	}
	for (uint64_t i = 0; i < want; i++) {
		struct fecd_in_hdr h;
		zmq_msg_t payload;
		size_t n = recipe_next(&r), len = fecd_format_bytes(r.format, n);
		int got;

		zmq_msg_init(&payload);
		got = receive(sock, &h, &payload);
		if (got < 0 || !n) {
			zmq_msg_close(&payload);
			fprintf(stderr, "it-feedcheck: message %" PRIu64 ": %s\n", i,
			        n ? "not received" : "the recipe failed");
			goto out;
		}
		const uint8_t *p = zmq_msg_data(&payload);
		size_t at = 0;

		while (at < len && at < (size_t)got && p[at] == r.wire[at])
			at++;
		zmq_msg_close(&payload);
		if (h.seq != i || h.format != r.format || h.symbol_count != n ||
		    (size_t)got != len || at != len) {
			fprintf(stderr,
			        "it-feedcheck: message %" PRIu64 " differs: seq %" PRIu64
			        " format %u, %" PRIu32 " symbols in %d bytes; expected seq %" PRIu64
			        " format %d, %zu symbols in %zu bytes; payloads differ from byte "
			        "%zu\n",
			        i, h.seq, h.format, h.symbol_count, got, i, r.format, n, len, at);
			goto out;
		}
	}
	printf("it-feedcheck: %" PRIu64 " messages identical\n", want);
	rc = 0;
out:
	zmq_close(sock);
	zmq_ctx_term(ctx);
	fec_encoder_destroy(r.enc);
	free(r.ib);
	free(r.cb);
	free(r.llr);
	free(r.wire);
	return rc;
}
