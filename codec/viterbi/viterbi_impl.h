/*
 * Internal to codec/viterbi/: what the Viterbi decoder's portable reference (viterbi.c) shares with
 * its SIMD forward passes (viterbi_sse2.c, viterbi_avx2.c, viterbi_avx512.c). A forward pass runs
 * one job's add-compare- select stages, writes the decision rows that traceback reads in the layout
 * viterbi.c describes, and picks the end state and its exact metric; viterbi.c plans the job, picks
 * the pass for the run-time SIMD level (cpu_simd.h) and traces back, so every pass is only the
 * arithmetic.
 */
#ifndef VITERBI_IMPL_H
#define VITERBI_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "conv_code.h"
#include "fec_impl.h"

struct viterbi_decoder {
	struct fec_decoder base;
	struct conv_code code;
	/* -1 where word[2j] has output r set, else 0: (y ^ sign) - sign is +-y without a multiply
	 */
	int32_t sign[CONV_N_MAX][CONV_STATES_MAX / 2];
	/* For the SIMD passes, per branch shape q (bit 0: from the odd predecessor 2j+1, bit 1:
	 * input 1), output r and butterfly j: 0/-1 as above, and the same as +1/-1 (psignw). */
	int16_t mask16[4][CONV_N_MAX][CONV_STATES_MAX / 2];
	int16_t unit16[4][CONV_N_MAX][CONV_STATES_MAX / 2];
	/* The same as 0/1 code bits in byte pairs for pmaddubsw: byte 2j + b of wbits[q][h] is the
	 * bit of output 2h + b in butterfly j's shape q. */
	uint8_t wbits[4][2][CONV_STATES_MAX];
	/* The same for the two-job AVX2 pass, whose butterflies run in reversed state order (see
	 * viterbi_avx2.c): group g, shape q, outputs 2h and 2h+1, both 128-bit halves alike. */
	uint8_t wpair[CONV_STATES_MAX / 16][4][2][32];
	/* The same four times over for the four-job AVX-512 pass (one job per 128-bit lane),
	 * aligned so that every table is one whole-line memory operand. */
	_Alignas(64) uint8_t wquad[CONV_STATES_MAX / 16][4][2][64];
	unsigned bmask, tmask; /* outputs whose polynomial taps the oldest bit / the input bit */
	bool symmetric;        /* bmask and tmask are every output */
	uint32_t rows;         /* decision rows available in scratch: most stages traceback reads */
	uint32_t words;        /* 64-bit words per decision row */
};

/* What one job decodes, worked out from its lengths. */
struct job_plan {
	uint32_t head, own, tail; /* stages */
	uint32_t out_bits;
	bool start_known, end_zero;
};

/* A forward pass: runs stages 0 .. head+own+tail-1 of the job whose symbols start at in, writes
 * the decision row of stage t >= head at dec + (t - head) * v->words, and returns the end state
 * (state 0 when p->end_zero, else the best, lowest index among equals) with its exact path
 * metric in *metric. int32 scratch for the portable pass: pm, two arrays of CONV_STATES_MAX. */
typedef unsigned (*viterbi_forward_fn)(const struct viterbi_decoder *v, const int8_t *in,
                                       const struct job_plan *p, int32_t *pm, uint64_t *dec,
                                       int64_t *metric);

/* NULL when the pass does not handle this code (see each file for which shapes it takes). */
viterbi_forward_fn viterbi__forward_sse2(const struct viterbi_decoder *v);
viterbi_forward_fn viterbi__forward_avx2(const struct viterbi_decoder *v);

/* A forward pass over two jobs at once, whose plans have the same head, own and tail (start_known
 * may differ): as viterbi_forward_fn for each job i, except that decision rows go to dec[i] in
 * reversed state order (bit rev(s) of the row is state s's decision, rev reversing the K-1 state
 * bits; viterbi.c's traceback_reversed reads them). End states and metrics are the reference's. */
typedef void (*viterbi_forward2_fn)(const struct viterbi_decoder *v, const int8_t *const in[2],
                                    const struct job_plan *p[2], uint64_t *const dec[2],
                                    int64_t metric[2], unsigned end[2]);

/* NULL when the pass does not handle this code. */
viterbi_forward2_fn viterbi__forward2_avx2(const struct viterbi_decoder *v);

/* The same over four jobs (VITERBI_GROUP_MAX), rows again in reversed state order. */
#define VITERBI_GROUP_MAX 4
typedef void (*viterbi_forward4_fn)(const struct viterbi_decoder *v, const int8_t *const in[4],
                                    const struct job_plan *p[4], uint64_t *const dec[4],
                                    int64_t metric[4], unsigned end[4]);

/* NULL when the pass does not handle this code. */
viterbi_forward4_fn viterbi__forward4_avx512(const struct viterbi_decoder *v);

/* The K-1 (= bits) low bits of s in reverse order. */
static inline unsigned viterbi__reverse(unsigned s, unsigned bits)
{
	unsigned r = 0;

	for (unsigned i = 0; i < bits; i++)
		r |= (s >> i & 1u) << (bits - 1 - i);
	return r;
}

/* The unreachable-start constant of the int16 passes: below -(2 * 508 * K) for every K, as
 * viterbi.c requires, and far enough above -32768 that saturating adds never reach it before
 * every state is reachable (stage K-1). */
#define VITERBI_UNREACHABLE16 (-16384)
/* int16 passes renormalise every this many stages: metrics then stay within
 * -(1016 * (K-1) + 508 * 32) .. 508 * 32, inside int16 for K <= 9. */
#define VITERBI_RENORM16 32

#endif
