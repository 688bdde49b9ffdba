/*
 * Viterbi decoder correctness without noise and at high SNR: every preset in every mode, random
 * codes for every K and n, streams cut into blocks exactly as the daemon's batcher cuts them,
 * the reported path metric, and jobs that must come back erased without failing their batch.
 */
#include <stdlib.h>
#include <string.h>

#include "bitpack.h"
#include "check.h"
#include "codec_util.h"
#include "fec.h"
#include "prng.h"

#define NOISELESS 100.0 /* ebn0 >= 100: no noise, LLR +-100 */

/* Encodes nbits random bits of a stream in uneven chunks (the encoder must carry its state). */
static size_t encode_stream(struct fec_encoder *enc, const uint8_t *bits, size_t nbits,
                            uint8_t *code)
{
	size_t done = 0, o = 0;
	size_t chunks[] = {1, 7, 64, 333, 2};

	for (unsigned c = 0; done < nbits; c = (c + 1) % 5) {
		size_t take = chunks[c] < nbits - done ? chunks[c] : nbits - done, n = 0;

		if (fec_encode(enc, bits + done, take, code + o, &n))
			return 0;
		done += take;
		o += n;
	}
	return o;
}

/* Stream: nbits (a multiple of the period) through encoder, channel and blocks. Returns errors. */
static long stream_errors(const struct fec_spec *spec, size_t nbits, double ebn0, uint64_t seed,
                          uint32_t block_syms, uint8_t *decoded_out)
{
	struct fec_encoder *enc = NULL;
	struct fec_decoder *dec = NULL;
	struct fec_prng prng;
	size_t ncode = fec_encoded_len(spec, nbits);
	uint8_t *bits = malloc(nbits), *code = malloc(ncode), *dec_bits = malloc(nbits + 64);
	int8_t *syms = malloc(ncode);
	unsigned erased = 0;
	long errors = -1, got;

	fec_prng_seed(&prng, seed);
	fec_prng_bits(&prng, bits, nbits);
	if (fec_encoder_create(spec, &enc) || fec_decoder_create(spec, &dec))
		goto out;
	ncode = encode_stream(enc, bits, nbits, code);
	util_channel_s8(&prng, code, ncode, ebn0, fec_spec_rate(spec), 1.0f, syms);
	got = util_decode_stream(dec, syms, ncode, block_syms, dec_bits, &erased);
	CHECK(got == (long)nbits, "stream decoded %ld bits of %zu", got, nbits);
	CHECK(erased == 0, "%u stream jobs erased", erased);
	if (got == (long)nbits) {
		errors = 0;
		for (size_t i = 0; i < nbits; i++)
			errors += bits[i] != dec_bits[i];
		if (decoded_out)
			memcpy(decoded_out, dec_bits, nbits);
	}
out:
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	free(bits);
	free(code);
	free(dec_bits);
	free(syms);
	return errors;
}

/* One noiseless frame of nbits; checks bits, length and metric (= 100 per symbol). */
static void check_frame(const struct fec_spec *spec, size_t nbits, uint64_t seed, const char *what)
{
	struct fec_encoder *enc = NULL;
	struct fec_decoder *dec = NULL;
	struct fec_prng prng;
	size_t ncode = fec_encoded_len(spec, nbits), n = 0;
	uint8_t *bits = malloc(nbits + 1), *code = malloc(ncode + 1), *out = malloc(nbits + 64);
	int8_t *syms = malloc(ncode + 1);
	float metric = 0;
	long got;

	fec_prng_seed(&prng, seed);
	fec_prng_bits(&prng, bits, nbits);
	CHECK(fec_encoder_create(spec, &enc) == 0 && fec_decoder_create(spec, &dec) == 0, "%s",
	      what);
	if (!enc || !dec)
		goto out;
	CHECK(fec_encode(enc, bits, nbits, code, &n) == 0 && n == ncode,
	      "%s: %zu bits encoded to %zu symbols, expected %zu", what, nbits, n, ncode);
	util_channel_s8(&prng, code, n, NOISELESS, 0.5, 1.0f, syms);
	got = util_decode_frame(dec, syms, n, out, &metric);
	CHECK(got == (long)nbits, "%s: frame of %zu bits decoded to %ld", what, nbits, got);
	CHECK(got != (long)nbits || memcmp(bits, out, nbits) == 0, "%s: frame of %zu bits differs",
	      what, nbits);
	CHECK(metric == 100.0f * (float)n, "%s: metric %g, expected %g", what, metric,
	      100.0 * (double)n);
out:
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	free(bits);
	free(code);
	free(out);
	free(syms);
}

/* Frame lengths near len whose stage count fills whole puncturing periods. */
static size_t frame_len(const struct fec_spec *spec, size_t len)
{
	unsigned period = spec->u.conv.punct_period;
	size_t tail = spec->u.conv.mode == CONV_MODE_TERMINATED ? spec->u.conv.k - 1u : 0;

	while ((len + tail) % period)
		len++;
	return len;
}

