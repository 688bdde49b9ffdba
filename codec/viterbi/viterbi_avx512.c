/*
 * The Viterbi forward pass in AVX-512 (F/BW/VL, with BMI2): four jobs at once, for K = 5..8.
 * Built with those instruction sets for this file only; viterbi.c calls it only when cpu_simd.h
 * says the CPU has them, and runs what it cannot group by four through the AVX2 passes.
 *
 * It is viterbi_avx2.c's two-job pass made twice as wide: each 128-bit lane of a 512-bit register
 * belongs to one job (lane j: job j) and holds eight int16 metrics in reversed state order
 * (L = rev(s), viterbi_impl.h), so every shuffle stays inside a lane and the stage is the same
 * instruction for instruction; the metrics, their scaling (PM' = (PM - symbol sums) / 2, from
 * pmaddubsw over 0/1 code-bit tables), saturation and renormalisation every VITERBI_RENORM16
 * stages are the AVX2 pass's, hence so are every decision, end state and metric.
 *
 * What AVX-512 changes besides the width is the decisions: a compare into a mask register gives
 * the 32 decisions of one register (four jobs by eight butterflies) as bits, with no blend and no
 * movemask. A butterfly's two decisions (successors 2e and 2e+1) come from two such masks; one
 * pdep each spreads them onto the even and odd bits, which puts each job's sixteen decisions of
 * the group, in L order, into one 16-bit field of a 64-bit word.
 */
#include <immintrin.h>
#include <string.h>

#include "viterbi_impl.h"

#define JOBS   4
#define NV_MAX (CONV_STATES_MAX / 8)
#define CHUNK  VITERBI_RENORM16

/* In lane j: bytes 4j, 4j+1 (job j's outputs 0, 1) in every int16 element; the same for 4j+2,
 * 4j+3 (outputs 2, 3). */
static const uint8_t y_pick[2][64] __attribute__((aligned(64))) = {
    {0, 1, 0, 1, 0,  1,  0,  1,  0,  1,  0,  1,  0,  1,  0,  1,  4,  5,  4,  5, 4, 5,
     4, 5, 4, 5, 4,  5,  4,  5,  4,  5,  8,  9,  8,  9,  8,  9,  8,  9,  8,  9, 8, 9,
     8, 9, 8, 9, 12, 13, 12, 13, 12, 13, 12, 13, 12, 13, 12, 13, 12, 13, 12, 13},
    {2,  3,  2,  3,  2,  3,  2,  3,  2,  3,  2,  3,  2,  3,  2,  3,  6,  7,  6,  7,  6,  7,
     6,  7,  6,  7,  6,  7,  6,  7,  6,  7,  10, 11, 10, 11, 10, 11, 10, 11, 10, 11, 10, 11,
     10, 11, 10, 11, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15},
};

/* Symbols of count stages of one job from in + *pos, starting at puncturing step *step, to ys
 * (stage i at ys[16 i .. 16 i + 3]: outputs 0..3, 0 where not sent); returns their sum. */
static inline __attribute__((always_inline)) int32_t gather_symbols(const struct conv_code *c,
                                                                    const int8_t *in, uint32_t *pos,
                                                                    unsigned *step, uint32_t count,
                                                                    unsigned n, int8_t *ys)
{
	int32_t sum = 0;

	if (c->period == 1 && n != 3) {
		/* unpunctured 2 and 4 outputs: whole stages as they stand (bytes 2, 3 of a
		 * 2-output stage stay 0) */
		for (uint32_t i = 0; i < n * count; i++)
			sum += in[*pos + i];
		for (uint32_t i = 0; i < count; i++)
			memcpy(ys + 16 * i, in + *pos + n * i, n);
		*pos += n * count;
		return sum;
	}
	for (uint32_t i = 0; i < count; i++) {
		const unsigned sent = c->sent[*step];

		for (unsigned r = 0; r < 4; r++) {
			int8_t y = r < n && (sent >> r & 1u) ? in[(*pos)++] : 0;

			ys[16 * i + r] = y;
			sum += y;
		}
		*step = *step + 1 == c->period ? 0 : *step + 1;
	}
	return sum;
}

/* One stage's symbols (16 bytes: four jobs by four outputs) as quad_branch's y[]. */
static inline __attribute__((always_inline)) void quad_symbols(const int8_t *ys, unsigned n,
                                                               __m512i y[2])
{
	const __m512i all = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)ys));

	y[0] = _mm512_shuffle_epi8(all, _mm512_loadu_si512(y_pick[0]));
	y[1] = n > 2 ? _mm512_shuffle_epi8(all, _mm512_loadu_si512(y_pick[1])) : y[0];
}

/* Group g's butterflies for shape q in every lane: the sum of the symbols whose code bit is set,
 * which is -BM' (viterbi_avx2.c), so the caller subtracts it. */
