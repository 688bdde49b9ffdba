/*
 * Generated nbldpc codes, deterministic for a seed, without 4-cycles, random nonzero coefficients:
 *
 * - regular: every column dv, every row dc (columns placed in turn on the emptiest rows).
 * - irregular: rate 1/2 with the degree profile of the seed thesis's GF(q) codes (Monzó 2010,
 *   table 4.4, which gives their largest column and row degrees per q: GF(8) and GF(16) 5 and 6,
 *   GF(32) and GF(64) 4 and 5, GF(256) 3 and 5; GF(2) 15 and 9; GF(4) takes GF(8)'s, GF(128)
 *   GF(256)'s). The thesis gives no more than those maxima, so the profile is: rows of degree
 *   dc_max - 1 and dc_max (half each, average dc_max - 1/2), columns of degree 2 (3 in GF(2))
 *   except a share at dv_max that makes the edge counts meet, spread evenly over the information
 *   columns (GF(64): 1/8 of all columns at 4, the rest 2). Degree-2 columns are what makes
 *   GF(q) codes good for q >= 64 (Davey and MacKay), the maxima are the thesis's.
 *
 *   Its parity part (the last m = n/2 columns) is a zigzag: parity column j joins checks j and
 *   j + 1, the last one checks m - 1 and 0 (its coefficient chosen so that the zigzag's
 *   determinant, prod a_j + prod b_j over GF(2^p), is not 0), in GF(2) checks 0, m/2 and m - 1
 *   (a weight-3 column, as 802.11n's, since a binary cycle is always singular). The last m
 *   columns are then independent, the information symbols are columns 0..k-1 and the sparse
 *   encoder (nbldpc_encode.c) peels them with a gap of 1 symbol: the seed's sizes build in
 *   milliseconds where the dense elimination took a second (GF64_5040) or minutes (n = 10800).
 *   This structure was chosen over greedy triangulation of a random H because it makes the
 *   encoder's cost certain for every seed and size, and degree-2 parity columns are what the
 *   profile asks for anyway.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fec_impl.h"
#include "nbldpc.h"
#include "prng.h"

/* Working rows: row r's columns row_cols[r * dcmax ..], row_fill[r] of them, at most cap[r]. */
struct gen_rows {
	uint32_t dcmax;
	uint32_t *row_cols, *row_fill, *cap, *stamp, *cand;
};

static void row_add(struct gen_rows *g, uint32_t r, uint32_t v)
{
	g->row_cols[r * g->dcmax + g->row_fill[r]++] = v;
}

/* The zigzag parity columns k0..n-1 (irregular codes), before the others are placed. */
static void place_zigzag(const struct nbldpc_code *c, struct gen_rows *g)
{
	const uint32_t k0 = c->n - c->m, m = c->m;

	for (uint32_t j = 0; j + 1 < m; j++) {
		row_add(g, j, k0 + j);
		row_add(g, j + 1, k0 + j);
	}
	row_add(g, 0, c->n - 1);
	if (c->gf.q == 2)
		row_add(g, m / 2, c->n - 1);
	row_add(g, m - 1, c->n - 1);
}

/* One attempt: columns 0..nplace-1 in turn, each joining deg[v] rows with room left, chosen at
 * random among the emptiest rows that share no column with the rows already chosen for it
 * (that would close a 4-cycle). 1 when placed, 0 when some column finds no such row, -FEC_ETIME
 * past the build deadline (a large code's attempt takes seconds). */
static int place_try(const struct nbldpc_code *c, const uint8_t *deg, uint32_t nplace, bool zigzag,
                     struct fec_prng *rng, struct gen_rows *g)
{
	memset(g->row_fill, 0, c->m * sizeof(uint32_t));
	memset(g->stamp, 0, c->n * sizeof(uint32_t));
	if (zigzag)
		place_zigzag(c, g);
	for (uint32_t v = 0; v < nplace; v++) {
		if (v % 64 == 0 && fec__build_expired())
			return -FEC_ETIME;
		for (unsigned d = 0; d < deg[v]; d++) {
			uint32_t ncand = 0, best = 0;

			for (uint32_t r = 0; r < c->m; r++) {
				bool ok = g->row_fill[r] < g->cap[r];

				for (uint32_t i = 0; ok && i < g->row_fill[r]; i++)
					ok = g->stamp[g->row_cols[r * g->dcmax + i]] != v + 1;
				if (!ok || g->cap[r] - g->row_fill[r] < best)
					continue;
				if (g->cap[r] - g->row_fill[r] > best) {
					best = g->cap[r] - g->row_fill[r];
					ncand = 0;
				}
				g->cand[ncand++] = r;
			}
			if (!ncand)
				return 0;
			{
				const uint32_t r = g->cand[fec_prng_next(rng) % ncand];

				for (uint32_t i = 0; i < g->row_fill[r]; i++)
					g->stamp[g->row_cols[r * g->dcmax + i]] = v + 1;
				g->stamp[v] = v + 1;
				row_add(g, r, v);
			}
		}
	}
	return 1;
}

