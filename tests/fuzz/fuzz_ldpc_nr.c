/*
 * Fuzz harness: the 3GPP TS 38.212 base-graph tables (ldpc_nr_parse on 5G_bg1.csv /
 * 5G_bg2.csv text: `row;column;8 shifts`). The last input byte picks the base graph (its low
 * bit) and the lifting size (the rest: one of the sizes up to 32, so that every set index is
 * reached and each input stays quick); the rest is the table's text.
 *
 * Properties: as for every code file (fuzz_ldpc.h); a table that parses has the base graph's
 * shape (46 x 68 or 42 x 52 blocks of z) with its first 2z columns punctured.
 */
#include "fuzz.h"
#include "fuzz_ldpc.h"

static const uint32_t lifting_sizes[] = {2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                         14, 15, 16, 18, 20, 22, 24, 26, 28, 30, 32};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ldpc_code *code;
	char err[512];

	if (size < 1)
		return 0;
	int bg = 1 + (data[size - 1] & 1);
	uint32_t z = lifting_sizes[(data[size - 1] >> 1) %
	                           (sizeof(lifting_sizes) / sizeof(lifting_sizes[0]))];
	char *text = fuzz_text(data, size - 1);

	FUZZ_CHECK(ldpc_nr_lifting_valid(z), "z=%u", z);
	fuzz_build_deadline();
	int rc = ldpc_nr_parse(text, "fuzz.csv", bg, z, &code, err, sizeof(err));
	if (rc == 0)
		FUZZ_CHECK(code->h.n == (bg == 1 ? 68u : 52u) * z &&
		               code->h.m == (bg == 1 ? 46u : 42u) * z && code->punct == 2 * z,
		           "base graph %d z=%u: %u x %u, %u punctured", bg, z, code->h.m, code->h.n,
		           code->punct);
	fuzz_ldpc_check_result(rc, code, err);
	free(text);
	return 0;
}
