/*
 * Min-sum on int8 with AVX2 (layered, and flooding), LDPC_GROUP (32) frames at once: one frame per
 * lane, so every instruction of ldpc.h's rules serves 32 frames and the code's irregular structure
 * costs no shuffles. Frames are interleaved in scratch: the check messages of an edge in one
 * 32-byte vector (int8, frame f in byte f), the a-posteriori values of a column in two (int16,
 * exact), a = frames 0-7 and 16-23, b = frames 8-15 and 24-31, the order in which packs_epi16(a, b)
 * gives frames 0..31 and unpacklo/hi_epi8 of a message vector gives a's and b's frames.
 * Saturating packs plus a clamp at -127 is exactly sat8, so the results are the portable
 * decoder's, bit for bit: hard decisions, soft values, status and iterations (a frame that
 * converges has its output taken at that iteration, while its lane goes on for the others).
 */
#include <string.h>

#include "ldpc_avx2.h"
#include "ldpc_decoder.h"

#define ALIGN     64
#define V         LDPC_GROUP /* frames per group = int8 lanes of a vector */
#define APP_BYTES (2 * V)    /* one column's a-posteriori values: two int16 vectors */
/* Row degrees up to this keep a row's incoming values in registers (unrolled). */
#define UNROLL_MAX 12
/* How far ahead a row's columns are prefetched (tried 2..32 rows on DVB-S2: 8..12 best). */
#define PREFETCH_ROWS 12

static size_t align_up(size_t v)
{
	return (v + ALIGN - 1) / ALIGN * ALIGN;
}

/* a-posteriori values, messages, and a row's exact incoming values (two vectors an edge) */
size_t ldpc__avx2_scratch(const struct ldpc_decoder *d)
{
	return ALIGN + align_up((size_t)d->code->h.n * APP_BYTES) +
	       align_up((size_t)d->code->h.nnz * V) + align_up(((size_t)d->max_deg + 1) * 3 * V) +
	       align_up((size_t)d->code->h.n * V);
}

/* Where frame f's int16 value sits among a column's 32 (see the top of the file). */
static inline unsigned app_pos(unsigned f)
{
	return (f & ~0x18u) | (f & 8u) << 1 | (f & 16u) >> 1;
}

/* One row of degree deg whose edges' column byte offsets (into the a-posteriori array) are off[]
 * and messages c[]. With a constant deg (the switch in iterate) the loops unroll and the incoming
 * values stay in registers as far as they go; else they go through x. first: the messages are all
 * 0 still (not read). */
static inline __attribute__((always_inline)) void row(uint8_t *app, const uint32_t *off, __m256i *c,
                                                      uint32_t deg, __m256i *x, int algo,
                                                      __m256i alpha16, __m256i offset8, bool first)
{
	__m256i m1 = _mm256_set1_epi8(127), m2 = m1, s = _mm256_setzero_si256(), n1, n2;
	__m256i local[3 * UNROLL_MAX];
	__m256i *xv = deg <= UNROLL_MAX ? local : x;

	for (uint32_t i = 0; i < deg; i++) {
		__m256i *col = (__m256i *)(app + off[i]);
		__m256i ea = _mm256_load_si256(col), eb = _mm256_load_si256(col + 1);

		if (!first) {
			const __m256i old = _mm256_load_si256(c + i);

			ea = _mm256_sub_epi16(ea, ldpc_avx2_widen_lo(old));
			eb = _mm256_sub_epi16(eb, ldpc_avx2_widen_hi(old));
		}
		xv[3 * i] = ldpc_avx2_edge_in(ea, eb, &m1, &m2, &s);
		xv[3 * i + 1] = ea;
		xv[3 * i + 2] = eb;
	}
	n1 = ldpc_avx2_row_out(m1, s, algo, alpha16, offset8);
	n2 = ldpc_avx2_row_out(m2, s, algo, alpha16, offset8);
	for (uint32_t i = 0; i < deg; i++) {
		__m256i *col = (__m256i *)(app + off[i]);
		const __m256i msg = ldpc_avx2_edge_out(xv[3 * i], m1, n1, n2);

		_mm256_store_si256(c + i, msg);
		_mm256_store_si256(col, _mm256_add_epi16(xv[3 * i + 1], ldpc_avx2_widen_lo(msg)));
		_mm256_store_si256(col + 1, _mm256_add_epi16(xv[3 * i + 2], ldpc_avx2_widen_hi(msg)));
	}
}

