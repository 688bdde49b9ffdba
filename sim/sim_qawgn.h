/*
 * BPSK over AWGN straight into int8 LLRs, for fecd-sim's CPU engine: the quantized channel's own
 * distribution sampled exactly, rather than a Gaussian sample then rounded. A sent 0 arrives as
 * LLR * scale = A + B z (A = scale * 2/sigma^2, B = scale * 2/sigma, z standard normal), which
 * fecd-feed's s8 rule maps to round(A + B z) clamped to +-127: 255 values whose probabilities
 * come from the normal CDF (erfc, in double). They are drawn by Walker's alias method (Vose's
 * construction): one 64-bit PRNG word a value, 8 bits choosing one of 256 buckets and 56 bits
 * comparing with its threshold, so that probabilities down to 2^-56 a value are kept (the tails
 * that BER 1e-10 needs are far above that). A sent 1 gives the negated value (the channel and
 * the rule are symmetric). About a third of the cost of a ziggurat sample and its rounding.
 */
#ifndef FECD_SIM_QAWGN_H
#define FECD_SIM_QAWGN_H

#include <stddef.h>
#include <stdint.h>

#include "prng.h"

struct sim_qawgn {
	uint64_t thresh[256]; /* bucket b keeps its own value when the draw's 56 bits are below */
	int8_t value[512];    /* bucket b's own value at b, its alias at 256 + b */
};

/* The table for sigma (per real dimension, > 0) and scale (int8 per LLR, > 0). */
void sim_qawgn_build(struct sim_qawgn *t, double sigma, double scale);

/* n code bits (0 or 1) through the channel into int8 LLRs. */
void sim_qawgn_apply(const struct sim_qawgn *t, struct fec_prng *p, const uint8_t *bits, size_t n,
                     int8_t *out);

/* The probability of int8 value v (-127..127) for a sent 0, as the table was built from. */
double sim_qawgn_prob(double sigma, double scale, int v);

#endif
