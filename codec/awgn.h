/*
 * The simulated channel of the feed, the tests and the benchmarks: BPSK (bit 0 -> +1, bit 1 -> -1)
 * over additive white Gaussian noise at a given Eb/N0 for a code of a given rate, and the channel
 * LLRs the receiver computes from it (2y / sigma^2).
 */
#ifndef FEC_AWGN_H
#define FEC_AWGN_H

#include <stddef.h>
#include <stdint.h>

#include "prng.h"

/* Noise standard deviation per real dimension for unit-energy BPSK at Eb/N0 (dB) and code rate. */
double fec_awgn_sigma(double ebn0_db, double rate);

/* code bits (one per byte) -> LLRs. sigma == 0: noiseless, LLR = +-noiseless_llr. */
void fec_awgn_llr(struct fec_prng *p, const uint8_t *bits, size_t n, double sigma,
		  float noiseless_llr, float *llr);

#endif
