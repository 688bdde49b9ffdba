/*
 * The Viterbi forward pass in AVX2: sixteen int16 path metrics per register, for K = 6..9
 * (32..256 states: at least one register of butterflies). K = 3..5 run the SSE2 pass instead,
 * which every AVX2 CPU has. Built with -mavx2 for this file only; viterbi.c calls it only when
 * cpu_simd.h says the CPU has AVX2.
 *
 * Metrics. Branch metrics come from pmaddubsw as S(w) = sum of y_r over the outputs r set in the
 * code word w. The reference's BM(w) = Ysum - 2 S(w), with Ysum the stage's sum of symbols, the
 * same for every branch; so this pass keeps PM' = (PM - sum of Ysum so far) / 2, built from
 * BM'(w) = -S(w): an exact integer, the same increasing function of PM for every state of a
 * stage, hence the same comparisons, decisions and end state; the metric reported is
 * 2 PM' + the job's symbol sum. |BM'| <= 508 as |BM|, and metrics are renormalised by their
 * maximum every VITERBI_RENORM16 stages, so reachable ones stay within int16 (viterbi_impl.h);
 * adds saturate, so the ones grown from the unreachable start stay below every reachable one
 * until stage K-1, after which none is left.
 *
 * Layout: register i holds states 16i .. 16i+15 in order. A stage takes registers 2g and 2g+1
 * apart into the even (p0) and odd (p1) predecessors of butterflies 16g .. 16g+15, whose
 * survivors are new registers g (input 0) and g + N/32 (input 1); decisions are written as
 * the bitmap traceback reads (bit s of the row is state s's decision).
 */
#include <immintrin.h>
#include <string.h>

#include "viterbi_impl.h"

#define LANES  16
#define NV_MAX (CONV_STATES_MAX / LANES)

/* BM' of the butterflies of group g for shape q: -(sum of the symbols whose code bit is set).
 * y[h] holds outputs 2h and 2h+1's symbols in every int16 lane. */
static inline __attribute__((always_inline)) __m256i
branch_metric(const struct viterbi_decoder *v, const __m256i *y, unsigned n, unsigned q, unsigned g)
{
	__m256i s = _mm256_maddubs_epi16(
	    _mm256_loadu_si256((const __m256i *)&v->wbits[q][0][2 * LANES * g]), y[0]);

	if (n > 2)
		s = _mm256_add_epi16(
		    s,
		    _mm256_maddubs_epi16(
		        _mm256_loadu_si256((const __m256i *)&v->wbits[q][1][2 * LANES * g]), y[1]));
	return s;
}

/* Two registers of decision masks (16 states each, in order) -> 32 bits, state order. */
static inline __attribute__((always_inline)) uint32_t pack_masks(__m256i lo, __m256i hi)
{
	__m256i b = _mm256_permute4x64_epi64(_mm256_packs_epi16(lo, hi), 0xD8);

	return (uint32_t)_mm256_movemask_epi8(b);
}

/* One stage over nv registers of metrics; decisions to row when store. */
static inline __attribute__((always_inline)) void stage(const struct viterbi_decoder *v,
                                                        const __m256i *y, unsigned n, unsigned nv,
                                                        bool sym, const __m256i *pm, __m256i *npm,
                                                        bool store, uint8_t *row)
{
	const unsigned ng = nv / 2;
	/* Per 128-bit lane: the even int16 elements to the low 8 bytes, the odd to the high. */
	const __m256i split =
	    _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0, 1, 4, 5, 8, 9,
	                     12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
	__m256i dlo[NV_MAX / 2], dhi[NV_MAX / 2];

	for (unsigned g = 0; g < ng; g++) {
		__m256i s0 = _mm256_shuffle_epi8(pm[2 * g], split);
		__m256i s1 = _mm256_shuffle_epi8(pm[2 * g + 1], split);
		__m256i a = _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(s0, s1), 0xD8);
		__m256i b = _mm256_permute4x64_epi64(_mm256_unpackhi_epi64(s0, s1), 0xD8);
		__m256i c00, c01, c10, c11;

		if (sym) {
			/* Shapes 1 and 2 are the complement of 0, shape 3 is 0. */
			__m256i s0 = branch_metric(v, y, n, 0, g),
			        s1 = branch_metric(v, y, n, 1, g);

			c00 = _mm256_subs_epi16(a, s0);
			c01 = _mm256_subs_epi16(b, s1);
			c10 = _mm256_subs_epi16(a, s1);
			c11 = _mm256_subs_epi16(b, s0);
		} else {
			c00 = _mm256_subs_epi16(a, branch_metric(v, y, n, 0, g));
			c01 = _mm256_subs_epi16(b, branch_metric(v, y, n, 1, g));
			c10 = _mm256_subs_epi16(a, branch_metric(v, y, n, 2, g));
			c11 = _mm256_subs_epi16(b, branch_metric(v, y, n, 3, g));
		}
		npm[g] = _mm256_max_epi16(c00, c01);
		npm[g + ng] = _mm256_max_epi16(c10, c11);
		if (store) {
			dlo[g] = _mm256_cmpgt_epi16(c01, c00);
			dhi[g] = _mm256_cmpgt_epi16(c11, c10);
		}
	}
	if (!store)
		return;
	if (ng == 1) {
		uint32_t bits = pack_masks(dlo[0], dhi[0]);

		memcpy(row, &bits, 4);
		return;
	}
	for (unsigned g = 0; g < ng; g += 2) {
		uint32_t lo = pack_masks(dlo[g], dlo[g + 1]), hi = pack_masks(dhi[g], dhi[g + 1]);

		memcpy(row + 2 * g, &lo, 4);
		memcpy(row + 2 * (g + ng), &hi, 4);
	}
}

