/*
 * LDPC codes as data: the sparse parity-check matrix in both orientations built from an edge
 * list, loading a code by the name in its spec (file, 5G NR base graph or generator) and the
 * syndrome check. Files are found and read under the codec's rules for code files (fec.h,
 * codes_dir.c); which files a spec names is decided here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fec_impl.h"
#include "ldpc_code_impl.h"

int ldpc__err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -FEC_EINVAL;
}

static void matrix_free(struct ldpc_matrix *h)
{
	free(h->row_start);
	free(h->row_col);
	free(h->col_start);
	free(h->col_edge);
}

void ldpc_code_free(struct ldpc_code *code)
{
	if (!code)
		return;
	matrix_free(&code->h);
	free(code->info_cols);
	free(code->layer_start);
	free(code->layer_rows);
	ldpc__cyclic_free(code->cyc);
	ldpc__enc_plan_free(code->enc);
	free(code);
}

int ldpc__code_from_edges(const char *name, uint32_t n, uint32_t m, const uint32_t *erow,
                          const uint32_t *ecol, size_t nnz, struct ldpc_code **out, char *err,
                          size_t errlen)
{
	struct ldpc_code *c;
	struct ldpc_matrix *h;
	uint32_t *fill;
	int ret;

	if (n == 0 || m == 0 || n > LDPC_N_MAX || m > LDPC_N_MAX)
		return ldpc__err(err, errlen, "%s: expected 1..%u columns and rows, found %s", name,
		                 LDPC_N_MAX, n == 0 || m == 0 ? "none" : "more");
	if (nnz > (size_t)LDPC_DEG_MAX * n)
		return ldpc__err(err, errlen,
		                 "%s: more entries than its columns hold (%u each at most)", name,
		                 LDPC_DEG_MAX);
	for (size_t i = 0; i < nnz; i++)
		if (erow[i] >= m || ecol[i] >= n)
			return ldpc__err(err, errlen, "%s: an entry lies outside the matrix", name);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FEC_ENOMEM;
	h = &c->h;
	h->n = n;
	h->m = m;
	h->nnz = (uint32_t)nnz;
	snprintf(c->name, sizeof(c->name), "%s",
	         strrchr(name, '/') ? strrchr(name, '/') + 1 : name);
	h->row_start = calloc((size_t)m + 1, sizeof(uint32_t));
	h->row_col = malloc((nnz ? nnz : 1) * sizeof(uint32_t));
	h->col_start = calloc((size_t)n + 1, sizeof(uint32_t));
	h->col_edge = malloc((nnz ? nnz : 1) * sizeof(uint32_t));
	fill = calloc((size_t)(m > n ? m : n) + 1, sizeof(uint32_t));
	ret = -FEC_ENOMEM;
	if (!h->row_start || !h->row_col || !h->col_start || !h->col_edge || !fill)
		goto out_free_code;

	/* Rows by counting sort, then each short row sorted by column. */
	for (size_t i = 0; i < nnz; i++)
		h->row_start[erow[i] + 1]++;
	for (uint32_t r = 0; r < m; r++)
		h->row_start[r + 1] += h->row_start[r];
	for (size_t i = 0; i < nnz; i++)
		h->row_col[h->row_start[erow[i]] + fill[erow[i]]++] = ecol[i];
	for (uint32_t r = 0; r < m; r++) {
		uint32_t *rc = h->row_col + h->row_start[r];
		uint32_t deg = h->row_start[r + 1] - h->row_start[r];

		if (deg > LDPC_DEG_MAX) {
			ret = ldpc__err(err, errlen, "%s: a row has more than %u entries", name,
			                LDPC_DEG_MAX);
			goto out_free_code;
		}
		for (uint32_t i = 1; i < deg; i++) {
			uint32_t v = rc[i], j = i;

			while (j > 0 && rc[j - 1] > v) {
				rc[j] = rc[j - 1];
				j--;
			}
			rc[j] = v;
		}
		for (uint32_t i = 1; i < deg; i++)
			if (rc[i] == rc[i - 1]) {
				ret = ldpc__err(err, errlen, "%s: an entry is given twice", name);
				goto out_free_code;
			}
	}
	/* Columns: walking edges in order lists each column's edges by increasing row. */
	for (uint32_t e = 0; e < nnz; e++)
		h->col_start[h->row_col[e] + 1]++;
	for (uint32_t v = 0; v < n; v++) {
		if (h->col_start[v + 1] > LDPC_DEG_MAX) {
			ret = ldpc__err(err, errlen, "%s: a column has more than %u entries", name,
			                LDPC_DEG_MAX);
			goto out_free_code;
		}
		h->col_start[v + 1] += h->col_start[v];
	}
	memset(fill, 0, ((size_t)(m > n ? m : n) + 1) * sizeof(uint32_t));
	for (uint32_t e = 0; e < nnz; e++) {
		uint32_t v = h->row_col[e];

		h->col_edge[h->col_start[v] + fill[v]++] = e;
	}
	free(fill);
	*out = c;
	return 0;