static void check_code(const struct fec_spec *base, const char *name, uint64_t seed)
{
	static const char *const modes[] = {"stream", "terminated", "truncated"};
	char what[160];

	for (int m = 0; m < 3; m++) {
		struct fec_spec spec = *base;
		char text[256];
		size_t lens[] = {1, 40, 333, 990};

		snprintf(text, sizeof(text), "mode=%s,decode_len=150,traceback_len=40,head_len=30",
		         modes[m]);
		spec.u.conv.mode = (enum conv_mode)(m + 1);
		spec.u.conv.decode_len = 150;
		spec.u.conv.traceback_len = 40;
		spec.u.conv.head_len = 30;
		spec.u.conv.max_frame_bits = 1000;
		CHECK(fec_family_by_id(spec.family)->spec_finish(&spec, NULL, 0) == 0, "%s %s",
		      name, text);
		snprintf(what, sizeof(what), "%s %s", name, modes[m]);
		if (m == 0) {
			size_t nbits = 4200;

			while (nbits % spec.u.conv.punct_period)
				nbits++;
			CHECK(stream_errors(&spec, nbits, NOISELESS, seed, 0, NULL) == 0,
			      "%s: noiseless stream has errors", what);
			continue;
		}
		for (unsigned i = 0; i < 4; i++)
			check_frame(&spec, frame_len(&spec, lens[i]), seed + i, what);
	}
}

static uint32_t gf2_gcd(uint32_t a, uint32_t b)
{
	while (b) {
		while (a && (31 - __builtin_clz(a)) >= (31 - __builtin_clz(b)))
			a ^= b << ((31 - __builtin_clz(a)) - (31 - __builtin_clz(b)));
		uint32_t t = a;

		a = b;
		b = t;
	}
	return a;
}

/* Random non-catastrophic codes: some polynomial taps the input and the oldest bit, and the
 * polynomials share no factor over GF(2). */
static void random_codes(void)
{
	struct fec_prng prng;

	fec_prng_seed(&prng, 77);
	for (unsigned k = CONV_K_MIN; k <= CONV_K_MAX; k++) {
		for (unsigned n = CONV_N_MIN; n <= CONV_N_MAX; n++) {
			struct fec_spec spec;
			uint32_t g;
			char name[64];

			CHECK(fec_spec_from_string("viterbi", &spec, NULL, 0) == 0, "defaults");
			do {
				g = 0;
				for (unsigned r = 0; r < n; r++) {
					uint32_t p = (uint32_t)(fec_prng_next(&prng) >> 40) &
					             ((1u << k) - 1);

					if (r == 0)
						p |= 1u | 1u << (k - 1);
					if (!p)
						p = 1u << (k - 1);
					spec.u.conv.polys[r] = (uint16_t)p;
					g = r ? gf2_gcd(g, p) : p;
				}
			} while (g != 1);
			spec.u.conv.k = (uint8_t)k;
			spec.u.conv.n = (uint8_t)n;
			spec.u.conv.invert = (uint8_t)(fec_prng_next(&prng) & ((1u << n) - 1));
			spec.u.conv.punct_period = 1;
			snprintf(name, sizeof(name), "K=%u n=%u polys %o:%o:%o:%o inv %x", k, n,
			         spec.u.conv.polys[0], spec.u.conv.polys[1], spec.u.conv.polys[2],
			         spec.u.conv.polys[3], spec.u.conv.invert);
			check_code(&spec, name, k * 10 + n);
		}
	}
}

/* A long stream decoded in blocks of two sizes and as one truncated frame (the exact Viterbi
 * answer): at high SNR all three must agree and be right; at 3 dB, where errors are plenty, the
 * blocks may differ from the frame only in a handful of bits (mishandled block edges would add
 * errors at every edge). */
static void blocks_vs_frame(double ebn0, size_t nbits, long max_differ)
{
	struct fec_spec spec;
	uint8_t *a = malloc(nbits), *b = malloc(nbits), *c = malloc(nbits + 64);
	struct fec_encoder *enc = NULL;
	struct fec_decoder *dec = NULL;
	struct fec_prng prng;
	uint8_t *bits = malloc(nbits), *code = malloc(2 * nbits);
	int8_t *syms = malloc(2 * nbits);
	size_t n = 0;
	long ea, eb, ec = 0, differ = 0, got;
	char text[100];

	CHECK(fec_spec_from_string("ccsds", &spec, NULL, 0) == 0, "ccsds");
	ea = stream_errors(&spec, nbits, ebn0, 1234, 0, a);
	eb = stream_errors(&spec, nbits, ebn0, 1234, 2 * 700, b);

	snprintf(text, sizeof(text), "ccsds,mode=truncated,max_frame_bits=%zu", nbits);
	CHECK(fec_spec_from_string(text, &spec, NULL, 0) == 0, "%s", text);
	fec_prng_seed(&prng, 1234);
	fec_prng_bits(&prng, bits, nbits);
	if (fec_encoder_create(&spec, &enc) || fec_decoder_create(&spec, &dec) ||
	    fec_encode(enc, bits, nbits, code, &n))
		CHECK(0, "frame setup");
	util_channel_s8(&prng, code, n, ebn0, 0.5, 1.0f, syms);
	got = util_decode_frame(dec, syms, n, c, NULL);
	CHECK(got == (long)nbits, "frame of %zu bits: %ld", nbits, got);
	for (size_t i = 0; i < nbits && got == (long)nbits; i++) {
		ec += bits[i] != c[i];
		differ += (a[i] != c[i]) + (b[i] != c[i]);
	}
	printf("%.1f dB, %zu bits: errors %ld (blocks of 2048), %ld (700), %ld (one frame); "
	       "%ld bits differ from the frame\n",
	       ebn0, nbits, ea, eb, ec, differ);
	CHECK(differ <= max_differ, "%.1f dB: blocks differ from one frame in %ld bits", ebn0,
	      differ);
	if (max_differ == 0)
		CHECK(ea == 0 && eb == 0 && ec == 0, "errors at %.1f dB", ebn0);
	else
		CHECK(ec > 20 * max_differ, "%.1f dB: too few errors (%ld) to compare", ebn0, ec);
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	free(a);
	free(b);
	free(c);
	free(bits);
	free(code);
	free(syms);
}

