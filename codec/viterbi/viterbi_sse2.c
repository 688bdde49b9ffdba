/*
 * The Viterbi forward pass in SSE2: eight int16 path metrics per register, for every K (3..9).
 * K = 5..9 fill whole registers; K = 3 and 4 (4 and 8 states) use the low lanes of one. Built
 * with -msse2 for this file only (a no-op on x86-64); viterbi.c calls it only when cpu_simd.h
 * says the CPU has SSE2.
 *
 * Exactness is argued as in viterbi_avx2.c: renormalisation by the maximum every
 * VITERBI_RENORM16 stages keeps reachable metrics inside int16, saturating adds keep the ones grown
 * from the unreachable start below them until none is left, and the comparisons, the end-state
 * choice and the metric are the reference's.
 *
 * Layout: register i holds states 8i .. 8i+7 in order. A stage takes registers 2g and 2g+1
 * apart into the even and odd predecessors of butterflies 8g .. 8g+7, whose survivors are new
 * registers g and g + N/16; decisions are written as the bitmap traceback reads.
 */
#include <emmintrin.h>
#include <string.h>

#include "viterbi_impl.h"

#define LANES  8
#define NV_MAX (CONV_STATES_MAX / LANES)

/* Branch metrics of butterflies LANES*g .. for shape q: sum over outputs of +-y_r. */
static inline __attribute__((always_inline)) __m128i
branch_metric(const struct viterbi_decoder *v, const __m128i *y, unsigned n, unsigned q, unsigned g)
{
	__m128i m = _mm_setzero_si128();

	for (unsigned r = 0; r < n; r++) {
		__m128i s = _mm_loadu_si128((const __m128i *)&v->mask16[q][r][LANES * g]);

		m = _mm_add_epi16(m, _mm_sub_epi16(_mm_xor_si128(y[r], s), s));
	}
	return m;
}

/* The even and odd int16 elements of lo (first) and hi (then). */
static inline __attribute__((always_inline)) void split(__m128i lo, __m128i hi, __m128i *even,
                                                        __m128i *odd)
{
	*even = _mm_packs_epi32(_mm_srai_epi32(_mm_slli_epi32(lo, 16), 16),
	                        _mm_srai_epi32(_mm_slli_epi32(hi, 16), 16));
	*odd = _mm_packs_epi32(_mm_srai_epi32(lo, 16), _mm_srai_epi32(hi, 16));
}

/* The four candidates of the butterflies whose predecessors are a (even) and b (odd). */
static inline __attribute__((always_inline)) void candidates(const struct viterbi_decoder *v,
                                                             const __m128i *y, unsigned n, bool sym,
                                                             unsigned g, __m128i a, __m128i b,
                                                             __m128i c[4])
{
	if (sym) {
		__m128i m = branch_metric(v, y, n, 0, g);

		c[0] = _mm_adds_epi16(a, m);
		c[1] = _mm_subs_epi16(b, m);
		c[2] = _mm_subs_epi16(a, m);
		c[3] = _mm_adds_epi16(b, m);
	} else {
		c[0] = _mm_adds_epi16(a, branch_metric(v, y, n, 0, g));
		c[1] = _mm_adds_epi16(b, branch_metric(v, y, n, 1, g));
		c[2] = _mm_adds_epi16(a, branch_metric(v, y, n, 2, g));
		c[3] = _mm_adds_epi16(b, branch_metric(v, y, n, 3, g));
	}
}

