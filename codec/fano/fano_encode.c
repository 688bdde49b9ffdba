/*
 * The fano family's code tables (fano_code.h) and its encoder, for the feed, the sink and the
 * tests: one whole frame per call, frame_bits information bits (one per byte) in, then K-1 zero
 * tail bits; each stage sends its n code bits in output order (polys order), the order of
 * WSJT-X's encoder (POLY1's bit, then POLY2's, for each input bit). The register starts at zero
 * for every frame.
 */
#include <stdlib.h>
#include <string.h>

#include "bitpack.h"
#include "fano.h"
#include "fano_code.h"

void fano_code_init(struct fano_code *c, const struct fano_spec *s)
{
	memset(c, 0, sizeof(*c));
	c->k = s->k;
	c->n = s->n;
	c->info_bits = s->frame_bits;
	c->stages = s->frame_bits + s->k - 1;
	c->lut_bytes = (s->k + 7) / 8;
	for (unsigned r = 0; r < c->n; r++) {
		c->poly[0][r] = s->polys_karn[r];
		c->poly[1][r] = fano_bitrev(s->polys_karn[r], s->k);
	}
	for (unsigned dir = 0; dir < 2; dir++)
		for (unsigned j = 0; j < c->lut_bytes; j++)
			for (unsigned v = 0; v < 256; v++) {
				unsigned w = 0;

				for (unsigned r = 0; r < c->n; r++) {
					const uint64_t taps = c->poly[dir][r] >> (8 * j) & 0xffu;

					w |= (unsigned)__builtin_parity((unsigned)(taps & v)) << r;
				}
				c->lut[dir][j][v] = (uint8_t)w;
			}
}

struct fano_encoder {
	struct fec_encoder base;
	struct fano_code code;
};

/* 64 stages at a time: the inputs (then the zero tail) packed into a word, each output's code
 * bits the XOR of that word shifted by its polynomial's taps (reg bit d is input t - d), then
 * spread one a byte (bitpack.h). */
static int fano_encode(struct fec_encoder *enc, const uint8_t *bits, size_t nbits, uint8_t *out,
                       size_t *nout)
{
	const struct fano_code *c = &((struct fano_encoder *)enc)->code;
	uint64_t hist = 0, o[FANO_N_MAX]; /* hist: the previous 64 inputs */
	size_t done = 0;

	if (nbits != c->info_bits)
		return nbits < c->info_bits ? -FEC_ESHORT : -FEC_ELONG;
	for (uint32_t base = 0; base < c->stages; base += 64) {
		const uint32_t nb = c->stages - base < 64 ? c->stages - base : 64;
		const uint32_t ni = base >= c->info_bits       ? 0
		                    : c->info_bits - base < nb ? c->info_bits - base
		                                               : nb;
		const uint64_t u = fec_pack_word_lsb(bits + base, ni);

		for (unsigned r = 0; r < c->n; r++) {
			const uint64_t poly = c->poly[0][r];
			uint64_t x = poly & 1u ? u : 0;

			for (unsigned d = 1; d < c->k; d++)
				if (poly >> d & 1u)
					x ^= u << d | hist >> (64 - d);
			o[r] = x;
		}
		hist = u;
		fec_spread_words_lsb(o, c->n, nb, out + done);
		done += (size_t)nb * c->n;
	}
	*nout = done;
	return 0;
}

static void fano_encoder_reset(struct fec_encoder *enc)
{
	(void)enc; /* every frame starts from state 0 */
}

static void fano_encoder_destroy(struct fec_encoder *enc)
{
	free(enc);
}

static const struct fec_encoder_vtbl fano_encoder_vtbl = {
    .encode = fano_encode,
    .reset = fano_encoder_reset,
    .destroy = fano_encoder_destroy,
};

int fano_encoder_create(const struct fec_spec *spec, struct fec_encoder **out)
{
	struct fano_encoder *e;
	struct fec_spec s = *spec;
	int ret = fano_spec_finish(&s, NULL, 0);

	if (ret)
		return ret;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FEC_ENOMEM;
	e->base.vt = &fano_encoder_vtbl;
	e->base.spec = s;
	fano_code_init(&e->code, &s.u.fano);
	*out = &e->base;
	return 0;
}
