/*
 * The bad-file table: malformed alist, .qc and 38.212 base-graph texts, each of which must fail
 * with -FEC_EINVAL and a message naming the file, the 1-based line and what was expected there,
 * quoting nothing of the file; texts that are no code at all (a password file, a key, binary
 * junk), read as every kind, likewise; and the 38.212 lifting sizes. Reading files and the
 * path policy are test_ldpc_files.c's.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "ldpc.h"

/* ---- the bad-file table ---- */

enum kind { ALIST, QC, NR };

/* No message may quote a file: the table's bad tokens carry this marker, and no number of three
 * or more characters from a text may come back either. */
#define MARK "Zq7mark"

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
    {ALIST, 0, 1, "expected 2 sizes 'N M' (columns rows), found end of file", ""},
    {ALIST, 0, 1, "expected 2 sizes 'N M' (columns rows), found 3 numbers", "6 3 1\n"},
    {ALIST, 0, 1, "number 1: expected a size in 1..1048576, found a larger number",
     "2000000 3\n2 4\n"},
    {ALIST, 0, 1, "number 2: expected a size in 1..1048576, found a negative number",
     "6 -300\n2 4\n"},
    {ALIST, 0, 2, "number 2: expected a weight in 1..256, found a larger number", "6 3\n2 300\n"},
    {ALIST, 0, 3,
     "column 3: expected a weight from 1 to the maximum column weight on line 2, found a "
     "larger number",
     "6 3\n2 4\n1 1 3 2 2 2\n3 3 4\n"},
    {ALIST, 0, 3, "expected a weight for each column (N on line 1), found 5 numbers",
     "6 3\n2 4\n1 1 2 2 2\n3 3 4\n"},
    {ALIST, 0, 4, "expected a number, found a word", "6 3\n2 4\n1 1 2 2 2 2\n3 " MARK " 4\n"},
    {ALIST, 0, 4, "expected a number, found a malformed number",
     "6 3\n2 4\n1 1 2 2 2 2\n3 3" MARK " 4\n"},
    {ALIST, 0, 4, "expected a number, found a number too large",
     "6 3\n2 4\n1 1 2 2 2 2\n3 123456789012 4\n"},
    {ALIST, 0, 4, "expected a number, found something other than a number",
     "6 3\n2 4\n1 1 2 2 2 2\n3 :" MARK ": 4\n"},
    {ALIST, 0, 4,
     "expected row weights with the same sum as the column weights on line 3, found a "
     "different sum",
     "6 3\n2 4\n1 1 2 2 2 2\n3 3 3\n"},
    {ALIST, 0, 7, "column 3: expected as many row indices as its weight on line 3, found fewer",
     ALIST_HEAD "1 0\n2 0\n1 0\n1 3\n2 3\n2 3\n" ALIST_ROWS},
    {ALIST, 0, 6, "column 2: expected row indices in 1..M (line 1) or 0, found a larger number",
     ALIST_HEAD "1 0\n777 0\n1 3\n1 3\n2 3\n2 3\n" ALIST_ROWS},
    {ALIST, 0, 7, "column 3: expected each row once, found one twice",
     ALIST_HEAD "1 0\n2 0\n1 1\n1 3\n2 3\n2 3\n" ALIST_ROWS},
    {ALIST, 0, 10, "expected the row indices of column 6, found end of file",
     ALIST_HEAD "1 0\n2 0\n1 3\n1 3\n2 3\n"},
    {ALIST, 0, 12, "expected the column indices of row 2, found end of file",
     ALIST_HEAD ALIST_COLS "1 3 4\n"},
    {ALIST, 0, 11, "row 1: this line lists a column whose list does not name row 1",
     ALIST_HEAD ALIST_COLS "1 2 4\n2 5 6\n"},
    {ALIST, 0, 11, "row 1: column 3 lists it but this line does not list column 3",
     ALIST_HEAD ALIST_COLS "1 4 5\n2 5 6\n"},
    {ALIST, 0, 13, "row 3: expected as many column indices as its weight on line 4, found fewer",
     ALIST_HEAD ALIST_COLS "1 3 4\n2 5 6\n3 4 5 0\n"},
    /* a comment line counts in the numbering; zeros are padding */
    {ALIST, 0, 8, "column 3: expected as many row indices as its weight on line 4, found fewer",
     "# a comment\n" ALIST_HEAD "1 0\n2 0\n0 1 0\n1 3\n2 3\n2 3\n" ALIST_ROWS},
    {QC, 0, 2,
     "number 2: expected a shift in -1..Z-1 (Z on line 1; -1: a zero block), found a larger "
     "number",
     "3 1 4\n0 444 -1\n"},
    {QC, 0, 3, "expected a shift for each base column (columns on line 1), found 2 numbers",
     "3 2 4\n0 1 -1\n0 1\n"},
    {QC, 0, 3, "found end of file", "3 2 4\n0 1 2\n"},
    {QC, 0, 1, "expected 3 sizes 'columns rows Z', found 2 numbers", "3 2\n0 1 2\n"},
    {QC, 0, 1, "expected a base matrix that Z lifts to at most 1048576 columns and rows",
     "1000 1 2000\n"},
    {QC, 0, 3,
     "number 2: expected a puncturing flag, 1 (sent) or 0 (not sent), found a larger number",
     "3 1 4\n0 1 2\n1 222 1\n"},
    {QC, 0, 4, "expected end of file", "3 1 4\n0 1 2\n1 0 1\n7\n"},
    {QC, 0, 2, "expected a number, found a malformed number", "3 1 4\n0 1.5 2\n"},
    {NR, 17, 0, "z=17 is not a lifting size", NR_HEAD "0;0;1;1;1;1;1;1;1;1\n"},
    {NR, 400, 0, "z=400 is not a lifting size", NR_HEAD "0;0;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 4, "expected a shift value, found a word",
     NR_HEAD "0;0;250;307;73;223;211;294;0;135\n;1;69;19;15;16;" MARK ";118;0;227\n"},
    {NR, 8, 3, "expected a base-graph column index in 0..67, found a larger number",
     NR_HEAD "0;700;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 3, "expected a base-graph row index in 0..45, found a larger number",
     NR_HEAD "460;1;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 3, "expected a shift value in 0..383, found a larger number",
     NR_HEAD "0;1;1;1;1;1;1;1;1;384\n"},
    {NR, 8, 3, "expected a shift value in 0..383, found a negative number",
     NR_HEAD "0;1;1;1;1;1;1;1;1;-384\n"},
    {NR, 8, 4, "expected 8 shift values (sets 0..7), found 7",
     NR_HEAD "0;0;1;1;1;1;1;1;1;1\n;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 5, "expected a new row and column, found a pair given on an earlier line",
     NR_HEAD "0;0;1;1;1;1;1;1;1;1\n;1;1;1;1;1;1;1;1;1\n;1;2;2;2;2;2;2;2;2\n"},
    {NR, 8, 3, "expected a row index on the first row", NR_HEAD ";1;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 5, "expected 46 base-graph rows, found 1",
     NR_HEAD "0;0;1;1;1;1;1;1;1;1\n;1;1;1;1;1;1;1;1;1\n"},
    {NR, 8, 4, "expected rows in increasing order, found a smaller row index",
     NR_HEAD "1;0;1;1;1;1;1;1;1;1\n0;1;1;1;1;1;1;1;1;1\n"},
};