/* One stage over nv >= 2 registers; decisions to row unless row is NULL. */
static inline __attribute__((always_inline)) void stage(const struct viterbi_decoder *v,
                                                        const __m128i *y, unsigned n, unsigned nv,
                                                        bool sym, const __m128i *pm, __m128i *npm,
                                                        uint8_t *row)
{
	const unsigned ng = nv / 2;

	for (unsigned g = 0; g < ng; g++) {
		__m128i a, b, c[4];

		split(pm[2 * g], pm[2 * g + 1], &a, &b);
		candidates(v, y, n, sym, g, a, b, c);
		npm[g] = _mm_max_epi16(c[0], c[1]);
		npm[g + ng] = _mm_max_epi16(c[2], c[3]);
		if (row) {
			__m128i d = _mm_packs_epi16(_mm_cmpgt_epi16(c[1], c[0]),
			                            _mm_cmpgt_epi16(c[3], c[2]));
			unsigned bits = (unsigned)_mm_movemask_epi8(d);

			row[g] = (uint8_t)bits;
			row[g + ng] = (uint8_t)(bits >> 8);
		}
	}
}

/* The same for 4 or 8 states in the low lanes of pm[0] (for 4, lanes 4..7 are 0 on entry and
 * exit). */
static inline __attribute__((always_inline)) void
stage_small(const struct viterbi_decoder *v, const __m128i *y, unsigned n, unsigned nstates,
            bool sym, const __m128i *pm, __m128i *npm, uint8_t *row)
{
	const unsigned half = nstates / 2;
	__m128i a, b, c[4], lo, hi;

	split(pm[0], _mm_setzero_si128(), &a, &b);
	candidates(v, y, n, sym, 0, a, b, c);
	lo = _mm_max_epi16(c[0], c[1]);
	hi = _mm_max_epi16(c[2], c[3]);
	if (half == 4)
		npm[0] = _mm_unpacklo_epi64(lo, hi);
	else
		npm[0] = _mm_move_epi64(_mm_unpacklo_epi32(lo, hi));
	if (row) {
		__m128i d =
		    _mm_packs_epi16(_mm_cmpgt_epi16(c[1], c[0]), _mm_cmpgt_epi16(c[3], c[2]));
		unsigned bits = (unsigned)_mm_movemask_epi8(d), keep = (1u << half) - 1;

		row[0] = (uint8_t)((bits & keep) | (bits >> 8 & keep) << half);
	}
}

/* Subtracts the largest of the first nstates metrics from them; returns it. */
static inline __attribute__((always_inline)) int32_t renormalise(__m128i *pm, unsigned nv,
                                                                 unsigned nstates)
{
	__m128i top = pm[0];
	int16_t lane[LANES];
	int32_t best;

	if (nstates < LANES) {
		/* 4 states: lanes 4..7 hold 0, which is no metric and must stay 0. */
		_mm_storeu_si128((__m128i *)lane, pm[0]);
		best = lane[0];
		for (unsigned s = 1; s < nstates; s++)
			best = lane[s] > best ? lane[s] : best;
		pm[0] = _mm_sub_epi16(pm[0], _mm_move_epi64(_mm_set1_epi16((int16_t)best)));
		return best;
	}
	for (unsigned i = 1; i < nv; i++)
		top = _mm_max_epi16(top, pm[i]);
	top = _mm_max_epi16(top, _mm_shuffle_epi32(top, 0x4E));
	top = _mm_max_epi16(top, _mm_shuffle_epi32(top, 0xB1));
	top = _mm_max_epi16(top, _mm_shufflelo_epi16(top, 0xB1));
	best = (int16_t)_mm_extract_epi16(top, 0);
	top = _mm_set1_epi16((int16_t)best);
	for (unsigned i = 0; i < nv; i++)
		pm[i] = _mm_sub_epi16(pm[i], top);
	return best;
}

