/*
 * The bad-file table: malformed alist, .qc and 38.212 base-graph texts, each of which must fail
 * with -FEC_EINVAL and a message naming the file, the 1-based line and what was expected there;
 * and the 38.212 lifting sizes.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "ldpc.h"

/* ---- the bad-file table ---- */

enum kind { ALIST, QC, NR };

struct bad_case {
	enum kind kind;
	uint32_t z;
	int line;         /* 0: the message names no line */
	const char *want; /* a piece of the message */
	const char *text;
};

#define ALIST_HEAD "6 3\n2 4\n1 1 2 2 2 2\n3 3 4\n"
#define ALIST_COLS "1 0\n2 0\n1 3\n1 3\n2 3\n2 3\n"
#define ALIST_ROWS "1 3 4\n2 5 6\n3 4 5 6\n"
#define NR_HEAD    "Row index;Column index;Set index ;;;;;;;\n;;0;1;2;3;4;5;6;7\n"

static const struct bad_case bad_cases[] = {
    {ALIST, 0, 1, "found end of file", ""},
    {ALIST, 0, 1, "expected 2 sizes", "6 3 1\n"},
    {ALIST, 0, 1, "in 1..1048576, found 2000000", "2000000 3\n2 4\n"},
    {ALIST, 0, 2, "in 1..256, found 300", "6 3\n2 300\n"},
    {ALIST, 0, 3, "column 3 has weight 3; expected 1..2", "6 3\n2 4\n1 1 3 2 2 2\n3 3 4\n"},
    {ALIST, 0, 3, "expected 6 column weights, found 5", "6 3\n2 4\n1 1 2 2 2\n3 3 4\n"},
    {ALIST, 0, 4, "expected a number, found 'x'", "6 3\n2 4\n1 1 2 2 2 2\n3 x 4\n"},
    {ALIST, 0, 4, "row weights sum to 9 but column weights to 10",
     "6 3\n2 4\n1 1 2 2 2 2\n3 3 3\n"},
    {ALIST, 0, 7, "expected 2 row indices for column 3, found 1",
     ALIST_HEAD "1 0\n2 0\n1 0\n1 3\n2 3\n2 3\n" ALIST_ROWS},
    {ALIST, 0, 6, "row index 4 for column 2 out of range 1..3",
     ALIST_HEAD "1 0\n4 0\n1 3\n1 3\n2 3\n2 3\n" ALIST_ROWS},
    {ALIST, 0, 7, "row 1 listed twice for column 3",
     ALIST_HEAD "1 0\n2 0\n1 1\n1 3\n2 3\n2 3\n" ALIST_ROWS},
    {ALIST, 0, 10, "expected 2 row indices for column 6, found end of file",
     ALIST_HEAD "1 0\n2 0\n1 3\n1 3\n2 3\n"},
    {ALIST, 0, 12, "expected 3 column indices for row 2, found end of file",
     ALIST_HEAD ALIST_COLS "1 3 4\n"},
    {ALIST, 0, 11, "row 1 and column 2 disagree", ALIST_HEAD ALIST_COLS "1 2 4\n2 5 6\n"},
    {ALIST, 0, 13, "expected 4 column indices for row 3, found 3",
     ALIST_HEAD ALIST_COLS "1 3 4\n2 5 6\n3 4 5 0\n"},
    /* a comment line counts in the numbering; zeros are padding */
    {ALIST, 0, 8, "expected 2 row indices for column 3, found 1",
     "# a comment\n" ALIST_HEAD "1 0\n2 0\n0 1 0\n1 3\n2 3\n2 3\n" ALIST_ROWS},
    {QC, 0, 2, "in -1..3, found 4", "3 1 4\n0 4 -1\n"},
    {QC, 0, 3, "expected 3 shifts (-1 = zero block), found 2", "3 2 4\n0 1 -1\n0 1\n"},
    {QC, 0, 3, "found end of file", "3 2 4\n0 1 2\n"},
    {QC, 0, 1, "expected 3 sizes", "3 2\n0 1 2\n"},
    {QC, 0, 3, "puncturing flags (1 sent, 0 not) in 0..1, found 2", "3 1 4\n0 1 2\n1 2 1\n"},
    {QC, 0, 4, "expected end of file", "3 1 4\n0 1 2\n1 0 1\n7\n"},
    {QC, 0, 2, "expected a number, found '1.5'", "3 1 4\n0 1.5 2\n"},
    {NR, 17, 0, "z=17 is not a lifting size", NR_HEAD "0;0;1;1;1;1;1;1;1;1\n"},
    {NR, 400, 0, "z=400 is not a lifting size", NR_HEAD "0;0;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 4, "expected a shift value, found 'x'",
     NR_HEAD "0;0;250;307;73;223;211;294;0;135\n;1;69;19;15;16;x;118;0;227\n"},
    {NR, 8, 3, "column index in 0..67, found 70", NR_HEAD "0;70;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 3, "row index in 0..45, found 46", NR_HEAD "46;1;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 3, "shift value in 0..383, found 384", NR_HEAD "0;1;1;1;1;1;1;1;1;384\n"},
    {NR, 8, 4, "expected 8 shift values (sets 0..7), found 7",
     NR_HEAD "0;0;1;1;1;1;1;1;1;1\n;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 5, "row 0 column 1 given twice",
     NR_HEAD "0;0;1;1;1;1;1;1;1;1\n;1;1;1;1;1;1;1;1;1\n;1;2;2;2;2;2;2;2;2\n"},
    {NR, 8, 3, "expected a row index on the first row", NR_HEAD ";1;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 5, "expected 46 base-graph rows, found 1",
     NR_HEAD "0;0;1;1;1;1;1;1;1;1\n;1;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 4, "expected rows in increasing order",
     NR_HEAD "1;0;1;1;1;1;1;1;1;1\n0;1;1;1;1;1;1;1;1;1\n"},
};

