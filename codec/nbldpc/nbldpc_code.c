/*
 * nbldpc codes: the field GF(2^p), the parity-check matrix with its coefficients from a
 * non-binary alist file (generated ones are built in nbldpc_gen.c), and the systematic encoder
 * derived from H: by peeling (nbldpc_encode.c) or by Gaussian elimination over GF(q). Parse
 * errors name the file, the line and what was expected there (textfile.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fec_impl.h"
#include "nbldpc.h"
#include "textfile.h"

static const uint16_t default_polys[9] = {0, 0x3, 0x7, 0xb, 0x13, 0x25, 0x43, 0x89, 0x11d};

unsigned nbldpc_gf_default_poly(unsigned p)
{
	return p >= 1 && p <= 8 ? default_polys[p] : 0;
}

int nbldpc_gf_init(struct nbldpc_gf *gf, unsigned p, unsigned poly, char *err, size_t errlen)
{
	unsigned q = 1u << p, a = 1;

	if (p < 1 || p > 8)
		return fec__err(err, errlen, FEC_EINVAL, "q: expected 2^p for p in 1..8");
	if (!poly)
		poly = default_polys[p];
	if (poly >> p != 1)
		return fec__err(err, errlen, FEC_EINVAL,
		                "poly: expected a polynomial of degree %u (0x%x..0x%x), got 0x%x",
		                p, 1u << p, (2u << p) - 1, poly);
	memset(gf, 0, sizeof(*gf));
	gf->p = p;
	gf->q = q;
	gf->poly = poly;
	/* alpha = x must have order q - 1: its powers reach every nonzero element once */
	for (unsigned i = 0; i < q - 1; i++) {
		if (i > 0 && a == 1)
			return fec__err(err, errlen, FEC_EINVAL,
			                "poly: 0x%x is not primitive for GF(%u) (x has order %u)",
			                poly, q, i);
		gf->exp[i] = (uint8_t)a;
		gf->log[a] = (uint8_t)i;
		a <<= 1;
		if (a & q)
			a ^= poly;
	}
	if (a != 1)
		return fec__err(err, errlen, FEC_EINVAL, "poly: 0x%x is not primitive for GF(%u)",
		                poly, q);
	for (unsigned i = q - 1; i < 512; i++)
		gf->exp[i] = gf->exp[i % (q - 1)];
	return 0;
}

void nbldpc_code_free(struct nbldpc_code *c)
{
	if (!c)
		return;
	free(c->row_start);
	free(c->row_col);
	free(c->row_val);
	free(c->col_start);
	free(c->col_edge);
	free(c->info_cols);
	free(c->par_cols);
	free(c->enc);
	nbldpc__enc_plan_free(c->plan);
	free(c);
}

/* ---- The column view and the encoder, from the row view. */

static int build_columns(struct nbldpc_code *c)
{
	uint32_t *fill;

	c->col_start = calloc((size_t)c->n + 1, sizeof(uint32_t));
	c->col_edge = malloc(((size_t)c->nnz + 1) * sizeof(uint32_t));
	fill = calloc((size_t)c->n + 1, sizeof(uint32_t));
	if (!c->col_start || !c->col_edge || !fill) {
		free(fill);
		return -FEC_ENOMEM;
	}
	for (uint32_t e = 0; e < c->nnz; e++)
		c->col_start[c->row_col[e] + 1]++;
	for (uint32_t v = 0; v < c->n; v++)
		c->col_start[v + 1] += c->col_start[v];
	for (uint32_t r = 0; r < c->m; r++) {
		const uint32_t deg = c->row_start[r + 1] - c->row_start[r];

		if (deg > c->max_row_deg)
			c->max_row_deg = deg;
		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++) {
			const uint32_t v = c->row_col[e];

			c->col_edge[c->col_start[v] + fill[v]++] = e;
		}
	}
	for (uint32_t v = 0; v < c->n; v++)
		if (fill[v] > c->max_col_deg)
			c->max_col_deg = fill[v];
	free(fill);
	return 0;
}

/* The sparse encoder when H's last m columns are independent (nbldpc_encode.c); otherwise
 * Gaussian elimination over GF(q) on a dense copy of H, pivots taken from the last column
 * leftwards so that parity symbols sit at the end where H allows (BeiDou's ICD order). Both give
 * the same codewords where both apply. */
