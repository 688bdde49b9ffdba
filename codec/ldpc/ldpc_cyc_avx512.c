/*
 * The cyclic pass's vector part with AVX-512 (F, BW, VBMI; ldpc_cyc.c says what it does): chunks
 * of 64 rows, their int8 values in one vector, their int16 a-posteriori values in two; lanes
 * outside a layer's rows are left out by masked stores. Otherwise as ldpc_cyc_avx2.c, step for
 * step, and bit-exact with it: the same rule (ldpc.h) in 512-bit registers, the check rule's
 * normalisation (nms, oms) by a 128-byte table (VBMI's two-register byte permute).
 */
#include <immintrin.h>

#include "ldpc_decoder.h"

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

/* 32 int8 messages at c (row order), as int16. */
static inline __m512i load16(const uint8_t *c)
{
	return _mm512_cvtepi8_epi16(_mm256_load_si256((const __m256i *)c));
}

/* One chunk of rows of a group of deg slots, lanes of mask: slot i's values at app + at[i], and as
 * much again mirror[i] further where non-zero; its messages at c + i * cstride, in row order; the
 * normalised magnitude of m at byte m of (t0, t1). full: stored whole, the lanes outside mask
 * (if any) padding, which send 0. */
static inline __attribute__((always_inline)) void
chunk(int16_t *app, const int32_t *at, const int16_t *mirror, uint32_t deg, uint64_t mask,
      bool full, uint8_t *c, size_t cstride, __m512i *xbuf, __m512i t0, __m512i t1)
{
	/* packs_epi16's qwords (rows 0-7, 32-39, 8-15, ...) in row order */
	const __m512i zero = _mm512_setzero_si512(),
	              order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
	const __mmask32 ka = (__mmask32)mask, kb = (__mmask32)(mask >> 32);
	__m512i m1 = _mm512_set1_epi8(127), m2 = m1, s = zero, n1, n2;
	__mmask64 ks;
	__m512i local[3 * UNROLL_MAX];
	__m512i *xv = deg <= UNROLL_MAX ? local : xbuf;

#pragma GCC unroll 8
	for (uint32_t i = 0; i < deg; i++) {
		const int16_t *v = app + at[i];
		const uint8_t *ci = c + i * cstride;
		__m512i ea = _mm512_loadu_si512(v), eb = _mm512_loadu_si512(v + 32), x, a;

		ea = _mm512_sub_epi16(ea, load16(ci));
		eb = _mm512_sub_epi16(eb, load16(ci + 32));
		/* sat8 without its lower bound: -128 (|x| 128 unsigned) in place of -127 leaves
		 * m1 and m2 as they are (both start at 127), keeps the sign, and fails the
		 * test against m1 only where m1 = m2 = 127: the same messages */
		x = _mm512_packs_epi16(ea, eb);
		a = _mm512_abs_epi8(x);
		m2 = _mm512_min_epu8(m2, _mm512_max_epu8(m1, a));
		m1 = _mm512_min_epu8(m1, a);
		s = _mm512_xor_si512(s, x);
		xv[3 * i] = x;
		xv[3 * i + 1] = ea;
		xv[3 * i + 2] = eb;
	}
	/* the magnitudes with the sign of the row's product; each edge's own sign undone below */
	n1 = _mm512_permutex2var_epi8(t0, m1, t1); /* m1, m2 <= 127: 7 index bits */
	n2 = _mm512_permutex2var_epi8(t0, m2, t1);
	if (full && mask != UINT64_MAX) {
		/* mask in the order of packs_epi16 */
		const __mmask64 kp = _mm512_movepi8_mask(
		    _mm512_packs_epi16(_mm512_movm_epi16(ka), _mm512_movm_epi16(kb)));

		n1 = _mm512_maskz_mov_epi8(kp, n1);
		n2 = _mm512_maskz_mov_epi8(kp, n2);
	}
	ks = _mm512_movepi8_mask(s);
	n1 = _mm512_mask_sub_epi8(n1, ks, zero, n1);
	n2 = _mm512_mask_sub_epi8(n2, ks, zero, n2);
#pragma GCC unroll 8
	for (uint32_t i = 0; i < deg; i++) {
		int16_t *v = app + at[i];
		const __m512i x = xv[3 * i];
		const __mmask64 holds = _mm512_cmpeq_epi8_mask(_mm512_abs_epi8(x), m1);
		const __m512i sm = _mm512_mask_blend_epi8(holds, n1, n2);
		const __m512i msg = _mm512_mask_sub_epi8(sm, _mm512_movepi8_mask(x), zero, sm);
		const __m512i na = _mm512_add_epi16(xv[3 * i + 1], widen_lo(msg));
		const __m512i nb = _mm512_add_epi16(xv[3 * i + 2], widen_hi(msg));
		const __m512i row_order = _mm512_permutexvar_epi64(order, msg);

		if (full) {
			_mm512_store_si512(c + i * cstride, row_order);
			_mm512_storeu_si512(v, na);
			_mm512_storeu_si512(v + 32, nb);
			if (mirror[i]) {
				_mm512_storeu_si512(v + mirror[i], na);
				_mm512_storeu_si512(v + mirror[i] + 32, nb);
			}
		} else {
			_mm512_mask_storeu_epi8(c + i * cstride, mask, row_order);
			_mm512_mask_storeu_epi16(v, ka, na);
			_mm512_mask_storeu_epi16(v + 32, kb, nb);
			if (mirror[i]) {
				_mm512_mask_storeu_epi16(v + mirror[i], ka, na);
				_mm512_mask_storeu_epi16(v + mirror[i] + 32, kb, nb);
			}
		}
	}
}

/* The chunk kernel with, for chunks stored whole, the degree as a constant. */
void ldpc__cyc_chunk_avx512(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk,
                            const int32_t *at, const int16_t *mirror, uint32_t deg, uint64_t mask,
                            bool whole, uint8_t *c)
{
	const __m512i t0 = _mm512_loadu_si512(d->cyc->norm),
	              t1 = _mm512_loadu_si512(d->cyc->norm + 64);
	const size_t cstride = d->cyc->zpad;
	__m512i *xbuf = wk->xbuf;

#define CHUNK(n, full) chunk(wk->app, at, mirror, n, mask, full, c, cstride, xbuf, t0, t1)
	whole = whole || mask == UINT64_MAX;
	if (whole && deg == 7)
		CHUNK(7, true);
	else if (whole && deg == 6)
		CHUNK(6, true);
	else if (whole && deg == 8)
		CHUNK(8, true);
	else if (whole)
		CHUNK(deg, true);
	else
		CHUNK(deg, false);
#undef CHUNK
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
