/*
 * fecd-sim's reference curves against published values:
 *   - distance spectra (c_d: information-bit errors of the error events of weight d, a_d: the
 *     events): K=7 (171,133), d_free 10, c_d = 36, 0, 211, 0, 1404, 0, 11633, 0, 77433 and a_d =
 *     11, 0, 38, 0, 193, 0, 1331, 0, 7275 (Frenger, Orten, Ottosson, "Convolutional codes with
 * optimum distance spectrum", IEEE Comm. Letters 3(11), 1999; the same c_d in scikit-dsp-comm's
 *     fec_conv.conv_Pb_bound example); K=3 (7,5), d_free 5, c_d = 1, 4, 12, 32, 80 and a_d = 1,
 *     2, 4, 8, 16 (its transfer function D^5 N / (1 - 2DN)); the K=7 code punctured to r=2/3
 *     (802.11: A=11, B=10), d_free 6, c_d = 3, 70, 285, 1276, 6160 and to r=3/4 (A=110, B=101),
 *     d_free 5, c_d = 42, 201, 1492, 10469, 62935, summed over the period's phases (Haccoun and
 *     Begin, "High-rate punctured convolutional codes for Viterbi and sequential decoding", IEEE
 *     Trans. Commun. 37(11), 1989, as the 802.11a analyses quote them);
 *   - the binary-input AWGN Shannon limits (Eb/N0 where capacity = R): R=1/3 -0.495 dB, R=1/2
 *     0.187 dB, R=3/4 1.626 dB, and the Gaussian-input ones: R=1/3 -0.55 dB, R=1/2 0 dB, R=3/4
 *     0.86 dB (10 log10((2^(2R)-1)/(2R)));
 *   - Q and uncoded BPSK against values of erfc, and the shapes: every curve decreases with
 *     Eb/N0, capacity increases, the binary limit lies above the Gaussian one;
 *   - a catastrophic code is refused, and a puncturing "pattern" of all ones gives the code's
 *     own spectrum and bound.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "sim_ref.h"

static void check_spectrum(const char *name, const struct sim_ref_conv *code, unsigned dfree,
                           const double *c, const double *a, unsigned count)
{
	struct sim_ref_spectrum s;
	char err[256] = "";
	int rc = sim_ref_conv_spectrum(code, count, &s, err, sizeof(err));

	CHECK(rc == 0, "%s: %s", name, err);
	if (rc)
		return;
	CHECK(s.dfree == dfree, "%s: dfree %u, want %u", name, s.dfree, dfree);
	for (unsigned i = 0; i < count; i++) {
		CHECK(s.bit_errors[i] == c[i], "%s: c_%u = %.0f, want %.0f", name, dfree + i,
		      s.bit_errors[i], c[i]);
		if (a)
			CHECK(s.events[i] == a[i], "%s: a_%u = %.0f, want %.0f", name, dfree + i,
			      s.events[i], a[i]);
	}
}

static struct sim_ref_conv conv(unsigned k, uint64_t g1, uint64_t g2, unsigned period, uint32_t p1,
                                uint32_t p2)
{
	struct sim_ref_conv c = {
	    .k = k, .n = 2, .polys = {g1, g2}, .period = period, .punct = {p1, p2}};
	return c;
}

static void test_spectra(void)
{
	static const double c7[] = {36, 0, 211, 0, 1404, 0, 11633, 0, 77433};
	static const double a7[] = {11, 0, 38, 0, 193, 0, 1331, 0, 7275};
	static const double c3[] = {1, 4, 12, 32, 80}, a3[] = {1, 2, 4, 8, 16};
	static const double c23[] = {3, 70, 285, 1276, 6160};
	static const double c34[] = {42, 201, 1492, 10469, 62935};
	struct sim_ref_conv k7 = conv(7, 0171, 0133, 1, 1, 1);
	struct sim_ref_conv k7b = conv(7, 0171, 0133, 2, 3, 3); /* "punctured" by all ones */
	struct sim_ref_conv k3 = conv(3, 07, 05, 1, 1, 1);
	struct sim_ref_conv r23 = conv(7, 0133, 0171, 2, 3, 2);
	struct sim_ref_conv r34 = conv(7, 0133, 0171, 3, 6, 5);
	struct sim_ref_conv bad = conv(3, 06, 05, 1, 1, 1); /* 1+D, 1+D^2: common factor 1+D */
	struct sim_ref_conv none = conv(3, 07, 05, 2, 0, 0);
	struct sim_ref_spectrum s, s2;
	char err[256] = "";

	check_spectrum("K=7 (171,133)", &k7, 10, c7, a7, 9);
	check_spectrum("K=7 (133,171)",
	               &(struct sim_ref_conv){
	                   .k = 7, .n = 2, .polys = {0133, 0171}, .period = 1, .punct = {1, 1}},
	               10, c7, a7, 7);
	check_spectrum("K=3 (7,5)", &k3, 5, c3, a3, 5);
	check_spectrum("K=7 r=2/3", &r23, 6, c23, NULL, 5);
	check_spectrum("K=7 r=3/4", &r34, 5, c34, NULL, 5);

	/* All-ones puncturing of period 2: each event counted at both phases, the bound the same.
	 */
	CHECK(sim_ref_conv_spectrum(&k7b, 7, &s2, err, sizeof(err)) == 0, "%s", err);
	CHECK(sim_ref_conv_spectrum(&k7, 7, &s, err, sizeof(err)) == 0, "%s", err);
	CHECK(s2.dfree == 10 && s2.bit_errors[0] == 72 && s2.period == 2 && s2.rate == 0.5,
	      "period 2 of ones: dfree %u c_10 %.0f period %u rate %g", s2.dfree, s2.bit_errors[0],
	      s2.period, s2.rate);
	CHECK(fabs(sim_ref_union_bound(&s2, 4.0) / sim_ref_union_bound(&s, 4.0) - 1.0) < 1e-12,
	      "bound with period 2 of ones differs");

	CHECK(sim_ref_conv_spectrum(&bad, 5, &s, err, sizeof(err)) == -FEC_EINVAL &&
	          strstr(err, "catastrophic"),
	      "catastrophic code: %s", err);
	CHECK(sim_ref_conv_spectrum(&none, 5, &s, err, sizeof(err)) == -FEC_EINVAL &&
	          strstr(err, "sends no bit"),
	      "empty pattern: %s", err);
	CHECK(sim_ref_conv_spectrum(&k7, 0, &s, err, sizeof(err)) == -FEC_EINVAL, "count 0");
	CHECK(sim_ref_conv_spectrum(&k7, SIM_REF_SPECTRUM_MAX + 1, &s, err, sizeof(err)) ==
	          -FEC_EINVAL,
	      "count too large");
}

