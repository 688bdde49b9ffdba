/*
 * BPSK over AWGN straight into int8 LLRs, for fecd-sim's CPU engine: the quantized channel's own
 * distribution sampled exactly, rather than a Gaussian sample then rounded. A sent 0 arrives as
 * LLR * scale = A + B z (A = scale * 2/sigma^2, B = scale * 2/sigma, z standard normal), which
 * fecd-feed's s8 rule maps to round(A + B z) clamped to +-127: 255 values whose probabilities
 * come from the normal CDF (erfc, in double). They are drawn by Walker's alias method (Vose's
 * construction) over 256 buckets, each split at a 56-bit threshold, so that probabilities are
 * kept to 2^-64 (the tails that BER 1e-10 needs are far above that). A sent 1 gives the
 * negated value (the channel and the rule are symmetric).
 *
 * The random numbers: 8 xoshiro256** lanes seeded (splitmix64) from one word of the frame's
 * PRNG; 64 values at a time take three steps of every lane, whose bytes, in little-endian order,
 * give each value its bucket, then the top and the next 8 bits of its comparison with the
 * threshold. Where those 16 bits equal the threshold's (2^-16 of the values) the other 40 bits
 * come from a word of the frame's PRNG, value by value in order. So a value costs 3 bytes of PRNG
 * output and byte lookups, which AVX-512 VBMI does 64 at a time (sim_qawgn_avx512.c), AVX2 8 at
 * a time after a scalar fetch of the buckets (sim_qawgn_avx2.c); the portable code (the
 * reference, and the path on other CPUs) gives the same values, and the SIMD level in force
 * (cpu_simd.h, FECD_SIMD) picks among them.
 */
#ifndef FECD_SIM_QAWGN_H
#define FECD_SIM_QAWGN_H

#include <stddef.h>
#include <stdint.h>

#include "prng.h"

#define SIM_QAWGN_LANES 8
#define SIM_QAWGN_BLOCK 64 /* values made together: a lane step's bytes */

struct sim_qawgn {
	/* bucket b: its own value, its alias (int8 values as bytes), and its threshold's top
	 * 16 bits as two bytes: the value is its own when the draw is below the threshold;
	 * buckets that keep their own value always have alias == own */
	_Alignas(64) uint8_t own[256];
	_Alignas(64) uint8_t alias[256];
	_Alignas(64) uint8_t thi[256];
	_Alignas(64) uint8_t tlo[256];
	uint64_t trest[256]; /* the threshold's other 40 bits */
	uint32_t entry[256]; /* the same for the portable code: own | alias << 8 | top 16 << 16 */
};

/* The lanes' state: s[k][l] is word k of lane l. */
struct sim_qawgn_lanes {
	_Alignas(64) uint64_t s[4][SIM_QAWGN_LANES];
};

/* The table for sigma (per real dimension, > 0) and scale (int8 per LLR, > 0). */
void sim_qawgn_build(struct sim_qawgn *t, double sigma, double scale);

/* n code bits (0 or 1) through the channel into int8 LLRs; p is the frame's PRNG (one word
 * seeds the lanes, a few more settle ties). */
void sim_qawgn_apply(const struct sim_qawgn *t, struct fec_prng *p, const uint8_t *bits, size_t n,
                     int8_t *out);

/* The same with the portable code, whatever the SIMD level (for the tests). */
void sim_qawgn_apply_portable(const struct sim_qawgn *t, struct fec_prng *p, const uint8_t *bits,
                              size_t n, int8_t *out);

/* The probability of int8 value v (-127..127) for a sent 0, as the table was built from. */
double sim_qawgn_prob(double sigma, double scale, int v);

/* Internal: the value of bucket b whose 16 comparison bits tied with its threshold's. */
static inline uint8_t sim__qawgn_tie(const struct sim_qawgn *t, struct fec_prng *p, unsigned b)
{
	return (fec_prng_next(p) >> 24) < t->trest[b] ? t->own[b] : t->alias[b];
}

#if defined(FECD_SIM_AVX512)
/* Internal: the whole blocks and the tail with AVX-512 (F, BW, VBMI), or AVX2; the lanes
 * seeded. */
void sim__qawgn_apply_avx512(const struct sim_qawgn *t, struct sim_qawgn_lanes *lanes,
                             struct fec_prng *p, const uint8_t *bits, size_t n, int8_t *out);
void sim__qawgn_apply_avx2(const struct sim_qawgn *t, struct sim_qawgn_lanes *lanes,
                           struct fec_prng *p, const uint8_t *bits, size_t n, int8_t *out);
#endif

#endif
