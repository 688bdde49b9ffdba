/*
 * The systematic encoder derived from H, and with it rank(H), k and the information columns.
 *
 * Dense elimination of a 32400 x 64800 matrix is far too slow, so the plan is found the way an
 * erasure decoder with inactivation works: the parity candidates (the m columns most preferred,
 * by default the rightmost) are unknowns; a row with one unknown left determines it ("peeling",
 * which makes the matrix lower triangular); when none has, a few unknowns are set aside as
 * symbols ("inactivated"). Rows left over after peeling give a small dense system over the
 * inactivated columns (the "gap"), solved once by bit-packed elimination. When that system is
 * singular (H is rank deficient, or the candidates are dependent) the null combinations of its
 * rows are constraints on the other columns, and a second small elimination picks parity columns
 * among them. Structured codes (DVB-S2, 5G NR, WiMAX, 802.11n, AR4JA) peel with a small gap (0 for
 * DVB-S2, at most z for 5G NR), so their information columns are the first k. Random codes do not
 * (the rightmost half of a (3,6) code leaves a gap near 6% of n); when the gap passes PEEL_GAP_MAX
 * they peel again with every column an unknown, declaring columns information when stuck, as in
 * Richardson and Urbanke's greedy triangulation (gap near 2% of n). Encoding is then two peeling
 * passes over the edges plus small dense products: O(nnz + gap * rows_left / 64).
 *
 * Faster forms of the same encoder, for simulations, are in ldpc_encode_fast.c, which also lists
 * each peeled row's other columns apart for the plan's encoder here (no test per edge then).
 */
#include <stdlib.h>
#include <string.h>

#include "fec.h"
#include "fec_impl.h"
#include "ldpc_code_impl.h"
#include "ldpc_enc_plan.h"

enum col_state { COL_KNOWN, COL_ACTIVE, COL_PEELED, COL_INACTIVE };

void ldpc__enc_plan_free(struct ldpc_enc_plan *p)
{
	if (!p)
		return;
	free(p->peel_row);
	free(p->peel_col);
	free(p->left_rows);
	free(p->q1_cols);
	free(p->q1_rows);
	free(p->q2_cols);
	free(p->q2_rows);
	free(p->peel_start);
	free(p->peel_other);
	free(p->ira_start);
	free(p->ira_col);
	free(p->cslot_start);
	free(p->cslot_blk);
	free(p->cslot_sh);
	free(p);
}

static inline void bit_flip(uint64_t *v, uint32_t i)
{
	v[i >> 6] ^= 1ull << (i & 63);
}

static inline bool bit_get(const uint64_t *v, uint32_t i)
{
	return (v[i >> 6] >> (i & 63)) & 1;
}

static inline void words_xor(uint64_t *dst, const uint64_t *src, size_t nw)
{
	for (size_t i = 0; i < nw; i++)
		dst[i] ^= src[i];
}

static inline unsigned words_and_parity(const uint64_t *a, const uint64_t *b, size_t nw)
{
	uint64_t x = 0;

	for (size_t i = 0; i < nw; i++)
		x ^= a[i] & b[i];
	return (unsigned)__builtin_parityll(x);
}

#define CHECK_EVERY 1024 /* rows between looks at the build deadline (fec_build_deadline_set) */
#define EXPIRED     UINT32_MAX

/* Gauss-Jordan on nrows rows of w words, pivots tried in the order of the bit positions in
 * order[0..norder-1]. Pivot rows end up first, in pivot order; pivot_bit[i] is row i's. Returns
 * the rank, or EXPIRED past the build deadline (each pivot costs a pass over every row: the step
 * that grows fastest with n). */
static uint32_t eliminate(uint64_t *rows, uint32_t nrows, size_t w, const uint32_t *order,
                          uint32_t norder, uint32_t *pivot_bit, uint64_t *tmp)
{
	uint32_t rank = 0;

	for (uint32_t o = 0; o < norder && rank < nrows; o++) {
		uint32_t b = order[o], r = rank;

		if (fec__build_expired())
			return EXPIRED;

		while (r < nrows && !bit_get(rows + (size_t)r * w, b))
			r++;
		if (r == nrows)
			continue;
		if (r != rank) {
			memcpy(tmp, rows + (size_t)r * w, w * 8);
			memcpy(rows + (size_t)r * w, rows + (size_t)rank * w, w * 8);
			memcpy(rows + (size_t)rank * w, tmp, w * 8);
		}
		for (uint32_t i = 0; i < nrows; i++)
			if (i != rank && bit_get(rows + (size_t)i * w, b))
				words_xor(rows + (size_t)i * w, rows + (size_t)rank * w, w);
		pivot_bit[rank++] = b;
	}
	return rank;
}

