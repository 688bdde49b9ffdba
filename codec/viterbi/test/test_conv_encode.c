/*
 * Encoder known-answer vectors. The CCSDS impulse response must be the generator polynomials
 * (G2 inverted) and the family's defaults the same polynomials uninverted (the textbook code), a
 * short vector is worked out by hand below, punctured presets keep the standard symbol order and
 * rate, and every preset agrees with a second encoder written here from the textbook definition
 * (code bit = XOR of the taps over past inputs u[t-i]), as a stream in calls of any length.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "prng.h"

static size_t encode(const char *code, const uint8_t *bits, size_t nbits, uint8_t *out)
{
	struct fec_spec spec;
	struct fec_encoder *enc = NULL;
	size_t n = 0;
	char err[200];

	CHECK(fec_spec_from_string(code, &spec, err, sizeof(err)) == 0, "%s: %s", code, err);
	CHECK(fec_encoder_create(&spec, &enc) == 0, "%s: encoder", code);
	if (enc)
		CHECK(fec_encode(enc, bits, nbits, out, &n) == 0, "%s: encode", code);
	fec_encoder_destroy(enc);
	return n;
}

static void check_vector(const char *code, const uint8_t *in, size_t nin, const uint8_t *expect,
                         size_t nexp)
{
	uint8_t out[256];
	size_t n = encode(code, in, nin, out);

	CHECK(n == nexp, "%s: %zu symbols, expected %zu", code, n, nexp);
	for (size_t i = 0; i < n && i < nexp; i++)
		CHECK(out[i] == expect[i], "%s: symbol %zu is %u, expected %u", code, i, out[i],
		      expect[i]);
}

static void known_answers(void)
{
	/* Impulse response, a terminated frame of one 1: G1 = 171 = 1111001 and G2 = 133 =
	 * 1011011 read from the top bit (current input) down, G2 inverted: 0100100. */
	static const uint8_t one = 1;
	static const uint8_t impulse[] = {1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0};
	/* Input 1 0 1 1, truncated, with u[t] the input at stage t (0 before the start):
	 *   c1 = u[t]^u[t-1]^u[t-2]^u[t-3]^u[t-6]  (171)
	 *   c2 = NOT(u[t]^u[t-2]^u[t-3]^u[t-5]^u[t-6])  (133, inverted)
	 *   t=0: c1 = 1,           c2 = NOT 1 = 0
	 *   t=1: c1 = 0^1 = 1,     c2 = NOT 0 = 1
	 *   t=2: c1 = 1^0^1 = 0,   c2 = NOT(1^1) = 1
	 *   t=3: c1 = 1^1^0^1 = 1, c2 = NOT(1^0^1) = 1 */
	static const uint8_t in4[] = {1, 0, 1, 1};
	static const uint8_t ccsds4[] = {1, 0, 1, 1, 0, 1, 1, 1};
	/* DVB-S 3/4, input 1 0 1 1 0 1: unpunctured X = 1 1 0 1 0 1 (171), Y = 1 0 0 0 1 0 (133,
	 * no inversion); X=101 Y=110 sends X1 Y1, Y2, X3 per period: 1 1, 0, 0 | 1 0, 1, 1. */
	static const uint8_t in6[] = {1, 0, 1, 1, 0, 1};
	static const uint8_t dvbs34[] = {1, 1, 0, 0, 1, 0, 1, 1};
	/* 802.11 3/4 (A=133, B=171; A=110 B=101 sends A0 B0, A1, B2): A = Y, B = X above, so
	 * 1 1, 0, 0 | 1 0, 1, 1 again, with the first pair in A, B order: */
	static const uint8_t wifi34[] = {1, 1, 0, 0, 0, 1, 1, 1};
	/* DVB-S 2/3 (X=10, Y=11: X1 Y1 Y2) on the same input: X 1 1 0 1 0 1, Y 1 0 0 0 1 0. */
	static const uint8_t dvbs23[] = {1, 1, 0, 0, 0, 0, 0, 1, 0};

	check_vector("ccsds,mode=terminated", &one, 1, impulse, sizeof(impulse));
	check_vector("ccsds,mode=truncated", in4, 4, ccsds4, sizeof(ccsds4));
	check_vector("ccsds", in4, 4, ccsds4, sizeof(ccsds4));
	check_vector("dvbs-3/4", in6, 6, dvbs34, sizeof(dvbs34));
	check_vector("wifi-3/4", in6, 6, wifi34, sizeof(wifi34));
	check_vector("dvbs-2/3", in6, 6, dvbs23, sizeof(dvbs23));
	/* The family's defaults: the same polynomials with no output inverted (the textbook
	 * code), on the impulse and on 1 0 1 1 (c2 above, not inverted: 1 0 0 0). */
	check_vector("viterbi,k=7,polys=171:133,mode=terminated", &one, 1,
	             (const uint8_t[]){1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1}, 14);
	check_vector("viterbi,k=7,polys=171:133,mode=truncated", in4, 4,
	             (const uint8_t[]){1, 1, 1, 0, 0, 0, 1, 0}, 8);
	check_vector("viterbi,k=7,polys=171:133,invert=01,mode=truncated", in4, 4, ccsds4,
	             sizeof(ccsds4));
	/* nasa-dsn (133 inverted, then 171) and voyager (133, 171) on the impulse. */
	check_vector("nasa-dsn,mode=terminated", &one, 1,
	             (const uint8_t[]){0, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1}, 14);
	check_vector("voyager,mode=terminated", &one, 1,
	             (const uint8_t[]){1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1}, 14);
}

