/*
 * Fuzz harness: LDPC parity-check matrices in MacKay's alist format (ldpc_alist_parse), the text
 * of a code file as a channel's "code" names it.
 *
 * Properties: a matrix that parses is consistent: its sizes within LDPC_N_MAX, every edge inside
 * the matrix, row and column lists describing the same edges, k at most n, and the systematic
 * encoder's codewords satisfy every check.
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
	char *text = fuzz_text(data, size), err[512];

	fuzz_build_deadline();
	int rc = ldpc_alist_parse(text, "fuzz.alist", &code, err, sizeof(err));
	fuzz_ldpc_check_result(rc, code, err);
	free(text);
	return 0;
}
