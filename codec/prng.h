/*
 * Deterministic pseudo-random numbers shared by the feed, the sink, the tests and the benchmarks, so
 * that the sink can regenerate the feed's data from its seed: xoshiro256** seeded through
 * splitmix64, and Gaussian samples by the polar method. Same seed, same sequence, on every machine.
 */
#ifndef FEC_PRNG_H
#define FEC_PRNG_H

#include <stddef.h>
#include <stdint.h>

struct fec_prng {
	uint64_t s[4];
	double spare;     /* second Gaussian sample of the last pair */
	int have_spare;
};

void fec_prng_seed(struct fec_prng *p, uint64_t seed);
uint64_t fec_prng_next(struct fec_prng *p);
/* Uniform in [0, 1). */
double fec_prng_uniform(struct fec_prng *p);
/* Standard normal. */
double fec_prng_gauss(struct fec_prng *p);
/* n random bits, one per byte (0 or 1), taken 64 at a time from fec_prng_next, MSB first. The
 * sequence of bits depends only on the seed and the total count drawn so far being a multiple of 64
 * at each call's start; callers that need a reproducible bit stream draw in multiples of 64 or use
 * fec_bitstream below. */
void fec_prng_bits(struct fec_prng *p, uint8_t *bits, size_t n);

/* A reproducible bit stream: bit i of the stream for seed s is the same whatever the sizes of the
 * reads that reached it. The sink uses it to regenerate the feed's data at any offset. */
struct fec_bitstream {
	struct fec_prng prng;
	uint64_t word;     /* current 64-bit word */
	unsigned left;     /* bits of word not yet read */
	uint64_t pos;      /* bits read so far */
};
void fec_bitstream_init(struct fec_bitstream *bs, uint64_t seed);
void fec_bitstream_read(struct fec_bitstream *bs, uint8_t *bits, size_t n);
/* Moves forward to absolute bit position pos (>= the current one). */
void fec_bitstream_skip_to(struct fec_bitstream *bs, uint64_t pos);

#endif
