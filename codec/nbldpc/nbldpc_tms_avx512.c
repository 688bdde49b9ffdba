/*
 * The nbldpc family's trellis min-sum (algo=tms) for GF(64) with AVX-512 VBMI: one frame, each
 * message one 64-byte vector (a-posteriori costs two vectors of 32 int16), so that the GF
 * products and the XOR shifts of nbldpc_tms.c's steps 3 and 8 are single lane permutations
 * (vpermb) and every other step is a few vector operations. It computes the reference's steps
 * bit for bit (test_nbldpc_tms compares them); built with -mavx512f -mavx512bw -mavx512vbmi
 * -mbmi2 -mpopcnt and used only where the CPU has them (nbldpc_tms.c).
 *
 * Where the time goes, and why it is arranged so (codec/nbldpc/NOTES.md has the counts): the
 * 512-bit permutations, compares into masks, widening and narrowing all issue on one port of
 * current x86 cores, so the code is written to need few of them:
 *  - a-posteriori costs live in "unpack order" while decoding (below), so that widening a
 *    message is vpunpck{l,h}bw and narrowing two vectors of costs vpackuswb: 3 such operations
 *    a message instead of 8;
 *  - byte broadcasts are loads of a replicated 32-bit word (rep4), not shuffles;
 *  - step 3's divide and XOR shift are one permutation: (eta ^ z) / h = eta / h ^ a;
 *  - step 5 needs the set of the dev2 best candidates, not their order (step 6 is a minimum
 *    over them): a radix search for the dev2-th smallest m1, one bit a round on the m1 bit
 *    planes (scalar masks, no branch), and a pdep for the ties replace dev2 dependent minimum
 *    searches;
 *  - step 6's test d(eta1) != d(eta2) is folded into tables: V[e][j] is edge e's v with 255
 *    wherever its d is j, so that a pass of step 6 is one vpermb of V[e][d(eta1)], a
 *    saturating add and a minimum (a sum with 255 saturates and lowers no T);
 *  - step 9's normalisation of P waits for the hard decision (normalise): a constant per
 *    symbol changes nothing before it;
 *  - checks go two at a time where they share no variable (a schedule built once per decoder,
 *    not a scan of each pair every iteration), each group in two phases (phase_a, phase_b)
 *    with step 5's selection issued right after step 4, before the tables.
 * Beyond the operation counts, what the compiler keeps in registers decided as much (NOTES.md,
 * round 4): the decoder's pointers are held in locals (every vector store may alias them), no
 * byte stores in the phases, and each check's step 1 comes before the scan, so that fewer
 * vectors are live at once.
 */
#include <immintrin.h>
#include <string.h>

#include "nbldpc_decoder.h"

#define Q 64
/* rows of up to this many edges keep step 6's table numbers j as 8 j in a byte (at most 248) */
#define J8_DEG_MAX 32

/* rep4[x]: byte x in all four bytes, for broadcasting a byte with a plain 32-bit load */
#define R1(x)  ((x)*0x01010101u)
#define R4(x)  R1(x), R1((x) + 1), R1((x) + 2), R1((x) + 3)
#define R16(x) R4(x), R4((x) + 4), R4((x) + 8), R4((x) + 12)
#define R64(x) R16(x), R16((x) + 16), R16((x) + 32), R16((x) + 48)
static const uint32_t rep4[256] = {R64(0), R64(64), R64(128), R64(192)};

static inline __m512i bcast8(unsigned x)
{
	return _mm512_set1_epi32((int)rep4[x & 255]);
}

/* Lane k holds k: XORed with a broadcast value, the index of an XOR shift. */
static inline __m512i iota8(void)
{
	return _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47,
	                       46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30,
	                       29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13,
	                       12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}

