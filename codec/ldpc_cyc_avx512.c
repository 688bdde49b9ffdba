/*
 * The cyclic pass's vector part with AVX-512 (F, BW; ldpc_cyc.c says what it does): chunks of 64
 * rows, their int8 values in one vector, their int16 a-posteriori values in two; lanes outside a
 * layer's rows are left out by masked stores. Otherwise as ldpc_cyc_avx2.c, step for step, and
 * bit-exact with it: the same rule (ldpc.h) in 512-bit registers.
 */
#include <immintrin.h>

#include "ldpc_decoder.h"

#define W 64 /* rows per chunk: int8 lanes of a vector */
/* Slots up to this keep a chunk's incoming values in registers (unrolled). */
#define UNROLL_MAX 8

/* int8 lanes to int16: those packs_epi16 took from its first operand, and from its second. */
static inline __m512i widen_lo(__m512i c)
{
	return _mm512_srai_epi16(_mm512_unpacklo_epi8(c, c), 8);
}

static inline __m512i widen_hi(__m512i c)
{
	return _mm512_srai_epi16(_mm512_unpackhi_epi8(c, c), 8);
}

static inline __m512i norm_ms(__m512i m, int algo, __m512i alpha16, __m512i offset8)
{
	if (algo == LDPC_ALGO_NMS) {
		const __m512i zero = _mm512_setzero_si512();
		__m512i lo = _mm512_unpacklo_epi8(m, zero), hi = _mm512_unpackhi_epi8(m, zero);

		lo = _mm512_srli_epi16(_mm512_mullo_epi16(lo, alpha16), 4);
		hi = _mm512_srli_epi16(_mm512_mullo_epi16(hi, alpha16), 4);
		return _mm512_packus_epi16(lo, hi);
	}
	if (algo == LDPC_ALGO_OMS)
		return _mm512_subs_epu8(m, offset8);
	return m;
}

/* One chunk of rows of a group of deg slots, lanes of mask (full: all 64): slot i's values at
 * app + at[i], and as much again mirror[i] further where non-zero; its messages at
 * c + i * cstride. */
static inline __attribute__((always_inline)) void
chunk(int16_t *app, const int32_t *at, const int16_t *mirror, uint32_t deg, uint64_t mask,
      bool full, uint8_t *c, size_t cstride, __m512i *xbuf, int algo, __m512i alpha16,
      __m512i offset8)
{
	const __m512i lo = _mm512_set1_epi8(-127), zero = _mm512_setzero_si512();
	const __mmask32 ka = (__mmask32)mask, kb = (__mmask32)(mask >> 32);
	__m512i m1 = _mm512_set1_epi8(127), m2 = m1, s = zero, n1, n2;
	__mmask64 kc = ~(__mmask64)0;
	__m512i local[3 * UNROLL_MAX];
	__m512i *xv = deg <= UNROLL_MAX ? local : xbuf;

	if (!full)
		kc = _mm512_movepi8_mask(
		    _mm512_packs_epi16(_mm512_movm_epi16(ka), _mm512_movm_epi16(kb)));
#pragma GCC unroll 8
	for (uint32_t i = 0; i < deg; i++) {
		const int16_t *v = app + at[i];
		const __m512i old = _mm512_load_si512(c + i * cstride);
		__m512i ea = _mm512_loadu_si512(v), eb = _mm512_loadu_si512(v + 32), x, a;

		ea = _mm512_sub_epi16(ea, widen_lo(old));
		eb = _mm512_sub_epi16(eb, widen_hi(old));
		x = _mm512_max_epi8(_mm512_packs_epi16(ea, eb), lo);
		a = _mm512_abs_epi8(x);
		m2 = _mm512_min_epu8(m2, _mm512_max_epu8(m1, a));
		m1 = _mm512_min_epu8(m1, a);
		s = _mm512_xor_si512(s, x);
		xv[3 * i] = x;
		xv[3 * i + 1] = ea;
		xv[3 * i + 2] = eb;
	}
	n1 = norm_ms(m1, algo, alpha16, offset8);
	n2 = norm_ms(m2, algo, alpha16, offset8);
#pragma GCC unroll 8
	for (uint32_t i = 0; i < deg; i++) {
		int16_t *v = app + at[i];
		const __m512i x = xv[3 * i];
		const __mmask64 holds = _mm512_cmpeq_epi8_mask(_mm512_abs_epi8(x), m1);
		const __mmask64 neg = _mm512_movepi8_mask(_mm512_xor_si512(s, x));
		const __m512i mag = _mm512_mask_blend_epi8(holds, n1, n2);
		const __m512i msg = _mm512_mask_sub_epi8(mag, neg, zero, mag);
		const __m512i na = _mm512_add_epi16(xv[3 * i + 1], widen_lo(msg));
		const __m512i nb = _mm512_add_epi16(xv[3 * i + 2], widen_hi(msg));

		if (full) {
			_mm512_store_si512(c + i * cstride, msg);
			_mm512_storeu_si512(v, na);
			_mm512_storeu_si512(v + 32, nb);
			if (mirror[i]) {
				_mm512_storeu_si512(v + mirror[i], na);
				_mm512_storeu_si512(v + mirror[i] + 32, nb);
			}
		} else {
			_mm512_mask_storeu_epi8(c + i * cstride, kc, msg);
			_mm512_mask_storeu_epi16(v, ka, na);
			_mm512_mask_storeu_epi16(v + 32, kb, nb);
			if (mirror[i]) {
				_mm512_mask_storeu_epi16(v + mirror[i], ka, na);
				_mm512_mask_storeu_epi16(v + mirror[i] + 32, kb, nb);
			}
		}
	}
}

