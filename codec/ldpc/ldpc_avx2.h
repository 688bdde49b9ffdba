/*
 * The int8 min-sum check rule of codec/ldpc/ldpc.h in AVX2 terms, for the two passes that use it
 * (ldpc_decode_avx2.c: 32 frames per vector; ldpc_cyc_avx2.c: 32 rows of one frame). A vector
 * holds 32 lanes of int8; their exact int16 values are two vectors, a = lanes 0-7 and 16-23,
 * b = lanes 8-15 and 24-31, the order in which packs_epi16(a, b) gives lanes 0..31 and
 * unpacklo/hi_epi8 of a byte vector gives a's and b's lanes. Only files built with -mavx2
 * include it.
 */
#ifndef LDPC_AVX2_H
#define LDPC_AVX2_H

#include <immintrin.h>

#include "ldpc.h"

/* int8 lanes to int16, a's half and b's half. */
static inline __m256i ldpc_avx2_widen_lo(__m256i c)
{
	return _mm256_srai_epi16(_mm256_unpacklo_epi8(c, c), 8);
}

static inline __m256i ldpc_avx2_widen_hi(__m256i c)
{
	return _mm256_srai_epi16(_mm256_unpackhi_epi8(c, c), 8);
}

/* The check rule's magnitude normalisation on a vector of magnitudes 0..127. */
static inline __m256i ldpc_avx2_norm(__m256i m, int algo, __m256i alpha16, __m256i offset8)
{
	if (algo == LDPC_ALGO_NMS) {
		const __m256i zero = _mm256_setzero_si256();
		__m256i lo = _mm256_unpacklo_epi8(m, zero), hi = _mm256_unpackhi_epi8(m, zero);

		lo = _mm256_srli_epi16(_mm256_mullo_epi16(lo, alpha16), 4);
		hi = _mm256_srli_epi16(_mm256_mullo_epi16(hi, alpha16), 4);
		return _mm256_packus_epi16(lo, hi);
	}
	if (algo == LDPC_ALGO_OMS)
		return _mm256_subs_epu8(m, offset8);
	return m;
}

/* An edge coming in with exact values ea, eb: its int8 value v, folded into the two smallest
 * magnitudes m1 <= m2 (both start at 127) and the sign xor s. v is sat8 without its lower bound:
 * -128 where sat8 gives -127, whose magnitude (128 unsigned) changes neither m1 nor m2, keeps the
 * sign, and fails edge_out's test against m1 only where m1 = m2 = 127: the same messages. */
static inline __m256i ldpc_avx2_edge_in(__m256i ea, __m256i eb, __m256i *m1, __m256i *m2,
                                        __m256i *s)
{
	const __m256i v = _mm256_packs_epi16(ea, eb);
	const __m256i a = _mm256_abs_epi8(v);

	*m2 = _mm256_min_epu8(*m2, _mm256_max_epu8(*m1, a));
	*m1 = _mm256_min_epu8(*m1, a);
	*s = _mm256_xor_si256(*s, v);
	return v;
}

/* A row's magnitude m (m1 or m2) normalised and given the sign of the row's xor s, once per row
 * (s or-ed with 1, never 0, so that sign_epi8 negates or keeps). */
static inline __m256i ldpc_avx2_row_out(__m256i m, __m256i s, int algo, __m256i alpha16,
                                        __m256i offset8)
{
	return _mm256_sign_epi8(ldpc_avx2_norm(m, algo, alpha16, offset8),
	                        _mm256_or_si256(s, _mm256_set1_epi8(1)));
}

/* The message back on an edge whose value was v: n2s where |v| is the minimum m1, else n1s (the
 * magnitudes with the row's sign, row_out), with v's own sign undone: the sign of s xor v. */
static inline __m256i ldpc_avx2_edge_out(__m256i v, __m256i m1, __m256i n1s, __m256i n2s)
{
	const __m256i holds = _mm256_cmpeq_epi8(_mm256_abs_epi8(v), m1);

	return _mm256_sign_epi8(_mm256_blendv_epi8(n1s, n2s, holds),
	                        _mm256_or_si256(v, _mm256_set1_epi8(1)));
}

#endif
