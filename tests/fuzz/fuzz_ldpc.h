/*
 * What the LDPC code-file harnesses check of a parser's result: an error is one of the parser's
 * documented ones with a message and no code (never "out of memory": no input of kilobytes may
 * ask for more memory than a machine has); a code is a consistent matrix (sizes, edges within
 * it, rows and columns listing the same edges, the information set) whose systematic encoder
 * gives codewords that satisfy every check.
 */
#ifndef FECD_FUZZ_LDPC_H
#define FECD_FUZZ_LDPC_H

#include "fuzz.h"
#include "ldpc.h"

static inline void fuzz_ldpc_check_matrix(const struct ldpc_code *c)
{
	const struct ldpc_matrix *h = &c->h;

	FUZZ_CHECK(h->n >= 1 && h->n <= LDPC_N_MAX && h->m >= 1 && h->m <= LDPC_N_MAX,
	           "sizes %u x %u", h->n, h->m);
	FUZZ_CHECK(h->row_start[0] == 0 && h->row_start[h->m] == h->nnz && h->col_start[0] == 0 &&
	               h->col_start[h->n] == h->nnz,
	           "edge counts");
	for (uint32_t r = 0; r < h->m; r++) {
		FUZZ_CHECK(h->row_start[r] <= h->row_start[r + 1], "row %u", r);
		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
			FUZZ_CHECK(h->row_col[e] < h->n, "edge %u column %u", e, h->row_col[e]);
	}
	for (uint32_t v = 0; v < h->n; v++) {
		FUZZ_CHECK(h->col_start[v] <= h->col_start[v + 1], "column %u", v);
		for (uint32_t i = h->col_start[v]; i < h->col_start[v + 1]; i++)
			FUZZ_CHECK(h->col_edge[i] < h->nnz && h->row_col[h->col_edge[i]] == v,
			           "column %u lists edge %u of another column", v, h->col_edge[i]);
	}
	FUZZ_CHECK(c->k <= h->n && c->punct <= h->n && c->n_tx == h->n - c->punct,
	           "k %u punct %u n_tx %u of n %u", c->k, c->punct, c->n_tx, h->n);
	for (uint32_t i = 0; i < c->k; i++)
		FUZZ_CHECK(c->info_cols[i] < h->n &&
		               (i == 0 || c->info_cols[i] > c->info_cols[i - 1]),
		           "information column %u", i);
}

/* A codeword of an information word that depends on seed, checked against every row. */
static inline void fuzz_ldpc_check_encoder(struct ldpc_code *c, uint32_t seed)
{
	uint8_t *info = malloc(c->k ? c->k : 1), *cw = malloc(c->h.n);

	if (!info || !cw)
		abort();
	for (uint32_t i = 0; i < c->k; i++) {
		seed = seed * 1664525u + 1013904223u;
		info[i] = (uint8_t)(seed >> 31);
	}
	FUZZ_CHECK(ldpc_encode(c, info, cw) == 0, "encoding failed");
	FUZZ_CHECK(ldpc_codeword_valid(c, cw), "the encoder's codeword fails a check");
	for (uint32_t i = 0; i < c->k; i++)
		FUZZ_CHECK(cw[c->info_cols[i]] == info[i], "information bit %u not in place", i);
	free(info);
	free(cw);
}

static inline void fuzz_ldpc_check_result(int rc, struct ldpc_code *code, const char *err)
{
	if (rc) {
		/* No ENOMEM: an input of at most kilobytes must not make a parser ask for more
		 * memory than the machine has. */
		FUZZ_CHECK(rc == -FEC_EINVAL || rc == -FEC_ETIME, "parser returned %d (%s)", rc,
		           fec_strerror(rc));
		FUZZ_CHECK(code == NULL, "a code with an error");
		FUZZ_CHECK(rc != -FEC_EINVAL || err[0], "an error without a message");
		return;
	}
	FUZZ_CHECK(code != NULL, "no code and no error");
	fuzz_ldpc_check_matrix(code);
	fuzz_ldpc_check_encoder(code, code->h.nnz);
	ldpc_code_free(code);
}

#endif