/*
 * Unpack order: lane k of the low vector of a symbol's costs holds value 16 (k / 8) + k % 8,
 * lane k of the high vector value 16 (k / 8) + 8 + k % 8. vpunpcklbw / vpunpckhbw of a message
 * (64 bytes in natural order) against zero give its values in this order, and vpackuswb of the
 * two vectors gives natural byte order back. The frame's costs are turned into this order on
 * entry and back on return.
 */
static inline __m512i to_unpack(__m512i lo, __m512i hi, int high)
{
	__m512i idx;

	if (!high)
		idx = _mm512_set_epi16(55, 54, 53, 52, 51, 50, 49, 48, 39, 38, 37, 36, 35, 34, 33,
		                       32, 23, 22, 21, 20, 19, 18, 17, 16, 7, 6, 5, 4, 3, 2, 1, 0);
	else
		idx =
		    _mm512_set_epi16(63, 62, 61, 60, 59, 58, 57, 56, 47, 46, 45, 44, 43, 42, 41, 40,
		                     31, 30, 29, 28, 27, 26, 25, 24, 15, 14, 13, 12, 11, 10, 9, 8);
	return _mm512_permutex2var_epi16(lo, idx, hi);
}

static inline __m512i from_unpack(__m512i ulo, __m512i uhi, int high)
{
	__m512i idx;

	/* natural value a sits in the low vector at 8 (a / 16) + a % 8 where a % 16 < 8, else
	 * in the high one (32 + the same) */
	if (!high)
		idx = _mm512_set_epi16(47, 46, 45, 44, 43, 42, 41, 40, 15, 14, 13, 12, 11, 10, 9, 8,
		                       39, 38, 37, 36, 35, 34, 33, 32, 7, 6, 5, 4, 3, 2, 1, 0);
	else
		idx = _mm512_set_epi16(63, 62, 61, 60, 59, 58, 57, 56, 31, 30, 29, 28, 27, 26, 25,
		                       24, 55, 54, 53, 52, 51, 50, 49, 48, 23, 22, 21, 20, 19, 18,
		                       17, 16);
	return _mm512_permutex2var_epi16(ulo, idx, uhi);
}

/* The smallest of 64 int16 lanes (two vectors), in every lane. */
static inline __m512i min_i16(__m512i a, __m512i b)
{
	const __m512i m = _mm512_min_epi16(a, b);
	const __m128i bias = _mm_set1_epi16((short)0x8000);
	__m256i y = _mm256_min_epi16(_mm512_castsi512_si256(m), _mm512_extracti64x4_epi64(m, 1));
	__m128i x = _mm_min_epi16(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));

	/* minpos is unsigned: flipping the sign bit maps signed order onto unsigned order */
	x = _mm_xor_si128(_mm_minpos_epu16(_mm_xor_si128(x, bias)), bias);
	return _mm512_broadcastw_epi16(x);
}

/* The same for lanes known to be >= 0. */
static inline __m512i min_u16(__m512i a, __m512i b)
{
	const __m512i m = _mm512_min_epu16(a, b);
	__m256i y = _mm256_min_epu16(_mm512_castsi512_si256(m), _mm512_extracti64x4_epi64(m, 1));
	__m128i x = _mm_min_epu16(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));

	return _mm512_broadcastw_epi16(_mm_minpos_epu16(x));
}

/* Step 5 as a set: lanes 1..63 holding the nsel smallest keys (m1, eta) among those with
 * m1 < 255 (one with m1 = 255 lowers no T). A radix selection of the nsel-th smallest m1, one
 * bit a round from the top: the eight bit tests are vector work independent of each other, so
 * the rounds' chain is scalar (an AND, a popcount, a compare and masks). */
