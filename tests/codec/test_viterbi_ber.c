/*
 * Bit error rate of the stream decoder at fixed Eb/N0 and seed, CCSDS K=7 r=1/2 with int8 soft
 * input (s8 quantizer, 8 steps per unit of LLR), against the union bound
 *     Pb <= sum_d B_d Q(sqrt(2 d R Eb/N0)),  B_10..B_18 = 36, 211, 1404, 11633, 77433.
 * The bound is tight at these SNRs (ML decoding sits just under it), so the check allows for the
 * sampling error of the count: errors must stay below N * bound + 3 sigma, sigma from Poisson
 * error events of about 4 bits each (B_10 / A_10 = 36 / 11). A decoder half a dB worse, or one
 * adding errors at block edges, lands far above that. The low-SNR check proves the channel is
 * real (the test can fail), and the punctured 3/4 case gets a looser sanity threshold.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	double bound = util_union_bound_ccsds(ebn0, 0.5), expect = bound * (double)nbits;
	double limit = expect + 3.0 * sqrt(4.0 * expect);
	long errors = count_errors("ccsds", ebn0, nbits, seed);

	printf("ccsds %.1f dB: %ld errors in %zu bits, BER %.3g; union bound %.3g (limit %.0f "
	       "errors)\n",
	       ebn0, errors, nbits, (double)errors / (double)nbits, bound, limit);
	CHECK(errors >= 0, "decoding at %.1f dB failed", ebn0);
	CHECK(errors <= limit, "%.1f dB: %ld errors in %zu bits, above the union bound's %.0f",
	      ebn0, errors, nbits, limit);
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
	return check_done();
}
