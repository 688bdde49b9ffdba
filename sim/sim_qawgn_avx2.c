/*
 * The quantized channel's sampler (sim_qawgn.h) with AVX2, for CPUs without AVX-512 VBMI: the 8
 * xoshiro256** lanes in two registers, 64 values a block; the buckets' table entries (own, alias
 * and the threshold's top 16 bits in 32 bits, as the portable code reads them) fetched by a
 * scalar loop (no gathers: microcoded slow on several of these CPUs), the comparison, the choice
 * and the sign 8 values a register, packed back to bytes; ties settled in order by the portable
 * rule. The same values as the portable code, bit for bit.
 */
#include <immintrin.h>
#include <string.h>

#include "sim_qawgn.h"

/* One xoshiro256** step of four lanes: the output, and the state moved on. */
static inline __m256i step4(__m256i *s0, __m256i *s1, __m256i *s2, __m256i *s3)
{
	const __m256i x = _mm256_add_epi64(*s1, _mm256_slli_epi64(*s1, 2));
	const __m256i r = _mm256_or_si256(_mm256_slli_epi64(x, 7), _mm256_srli_epi64(x, 57));
	const __m256i t = _mm256_slli_epi64(*s1, 17);

	*s2 = _mm256_xor_si256(*s2, *s0);
	*s3 = _mm256_xor_si256(*s3, *s1);
	*s1 = _mm256_xor_si256(*s1, *s2);
	*s0 = _mm256_xor_si256(*s0, *s3);
	*s2 = _mm256_xor_si256(*s2, t);
	*s3 = _mm256_or_si256(_mm256_slli_epi64(*s3, 45), _mm256_srli_epi64(*s3, 19));
	return _mm256_add_epi64(r, _mm256_slli_epi64(r, 3));
}

/* 8 values from their entries, comparison bytes and code bits (8 bytes each): the value's byte
 * in the low byte of each 32-bit lane; *tie gets the lanes whose 16 bits tied. */
static inline __m256i eight(__m256i e, const uint8_t *hi, const uint8_t *lo, const uint8_t *bits,
                            unsigned *tie)
{
	const __m256i h = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)hi));
	const __m256i l = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)lo));
	const __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)bits));
	const __m256i u = _mm256_or_si256(_mm256_slli_epi32(h, 8), l);
	const __m256i th = _mm256_srli_epi32(e, 16);
	const __m256i above = _mm256_cmpgt_epi32(u, th); /* both below 2^16: signed is fine */
	const __m256i v = _mm256_blendv_epi8(e, _mm256_srli_epi32(e, 8), above);
	/* a sent 1 (any non-zero bit 0): the negated value */
	const __m256i neg =
	    _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(c, _mm256_set1_epi32(1)));

	*tie = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(u, th)));
	return _mm256_and_si256(_mm256_sub_epi32(_mm256_xor_si256(v, neg), neg),
	                        _mm256_set1_epi32(0xff));
}

void sim__qawgn_apply_avx2(const struct sim_qawgn *t, struct sim_qawgn_lanes *lanes,
                           struct fec_prng *p, const uint8_t *bits, size_t n, int8_t *out)
{
	__m256i s[4][2];
	_Alignas(32) uint8_t by[3][SIM_QAWGN_BLOCK];
	_Alignas(32) uint32_t e[SIM_QAWGN_BLOCK];
	_Alignas(32) uint8_t c[SIM_QAWGN_BLOCK], v[SIM_QAWGN_BLOCK];

	for (unsigned k = 0; k < 4; k++)
		for (unsigned h = 0; h < 2; h++)
			s[k][h] = _mm256_load_si256((const __m256i *)(lanes->s[k] + 4 * h));
	for (size_t at = 0; at < n; at += SIM_QAWGN_BLOCK) {
		const size_t m = n - at < SIM_QAWGN_BLOCK ? n - at : SIM_QAWGN_BLOCK;
		const uint8_t *cb = bits + at;
		uint64_t tie = 0;

		for (unsigned k = 0; k < 3; k++)
			for (unsigned h = 0; h < 2; h++)
				_mm256_store_si256((__m256i *)(by[k] + 32 * h),
				                   step4(&s[0][h], &s[1][h], &s[2][h], &s[3][h]));
		for (unsigned j = 0; j < SIM_QAWGN_BLOCK; j++)
			e[j] = t->entry[by[0][j]];
		if (m < SIM_QAWGN_BLOCK) {
			/* the last block: its bits copied, so that whole vectors can be read */
			memset(c, 0, sizeof(c));
			memcpy(c, cb, m);
			cb = c;
		}
		for (unsigned q = 0; q < SIM_QAWGN_BLOCK; q += 32) {
			__m256i x[4];
			unsigned tq[4];

			for (unsigned i = 0; i < 4; i++)
				x[i] = eight(_mm256_load_si256((const __m256i *)(e + q + 8 * i)),
				             by[1] + q + 8 * i, by[2] + q + 8 * i, cb + q + 8 * i,
				             &tq[i]);
			/* 32 lanes to 32 bytes: the packs work within 128-bit halves */
			const __m256i w = _mm256_packus_epi16(_mm256_packus_epi32(x[0], x[1]),
			                                      _mm256_packus_epi32(x[2], x[3]));

			_mm256_store_si256((__m256i *)(v + q),
			                   _mm256_permutevar8x32_epi32(
			                       w, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
			for (unsigned i = 0; i < 4; i++)
				tie |= (uint64_t)tq[i] << (q + 8 * i);
		}
		memcpy(out + at, v, m);
		if (m < SIM_QAWGN_BLOCK)
			tie &= ((uint64_t)1 << m) - 1;
		/* ties (2^-16 of the values): the portable rule, in order */
		for (; tie; tie &= tie - 1) {
			const unsigned j = (unsigned)__builtin_ctzll(tie);
			const uint8_t val = sim__qawgn_tie(t, p, by[0][j]);
			const uint8_t neg = (uint8_t) - (bits[at + j] & 1u);

			out[at + j] = (int8_t)(uint8_t)((val ^ neg) - neg);
		}
	}
}
