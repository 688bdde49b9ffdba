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
	FORWARD_FN(k, 3, false, )                                                                  \
	FORWARD_FN(k, 4, false, ) FORWARD_FN(k, 2, true, _sym) FORWARD_FN(k, 3, true, _sym)        \
	    FORWARD_FN(k, 4, true, _sym)
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

/*
 * Two jobs at once. Each 128-bit half of a register belongs to one job (low: job 0, high: job 1)
 * and holds eight metrics; nothing crosses halves inside a stage. States are kept in reversed
 * order: L = rev(s) (viterbi_impl.h), in which the predecessors of L are L >> 1 and that | N/2,
 * and the successors of butterfly j (old L = j and j + N/2) are 2j and 2j+1. With half-register i
 * holding L = 8i .. 8i+7, the butterflies of group g are registers g and g + N/16 as they stand,
 * and their survivors, computed in butterfly order, come back to that order with one unpacklo and
 * one unpackhi; the two decision masks, merged by one byte blend, come out of movemask as 16
 * bits in L order for each job. A stage of K=7 is so 8 registers of 14 vector instructions per
 * pair of registers: 28 a job-stage. The pass is for K >= 5 (16 states, one
 * pair of half-registers).
 */
#define PAIR_NV_MAX (CONV_STATES_MAX / 8)

/* The symbols of one stage of each job as y[] of pair_stage: 16-bit (y0, y1) in every int16 lane
 * of the job's half in y[0], (y2, y3) in y[1]. */
static inline __attribute__((always_inline)) void pair_symbols(const int8_t *a, const int8_t *b,
                                                               unsigned n, __m256i y[2])
{
	const __m256i lo = _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 4, 5, 4,
	                                    5, 4, 5, 4, 5, 4, 5, 4, 5, 4, 5, 4, 5);
	const __m256i hi = _mm256_setr_epi8(2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 6, 7, 6,
	                                    7, 6, 7, 6, 7, 6, 7, 6, 7, 6, 7, 6, 7);
	uint32_t qa = 0, qb = 0;
	__m256i both;

	memcpy(&qa, a, n > 2 ? 4 : 2);
	memcpy(&qb, b, n > 2 ? 4 : 2);
	if (n > 2) {
		both = _mm256_set1_epi64x((int64_t)((uint64_t)qb << 32 | qa));
		y[0] = _mm256_shuffle_epi8(both, lo);
		y[1] = _mm256_shuffle_epi8(both, hi);
	} else {
		both = _mm256_set1_epi64x((int64_t)((uint64_t)qb << 32 | qa));
		y[0] = _mm256_shuffle_epi8(both, lo);
		y[1] = y[0];
	}
}

static inline __attribute__((always_inline)) __m256i
pair_branch(const struct viterbi_decoder *v, const __m256i *y, unsigned n, unsigned q, unsigned g)
{
	__m256i s = _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)v->wpair[g][q][0]), y[0]);

	if (n > 2)
		s = _mm256_add_epi16(s, _mm256_maddubs_epi16(
		                            _mm256_loadu_si256((const __m256i *)v->wpair[g][q][1]), y[1]));
	return s;
}

/* One stage of both jobs over nv registers; decisions to ra, rb (L order) when store. */
static inline __attribute__((always_inline)) void
pair_stage(const struct viterbi_decoder *v, const __m256i *y, unsigned n, unsigned nv, bool sym,
           const __m256i *pm, __m256i *npm, bool store, uint8_t *ra, uint8_t *rb)
{
	const unsigned ng = nv / 2;
	const __m256i high = _mm256_set1_epi16((int16_t)0xFF00);

	for (unsigned g = 0; g < ng; g++) {
		__m256i a = pm[g], b = pm[g + ng], s0, s1, s2, s3, c00, c01, c10, c11, x, z;

		s0 = pair_branch(v, y, n, 0, g);
		s1 = pair_branch(v, y, n, 1, g);
		/* symmetric codes: shapes 2 and 3 are 1 and 0 */
		s2 = sym ? s1 : pair_branch(v, y, n, 2, g);
		s3 = sym ? s0 : pair_branch(v, y, n, 3, g);
		c00 = _mm256_subs_epi16(a, s0);
		c01 = _mm256_subs_epi16(b, s1);
		c10 = _mm256_subs_epi16(a, s2);
		c11 = _mm256_subs_epi16(b, s3);
		x = _mm256_max_epi16(c00, c01);
		z = _mm256_max_epi16(c10, c11);
		npm[2 * g] = _mm256_unpacklo_epi16(x, z);
		npm[2 * g + 1] = _mm256_unpackhi_epi16(x, z);
		if (store) {
			/* the low byte of lane e carries successor 2e's decision, the high
			 * byte 2e+1's: movemask then gives them in L order */
			__m256i d = _mm256_blendv_epi8(_mm256_cmpgt_epi16(c01, c00),
			                               _mm256_cmpgt_epi16(c11, c10), high);
			uint32_t bits = (uint32_t)_mm256_movemask_epi8(d);
			uint16_t lo = (uint16_t)bits, hi = (uint16_t)(bits >> 16);

			memcpy(ra + 2 * g, &lo, 2);
			memcpy(rb + 2 * g, &hi, 2);
		}
	}
}

