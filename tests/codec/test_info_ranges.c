/*
 * fec_decoder_info_ranges, which channel.get shows as where a frame's information bits sit: for
 * each code, random information bits are encoded and the sent frame's symbols at the positions
 * the ranges name, in order, must be those bits (after the unsent ones of a punctured code), the
 * ranges covering exactly k bits. LDPC: a generated regular code (always), WiMAX and MacKay
 * files, a 5G NR code (punctured information columns); nbldpc with bit and with q-ary input;
 * codes with no such positions (a stream, a convolutional frame code) give none. Codes whose
 * files are absent from the codes folder are skipped, said on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "prng.h"

#define MAX_RANGES 8192

/* Checks one code; returns 0, or 1 when its files are absent (skipped). */
static int check_code(const char *text, int want_ranges)
{
	struct fec_spec spec;
	struct fec_decoder *dec;
	struct fec_encoder *enc;
	char err[512];
	static struct fec_info_range r[MAX_RANGES];
	uint32_t unsent = 7;

	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		printf("%s: not built (its file absent?): skipped\n", text);
		return 1;
	}
	const struct fec_info *in = fec_decoder_info(dec);
	int n = fec_decoder_info_ranges(dec, r, MAX_RANGES, &unsent);

	if (!want_ranges) {
		CHECK(n == 0 && unsent == 0, "%s: %d ranges, %u unsent where none exist", text, n,
		      unsent);
		fec_decoder_destroy(dec);
		return 0;
	}
	CHECK(n > 0 && n <= MAX_RANGES, "%s: %d ranges", text, n);
	CHECK(fec_encoder_create(&spec, &enc) == 0, "%s: no encoder", text);
	if (n <= 0 || n > MAX_RANGES) {
		fec_decoder_destroy(dec);
		return 0;
	}
	const uint32_t k = in->frame_info_bits;
	/* q-ary input: a range counts symbols of p code bits, in the encoder's bit order */
	const uint32_t per = in->in_q > 1 ? spec.u.nbldpc.p : 1;
	uint8_t *info = malloc(k), *cw = malloc((size_t)in->frame_syms * per + 64);
	size_t nout = 0;
	struct fec_prng prng;
	uint64_t covered = unsent;

	fec_prng_seed(&prng, 0x696e666fu);
	for (uint32_t i = 0; i < k; i++)
		info[i] = (uint8_t)(fec_prng_next(&prng) & 1);
	CHECK(fec_encode(enc, info, k, cw, &nout) == 0, "%s: encode", text);
	CHECK(nout == (size_t)in->frame_syms * per, "%s: %zu code bits, frame_syms %u", text, nout,
	      in->frame_syms);
	uint64_t j = unsent, wrong = 0, first_wrong = 0;
	for (int i = 0; i < n; i++) {
		CHECK(r[i].first <= r[i].last && r[i].last < in->frame_syms &&
		          (i == 0 || r[i].first > r[i - 1].last + 1),
		      "%s: range %d [%u, %u] of %u symbols", text, i, r[i].first, r[i].last,
		      in->frame_syms);
		covered += (uint64_t)(r[i].last - r[i].first + 1) * per;
		for (uint64_t pos = (uint64_t)r[i].first * per;
		     pos < ((uint64_t)r[i].last + 1) * per && pos < nout && j < k; pos++, j++)
			if (cw[pos] != info[j] && !wrong++)
				first_wrong = j;
	}
	CHECK(covered == k, "%s: the ranges and %u unsent cover %llu bits, k %u", text, unsent,
	      (unsigned long long)covered, k);
	CHECK(wrong == 0, "%s: %llu information bits not at their place, the first bit %llu", text,
	      (unsigned long long)wrong, (unsigned long long)first_wrong);
	printf("%s: k %u, %d ranges, %u unsent\n", text, k, n, unsent);
	free(info);
	free(cw);
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	return 0;
}

int main(void)
{
	check_code("ldpc,code=regular,n=576,dv=3,dc=6", 1);
	check_code("ldpc,code=regular,n=1008,dv=3,dc=6,output=codeword", 1);
	check_code("wimax-576", 1);
	check_code("ldpc,code=MACKAY_504_1008.alist", 1);
	check_code("ldpc,code=nr-bg2,z=16", 1);
	check_code("bds-b1c-sf2", 1);
	check_code("bds-b1c-sf2,in=f32v", 1);
	check_code("ccsds", 0);
	check_code("wspr", 0);
	return check_done();
}
