/*
 * The cyclic pass's vector part with AVX2 (ldpc_cyc.c says what it does): chunks of 32 rows,
 * their int8 values in one vector, their int16 a-posteriori values in two.
 *
 * A masked store first re-reads memory, so that another lane of the same chunk which wrote that
 * column (two slots on one block put two rows of a group on one column, never of one layer) is
 * not undone. The arithmetic is ldpc_decode_avx2.c's, with rows for frames.
 */

#include <string.h>

#include "ldpc_avx2.h"
#include "ldpc_decoder.h"

#define W 32 /* rows per chunk: int8 lanes of a vector */
/* Slots up to this keep a chunk's incoming values in registers (unrolled). */
#define UNROLL_MAX 8

/* Lanes of a 16-bit mask as int16 lanes of all ones. */
static inline __m256i mask16(uint32_t bits)
{
	const __m256i sel = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
	                                      4096, 8192, 16384, (short)32768);

	return _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16((short)bits), sel), sel);
}

/* Stores a and b (rows 0-15, 16-31) at v, into the lanes of ma and mb (int16 lane masks; full:
 * all lanes), the other lanes keeping what memory holds; and as much again mirror values further
 * (the block's first W values or their copy past its end, where the store touched them). */
static inline __attribute__((always_inline)) void
store_app(int16_t *v, int mirror, __m256i a, __m256i b, bool full, __m256i ma, __m256i mb)
{
	if (!full) {
		a = _mm256_blendv_epi8(_mm256_loadu_si256((__m256i *)v), a, ma);
		b = _mm256_blendv_epi8(_mm256_loadu_si256((__m256i *)(v + 16)), b, mb);
	}
	_mm256_storeu_si256((__m256i *)v, a);
	_mm256_storeu_si256((__m256i *)(v + 16), b);
	if (mirror) {
		_mm256_storeu_si256((__m256i *)(v + mirror), a);
		_mm256_storeu_si256((__m256i *)(v + mirror + 16), b);
	}
}

/* One chunk of rows of a group of deg slots, lanes of mask: slot i's values at app + at[i]
 * (mirror[i] as in store_app), its messages at c + i * cstride. full: stored whole, the lanes
 * outside mask (if any) padding, which send 0. */
static inline __attribute__((always_inline)) void
chunk(int16_t *app, const int32_t *at, const int16_t *mirror, uint32_t deg, uint32_t mask,
      bool full, uint8_t *c, size_t cstride, __m256i *xbuf, int algo, __m256i alpha16,
      __m256i offset8)
{
	const __m256i one = _mm256_set1_epi8(1);
	__m256i m1 = _mm256_set1_epi8(127), m2 = m1, s = _mm256_setzero_si256(), n1, n2;
	__m256i ma = one, mb = one, mc = one;
	__m256i local[3 * UNROLL_MAX];
	__m256i *xv = deg <= UNROLL_MAX ? local : xbuf;

	if (!full) {
		ma = mask16(mask & 0xffff);
		mb = mask16(mask >> 16);
		mc = _mm256_packs_epi16(ma, mb);
	}
#pragma GCC unroll 8
	for (uint32_t i = 0; i < deg; i++) {
		const int16_t *v = app + at[i];
		const __m256i old = _mm256_load_si256((const __m256i *)(c + i * cstride));
		__m256i ea = _mm256_loadu_si256((const __m256i *)v);
		__m256i eb = _mm256_loadu_si256((const __m256i *)(v + 16));

		ea = _mm256_sub_epi16(ea, ldpc_avx2_widen_lo(old));
		eb = _mm256_sub_epi16(eb, ldpc_avx2_widen_hi(old));
		xv[3 * i] = ldpc_avx2_edge_in(ea, eb, &m1, &m2, &s);
		xv[3 * i + 1] = ea;
		xv[3 * i + 2] = eb;
	}
	n1 = ldpc_avx2_row_out(m1, s, algo, alpha16, offset8);
	n2 = ldpc_avx2_row_out(m2, s, algo, alpha16, offset8);
	if (full && mask != UINT32_MAX) {
		const __m256i pad = _mm256_packs_epi16(mask16(mask & 0xffff), mask16(mask >> 16));

		n1 = _mm256_and_si256(n1, pad);
		n2 = _mm256_and_si256(n2, pad);
	}
#pragma GCC unroll 8
	for (uint32_t i = 0; i < deg; i++) {
		__m256i *cv = (__m256i *)(c + i * cstride);
		__m256i msg = ldpc_avx2_edge_out(xv[3 * i], m1, n1, n2);

		if (!full)
			msg = _mm256_blendv_epi8(_mm256_load_si256(cv), msg, mc);
		_mm256_store_si256(cv, msg);
		store_app(app + at[i], mirror[i],
		          _mm256_add_epi16(xv[3 * i + 1], ldpc_avx2_widen_lo(msg)),
		          _mm256_add_epi16(xv[3 * i + 2], ldpc_avx2_widen_hi(msg)), full, ma, mb);
	}
}

