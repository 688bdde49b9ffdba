/*
 * The nbldpc family's trellis min-sum (algo=tms) for GF(64) with AVX-512 VBMI: one frame, each
 * message one 64-byte vector (a-posteriori costs two vectors of 32 int16), so that the GF
 * products and the XOR shifts of nbldpc_tms.c's steps 3 and 8 are single lane permutations
 * (vpermb) and every other step is a few vector operations. It computes the reference's steps
 * bit for bit (test_nbldpc_tms compares them); built with -mavx512f -mavx512bw -mavx512vbmi and
 * used only where the CPU has them (nbldpc_coder.c).
 */
#include <immintrin.h>
#include <string.h>

#include "nbldpc_decoder.h"

#define Q 64

/* The smallest of 64 int16 lanes (two vectors). */
static inline int16_t min_i16(__m512i a, __m512i b)
{
	const __m512i m = _mm512_min_epi16(a, b);
	__m256i y = _mm256_min_epi16(_mm512_castsi512_si256(m), _mm512_extracti64x4_epi64(m, 1));
	__m128i x = _mm_min_epi16(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));

	/* minpos is unsigned: flipping the sign bit maps signed order onto unsigned order */
	x = _mm_minpos_epu16(_mm_xor_si128(x, _mm_set1_epi16((short)0x8000)));
	return (int16_t)(_mm_extract_epi16(x, 0) ^ 0x8000);
}

/* The smallest of 64 uint16 keys (two vectors). */
static inline unsigned min_u16(__m512i a, __m512i b)
{
	const __m512i m = _mm512_min_epu16(a, b);
	__m256i y = _mm256_min_epu16(_mm512_castsi512_si256(m), _mm512_extracti64x4_epi64(m, 1));
	__m128i x = _mm_min_epu16(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));

	return (unsigned)_mm_extract_epi16(_mm_minpos_epu16(x), 0);
}

/* The index of the first zero among 64 int16 lanes (there is one: the vectors are normalised). */
static inline unsigned first_zero_i16(__m512i lo, __m512i hi)
{
	const uint64_t m = (uint64_t)_mm512_cmpeq_epi16_mask(lo, _mm512_setzero_si512()) |
	                   (uint64_t)_mm512_cmpeq_epi16_mask(hi, _mm512_setzero_si512()) << 32;

	return (unsigned)__builtin_ctzll(m);
}

/* The 64 uint8 lanes of v widened to int16, lanes 0-31 and 32-63. */
static inline __m512i widen_lo(__m512i v)
{
	return _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v));
}

static inline __m512i widen_hi(__m512i v)
{
	return _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(v, 1));
}

