/*
 * Bit error rate of the stream decoder at fixed Eb/N0 and seed, CCSDS K=7 r=1/2 with int8 soft
 * input (s8 quantizer, 8 steps per unit of LLR), against the union bound
 *     Pb <= sum_d B_d Q(sqrt(2 d R Eb/N0)),  B_10..B_18 = 36, 211, 1404, 11633, 77433.
 * The bound is tight at these SNRs (ML decoding sits just under it), so the check allows for the
 * sampling error of the count: errors must stay below N * bound + 3 sigma, sigma from Poisson
 * error events of about 4 bits each (B_10 / A_10 = 36 / 11). A decoder half a dB worse, or one
 * adding errors at block edges, lands far above that. The low-SNR check proves the channel is
 * real (the test can fail), and the punctured 3/4 case gets a looser sanity threshold.
 *
 * Idle flushes (the daemon's input.idle_flush_ms): a stream cut into blocks that each end where
 * the sender paused, with no tail after them and no STREAM_END (the stream goes on, the next
 * block taking them as its head). Only the last bits before each such point lose their
 * traceback; the test prints the error rate by distance from it beside the same bits of an
 * ordinary decode, and bounds both sides.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bitpack.h"
#include "check.h"
#include "codec_util.h"
#include "fec.h"
#include "prng.h"

#define LLR_SCALE 8.0f

/* The CPU decoder as the daemon's batcher would feed it; an erased job fails the count. */
static long cpu_stream(void *arg, const struct fec_decoder *dec, const int8_t *syms, size_t nsym,
                       uint8_t *bits)
{
	unsigned erased = 0;
	long decoded = util_decode_stream(dec, syms, nsym, 0, bits, &erased);

	(void)arg;
	return erased ? -1 : decoded;
}

/* Bit errors over nbits of a stream through encoder, AWGN, quantizer and block decoding. */
static long count_errors(const char *code, double ebn0, size_t nbits, uint64_t seed)
{
	return util_stream_errors(code, ebn0, nbits, seed, LLR_SCALE, cpu_stream, NULL);
}

static void against_bound(double ebn0, size_t nbits, uint64_t seed)
{
	char why[200];

	CHECK(util_check_union_bound_ccsds("", ebn0, nbits, seed, LLR_SCALE, cpu_stream, NULL, why,
	                                   sizeof(why)) == 0,
	      "%s", why);
}

/* Bit positions by where they sit around an idle flush point. */
enum { NEAR_1_8, NEAR_9_32, NEAR_33_64, AFTER_64, ELSEWHERE, NPLACES };

static int place_of(size_t i, size_t every)
{
	size_t pos = i % every, to_end = every - pos;

	if (to_end <= 8)
		return NEAR_1_8;
	if (to_end <= 32)
		return NEAR_9_32;
	if (to_end <= 64)
		return NEAR_33_64;
	return pos < 64 && i >= every ? AFTER_64 : ELSEWHERE;
}

/* nblocks blocks of `every` bits of a CCSDS stream, each cut at an idle flush (head from the
 * symbols before it, no tail), against the ordinary block decode of the same symbols. */