/* Subtracts the largest metric from all; returns it. */
static inline __attribute__((always_inline)) int32_t renormalise(__m256i *pm, unsigned nv)
{
	__m256i top = pm[0];
	__m128i t;

	for (unsigned i = 1; i < nv; i++)
		top = _mm256_max_epi16(top, pm[i]);
	t = _mm_max_epi16(_mm256_castsi256_si128(top), _mm256_extracti128_si256(top, 1));
	t = _mm_max_epi16(t, _mm_shuffle_epi32(t, 0x4E));
	t = _mm_max_epi16(t, _mm_shuffle_epi32(t, 0xB1));
	t = _mm_max_epi16(t, _mm_shufflelo_epi16(t, 0xB1));
	top = _mm256_broadcastw_epi16(t);
	for (unsigned i = 0; i < nv; i++)
		pm[i] = _mm256_sub_epi16(pm[i], top);
	return (int16_t)_mm_extract_epi16(t, 0);
}

/* Symbols of up to CHUNK stages from in + *pos, four bytes a stage (outputs 0..3, 0 where not
 * sent), starting at puncturing step *step; returns their sum. */
static inline __attribute__((always_inline)) int32_t depuncture(const struct conv_code *c,
                                                                const int8_t *in, uint32_t *pos,
                                                                unsigned *step, uint32_t count,
                                                                unsigned n, int8_t *ys)
{
	int32_t sum = 0;

	if (c->period == 1) {
		for (uint32_t i = 0; i < count; i++)
			for (unsigned r = 0; r < 4; r++) {
				int8_t y = r < n ? in[*pos + n * i + r] : 0;

				ys[4 * i + r] = y;
				sum += y;
			}
		*pos += n * count;
		return sum;
	}
	for (uint32_t i = 0; i < count; i++) {
		const unsigned sent = c->sent[*step];

		for (unsigned r = 0; r < 4; r++) {
			int8_t y = r < n && (sent >> r & 1u) ? in[(*pos)++] : 0;

			ys[4 * i + r] = y;
			sum += y;
		}
		*step = *step + 1 == c->period ? 0 : *step + 1;
	}
	return sum;
}

#define CHUNK VITERBI_RENORM16

/* The symbols of one stage as y[] of branch_metric: outputs 0, 1 in y[0], 2, 3 in y[1]. */
static inline __attribute__((always_inline)) void stage_symbols(const int8_t *at, unsigned n,
                                                                __m256i y[2])
{
	int16_t pair[2] = {0, 0};

	memcpy(pair, at, n > 2 ? 4 : 2);
	y[0] = _mm256_set1_epi16(pair[0]);
	y[1] = _mm256_set1_epi16(pair[1]);
}

/* Runs stages t0 .. t0+count-1 (count even or the last chunk), symbols every `stride` bytes from
 * ys, decisions of stage t >= head to dec. Two stages a turn, so that the metrics swap places
 * without copies. */
