/*
 * Fuzz harness: TVB codebook files of the ids family (ids_code_parse), the text of a file as an
 * ids channel's "code" names it.
 *
 * Properties: an error comes with a message and no code, and is never "out of memory"; a code
 * that parses has sizes within the family's bounds (N 1..4096, q 2..256, n 1..16, 2^n >= q),
 * every codeword below 2^n, each position's q codewords distinct, and encodes a message into
 * n N bits of 0 and 1.
 */
#include "fuzz.h"
#include "ids_code.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_code(const struct ids_code *c)
{
	uint8_t *sym, *bits;

	FUZZ_CHECK(c->N >= 1 && c->N <= IDS_N_MAX && c->q >= 2 && c->q <= IDS_Q_MAX && c->n >= 1 &&
	               c->n <= IDS_NBITS_MAX && (1u << c->n) >= c->q,
	           "sizes N %u q %u n %u", c->N, c->q, c->n);
	static uint8_t seen[1u << IDS_NBITS_MAX];

	for (uint32_t i = 0; i < c->N; i++) {
		const uint16_t *w = c->cw + (size_t)i * c->q;

		for (uint32_t a = 0; a < c->q; a++) {
			FUZZ_CHECK(w[a] < (1u << c->n), "codeword %u of %u too wide", a, i);
			FUZZ_CHECK(!seen[w[a]], "position %u repeats a codeword", i);
			seen[w[a]] = 1;
		}
		for (uint32_t a = 0; a < c->q; a++)
			seen[w[a]] = 0;
	}
	sym = malloc(c->N);
	bits = malloc((size_t)c->N * c->n);
	if (!sym || !bits)
		abort();
	for (uint32_t i = 0; i < c->N; i++)
		sym[i] = (uint8_t)((i * 7u + 3u) % c->q);
	ids_code_encode(c, sym, bits);
	for (size_t k = 0; k < (size_t)c->N * c->n; k++)
		FUZZ_CHECK(bits[k] <= 1, "bit %zu is %u", k, bits[k]);
	free(sym);
	free(bits);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ids_code *code = NULL;
	char *text = fuzz_text(data, size), err[512] = "";

	fuzz_build_deadline();
	int rc = ids_code_parse(text, "fuzz.book", &code, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(!code && err[0] && rc != -FEC_ENOMEM, "error %d without a message", rc);
	} else {
		FUZZ_CHECK(code != NULL, "no code");
		check_code(code);
	}
	ids_code_free(code);
	free(text);
	return 0;
}
