/*
 * The convolutional encoder (feed, sink, tests). A stream encoder keeps its register and its
 * puncturing step between calls, so a stream cut into messages of any size encodes exactly as one
 * call would; a frame encoder starts every frame in state 0 at step 0 and, when terminated,
 * appends K-1 zero bits. Frames must fill whole puncturing periods (the decoder cuts frames into
 * periods), so a frame whose stage count is not a multiple of the period is refused.
 *
 * Unpunctured codes are encoded 64 stages at a time: the inputs packed into a word, each
 * output's 64 code bits the XOR of that word shifted by its taps' delays (the code is linear
 * but for its inverted outputs), then spread one a byte (bitpack.h). Punctured codes go a stage at
 * a time from the branch table.
 */
#include <stdlib.h>
#include <string.h>

#include "bitpack.h"
#include "conv_code.h"
#include "fec_impl.h"

struct conv_encoder {
	struct fec_encoder base;
	struct conv_code code;
	uint32_t max_frame_bits;
	unsigned state; /* the K-1 previous inputs, the most recent in the top bit */
	unsigned step;  /* puncturing step of the next stage */
	/* the packed path: output r is invert bit r XOR the inputs u[t - d] for each bit d of
	 * taps[r] */
	uint32_t taps[CONV_N_MAX];
	unsigned invert;
};

/* Unpunctured stages 64 at a time (the file's head); the state moves on. */
static size_t encode_packed(struct conv_encoder *e, const uint8_t *bits, size_t nbits, uint8_t *out)
{
	const struct conv_code *c = &e->code;
	const unsigned km1 = c->k - 1, n = c->n;
	uint64_t hist = km1 ? (uint64_t)e->state << (64 - km1) : 0; /* bit 63: the last input */
	uint64_t o[CONV_N_MAX];
	size_t done = 0;

	for (size_t base = 0; base < nbits; base += 64) {
		const size_t nb = nbits - base < 64 ? nbits - base : 64;
		const uint64_t u = fec_pack_word_lsb(bits + base, nb);

		for (unsigned r = 0; r < n; r++) {
			uint64_t x = e->invert >> r & 1u ? ~0ull : 0;

			for (unsigned d = 0; d <= km1; d++)
				if (e->taps[r] >> d & 1u)
					x ^= d ? u << d | hist >> (64 - d) : u;
			o[r] = x;
		}
		hist = u;
		fec_spread_words_lsb(o, n, nb, out + done);
		done += nb * n;
	}
	/* the state: the last K-1 inputs, the most recent in the top bit */
	for (size_t i = nbits > km1 ? nbits - km1 : 0; i < nbits; i++)
		e->state = ((unsigned)(bits[i] != 0) << km1 | e->state) >> 1;
	return done;
}

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
		o = encode_packed(e, bits, nbits, out);
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
	/* the taps from the branch words (parity(reg & poly) ^ invert: linear but for invert):
	 * u[t - d] sits at register bit k - 1 - d */
	e->invert = e->code.word[0];
	for (unsigned d = 0; d < e->code.k; d++) {
		const unsigned w = e->code.word[1u << (e->code.k - 1 - d)] ^ e->code.word[0];

		for (unsigned r = 0; r < e->code.n; r++)
			e->taps[r] |= (w >> r & 1u) << d;
	}

	*out = &e->base;
	return 0;
}