/* The bound itself: CCSDS at 4 dB and 5 dB from the published c_d by hand, and its shape. */
static void test_union_bound(void)
{
	static const double c7[] = {36, 0, 211, 0, 1404, 0, 11633, 0, 77433};
	struct sim_ref_conv k7 = conv(7, 0171, 0133, 1, 1, 1);
	struct sim_ref_spectrum s;
	char err[256] = "";
	double prev = 1.0;

	CHECK(sim_ref_conv_spectrum(&k7, 9, &s, err, sizeof(err)) == 0, "%s", err);
	for (double eb = 4.0; eb <= 5.0; eb += 1.0) {
		double want = 0.0, got = sim_ref_union_bound(&s, eb);

		for (unsigned i = 0; i < 9; i++)
			want += c7[i] * 0.5 * erfc(sqrt((10.0 + i) * 0.5 * pow(10.0, eb / 10.0)));
		CHECK(fabs(got / want - 1.0) < 1e-12, "%.0f dB: bound %.6g, want %.6g", eb, got,
		      want);
	}
	/* 4 dB: the bound is 1.8e-5 over these 9 weights (1.9e-5 over 20; fecd-sim measures
	 * 1.6e-5). */
	CHECK(sim_ref_union_bound(&s, 4.0) > 5e-6 && sim_ref_union_bound(&s, 4.0) < 2e-5,
	      "4 dB: %.3g", sim_ref_union_bound(&s, 4.0));
	for (double eb = 2.0; eb <= 10.0; eb += 0.25) {
		double b = sim_ref_union_bound(&s, eb);

		CHECK(b < prev, "bound not decreasing at %.2f dB", eb);
		CHECK(b < sim_ref_bpsk_ber(eb) || eb < 3.0, "bound above uncoded at %.2f dB", eb);
		prev = b;
	}
}