/* The chunk kernel with the algorithm and, for chunks stored whole, the degree as constants. */
static inline __attribute__((always_inline)) void
chunk_any(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk, const int32_t *at,
          const int16_t *mirror, uint32_t deg, uint64_t mask, bool whole, uint8_t *c, int algo)
{
	const __m256i alpha16 = _mm256_set1_epi16((short)d->alpha16);
	const __m256i offset8 = _mm256_set1_epi8((char)d->offset8);
	const size_t cstride = d->cyc->zpad;
	__m256i *xbuf = wk->xbuf;

#define CHUNK(n, full) \
	chunk(wk->app, at, mirror, n, (uint32_t)mask, full, c, cstride, xbuf, algo, alpha16, offset8)
	whole = whole || mask == (uint64_t)UINT32_MAX;
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

void ldpc__cyc_chunk_avx2(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk,
                          const int32_t *at, const int16_t *mirror, uint32_t deg, uint64_t mask,
                          bool whole, uint8_t *c)
{
	switch (d->base.spec.u.ldpc.algo) {
	case LDPC_ALGO_NMS:
		chunk_any(d, wk, at, mirror, deg, mask, whole, c, LDPC_ALGO_NMS);
		break;
	case LDPC_ALGO_OMS:
		chunk_any(d, wk, at, mirror, deg, mask, whole, c, LDPC_ALGO_OMS);
		break;
	default:
		chunk_any(d, wk, at, mirror, deg, mask, whole, c, LDPC_ALGO_MS);
		break;
	}
}

/* Whether a lane of mask has odd parity over the slots' hard decisions (value < 0). */
bool ldpc__cyc_parity_avx2(const int16_t *app, const int32_t *at, uint32_t deg, uint64_t mask)
{
	__m256i pa = _mm256_setzero_si256(), pb = pa;

	for (uint32_t i = 0; i < deg; i++) {
		pa = _mm256_xor_si256(pa, _mm256_loadu_si256((const __m256i *)(app + at[i])));
		pb = _mm256_xor_si256(pb, _mm256_loadu_si256((const __m256i *)(app + at[i] + 16)));
	}
	pa = _mm256_and_si256(pa, mask16((uint32_t)mask & 0xffff));
	pb = _mm256_and_si256(pb, mask16((uint32_t)mask >> 16));
	return _mm256_movemask_epi8(_mm256_packs_epi16(pa, pb)) != 0;
}

/* 16 rows of 16 bytes into 16 columns: afterwards r[m] holds byte m of each row, in row order. */
static inline void transpose16(__m128i r[16])
{
	__m128i a[16], b[16], c[16];

	for (int k = 0; k < 8; k++) { /* pairs of rows: columns 0-7, 8-15 */
		a[k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
		a[k + 8] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
	}
	for (int h = 0; h < 2; h++) /* quads of rows: columns by 4 */
		for (int k = 0; k < 4; k++) {
			const __m128i *x = a + 8 * h + 2 * k;

			b[8 * h + k] = _mm_unpacklo_epi16(x[0], x[1]);
			b[8 * h + k + 4] = _mm_unpackhi_epi16(x[0], x[1]);
		}
	for (int h = 0; h < 4; h++) /* eights of rows: columns by 2 */
		for (int k = 0; k < 2; k++) {
			const __m128i *x = b + 4 * h + 2 * k;

			c[4 * h + k] = _mm_unpacklo_epi32(x[0], x[1]);
			c[4 * h + k + 2] = _mm_unpackhi_epi32(x[0], x[1]);
		}
	for (int h = 0; h < 8; h++) { /* all 16 rows: one column each */
		r[2 * h] = _mm_unpacklo_epi64(c[2 * h], c[2 * h + 1]);
		r[2 * h + 1] = _mm_unpackhi_epi64(c[2 * h], c[2 * h + 1]);
	}
}

void ldpc__cyc_load_run_avx2(const int8_t *src, int16_t *dst, uint32_t run, uint32_t z,
                             size_t block_len)
{
	const __m128i lowest = _mm_set1_epi8(-127);

	/* tiles of 16 positions by 16 blocks; the last of each overlaps the one before */
	for (uint32_t j0 = 0; j0 < z; j0 += 16) {
		const uint32_t j = j0 + 16 <= z ? j0 : z - 16;

		for (uint32_t i0 = 0; i0 < run; i0 += 16) {
			const uint32_t i = i0 + 16 <= run ? i0 : run - 16;
			__m128i r[16];

			for (int k = 0; k < 16; k++) {
				const int8_t *row = src + (size_t)(j + k) * run + i;

				r[k] = _mm_max_epi8(_mm_loadu_si128((const __m128i *)row), lowest);
			}
			transpose16(r);
			for (int m = 0; m < 16; m++)
				_mm256_storeu_si256((__m256i *)(dst + (i + m) * block_len + j),
				                    _mm256_cvtepi8_epi16(r[m]));
		}
	}
}

void ldpc__cyc_load_avx2(const int8_t *src, int16_t *dst, uint32_t n)
{
	const __m128i lowest = _mm_set1_epi8(-127);

	/* the last 16 overlap the ones before */
	for (uint32_t j0 = 0; j0 < n; j0 += 16) {
		const uint32_t j = j0 + 16 <= n ? j0 : n - 16;
		const __m128i x = _mm_loadu_si128((const __m128i *)(src + j));

		_mm256_storeu_si256((__m256i *)(dst + j), _mm256_cvtepi8_epi16(_mm_max_epi8(x, lowest)));
	}
}

void ldpc__cyc_emit_avx2(const int16_t *v, uint32_t n, uint8_t *out)
{
	/* bytes 7..0 of each 8 first: movemask then puts value 8q + r at bit 8q + 7 - r */
	const __m256i rev = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
	                                     7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
	uint32_t j = 0;

	for (; j + 32 <= n; j += 32, out += 4) {
		const __m256i a = _mm256_loadu_si256((const __m256i *)(v + j));
		const __m256i b = _mm256_loadu_si256((const __m256i *)(v + j + 16));
		/* packs interleaves the halves by 128-bit lane: values 0-7, 16-23, 8-15, 24-31 */
		const __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi16(a, b), 0xd8);
		const uint32_t bits = (uint32_t)_mm256_movemask_epi8(_mm256_shuffle_epi8(p, rev));

		memcpy(out, &bits, 4);
	}
	for (; j < n; j += 8, out++) {
		unsigned byte = 0;

		for (unsigned b = 0; b < 8; b++)
			byte |= (unsigned)(v[j + b] < 0) << (7 - b);
		*out = (uint8_t)byte;
	}
}
