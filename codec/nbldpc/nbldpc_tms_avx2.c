/*
 * AVX2 pieces of the nbldpc family's portable trellis min-sum path (nbldpc_tms_fast.c) for
 * q >= 16: its XOR shifts (step 3's D_e(eta) = Q'(eta ^ z)) and step 6's passes (T(eta) =
 * min(T(eta), v1 + V(eta ^ eta1))), the loops the compiler leaves scalar because of the indexed
 * reads. An XOR shift of q bytes by x moves 16-byte chunk c to c ^ (x >> 4) and permutes within
 * each chunk by the low 4 bits, which vpshufb does on two chunks at a time. Built with -mavx2
 * and used where the CPU has it (nbldpc__tms_prepare); the results are the scalar loops'
 * exactly (test_nbldpc_tms runs the portable path with and without them).
 */
#include <immintrin.h>

#include "nbldpc_decoder.h"

/* Lane k of each 128-bit half: k ^ lo */
static inline __m256i xor_index(unsigned lo)
{
	const __m256i iota = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	                                      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);

	return _mm256_xor_si256(iota, _mm256_set1_epi8((char)lo));
}

/* Bytes 32 b .. 32 b + 31 of src XOR-shifted by x (q >= 32): chunks 2 b ^ hi and 2 b + 1 ^ hi,
 * each permuted by idx. */
static inline __m256i shifted(const uint8_t *src, unsigned b, unsigned hi, __m256i idx)
{
	const __m256i two = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(src + ((2 * b) ^ hi) * 16))),
	    _mm_loadu_si128((const __m128i *)(src + ((2 * b + 1) ^ hi) * 16)), 1);

	return _mm256_shuffle_epi8(two, idx);
}

void nbldpc__tms_xor_shift_avx2(uint8_t *dst, const uint8_t *src, unsigned q, unsigned x)
{
	const __m256i idx = xor_index(x & 15);

	if (q == 16) {
		_mm_storeu_si128((__m128i *)dst,
		                 _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)src),
		                                  _mm256_castsi256_si128(idx)));
		return;
	}
	for (unsigned b = 0; b < q / 32; b++)
		_mm256_storeu_si256((__m256i *)(dst + b * 32), shifted(src, b, x >> 4, idx));
}

void nbldpc__tms_pairs_avx2(unsigned q, unsigned deg, unsigned nset, const uint8_t *sel,
                            const uint8_t *vv, const uint8_t *jj, const uint8_t *vt, uint8_t *tt)
{
	for (unsigned s = 0; s < nset; s++) {
		const unsigned eta1 = sel[s], hi = eta1 >> 4;
		const __m256i idx = xor_index(eta1 & 15);

		for (unsigned i = 0; i < deg; i++) {
			const uint8_t *tab = vt + ((size_t)i * deg + jj[(size_t)i * q + eta1]) * q;
			const __m256i v1 = _mm256_set1_epi8((char)vv[(size_t)i * q + eta1]);
			uint8_t *ti = tt + (size_t)i * q;

			/* T <= 255, so the saturating sum's minimum is the exact sum's */
			if (q == 16) {
				const __m128i t = _mm_min_epu8(
				    _mm_loadu_si128((const __m128i *)ti),
				    _mm_adds_epu8(
				        _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)tab),
				                         _mm256_castsi256_si128(idx)),
				        _mm256_castsi256_si128(v1)));

				_mm_storeu_si128((__m128i *)ti, t);
				continue;
			}
			for (unsigned b = 0; b < q / 32; b++) {
				__m256i *t = (__m256i *)(ti + b * 32);

				_mm256_storeu_si256(
				    t, _mm256_min_epu8(
				           _mm256_loadu_si256(t),
				           _mm256_adds_epu8(shifted(tab, b, hi, idx), v1)));
			}
		}
	}
}
