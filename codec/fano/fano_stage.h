/*
 * Internal to codec/fano/: the fast path's table of branch metrics per stage (fano_fast.c says
 * what an entry holds), written once for the compiler to vectorize and built twice: in
 * fano_fast.c for the baseline target (SSE2 on x86-64), and in fano_fast_avx2.c with AVX2, chosen
 * at run time. Both give the same entries.
 */
#ifndef FANO_STAGE_H
#define FANO_STAGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fano.h"

#define FANO_STAGE_INLINE static inline __attribute__((always_inline))

/* One direction's table: for each stage s and input-0 code word w, the entry from the metrics
 * of w and of w ^ c1 (the sums over outputs r of fano_fast_init's per-output rows at stage s's
 * LLR r), stage s's words entries at out + s * stride. n and words are constants where it is
 * inlined, so that it vectorizes: int16 sums (every one fits: n times the metric floor at
 * least), then each pair sorted and packed. */
FANO_STAGE_INLINE void stage_rows(const int16_t *vt, const int8_t *in, uint32_t *restrict out,
                                  uint32_t stages, unsigned n, unsigned words, size_t stride)
{
	for (uint32_t s = 0; s < stages; s++, in += n, out += stride) {
		const int16_t *p[FANO_N_MAX];
		int16_t row[32], lo[16], hi[16];

		for (unsigned r = 0; r < n; r++)
			p[r] = vt + ((size_t)r * 256 + (uint8_t)in[r]) * 2 * words;
		for (unsigned j = 0; j < 2 * words; j++)
			row[j] = p[0][j];
		for (unsigned r = 1; r < n; r++)
			for (unsigned j = 0; j < 2 * words; j++)
				row[j] = (int16_t)(row[j] + p[r][j]);
		/* in int16 lanes: the better metric, and the other one's 15 bits with the flag */
		for (unsigned j = 0; j < words; j++) {
			const int16_t m0 = row[j], m1 = row[words + j];
			const uint16_t best = m1 > m0;

			lo[j] = best ? m1 : m0;
			hi[j] = (int16_t)((uint16_t)(best << 15) |
			                  ((uint16_t)(best ? m0 : m1) & 0x7fffu));
		}
		for (unsigned j = 0; j < words; j++)
			out[j] = (uint16_t)lo[j] | (uint32_t)(uint16_t)hi[j] << 16;
	}
}

#ifdef __SSE2__
#include <emmintrin.h>

/* stage_rows in SSE2 intrinsics (VEX-encoded in the AVX2 build): the compilers left the loops
 * above mostly scalar (a lane extracted at a time for the sort). A row of 2 x words int16 is
 * words / 4 vectors of 8 lanes: input 0's metrics, then input 1's (n = 2: both halves of one
 * vector). The better is the larger (ties: input 0), so the other is the minimum (15 bits: it
 * is at least n x the metric floor, -16384). */
FANO_STAGE_INLINE void stage_rows_sse2(const int16_t *vt, const int8_t *in, uint32_t *out,
                                       uint32_t stages, unsigned n, unsigned words, size_t stride)
{
	const unsigned nv = words / 4, half = nv > 1 ? nv / 2 : 1;

	for (uint32_t s = 0; s < stages; s++, in += n, out += stride) {
		__m128i sum[4];

		for (unsigned r = 0; r < n; r++) {
			const __m128i *p =
			    (const __m128i *)(vt + ((size_t)r * 256 + (uint8_t)in[r]) * 2 * words);

			for (unsigned j = 0; j < nv; j++)
				sum[j] = r ? _mm_add_epi16(sum[j], _mm_loadu_si128(p + j))
				           : _mm_loadu_si128(p + j);
		}
		for (unsigned j = 0; j < half; j++) {
			const __m128i m0 = sum[j],
			              m1 = nv > 1 ? sum[half + j] : _mm_srli_si128(m0, 8);
			const __m128i best = _mm_cmpgt_epi16(m1, m0);
			const __m128i lo = _mm_max_epi16(m0, m1);
			const __m128i hi = _mm_or_si128(
			    _mm_and_si128(_mm_min_epi16(m0, m1), _mm_set1_epi16(0x7fff)),
			    _mm_slli_epi16(best, 15));

			_mm_storeu_si128((__m128i *)(out + 8 * j), _mm_unpacklo_epi16(lo, hi));
			if (words > 4)
				_mm_storeu_si128((__m128i *)(out + 8 * j + 4),
				                 _mm_unpackhi_epi16(lo, hi));
		}
	}
}
#ifdef __AVX2__
#include <immintrin.h>

/* One stage's row of n = 3 (input 0's 8 metrics, then input 1's) as one 256-bit vector: o[r] is
 * the byte offset of output r's row for its LLR in that output's rows (vt + r * 256 * 16). */
