/*
 * Fuzz harness: non-binary LDPC parity-check matrices in the non-binary alist format
 * (nbldpc_alist_parse, power form), the text of a code file as an nbldpc channel's "code" names
 * it.
 *
 * Properties: an error comes with a message and no code, and is never "out of memory"; a matrix
 * that parses is consistent: sizes within NBLDPC_N_MAX, q a power of 2 up to 256, every edge
 * inside the matrix with a nonzero coefficient, rows and columns listing the same edges, k at
 * most n, and the systematic encoder's codewords satisfy every check.
 */
#include "fuzz.h"
#include "nbldpc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_code(const struct nbldpc_code *c)
{
	uint8_t *info, *cw;
	uint32_t seed = c->nnz;

	FUZZ_CHECK(c->n >= 1 && c->n <= NBLDPC_N_MAX && c->m < c->n && c->gf.q >= 2 &&
	               c->gf.q <= 256 && (c->gf.q & (c->gf.q - 1)) == 0,
	           "sizes %u x %u over GF(%u)", c->m, c->n, c->gf.q);
	FUZZ_CHECK(c->row_start[0] == 0 && c->row_start[c->m] == c->nnz && c->col_start[0] == 0 &&
	               c->col_start[c->n] == c->nnz,
	           "edge counts");
	for (uint32_t e = 0; e < c->nnz; e++)
		FUZZ_CHECK(c->row_col[e] < c->n && c->row_val[e] != 0 && c->row_val[e] < c->gf.q,
		           "edge %u", e);
	for (uint32_t v = 0; v < c->n; v++)
		for (uint32_t i = c->col_start[v]; i < c->col_start[v + 1]; i++)
			FUZZ_CHECK(c->col_edge[i] < c->nnz && c->row_col[c->col_edge[i]] == v,
			           "column %u lists edge %u of another column", v, c->col_edge[i]);
	FUZZ_CHECK(c->k <= c->n && c->k + c->rank == c->n, "k %u rank %u n %u", c->k, c->rank,
	           c->n);
	info = malloc(c->k + 1);
	cw = malloc(c->n + 1);
	if (!info || !cw)
		abort();
	for (uint32_t i = 0; i < c->k; i++) {
		seed = seed * 1664525u + 1013904223u;
		info[i] = (uint8_t)((seed >> 16) % c->gf.q);
	}
	nbldpc_encode(c, info, cw);
	FUZZ_CHECK(nbldpc_codeword_valid(c, cw), "an encoded word fails H");
	free(info);
	free(cw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nbldpc_code *code = NULL;
	char *text = fuzz_text(data, size), err[512] = "";

	fuzz_build_deadline();
	int rc =
	    nbldpc_alist_parse(text, "fuzz.alist", NBLDPC_FORM_POWER, 0, &code, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(!code && err[0] && rc != -FEC_ENOMEM, "error %d without a message", rc);
	} else {
		FUZZ_CHECK(code != NULL, "no code");
		check_code(code);
	}
	nbldpc_code_free(code);
	free(text);
	return 0;
}