static inline __attribute__((always_inline)) __m512i
quad_branch(const struct viterbi_decoder *v, const __m512i *y, unsigned n, unsigned q, unsigned g)
{
	__m512i s = _mm512_maddubs_epi16(_mm512_loadu_si512(v->wquad[g][q][0]), y[0]);

	if (n > 2)
		s = _mm512_add_epi16(
		    s, _mm512_maddubs_epi16(_mm512_loadu_si512(v->wquad[g][q][1]), y[1]));
	return s;
}

/* One stage of the four jobs over nv registers; decisions to rows[j] + off (L order) when
 * store. */
static inline __attribute__((always_inline)) void
quad_stage(const struct viterbi_decoder *v, const __m512i *y, unsigned n, unsigned nv, bool sym,
           const __m512i *pm, __m512i *npm, bool store, uint8_t *const rows[JOBS], size_t off)
{
	const unsigned ng = nv / 2;

	for (unsigned g = 0; g < ng; g++) {
		__m512i a = pm[g], b = pm[g + ng], s0, s1, s2, s3, c00, c01, c10, c11, x, z;

		s0 = quad_branch(v, y, n, 0, g);
		s1 = quad_branch(v, y, n, 1, g);
		/* symmetric codes: shapes 2 and 3 are 1 and 0 */
		s2 = sym ? s1 : quad_branch(v, y, n, 2, g);
		s3 = sym ? s0 : quad_branch(v, y, n, 3, g);
		c00 = _mm512_subs_epi16(a, s0);
		c01 = _mm512_subs_epi16(b, s1);
		c10 = _mm512_subs_epi16(a, s2);
		c11 = _mm512_subs_epi16(b, s3);
		x = _mm512_max_epi16(c00, c01);
		z = _mm512_max_epi16(c10, c11);
		npm[2 * g] = _mm512_unpacklo_epi16(x, z);
		npm[2 * g + 1] = _mm512_unpackhi_epi16(x, z);
		if (store) {
			/* bit 8j + e of each mask is job j's butterfly e: successor 2e's
			 * decision goes to bit 16j + 2e, 2e+1's to bit 16j + 2e + 1 */
			uint64_t d0 = (uint32_t)_mm512_cmpgt_epi16_mask(c01, c00);
			uint64_t d1 = (uint32_t)_mm512_cmpgt_epi16_mask(c11, c10);
			uint64_t d = _pdep_u64(d0, 0x5555555555555555ull) |
			             _pdep_u64(d1, 0xAAAAAAAAAAAAAAAAull);

			for (unsigned j = 0; j < JOBS; j++) {
				uint16_t w = (uint16_t)(d >> (16 * j));

				memcpy(rows[j] + off + 2 * g, &w, 2);
			}
		}
	}
}

/* Subtracts each job's largest metric from its metrics; adds it to off[job]. */
static inline __attribute__((always_inline)) void quad_renormalise(__m512i *pm, unsigned nv,
                                                                   int64_t off[JOBS])
{
	/* element 0 of each lane to the whole lane */
	const __m512i first = _mm512_set1_epi16(0x0100);
	int16_t tops[32];
	__m512i top = pm[0];

	for (unsigned i = 1; i < nv; i++)
		top = _mm512_max_epi16(top, pm[i]);
	top = _mm512_max_epi16(top, _mm512_shuffle_epi32(top, (_MM_PERM_ENUM)0x4E));
	top = _mm512_max_epi16(top, _mm512_shuffle_epi32(top, (_MM_PERM_ENUM)0xB1));
	top = _mm512_max_epi16(top, _mm512_shufflelo_epi16(top, 0xB1));
	top = _mm512_shuffle_epi8(top, first);
	for (unsigned i = 0; i < nv; i++)
		pm[i] = _mm512_sub_epi16(pm[i], top);
	_mm512_storeu_si512(tops, top);
	for (unsigned j = 0; j < JOBS; j++)
		off[j] += tops[8 * j];
}

/* Stages t0 .. t0+count-1 of the four jobs, their symbols in ys (16 bytes a stage); two a turn
 * so that the metrics swap places without copies. */
static inline __attribute__((always_inline)) void
quad_run(const struct viterbi_decoder *v, const int8_t *ys, uint32_t t0, uint32_t count,
         uint32_t head, uint8_t *const rows[JOBS], size_t row_bytes, unsigned nv, bool sym,
         unsigned n, __m512i *pm)
{
	__m512i npm[NV_MAX], y[2];
	uint32_t i = 0;

	for (; i < count && t0 + i < head; i++) {
		quad_symbols(ys + 16 * i, n, y);
		quad_stage(v, y, n, nv, sym, pm, npm, false, rows, 0);
		for (unsigned j = 0; j < nv; j++)
			pm[j] = npm[j];
	}
	for (; i + 2 <= count; i += 2) {
		const size_t at = (size_t)(t0 + i - head) * row_bytes;

		quad_symbols(ys + 16 * i, n, y);
		quad_stage(v, y, n, nv, sym, pm, npm, true, rows, at);
		quad_symbols(ys + 16 * (i + 1), n, y);
		quad_stage(v, y, n, nv, sym, npm, pm, true, rows, at + row_bytes);
	}
	if (i < count) {
		quad_symbols(ys + 16 * i, n, y);
		quad_stage(v, y, n, nv, sym, pm, npm, true, rows,
		           (size_t)(t0 + i - head) * row_bytes);
		for (unsigned j = 0; j < nv; j++)
			pm[j] = npm[j];
	}
}