static int build_encoder(struct nbldpc_code *c, char *err, size_t errlen)
{
	const struct nbldpc_gf *gf = &c->gf;
	const size_t n = c->n, m = c->m;
	uint8_t *h, *is_par, tab[256];
	uint32_t rank = 0, j = 0;
	int ret = nbldpc__enc_plan_build(c, &c->plan);

	if (ret)
		return ret;
	if (c->plan) {
		/* parity last, found by peeling: no dense copy */
		c->rank = c->m;
		c->k = c->n - c->m;
		c->info_cols = malloc(((size_t)c->k + 1) * sizeof(uint32_t));
		c->par_cols = malloc(((size_t)c->m + 1) * sizeof(uint32_t));
		if (!c->info_cols || !c->par_cols)
			return -FEC_ENOMEM;
		for (uint32_t v = 0; v < c->n; v++)
			if (v < c->k)
				c->info_cols[v] = v;
			else
				c->par_cols[v - c->k] = v;
		return 0;
	}
	if (m * n > NBLDPC_DENSE_MAX)
		return fec__err(err, errlen, FEC_EINVAL,
		                "%s: the encoder is derived on a dense copy of H, at most %u "
		                "entries; this code has %zu x %zu",
		                c->name, NBLDPC_DENSE_MAX, m, n);
	h = calloc(m * n, 1);
	is_par = calloc(n, 1);

	c->par_cols = malloc((m + 1) * sizeof(uint32_t));
	c->info_cols = malloc((n + 1) * sizeof(uint32_t));
	if (!h || !is_par || !c->par_cols || !c->info_cols) {
		free(h);
		free(is_par);
		return -FEC_ENOMEM;
	}
	for (uint32_t r = 0; r < m; r++)
		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			h[r * n + c->row_col[e]] = c->row_val[e];
	for (size_t col = n; col-- > 0 && rank < m;) {
		uint8_t *prow;
		size_t r = rank;

		if (fec__build_expired()) {
			free(h);
			free(is_par);
			return -FEC_ETIME;
		}
		while (r < m && !h[r * n + col])
			r++;
		if (r == m)
			continue;
		if (r != rank)
			for (size_t i = 0; i < n; i++) {
				const uint8_t t = h[r * n + i];

				h[r * n + i] = h[rank * n + i];
				h[rank * n + i] = t;
			}
		prow = h + rank * n;
		{
			const uint8_t inv = nbldpc_gf_div(gf, 1, prow[col]);

			for (size_t i = 0; i < n; i++)
				prow[i] = nbldpc_gf_mul(gf, prow[i], inv);
		}
		for (size_t o = 0; o < m; o++) {
			uint8_t *orow = h + o * n;
			const uint8_t f = orow[col];

			if (o == rank || !f)
				continue;
			for (unsigned x = 0; x < gf->q; x++)
				tab[x] = nbldpc_gf_mul(gf, f, (uint8_t)x);
			for (size_t i = 0; i < n; i++)
				orow[i] ^= tab[prow[i]];
		}
		c->par_cols[rank++] = (uint32_t)col;
		is_par[col] = 1;
	}
	c->rank = rank;
	c->k = c->n - rank;
	for (uint32_t v = 0; v < c->n; v++)
		if (!is_par[v])
			c->info_cols[j++] = v;
	c->enc = malloc((size_t)rank * c->k + 1);
	if (!c->enc) {
		free(h);
		free(is_par);
		return -FEC_ENOMEM;
	}
	for (uint32_t r = 0; r < rank; r++)
		for (uint32_t i = 0; i < c->k; i++)
			c->enc[(size_t)r * c->k + i] = h[r * n + c->info_cols[i]];
	free(h);
	free(is_par);
	if (c->k == 0)
		return fec__err(err, errlen, FEC_EINVAL, "%s: H has full column rank: no code",
		                c->name);
	return 0;
}

void nbldpc_encode(const struct nbldpc_code *c, const uint8_t *info, uint8_t *cw)
{
	const struct nbldpc_gf *gf = &c->gf;

	if (c->plan) {
		nbldpc__enc_plan_encode(c, c->plan, info, cw);
		return;
	}
	for (uint32_t i = 0; i < c->k; i++)
		cw[c->info_cols[i]] = info[i];
	for (uint32_t r = 0; r < c->rank; r++) {
		const uint8_t *row = c->enc + (size_t)r * c->k;
		uint8_t s = 0;

		for (uint32_t i = 0; i < c->k; i++)
			s ^= nbldpc_gf_mul(gf, row[i], info[i]);
		cw[c->par_cols[r]] = s;
	}
}

bool nbldpc_codeword_valid(const struct nbldpc_code *c, const uint8_t *cw)
{
	for (uint32_t r = 0; r < c->m; r++) {
		uint8_t s = 0;

		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			s ^= nbldpc_gf_mul(&c->gf, c->row_val[e], cw[c->row_col[e]]);
		if (s)
			return false;
	}
	return true;
}

