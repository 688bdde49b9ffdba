/*
 * The cyclic pass's vector part with AVX2 (ldpc_cyc.c says what it does): chunks of 32 rows,
 * their int8 values in one vector, their int16 a-posteriori values in two.
 *
 * A masked store first re-reads memory, so that another lane of the same chunk which wrote that
 * column (two slots on one block put two rows of a group on one column, never of one layer) is
 * not undone. The arithmetic is ldpc_decode_avx2.c's, with rows for frames.
 */

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

/* Stores a and b (rows 0-15, 16-31) at offset off of a block, into the lanes of ma and mb (int16
 * lane masks; full: all lanes), the other lanes keeping what memory holds; where they touch the
 * block's first W values or their copy past its end, at the other place too. */
static inline void store_app(int16_t *blk, uint32_t z, uint32_t off, __m256i a, __m256i b,
                             bool full, __m256i ma, __m256i mb)
{
	int16_t *v = blk + off;

	if (!full) {
		a = _mm256_blendv_epi8(_mm256_loadu_si256((__m256i *)v), a, ma);
		b = _mm256_blendv_epi8(_mm256_loadu_si256((__m256i *)(v + 16)), b, mb);
	}
	_mm256_storeu_si256((__m256i *)v, a);
	_mm256_storeu_si256((__m256i *)(v + 16), b);
	if (off < W) {
		_mm256_storeu_si256((__m256i *)(v + z), a);
		_mm256_storeu_si256((__m256i *)(v + z + 16), b);
	} else if (off + W > z) {
		_mm256_storeu_si256((__m256i *)(v - z), a);
		_mm256_storeu_si256((__m256i *)(v - z + 16), b);
	}
}

/* One chunk of rows of a group of deg slots, lanes of mask: slot i's values at blk[i] + off[i],
 * its messages at c + i * cstride. */
static inline __attribute__((always_inline)) void
chunk(int16_t *const *blk, const uint32_t *off, uint32_t z, uint32_t deg, uint32_t mask,
      uint8_t *c, size_t cstride, __m256i *xbuf, int algo, __m256i alpha16, __m256i offset8)
{
	const __m256i one = _mm256_set1_epi8(1);
	const bool full = mask == UINT32_MAX;
	__m256i m1 = _mm256_set1_epi8(127), m2 = m1, s = _mm256_setzero_si256(), n1, n2;
	__m256i ma = one, mb = one, mc = one;
	__m256i local[3 * UNROLL_MAX];
	__m256i *xv = deg <= UNROLL_MAX ? local : xbuf;

	if (!full) {
		ma = mask16(mask & 0xffff);
		mb = mask16(mask >> 16);
		mc = _mm256_packs_epi16(ma, mb);
	}
	for (uint32_t i = 0; i < deg; i++) {
		const int16_t *at = blk[i] + off[i];
		const __m256i old = _mm256_load_si256((const __m256i *)(c + i * cstride));
		__m256i ea = _mm256_loadu_si256((const __m256i *)at);
		__m256i eb = _mm256_loadu_si256((const __m256i *)(at + 16));

		ea = _mm256_sub_epi16(ea, ldpc_avx2_widen_lo(old));
		eb = _mm256_sub_epi16(eb, ldpc_avx2_widen_hi(old));
		xv[3 * i] = ldpc_avx2_edge_in(ea, eb, &m1, &m2, &s);
		xv[3 * i + 1] = ea;
		xv[3 * i + 2] = eb;
	}
	n1 = ldpc_avx2_norm(m1, algo, alpha16, offset8);
	n2 = ldpc_avx2_norm(m2, algo, alpha16, offset8);
	for (uint32_t i = 0; i < deg; i++) {
		__m256i *cv = (__m256i *)(c + i * cstride);
		__m256i msg = ldpc_avx2_edge_out(xv[3 * i], m1, n1, n2, s);

		if (!full)
			msg = _mm256_blendv_epi8(_mm256_load_si256(cv), msg, mc);
		_mm256_store_si256(cv, msg);
		store_app(blk[i], z, off[i], _mm256_add_epi16(xv[3 * i + 1], ldpc_avx2_widen_lo(msg)),
		          _mm256_add_epi16(xv[3 * i + 2], ldpc_avx2_widen_hi(msg)), full, ma, mb);
	}
}