static inline uint64_t candidates(__m512i m1, unsigned nsel)
{
	uint64_t c = _mm512_cmpneq_epu8_mask(m1, _mm512_set1_epi8((char)0xff)) & ~1ull;
	uint64_t zb[8], sel = 0;
	unsigned need = nsel;

	if (!nsel) /* the spec's setting (dev2), not the data: always predicted */
		return 0;
	for (int b = 0; b < 8; b++)
		zb[b] = _mm512_testn_epi8_mask(m1, _mm512_set1_epi8((char)(1 << b)));
	/* c: the lanes whose m1 has the bits above b of the nsel-th smallest, need of them
	 * still to take; sel: those taken, all smaller. No branch: with nsel = 0 every round
	 * keeps c's lower half and nothing is taken; with at most nsel candidates every round
	 * takes its lower half and c ends empty (no m1 of 255 in it), so sel = c */
	for (int b = 7; b >= 0; b--) {
		const uint64_t lo = c & zb[b];
		const unsigned cnt = (unsigned)__builtin_popcountll(lo);

		/* all ones where the lanes of bit b 0 are too few: take them, go on in the
		 * others */
		const uint64_t few = (uint64_t)0 - (cnt < need);

		sel |= lo & few;
		need -= cnt & (unsigned)few;
		c = (lo & ~few) | (c & ~zb[b] & few);
	}
	/* ties at the nsel-th smallest in increasing eta: the lowest need lanes of c */
	return sel | _pdep_u64((1ull << need) - 1, c);
}

/*
 * A group of one or two checks (nc; two share no variable, so that doing them together is doing
 * them in turn) is updated in two phases: A (steps 1-5, and step 6's tables) and B (step 6's
 * passes and steps 7-9); A reads P and R and writes only the stage (below), B reads the stage
 * and writes P and R. Running a group's A ahead of the previous group's B (where they share no
 * variable) was measured no faster, on this branch's VM and on the lent host (NOTES.md).
 */
struct stage {
	uint32_t e0[2];   /* the checks' first edges */
	unsigned nc, deg; /* how many checks, of how many edges */
	uint64_t sel[2];  /* step 5's set */
	unsigned beta[2]; /* XOR of the z_e */
	uint8_t *buf;     /* W (nc deg 2 vectors), vd (nc 2 deg), the tables (nc deg^2) */
	/* the z_e, not in bytes: a byte store may alias any pointer the phases read, so the
	 * compiler would load those again after each */
	uint32_t z[2][NBLDPC_DEG_MAX];
};

/* Phase A of checks e0[0..nc-1]: steps 1-5 of nbldpc_tms.c and step 6's per-edge v, d and
 * tables into st. Always inlined with nc and, for deg = 4, deg constant: the loops unroll and
 * the state stays in registers until it is stored. */
