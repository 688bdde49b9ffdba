/*
 * fec_input_polarity, the polarity hint fecd's input health reads: on generated codes (no code
 * files needed), a codeword sent right fails no check and sent negated fails exactly the rows of
 * odd weight; noisy input at 5 dB fails few checks as received and most negated; a zero or
 * punctured symbol leaves its checks undecided; a code whose rows all have even weight gives no
 * hint (equal counts); a wrong length and a family that cannot tell are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codec_util.h"
#include "fec.h"
#include "ldpc.h"
#include "prng.h"

/* A decoder for text and one encoded frame of it: s8 holds its symbols at ebn0 dB (or noiseless
 * at +-40 when ebn0 is negative). */
static struct fec_decoder *frame_for(const char *text, double ebn0, int8_t *s8, size_t cap,
                                     size_t *n)
{
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	struct fec_encoder *enc = NULL;
	struct fec_prng p;
	uint8_t info[4096], code[8192];
	char err[256];
	const struct fec_info *fi;

	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec) || fec_encoder_create(&spec, &enc)) {
		fprintf(stderr, "%s: %s\n", text, err);
		abort();
	}
	fi = fec_decoder_info(dec);
	if (fi->frame_info_bits > sizeof(info) || fi->frame_syms > sizeof(code) ||
	    fi->frame_syms > cap)
		abort();
	fec_prng_seed(&p, 11);
	fec_prng_bits(&p, info, fi->frame_info_bits);
	if (fec_encode(enc, info, fi->frame_info_bits, code, n) || *n != fi->frame_syms)
		abort();
	if (ebn0 < 0)
		for (size_t t = 0; t < *n; t++)
			s8[t] = code[t] ? -40 : 40;
	else
		util_channel_s8(&p, code, *n, ebn0, (double)fi->frame_info_bits / *n, 8.0f, s8);
	fec_encoder_destroy(enc);
	return dec;
}

static uint32_t odd_rows(const struct fec_decoder *dec)
{
	const struct ldpc_matrix *h = &ldpc_decoder_code(dec)->h;
	uint32_t odd = 0;

	for (uint32_t r = 0; r < h->m; r++)
		odd += (h->row_start[r + 1] - h->row_start[r]) & 1;
	return odd;
}

int main(void)
{
	static int8_t s8[8192];
	struct fec_polarity pol;
	struct fec_spec spec;
	struct fec_decoder *dec;
	char err[256];
	size_t n;
	uint32_t odd, m;

	/* (3,7)-regular: every row odd */
	dec = frame_for("ldpc,code=regular,n=1400,dv=3,dc=7,seed=3", -1, s8, sizeof(s8), &n);
	m = ldpc_decoder_code(dec)->h.m;
	odd = odd_rows(dec);
	CHECK(odd == m && m == 600, "regular (3,7): %u odd rows of %u", odd, m);
	CHECK(fec_input_polarity(dec, s8, (uint32_t)n, &pol) == 0, "polarity of a codeword");
	CHECK(pol.checks == m && pol.unsat == 0 && pol.unsat_negated == odd,
	      "codeword: checks %u unsat %u negated %u (m %u)", pol.checks, pol.unsat,
	      pol.unsat_negated, m);
	for (size_t t = 0; t < n; t++)
		s8[t] = (int8_t)-s8[t];
	CHECK(fec_input_polarity(dec, s8, (uint32_t)n, &pol) == 0 && pol.unsat == odd &&
	          pol.unsat_negated == 0,
	      "negated codeword: unsat %u negated %u", pol.unsat, pol.unsat_negated);
	/* a zero symbol leaves its dv checks undecided */
	s8[5] = 0;
	CHECK(fec_input_polarity(dec, s8, (uint32_t)n, &pol) == 0 && pol.checks == m - 3,
	      "one erased symbol: checks %u, expected %u", pol.checks, m - 3);
	CHECK(fec_input_polarity(dec, s8, (uint32_t)n - 1, &pol) == -FEC_EINVAL,
	      "a short input is refused");
	fec_decoder_destroy(dec);

	/* noisy at 5 dB: few checks fail as received, most negated; and inverted the other way */
	dec = frame_for("ldpc,code=regular,n=1400,dv=3,dc=7,seed=3", 5.0, s8, sizeof(s8), &n);
	CHECK(fec_input_polarity(dec, s8, (uint32_t)n, &pol) == 0, "noisy frame");
	CHECK(pol.unsat * 4 < pol.checks && pol.unsat_negated * 4 > 3 * pol.checks,
	      "5 dB: unsat %u, negated %u of %u", pol.unsat, pol.unsat_negated, pol.checks);
	fec_decoder_destroy(dec);

	/* (3,6)-regular: every row even, so negating changes nothing: no hint */
	dec = frame_for("ldpc,code=regular,n=1008,dv=3,dc=6,seed=3", 3.0, s8, sizeof(s8), &n);
	CHECK(fec_input_polarity(dec, s8, (uint32_t)n, &pol) == 0 &&
	          pol.unsat == pol.unsat_negated && pol.checks > 400 && pol.checks <= 504,
	      "even rows: unsat %u negated %u of %u", pol.unsat, pol.unsat_negated, pol.checks);
	fec_decoder_destroy(dec);

	/* a family that cannot tell */
	CHECK(fec_spec_from_string("ccsds", &spec, err, sizeof(err)) == 0, "%s", err);
	CHECK(fec_decoder_create(&spec, &dec) == 0, "viterbi decoder");
	CHECK(fec_input_polarity(dec, s8, 100, &pol) == -FEC_ENOTSUP && pol.checks == 0,
	      "viterbi: no polarity hint");
	fec_decoder_destroy(dec);
	CHECK(fec_input_polarity(NULL, s8, 100, &pol) == -FEC_EINVAL, "no decoder");
	return check_done();
}
