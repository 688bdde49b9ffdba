/*
 * Reference curves for fecd-sim's plots and tests, as functions of Eb/N0 in dB (BPSK over AWGN,
 * soft decisions):
 *   - uncoded BPSK: BER = Q(sqrt(2 Eb/N0)), exact;
 *   - the union bound on the BER of a convolutional code (viterbi, and fano up to K = 12), from
 *     its distance spectrum, which sim_ref_conv_spectrum computes from the trellis:
 *     Pb <= (1/P) sum_d c_d Q(sqrt(2 d R Eb/N0)), P the information bits of one puncturing period;
 *   - the Shannon limits for a rate R: the binary-input AWGN channel's (the Eb/N0 at which its
 *     capacity is R; 0.187 dB at R = 1/2), which is what a BPSK-modulated code can reach, and the
 *     unconstrained Gaussian-input one, 10 log10((2^(2R) - 1) / (2R)) (0 dB at R = 1/2).
 *
 * sim_ref_for_spec gathers the curves that apply to a code as sampled lines for a plot
 * (sim_plot.h draws them dashed). Nothing here prints; functions return 0 or a negative FEC_E*
 * code with a message in err.
 */
#ifndef SIM_REF_H
#define SIM_REF_H

#include <stddef.h>
#include <stdint.h>

#include "fec.h"

/* Q(x) = P(N(0,1) > x). */
double sim_ref_q(double x);

/* Bit error rate of uncoded BPSK at Eb/N0 (dB). */
double sim_ref_bpsk_ber(double ebn0_db);

/* A feed-forward convolutional code of rate 1/n (before puncturing), as its trellis needs it:
 * polynomials in octal notation (bit k-1 taps the current input, conv.h's convention) and the
 * puncturing pattern (bit period-1-t of punct[j] set: output j of step t is sent; period 1 and
 * all ones: none). */
#define SIM_REF_CONV_K_MAX 12 /* 2^11 states: larger trellises are refused */
#define SIM_REF_CONV_N_MAX 4
#define SIM_REF_PUNCT_MAX  16
struct sim_ref_conv {
	unsigned k, n;
	uint64_t polys[SIM_REF_CONV_N_MAX];
	unsigned period;
	uint32_t punct[SIM_REF_CONV_N_MAX];
};

/* The distance spectrum: error events leave the all-zero path and first merge back into it
 * again; for each output (Hamming) weight d = dfree .. dfree + count - 1, events[i] error
 * events and bit_errors[i] (c_d) information-bit errors in them, summed over the P phases of
 * the puncturing period at which an event may start (P = 1 unpunctured). */
#define SIM_REF_SPECTRUM_MAX 48
struct sim_ref_spectrum {
	unsigned dfree;
	unsigned count;
	double events[SIM_REF_SPECTRUM_MAX];
	double bit_errors[SIM_REF_SPECTRUM_MAX];
	unsigned period; /* P: information bits per puncturing period, the bound's divisor */
	double rate;     /* information bits per sent code bit */
};

/* The convolutional code of a viterbi or fano spec; -FEC_ENOTSUP, with a message, for other
 * families and for trellises beyond SIM_REF_CONV_K_MAX. */
int sim_ref_conv_from_spec(const struct fec_spec *spec, struct sim_ref_conv *out, char *err,
                           size_t errlen);

/* The first count (1..SIM_REF_SPECTRUM_MAX) weights of the spectrum, from d_free on.
 * -FEC_EINVAL for a catastrophic code (a cycle of weight 0 away from the zero state: an
 * infinite number of bit errors at a finite weight) and for a pattern that sends nothing. */
int sim_ref_conv_spectrum(const struct sim_ref_conv *code, unsigned count,
                          struct sim_ref_spectrum *out, char *err, size_t errlen);

/* The union bound on the BER at Eb/N0 (dB), over the weights the spectrum holds (a truncated
 * sum: tight where the first terms dominate, BER below about 1e-3; it exceeds 1 at low Eb/N0). */
double sim_ref_union_bound(const struct sim_ref_spectrum *s, double ebn0_db);

/* Capacity of the binary-input AWGN channel in bits per channel use, at Es/N0 (dB) per BPSK
 * symbol: 1 - E[log2(1 + exp(-2Y/sigma^2))], Y ~ N(1, sigma^2), sigma^2 = 1 / (2 Es/N0). */
double sim_ref_biawgn_capacity(double esn0_db);

/* The Shannon limits on Eb/N0 (dB) for rate 0 < R < 1: binary input (capacity R, by bisection
 * to 1e-4 dB) and unconstrained Gaussian input. NaN for a rate out of range. */
double sim_ref_shannon_biawgn(double rate);
double sim_ref_shannon_gaussian(double rate);

/* ---- The reference lines a plot of one code draws. */

enum sim_ref_line_kind {
	SIM_REF_CURVE = 1, /* BER against Eb/N0 at the points x[], y[] */
	SIM_REF_VLINE,     /* a vertical line at Eb/N0 = x0: a limit */
};

#define SIM_REF_LINE_POINTS 64
struct sim_ref_line {
	enum sim_ref_line_kind kind;
	char label[96];
	double x0;
	unsigned npoints;
	double x[SIM_REF_LINE_POINTS], y[SIM_REF_LINE_POINTS];
};

/* What sim_ref_for_spec draws. */
#define SIM_REF_BPSK          0x1u /* uncoded BPSK */
#define SIM_REF_UNION         0x2u /* the union bound (convolutional codes; others have none) */
#define SIM_REF_SHANNON       0x4u /* the binary-input AWGN limit for the code's rate */
#define SIM_REF_SHANNON_GAUSS 0x8u /* the Gaussian-input limit too */
#define SIM_REF_ALL           (SIM_REF_BPSK | SIM_REF_UNION | SIM_REF_SHANNON)

/* The lines for a code over Eb/N0 [lo, hi] (dB), as far as they apply, into out[0..max):
 * *n gets how many. Curves keep their points with 1e-15 < BER <= 0.5. The union bound's label
 * names the code (label, e.g. "ccsds"): "union bound ccsds (dfree 10)". A code whose union
 * bound cannot be computed (not convolutional, K too large, catastrophic) simply has none;
 * errors are only for bad arguments. */
int sim_ref_for_spec(const struct fec_spec *spec, const char *label, unsigned what, double lo,
                     double hi, struct sim_ref_line *out, unsigned max, unsigned *n, char *err,
                     size_t errlen);

#endif