/* Jobs breaking the geometry come back ERASED; the rest of the batch is decoded. */
static void erased_jobs(void)
{
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	int8_t in[4 * 400];
	uint8_t out[4 * 200];
	struct fec_job jobs[4] = {
	    {.in_len = 301, .own_len = 301},   /* not whole stages (rate 3/4: 4 syms) */
	    {.in_len = 400, .own_len = 400},   /* fine */
	    {.in_len = 4000, .own_len = 4000}, /* longer than max_frame_bits */
	    {.in_len = 0, .own_len = 0},       /* empty truncated frame: 0 bits */
	};
	struct fec_batch b = {
	    .count = 4, .jobs = jobs, .in = in, .in_stride = 400, .out = out, .out_stride = 200};
	void *scratch;

	memset(in, 50, sizeof(in));
	CHECK(fec_spec_from_string("dvbs-3/4,mode=truncated,max_frame_bits=600", &spec, NULL, 0) ==
	          0,
	      "dvbs-3/4 truncated");
	CHECK(fec_decoder_create(&spec, &dec) == 0, "decoder");
	scratch = malloc(fec_decoder_info(dec)->scratch_bytes);
	CHECK(fec_decode(dec, scratch, &b, 0, 4) == 0, "batch");
	CHECK(jobs[0].status == FECD_STATUS_ERASED && jobs[0].out_bits == 0, "job 0 not erased");
	CHECK(jobs[1].status == FECD_STATUS_DECODED && jobs[1].out_bits == 300, "job 1: %u bits",
	      jobs[1].out_bits);
	CHECK(jobs[2].status == FECD_STATUS_ERASED, "job 2 not erased");
	CHECK(jobs[3].status == FECD_STATUS_DECODED && jobs[3].out_bits == 0, "job 3");
	CHECK(fec_decode(dec, scratch, &b, 3, 2) == -FEC_EINVAL, "range past the batch accepted");
	free(scratch);
	fec_decoder_destroy(dec);

	/* Streams: a head that is not whole periods, and an owned part above decode_len. */
	CHECK(fec_spec_from_string("dvbs-3/4,decode_len=96", &spec, NULL, 0) == 0, "stream");
	CHECK(fec_decoder_create(&spec, &dec) == 0, "decoder");
	scratch = malloc(fec_decoder_info(dec)->scratch_bytes);
	jobs[0] = (struct fec_job){.in_len = 300, .head_len = 6, .own_len = 128};
	jobs[1] = (struct fec_job){.in_len = 300, .head_len = 8, .own_len = 132};
	jobs[2] = (struct fec_job){.in_len = 201,
	                           .head_len = 0,
	                           .own_len = 128,
	                           .flags = FEC_JOB_STREAM_START}; /* tail of 73: 54 stages */
	b.count = 3;
	CHECK(fec_decode(dec, scratch, &b, 0, 3) == 0, "stream batch");
	CHECK(jobs[0].status == FECD_STATUS_ERASED, "head of 6 symbols accepted");
	CHECK(jobs[1].status == FECD_STATUS_ERASED, "own_len above decode_len accepted");
	CHECK(jobs[2].status == FECD_STATUS_DECODED && jobs[2].out_bits == 96, "partial tail: %u",
	      jobs[2].out_bits);
	free(scratch);
	fec_decoder_destroy(dec);
}

int main(void)
{
	for (unsigned i = 0; i < fec_preset_count(); i++) {
		const struct fec_preset *p = fec_preset_at(i);
		struct fec_spec spec;

		if (p->family != FECD_FAMILY_VITERBI)
			continue;
		CHECK(fec_preset_apply(p->name, &spec) == 0, "preset %s", p->name);
		check_code(&spec, p->name, 1000 + i);
	}
	random_codes();
	blocks_vs_frame(5.5, 60000, 0);
	blocks_vs_frame(2.5, 300000, 6);
	erased_jobs();
	return check_done();
}