/* Subtracts each job's largest metric from its metrics; adds it to off[job]. */
static inline __attribute__((always_inline)) void pair_renormalise(__m256i *pm, unsigned nv,
                                                                   int64_t off[2])
{
	const __m256i first = _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1,
	                                       0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1);
	__m256i top = pm[0];

	for (unsigned i = 1; i < nv; i++)
		top = _mm256_max_epi16(top, pm[i]);
	top = _mm256_max_epi16(top, _mm256_shuffle_epi32(top, 0x4E));
	top = _mm256_max_epi16(top, _mm256_shuffle_epi32(top, 0xB1));
	top = _mm256_max_epi16(top, _mm256_shufflelo_epi16(top, 0xB1));
	top = _mm256_shuffle_epi8(top, first);
	for (unsigned i = 0; i < nv; i++)
		pm[i] = _mm256_sub_epi16(pm[i], top);
	off[0] += (int16_t)_mm256_extract_epi16(top, 0);
	off[1] += (int16_t)_mm256_extract_epi16(top, 8);
}

/* Stages t0 .. t0+count-1 of both jobs, symbols every stride bytes from ya and yb; two a turn so
 * that the metrics swap places without copies. */
static inline __attribute__((always_inline)) void
pair_run(const struct viterbi_decoder *v, const int8_t *ya, const int8_t *yb, size_t stride,
         uint32_t t0, uint32_t count, uint32_t head, uint8_t *da, uint8_t *db, size_t row_bytes,
         unsigned nv, bool sym, unsigned n, __m256i *pm)
{
	__m256i npm[PAIR_NV_MAX], y[2];
	uint32_t i = 0;

	for (; i < count && t0 + i < head; i++) {
		pair_symbols(ya + stride * i, yb + stride * i, n, y);
		pair_stage(v, y, n, nv, sym, pm, npm, false, NULL, NULL);
		for (unsigned j = 0; j < nv; j++)
			pm[j] = npm[j];
	}
	for (; i + 2 <= count; i += 2) {
		const size_t at = (size_t)(t0 + i - head) * row_bytes;

		pair_symbols(ya + stride * i, yb + stride * i, n, y);
		pair_stage(v, y, n, nv, sym, pm, npm, true, da + at, db + at);
		pair_symbols(ya + stride * (i + 1), yb + stride * (i + 1), n, y);
		pair_stage(v, y, n, nv, sym, npm, pm, true, da + at + row_bytes, db + at + row_bytes);
	}
	if (i < count) {
		const size_t at = (size_t)(t0 + i - head) * row_bytes;

		pair_symbols(ya + stride * i, yb + stride * i, n, y);
		pair_stage(v, y, n, nv, sym, pm, npm, true, da + at, db + at);
		for (unsigned j = 0; j < nv; j++)
			pm[j] = npm[j];
	}
}

