/*
 * Internal to codec/fano/: a fano spec turned into the tables its encoder and decoders share, the
 * seed's look-up tables generalised to K = 64. The code word of a trellis branch is the XOR of
 * one table entry per byte of the encoder register, so that no decoder computes a parity: for the
 * register reg (bit 0 the current input, bit j the input j stages before, K bits), output r's code
 * bit is bit r of fano_word(lut, reg). The backward decoder of BFA walks the time-reversed code,
 * whose polynomials are the forward ones with their K bits reversed: it has its own table.
 */
#ifndef FANO_CODE_H
#define FANO_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "fec_impl.h"

struct fano_code {
	unsigned k, n;
	uint32_t info_bits; /* information bits per frame */
	uint32_t stages;    /* info_bits + k - 1: trellis stages (tail included) per frame */
	unsigned lut_bytes; /* register bytes the tables cover: ceil(k / 8) */
	uint64_t poly[2][FANO_N_MAX]; /* [0] forward, [1] backward; Karn's notation */
	uint8_t lut[2][8][256];       /* [direction][register byte][its value]: code word part */
};

/* spec must be finished (fano_spec_finish succeeded). */
void fano_code_init(struct fano_code *c, const struct fano_spec *s);

/* The n-bit code word of the branch whose register is reg, in direction dir (0 forward). */
static inline unsigned fano_word(const struct fano_code *c, unsigned dir, uint64_t reg)
{
	unsigned w = 0;

	for (unsigned j = 0; j < c->lut_bytes; j++)
		w ^= c->lut[dir][j][(reg >> (8 * j)) & 0xffu];
	return w;
}

/* Reverses the low k bits of v (octal notation <-> Karn's; a code <-> its time reversal). */
static inline uint64_t fano_bitrev(uint64_t v, unsigned k)
{
	uint64_t r = 0;

	for (unsigned i = 0; i < k; i++)
		r |= (v >> i & 1u) << (k - 1 - i);
	return r;
}

int fano_spec_finish(struct fec_spec *spec, char *err, size_t errlen);
int fano_decoder_create(const struct fec_spec *spec, struct fec_decoder **out);
/* Whether dec (a fano decoder) decodes on the fast path above the portable SIMD level: its 32-bit
 * metrics cannot overflow for its budget and delta (fano_fast.h). For the tests. */
bool fano_decoder_fast_usable(const struct fec_decoder *dec);
int fano_encoder_create(const struct fec_spec *spec, struct fec_encoder **out);

#endif