static inline __attribute__((always_inline)) void
phase_a(const struct nbldpc_decoder *d, const unsigned nc, const uint32_t *e0, const unsigned deg,
        const int16_t *app, const uint8_t *rm, unsigned nsel, struct stage *st)
{
	const struct nbldpc_code *c = d->code;
	/* the decoder's arrays in locals: the vector stores below may alias their pointers */
	const uint8_t *const row_val = c->row_val, *const mul = d->tms_mul, *const div = d->tms_div;
	const uint32_t *const row_col = c->row_col;
	const __m512i all = _mm512_set1_epi8((char)0xff), zero = _mm512_setzero_si512();
	uint8_t *wb = st->buf, *vd = wb + (size_t)2 * deg * 2 * Q,
	        *vt = vd + (size_t)2 * 2 * deg * Q;
	__m512i m1[2], m2[2], e1[2], e2[2];
	unsigned beta[2] = {0, 0};

	/* steps 1-4 */
	for (unsigned k = 0; k < nc; k++) {
		m1[k] = m2[k] = e2[k] = all;
		e1[k] = zero;
		st->e0[k] = e0[k];
	}
	/* edges four at a time: first each check's steps 1 and W's stores, then steps 2-4 edge by
	 * edge (measured 3-5 % faster than each edge's steps 1-4 in turn; reducing the four minima
	 * together, with fewer shuffles, was slower still) */
	for (unsigned i0 = 0; i0 < deg; i0 += 4) {
		const unsigned nb = deg - i0 < 4 ? deg - i0 : 4;
		__m512i lo[4], hi[4], mn[4], q8s[2][4];

		for (unsigned k = 0; k < nc; k++) {
			for (unsigned t = 0; t < nb; t++) {
				const uint32_t e = e0[k] + i0 + t;
				const int16_t *p = app + (size_t)row_col[e] * Q;
				const __m512i r = _mm512_loadu_si512(rm + (size_t)e * Q);

				lo[t] = _mm512_sub_epi16(_mm512_loadu_si512(p),
				                         _mm512_unpacklo_epi8(r, zero));
				hi[t] = _mm512_sub_epi16(_mm512_loadu_si512(p + 32),
				                         _mm512_unpackhi_epi8(r, zero));
			}
			for (unsigned t = 0; t < nb; t++)
				mn[t] = min_i16(lo[t], hi[t]);
			for (unsigned t = 0; t < nb; t++) {
				uint8_t *w = wb + ((size_t)k * deg + i0 + t) * 2 * Q;

				lo[t] = _mm512_subs_epi16(lo[t], mn[t]);
				hi[t] = _mm512_subs_epi16(hi[t], mn[t]);
				_mm512_store_si512(w, lo[t]);
				_mm512_store_si512(w + Q, hi[t]);
				/* Q_e in natural order (W >= 0: the signed-to-unsigned
				 * saturation is min(W, 255)) */
				q8s[k][t] = _mm512_packus_epi16(lo[t], hi[t]);
			}
		}
		for (unsigned t = 0; t < nb; t++)
			for (unsigned k = 0; k < nc; k++) {
				const unsigned i = i0 + t;
				const uint32_t e = e0[k] + i;
				const unsigned h = row_val[e];
				const __m512i q8 = q8s[k][t];
				__m512i dv;
				__mmask64 lt, lt2;
				unsigned a;

				a = (unsigned)__builtin_ctzll(_mm512_cmpeq_epi8_mask(q8, zero));
				const unsigned z = mul[h * Q + a];

				st->z[k][i] = z;
				beta[k] ^= z;
				/* D_e(eta) = Q_e((eta ^ z) / h) = Q_e(eta / h ^ a): division by h
				 * is linear over XOR and z / h = a, so one permutation does */
				dv = _mm512_permutexvar_epi8(
				    _mm512_xor_si512(_mm512_loadu_si512(div + h * Q), bcast8(a)),
				    q8);
				/* step 4's scan: m2 = min(m2, max(m1, D)), m1 = min(m1, D); e2
				 * takes e1 where D < m1 (strictly: the earlier edge wins ties),
				 * else i where D < m2. e1 where m1 = 255 and e2 where m2 = 255 are
				 * never read (v is 255 there, whatever its d: every sum with it
				 * saturates), so the first two edges take shortcuts */
				if (i == 0) {
					m1[k] = dv;
					continue;
				}
				if (i == 1) {
					lt = _mm512_cmplt_epu8_mask(dv, m1[k]);
					m2[k] = _mm512_max_epu8(m1[k], dv);
					m1[k] = _mm512_min_epu8(m1[k], dv);
					e1[k] = _mm512_maskz_mov_epi8(lt, bcast8(1));
					e2[k] = _mm512_xor_si512(e1[k], bcast8(1));
					continue;
				}
				lt = _mm512_cmplt_epu8_mask(dv, m1[k]);
				lt2 = _mm512_cmplt_epu8_mask(dv, m2[k]);
				m2[k] = _mm512_min_epu8(m2[k], _mm512_max_epu8(m1[k], dv));
				m1[k] = _mm512_min_epu8(m1[k], dv);
				e2[k] = _mm512_mask_blend_epi8(
				    lt, _mm512_mask_blend_epi8(lt2, e2[k], bcast8(i)), e1[k]);
				e1[k] = _mm512_mask_blend_epi8(lt, e1[k], bcast8(i));
			}
	}
	for (unsigned k = 0; k < nc; k++)
		st->beta[k] = beta[k];
	/* step 5 */
	for (unsigned k = 0; k < nc; k++)
		st->sel[k] = candidates(m1[k], nsel);
	/* step 6's per-edge v and d (kept in vd for scalar reads), and the tables V[i][j]: v with
	 * 255 where d is j and in lane 0 (eta = eta1 pairs with eta2 = 0, which step 6 leaves
	 * out). d is kept as 8 j where rows have up to 32 edges (below 256: scaled by 8 in the
	 * address, a table's offset needs no scalar shift), and where d = 255 as deg - 1: v is
	 * 255 there, so any table does (the sums saturate). Lane 0 of v is 255 too: step 7 sets
	 * o(0) itself, and no pass reads v(0). */
	for (unsigned k = 0; k < nc; k++) {
		const unsigned sc = deg <= J8_DEG_MAX ? 3 : 0;
		const __m512i m1z = _mm512_mask_mov_epi8(m1[k], 1, all);
		const __m512i m2z = _mm512_mask_mov_epi8(m2[k], 1, all);
		__m512i e1s = e1[k], e2s = _mm512_min_epu8(e2[k], bcast8(deg - 1));

		if (sc) {
			e1s = _mm512_slli_epi16(e1s, 3);
			e2s = _mm512_slli_epi16(e2s, 3);
		}
		for (unsigned i = 0; i < deg; i++) {
			const __mmask64 own = _mm512_cmpeq_epi8_mask(e1s, bcast8(i << sc));
			const __m512i dd = _mm512_mask_blend_epi8(own, e1s, e2s);
			const __m512i v = _mm512_mask_blend_epi8(own, m1z, m2z);
			uint8_t *tab = vt + ((size_t)k * deg + i) * deg * Q;

			_mm512_store_si512(vd + ((size_t)k * 2 * deg + i) * Q, v);
			_mm512_store_si512(vd + ((size_t)k * 2 * deg + deg + i) * Q, dd);
			/* V[i][i] is read only where d = 255 taken as deg - 1 */
			for (unsigned j = 0; j < deg; j++)
				if (j != i)
					_mm512_store_si512(
					    tab + (size_t)j * Q,
					    _mm512_mask_mov_epi8(
					        v, _mm512_cmpeq_epi8_mask(dd, bcast8(j << sc)),
					        all));
				else if (i == deg - 1)
					_mm512_store_si512(tab + (size_t)j * Q, v);
		}
	}
}