/* Beyond this gap, pick the information columns as peeling goes. Below it the rightmost m
 * columns stay parity, so information comes first, which the binary images of GF(q) codes rely
 * on (nbldpc_image.c: the seed's 5040-bit GF(64) and GF(256) codes leave gaps of 1472 and
 * 1756). The dense system costs gap^2 leftover rows / 64 words once and gap rows / 64 a frame:
 * at 2048, 64 k words (tens of microseconds) a frame. */
#define PEEL_GAP_MAX 2048

struct peel_state {
	const struct ldpc_matrix *h;
	uint32_t *edge_row; /* the row owning each edge */
	uint8_t *state;     /* enum col_state per column */
	uint32_t *cnt;      /* active unknowns per row */
	uint32_t *cdeg;     /* rows not yet peeled, per column */
	uint8_t *row_done;
	/* rows by their count of active unknowns: stacks, stale entries skipped when popped */
	uint32_t head[LDPC_DEG_MAX + 2], *node_row, *node_next, nodes, minb;
	uint32_t *inact, ninact;
};

static void bucket_push(struct peel_state *ps, uint32_t r)
{
	uint32_t b = ps->cnt[r], i = ps->nodes++;

	ps->node_row[i] = r;
	ps->node_next[i] = ps->head[b];
	ps->head[b] = i;
	if (b < ps->minb)
		ps->minb = b;
}

/* A row not done with the fewest active unknowns (at least 1), or UINT32_MAX. */
static uint32_t bucket_pop_min(struct peel_state *ps)
{
	for (; ps->minb <= LDPC_DEG_MAX; ps->minb++)
		while (ps->head[ps->minb] != UINT32_MAX) {
			uint32_t i = ps->head[ps->minb], r = ps->node_row[i];

			ps->head[ps->minb] = ps->node_next[i];
			if (!ps->row_done[r] && ps->cnt[r] == ps->minb)
				return r;
		}
	return UINT32_MAX;
}

static void drop_unknown(struct peel_state *ps, uint32_t v, uint8_t new_state)
{
	const struct ldpc_matrix *h = ps->h;

	ps->state[v] = new_state;
	if (new_state == COL_INACTIVE)
		ps->inact[ps->ninact++] = v;
	for (uint32_t i = h->col_start[v]; i < h->col_start[v + 1]; i++) {
		uint32_t r = ps->edge_row[h->col_edge[i]];

		ps->cnt[r]--;
		if (!ps->row_done[r] && ps->cnt[r])
			bucket_push(ps, r);
	}
}

/* The first ncand columns by preference are the unknowns; counts and buckets from scratch. */
static void peel_setup(struct peel_state *ps, struct ldpc_enc_plan *p, const uint32_t *rank_of,
                       uint32_t ncand)
{
	const struct ldpc_matrix *h = ps->h;

	p->t = 0;
	ps->ninact = 0;
	ps->nodes = 0;
	ps->minb = LDPC_DEG_MAX + 1;
	for (uint32_t b = 0; b < LDPC_DEG_MAX + 2; b++)
		ps->head[b] = UINT32_MAX;
	for (uint32_t v = 0; v < h->n; v++) {
		ps->state[v] = rank_of[v] < ncand ? COL_ACTIVE : COL_KNOWN;
		ps->cdeg[v] = h->col_start[v + 1] - h->col_start[v];
	}
	for (uint32_t r = 0; r < h->m; r++) {
		ps->cnt[r] = 0;
		ps->row_done[r] = 0;
		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
			ps->edge_row[e] = r;
			ps->cnt[r] += ps->state[h->row_col[e]] == COL_ACTIVE;
		}
		if (ps->cnt[r])
			bucket_push(ps, r);
	}
}

/* Peels the active unknowns; when no row has one left, takes a row with the fewest and keeps
 * one of them, the one in the fewest rows still to peel (setting the others aside frees the
 * most rows): the others become information columns while free_info lasts, else inactive.
 * Returns 0, or -FEC_ETIME past the build deadline. */