static void test_q_bpsk(void)
{
	double prev = 1.0;

	CHECK(sim_ref_q(0.0) == 0.5, "Q(0) = %g", sim_ref_q(0.0));
	CHECK(fabs(sim_ref_q(1.0) - 0.158655253931457) < 1e-14, "Q(1) = %.15g", sim_ref_q(1.0));
	CHECK(fabs(sim_ref_q(3.0) / 1.349898031630095e-3 - 1) < 1e-12, "Q(3) = %.15g",
	      sim_ref_q(3.0));
	CHECK(fabs(sim_ref_bpsk_ber(0.0) - 0.0786496035251426) < 1e-14, "BPSK 0 dB: %.15g",
	      sim_ref_bpsk_ber(0.0));
	/* the textbook 9.6 dB for 1e-5 */
	CHECK(sim_ref_bpsk_ber(9.6) > 0.9e-5 && sim_ref_bpsk_ber(9.6) < 1.1e-5, "BPSK 9.6 dB: %g",
	      sim_ref_bpsk_ber(9.6));
	for (double eb = -5.0; eb <= 12.0; eb += 0.5) {
		CHECK(sim_ref_bpsk_ber(eb) < prev, "BPSK not decreasing at %.1f dB", eb);
		prev = sim_ref_bpsk_ber(eb);
	}
}

static void test_shannon(void)
{
	static const struct {
		double rate, biawgn, gauss;
	} known[] = {{1.0 / 3, -0.495, -0.55}, {0.5, 0.187, 0.0}, {0.75, 1.626, 0.86}};
	double prev_c = 0.0, prev_l = -10.0;

	for (unsigned i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		double b = sim_ref_shannon_biawgn(known[i].rate);
		double g = sim_ref_shannon_gaussian(known[i].rate);

		CHECK(fabs(b - known[i].biawgn) < 0.005, "R=%.3f: BI-AWGN limit %.4f dB, want %.3f",
		      known[i].rate, b, known[i].biawgn);
		CHECK(fabs(g - known[i].gauss) < 0.005, "R=%.3f: Gaussian limit %.4f dB, want %.2f",
		      known[i].rate, g, known[i].gauss);
		CHECK(b > g, "R=%.3f: binary limit below the Gaussian one", known[i].rate);
		/* capacity at the limit is the rate */
		CHECK(fabs(sim_ref_biawgn_capacity(b + 10 * log10(known[i].rate)) - known[i].rate) <
		          1e-4,
		      "R=%.3f: capacity at the limit", known[i].rate);
	}
	CHECK(fabs(sim_ref_shannon_gaussian(0.5)) < 1e-12, "Gaussian R=1/2: %g",
	      sim_ref_shannon_gaussian(0.5));
	for (double es = -10.0; es <= 10.0; es += 0.5) {
		double c = sim_ref_biawgn_capacity(es);

		CHECK(c > prev_c && c < 1.0, "capacity %.6f at %.1f dB", c, es);
		/* below the Gaussian channel's 0.5 log2(1 + 2 Es/N0) */
		CHECK(c < 0.5 * log2(1 + 2 * pow(10, es / 10)), "capacity above Gaussian at %.1f",
		      es);
		prev_c = c;
	}
	for (double r = 0.05; r < 0.96; r += 0.05) {
		double l = sim_ref_shannon_biawgn(r);

		CHECK(l > prev_l, "limit not increasing at R=%.2f", r);
		prev_l = l;
	}
	CHECK(isnan(sim_ref_shannon_biawgn(1.0)) && isnan(sim_ref_shannon_biawgn(0.0)),
	      "rate out of range");
}

