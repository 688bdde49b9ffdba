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
	/* tms's fast paths: tms_mul[h q + a] = h a and tms_div[h q + b] = b / h (row 0 unused),
	 * built for every tms decoder (NULL for the others); tms_avx512: GF(64) and the CPU has
	 * AVX-512 VBMI and BMI2 at the SIMD level in force */
	uint8_t *tms_mul, *tms_div;
	bool tms_avx512;
	/* the portable path's XOR shifts and step 6 in AVX2 (nbldpc_tms_avx2.c): q >= 16 and the
	 * CPU has AVX2 at the SIMD level in force */
	bool tms_avx2;
	/* the AVX-512 path's schedule (where tms_avx512): tms_groups groups of one or two
	 * consecutive checks (two where they share no variable), each first_row << 1 | (two) */
	uint32_t *tms_sched, tms_groups;
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

/* Trellis min-sum (nbldpc_tms.c, whose top comment specifies it): app: n * q int16 channel costs
 * (0 the likeliest of each symbol), replaced by the a-posteriori costs. nbldpc__tms picks the
 * fast path where the CPU and q allow it; _ref is the reference. */
unsigned nbldpc__tms(const struct nbldpc_decoder *d, void *scratch, int16_t *app, uint8_t *hard,
                     bool *ok);
unsigned nbldpc__tms_ref(const struct nbldpc_decoder *d, void *scratch, int16_t *app, uint8_t *hard,
                         bool *ok);
/* The fast paths: GF(64) on a CPU with AVX-512 VBMI (nbldpc_tms_avx512.c, where tms_avx512),
 * and any q in plain C (nbldpc_tms_fast.c, where tms_mul); both give the reference's results. */
unsigned nbldpc__tms_avx512(const struct nbldpc_decoder *d, void *scratch, int16_t *app,
                            uint8_t *hard, bool *ok);
unsigned nbldpc__tms_fast(const struct nbldpc_decoder *d, void *scratch, int16_t *app,
                          uint8_t *hard, bool *ok);
/* tms's channel costs from int8 bit LLRs for GF(64) where tms_avx512 (the same as the coder's
 * plain C, in vector additions): in, n * 6 LLRs; app, n * 64 costs. */
void nbldpc__tms_avx512_costs(const struct nbldpc_decoder *d, const int8_t *in, int16_t *app);
/* The portable path's AVX2 pieces (q >= 16): dst[eta] = src[eta ^ x] for eta < q; step 6 of one
 * check, nset candidates sel, v, d and T (deg q each) and the tables (deg^2 q) as
 * nbldpc_tms_fast.c lays them out. */
void nbldpc__tms_xor_shift_avx2(uint8_t *dst, const uint8_t *src, unsigned q, unsigned x);
void nbldpc__tms_pairs_avx2(unsigned q, unsigned deg, unsigned nset, const uint8_t *sel,
                            const uint8_t *vv, const uint8_t *jj, const uint8_t *vt, uint8_t *tt);
/* Bytes nbldpc__tms_fast needs after R's nnz q (rounded up to 64). */
size_t nbldpc__tms_fast_work_bytes(unsigned maxd, unsigned q);
/* Bytes of the AVX-512 path's stage (checks of up to maxd edges, two at a time):
 * W (two vectors an edge), v and d, the tables (maxd^2 a check), q bytes each. */
static inline size_t nbldpc__tms_stage_bytes(size_t maxd, size_t q)
{
	return (2 * maxd * 2 + 2 * 2 * maxd + 2 * maxd * maxd) * q;
}
/* Builds tms_mul and tms_div for a tms decoder, sets tms_avx512 and builds its schedule; 0 or
 * -FEC_ENOMEM. */
int nbldpc__tms_prepare(struct nbldpc_decoder *d);

/* Shared by the reference and the portable fast path: v -= min v over q values, saturating at
 * 32767; the hard decision (the smallest value of cost 0 of each symbol) and whether it
 * satisfies H. */
void nbldpc__tms_normalise(int16_t *v, unsigned q);
bool nbldpc__tms_decide(const struct nbldpc_code *c, unsigned q, const int16_t *app, uint8_t *hard);
/* Bytes of the per-check work area of nbldpc__tms_check. */
size_t nbldpc__tms_work_bytes(unsigned maxd, unsigned q);
/* One check node of tms on its own (steps 2-8): qe, deg normalised extrinsic messages of q costs
 * in the variables' values, to re, the check's new messages (the tests compare it with brute
 * force). */
void nbldpc__tms_check(const struct nbldpc_gf *gf, unsigned deg, const uint8_t *h,
                       const uint8_t *qe, uint8_t *re, unsigned dev2, unsigned offset,
                       uint8_t *work);

#define NBLDPC_COST_MAX 30000 /* saturation of min-max costs */

#endif