/* One iteration over the schedule, with the row kernel unrolled for the common degrees. */
static inline __attribute__((always_inline)) void
iterate(const struct ldpc_decoder *d, uint8_t *app, __m256i *c2v, __m256i *x, int algo, bool first)
{
	const __m256i alpha16 = _mm256_set1_epi16((short)d->alpha16);
	const __m256i offset8 = _mm256_set1_epi8((char)d->offset8);
	const uint32_t *start = d->sched_start, *off = d->sched_off;

	for (uint32_t p = 0; p < d->m; p++) {
		const uint32_t e = start[p], deg = start[p + 1] - e;

		/* the columns of a row a few ahead: large codes live in L3 and beyond, and a
		 * row's loads alone do not keep enough of them in flight */
		if (p + PREFETCH_ROWS < d->m)
			for (uint32_t f = start[p + PREFETCH_ROWS];
			     f < start[p + PREFETCH_ROWS + 1]; f++)
				_mm_prefetch((const char *)(app + off[f]), _MM_HINT_T0);
#define ROW(n) row(app, off + e, c2v + e, n, x, algo, alpha16, offset8, first)
		switch (deg) {
		case 3:
			ROW(3);
			break;
		case 4:
			ROW(4);
			break;
		case 5:
			ROW(5);
			break;
		case 6:
			ROW(6);
			break;
		case 7:
			ROW(7);
			break;
		case 8:
			ROW(8);
			break;
		case 9:
			ROW(9);
			break;
		case 10:
			ROW(10);
			break;
		case 11:
			ROW(11);
			break;
		case 12:
			ROW(12);
			break;
		default:
			ROW(deg);
			break;
		}
#undef ROW
	}
}

/* The algorithm as a constant in each copy of iterate, so norm_ms folds. */
static void iterate_any(const struct ldpc_decoder *d, uint8_t *app, __m256i *c2v, __m256i *x,
                        bool first)
{
	switch (d->base.spec.u.ldpc.algo) {
	case LDPC_ALGO_NMS:
		if (first)
			iterate(d, app, c2v, x, LDPC_ALGO_NMS, true);
		else
			iterate(d, app, c2v, x, LDPC_ALGO_NMS, false);
		break;
	case LDPC_ALGO_OMS:
		if (first)
			iterate(d, app, c2v, x, LDPC_ALGO_OMS, true);
		else
			iterate(d, app, c2v, x, LDPC_ALGO_OMS, false);
		break;
	default:
		if (first)
			iterate(d, app, c2v, x, LDPC_ALGO_MS, true);
		else
			iterate(d, app, c2v, x, LDPC_ALGO_MS, false);
		break;
	}
}

/* Flooding, rows: every row from the totals of the previous iteration (tot = L + the column's
 * messages, int16 and exact like the portable decoder's int32), messages in edge order. Not
 * unrolled: flooding is the reference schedule, layered the fast one. */
static void flood_rows(const struct ldpc_decoder *d, const uint8_t *tot, __m256i *c2v, __m256i *x,
                       bool first)
{
	const struct ldpc_matrix *h = &d->code->h;
	const int algo = d->base.spec.u.ldpc.algo;
	const __m256i alpha16 = _mm256_set1_epi16((short)d->alpha16);
	const __m256i offset8 = _mm256_set1_epi8((char)d->offset8);

	for (uint32_t r = 0; r < h->m; r++) {
		const uint32_t e0 = h->row_start[r], deg = h->row_start[r + 1] - e0;
		__m256i m1 = _mm256_set1_epi8(127), m2 = m1, s = _mm256_setzero_si256(), n1, n2;
		__m256i *c = c2v + e0;

		for (uint32_t i = 0; i < deg; i++) {
			const __m256i *col =
			    (const __m256i *)(tot + (size_t)h->row_col[e0 + i] * APP_BYTES);
			__m256i ea = _mm256_load_si256(col), eb = _mm256_load_si256(col + 1);

			if (!first) {
				const __m256i old = _mm256_load_si256(c + i);

				ea = _mm256_sub_epi16(ea, ldpc_avx2_widen_lo(old));
				eb = _mm256_sub_epi16(eb, ldpc_avx2_widen_hi(old));
			}
			x[i] = ldpc_avx2_edge_in(ea, eb, &m1, &m2, &s);
		}
		n1 = ldpc_avx2_row_out(m1, s, algo, alpha16, offset8);
		n2 = ldpc_avx2_row_out(m2, s, algo, alpha16, offset8);
		for (uint32_t i = 0; i < deg; i++)
			_mm256_store_si256(c + i, ldpc_avx2_edge_out(x[i], m1, n1, n2));
	}
}