static int peel(struct peel_state *ps, struct ldpc_enc_plan *p, const uint32_t *rank_of,
                uint32_t free_info)
{
	const struct ldpc_matrix *h = ps->h;
	uint32_t r;

	for (uint32_t v = 0; v < h->n; v++)
		if (ps->state[v] == COL_ACTIVE && h->col_start[v + 1] == h->col_start[v])
			drop_unknown(ps, v, free_info ? COL_KNOWN : COL_INACTIVE);
	while ((r = bucket_pop_min(ps)) != UINT32_MAX) {
		uint32_t keep = UINT32_MAX;

		if (p->t % CHECK_EVERY == 0 && fec__build_expired())
			return -FEC_ETIME;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
			uint32_t v = h->row_col[e];

			if (ps->state[v] == COL_ACTIVE &&
			    (keep == UINT32_MAX || ps->cdeg[v] < ps->cdeg[keep] ||
			     (ps->cdeg[v] == ps->cdeg[keep] && rank_of[v] < rank_of[keep])))
				keep = v;
		}
		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
			uint32_t v = h->row_col[e];

			if (ps->state[v] != COL_ACTIVE || v == keep)
				continue;
			if (free_info) {
				free_info--;
				drop_unknown(ps, v, COL_KNOWN);
			} else {
				drop_unknown(ps, v, COL_INACTIVE);
			}
		}
		/* row r now has one unknown, keep: it determines it */
		ps->row_done[r] = 1;
		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
			ps->cdeg[h->row_col[e]]--;
		p->peel_row[p->t] = r;
		p->peel_col[p->t++] = keep;
		drop_unknown(ps, keep, COL_PEELED);
	}
	return 0;
}

/* Constraints left on the known columns: each null combination of leftover rows, with the
 * peeled columns cancelled by adding their rows backwards (a peeled row only holds earlier
 * peeled columns). The result must be zero on every candidate column. */
static int null_constraints(const struct ldpc_matrix *h, const struct ldpc_enc_plan *p,
                            const uint8_t *state, const uint64_t *combo, size_t cw_off,
                            uint64_t *acc, size_t nw)
{
	memset(acc, 0, nw * 8);
	for (uint32_t j = 0; j < p->nleft; j++)
		if (bit_get(combo, (uint32_t)(cw_off * 64) + j)) {
			uint32_t r = p->left_rows[j];

			for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
				bit_flip(acc, h->row_col[e]);
		}
	for (uint32_t i = p->t; i-- > 0;)
		if (bit_get(acc, p->peel_col[i])) {
			uint32_t r = p->peel_row[i];

			for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
				bit_flip(acc, h->row_col[e]);
		}
	for (uint32_t v = 0; v < h->n; v++)
		if (state[v] != COL_KNOWN && bit_get(acc, v))
			return -FEC_EINVAL;
	return 0;
}

/* The columns in state st, most preferred as parity first; as bit positions when bit_of. */
static uint32_t cols_by_pref(const uint32_t *pref, uint32_t n, const uint8_t *state, uint8_t st,
                             const uint32_t *bit_of, uint32_t *order)
{
	uint32_t cnt = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = pref ? pref[i] : n - 1 - i;

		if (state[v] == st)
			order[cnt++] = bit_of ? bit_of[v] : v;
	}
	return cnt;
}

