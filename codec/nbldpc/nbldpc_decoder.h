/*
 * Internal to the nbldpc family: the decoder object (the code, the field, what the spec chose)
 * shared by nbldpc_coder.c (objects, channel mapping, output) and nbldpc_decode.c (the
 * decoders' iterations on one frame).
 */
#ifndef NBLDPC_DECODER_H
#define NBLDPC_DECODER_H

#include "fec_impl.h"
#include "nbldpc.h"

struct nbldpc_decoder {
	struct fec_decoder base;
	struct nbldpc_code *code;
	unsigned q, p;
	/* bit j (0 = first sent) of the p bits of symbol a is (a >> bit_shift[j]) & 1 */
	uint8_t bit_shift[8];
};

/* Scratch one thread needs for one frame (both decoders). */
size_t nbldpc__scratch_bytes(const struct nbldpc_decoder *d);

/* One frame. prior: n * q symbol log-likelihoods (any offset per symbol). FFT-BP writes the
 * a-posteriori log-probabilities (normalised, n * q) to app, the hard decision to hard (n
 * symbols); returns iterations run, and *ok whether the decision satisfies H. */
unsigned nbldpc__fftbp(const struct nbldpc_decoder *d, void *scratch, const float *prior,
                       float *app, uint8_t *hard, bool *ok);
/* Layered min-max in fixed point: cost: n * q integer costs (0 the likeliest of each symbol,
 * larger less likely), replaced by the a-posteriori costs. */
unsigned nbldpc__minmax(const struct nbldpc_decoder *d, void *scratch, int32_t *cost, uint8_t *hard,
                        bool *ok);

/* The check node of FFT-BP on its own (the tests compare it with brute force): deg incoming
 * probability vectors in[i * q ..] of the symbols x_i with coefficients h[i]; out[i * q + x] gets
 * the normalised probability that x_i = x given the others and sum h_i x_i = 0. log: the
 * signed-log implementation (inputs and outputs are then log-probabilities). */
void nbldpc__fft_check(const struct nbldpc_gf *gf, unsigned deg, const uint8_t *h, const float *in,
                       float *out, bool log, float *work);

#define NBLDPC_COST_MAX 30000 /* saturation of min-max costs */

#endif