/* The coefficient of column v in row r (0 when absent). */
static uint8_t *entry(struct nbldpc_code *c, uint32_t r, uint32_t v)
{
	for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
		if (c->row_col[e] == v)
			return &c->row_val[e];
	return NULL;
}

/* Makes the zigzag's determinant nonzero: prod a_j (upper entries) != prod b_j (lower). */
static void zigzag_fix(struct nbldpc_code *c)
{
	const struct nbldpc_gf *gf = &c->gf;
	const uint32_t k0 = c->n - c->m;
	uint8_t pa = 1, pb = 1, *last;

	if (gf->q == 2)
		return; /* the weight-3 column: always independent */
	for (uint32_t j = 0; j < c->m; j++) {
		pa = nbldpc_gf_mul(gf, pa, *entry(c, j, k0 + j));
		pb = nbldpc_gf_mul(gf, pb, *entry(c, (j + 1) % c->m, k0 + j));
	}
	last = entry(c, 0, c->n - 1);
	if (pa == pb)
		*last = nbldpc_gf_mul(gf, *last, 2); /* times alpha != 1 */
}

/* Builds the code whose column degrees are deg (the first nplace placed at random, the rest the
 * zigzag when zigzag), rows capped by cap. */
static int build(struct nbldpc_code *c, const uint8_t *deg, uint32_t nplace, bool zigzag,
                 const uint32_t *cap, uint32_t dcmax, uint32_t seed, const char *what, char *err,
                 size_t errlen)
{
	struct gen_rows g = {.dcmax = dcmax};
	struct fec_prng rng;
	int ok = 0, ret = -FEC_ENOMEM;

	g.row_cols = malloc((size_t)c->m * dcmax * sizeof(uint32_t));
	g.row_fill = malloc((size_t)c->m * sizeof(uint32_t));
	g.cap = malloc((size_t)c->m * sizeof(uint32_t));
	g.stamp = malloc((size_t)c->n * sizeof(uint32_t));
	g.cand = malloc((size_t)c->m * sizeof(uint32_t));
	c->row_start = malloc(((size_t)c->m + 1) * sizeof(uint32_t));
	if (!g.row_cols || !g.row_fill || !g.cap || !g.stamp || !g.cand || !c->row_start)
		goto out;
	memcpy(g.cap, cap, c->m * sizeof(uint32_t));
	fec_prng_seed(&rng, ((uint64_t)seed << 8) ^ 0x6e626c647063ull);
	for (unsigned attempt = 0; attempt < 50 && !ok; attempt++) {
		ok = place_try(c, deg, nplace, zigzag, &rng, &g);
		if (ok < 0) {
			ret = ok;
			goto out;
		}
	}
	if (!ok) {
		ret = fec__err(err, errlen, FEC_EINVAL,
		               "%s: found no graph without 4-cycles at n=%u in 50 tries: take a "
		               "longer code",
		               what, c->n);
		goto out;
	}
	c->row_start[0] = 0;
	for (uint32_t r = 0; r < c->m; r++)
		c->row_start[r + 1] = c->row_start[r] + g.row_fill[r];
	c->nnz = c->row_start[c->m];
	c->row_col = malloc(((size_t)c->nnz + 1) * sizeof(uint32_t));
	c->row_val = malloc((size_t)c->nnz + 1);
	if (!c->row_col || !c->row_val)
		goto out;
	for (uint32_t r = 0; r < c->m; r++) {
		/* columns of a row in increasing order, then their coefficients */
		uint32_t *rc = g.row_cols + (size_t)r * dcmax;
		const uint32_t fill = g.row_fill[r], s = c->row_start[r];

		for (unsigned i = 1; i < fill; i++)
			for (unsigned j = i; j > 0 && rc[j - 1] > rc[j]; j--) {
				const uint32_t t = rc[j];

				rc[j] = rc[j - 1];
				rc[j - 1] = t;
			}
		for (unsigned i = 0; i < fill; i++) {
			c->row_col[s + i] = rc[i];
			c->row_val[s + i] = (uint8_t)(1 + fec_prng_next(&rng) % (c->gf.q - 1));
		}
	}
	if (zigzag)
		zigzag_fix(c);
	ret = nbldpc__code_finish(c, err, errlen);
out:
	free(g.row_cols);
	free(g.row_fill);
	free(g.cap);
	free(g.stamp);
	free(g.cand);
	return ret;
}

static int field_p(unsigned q, unsigned *p, char *err, size_t errlen)
{
	*p = 0;
	while (*p <= 8 && (1u << *p) != q)
		(*p)++;
	if (*p < 1 || *p > 8)
		return fec__err(err, errlen, FEC_EINVAL,
		                "q: expected a power of 2 in 2..256, got %u", q);
	return 0;
}

static int finish(struct nbldpc_code *c, int ret, struct nbldpc_code **out)
{
	if (ret)
		nbldpc_code_free(c);
	else
		*out = c;
	return ret;
}