static inline __attribute__((always_inline)) unsigned
forward(const struct viterbi_decoder *v, const int8_t *in, const struct job_plan *p, uint64_t *dec,
        int64_t *metric, unsigned nstates, bool sym, unsigned n)
{
	const struct conv_code *c = &v->code;
	const bool small = nstates < 2 * LANES;
	const unsigned nv = small ? 1 : nstates / LANES;
	const uint32_t total = p->head + p->own + p->tail;
	const size_t row_bytes = (size_t)v->words * 8;
	__m128i pm[NV_MAX], npm[NV_MAX], y[CONV_N_MAX];
	int16_t last[CONV_STATES_MAX];
	int64_t offset = 0;
	uint32_t pos = 0;
	unsigned step = 0, end = 0;

	for (unsigned i = 0; i < nv; i++)
		pm[i] = _mm_set1_epi16(p->start_known ? VITERBI_UNREACHABLE16 : 0);
	if (nstates < LANES)
		pm[0] = _mm_move_epi64(pm[0]);
	if (p->start_known)
		pm[0] = _mm_insert_epi16(pm[0], 0, 0);
	for (uint32_t t = 0; t < total; t++) {
		const unsigned sent = c->sent[step];
		uint8_t *row =
		    t < p->head ? NULL : (uint8_t *)dec + (size_t)(t - p->head) * row_bytes;

		for (unsigned r = 0; r < n; r++)
			y[r] = _mm_set1_epi16(sent >> r & 1u ? in[pos++] : 0);
		if (small) {
			if (row)
				stage_small(v, y, n, nstates, sym, pm, npm, row);
			else
				stage_small(v, y, n, nstates, sym, pm, npm, NULL);
		} else if (row) {
			stage(v, y, n, nv, sym, pm, npm, row);
		} else {
			stage(v, y, n, nv, sym, pm, npm, NULL);
		}
		for (unsigned i = 0; i < nv; i++)
			pm[i] = npm[i];
		step = step + 1 == c->period ? 0 : step + 1;
		if (t % VITERBI_RENORM16 == VITERBI_RENORM16 - 1)
			offset += renormalise(pm, nv, nstates);
	}
	for (unsigned i = 0; i < nv; i++)
		_mm_storeu_si128((__m128i *)&last[LANES * i], pm[i]);
	if (!p->end_zero)
		for (unsigned s = 1; s < nstates; s++)
			if (last[s] > last[end])
				end = s;
	*metric = offset + last[end];
	return end;
}

/* One instance per K, n and symmetry, so that every loop above has constant bounds and small
 * trellises keep their metrics in registers. */
#define FORWARD_FN(k, n, sym, tag)                                                                 \
	static unsigned forward_k##k##_n##n##tag(const struct viterbi_decoder *v,                  \
	                                         const int8_t *in, const struct job_plan *p,       \
	                                         int32_t *pm, uint64_t *dec, int64_t *metric)      \
	{                                                                                          \
		(void)pm;                                                                          \
		return forward(v, in, p, dec, metric, 1u << (k - 1), sym, n);                      \
	}
#define FORWARD_K(k)                                                                               \
	FORWARD_FN(k, 2, false, )                                                                  \
	FORWARD_FN(k, 3, false, )                                                                  \
	FORWARD_FN(k, 4, false, ) FORWARD_FN(k, 2, true, _sym) FORWARD_FN(k, 3, true, _sym)        \
	    FORWARD_FN(k, 4, true, _sym)
#define ROW_K(k)                                                                                   \
	{{forward_k##k##_n2, forward_k##k##_n3, forward_k##k##_n4},                                \
	 {forward_k##k##_n2_sym, forward_k##k##_n3_sym, forward_k##k##_n4_sym}},

FORWARD_K(3)
FORWARD_K(4)
FORWARD_K(5)
FORWARD_K(6)
FORWARD_K(7)
FORWARD_K(8)
FORWARD_K(9)

viterbi_forward_fn viterbi__forward_sse2(const struct viterbi_decoder *v)
{
	static const viterbi_forward_fn by_k[7][2][3] = {ROW_K(3) ROW_K(4) ROW_K(5) ROW_K(6)
	                                                     ROW_K(7) ROW_K(8) ROW_K(9)};

	return by_k[v->code.k - 3][v->symmetric][v->code.n - 2];
}