/* Each slot's block and its offset for rows 0..31 of the group. */
static inline void slots_start(const struct ldpc_cyclic *cy, int16_t *app, uint32_t s0,
                               uint32_t deg, int16_t **blk, uint32_t *off)
{
	for (uint32_t i = 0; i < deg; i++) {
		blk[i] = app + (size_t)cy->slot_block[s0 + i] * (cy->z + 3 * W) + W;
		off[i] = cy->slot_shift[s0 + i];
	}
}

/* ... and for the next chunk of 32 rows. */
static inline void slots_next(uint32_t z, uint32_t deg, uint32_t *off)
{
	for (uint32_t i = 0; i < deg; i++) {
		off[i] += W;
		if (off[i] >= z)
			off[i] -= z;
	}
}

static inline __attribute__((always_inline)) void iterate(const struct ldpc_decoder *d,
                                                          struct ldpc_cyc_work *wk, int algo)
{
	int16_t *app = wk->app, **blk = wk->blk;
	uint8_t *c2v = wk->c2v;
	uint32_t *off = wk->off;
	__m256i *xbuf = wk->xbuf;
	const struct ldpc_cyclic *cy = d->code->cyc;
	const struct ldpc_cyc_plan *p = d->cyc;
	const uint32_t z = cy->z;
	const __m256i alpha16 = _mm256_set1_epi16((short)d->alpha16);
	const __m256i offset8 = _mm256_set1_epi8((char)d->offset8);

	for (uint32_t l = 0; l < p->nlayers; l++) {
		for (uint32_t k = p->layer_task[l]; k < p->layer_task[l + 1]; k++) {
			const uint32_t g = p->task_group[k], s0 = cy->slot_start[g];
			const uint32_t deg = cy->slot_start[g + 1] - s0;
			const uint64_t *mask = p->task_mask + (size_t)k * p->nchunks;
			uint8_t *c = c2v + (size_t)s0 * p->zpad;

			slots_start(cy, app, s0, deg, blk, off);
			for (uint32_t ch = 0; ch < p->nchunks; ch++, slots_next(z, deg, off)) {
				if (!mask[ch])
					continue;
#define CHUNK(n) chunk(blk, off, z, n, (uint32_t)mask[ch], c + ch * W, p->zpad, xbuf, algo, alpha16, offset8)
				switch (deg) {
				case 6:
					CHUNK(6);
					break;
				case 7:
					CHUNK(7);
					break;
				case 8:
					CHUNK(8);
					break;
				default:
					CHUNK(deg);
					break;
				}
#undef CHUNK
			}
		}
		for (uint32_t i = p->layer_short[l]; i < p->layer_short[l + 1]; i++)
			ldpc__cyc_short_row(d, app, c2v, p->short_row[i]);
	}
}

void ldpc__cyc_iterate_avx2(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk)
{
	switch (d->base.spec.u.ldpc.algo) {
	case LDPC_ALGO_NMS:
		iterate(d, wk, LDPC_ALGO_NMS);
		break;
	case LDPC_ALGO_OMS:
		iterate(d, wk, LDPC_ALGO_OMS);
		break;
	default:
		iterate(d, wk, LDPC_ALGO_MS);
		break;
	}
}

/* Whether the hard decisions (value < 0) of every row but the short ones have even parity. */
bool ldpc__cyc_syndrome_avx2(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk)
{
	const struct ldpc_cyclic *cy = d->code->cyc;
	const struct ldpc_cyc_plan *p = d->cyc;

	for (uint32_t g = 0; g < cy->ngroups; g++) {
		const uint32_t s0 = cy->slot_start[g], deg = cy->slot_start[g + 1] - s0;

		slots_start(cy, wk->app, s0, deg, wk->blk, wk->off);
		for (uint32_t ch = 0; ch < p->nchunks; ch++, slots_next(cy->z, deg, wk->off)) {
			const uint32_t mask = (uint32_t)p->syn_mask[g * p->nchunks + ch];
			__m256i pa = _mm256_setzero_si256(), pb = pa;

			for (uint32_t i = 0; i < deg; i++) {
				const int16_t *at = wk->blk[i] + wk->off[i];

				pa = _mm256_xor_si256(pa, _mm256_loadu_si256((const __m256i *)at));
				pb = _mm256_xor_si256(pb, _mm256_loadu_si256((const __m256i *)(at + 16)));
			}
			pa = _mm256_and_si256(pa, mask16(mask & 0xffff));
			pb = _mm256_and_si256(pb, mask16(mask >> 16));
			if (_mm256_movemask_epi8(_mm256_packs_epi16(pa, pb)))
				return false;
		}
	}
	return true;
}