/* Step 6's passes of check k of st into tt (deg vectors): T_i(eta) = min over eta1 of
 * v_i(eta1) + V[i][d_i(eta1)](eta ^ eta1). */
static inline __attribute__((always_inline)) void passes(const unsigned k, const unsigned deg,
                                                         const struct stage *st, __m512i *tt)
{
	const __m512i iota = iota8();
	const uint8_t *vd = st->buf + (size_t)2 * deg * 2 * Q;
	const uint8_t *vt = vd + (size_t)2 * 2 * deg * Q + (size_t)k * deg * deg * Q;
	const uint8_t *vb = vd + (size_t)k * 2 * deg * Q, *db = vb + (size_t)deg * Q;
	uint64_t sel = st->sel[k];

	for (unsigned i = 0; i < deg; i++)
		tt[i] = _mm512_set1_epi8((char)0xff);
	while (sel) {
		const unsigned eta1 = (unsigned)__builtin_ctzll(sel);
		const __m512i px = _mm512_xor_si512(iota, bcast8(eta1));

		sel &= sel - 1;
		for (unsigned i = 0; i < deg; i++) {
			const size_t j = db[(size_t)i * Q + eta1];
			const uint8_t *tab =
			    vt + (size_t)i * deg * Q + (deg <= J8_DEG_MAX ? j * 8 : j * Q);
			const __m512i v2 = _mm512_permutexvar_epi8(px, _mm512_load_si512(tab));

			tt[i] = _mm512_min_epu8(
			    tt[i], _mm512_adds_epu8(v2, bcast8(vb[(size_t)i * Q + eta1])));
		}
	}
}