int nbldpc_regular_build(uint32_t n, unsigned dv, unsigned dc, unsigned q, unsigned poly,
                         uint32_t seed, struct nbldpc_code **out, char *err, size_t errlen)
{
	struct nbldpc_code *c;
	uint8_t *deg = NULL;
	uint32_t *cap = NULL;
	unsigned p;
	int ret;

	*out = NULL;
	ret = field_p(q, &p, err, errlen);
	if (ret)
		return ret;
	if (dv < 2 || dc <= dv || n < dc || (uint64_t)n * dv % dc)
		return fec__err(err, errlen, FEC_EINVAL,
		                "regular: expected 2 <= dv < dc <= n and n * dv a multiple of dc, "
		                "got n=%u dv=%u dc=%u",
		                n, dv, dc);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FEC_ENOMEM;
	snprintf(c->name, sizeof(c->name), "regular n=%u dv=%u dc=%u q=%u seed=%u", n, dv, dc, q,
	         seed);
	c->n = n;
	c->m = (uint32_t)((uint64_t)n * dv / dc);
	ret = nbldpc_gf_init(&c->gf, p, poly, err, errlen);
	if (ret)
		return finish(c, ret, out);
	deg = malloc(n);
	cap = malloc((size_t)c->m * sizeof(uint32_t));
	if (!deg || !cap) {
		ret = -FEC_ENOMEM;
	} else {
		memset(deg, (int)dv, n);
		for (uint32_t r = 0; r < c->m; r++)
			cap[r] = dc;
		ret = build(c, deg, n, false, cap, dc, seed, "regular", err, errlen);
	}
	free(deg);
	free(cap);
	return finish(c, ret, out);
}

void nbldpc_irregular_profile(unsigned q, unsigned *dv_max, unsigned *dc_max)
{
	if (q <= 2) {
		*dv_max = 15;
		*dc_max = 9;
	} else if (q <= 16) {
		*dv_max = 5;
		*dc_max = 6;
	} else if (q <= 64) {
		*dv_max = 4;
		*dc_max = 5;
	} else {
		*dv_max = 3;
		*dc_max = 5;
	}
}

int nbldpc_irregular_build(uint32_t n, unsigned q, unsigned poly, uint32_t seed,
                           struct nbldpc_code **out, char *err, size_t errlen)
{
	struct nbldpc_code *c;
	unsigned p, dv_max, dc_max, base;
	uint8_t *deg = NULL;
	uint32_t *cap = NULL, k0, m, h;
	uint64_t edges;
	int64_t extra;
	int ret;

	*out = NULL;
	ret = field_p(q, &p, err, errlen);
	if (ret)
		return ret;
	if (n < 16 || n % 2)
		return fec__err(err, errlen, FEC_EINVAL,
		                "irregular: expected n even and at least 16 (rate 1/2), got n=%u",
		                n);
	nbldpc_irregular_profile(q, &dv_max, &dc_max);
	base = q == 2 ? 3 : 2;
	m = n / 2;
	k0 = n - m;
	/* edges for rows averaging dc_max - 1/2; the zigzag has 2m (2m + 1 in GF(2)) */
	edges = (uint64_t)m * dc_max - m / 2;
	extra = (int64_t)edges - (2 * (int64_t)m + (q == 2)) - (int64_t)base * k0;
	h = extra <= 0 ? 0 : (uint32_t)((extra + (dv_max - base) / 2) / (dv_max - base));
	if (h > k0)
		h = k0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FEC_ENOMEM;
	snprintf(c->name, sizeof(c->name), "irregular n=%u q=%u seed=%u", n, q, seed);
	c->n = n;
	c->m = m;
	ret = nbldpc_gf_init(&c->gf, p, poly, err, errlen);
	if (ret)
		return finish(c, ret, out);
	deg = malloc(n);
	cap = malloc((size_t)m * sizeof(uint32_t));
	if (!deg || !cap) {
		ret = -FEC_ENOMEM;
		goto out;
	}
	edges = 2 * (uint64_t)m + (q == 2);
	for (uint32_t v = 0; v < k0; v++) {
		/* h columns at dv_max, spread evenly */
		deg[v] = (uint64_t)(v + 1) * h / k0 > (uint64_t)v * h / k0 ? (uint8_t)dv_max
		                                                           : (uint8_t)base;
		edges += deg[v];
	}
	for (uint32_t r = 0; r < m; r++)
		cap[r] = (uint32_t)(edges / m + (r < edges % m));
	if (cap[0] > dc_max) { /* rounding h cannot reach this for n >= 16; kept as a guard */
		ret = fec__err(err, errlen, FEC_EINVAL, "irregular: n=%u: rows above degree %u", n,
		               dc_max);
		goto out;
	}
	ret = build(c, deg, k0, true, cap, dc_max, seed, "irregular", err, errlen);
out:
	free(deg);
	free(cap);
	return finish(c, ret, out);
}