/* The textbook encoder: per stage, per output r, XOR of poly bit (K-1-i) times u[t-i]; then
 * inversion; then the puncturing pattern's column t mod P. */
static size_t reference_encode(const struct conv_spec *c, const uint8_t *u, size_t nbits,
                               uint8_t *out)
{
	size_t o = 0;
	unsigned p = c->punct_period;

	for (size_t t = 0; t < nbits; t++) {
		for (unsigned r = 0; r < c->n; r++) {
			unsigned bit = 0;

			for (unsigned i = 0; i < c->k; i++)
				if (t >= i && (c->polys[r] >> (c->k - 1 - i) & 1u))
					bit ^= u[t - i];
			bit ^= c->invert >> r & 1u;
			if (p <= 1 || (c->punct[r] >> (p - 1 - t % p) & 1u))
				out[o++] = (uint8_t)bit;
		}
	}
	return o;
}

static void against_reference(void)
{
	struct fec_prng prng;
	enum { NBITS = 840 }; /* a multiple of every puncturing period */
	uint8_t bits[NBITS + 8] = {0}, tail[NBITS + 16], ref[4 * (NBITS + 16)];
	uint8_t got[4 * (NBITS + 16)];

	fec_prng_seed(&prng, 321);
	for (unsigned i = 0; i < fec_preset_count(); i++) {
		const char *name = fec_preset_at(i)->name;
		struct fec_spec spec;
		struct fec_encoder *enc = NULL;
		size_t nref, n = 0, part = 0;

		if (fec_preset_at(i)->family != FECD_FAMILY_VITERBI)
			continue;
		fec_prng_bits(&prng, bits, NBITS);
		CHECK(fec_preset_apply(name, &spec) == 0, "%s", name);
		nref = reference_encode(&spec.u.conv, bits, NBITS, ref);
		CHECK(nref == fec_encoded_len(&spec, NBITS), "%s: %zu symbols, encoded_len %zu",
		      name, nref, fec_encoded_len(&spec, NBITS));
		CHECK(fabs(nref * fec_spec_rate(&spec) - NBITS) < 1e-6, "%s: rate %g", name,
		      fec_spec_rate(&spec));

		/* Stream, in two uneven calls. */
		CHECK(fec_encoder_create(&spec, &enc) == 0, "%s", name);
		if (!enc)
			continue;
		fec_encode(enc, bits, 301, got, &n);
		fec_encode(enc, bits + 301, NBITS - 301, got + n, &part);
		CHECK(n + part == nref && memcmp(got, ref, nref) == 0, "%s stream", name);
		fec_encoder_reset(enc);
		fec_encode(enc, bits, NBITS, got, &n);
		CHECK(n == nref && memcmp(got, ref, nref) == 0, "%s after reset", name);
		/* Stream, in calls of 0 to 150 bits: the packed path's words cut anywhere (of a
		 * punctured code, whole periods) */
		fec_encoder_reset(enc);
		n = 0;
		for (size_t at = 0, len; at < NBITS; at += len) {
			len = (size_t)(fec_prng_next(&prng) % 151);
			len -= len % spec.u.conv.punct_period;
			if (len > NBITS - at)
				len = NBITS - at;
			CHECK(fec_encode(enc, bits + at, len, got + n, &part) == 0, "%s", name);
			n += part;
		}
		CHECK(n == nref && memcmp(got, ref, nref) == 0, "%s stream in short calls", name);
		fec_encoder_destroy(enc);

		/* Terminated: the same input followed by K-1 zeros. */
		spec.u.conv.mode = CONV_MODE_TERMINATED;
		spec.u.conv.max_frame_bits = NBITS + 16;
		n = NBITS;
		while ((n + spec.u.conv.k - 1) % spec.u.conv.punct_period)
			n--;
		memcpy(tail, bits, n);
		memset(tail + n, 0, spec.u.conv.k);
		nref = reference_encode(&spec.u.conv, tail, n + spec.u.conv.k - 1, ref);
		CHECK(fec_encoder_create(&spec, &enc) == 0, "%s terminated", name);
		if (!enc)
			continue;
		CHECK(fec_encode(enc, bits, n, got, &part) == 0 && part == nref &&
		          memcmp(got, ref, nref) == 0,
		      "%s terminated frame of %zu bits", name, n);
		CHECK(fec_encoded_len(&spec, n) == nref, "%s terminated encoded_len", name);
		/* Frames restart in state 0: a second call gives the same symbols. */
		CHECK(fec_encode(enc, bits, n, got, &part) == 0 && memcmp(got, ref, nref) == 0,
		      "%s second frame", name);
		if (spec.u.conv.punct_period > 1)
			CHECK(fec_encode(enc, bits, n + 1, got, &part) == -FEC_EINVAL,
			      "%s: frame of partial periods accepted", name);
		CHECK(fec_encode(enc, bits, NBITS + 17, got, &part) == -FEC_ELONG,
		      "%s: frame above max_frame_bits accepted", name);
		fec_encoder_destroy(enc);
	}
}

int main(void)
{
	known_answers();
	against_reference();
	return check_done();
}
