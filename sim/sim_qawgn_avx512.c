/*
 * The quantized channel's sampler (sim_qawgn.h) with AVX-512 F, BW and VBMI: the 8 xoshiro256**
 * lanes in one register, 64 values a block, each table's 256 bytes looked up by two two-register
 * byte permutes and a blend on the bucket's top bit, the comparison with the threshold as two
 * byte comparisons, ties settled in order by the portable rule. The same values as the portable
 * code, bit for bit.
 */
#include <immintrin.h>

#include "sim_qawgn.h"

struct table {
	__m512i q[4]; /* 256 bytes */
};

static inline struct table table_load(const uint8_t *t)
{
	struct table r;

	for (unsigned i = 0; i < 4; i++)
		r.q[i] = _mm512_load_si512((const void *)(t + 64 * i));
	return r;
}

/* t[idx] for each byte of idx; hi: the bytes of idx at or above 128 */
static inline __m512i lookup(const struct table *t, __m512i idx, __mmask64 hi)
{
	__m512i lo = _mm512_permutex2var_epi8(t->q[0], idx, t->q[1]);
	__m512i up = _mm512_permutex2var_epi8(t->q[2], idx, t->q[3]);

	return _mm512_mask_blend_epi8(hi, lo, up);
}

void sim__qawgn_apply_avx512(const struct sim_qawgn *t, struct sim_qawgn_lanes *lanes,
                             struct fec_prng *p, const uint8_t *bits, size_t n, int8_t *out)
{
	const struct table own = table_load(t->own), alias = table_load(t->alias);
	const struct table thi = table_load(t->thi), tlo = table_load(t->tlo);
	const __m512i one = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
	__m512i s0 = _mm512_load_si512((const void *)lanes->s[0]);
	__m512i s1 = _mm512_load_si512((const void *)lanes->s[1]);
	__m512i s2 = _mm512_load_si512((const void *)lanes->s[2]);
	__m512i s3 = _mm512_load_si512((const void *)lanes->s[3]);
	__m512i w[3];

	for (size_t at = 0; at < n; at += SIM_QAWGN_BLOCK) {
		const size_t m = n - at < SIM_QAWGN_BLOCK ? n - at : SIM_QAWGN_BLOCK;
		const __mmask64 keep =
		    m == SIM_QAWGN_BLOCK ? ~(__mmask64)0 : ((__mmask64)1 << m) - 1;

		for (unsigned k = 0; k < 3; k++) {
			/* xoshiro256**: (s1 * 5 <<< 7) * 9, then the state's update */
			const __m512i x = _mm512_add_epi64(s1, _mm512_slli_epi64(s1, 2));
			const __m512i r = _mm512_rol_epi64(x, 7);
			const __m512i tt = _mm512_slli_epi64(s1, 17);

			w[k] = _mm512_add_epi64(r, _mm512_slli_epi64(r, 3));
			s2 = _mm512_xor_si512(s2, s0);
			s3 = _mm512_xor_si512(s3, s1);
			s1 = _mm512_xor_si512(s1, s2);
			s0 = _mm512_xor_si512(s0, s3);
			s2 = _mm512_xor_si512(s2, tt);
			s3 = _mm512_rol_epi64(s3, 45);
		}
		const __mmask64 hi = _mm512_movepi8_mask(w[0]);
		const __m512i th = lookup(&thi, w[0], hi), tl = lookup(&tlo, w[0], hi);
		const __mmask64 eq_hi = _mm512_cmpeq_epi8_mask(w[1], th);
		const __mmask64 eq_lo = _mm512_cmpeq_epi8_mask(w[2], tl);
		const __mmask64 to_alias =
		    _mm512_cmpgt_epu8_mask(w[1], th) | (eq_hi & _mm512_cmpgt_epu8_mask(w[2], tl));
		__m512i v = _mm512_mask_blend_epi8(to_alias, lookup(&own, w[0], hi),
		                                   lookup(&alias, w[0], hi));
		const __m512i c = _mm512_maskz_loadu_epi8(keep, bits + at);
		const __mmask64 sent1 = _mm512_test_epi8_mask(c, one);

		v = _mm512_mask_sub_epi8(v, sent1, zero, v);
		_mm512_mask_storeu_epi8(out + at, keep, v);
		/* ties (2^-16 of the values): the portable rule, in order */
		uint64_t tie = eq_hi & eq_lo & keep;

		if (tie) {
			_Alignas(64) uint8_t bucket[SIM_QAWGN_BLOCK];

			_mm512_store_si512((void *)bucket, w[0]);
			for (; tie; tie &= tie - 1) {
				const unsigned j = (unsigned)__builtin_ctzll(tie);
				const uint8_t val = sim__qawgn_tie(t, p, bucket[j]);
				const uint8_t neg = (uint8_t) - (bits[at + j] & 1u);

				out[at + j] = (int8_t)(uint8_t)((val ^ neg) - neg);
			}
		}
	}
}
