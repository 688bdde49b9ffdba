/*
 * Fuzz harness: quasi-cyclic LDPC base matrices in .qc files (ldpc_qc_parse): `columns rows Z`,
 * the base matrix of circulant shifts, an optional puncturing line. The last input byte is the
 * channel's "z" parameter (0..255; 0 lifts by the file's own Z), the rest the file's text.
 *
 * Properties: as for every code file (fuzz_ldpc.h), and a lifted code's columns are a whole
 * number of z-column blocks.
 */
#include "fuzz.h"
#include "fuzz_ldpc.h"

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
	uint32_t z = data[size - 1];
	char *text = fuzz_text(data, size - 1);

	fuzz_build_deadline();
	int rc = ldpc_qc_parse(text, "fuzz.qc", z, &code, err, sizeof(err));
	if (rc == 0)
		FUZZ_CHECK(code->z && code->h.n % code->z == 0 && code->punct % code->z == 0 &&
		               (!z || code->z == z),
		           "lifting %u (asked %u) of %u columns", code->z, z, code->h.n);
	fuzz_ldpc_check_result(rc, code, err);
	free(text);
	return 0;
}