/* One check: steps 1-9 of nbldpc_tms.c. */
static void check_update(const struct nbldpc_decoder *d, uint32_t e0, unsigned deg, int16_t *app,
                         uint8_t *rm, unsigned dev2, __m512i offset)
{
	const struct nbldpc_code *c = d->code;
	const __m512i iota = _mm512_set_epi8(
	    63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
	    41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
	    19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	const __m512i all = _mm512_set1_epi8((char)0xff);
	__m512i wlo[NBLDPC_DEG_MAX], whi[NBLDPC_DEG_MAX], dv[NBLDPC_DEG_MAX];
	__m512i vv[NBLDPC_DEG_MAX], dd[NBLDPC_DEG_MAX], tt[NBLDPC_DEG_MAX];
	__m512i m1 = all, m2 = all, e1 = _mm512_setzero_si512(), e2 = all, klo, khi;
	uint8_t z[NBLDPC_DEG_MAX], vbuf[NBLDPC_DEG_MAX][Q], dbuf[NBLDPC_DEG_MAX][Q];
	unsigned beta = 0, nsel = dev2 < Q - 1 ? dev2 : Q - 1;

	/* steps 1-4 */
	for (unsigned i = 0; i < deg; i++) {
		const uint32_t e = e0 + i;
		const uint8_t h = c->row_val[e];
		int16_t *p = app + (size_t)c->row_col[e] * Q;
		const __m512i r = _mm512_loadu_si512(rm + (size_t)e * Q);
		__m512i lo = _mm512_sub_epi16(_mm512_loadu_si512(p), widen_lo(r));
		__m512i hi = _mm512_sub_epi16(_mm512_loadu_si512(p + 32), widen_hi(r));
		const __m512i mn = _mm512_set1_epi16(min_i16(lo, hi));
		__m512i q8, idx;
		__mmask64 lt, lt2;
		unsigned a;

		lo = _mm512_subs_epi16(lo, mn);
		hi = _mm512_subs_epi16(hi, mn);
		wlo[i] = lo;
		whi[i] = hi;
		q8 = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtusepi16_epi8(lo)),
		                        _mm512_cvtusepi16_epi8(hi), 1);
		a = (unsigned)__builtin_ctzll(_mm512_cmpeq_epi8_mask(q8, _mm512_setzero_si512()));
		z[i] = d->tms_mul[h * Q + a];
		beta ^= z[i];
		idx = _mm512_permutexvar_epi8(_mm512_xor_si512(iota, _mm512_set1_epi8((char)z[i])),
		                              _mm512_loadu_si512(d->tms_div + h * Q));
		dv[i] = _mm512_permutexvar_epi8(idx, q8);
		lt = _mm512_cmplt_epu8_mask(dv[i], m1);
		lt2 = _mm512_cmplt_epu8_mask(dv[i], m2) & ~lt;
		m2 = _mm512_mask_blend_epi8(lt2, _mm512_mask_blend_epi8(lt, m2, m1), dv[i]);
		e2 = _mm512_mask_blend_epi8(lt2, _mm512_mask_blend_epi8(lt, e2, e1),
		                            _mm512_set1_epi8((char)i));
		m1 = _mm512_mask_blend_epi8(lt, m1, dv[i]);
		e1 = _mm512_mask_blend_epi8(lt, e1, _mm512_set1_epi8((char)i));
	}
	/* steps 5 and 6 together, so that the chain of minimum searches of step 5 overlaps the
	 * passes of step 6: keys m1 << 8 | eta, lane 0 out, each minimum found set to 0xffff */
	klo = _mm512_or_si512(_mm512_slli_epi16(widen_lo(m1), 8), widen_lo(iota));
	khi = _mm512_or_si512(_mm512_slli_epi16(widen_hi(m1), 8), widen_hi(iota));
	klo = _mm512_mask_mov_epi16(klo, 1, _mm512_set1_epi16(-1));
	for (unsigned i = 0; i < deg; i++) {
		const __mmask64 own = _mm512_cmpeq_epi8_mask(e1, _mm512_set1_epi8((char)i));

		vv[i] = _mm512_mask_blend_epi8(own, m1, m2);
		dd[i] = _mm512_mask_blend_epi8(own, e1, e2);
		tt[i] = all;
		_mm512_storeu_si512(vbuf[i], vv[i]);
		_mm512_storeu_si512(dbuf[i], dd[i]);
	}
	for (unsigned k = 0; k < nsel; k++) {
		const unsigned key = min_u16(klo, khi), eta1 = key & 0xff;
		const __m512i kv = _mm512_set1_epi16((short)key);
		const __m512i px = _mm512_xor_si512(iota, _mm512_set1_epi8((char)eta1));
		const __mmask64 lanes = ~(1ull | 1ull << eta1);

		/* a candidate with m1 = 255 (and all after it) lowers no T: v1 + v2 saturates */
		if (key >> 8 == 255)
			break;

		klo = _mm512_mask_mov_epi16(klo, _mm512_cmpeq_epi16_mask(klo, kv),
		                            _mm512_set1_epi16(-1));
		khi = _mm512_mask_mov_epi16(khi, _mm512_cmpeq_epi16_mask(khi, kv),
		                            _mm512_set1_epi16(-1));
		for (unsigned i = 0; i < deg; i++) {
			const __m512i v2 = _mm512_permutexvar_epi8(px, vv[i]);
			const __m512i d2 = _mm512_permutexvar_epi8(px, dd[i]);
			const __mmask64 ok =
			    _mm512_cmpneq_epi8_mask(d2, _mm512_set1_epi8((char)dbuf[i][eta1])) &
			    lanes;

			tt[i] = _mm512_mask_min_epu8(
			    tt[i], ok, tt[i],
			    _mm512_adds_epu8(v2, _mm512_set1_epi8((char)vbuf[i][eta1])));
		}
	}
	/* steps 7-9 per edge */
	for (unsigned i = 0; i < deg; i++) {
		const uint32_t e = e0 + i;
		const uint8_t h = c->row_val[e];
		__m512i o, r, lo, hi, mn;
		int16_t *p = app + (size_t)c->row_col[e] * Q;

		o = _mm512_subs_epu8(_mm512_min_epu8(vv[i], tt[i]), offset);
		o = _mm512_mask_mov_epi8(o, 1, _mm512_setzero_si512());
		r = _mm512_permutexvar_epi8(_mm512_xor_si512(_mm512_loadu_si512(d->tms_mul + h * Q),
		                                             _mm512_set1_epi8((char)(beta ^ z[i]))),
		                            o);
		_mm512_storeu_si512(rm + (size_t)e * Q, r);
		lo = _mm512_adds_epi16(wlo[i], widen_lo(r));
		hi = _mm512_adds_epi16(whi[i], widen_hi(r));
		mn = _mm512_set1_epi16(min_i16(lo, hi));
		_mm512_storeu_si512(p, _mm512_sub_epi16(lo, mn));
		_mm512_storeu_si512(p + 32, _mm512_sub_epi16(hi, mn));
	}
}

static bool decide(const struct nbldpc_code *c, const int16_t *app, uint8_t *hard)
{
	for (uint32_t x = 0; x < c->n; x++)
		hard[x] = (uint8_t)first_zero_i16(_mm512_loadu_si512(app + (size_t)x * Q),
		                                  _mm512_loadu_si512(app + (size_t)x * Q + 32));
	return nbldpc_codeword_valid(c, hard);
}

unsigned nbldpc__tms_avx512(const struct nbldpc_decoder *d, void *scratch, int16_t *app,
                            uint8_t *hard, bool *ok)
{
	const struct nbldpc_code *c = d->code;
	const struct nbldpc_spec *s = &d->base.spec.u.nbldpc;
	const __m512i offset = _mm512_set1_epi8((char)s->offset);
	uint8_t *rm = scratch;
	unsigned it = 0;

	memset(rm, 0, (size_t)c->nnz * Q);
	for (uint32_t x = 0; x < c->n; x++) {
		int16_t *p = app + (size_t)x * Q;
		const __m512i lo = _mm512_loadu_si512(p), hi = _mm512_loadu_si512(p + 32);
		const __m512i mn = _mm512_set1_epi16(min_i16(lo, hi));

		_mm512_storeu_si512(p, _mm512_subs_epi16(lo, mn));
		_mm512_storeu_si512(p + 32, _mm512_subs_epi16(hi, mn));
	}
	*ok = false;
	while (it < s->max_iters) {
		it++;
		for (uint32_t r = 0; r < c->m; r++)
			check_update(d, c->row_start[r], c->row_start[r + 1] - c->row_start[r], app,
			             rm, s->dev2, offset);
		*ok = decide(c, app, hard);
		if (*ok && s->early_stop)
			break;
	}
	if (it == 0)
		*ok = decide(c, app, hard);
	return it;
}