int ldpc__enc_plan_build(struct ldpc_code *code, const uint32_t *pref, char *err, size_t errlen)
{
	const struct ldpc_matrix *h = &code->h;
	uint32_t n = h->n, m = h->m, ncand = m < n ? m : n;
	struct peel_state ps = {.h = h};
	struct ldpc_enc_plan *p;
	uint32_t *rank_of, *peel_idx = NULL, *order = NULL, *pivots = NULL, *inact_bit = NULL;
	uint64_t *dep = NULL, *sys = NULL, *tmp = NULL, *nulls = NULL;
	size_t gw, sw, nw = ((size_t)n + 63) / 64;
	uint32_t g, r1, r2 = 0, d0, nk = 0, k;
	int ret = -FEC_ENOMEM;

	p = calloc(1, sizeof(*p));
	rank_of = malloc((size_t)n * sizeof(*rank_of));
	ps.edge_row = malloc(((size_t)h->nnz + 1) * sizeof(uint32_t));
	ps.state = calloc(n, 1);
	ps.cnt = calloc(m, sizeof(uint32_t));
	ps.cdeg = malloc(((size_t)n + 1) * sizeof(uint32_t));
	ps.row_done = calloc(m, 1);
	ps.node_row = malloc(((size_t)h->nnz + m + n + 1) * sizeof(uint32_t));
	ps.node_next = malloc(((size_t)h->nnz + m + n + 1) * sizeof(uint32_t));
	ps.inact = malloc(((size_t)n + 1) * sizeof(uint32_t));
	peel_idx = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!p || !rank_of || !ps.edge_row || !ps.state || !ps.cnt || !ps.row_done ||
	    !ps.node_row || !ps.node_next || !ps.cdeg || !ps.inact || !peel_idx)
		goto out_free;
	p->peel_row = malloc(((size_t)m + 1) * sizeof(uint32_t));
	p->peel_col = malloc(((size_t)m + 1) * sizeof(uint32_t));
	p->left_rows = malloc(((size_t)m + 1) * sizeof(uint32_t));
	if (!p->peel_row || !p->peel_col || !p->left_rows)
		goto out_free;
	for (uint32_t i = 0; i < n; i++)
		rank_of[pref ? pref[i] : n - 1 - i] = i;
	/* Structured codes peel with a small gap with the rightmost m columns as unknowns;
	 * random ones do not, and choose their information columns as they go instead. */
	peel_setup(&ps, p, rank_of, ncand);
	ret = peel(&ps, p, rank_of, 0);
	if (!ret && ps.ninact > PEEL_GAP_MAX) {
		peel_setup(&ps, p, rank_of, n);
		ret = peel(&ps, p, rank_of, n - ncand);
	}
	if (ret)
		goto out_expired;
	for (uint32_t r = 0; r < m; r++)
		if (!ps.row_done[r])
			p->left_rows[p->nleft++] = r;

	/* Leftover rows over the inactivated columns, beside an identity recording the row
	 * operations: [S | E], one row per leftover row. */
	g = ps.ninact;
	gw = ((size_t)g + 63) / 64;
	p->lw = (p->nleft + 63) / 64;
	sw = gw + p->lw;
	ret = -FEC_ENOMEM;
	inact_bit = malloc(((size_t)n + 1) * sizeof(uint32_t));
	dep = calloc((size_t)p->t * gw + 1, 8);
	sys = calloc((size_t)p->nleft * sw + 1, 8);
	tmp = malloc((sw > nw ? sw : nw) * 8 + 8);
	order = malloc(((size_t)n + 1) * sizeof(uint32_t));
	pivots = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!inact_bit || !dep || !sys || !tmp || !order || !pivots)
		goto out_free;
	for (uint32_t i = 0; i < g; i++)
		inact_bit[ps.inact[i]] = i;
	for (uint32_t i = 0; i < p->t; i++)
		peel_idx[p->peel_col[i]] = i;
	for (uint32_t i = 0; i < p->t && g; i++) {
		uint32_t r = p->peel_row[i];
		uint64_t *d = dep + (size_t)i * gw;

		if (i % CHECK_EVERY == 0 && fec__build_expired())
			goto out_expired;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
			uint32_t v = h->row_col[e];

			if (ps.state[v] == COL_INACTIVE)
				bit_flip(d, inact_bit[v]);
			else if (ps.state[v] == COL_PEELED && v != p->peel_col[i])
				words_xor(d, dep + (size_t)peel_idx[v] * gw, gw);
		}
	}
	for (uint32_t j = 0; j < p->nleft; j++) {
		uint32_t r = p->left_rows[j];
		uint64_t *s = sys + (size_t)j * sw;

		if (j % CHECK_EVERY == 0 && fec__build_expired())
			goto out_expired;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1] && g; e++) {
			uint32_t v = h->row_col[e];

			if (ps.state[v] == COL_INACTIVE)
				bit_flip(s, inact_bit[v]);
			else if (ps.state[v] == COL_PEELED)
				words_xor(s, dep + (size_t)peel_idx[v] * gw, gw);
		}
		bit_flip(s, (uint32_t)(gw * 64) + j);
	}
	cols_by_pref(pref, n, ps.state, COL_INACTIVE, inact_bit, order);
	r1 = eliminate(sys, p->nleft, sw, order, g, pivots, tmp);
	if (r1 == EXPIRED)
		goto out_expired;
	p->nq1 = r1;
	p->q1_cols = malloc(((size_t)r1 + 1) * sizeof(uint32_t));
	p->q1_rows = malloc(((size_t)r1 * p->lw + 1) * 8);
	if (!p->q1_cols || !p->q1_rows)
		goto out_free;
	for (uint32_t j = 0; j < r1; j++) {
		p->q1_cols[j] = ps.inact[pivots[j]];
		memcpy(p->q1_rows + (size_t)j * p->lw, sys + (size_t)j * sw + gw, p->lw * 8);
	}

	/* Null combinations constrain the known columns: pick parity among them too. */
	d0 = p->nleft - r1;
	if (d0) {
		nulls = calloc((size_t)d0 * nw, 8);
		if (!nulls)
			goto out_free;
		for (uint32_t j = 0; j < d0; j++) {
			if (fec__build_expired())
				goto out_expired;
			ret = null_constraints(h, p, ps.state, sys + (size_t)(r1 + j) * sw, gw,
			                       nulls + (size_t)j * nw, nw);
			if (ret)
				goto out_internal;
		}
		nk = cols_by_pref(pref, n, ps.state, COL_KNOWN, NULL, order);
		r2 = eliminate(nulls, d0, nw, order, nk, pivots, tmp);
		if (r2 == EXPIRED)
			goto out_expired;
		ret = -FEC_ENOMEM;
		p->q2_cols = malloc(((size_t)r2 + 1) * sizeof(uint32_t));
		if (!p->q2_cols)
			goto out_free;
		memcpy(p->q2_cols, pivots, (size_t)r2 * sizeof(uint32_t));
		p->nq2 = r2;
		p->nw = (uint32_t)nw;
		p->q2_rows = nulls; /* the first r2 rows; the rest (zero) are redundant rows */
		nulls = NULL;
	}

	/* Information columns: everything not determined. */
	for (uint32_t j = 0; j < r1; j++)
		ps.state[p->q1_cols[j]] = COL_PEELED;
	for (uint32_t j = 0; j < r2; j++)
		ps.state[p->q2_cols[j]] = COL_PEELED;
	k = n - (p->t + r1 + r2);
	free(code->info_cols);
	code->info_cols = malloc(((size_t)k + 1) * sizeof(uint32_t));
	ret = -FEC_ENOMEM;
	if (!code->info_cols)
		goto out_free;
	k = 0;
	for (uint32_t v = 0; v < n; v++)
		if (ps.state[v] != COL_PEELED)
			code->info_cols[k++] = v;
	code->k = k;
	ret = ldpc__enc_fast_build(code, p);
	if (ret)
		goto out_free;
	ldpc__enc_plan_free(code->enc);
	code->enc = p;
	p = NULL;
	ret = 0;
	goto out_free;

