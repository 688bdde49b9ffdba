/*
 * Bit LLRs to q-ary symbol log-probabilities (the f32v wire format, in=f32v): what a sender with
 * a binary channel model gives an nbldpc channel that takes q-ary input (fecd-feed does), and the
 * symbol order a receiver of soft=sym output reads back (nbldpc_symbol_bits). The p bits of a
 * symbol follow the family's bit_order, as the encoder writes them.
 */
#include <math.h>

#include "nbldpc.h"

/* log P(bit = 0) and log P(bit = 1) from LLR = log P0 / P1, without overflow either way */
static void bit_logp(float llr, float *lp0, float *lp1)
{
	const float a = fabsf(llr), t = -log1pf(expf(-a)); /* log of the likelier one */

	*lp0 = llr >= 0 ? t : t - a;
	*lp1 = llr >= 0 ? t - a : t;
}

void nbldpc_llr_to_symlogp(const float *llr, size_t nsym, unsigned p, enum nbldpc_bit_order order,
                           float *out)
{
	const unsigned q = 1u << p;

	for (size_t s = 0; s < nsym; s++) {
		float lp0[8], lp1[8];

		/* lp*[b]: symbol bit b (the coefficient of x^b) */
		for (unsigned j = 0; j < p; j++) {
			const unsigned b = order == NBLDPC_LSB_FIRST ? j : p - 1 - j;

			bit_logp(llr[s * p + j], &lp0[b], &lp1[b]);
		}
		for (unsigned a = 0; a < q; a++) {
			float v = 0.0f;

			for (unsigned b = 0; b < p; b++)
				v += a >> b & 1 ? lp1[b] : lp0[b];
			out[s * q + a] = v;
		}
	}
}

unsigned nbldpc_symbol_bit(unsigned p, unsigned j, enum nbldpc_bit_order order)
{
	return order == NBLDPC_LSB_FIRST ? j : p - 1 - j;
}