/* From codes as users name them, and the lines for a plot. */
static void test_for_spec(void)
{
	struct fec_spec spec;
	struct sim_ref_conv code;
	struct sim_ref_line lines[8];
	unsigned n = 0, vlines = 0, curves = 0;
	char err[256] = "";

	CHECK(fec_spec_from_string("ccsds", &spec, err, sizeof(err)) == 0, "%s", err);
	CHECK(sim_ref_conv_from_spec(&spec, &code, err, sizeof(err)) == 0, "%s", err);
	CHECK(code.k == 7 && code.n == 2 && code.polys[0] == 0171 && code.polys[1] == 0133,
	      "ccsds: K %u polys %llo %llo", code.k, (unsigned long long)code.polys[0],
	      (unsigned long long)code.polys[1]);
	CHECK(sim_ref_for_spec(&spec, "ccsds", SIM_REF_ALL | SIM_REF_SHANNON_GAUSS, 0.0, 8.0, lines,
	                       8, &n, err, sizeof(err)) == 0,
	      "%s", err);
	CHECK(n == 4, "ccsds: %u lines", n);
	for (unsigned i = 0; i < n; i++) {
		if (lines[i].kind == SIM_REF_VLINE) {
			vlines++;
			continue;
		}
		curves++;
		CHECK(lines[i].npoints > 10, "%s: %u points", lines[i].label, lines[i].npoints);
		for (unsigned p = 0; p < lines[i].npoints; p++)
			CHECK(lines[i].y[p] > 0 && lines[i].y[p] <= 0.5, "%s: y %g", lines[i].label,
			      lines[i].y[p]);
	}
	CHECK(vlines == 2 && curves == 2, "ccsds: %u limits, %u curves", vlines, curves);
	CHECK(strstr(lines[1].label, "union bound ccsds (dfree 10)"), "label '%s'", lines[1].label);
	CHECK(sim_ref_for_spec(&spec, "ccsds", SIM_REF_ALL, 0.0, 8.0, lines, 2, &n, err,
	                       sizeof(err)) == -FEC_ERANGE,
	      "room for 2 lines only");

	/* Punctured: the DVB-S r=3/4 preset, d_free 5 like 802.11's. */
	CHECK(fec_spec_from_string("dvbs-3/4", &spec, err, sizeof(err)) == 0, "%s", err);
	CHECK(sim_ref_conv_from_spec(&spec, &code, err, sizeof(err)) == 0, "%s", err);
	{
		struct sim_ref_spectrum s;

		CHECK(sim_ref_conv_spectrum(&code, 5, &s, err, sizeof(err)) == 0, "%s", err);
		CHECK(s.dfree == 5 && s.period == 3 && fabs(s.rate - 0.75) < 1e-12,
		      "dvbs-3/4: dfree %u period %u rate %g", s.dfree, s.period, s.rate);
	}
	/* Fano's WirelessHD K=7 r=1/3 code has a trellis too. */
	CHECK(fec_spec_from_string("whd-k7", &spec, err, sizeof(err)) == 0, "%s", err);
	CHECK(sim_ref_conv_from_spec(&spec, &code, err, sizeof(err)) == 0 && code.n == 3, "%s",
	      err);
	/* LDPC has no union bound here: refused, and left out of the lines without an error. */
	CHECK(fec_spec_from_string("ldpc,code=regular,n=96,dv=3,dc=6", &spec, err, sizeof(err)) ==
	          0,
	      "%s", err);
	CHECK(sim_ref_conv_from_spec(&spec, &code, err, sizeof(err)) == -FEC_ENOTSUP, "ldpc");
	CHECK(sim_ref_for_spec(&spec, "ldpc", SIM_REF_ALL, 0.0, 4.0, lines, 8, &n, err,
	                       sizeof(err)) == 0 &&
	          n == 2,
	      "ldpc: %u lines (%s)", n, err);
	CHECK(sim_ref_for_spec(&spec, "x", SIM_REF_ALL, 4.0, 1.0, lines, 8, &n, err, sizeof(err)) ==
	          -FEC_EINVAL,
	      "range backwards");
}

int main(void)
{
	test_spectra();
	test_union_bound();
	test_q_bpsk();
	test_shannon();
	test_for_spec();
	return check_done();
}