static inline __attribute__((always_inline)) void
pair_forward(const struct viterbi_decoder *v, const int8_t *const in[2], const struct job_plan *p[2],
             uint64_t *const dec[2], int64_t metric[2], unsigned end[2], unsigned nv, bool sym,
             unsigned n)
{
	const struct conv_code *c = &v->code;
	const unsigned nstates = c->nstates;
	const uint32_t total = p[0]->head + p[0]->own + p[0]->tail, head = p[0]->head;
	const size_t row_bytes = (size_t)v->words * 8;
	const bool direct = c->period == 1 && n != 3;
	__m256i pm[PAIR_NV_MAX];
	int8_t ys[2][4 * CHUNK];
	int16_t last[PAIR_NV_MAX][2][8];
	int64_t offset[2] = {0, 0}, ysum[2] = {0, 0};
	uint32_t pos = 0;
	unsigned step = 0;

	for (unsigned i = 0; i < nv; i++)
		pm[i] = _mm256_setr_m128i(
		    _mm_set1_epi16(p[0]->start_known ? VITERBI_UNREACHABLE16 : 0),
		    _mm_set1_epi16(p[1]->start_known ? VITERBI_UNREACHABLE16 : 0));
	/* state 0 is L = 0 in both orders */
	if (p[0]->start_known)
		pm[0] = _mm256_insert_epi16(pm[0], 0, 0);
	if (p[1]->start_known)
		pm[0] = _mm256_insert_epi16(pm[0], 0, 8);
	for (uint32_t t0 = 0; t0 < total; t0 += CHUNK) {
		const uint32_t count = total - t0 < CHUNK ? total - t0 : CHUNK;

		if (direct) {
			for (unsigned j = 0; j < 2; j++)
				for (uint32_t i = 0; i < n * count; i++)
					ysum[j] += in[j][pos + i];
			pair_run(v, in[0] + pos, in[1] + pos, n, t0, count, head, (uint8_t *)dec[0],
			         (uint8_t *)dec[1], row_bytes, nv, sym, n, pm);
			pos += n * count;
		} else {
			uint32_t pos1 = pos;
			unsigned step1 = step;

			ysum[0] += depuncture(c, in[0], &pos, &step, count, n, ys[0]);
			ysum[1] += depuncture(c, in[1], &pos1, &step1, count, n, ys[1]);
			pair_run(v, ys[0], ys[1], 4, t0, count, head, (uint8_t *)dec[0],
			         (uint8_t *)dec[1], row_bytes, nv, sym, n, pm);
		}
		if (count == CHUNK)
			pair_renormalise(pm, nv, offset);
	}
	for (unsigned i = 0; i < nv; i++)
		_mm256_storeu_si256((__m256i *)last[i], pm[i]);
	for (unsigned j = 0; j < 2; j++) {
		unsigned best = 0;
		int16_t top = last[0][j][0];

		if (!p[j]->end_zero)
			for (unsigned s = 1; s < nstates; s++) {
				unsigned l = viterbi__reverse(s, c->k - 1);

				if (last[l / 8][j][l % 8] > top) {
					top = last[l / 8][j][l % 8];
					best = s;
				}
			}
		end[j] = best;
		metric[j] = 2 * (offset[j] + top) + ysum[j];
	}
}

#define FORWARD2_FN(k, n, sym, tag)                                                                \
	static void forward2_k##k##_n##n##tag(const struct viterbi_decoder *v,                     \
	                                      const int8_t *const in[2],                           \
	                                      const struct job_plan *p[2], uint64_t *const dec[2], \
	                                      int64_t metric[2], unsigned end[2])                  \
	{                                                                                          \
		pair_forward(v, in, p, dec, metric, end, (1u << (k - 1)) / 8, sym, n);             \
	}
#define FORWARD2_K(k)                                                                              \
	FORWARD2_FN(k, 2, false, )                                                                 \
	FORWARD2_FN(k, 3, false, )                                                                 \
	FORWARD2_FN(k, 4, false, ) FORWARD2_FN(k, 2, true, _sym) FORWARD2_FN(k, 3, true, _sym)     \
	    FORWARD2_FN(k, 4, true, _sym)
#define ROW2_K(k)                                                                                  \
	{{forward2_k##k##_n2, forward2_k##k##_n3, forward2_k##k##_n4},                             \
	 {forward2_k##k##_n2_sym, forward2_k##k##_n3_sym, forward2_k##k##_n4_sym}},

FORWARD2_K(5)
FORWARD2_K(6)
FORWARD2_K(7)
FORWARD2_K(8)
FORWARD2_K(9)

viterbi_forward2_fn viterbi__forward2_avx2(const struct viterbi_decoder *v)
{
	static const viterbi_forward2_fn by_k[5][2][3] = {ROW2_K(5) ROW2_K(6) ROW2_K(7) ROW2_K(8)
	                                                      ROW2_K(9)};

	if (v->code.k < 5)
		return NULL;
	return by_k[v->code.k - 5][v->symmetric][v->code.n - 2];
}