FANO_STAGE_INLINE __m256i stage_sum8(const int16_t *vt, const uint16_t *o)
{
	const char *v = (const char *)vt;
	__m256i sum = _mm256_loadu_si256((const __m256i *)(v + o[0]));

	sum = _mm256_add_epi16(sum, _mm256_loadu_si256((const __m256i *)(v + 8192 + o[1])));
	return _mm256_add_epi16(sum, _mm256_loadu_si256((const __m256i *)(v + 16384 + o[2])));
}

/* The byte offsets of count LLRs' rows (2^shift bytes a row): 16 at a time. */
FANO_STAGE_INLINE void row_offsets(const int8_t *in, uint16_t *o, uint32_t count, int shift)
{
	uint32_t j = 0;

	for (; j + 16 <= count; j += 16) {
		const __m256i q = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(in + j)));

		_mm256_storeu_si256((__m256i *)(o + j), _mm256_slli_epi16(q, shift));
	}
	for (; j < count; j++)
		o[j] = (uint16_t)((uint8_t)in[j] << shift);
}

/* n = 2, two stages at a time: each stage's row (input 0's 4 metrics, then input 1's: 16 bytes
 * for each output's LLR) in one 128-bit half of a vector, sorted and packed once for both; the
 * rows' offsets computed first, as for n = 3. Returns the stages done. */
FANO_STAGE_INLINE uint32_t stage_rows4_pairs(const int16_t *vt, const int8_t *in, uint32_t *out,
                                             uint32_t stages, size_t stride)
{
	const char *v = (const char *)vt;
	uint16_t off[2 * 64];
	uint32_t s = 0;

	while (s + 2 <= stages) {
		const uint32_t chunk = stages - s >= 64 ? 64 : (stages - s) & ~1u;

		row_offsets(in + (size_t)2 * s, off, 2 * chunk, 4);
		for (uint32_t c = 0; c < chunk; c += 2, out += 2 * stride) {
			const uint16_t *o = off + 2 * c;
			const __m256i r0 = _mm256_inserti128_si256(
			    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(v + o[0]))),
			    _mm_loadu_si128((const __m128i *)(v + o[2])), 1);
			const __m256i r1 = _mm256_inserti128_si256(
			    _mm256_castsi128_si256(
			        _mm_loadu_si128((const __m128i *)(v + 4096 + o[1]))),
			    _mm_loadu_si128((const __m128i *)(v + 4096 + o[3])), 1);
			const __m256i m0 = _mm256_add_epi16(r0, r1), m1 = _mm256_srli_si256(m0, 8);
			const __m256i best = _mm256_cmpgt_epi16(m1, m0);
			const __m256i lo = _mm256_max_epi16(m0, m1);
			const __m256i hi = _mm256_or_si256(
			    _mm256_and_si256(_mm256_min_epi16(m0, m1), _mm256_set1_epi16(0x7fff)),
			    _mm256_slli_epi16(best, 15));
			/* in each 128-bit lane: a stage's 4 entries (the upper lanes unused) */
			const __m256i x = _mm256_unpacklo_epi16(lo, hi);

			_mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(x));
			_mm_storeu_si128((__m128i *)(out + stride), _mm256_extracti128_si256(x, 1));
		}
		s += chunk;
	}
	return s;
}

/* n = 3, two stages at a time: the two rows' input-0 halves in one vector, their input-1 halves
 * in another, so that the sort and the packing run once for both; the rows' offsets computed
 * first, 16 LLRs a vector, 64 stages at a time. Returns the stages done. */
FANO_STAGE_INLINE uint32_t stage_rows8_pairs(const int16_t *vt, const int8_t *in, uint32_t *out,
                                             uint32_t stages, size_t stride)
{
	uint16_t off[3 * 64];
	uint32_t s = 0;

	while (s + 2 <= stages) {
		const uint32_t chunk = stages - s >= 64 ? 64 : (stages - s) & ~1u;

		row_offsets(in + (size_t)3 * s, off, 3 * chunk, 5);
		for (uint32_t c = 0; c < chunk; c += 2, out += 2 * stride) {
			const __m256i a = stage_sum8(vt, off + 3 * c),
			              b = stage_sum8(vt, off + 3 * c + 3);
			const __m256i m0 = _mm256_permute2x128_si256(a, b, 0x20);
			const __m256i m1 = _mm256_permute2x128_si256(a, b, 0x31);
			const __m256i best = _mm256_cmpgt_epi16(m1, m0);
			const __m256i lo = _mm256_max_epi16(m0, m1);
			const __m256i hi = _mm256_or_si256(
			    _mm256_and_si256(_mm256_min_epi16(m0, m1), _mm256_set1_epi16(0x7fff)),
			    _mm256_slli_epi16(best, 15));
			/* within 128-bit lanes: entries 0-3 of both stages, then 4-7 */
			const __m256i x = _mm256_unpacklo_epi16(lo, hi),
			              y = _mm256_unpackhi_epi16(lo, hi);

			/* 128-bit stores, not lane permutes: the permutes share one port with the
			 * unpacks */
			_mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(x));
			_mm_storeu_si128((__m128i *)(out + 4), _mm256_castsi256_si128(y));
			_mm_storeu_si128((__m128i *)(out + stride), _mm256_extracti128_si256(x, 1));
			_mm_storeu_si128((__m128i *)(out + stride + 4),
			                 _mm256_extracti128_si256(y, 1));
		}
		s += chunk;
	}
	return s;
}