static inline __attribute__((always_inline)) void
run_stages(const struct viterbi_decoder *v, const int8_t *ys, size_t stride, uint32_t t0,
           uint32_t count, uint32_t head, uint8_t *dec, size_t row_bytes, unsigned nv, bool sym,
           unsigned n, __m256i *pm)
{
	__m256i npm[NV_MAX], y[2];
	uint32_t i = 0;

	for (; i < count && t0 + i < head; i++) {
		stage_symbols(ys + stride * i, n, y);
		stage(v, y, n, nv, sym, pm, npm, false, NULL);
		for (unsigned j = 0; j < nv; j++)
			pm[j] = npm[j];
	}
	for (; i + 2 <= count; i += 2) {
		uint8_t *row = dec + (size_t)(t0 + i - head) * row_bytes;

		stage_symbols(ys + stride * i, n, y);
		stage(v, y, n, nv, sym, pm, npm, true, row);
		stage_symbols(ys + stride * (i + 1), n, y);
		stage(v, y, n, nv, sym, npm, pm, true, row + row_bytes);
	}
	if (i < count) {
		stage_symbols(ys + stride * i, n, y);
		stage(v, y, n, nv, sym, pm, npm, true, dec + (size_t)(t0 + i - head) * row_bytes);
		for (unsigned j = 0; j < nv; j++)
			pm[j] = npm[j];
	}
}

static inline __attribute__((always_inline)) unsigned
forward(const struct viterbi_decoder *v, const int8_t *in, const struct job_plan *p, uint64_t *dec,
        int64_t *metric, unsigned nv, bool sym, unsigned n)
{
	const struct conv_code *c = &v->code;
	const uint32_t total = p->head + p->own + p->tail;
	const size_t row_bytes = (size_t)v->words * 8;
	/* Unpunctured 2- and 4-output codes read their symbols in place. */
	const bool direct = c->period == 1 && n != 3;
	__m256i pm[NV_MAX];
	int8_t ys[4 * CHUNK];
	int16_t last[CONV_STATES_MAX];
	int64_t offset = 0, ysum = 0;
	uint32_t pos = 0;
	unsigned step = 0, end = 0;

	for (unsigned i = 0; i < nv; i++)
		pm[i] = _mm256_set1_epi16(p->start_known ? VITERBI_UNREACHABLE16 : 0);
	if (p->start_known)
		pm[0] = _mm256_insert_epi16(pm[0], 0, 0);
	for (uint32_t t0 = 0; t0 < total; t0 += CHUNK) {
		const uint32_t count = total - t0 < CHUNK ? total - t0 : CHUNK;

		if (direct) {
			for (uint32_t i = 0; i < n * count; i++)
				ysum += in[pos + i];
			run_stages(v, in + pos, n, t0, count, p->head, (uint8_t *)dec, row_bytes,
			           nv, sym, n, pm);
			pos += n * count;
		} else {
			ysum += depuncture(c, in, &pos, &step, count, n, ys);
			run_stages(v, ys, 4, t0, count, p->head, (uint8_t *)dec, row_bytes, nv, sym,
			           n, pm);
		}
		if (count == CHUNK)
			offset += renormalise(pm, nv);
	}
	for (unsigned i = 0; i < nv; i++)
		_mm256_storeu_si256((__m256i *)&last[LANES * i], pm[i]);
	if (!p->end_zero)
		for (unsigned s = 1; s < LANES * nv; s++)
			if (last[s] > last[end])
				end = s;
	*metric = 2 * (offset + last[end]) + ysum;
	return end;
}

/* One instance per K, n and symmetry, so that every loop above has constant bounds and the
 * metrics of K <= 7 live in registers. */
#define FORWARD_FN(k, n, sym, tag)                                                                 \
	static unsigned forward_k##k##_n##n##tag(const struct viterbi_decoder *v,                  \
	                                         const int8_t *in, const struct job_plan *p,       \
	                                         int32_t *pm, uint64_t *dec, int64_t *metric)      \
	{                                                                                          \
		(void)pm;                                                                          \
		return forward(v, in, p, dec, metric, (1u << (k - 1)) / LANES, sym, n);            \
	}
#define FORWARD_K(k)                                                                               \
	FORWARD_FN(k, 2, false, )                                                                  \
	FORWARD_FN(k, 3, false, ) FORWARD_FN(k, 4, false, ) FORWARD_FN(k, 2, true, _sym)           \
	    FORWARD_FN(k, 3, true, _sym) FORWARD_FN(k, 4, true, _sym)
#define ROW_K(k)                                                                                   \
	{{forward_k##k##_n2, forward_k##k##_n3, forward_k##k##_n4},                                \
	 {forward_k##k##_n2_sym, forward_k##k##_n3_sym, forward_k##k##_n4_sym}},

FORWARD_K(6)
FORWARD_K(7)
FORWARD_K(8)
FORWARD_K(9)

viterbi_forward_fn viterbi__forward_avx2(const struct viterbi_decoder *v)
{
	static const viterbi_forward_fn by_k[4][2][3] = {ROW_K(6) ROW_K(7) ROW_K(8) ROW_K(9)};

	if (v->code.k < 6)
		return NULL;
	return by_k[v->code.k - 6][v->symmetric][v->code.n - 2];
}
