/*
 * The convolutional encoder (feed, sink, tests). A stream encoder keeps its register and its
 * puncturing step between calls, so a stream cut into messages of any size encodes exactly as one
 * call would; a frame encoder starts every frame in state 0 at step 0 and, when terminated,
 * appends K-1 zero bits. Frames must fill whole puncturing periods (the decoder cuts frames into
 * periods), so a frame whose stage count is not a multiple of the period is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "conv_code.h"
#include "fec_impl.h"

struct conv_encoder {
	struct fec_encoder base;
	struct conv_code code;
	uint32_t max_frame_bits;
	unsigned state; /* the K-1 previous inputs, the most recent in the top bit */
	/* spread[reg]: word[reg]'s n code bits, one a byte in output order, for the unpunctured
	 * path's stores */
	uint8_t spread[2 * CONV_STATES_MAX][CONV_N_MAX];
	unsigned step; /* puncturing step of the next stage */
};

/* One stage: the input bit enters at the register's top; sent code bits go out in output order. */
static size_t encode_stage(struct conv_encoder *e, unsigned bit, uint8_t *out)
{
	const struct conv_code *c = &e->code;
	unsigned reg = bit << (c->k - 1) | e->state;
	unsigned word = c->word[reg], mask = c->sent[e->step];
	size_t o = 0;

	for (unsigned r = 0; r < c->n; r++)
		if (mask >> r & 1u)
			out[o++] = (uint8_t)(word >> r & 1u);
	e->state = reg >> 1;
	e->step = e->step + 1 == c->period ? 0 : e->step + 1;
	return o;
}

static int conv_encode(struct fec_encoder *enc, const uint8_t *bits, size_t nbits, uint8_t *out,
                       size_t *nout)
{
	struct conv_encoder *e = (struct conv_encoder *)enc;
	const struct conv_code *c = &e->code;
	size_t o = 0, stages = nbits;

	if (c->mode != CONV_MODE_STREAM) {
		if (nbits > e->max_frame_bits)
			return -FEC_ELONG;
		if (c->mode == CONV_MODE_TERMINATED)
			stages += c->k - 1;
		if (stages % c->period)
			return -FEC_EINVAL;
		e->state = 0;
		e->step = 0;
	}
	if (c->period == 1) {
		/* unpunctured: every output of every stage is sent, without a test per bit (a
		 * simulation encodes random bits, on which tests mispredict) */
		unsigned state = e->state, top = c->k - 1;

#define SPREAD_LOOP(N)                                                                             \
	for (size_t i = 0; i < nbits; i++, o += (N)) {                                             \
		unsigned reg = (unsigned)(bits[i] != 0) << top | state;                            \
		memcpy(out + o, e->spread[reg], (N));                                              \
		state = reg >> 1;                                                                  \
	}
		if (c->n == 2)
			SPREAD_LOOP(2)
		else if (c->n == 3)
			SPREAD_LOOP(3)
		else
			SPREAD_LOOP(4)
#undef SPREAD_LOOP
		e->state = state;
	} else {
		for (size_t i = 0; i < nbits; i++)
			o += encode_stage(e, bits[i] ? 1u : 0u, out + o);
	}
	for (size_t i = nbits; i < stages; i++)
		o += encode_stage(e, 0, out + o);
	*nout = o;
	return 0;
}

static void conv_encoder_reset(struct fec_encoder *enc)
{
	struct conv_encoder *e = (struct conv_encoder *)enc;

	e->state = 0;
	e->step = 0;
}

static void conv_encoder_destroy(struct fec_encoder *enc)
{
	free(enc);
}

static const struct fec_encoder_vtbl conv_encoder_vtbl = {
    .encode = conv_encode,
    .reset = conv_encoder_reset,
    .destroy = conv_encoder_destroy,
};

int conv_encoder_create(const struct fec_spec *spec, struct fec_encoder **out)
{
	struct conv_encoder *e;
	struct fec_spec s = *spec;
	int ret;

	ret = conv_spec_finish(&s, NULL, 0);
	if (ret)
		return ret;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FEC_ENOMEM;
	e->base.vt = &conv_encoder_vtbl;
	e->base.spec = s;
	conv_code_init(&e->code, &s.u.conv);
	e->max_frame_bits = s.u.conv.max_frame_bits;
	for (unsigned reg = 0; reg < 2 * e->code.nstates; reg++)
		for (unsigned r = 0; r < e->code.n; r++)
			e->spread[reg][r] = (uint8_t)(e->code.word[reg] >> r & 1u);
	*out = &e->base;
	return 0;
}