/* Texts that are no code at all - a password file, a key, a configuration, binary junk, numbers
 * that could be secrets - each parsed as every kind: errors that quote none of it. */
static const char *const not_codes[] = {
    "root:" MARK ":19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA" MARK "\n",
    "{\"token\": \"" MARK "\", \"port\": 7011}\n",
    "\x7f"
    "ELF\x02\x01\x01\x03" MARK "\xff\xfe\x80\n\x01\x02",
    "6 3\n2 4\n" MARK "\n",
    "6 3\n2 4\n1 1 2 2 2 2\n3 3 4\n1 " MARK "\n",
    "31337 42424\n",
    "31337 42424\n11 13\n",
    "3 1 4\n0 1 " MARK "\n",
    "0;0;" MARK ";1;1;1;1;1;1;1\n",
    "12;34;56;78;90;123;456;789;1011;1213\n",
    "",
    "\n\n\n",
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

/* The message starts "name:line: " (or "name: " when line is 0), and holds neither the marker
 * nor any number of three or more characters that the text holds. */
static void check_quotes_nothing(const char *what, const char *text, const char *err)
{
	CHECK(strstr(err, MARK) == NULL, "%s: the message quotes the file: %s", what, err);
	for (const char *p = text; *p;) {
		size_t n = strspn(p, "-+.0123456789");
		char tok[64];

		if (n >= 3 && n < sizeof(tok)) {
			snprintf(tok, sizeof(tok), "%.*s", (int)n, p);
			CHECK(strstr(err, tok) == NULL,
			      "%s: the message repeats '%s' from the file: %s", what, tok, err);
		}
		p += n ? n : 1;
	}
}

static void check_starts_with_place(const char *what, const char *name, const char *err)
{
	size_t len = strlen(name);
	const char *p = err + len;

	CHECK(strncmp(err, name, len) == 0 && *p == ':', "%s: '%s' does not start '%s:'", what, err,
	      name);
	if (strncmp(err, name, len) != 0 || *p != ':')
		return;
	p++;
	p += strspn(p, "0123456789");
	CHECK(p[0] == ':' && p[1] == ' ', "%s: '%s' does not start '%s:LINE: '", what, err, name);
}

static void test_bad_files(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];
		const char *name = b->kind == ALIST ? "t.alist" : b->kind == QC ? "t.qc" : "t.csv";
		struct ldpc_code *c = NULL;
		char err[256] = "", want_at[64], what[32];
		int ret = parse(b->kind, b->z, b->text, name, &c, err, sizeof(err));

		if (b->line)
			snprintf(want_at, sizeof(want_at), "%s:%d: ", name, b->line);
		else
			snprintf(want_at, sizeof(want_at), "%s: ", name);
		snprintf(what, sizeof(what), "case %zu", i);
		CHECK(ret == -FEC_EINVAL, "case %zu: returned %d (%s)", i, ret, err);
		CHECK(c == NULL, "case %zu: a code came back", i);
		CHECK(strncmp(err, want_at, strlen(want_at)) == 0,
		      "case %zu: '%s' does not start '%s'", i, err, want_at);
		CHECK(strstr(err, b->want) != NULL, "case %zu: '%s' does not say '%s'", i, err,
		      b->want);
		check_quotes_nothing(what, b->text, err);
		ldpc_code_free(c);
	}
}

static void test_not_codes(void)
{
	static const enum kind kinds[] = {ALIST, QC, NR};

	for (size_t i = 0; i < sizeof(not_codes) / sizeof(not_codes[0]); i++)
		for (size_t k = 0; k < 3; k++) {
			const char *name = kinds[k] == ALIST ? "x.alist"
			                   : kinds[k] == QC  ? "x.qc"
			                                     : "x.csv";
			struct ldpc_code *c = NULL;
			char err[256] = "", what[48];
			int ret = parse(kinds[k], 8, not_codes[i], name, &c, err, sizeof(err));

			snprintf(what, sizeof(what), "not-code %zu as %s", i, name);
			CHECK(ret == -FEC_EINVAL && c == NULL, "%s: returned %d", what, ret);
			check_starts_with_place(what, name, err);
			check_quotes_nothing(what, not_codes[i], err);
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
	test_not_codes();
	test_lifting_sizes();
	return check_done();
}
