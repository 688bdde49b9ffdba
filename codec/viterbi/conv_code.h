/*
 * Internal to codec/viterbi/: a convolutional code's spec turned into the tables its encoder and
 * decoder share (the code word of every trellis branch, and which outputs each puncturing step
 * sends), so that both read the conventions of conv.h from one place.
 */
#ifndef CONV_CODE_H
#define CONV_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "fec.h"

#define CONV_STATES_MAX (1u << (CONV_K_MAX - 1))

struct conv_code {
	unsigned k, n;
	unsigned nstates;   /* 2^(k-1) */
	unsigned period;    /* puncturing period P, in stages (1: not punctured) */
	unsigned unit_syms; /* symbols sent per period U */
	enum conv_mode mode;
	/* Branch code words: for the register reg = input << (k-1) | state, bit r is output r's
	 * code bit (parity(reg & poly_r) ^ invert_r). */
	uint8_t word[2 * CONV_STATES_MAX];
	uint8_t sent[CONV_PUNCT_MAX];    /* bit r: output r is sent at step t of the period */
	uint8_t cum[CONV_PUNCT_MAX + 1]; /* symbols sent in the first t steps of a period */
};

/* spec must be finished (conv_spec_finish succeeded). */
void conv_code_init(struct conv_code *c, const struct conv_spec *s);

/* Symbols sent in the first `stages` stages from puncturing step 0. */
static inline uint64_t conv_syms_for_stages(const struct conv_code *c, uint64_t stages)
{
	return stages / c->period * c->unit_syms + c->cum[stages % c->period];
}

/* Whole stages carried by the first nsyms symbols from step 0 (a partial stage is not counted). */
static inline uint64_t conv_stages_in_syms(const struct conv_code *c, uint64_t nsyms)
{
	uint64_t stages = nsyms / c->unit_syms * c->period;
	unsigned rest = (unsigned)(nsyms % c->unit_syms), t = 0;

	while (t < c->period && c->cum[t + 1] <= rest)
		t++;
	return stages + t;
}

/* Checks a conv spec and derives what is derived; the finished copy is what encoders and
 * decoders use. */
int conv_spec_finish(struct fec_spec *spec, char *err, size_t errlen);

int conv_decoder_create(const struct fec_spec *spec, struct fec_decoder **out);
int conv_encoder_create(const struct fec_spec *spec, struct fec_encoder **out);

#endif