/* Phase B of the checks of st: step 6's passes and steps 7-9. */
static inline __attribute__((always_inline)) void
phase_b(const struct nbldpc_decoder *d, const unsigned nc, const unsigned deg, int16_t *app,
        uint8_t *rm, __m512i offset, const struct stage *st, __m512i *tt0, __m512i *tt1)
{
	const struct nbldpc_code *c = d->code;
	const __m512i zero = _mm512_setzero_si512();
	const uint8_t *wb = st->buf, *vd = wb + (size_t)2 * deg * 2 * Q;
	__m512i *tt[2] = {tt0, tt1};

	passes(0, deg, st, tt[0]);
	if (nc == 2)
		passes(1, deg, st, tt[1]);
	/* steps 7-9 per edge (the decoder's arrays and the stage's words in locals: the vector
	 * stores may alias them, and the compiler would load them again after each) */
	const uint8_t *const row_val = c->row_val, *const mul = d->tms_mul;
	const uint32_t *const row_col = c->row_col;
	const uint32_t e0[2] = {st->e0[0], st->e0[1]};
	const unsigned beta[2] = {st->beta[0], st->beta[1]};
	for (unsigned i = 0; i < deg; i++)
		for (unsigned k = 0; k < nc; k++) {
			const uint32_t e = e0[k] + i;
			const unsigned h = row_val[e];
			const __m512i v = _mm512_load_si512(vd + ((size_t)k * 2 * deg + i) * Q);
			const uint8_t *w = wb + ((size_t)k * deg + i) * 2 * Q;
			__m512i o, r, lo, hi;
			int16_t *p = app + (size_t)row_col[e] * Q;

			/* offset is 255 in lane 0: o(0) = 0 */
			o = _mm512_subs_epu8(_mm512_min_epu8(v, tt[k][i]), offset);
			r = _mm512_permutexvar_epi8(
			    _mm512_xor_si512(_mm512_loadu_si512(mul + h * Q),
			                     bcast8(beta[k] ^ st->z[k][i])),
			    o);
			_mm512_storeu_si512(rm + (size_t)e * Q, r);
			/* P = min(W + R, 32767), not less its minimum (see normalise) */
			lo = _mm512_adds_epi16(_mm512_load_si512(w), _mm512_unpacklo_epi8(r, zero));
			hi = _mm512_adds_epi16(_mm512_load_si512(w + Q),
			                       _mm512_unpackhi_epi8(r, zero));
			_mm512_storeu_si512(p, lo);
			_mm512_storeu_si512(p + 32, hi);
		}
}

/* Phase A or B of a group of nc checks of deg edges, with deg = 4 (B1C's, and the other
 * BeiDou codes') and 5 (with 4, the generated irregular GF(64) codes': GF64_5040 1.17x faster
 * so) as constants. */
static void group_a(const struct nbldpc_decoder *d, unsigned nc, const uint32_t *e0, unsigned deg,
                    const int16_t *app, const uint8_t *rm, unsigned nsel, struct stage *st)
{
	if (nc == 2 && deg == 4)
		phase_a(d, 2, e0, 4, app, rm, nsel, st);
	else if (deg == 4)
		phase_a(d, 1, e0, 4, app, rm, nsel, st);
	else if (nc == 2 && deg == 5)
		phase_a(d, 2, e0, 5, app, rm, nsel, st);
	else if (deg == 5)
		phase_a(d, 1, e0, 5, app, rm, nsel, st);
	else if (nc == 2)
		phase_a(d, 2, e0, deg, app, rm, nsel, st);
	else
		phase_a(d, 1, e0, deg, app, rm, nsel, st);
}