/* The chunk kernel with the algorithm and, for full chunks, the degree as constants. */
static inline __attribute__((always_inline)) void
chunk_any(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk, const int32_t *at,
          const int16_t *mirror, uint32_t deg, uint64_t mask, uint8_t *c, int algo)
{
	const __m512i alpha16 = _mm512_set1_epi16((short)d->alpha16);
	const __m512i offset8 = _mm512_set1_epi8((char)d->offset8);
	const size_t cstride = d->cyc->zpad;
	__m512i *xbuf = wk->xbuf;

#define CHUNK(n, full) \
	chunk(wk->app, at, mirror, n, mask, full, c, cstride, xbuf, algo, alpha16, offset8)
	if (mask == UINT64_MAX && deg == 7)
		CHUNK(7, true);
	else if (mask == UINT64_MAX && deg == 6)
		CHUNK(6, true);
	else if (mask == UINT64_MAX && deg == 8)
		CHUNK(8, true);
	else if (mask == UINT64_MAX)
		CHUNK(deg, true);
	else
		CHUNK(deg, false);
#undef CHUNK
}

void ldpc__cyc_chunk_avx512(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk,
                          const int32_t *at, const int16_t *mirror, uint32_t deg, uint64_t mask,
                          uint8_t *c)
{
	switch (d->base.spec.u.ldpc.algo) {
	case LDPC_ALGO_NMS:
		chunk_any(d, wk, at, mirror, deg, mask, c, LDPC_ALGO_NMS);
		break;
	case LDPC_ALGO_OMS:
		chunk_any(d, wk, at, mirror, deg, mask, c, LDPC_ALGO_OMS);
		break;
	default:
		chunk_any(d, wk, at, mirror, deg, mask, c, LDPC_ALGO_MS);
		break;
	}
}

/* Whether a lane of mask has odd parity over the slots' hard decisions (value < 0). */
bool ldpc__cyc_parity_avx512(const int16_t *app, const int32_t *at, uint32_t deg, uint64_t mask)
{
	__m512i pa = _mm512_setzero_si512(), pb = pa;

	for (uint32_t i = 0; i < deg; i++) {
		pa = _mm512_xor_si512(pa, _mm512_loadu_si512(app + at[i]));
		pb = _mm512_xor_si512(pb, _mm512_loadu_si512(app + at[i] + 32));
	}
	return (_mm512_movepi16_mask(pa) & (__mmask32)mask) ||
	       (_mm512_movepi16_mask(pb) & (__mmask32)(mask >> 32));
}