static void idle_flushes(double ebn0, size_t nblocks, uint32_t every, uint64_t seed)
{
	static const char *const names[NPLACES] = {"last 1-8 bits before", "last 9-32",
	                                           "last 33-64", "first 64 after", "elsewhere"};
	const size_t nbits = nblocks * every;
	struct fec_decoder *dec = NULL;
	struct fec_encoder *enc = NULL;
	struct fec_spec spec;
	struct fec_prng prng;
	long flushed[NPLACES] = {0}, plain[NPLACES] = {0}, count[NPLACES] = {0};
	uint8_t *bits = malloc(nbits), *code = malloc(2 * nbits), *got = malloc(nbits + 64);
	uint8_t *ref = malloc(nbits + 64);
	int8_t *syms = malloc(2 * nbits);
	unsigned erased = 0;
	size_t n = 0;

	if (!bits || !code || !got || !ref || !syms ||
	    fec_spec_from_string("ccsds", &spec, NULL, 0) || fec_encoder_create(&spec, &enc) ||
	    fec_decoder_create(&spec, &dec)) {
		CHECK(0, "idle flushes: set-up failed");
		goto out;
	}
	const struct fec_info *info = fec_decoder_info(dec);
	const uint32_t own = every * info->unit_syms, head_max = info->head_syms;
	const size_t stride = head_max + own, out_stride = (info->max_out_bits + 7) / 8;
	struct fec_job *jobs = calloc(nblocks, sizeof(*jobs));
	int8_t *in = calloc(nblocks, stride);
	uint8_t *out = calloc(nblocks, out_stride);
	void *scratch = malloc(info->scratch_bytes);
	struct fec_batch b = {.count = (uint32_t)nblocks,
	                      .jobs = jobs,
	                      .in = in,
	                      .in_stride = stride,
	                      .out = out,
	                      .out_stride = out_stride};

	fec_prng_seed(&prng, seed);
	fec_prng_bits(&prng, bits, nbits);
	fec_encode(enc, bits, nbits, code, &n);
	util_channel_s8(&prng, code, n, ebn0, 0.5, LLR_SCALE, syms);
	CHECK(util_decode_stream(dec, syms, n, 0, ref, &erased) == (long)nbits && !erased,
	      "idle flushes: the ordinary decode");
	for (size_t j = 0; jobs && in && j < nblocks; j++) {
		size_t at = j * own, head = at < head_max ? at : head_max;

		memcpy(in + j * stride, syms + at - head, head + own);
		jobs[j] = (struct fec_job){.in_len = (uint32_t)(head + own),
		                           .head_len = (uint32_t)head,
		                           .own_len = own,
		                           .flags = j ? 0 : FEC_JOB_STREAM_START};
	}
	if (!jobs || !in || !out || !scratch || fec_decode(dec, scratch, &b, 0, b.count)) {
		CHECK(0, "idle flushes: decoding the flushed blocks failed");
		goto out_batch;
	}
	size_t bad = 0;
	for (size_t j = 0; j < nblocks; j++) {
		bad += jobs[j].status != FECD_STATUS_DECODED || jobs[j].out_bits != every;
		fec_unpack_bits(out + j * out_stride, every, got + j * every);
	}
	CHECK(bad == 0, "%zu of %zu flushed blocks not decoded whole", bad, nblocks);
	for (size_t i = 0; i + every < nbits; i++) { /* the last block ends the stream: left out */
		int k = place_of(i, every);

		count[k]++;
		flushed[k] += got[i] != bits[i];
		plain[k] += ref[i] != bits[i];
	}
	printf("ccsds %.1f dB, an idle flush every %u bits (%zu flushes, seed %llu):\n", ebn0,
	       every, nblocks - 1, (unsigned long long)seed);
	for (int k = 0; k < NPLACES; k++)
		printf("  %-21s %8ld bits: BER %.2e flushed, %.2e in the ordinary decode\n",
		       names[k], count[k], (double)flushed[k] / (double)count[k],
		       (double)plain[k] / (double)count[k]);
	/* Bits more than 32 before a flush point, and every bit after one, decode as well as
	 * without flushes (a few error events of slack); the last 8 before it lose most of their
	 * traceback, and stay far better than uncoded BPSK (BER 1.3e-2 at 4 dB). */
	for (int k = NEAR_33_64; k < NPLACES; k++)
		CHECK(flushed[k] <= plain[k] + 12,
		      "%s a flush point: %ld errors, %ld without flushes", names[k], flushed[k],
		      plain[k]);
	CHECK((double)flushed[NEAR_1_8] <= 0.02 * (double)count[NEAR_1_8],
	      "last 8 bits before a flush point: BER %.3g",
	      (double)flushed[NEAR_1_8] / count[NEAR_1_8]);
out_batch:
	free(scratch);
	free(out);
	free(in);
	free(jobs);
out:
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	free(bits);
	free(code);
	free(got);
	free(ref);
	free(syms);
}

int main(void)
{
	long errors;

	/* About 100 or more errors expected at each point, a few at 5 dB (no error floor). */
	against_bound(3.0, 1000000, 31);
	against_bound(3.5, 2000000, 35);
	against_bound(4.0, 6000000, 40);
	against_bound(5.0, 3000000, 50);

	/* At 1 dB the decoder must be visibly failing: the test measures something. */
	errors = count_errors("ccsds", 1.0, 200000, 10);
	printf("ccsds 1.0 dB: %ld errors in 200000 bits\n", errors);
	CHECK(errors > 2000 && errors < 40000, "1 dB: %ld errors in 200000 bits", errors);

	/* DVB-S 3/4 at 5 dB: far better than uncoded BPSK (BER 6e-3 there). */
	errors = count_errors("dvbs-3/4", 5.0, 1000000, 75);
	printf("dvbs-3/4 5.0 dB: %ld errors in 1000000 bits\n", errors);
	CHECK(errors >= 0 && errors < 500, "dvbs-3/4 at 5 dB: %ld errors in 1e6 bits", errors);

	idle_flushes(4.0, 4000, 512, 44);
	return check_done();
}
