/*
 * Fast Gaussian samples for fecd-sim's CPU engine: the ziggurat method of Marsaglia and Tsang
 * (2000) over codec/prng.h's xoshiro256**, two 32-bit draws per 64-bit word. The noise of a
 * simulation must cost less than its decoder: the polar method of fec_prng_gauss takes a log and
 * a square root per pair, the ziggurat a table lookup and a multiply for over 99 % of samples.
 * Deterministic: the same PRNG state gives the same samples on every machine (the rare wedge and
 * tail samples use libm's exp and log, whose results glibc rounds correctly for these inputs).
 */
#ifndef FECD_SIM_NOISE_H
#define FECD_SIM_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "prng.h"

/* Builds the tables once (thread-safe). */
void sim_noise_init(void);

/* n standard normal samples into out. */
void sim_noise_gauss(struct fec_prng *p, float *out, size_t n);

#endif