out_expired:
	ret = fec__err(err, errlen, FEC_ETIME,
	               "%s: deriving the encoder (rank, information columns) passed its deadline",
	               code->name);
	goto out_free;
out_internal:
	ret =
	    ldpc__err(err, errlen, "%s: encoder construction failed (internal error)", code->name);
out_free:
	ldpc__enc_plan_free(p);
	free(rank_of);
	free(ps.edge_row);
	free(ps.state);
	free(ps.cnt);
	free(ps.cdeg);
	free(ps.row_done);
	free(ps.node_row);
	free(ps.node_next);
	free(ps.inact);
	free(peel_idx);
	free(inact_bit);
	free(dep);
	free(sys);
	free(tmp);
	free(order);
	free(pivots);
	free(nulls);
	return ret;
}

int ldpc_enc_tables_get(const struct ldpc_code *code, struct ldpc_enc_tables *out)
{
	const struct ldpc_enc_plan *p = code->enc;

	if (!p)
		return -FEC_EINVAL;
	*out = (struct ldpc_enc_tables){
	    .t = p->t,
	    .peel_row = p->peel_row,
	    .peel_col = p->peel_col,
	    .nleft = p->nleft,
	    .lw = p->lw,
	    .left_rows = p->left_rows,
	    .nq1 = p->nq1,
	    .q1_cols = p->q1_cols,
	    .q1_rows = p->q1_rows,
	    .nq2 = p->nq2,
	    .nw = p->nw,
	    .q2_cols = p->q2_cols,
	    .q2_rows = p->q2_rows,
	};
	return 0;
}