static int parse(enum kind kind, uint32_t z, const char *text, const char *name,
                 struct ldpc_code **c, char *err, size_t errlen)
{
	switch (kind) {
	case ALIST:
		return ldpc_alist_parse(text, name, c, err, errlen);
	case QC:
		return ldpc_qc_parse(text, name, z, c, err, errlen);
	default:
		return ldpc_nr_parse(text, name, 1, z, c, err, errlen);
	}
}

static void test_bad_files(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];
		const char *name = b->kind == ALIST ? "t.alist" : b->kind == QC ? "t.qc" : "t.csv";
		struct ldpc_code *c = NULL;
		char err[256] = "", want_at[64];
		int ret = parse(b->kind, b->z, b->text, name, &c, err, sizeof(err));

		if (b->line)
			snprintf(want_at, sizeof(want_at), "%s:%d: ", name, b->line);
		else
			snprintf(want_at, sizeof(want_at), "%s: ", name);
		CHECK(ret == -FEC_EINVAL, "case %zu: returned %d (%s)", i, ret, err);
		CHECK(c == NULL, "case %zu: a code came back", i);
		CHECK(strncmp(err, want_at, strlen(want_at)) == 0,
		      "case %zu: '%s' does not start '%s'", i, err, want_at);
		CHECK(strstr(err, b->want) != NULL, "case %zu: '%s' does not say '%s'", i, err,
		      b->want);
		ldpc_code_free(c);
	}
}

static void test_lifting_sizes(void)
{
	uint32_t count = 0;

	for (uint32_t z = 0; z <= 1000; z++)
		count += ldpc_nr_lifting_valid(z);
	CHECK(count == 51, "%u lifting sizes, want 51", count);
	CHECK(ldpc_nr_lifting_valid(2) && ldpc_nr_lifting_valid(15) && ldpc_nr_lifting_valid(384) &&
	          ldpc_nr_lifting_valid(208) && ldpc_nr_lifting_valid(352),
	      "lifting sizes 2, 15, 208, 352, 384");
	CHECK(!ldpc_nr_lifting_valid(1) && !ldpc_nr_lifting_valid(17) &&
	          !ldpc_nr_lifting_valid(416) && !ldpc_nr_lifting_valid(768),
	      "not lifting sizes 1, 17, 416, 768");
}

int main(void)
{
	test_bad_files();
	test_lifting_sizes();
	return check_done();
}