/* The AVX2 build's: n = 3's row (16 lanes) and each half of n = 4's (input 0's metrics, input
 * 1's) are one 256-bit vector, a stage's entries one or two 256-bit stores (n = 2 and 3: two
 * stages at a time). */
FANO_STAGE_INLINE void stage_rows_avx2(const int16_t *vt, const int8_t *in, uint32_t *out,
                                       uint32_t stages, unsigned n, unsigned words, size_t stride)
{
	uint32_t s = 0;

	if (words == 4) {
		s = stage_rows4_pairs(vt, in, out, stages, stride);
		stage_rows_sse2(vt, in + (size_t)s * n, out + s * stride, stages - s, n, words,
		                stride);
		return;
	}
	if (words == 8) {
		s = stage_rows8_pairs(vt, in, out, stages, stride);
		in += (size_t)s * n;
		out += s * stride;
	}
	for (; s < stages; s++, in += n, out += stride) {
		__m256i sum[2];

		for (unsigned r = 0; r < n; r++) {
			const __m256i *p =
			    (const __m256i *)(vt + ((size_t)r * 256 + (uint8_t)in[r]) * 2 * words);

			for (unsigned j = 0; j < words / 8; j++)
				sum[j] = r ? _mm256_add_epi16(sum[j], _mm256_loadu_si256(p + j))
				           : _mm256_loadu_si256(p + j);
		}
		if (words == 8) {
			const __m128i m0 = _mm256_castsi256_si128(sum[0]);
			const __m128i m1 = _mm256_extracti128_si256(sum[0], 1);
			const __m128i best = _mm_cmpgt_epi16(m1, m0);
			const __m128i lo = _mm_max_epi16(m0, m1);
			const __m128i hi = _mm_or_si128(
			    _mm_and_si128(_mm_min_epi16(m0, m1), _mm_set1_epi16(0x7fff)),
			    _mm_slli_epi16(best, 15));

			_mm256_storeu_si256((__m256i *)out,
			                    _mm256_set_m128i(_mm_unpackhi_epi16(lo, hi),
			                                     _mm_unpacklo_epi16(lo, hi)));
			continue;
		}
		const __m256i best = _mm256_cmpgt_epi16(sum[1], sum[0]);
		const __m256i lo = _mm256_max_epi16(sum[0], sum[1]);
		const __m256i hi = _mm256_or_si256(
		    _mm256_and_si256(_mm256_min_epi16(sum[0], sum[1]), _mm256_set1_epi16(0x7fff)),
		    _mm256_slli_epi16(best, 15));
		/* unpacks work within 128-bit lanes: entries 0-3 and 8-11, then 4-7 and 12-15 */
		const __m256i a = _mm256_unpacklo_epi16(lo, hi), b = _mm256_unpackhi_epi16(lo, hi);

		_mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(a, b, 0x20));
		_mm256_storeu_si256((__m256i *)(out + 8), _mm256_permute2x128_si256(a, b, 0x31));
	}
}
#define FANO_STAGE_ROWS stage_rows_avx2
#else
#define FANO_STAGE_ROWS stage_rows_sse2
#endif
#else
#define FANO_STAGE_ROWS stage_rows
#endif

/* Defines void NAME(vt, in, out, stages, n, stride): every stage's entries for n = 2..4, stage s's
 * at out + s * stride. */
#define FANO_STAGE_TABLE(NAME)                                                                     \
	void NAME(const int16_t *vt, const int8_t *in, uint32_t *out, uint32_t stages, unsigned n, \
	          size_t stride)                                                                   \
	{                                                                                          \
		if (n == 2)                                                                        \
			FANO_STAGE_ROWS(vt, in, out, stages, 2, 4, stride);                        \
		else if (n == 3)                                                                   \
			FANO_STAGE_ROWS(vt, in, out, stages, 3, 8, stride);                        \
		else                                                                               \
			FANO_STAGE_ROWS(vt, in, out, stages, 4, 16, stride);                       \
	}

void fano_stage_table_sse2(const int16_t *vt, const int8_t *in, uint32_t *out, uint32_t stages,
                           unsigned n, size_t stride);
void fano_stage_table_avx2(const int16_t *vt, const int8_t *in, uint32_t *out, uint32_t stages,
                           unsigned n, size_t stride);

#endif