int nbldpc__code_finish(struct nbldpc_code *c, char *err, size_t errlen)
{
	int ret = build_columns(c);

	return ret ? ret : build_encoder(c, err, errlen);
}

/* ---- Non-binary alist files. */

static int alist_pairs(struct fec__text_reader *rd, const struct nbldpc_gf *gf,
                       enum nbldpc_form form, uint32_t deg, long hi, const char *idx_what,
                       const char *of, uint32_t which, uint32_t *idx, uint8_t *val)
{
	const long vlo = form == NBLDPC_FORM_POWER ? 0 : 1;
	const long vhi = form == NBLDPC_FORM_POWER ? (long)gf->q - 2 : (long)gf->q - 1;
	uint32_t got = 0;
	long v;
	int r;

	if (!fec__text_next_line(rd))
		return fec__err(rd->err, rd->errlen, FEC_EINVAL,
		                "%s:%u: expected the (%s, value) pairs of %s %u, found end of file",
		                rd->name, rd->line, idx_what, of, which + 1);
	while ((r = fec__text_next_num(rd, &v)) == 1) {
		const bool is_val = got & 1;

		if (got / 2 < deg) {
			if (!is_val && (v < 1 || v > hi))
				return fec__err(
				    rd->err, rd->errlen, FEC_EINVAL,
				    "%s:%u: %s %u: expected %s indices in 1..%ld, found %s",
				    rd->name, rd->line, of, which + 1, idx_what, hi,
				    fec__text_range_miss(v, 1));
			if (is_val && (v < vlo || v > vhi))
				return fec__err(
				    rd->err, rd->errlen, FEC_EINVAL,
				    "%s:%u: %s %u: expected values of GF(%u) in %s form "
				    "(%ld..%ld), found %s",
				    rd->name, rd->line, of, which + 1, gf->q,
				    form == NBLDPC_FORM_POWER ? "power" : "vector", vlo, vhi,
				    fec__text_range_miss(v, vlo));
			if (is_val)
				val[got / 2] = form == NBLDPC_FORM_POWER ? gf->exp[v] : (uint8_t)v;
			else
				idx[got / 2] = (uint32_t)(v - 1);
		}
		got++;
	}
	if (r < 0)
		return r;
	if (got != 2 * deg)
		return fec__err(rd->err, rd->errlen, FEC_EINVAL,
		                "%s:%u: %s %u: expected %u (%s, value) pairs as its degree says "
		                "(line %u), found %u number%s",
		                rd->name, rd->line, of, which + 1, deg, idx_what,
		                *of == 'c' ? 3u : 4u, got, got == 1 ? "" : "s");
	return 0;
}

int nbldpc_alist_parse(const char *text, const char *name, enum nbldpc_form form, unsigned poly,
                       struct nbldpc_code **out, char *err, size_t errlen)
{
	struct fec__text_reader rd;
	struct nbldpc_code *c;
	long hdr[3], maxd[2], *coldeg = NULL, *rowdeg = NULL;
	uint32_t *cidx = NULL, p = 0, nnz_c = 0;
	uint8_t *cval = NULL;
	int ret;