static inline __attribute__((always_inline)) void
quad_forward(const struct viterbi_decoder *v, const int8_t *const in[JOBS],
             const struct job_plan *p[JOBS], uint64_t *const dec[JOBS], int64_t metric[JOBS],
             unsigned end[JOBS], unsigned nv, bool sym, unsigned n)
{
	const struct conv_code *c = &v->code;
	const uint32_t total = p[0]->head + p[0]->own + p[0]->tail, head = p[0]->head;
	const size_t row_bytes = (size_t)v->words * 8;
	uint8_t *const rows[JOBS] = {(uint8_t *)dec[0], (uint8_t *)dec[1], (uint8_t *)dec[2],
	                             (uint8_t *)dec[3]};
	__m512i pm[NV_MAX];
	int8_t ys[16 * CHUNK] __attribute__((aligned(16))) = {0};
	int16_t start[32], last[NV_MAX][JOBS][8];
	int64_t offset[JOBS] = {0}, ysum[JOBS] = {0};
	uint32_t pos[JOBS] = {0};
	unsigned step[JOBS] = {0};

	/* state 0 is L = 0 in both orders: element 0 of each job's lane of register 0 */
	for (unsigned e = 0; e < 32; e++)
		start[e] = p[e / 8]->start_known ? VITERBI_UNREACHABLE16 : 0;
	for (unsigned i = 1; i < nv; i++)
		pm[i] = _mm512_loadu_si512(start);
	for (unsigned j = 0; j < JOBS; j++)
		start[8 * j] = 0;
	pm[0] = _mm512_loadu_si512(start);
	for (uint32_t t0 = 0; t0 < total; t0 += CHUNK) {
		const uint32_t count = total - t0 < CHUNK ? total - t0 : CHUNK;

		for (unsigned j = 0; j < JOBS; j++)
			ysum[j] +=
			    gather_symbols(c, in[j], &pos[j], &step[j], count, n, ys + 4 * j);
		quad_run(v, ys, t0, count, head, rows, row_bytes, nv, sym, n, pm);
		if (count == CHUNK)
			quad_renormalise(pm, nv, offset);
	}
	for (unsigned i = 0; i < nv; i++)
		_mm512_storeu_si512(last[i], pm[i]);
	for (unsigned j = 0; j < JOBS; j++) {
		unsigned best = 0;
		int16_t top = last[0][j][0];

		if (!p[j]->end_zero)
			for (unsigned s = 1; s < c->nstates; s++) {
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

/* One instance per K, n and symmetry, so that every loop above has constant bounds and the
 * metrics of K <= 7 live in registers. */
#define FORWARD4_FN(k, n, sym, tag)                                                                \
	static void forward4_k##k##_n##n##tag(                                                     \
	    const struct viterbi_decoder *v, const int8_t *const in[JOBS],                         \
	    const struct job_plan *p[JOBS], uint64_t *const dec[JOBS], int64_t metric[JOBS],       \
	    unsigned end[JOBS])                                                                    \
	{                                                                                          \
		quad_forward(v, in, p, dec, metric, end, (1u << (k - 1)) / 8, sym, n);             \
	}
#define FORWARD4_K(k)                                                                              \
	FORWARD4_FN(k, 2, false, )                                                                 \
	FORWARD4_FN(k, 3, false, )                                                                 \
	FORWARD4_FN(k, 4, false, )                                                                 \
	FORWARD4_FN(k, 2, true, _sym) FORWARD4_FN(k, 3, true, _sym) FORWARD4_FN(k, 4, true, _sym)
#define ROW4_K(k)                                                                                  \
	{{forward4_k##k##_n2, forward4_k##k##_n3, forward4_k##k##_n4},                             \
	 {forward4_k##k##_n2_sym, forward4_k##k##_n3_sym, forward4_k##k##_n4_sym}},

FORWARD4_K(5)
FORWARD4_K(6)
FORWARD4_K(7)
FORWARD4_K(8)

viterbi_forward4_fn viterbi__forward4_avx512(const struct viterbi_decoder *v)
{
	static const viterbi_forward4_fn by_k[4][2][3] = {ROW4_K(5) ROW4_K(6) ROW4_K(7) ROW4_K(8)};

	/* K = 9 measured slower four at a time than two (its 32 registers of metrics a job
	 * spill either way, and four jobs' rows leave the L1 cache): it runs in pairs */
	if (v->code.k < 5 || v->code.k > 8)
		return NULL;
	return by_k[v->code.k - 5][v->symmetric][v->code.n - 2];
}