/* Flooding, columns: each total afresh from the channel value and the new messages. */
static void flood_columns(const struct ldpc_decoder *d, uint8_t *tot, const __m256i *chan,
                          const __m256i *c2v)
{
	const struct ldpc_matrix *h = &d->code->h;

	for (uint32_t v = 0; v < h->n; v++) {
		__m256i *col = (__m256i *)(tot + (size_t)v * APP_BYTES);
		__m256i a = ldpc_avx2_widen_lo(chan[v]), b = ldpc_avx2_widen_hi(chan[v]);

		for (uint32_t j = h->col_start[v]; j < h->col_start[v + 1]; j++) {
			const __m256i c = _mm256_load_si256(c2v + h->col_edge[j]);

			a = _mm256_add_epi16(a, ldpc_avx2_widen_lo(c));
			b = _mm256_add_epi16(b, ldpc_avx2_widen_hi(c));
		}
		_mm256_store_si256(col, a);
		_mm256_store_si256(col + 1, b);
	}
}

/* Lanes whose hard decisions miss some check, as a bit mask (bit f: frame f); stops early once
 * every lane that matters (not in skip) has failed. */
static uint32_t syndrome_fail(const struct ldpc_decoder *d, const uint8_t *app, uint32_t skip)
{
	const uint32_t *start = d->sched_start, *off = d->sched_off;
	__m256i acc_a = _mm256_setzero_si256(), acc_b = acc_a;

	for (uint32_t p = 0; p < d->m; p++) {
		__m256i pa = _mm256_setzero_si256(), pb = pa;

		for (uint32_t e = start[p]; e < start[p + 1]; e++) {
			const __m256i *col = (const __m256i *)(app + off[e]);

			pa = _mm256_xor_si256(pa, _mm256_load_si256(col));
			pb = _mm256_xor_si256(pb, _mm256_load_si256(col + 1));
		}
		acc_a = _mm256_or_si256(acc_a, pa);
		acc_b = _mm256_or_si256(acc_b, pb);
		if (p % 64 == 63 &&
		    ((uint32_t)_mm256_movemask_epi8(_mm256_packs_epi16(acc_a, acc_b)) | skip) ==
		        UINT32_MAX)
			break;
	}
	return (uint32_t)_mm256_movemask_epi8(_mm256_packs_epi16(acc_a, acc_b));
}

/* Transposes 16 x 16 bytes: byte s of x[i] goes to byte i of x[s]. */
static inline void transpose16(__m128i x[16])
{
	__m128i a[16], b[16];

	for (unsigned k = 0; k < 8; k++) {
		a[2 * k] = _mm_unpacklo_epi8(x[2 * k], x[2 * k + 1]);
		a[2 * k + 1] = _mm_unpackhi_epi8(x[2 * k], x[2 * k + 1]);
	}
	/* b[4k + eb]: rows 4k..4k+3, bytes 4eb..4eb+3 */
	for (unsigned k = 0; k < 4; k++)
		for (unsigned q = 0; q < 2; q++) {
			b[4 * k + 2 * q] = _mm_unpacklo_epi16(a[4 * k + q], a[4 * k + 2 + q]);
			b[4 * k + 2 * q + 1] = _mm_unpackhi_epi16(a[4 * k + q], a[4 * k + 2 + q]);
		}
	/* a[8k + p]: rows 8k..8k+7, bytes 2p and 2p+1 */
	for (unsigned k = 0; k < 2; k++)
		for (unsigned q = 0; q < 4; q++) {
			a[8 * k + 2 * q] = _mm_unpacklo_epi32(b[8 * k + q], b[8 * k + 4 + q]);
			a[8 * k + 2 * q + 1] = _mm_unpackhi_epi32(b[8 * k + q], b[8 * k + 4 + q]);
		}
	for (unsigned p = 0; p < 8; p++) {
		x[2 * p] = _mm_unpacklo_epi64(a[p], a[8 + p]);
		x[2 * p + 1] = _mm_unpackhi_epi64(a[p], a[8 + p]);
	}
}