/* The reference pass: each peeled row's edges, the peeled column skipped by a test. */
static void peel_pass(const struct ldpc_matrix *h, const struct ldpc_enc_plan *p, uint8_t *cw)
{
	for (uint32_t i = 0; i < p->t; i++) {
		uint32_t r = p->peel_row[i], v = p->peel_col[i];
		uint8_t x = 0;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
			x ^= h->row_col[e] == v ? 0 : cw[h->row_col[e]];
		cw[v] = x;
	}
}

/* The same from the rows' other columns listed apart. */
static void peel_pass_flat(const struct ldpc_enc_plan *p, uint8_t *cw)
{
	for (uint32_t i = 0; i < p->t; i++) {
		uint8_t x = 0;

		for (uint32_t e = p->peel_start[i]; e < p->peel_start[i + 1]; e++)
			x ^= cw[p->peel_other[e]];
		cw[p->peel_col[i]] = x;
	}
}

static void peel_passes(const struct ldpc_matrix *h, const struct ldpc_enc_plan *p, bool flat,
                        uint8_t *cw)
{
	if (flat)
		peel_pass_flat(p, cw);
	else
		peel_pass(h, p, cw);
}

/* The plan's encoder; flat: with the rows' other columns listed apart. */
static int encode_plan(const struct ldpc_code *code, const uint8_t *info, uint8_t *cw, bool flat)
{
	const struct ldpc_matrix *h = &code->h;
	const struct ldpc_enc_plan *p = code->enc;
	uint64_t *buf;

	memset(cw, 0, h->n);
	for (uint32_t i = 0; i < code->k; i++)
		cw[code->info_cols[i]] = info[i] & 1;
	buf = calloc((p->nw > p->lw ? p->nw : p->lw) + 1, 8);
	if (!buf)
		return -FEC_ENOMEM;
	if (p->nq2) {
		for (uint32_t i = 0; i < code->k; i++)
			if (cw[code->info_cols[i]])
				bit_flip(buf, code->info_cols[i]);
		for (uint32_t j = 0; j < p->nq2; j++)
			cw[p->q2_cols[j]] =
			    (uint8_t)words_and_parity(p->q2_rows + (size_t)j * p->nw, buf, p->nw);
	}
	peel_passes(h, p, flat, cw);
	if (p->nq1) {
		memset(buf, 0, ((size_t)p->lw + 1) * 8);
		for (uint32_t j = 0; j < p->nleft; j++) {
			uint32_t r = p->left_rows[j];
			uint8_t x = 0;

			for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
				x ^= cw[h->row_col[e]];
			if (x)
				bit_flip(buf, j);
		}
		for (uint32_t j = 0; j < p->nq1; j++)
			cw[p->q1_cols[j]] =
			    (uint8_t)words_and_parity(p->q1_rows + (size_t)j * p->lw, buf, p->lw);
		peel_passes(h, p, flat, cw);
	}
	free(buf);
	return 0;
}

int ldpc_encode(struct ldpc_code *code, const uint8_t *info, uint8_t *cw)
{
	int ret;

	if (!code->enc) {
		ret = ldpc__enc_plan_build(code, NULL, NULL, 0);
		if (ret)
			return ret;
	}
	if (code->enc->ira)
		return ldpc__encode_ira(code, info, cw);
	return encode_plan(code, info, cw, code->enc->peel_start != NULL);
}

int ldpc__encode_plan(struct ldpc_code *code, const uint8_t *info, uint8_t *cw)
{
	int ret;

	if (!code->enc) {
		ret = ldpc__enc_plan_build(code, NULL, NULL, 0);
		if (ret)
			return ret;
	}
	return encode_plan(code, info, cw, false);
}

enum ldpc_enc_form ldpc__encode_form(const struct ldpc_code *code)
{
	const struct ldpc_enc_plan *p = code->enc;

	if (!p)
		return LDPC_ENC_PLAN;
	if (p->cq)
		return LDPC_ENC_IRA_CYCLIC;
	return p->ira ? LDPC_ENC_IRA : p->peel_start ? LDPC_ENC_FLAT : LDPC_ENC_PLAN;
}