static void group_b(const struct nbldpc_decoder *d, int16_t *app, uint8_t *rm, __m512i offset,
                    const struct stage *st)
{
	const unsigned nc = st->nc, deg = st->deg;

	if (deg == 4) {
		__m512i t0[4], t1[4];

		if (nc == 2)
			phase_b(d, 2, 4, app, rm, offset, st, t0, t1);
		else
			phase_b(d, 1, 4, app, rm, offset, st, t0, t1);
	} else if (deg == 5) {
		__m512i t0[5], t1[5];

		if (nc == 2)
			phase_b(d, 2, 5, app, rm, offset, st, t0, t1);
		else
			phase_b(d, 1, 5, app, rm, offset, st, t0, t1);
	} else {
		__m512i t0[NBLDPC_DEG_MAX], t1[NBLDPC_DEG_MAX];

		if (nc == 2)
			phase_b(d, 2, deg, app, rm, offset, st, t0, t1);
		else
			phase_b(d, 1, deg, app, rm, offset, st, t0, t1);
	}
}

/* One iteration: the groups of nbldpc__tms_prepare's schedule in order. */
static void iteration(const struct nbldpc_decoder *d, int16_t *app, uint8_t *rm, unsigned nsel,
                      __m512i offset, struct stage *st)
{
	const struct nbldpc_code *c = d->code;

	for (uint32_t g = 0; g < d->tms_groups; g++) {
		const uint32_t r = d->tms_sched[g] >> 1, nc = 1 + (d->tms_sched[g] & 1);
		const uint32_t e0[2] = {c->row_start[r], nc == 2 ? c->row_start[r + 1] : 0};

		st->nc = nc;
		st->deg = c->row_start[r + 1] - c->row_start[r];
		group_a(d, nc, e0, st->deg, app, rm, nsel, st);
		group_b(d, app, rm, offset, st);
	}
}

/* Each symbol's costs less their minimum: step 9 of nbldpc_tms.c, which check_update leaves
 * out. Nothing before a decision needs it: step 1 reads P - R less its own minimum (a constant
 * per symbol cancels, and the saturation comes after it), and step 9's saturation is of W + R,
 * where P does not enter. So P is normalised here, before each decision (which reads cost 0),
 * and so for the caller too: n minimum searches a decision instead of nnz an iteration. */
static void normalise(const struct nbldpc_code *c, int16_t *app)
{
	for (uint32_t x = 0; x < c->n; x++) {
		int16_t *p = app + (size_t)x * Q;
		const __m512i lo = _mm512_loadu_si512(p), hi = _mm512_loadu_si512(p + 32);
		const __m512i mn = min_u16(lo, hi);

		_mm512_storeu_si512(p, _mm512_sub_epi16(lo, mn));
		_mm512_storeu_si512(p + 32, _mm512_sub_epi16(hi, mn));
	}
}

/* The hard decision: the smallest a with cost 0 (costs in unpack order, all >= 0). */
static bool decide(const struct nbldpc_code *c, const int16_t *app, uint8_t *hard)
{
	for (uint32_t x = 0; x < c->n; x++) {
		const __m512i q8 =
		    _mm512_packus_epi16(_mm512_loadu_si512(app + (size_t)x * Q),
		                        _mm512_loadu_si512(app + (size_t)x * Q + 32));

		hard[x] =
		    (uint8_t)__builtin_ctzll(_mm512_cmpeq_epi8_mask(q8, _mm512_setzero_si512()));
	}
	return nbldpc_codeword_valid(c, hard);
}

/* The channel costs of a frame of int8 bit LLRs (n symbols of 6 values in the order sent):
 * value a of a symbol costs the sum of the LLRs of its 1 bits, less the smallest over a, which
 * is the sum of the negative LLRs' magnitudes: C + the sum of v_t over the bits t set in a, as
 * masked additions of 32 int16 lanes (nbldpc_coder.c's map_in_s8_i16 computes the same in
 * plain C; test_nbldpc_tms compares both with the float32 input's costs). */