	*out = NULL;
	fec__text_init(&rd, text, name, err, errlen);
	ret = fec__text_line_nums(&rd, hdr, 3, 1, NBLDPC_N_MAX, "3 numbers 'N M q'",
	                          "a number in 1..65536");
	if (ret)
		return ret;
	while (p <= 8 && (1L << p) != hdr[2])
		p++;
	if (p < 1 || p > 8)
		return fec__err(err, errlen, FEC_EINVAL,
		                "%s:%u: number 3: expected q a power of 2 in 2..256, found %s",
		                name, rd.line, hdr[2] > 256 ? "a larger number" : "another number");
	if (hdr[1] >= hdr[0])
		return fec__err(err, errlen, FEC_EINVAL,
		                "%s:%u: expected M (number 2) below N (number 1), found it larger",
		                name, rd.line);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FEC_ENOMEM;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->n = (uint32_t)hdr[0];
	c->m = (uint32_t)hdr[1];
	ret = nbldpc_gf_init(&c->gf, p, poly, err, errlen);
	if (ret)
		goto out;
	ret = fec__text_line_nums(&rd, maxd, 2, 1, NBLDPC_DEG_MAX,
	                          "2 numbers 'dv_max dc_max' (largest column and row degrees)",
	                          "a degree in 1..64");
	if (ret)
		goto out;
	coldeg = malloc(c->n * sizeof(long));
	rowdeg = malloc(c->m * sizeof(long));
	if (!coldeg || !rowdeg) {
		ret = -FEC_ENOMEM;
		goto out;
	}
	ret = fec__text_line_nums(&rd, coldeg, c->n, 1, maxd[0], "N column degrees",
	                          "a degree in 1..dv_max (line 2)");
	if (ret)
		goto out;
	ret = fec__text_line_nums(&rd, rowdeg, c->m, 1, maxd[1], "M row degrees",
	                          "a degree in 1..dc_max (line 2)");
	if (ret)
		goto out;
	for (uint32_t v = 0; v < c->n; v++)
		nnz_c += (uint32_t)coldeg[v];
	c->row_start = malloc(((size_t)c->m + 1) * sizeof(uint32_t));
	c->row_start[0] = 0;
	for (uint32_t r = 0; r < c->m; r++)
		c->row_start[r + 1] = c->row_start[r] + (uint32_t)rowdeg[r];
	c->nnz = c->row_start[c->m];
	if (c->nnz != nnz_c) {
		ret =
		    fec__err(err, errlen, FEC_EINVAL,
		             "%s:4: expected row degrees summing to the column degrees' sum (line "
		             "3: %u), found %u",
		             name, nnz_c, c->nnz);
		goto out;
	}
	c->row_col = malloc((size_t)c->nnz * sizeof(uint32_t) + 4);
	c->row_val = malloc((size_t)c->nnz + 1);
	cidx = malloc((size_t)c->nnz * sizeof(uint32_t) + 4);
	cval = malloc((size_t)c->nnz + 1);
	if (!c->row_col || !c->row_val || !cidx || !cval) {
		ret = -FEC_ENOMEM;
		goto out;
	}
	for (uint32_t v = 0, e = 0; v < c->n; e += (uint32_t)coldeg[v], v++) {
		ret = alist_pairs(&rd, &c->gf, form, (uint32_t)coldeg[v], c->m, "row", "column", v,
		                  cidx + e, cval + e);
		if (ret)
			goto out;
	}
	for (uint32_t r = 0; r < c->m; r++) {
		const uint32_t s = c->row_start[r];

		ret = alist_pairs(&rd, &c->gf, form, (uint32_t)rowdeg[r], c->n, "column", "row", r,
		                  c->row_col + s, c->row_val + s);
		if (ret)
			goto out;
		for (uint32_t a = s; a < c->row_start[r + 1]; a++)
			for (uint32_t b = s; b < a; b++)
				if (c->row_col[a] == c->row_col[b]) {
					ret = fec__err(err, errlen, FEC_EINVAL,
					               "%s:%u: row %u: expected each column once, "
					               "found one twice",
					               name, rd.line, r + 1);
					goto out;
				}
	}
	/* Every (row, value) of the column part must be in the row part, with the same value. */
	for (uint32_t v = 0, e = 0; v < c->n; v++)
		for (uint32_t i = 0; i < (uint32_t)coldeg[v]; i++, e++) {
			const uint32_t r = cidx[e];
			bool found = false;

			for (uint32_t a = c->row_start[r]; a < c->row_start[r + 1]; a++)
				found |= c->row_col[a] == v && c->row_val[a] == cval[e];
			if (!found) {
				ret =
				    fec__err(err, errlen, FEC_EINVAL,
				             "%s: column %u: expected its entry in row %u in that "
				             "row's list with the same value, found %s",
				             name, v + 1, r + 1, "it missing or different");
				goto out;
			}
		}
	ret = nbldpc__code_finish(c, err, errlen);
out:
	free(coldeg);
	free(rowdeg);
	free(cidx);
	free(cval);
	if (ret)
		nbldpc_code_free(c);
	else
		*out = c;
	return ret;
}

int nbldpc_code_load(const struct nbldpc_spec *s, struct nbldpc_code **out, char *err,
                     size_t errlen)
{
	char *text = NULL;
	int ret;

	if (!strcmp(s->code, "regular"))
		return nbldpc_regular_build(s->gen_n, s->gen_dv, s->gen_dc, s->q, s->poly, s->seed,
		                            out, err, errlen);
	if (!strcmp(s->code, "irregular"))
		return nbldpc_irregular_build(s->gen_n, s->q, s->poly, s->seed, out, err, errlen);
	ret = fec__code_file_read(s->code, &text, err, errlen);
	if (ret)
		return ret;
	ret = nbldpc_alist_parse(text, s->code, s->form, s->poly, out, err, errlen);
	free(text);
	return ret;
}
