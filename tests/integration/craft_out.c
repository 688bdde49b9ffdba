/*
 * it-craft: sends hand-made fecd output messages, as a hostile or broken publisher would, so the
 * tests can check what fecd-sink does with numbers no honest fecd sends. It binds a PUSH socket
 * on ENDPOINT, waits for a peer, sends one message per KIND:VALUE argument and lingers until they
 * have left:
 *   frame:SEQ    a 64-bit decoded frame whose first input message is sender sequence SEQ
 *   stream:OFF   a stream message of 64 decoded bits at decoded-bit offset OFF
 *   eos:SEQ      a frame message like frame:SEQ, flagged END_OF_STREAM (the sender's end)
 *   unconv:SEQ   a frame like frame:SEQ with status not_converged (its bits all 0, as frame's)
 *   short:SEQ    a frame like frame:SEQ of 32 bits
 *   soft:SEQ     a frame like frame:SEQ whose bits alternate 1010..., with 64 soft values that
 *                agree with them (bit LLRs: negative for a 1) and one of exactly 0
 *   softsign:SEQ the same with the LLR of bit 5 of the wrong sign
 *   softcount:SEQ the same with 63 soft values for its 64 bits
 *   softsym:SEQ  an ids frame like soft:SEQ (16 symbols of 4 bits, each 1010 = 10), with q = 16
 *                log-probabilities per symbol (sym_logp) whose most probable value is 10 and
 *                which sum to 1
 *   softsymbad:SEQ the same with symbol 3's most probable value 5, and symbol 7's summing to 2
 * Exit status 0 when every message was sent, 1 otherwise, 2 on a usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "fecd_proto.h"

/* 64 float32 little-endian bit LLRs for bits 1010...: -2.5 for a 1, +2.5 for a 0, 0 for bit 9
 * (no preference), bit 5 negated when wrong_sign. */
static void soft_values(uint8_t *out, bool wrong_sign)
{
	for (unsigned i = 0; i < 64; i++) {
		float v = i % 2 == 0 ? -2.5f : 2.5f;
		uint32_t u;

		if (i == 9)
			v = 0.0f;
		if (i == 5 && wrong_sign)
			v = -v;
		memcpy(&u, &v, sizeof(u));
		for (unsigned b = 0; b < 4; b++)
			out[4 * i + b] = (uint8_t)(u >> (8 * b));
	}
}

/* 16 symbols of 16 float32 little-endian log-probabilities: 0.85 for the value 10, 0.01 for
 * each other; when wrong, symbol 3 favours 5 instead and symbol 7's are twice as large. */
static void sym_values(uint8_t *out, bool wrong)
{
	for (unsigned i = 0; i < 16 * 16; i++) {
		const unsigned sym = i / 16, a = i % 16;
		const unsigned best = wrong && sym == 3 ? 5 : 10;
		float v = logf(a == best ? 0.85f : 0.01f);
		uint32_t u;

		if (wrong && sym == 7)
			v += logf(2.0f);
		memcpy(&u, &v, sizeof(u));
		for (unsigned b = 0; b < 4; b++)
			out[4 * i + b] = (uint8_t)(u >> (8 * b));
	}
}