void nbldpc__tms_avx512_costs(const struct nbldpc_decoder *d, const int8_t *in, int16_t *app)
{
	/* lanes a = 0..31 with bit s of a set; the second vector's a = 32..63 add bit 5 */
	static const uint32_t bit_lanes[6] = {0xaaaaaaaa, 0xcccccccc, 0xf0f0f0f0,
	                                      0xff00ff00, 0xffff0000, 0};
	__mmask32 mlo[6], mhi[6];

	for (unsigned t = 0; t < 6; t++) {
		mlo[t] = bit_lanes[d->bit_shift[t]];
		mhi[t] = d->bit_shift[t] == 5 ? 0xffffffffu : bit_lanes[d->bit_shift[t]];
	}
	for (uint32_t x = 0; x < d->code->n; x++) {
		const int8_t *v = in + (size_t)x * 6;
		int c = 0;
		__m512i lo, hi;

		for (unsigned t = 0; t < 6; t++)
			c += v[t] < 0 ? -v[t] : 0;
		lo = hi = _mm512_set1_epi16((short)c);
		for (unsigned t = 0; t < 6; t++) {
			const __m512i w = _mm512_set1_epi16(v[t]);

			lo = _mm512_mask_add_epi16(lo, mlo[t], lo, w);
			hi = _mm512_mask_add_epi16(hi, mhi[t], hi, w);
		}
		_mm512_storeu_si512(app + (size_t)x * Q, lo);
		_mm512_storeu_si512(app + (size_t)x * Q + 32, hi);
	}
}

unsigned nbldpc__tms_avx512(const struct nbldpc_decoder *d, void *scratch, int16_t *app,
                            uint8_t *hard, bool *ok)
{
	const struct nbldpc_code *c = d->code;
	const struct nbldpc_spec *s = &d->base.spec.u.nbldpc;
	/* step 7's offset, 255 in lane 0 (o(0) = 0) */
	const __m512i offset =
	    _mm512_mask_mov_epi8(_mm512_set1_epi8((char)s->offset), 1, _mm512_set1_epi8(-1));
	const unsigned nsel = s->dev2 < Q - 1 ? s->dev2 : Q - 1;
	uint8_t *rm = scratch;
	struct stage st;
	unsigned it = 0;

	/* the stage's buffers after R, 64-byte aligned (nbldpc__scratch_bytes has room) */
	st.buf = (uint8_t *)(((uintptr_t)(rm + (size_t)c->nnz * Q) + 63) & ~(uintptr_t)63);

	memset(rm, 0, (size_t)c->nnz * Q);
	/* normalise (saturating at 32767, as the reference) and turn into unpack order */
	for (uint32_t x = 0; x < c->n; x++) {
		int16_t *p = app + (size_t)x * Q;
		__m512i lo = _mm512_loadu_si512(p), hi = _mm512_loadu_si512(p + 32);
		const __m512i mn = min_i16(lo, hi);

		lo = _mm512_subs_epi16(lo, mn);
		hi = _mm512_subs_epi16(hi, mn);
		_mm512_storeu_si512(p, to_unpack(lo, hi, 0));
		_mm512_storeu_si512(p + 32, to_unpack(lo, hi, 1));
	}
	*ok = false;
	while (it < s->max_iters) {
		it++;
		iteration(d, app, rm, nsel, offset, &st);
		/* without early stop only the last iteration's decision counts */
		if (!s->early_stop && it < s->max_iters)
			continue;
		normalise(c, app);
		*ok = decide(c, app, hard);
		if (*ok && s->early_stop)
			break;
	}
	if (it == 0)
		*ok = decide(c, app, hard);
	for (uint32_t x = 0; x < c->n; x++) {
		int16_t *p = app + (size_t)x * Q;
		const __m512i lo = _mm512_loadu_si512(p), hi = _mm512_loadu_si512(p + 32);

		_mm512_storeu_si512(p, from_unpack(lo, hi, 0));
		_mm512_storeu_si512(p + 32, from_unpack(lo, hi, 1));
	}
	return it;
}
