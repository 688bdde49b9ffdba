/*
 * Published results through fecd-sim's CPU engine (issue 20, item 5, reduced to run in CI):
 *   - CCSDS K=7 r1/2 (171, 133), soft Viterbi, against its union bound at 3, 4 and 5 dB:
 *     Pb <= sum_d c_d Q(sqrt(2 d R Eb/N0)) over the distance spectrum c_d = 36, 211, 1404,
 *     11633, 77433, 502690, 3322763, 21292910 for d = 10, 12, ..., 24 (the odd weights have
 *     none): the spectrum tabulated for this code in the literature, which sim_ref.h's
 *     sim_ref_conv_spectrum must find on the code fecd-sim simulates, and whose bound
 *     (sim_ref_union_bound) is the one taken. The bound is an upper bound on the BER
 *     of unquantized maximum-likelihood decoding; the decoder's 8-bit input (fecd-feed's scale)
 *     and its traceback of 64 stages lose well under 0.25 dB, and from 4 dB on the bound's first
 *     terms are within a few tens of percent of the true BER (the curves of Heller and Jacobs
 *     1971 meet the bound there). So the BER must lie between a quarter of the bound and the
 *     bound 0.3 dB later (the decoder's loss, and room for the count's spread: 20 to 100 error
 *     events, +-45 % to +-20 % at 95 %; 2.7 times the bound at 5 dB, 2.4 at 4 dB): a lost dB, a
 *     rate or Eb/N0 mistake, or counting errors on the wrong bits all leave that band. At 3 dB the
 * bound is loose (above the BER), and only the same band is asked.
 *   - DVB-S2 r1/2 (the preset: layered offset min-sum, 50 iterations) and MacKay's (3,6) N=8000
 *     code, at the frame error rates codec/ldpc/test/test_ldpc_fer.c checks through the codec
 *     (DVB-S2: <= 1 of 32 frames at 1.2 dB, >= 29 of 32 at 0.3 dB; MacKay: <= 2 of 64 at 2.0 dB,
 *     >= 29 of 32 at 0.5 dB, below the (3,6) ensemble's threshold of 1.1 dB); those matrices come
 *     from ../shared/codes (FECD_CODES_DIR), and this part says it is skipped without them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "sim.h"
#include "sim_ref.h"

static struct sim_ref_spectrum ccsds;

/* The spectrum of the preset, from its spec, against the tabulated one. */
static int ccsds_spectrum(void)
{
	static const double cd[] = {36,    0, 211,    0, 1404,    0, 11633,   0,
	                            77433, 0, 502690, 0, 3322763, 0, 21292910};
	struct sim_ref_conv conv;
	struct fec_spec spec;
	char err[512];

	if (fec_spec_from_string("ccsds", &spec, err, sizeof(err)) ||
	    sim_ref_conv_from_spec(&spec, &conv, err, sizeof(err)) ||
	    sim_ref_conv_spectrum(&conv, 15, &ccsds, err, sizeof(err))) {
		CHECK(0, "the ccsds spectrum: %s", err);
		return -1;
	}
	CHECK(ccsds.dfree == 10, "ccsds dfree %u", ccsds.dfree);
	for (unsigned i = 0; i < 15; i++)
		CHECK(ccsds.bit_errors[i] == cd[i], "ccsds c_%u = %g, tabulated %g", 10 + i,
		      ccsds.bit_errors[i], cd[i]);
	return 0;
}

static double ccsds_union_bound(double ebn0_db)
{
	return sim_ref_union_bound(&ccsds, ebn0_db);
}

static int run(const char *text, double ebn0, const struct sim_stop *st, uint64_t seed,
               struct sim_result *r)
{
	struct sim_code c;
	struct sim_cpu *e;
	char err[512];
	int rc;

	if (sim_code_open(&c, text, "awgn", false, 0, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (sim_cpu_open(&c, 0, &e, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		sim_code_close(&c);
		return -1;
	}
	rc = sim_cpu_run(e, ebn0, seed, 0, st, NULL, NULL, NULL, r, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s\n", err);
	sim_cpu_close(e);
	sim_code_close(&c);
	return rc;
}

static void ccsds_point(double ebn0, uint64_t min_fe, uint64_t max_frames)
{
	const struct sim_stop st = {.min_fe = min_fe, .max_frames = max_frames};
	struct sim_result r;

	if (run("ccsds", ebn0, &st, 20 + (uint64_t)ebn0, &r)) {
		CHECK(0, "ccsds at %.1f dB did not run", ebn0);
		return;
	}
	double ber = (double)r.t.bit_errors / (double)r.t.bits;
	double bound = ccsds_union_bound(ebn0), later = ccsds_union_bound(ebn0 - 0.3);
	printf("ccsds at %.1f dB: BER %.3e (%llu bit errors, %llu frame errors in %llu frames, "
	       "%.1f s); union bound %.3e, 0.3 dB later %.3e\n",
	       ebn0, ber, (unsigned long long)r.t.bit_errors, (unsigned long long)r.t.frame_errors,
	       (unsigned long long)r.t.frames, r.secs, bound, later);
	CHECK(r.t.frame_errors >= 10, "ccsds at %.1f dB: only %llu error events", ebn0,
	      (unsigned long long)r.t.frame_errors);
	CHECK(ber >= bound / 4 && ber <= later, "ccsds at %.1f dB: BER %.3e outside [%.3e, %.3e]",
	      ebn0, ber, bound / 4, later);
}

static void fer_point(const char *text, double ebn0, uint64_t frames, uint64_t lo, uint64_t hi)
{
	const struct sim_stop st = {.max_frames = frames};
	struct sim_result r;

	if (run(text, ebn0, &st, 5, &r)) {
		CHECK(0, "%s at %.1f dB did not run", text, ebn0);
		return;
	}
	printf("%s at %.1f dB: %llu of %llu frames wrong (%.1f s)\n", text, ebn0,
	       (unsigned long long)r.t.frame_errors, (unsigned long long)r.t.frames, r.secs);
	CHECK(r.t.frames == frames && r.t.frame_errors >= lo && r.t.frame_errors <= hi,
	      "%s at %.1f dB: %llu of %llu frames wrong, expected %llu..%llu", text, ebn0,
	      (unsigned long long)r.t.frame_errors, (unsigned long long)r.t.frames,
	      (unsigned long long)lo, (unsigned long long)hi);
}

int main(void)
{
	const char *dir = getenv("FECD_CODES_DIR");
	struct stat st;

	if (ccsds_spectrum())
		return check_done();
	ccsds_point(3.0, 100, 0);
	ccsds_point(4.0, 50, 0);
	ccsds_point(5.0, 30, 600000);

	if (!dir || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		printf("skipped the DVB-S2 and MacKay points: the LDPC matrices (../shared/codes, "
		       "FECD_CODES_DIR) are not here\n");
		return check_done();
	}
	fer_point("dvbs2-1/2", 1.2, 32, 0, 1);
	fer_point("dvbs2-1/2", 0.3, 32, 29, 32);
	fer_point("mackay-8000,iters=50", 2.0, 64, 0, 2);
	fer_point("mackay-8000,iters=50", 0.5, 32, 29, 32);
	return check_done();
}