static int send_msg(void *sock, const char *kind, uint64_t value)
{
	struct fecd_out_hdr h = {
	    .version = FECD_PROTO_VERSION,
	    .type = FECD_MSG_DECODED,
	    .hdr_len = FECD_OUT_HDR_LEN,
	    .channel = 1,
	    .family = FECD_FAMILY_VITERBI,
	    .status = FECD_STATUS_DECODED,
	    .code_gen = 1,
	    .payload_bits = 64,
	};
	uint8_t hdr[FECD_OUT_HDR_LEN], bits[8] = {0}, soft[16 * 16 * 4];
	bool with_soft = strncmp(kind, "soft", 4) == 0;

	if (strncmp(kind, "softsym", 7) == 0) {
		if (strcmp(kind, "softsym") && strcmp(kind, "softsymbad")) {
			fprintf(stderr, "it-craft: unknown kind '%s'\n", kind);
			return 2;
		}
		h.in_seq = value;
		h.family = FECD_FAMILY_IDS;
		h.flags = FECD_OUT_SOFT;
		h.soft_kind = FECD_SOFT_SYM_LOGP;
		h.soft_per_unit = 16;
		h.soft_count = 16 * 16;
		memset(bits, 0xaa, sizeof(bits));
		sym_values(soft, strcmp(kind, "softsym") != 0);
	} else if (with_soft) {
		h.in_seq = value;
		h.flags = FECD_OUT_SOFT;
		h.soft_count = strcmp(kind, "softcount") == 0 ? 63 : 64;
		memset(bits, 0xaa, sizeof(bits));
		soft_values(soft, strcmp(kind, "softsign") == 0);
		if (strcmp(kind, "soft") && strcmp(kind, "softsign") && strcmp(kind, "softcount")) {
			fprintf(stderr, "it-craft: unknown kind '%s'\n", kind);
			return 2;
		}
	} else if (strcmp(kind, "stream") == 0) {
		h.flags = FECD_OUT_STREAM;
		h.out_bit_offset = value;
	} else if (strcmp(kind, "frame") == 0 || strcmp(kind, "eos") == 0 ||
	           strcmp(kind, "unconv") == 0 || strcmp(kind, "short") == 0) {
		h.in_seq = value;
		if (kind[0] == 'u')
			h.status = FECD_STATUS_NOT_CONVERGED;
		if (kind[0] == 's')
			h.payload_bits = 32;
		if (kind[0] == 'e') {
			h.flags = FECD_OUT_END_OF_STREAM;
			h.end_cause = FECD_END_SENDER;
		}
	} else {
		fprintf(stderr,
		        "it-craft: unknown kind '%s' (frame, stream, eos, unconv, short, soft, "
		        "softsign, softcount, softsym, softsymbad)\n",
		        kind);
		return 2;
	}
	fecd_out_hdr_pack(&h, hdr);
	if (zmq_send(sock, hdr, sizeof(hdr), ZMQ_SNDMORE) < 0 ||
	    zmq_send(sock, bits, (h.payload_bits + 7) / 8, with_soft ? ZMQ_SNDMORE : 0) < 0 ||
	    (with_soft && zmq_send(sock, soft, 4 * (size_t)h.soft_count, 0) < 0)) {
		fprintf(stderr, "it-craft: send: %s\n", zmq_strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int linger = 5000, rc = 0;
	void *ctx, *sock;

	if (argc < 3) {
		fprintf(stderr, "usage: it-craft ENDPOINT KIND:VALUE...\n");
		return 2;
	}
	ctx = zmq_ctx_new();
	sock = zmq_socket(ctx, ZMQ_PUSH);
	zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof(linger));
	if (zmq_bind(sock, argv[1]) != 0) {
		fprintf(stderr, "it-craft: bind %s: %s\n", argv[1], zmq_strerror(errno));
		return 1;
	}
	/* A PUSH socket without a peer blocks the first send until one connects. */
	for (int i = 2; i < argc && rc == 0; i++) {
		char *colon = strchr(argv[i], ':'), *end;

		if (!colon) {
			fprintf(stderr, "it-craft: expected KIND:VALUE, got '%s'\n", argv[i]);
			rc = 2;
			break;
		}
		*colon = '\0';
		errno = 0;
		uint64_t v = strtoull(colon + 1, &end, 0);
		if (errno || *end) {
			fprintf(stderr, "it-craft: bad value '%s'\n", colon + 1);
			rc = 2;
			break;
		}
		rc = send_msg(sock, argv[i], v);
	}
	zmq_close(sock);
	zmq_ctx_term(ctx);
	return rc;
}