/* Channel values into the interleaved a-posteriori array: 16 symbols of 32 frames at a time,
 * transposed, so that each column's line is written once; punctured columns and padding lanes
 * are 0. */
static void load_group(const struct ldpc_decoder *d, uint8_t *app, const struct fec_batch *b,
                       const uint32_t *idx, unsigned count)
{
	const uint32_t punct = d->code->punct, n_tx = d->code->n_tx;
	const __m256i lo = _mm256_set1_epi8(-127);
	const int8_t *in[V];
	uint32_t t = 0;

	memset(app, 0, (size_t)punct * APP_BYTES);
	for (unsigned j = 0; j < count; j++)
		in[j] = b->in + (size_t)idx[j] * b->in_stride;
	for (; t + 16 <= n_tx; t += 16) {
		__m128i x[2][16];

		for (unsigned j = 0; j < V; j++)
			x[j / 16][j % 16] = j < count
			                        ? _mm_loadu_si128((const __m128i *)(in[j] + t))
			                        : _mm_setzero_si128();
		transpose16(x[0]);
		transpose16(x[1]);
		for (unsigned i = 0; i < 16; i++) {
			__m256i *dst = (__m256i *)(app + (size_t)(punct + t + i) * APP_BYTES);
			const __m256i v = _mm256_max_epi8(_mm256_set_m128i(x[1][i], x[0][i]), lo);

			_mm256_store_si256(dst, ldpc_avx2_widen_lo(v));
			_mm256_store_si256(dst + 1, ldpc_avx2_widen_hi(v));
		}
	}
	for (; t < n_tx; t++) {
		_Alignas(32) int8_t col[V] = {0};
		__m256i *dst = (__m256i *)(app + (size_t)(punct + t) * APP_BYTES);
		__m256i v;

		for (unsigned j = 0; j < count; j++)
			col[j] = in[j][t];
		v = _mm256_max_epi8(_mm256_load_si256((const __m256i *)col), lo);
		_mm256_store_si256(dst, ldpc_avx2_widen_lo(v));
		_mm256_store_si256(dst + 1, ldpc_avx2_widen_hi(v));
	}
}

/* Transposes a 32 x 32 bit matrix: bit (31 - c) of a[r] is element (r, c) (Hacker's Delight,
 * transpose32: swaps ever smaller blocks). */
static void transpose32(uint32_t a[32])
{
	uint32_t m = 0x0000FFFFu;

	for (unsigned j = 16; j != 0; j >>= 1, m ^= m << j)
		for (unsigned k = 0; k < 32; k = (k + j + 1) & ~j) {
			const uint32_t t = (a[k] ^ (a[k + j] >> j)) & m;

			a[k] ^= t;
			a[k + j] ^= t << j;
		}
}

/* The output of the lanes in `lanes` (bit f: frame f, job idx[f]) after `it` iterations, ok_mask
 * holding the lanes whose syndrome is zero. Hard bits go 32 output bits at a time: one movemask
 * per column gives the 32 frames' signs, and a bit transpose turns them into 32 bits per frame. */