out_free_code:
	free(fill);
	ldpc_code_free(c);
	return ret;
}

int ldpc__code_finish(struct ldpc_code *c, const uint32_t *parity_pref, char *err, size_t errlen)
{
	const struct ldpc_matrix *h = &c->h;
	int ret;

	c->max_row_deg = c->max_col_deg = 0;
	for (uint32_t r = 0; r < h->m; r++)
		if (h->row_start[r + 1] - h->row_start[r] > c->max_row_deg)
			c->max_row_deg = h->row_start[r + 1] - h->row_start[r];
	for (uint32_t v = 0; v < h->n; v++)
		if (h->col_start[v + 1] - h->col_start[v] > c->max_col_deg)
			c->max_col_deg = h->col_start[v + 1] - h->col_start[v];
	if (c->punct >= h->n)
		return ldpc__err(err, errlen, "%s: expected some columns sent, found all punctured",
		                 c->name);
	c->n_tx = h->n - c->punct;
	ret = ldpc__layers_build(c);
	if (ret)
		return ret;
	return ldpc__enc_plan_build(c, parity_pref, err, errlen);
}

bool ldpc_codeword_valid(const struct ldpc_code *code, const uint8_t *cw)
{
	const struct ldpc_matrix *h = &code->h;

	for (uint32_t r = 0; r < h->m; r++) {
		uint8_t s = 0;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
			s ^= cw[h->row_col[e]];
		if (s & 1)
			return false;
	}
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* A file named by the spec, found by the path policy (codes_dir.c). */
static int load_file(const char *code, uint32_t z, struct ldpc_code **out, char *err, size_t errlen)
{
	char *text;
	int ret;

	ret = fec__code_file_read(code, &text, err, errlen);
	if (ret)
		return ret;
	if (ends_with(code, ".qc"))
		ret = ldpc_qc_parse(text, code, z, out, err, errlen);
	else
		ret = ldpc_alist_parse(text, code, out, err, errlen);
	free(text);
	return ret;
}

static int load_nr(int bg, uint32_t z, struct ldpc_code **out, char *err, size_t errlen)
{
	char file[32], name[32];
	char *text;
	int ret;

	snprintf(name, sizeof(name), "nr-bg%d", bg);
	if (!ldpc_nr_lifting_valid(z))
		return ldpc__err(err, errlen,
		                 "%s: z=%u is not a lifting size of 38.212 table 5.3.2-1 "
		                 "(a * 2^j, a in 2,3,5,7,9,11,13,15, up to 384)",
		                 name, z);
	snprintf(file, sizeof(file), "5G_bg%d.csv", bg);
	ret = fec__code_file_read(file, &text, err, errlen);
	if (ret)
		return ret;
	ret = ldpc_nr_parse(text, file, bg, z, out, err, errlen);
	free(text);
	return ret;
}

int ldpc_code_load(const struct ldpc_spec *spec, struct ldpc_code **out, char *err, size_t errlen)
{
	const char *code = spec->code;

	*out = NULL;
	if (memchr(code, '\0', LDPC_CODE_TEXT_MAX) == NULL || code[0] == '\0')
		return ldpc__err(err, errlen, "ldpc: no code named");
	if (strcmp(code, "nr-bg1") == 0)
		return load_nr(1, spec->z, out, err, errlen);
	if (strcmp(code, "nr-bg2") == 0)
		return load_nr(2, spec->z, out, err, errlen);
	if (strcmp(code, "regular") == 0)
		return ldpc__gen_regular(spec->gen_n, spec->gen_dv, spec->gen_dc, spec->seed, out,
		                         err, errlen);
	if (strcmp(code, "peg") == 0)
		return ldpc__gen_peg(spec->gen_n, spec->gen_dv, spec->gen_dc, spec->seed, out, err,
		                     errlen);
	return load_file(code, spec->z, out, err, errlen);
}