static void emit_lanes(const struct ldpc_decoder *d, const uint8_t *app, struct fec_batch *b,
                       const uint32_t *idx, uint32_t lanes, unsigned it, uint32_t ok_mask)
{
	for (uint32_t j0 = 0; j0 < d->out_n; j0 += 32) {
		const uint32_t cnt = d->out_n - j0 < 32 ? d->out_n - j0 : 32;
		uint32_t w[32];

		for (uint32_t j = 0; j < 32; j++) {
			const __m256i *col;
			uint32_t v;

			w[j] = 0;
			if (j >= cnt)
				continue;
			v = d->out_cols ? d->out_cols[j0 + j] : j0 + j;
			col = (const __m256i *)(app + (size_t)v * APP_BYTES);
			w[j] = (uint32_t)_mm256_movemask_epi8(
			    _mm256_packs_epi16(_mm256_load_si256(col), _mm256_load_si256(col + 1)));
		}
		transpose32(w);
		for (uint32_t left = lanes; left; left &= left - 1) {
			const unsigned lane = (unsigned)__builtin_ctz(left);
			const uint32_t word = w[31 - lane];
			uint8_t *out = b->out + (size_t)idx[lane] * b->out_stride + j0 / 8;

			for (uint32_t q = 0; q < (cnt + 7) / 8; q++)
				out[q] = (uint8_t)(word >> (24 - 8 * q));
		}
	}
	for (uint32_t left = lanes; left; left &= left - 1) {
		const unsigned lane = (unsigned)__builtin_ctz(left);
		struct fec_job *job = &b->jobs[idx[lane]];

		if (b->soft) {
			const int16_t *val = (const int16_t *)app + app_pos(lane);
			float *soft = b->soft + (size_t)idx[lane] * b->soft_stride;

			for (uint32_t j = 0; j < d->out_n; j++)
				soft[j] =
				    (float)val[(size_t)(d->out_cols ? d->out_cols[j] : j) * V] *
				    d->inv_scale;
		}
		job->out_bits = d->out_n;
		job->soft_count = b->soft ? d->out_n : 0;
		job->work = it;
		job->status =
		    ok_mask >> lane & 1u ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
	}
}

void ldpc__decode_group_avx2(const struct ldpc_decoder *d, void *scratch, struct fec_batch *b,
                             const uint32_t *idx, unsigned count)
{
	const struct ldpc_spec *ls = &d->base.spec.u.ldpc;
	uintptr_t p = ((uintptr_t)scratch + ALIGN - 1) / ALIGN * ALIGN;
	uint8_t *app = (uint8_t *)p;
	__m256i *c2v = (__m256i *)(p + align_up((size_t)d->code->h.n * APP_BYTES));
	__m256i *x = (__m256i *)((uintptr_t)c2v + align_up((size_t)d->code->h.nnz * V));
	__m256i *chan = (__m256i *)((uintptr_t)x + align_up(((size_t)d->max_deg + 1) * 3 * V));
	const bool flooding = ls->schedule == LDPC_SCHED_FLOODING;
	/* padding lanes count as done from the start */
	const uint32_t active = count >= V ? UINT32_MAX : (1u << count) - 1;
	uint32_t done = ~active, fail = 0;
	unsigned it = 0;

	load_group(d, app, b, idx, count);
	/* flooding keeps the channel values apart (exactly -127..127, so packs loses nothing) */
	for (uint32_t v = 0; flooding && v < d->code->h.n; v++) {
		const __m256i *col = (const __m256i *)(app + (size_t)v * APP_BYTES);

		chan[v] = _mm256_packs_epi16(_mm256_load_si256(col), _mm256_load_si256(col + 1));
	}
	while (it < ls->max_iters && done != UINT32_MAX) {
		if (flooding) {
			flood_rows(d, app, c2v, x, it == 0);
			flood_columns(d, app, chan, c2v);
		} else {
			iterate_any(d, app, c2v, x, it == 0);
		}
		it++;
		if (!ls->early_stop)
			continue;
		fail = syndrome_fail(d, app, done);
		if (~fail & ~done)
			emit_lanes(d, app, b, idx, ~fail & ~done, it, UINT32_MAX);
		done |= ~fail;
	}
	if (!ls->early_stop)
		fail = syndrome_fail(d, app, done);
	if (~done)
		emit_lanes(d, app, b, idx, ~done, it, ~fail);
}
