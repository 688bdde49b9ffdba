/*
 * nbldpc codes: GF(2^p) for every p against exhaustive tables built by carry-less multiplication
 * modulo the polynomial; non-primitive polynomials refused; the shared non-binary alist files
 * load with their N, M, q and k (skipped without ../shared/codes); encoded words satisfy H for
 * files and generated codes of every q; generated codes are regular, free of 4-cycles and the
 * same for the same seed; malformed files are refused with messages naming the line.
 */
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fec.h"
#include "nbldpc.h"
#include "prng.h"

/* a * b modulo poly, bit by bit */
static unsigned slow_mul(unsigned a, unsigned b, unsigned p, unsigned poly)
{
	unsigned r = 0;

	for (unsigned i = 0; i < p; i++)
		if (b >> i & 1)
			r ^= a << i;
	for (unsigned i = 2 * p; i-- > p;)
		if (r >> i & 1)
			r ^= poly << (i - p);
	return r;
}

static void test_fields(void)
{
	char err[256];

	for (unsigned p = 1; p <= 8; p++) {
		struct nbldpc_gf gf;
		const unsigned q = 1u << p, poly = nbldpc_gf_default_poly(p);
		unsigned bad = 0, badinv = 0;

		CHECK(nbldpc_gf_init(&gf, p, 0, err, sizeof(err)) == 0, "GF(%u): %s", q, err);
		CHECK(gf.poly == poly && gf.q == q, "GF(%u) poly 0x%x", q, gf.poly);
		for (unsigned a = 0; a < q; a++)
			for (unsigned b = 0; b < q; b++) {
				const unsigned m = slow_mul(a, b, p, poly);

				bad += nbldpc_gf_mul(&gf, (uint8_t)a, (uint8_t)b) != m;
				if (b && nbldpc_gf_div(&gf, (uint8_t)m, (uint8_t)b) != a)
					bad++;
			}
		for (unsigned a = 1; a < q; a++)
			badinv +=
			    nbldpc_gf_mul(&gf, (uint8_t)a, nbldpc_gf_div(&gf, 1, (uint8_t)a)) != 1;
		CHECK(bad == 0 && badinv == 0,
		      "GF(%u): %u products or quotients, %u inverses wrong", q, bad, badinv);
		/* alpha^i walks every nonzero element once */
		{
			unsigned seen[256] = {0}, twice = 0;

			for (unsigned i = 0; i < q - 1; i++)
				twice += seen[gf.exp[i]]++ != 0 || gf.exp[i] == 0;
			CHECK(twice == 0, "GF(%u): alpha's powers repeat", q);
		}
	}
	{
		struct nbldpc_gf gf;

		/* x^4+x^3+x^2+x+1 is irreducible but x has order 5 */
		err[0] = '\0';
		CHECK(nbldpc_gf_init(&gf, 4, 0x1f, err, sizeof(err)) < 0 &&
		          strstr(err, "primitive"),
		      "non-primitive polynomial: %s", err);
		CHECK(nbldpc_gf_init(&gf, 6, 0x13, err, sizeof(err)) < 0 && strstr(err, "degree"),
		      "wrong degree: %s", err);
		/* another primitive polynomial of GF(64): x^6+x^5+1 */
		CHECK(nbldpc_gf_init(&gf, 6, 0x61, err, sizeof(err)) == 0, "x^6+x^5+1: %s", err);
		CHECK(nbldpc_gf_mul(&gf, 32, 2) == 0x21, "x^6 = x^5 + 1 under 0x61");
	}
}

/* Random information through the encoder satisfies H. */
static void check_encoder(const struct nbldpc_code *c, uint64_t seed)
{
	struct fec_prng rng;
	uint8_t info[NBLDPC_N_MAX / 8], cw[NBLDPC_N_MAX / 8];
	unsigned bad = 0;

	fec_prng_seed(&rng, seed);
	for (int t = 0; t < 20; t++) {
		for (uint32_t i = 0; i < c->k; i++)
			info[i] = (uint8_t)(fec_prng_next(&rng) % c->gf.q);
		nbldpc_encode(c, info, cw);
		bad += !nbldpc_codeword_valid(c, cw);
		for (uint32_t i = 0; i < c->k; i++)
			bad += cw[c->info_cols[i]] != info[i];
	}
	CHECK(bad == 0, "%s: %u encoded words fail H or lose their information", c->name, bad);
	/* and a word that breaks a check is seen */
	if (c->m > 0) {
		cw[c->row_col[0]] ^= 1;
		CHECK(!nbldpc_codeword_valid(c, cw), "%s: a changed symbol passes H", c->name);
	}
}

static bool has_4cycle(const struct nbldpc_code *c)
{
	for (uint32_t a = 0; a < c->m; a++)
		for (uint32_t b = a + 1; b < c->m; b++) {
			unsigned shared = 0;

			for (uint32_t i = c->row_start[a]; i < c->row_start[a + 1]; i++)
				for (uint32_t j = c->row_start[b]; j < c->row_start[b + 1]; j++)
					shared += c->row_col[i] == c->row_col[j];
			if (shared > 1)
				return true;
		}
	return false;
}

static void test_generated(void)
{
	char err[256];
	static const unsigned sizes[][4] = {
	    /* q, n, dv, dc */
	    {2, 96, 2, 4},  {4, 96, 2, 4},   {8, 96, 2, 4},   {16, 120, 3, 6},
	    {32, 96, 2, 4}, {64, 192, 2, 4}, {128, 96, 2, 3}, {256, 96, 2, 4},
	};

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct nbldpc_code *c = NULL, *c2 = NULL, *c3 = NULL;
		const unsigned *s = sizes[i];
		unsigned irregular = 0;

		err[0] = '\0';
		CHECK(nbldpc_regular_build(s[1], s[2], s[3], s[0], 0, 7, &c, err, sizeof(err)) == 0,
		      "regular q=%u: %s", s[0], err);
		if (!c)
			continue;
		CHECK(c->n == s[1] && c->m == s[1] * s[2] / s[3] && c->gf.q == s[0],
		      "q=%u: n %u m %u", s[0], c->n, c->m);
		CHECK(c->k >= c->n - c->m, "q=%u: k %u below n - m", s[0], c->k);
		for (uint32_t v = 0; v < c->n; v++)
			irregular += c->col_start[v + 1] - c->col_start[v] != s[2];
		for (uint32_t r = 0; r < c->m; r++)
			irregular += c->row_start[r + 1] - c->row_start[r] != s[3];
		for (uint32_t e = 0; e < c->nnz; e++)
			irregular += c->row_val[e] == 0;
		CHECK(irregular == 0, "q=%u: %u degrees or coefficients wrong", s[0], irregular);
		CHECK(!has_4cycle(c), "q=%u: a 4-cycle", s[0]);
		check_encoder(c, i);
		CHECK(nbldpc_regular_build(s[1], s[2], s[3], s[0], 0, 7, &c2, err, sizeof(err)) ==
		              0 &&
		          c2->nnz == c->nnz &&
		          !memcmp(c2->row_col, c->row_col, c->nnz * sizeof(uint32_t)) &&
		          !memcmp(c2->row_val, c->row_val, c->nnz),
		      "q=%u: the same seed builds another code", s[0]);
		CHECK(nbldpc_regular_build(s[1], s[2], s[3], s[0], 0, 8, &c3, err, sizeof(err)) ==
		              0 &&
		          (memcmp(c3->row_col, c->row_col, c->nnz * sizeof(uint32_t)) ||
		           memcmp(c3->row_val, c->row_val, c->nnz)),
		      "q=%u: seeds 7 and 8 build the same code", s[0]);
		nbldpc_code_free(c);
		nbldpc_code_free(c2);
		nbldpc_code_free(c3);
	}
	{
		struct nbldpc_code *c = NULL;

		CHECK(nbldpc_regular_build(100, 2, 4, 48, 0, 1, &c, err, sizeof(err)) < 0 &&
		          strstr(err, "power of 2"),
		      "q=48 refused: %s", err);
		CHECK(nbldpc_regular_build(10, 3, 4, 64, 0, 1, &c, err, sizeof(err)) < 0,
		      "n * dv not a multiple of dc refused");
	}
}

/* A small valid file: GF(4), N=4, M=2, each column weight 1, rows weight 2, then edits of it. */
static const char good[] = "4 2 4\n"
                           "1 2\n"
                           "1 1 1 1\n"
                           "2 2\n"
                           "1 0\n"
                           "1 1\n"
                           "2 2\n"
                           "2 0\n"
                           "1 0 2 1\n"
                           "3 2 4 0\n";

struct bad_case {
	const char *text, *want; /* want: text the message must hold */
};

static void test_bad_files(void)
{
	static const struct bad_case bad[] = {
	    {"4 2 48\n1 2\n1 1 1 1\n2 2\n", "t.alist:1: number 3: expected q a power of 2"},
	    {"4 2 512\n1 2\n1 1 1 1\n2 2\n", "t.alist:1: number 3: expected q a power of 2"},
	    /* value 3 is outside GF(4)'s power form (0..2) */
	    {"4 2 4\n1 2\n1 1 1 1\n2 2\n1 3\n", "t.alist:5: column 1: expected values of GF(4)"},
	    {"4 2 4\n1 2\n1 1 1 1\n2 2\n1 0\n1 1\n2 2\n2 0\n1 0 2 4\n",
	     "t.alist:9: row 1: expected values of GF(4)"},
	    /* column 2 lists two pairs for degree 1 */
	    {"4 2 4\n1 2\n1 1 1 1\n2 2\n1 0\n1 1 2 0\n", "t.alist:6: column 2: expected 1 (row"},
	    /* row 2 lists one pair for degree 2 */
	    {"4 2 4\n1 2\n1 1 1 1\n2 2\n1 0\n1 1\n2 2\n2 0\n1 0 2 1\n3 2\n",
	     "t.alist:10: row 2: expected 2 (column"},
	    /* the rows disagree with the columns (row 1 column 2 value 2, column says 1) */
	    {"4 2 4\n1 2\n1 1 1 1\n2 2\n1 0\n1 1\n2 2\n2 0\n1 0 2 2\n3 2 4 0\n", "column 2"},
	    {"4 2 4\n1 2\n1 1 1 1\n2 2\n1 0\n1 1\n2 2\n2 0\n1 0 2 1\n",
	     "t.alist:10: expected the (column, value) pairs of row 2, found end of file"},
	    {"4 2 4\n1 2\n1 1 1 x\n", "t.alist:3: expected a number, found a word"},
	    {"4 2 4\n1 2\n1 1 1 1\n2 1\n", "t.alist:4: expected row degrees summing"},
	    {"4 2 4\n1 2\n1 1 1 1\n2 2\n5 0\n",
	     "t.alist:5: column 1: expected row indices in 1..2"},
	};
	char err[256];

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct nbldpc_code *c = NULL;
		const int ret = nbldpc_alist_parse(bad[i].text, "t.alist", NBLDPC_FORM_POWER, 0, &c,
		                                   err, sizeof(err));

		CHECK(ret < 0 && !c && strstr(err, bad[i].want), "bad file %u: got '%s'", i, err);
		nbldpc_code_free(c);
	}
	{
		struct nbldpc_code *c = NULL;

		err[0] = '\0';
		CHECK(nbldpc_alist_parse(good, "t.alist", NBLDPC_FORM_POWER, 0, &c, err,
		                         sizeof(err)) == 0,
		      "the good file: %s", err);
		if (c) {
			/* power 1 in GF(4) is alpha = 2 */
			CHECK(c->n == 4 && c->m == 2 && c->gf.q == 4 && c->k == 2 &&
			          c->row_val[1] == 2,
			      "the good file: n %u m %u k %u", c->n, c->m, c->k);
			check_encoder(c, 1);
			nbldpc_code_free(c);
		}
		/* in vector form 0 is no element: the same text is refused on its first value */
		CHECK(
		    nbldpc_alist_parse(good, "t.alist", NBLDPC_FORM_VECTOR, 0, &c, err,
		                       sizeof(err)) < 0 &&
		        strstr(err, "t.alist:5: column 1: expected values of GF(4) in vector form"),
		    "vector form: %s", err);
	}
}

static void test_files(const char *dir)
{
	static const struct {
		const char *file;
		unsigned n, m, q;
	} files[] = {
	    {"NB_60_40_GF64.alist", 60, 40, 64},
	    {"BDS_B1C_200_100_GF64.alist", 200, 100, 64},
	    {"BDS_B1C_88_44_GF64.alist", 88, 44, 64},
	    {"BDS_B2A_96_48_GF64.alist", 96, 48, 64},
	    {"BDS_B2B_162_81_GF64.alist", 162, 81, 64},
	};
	char err[512];

	fec_codes_dir_set(dir);
	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct nbldpc_spec s = {.q = 64, .form = NBLDPC_FORM_POWER};
		struct nbldpc_code *c = NULL;

		snprintf(s.code, sizeof(s.code), "%s", files[i].file);
		err[0] = '\0';
		CHECK(nbldpc_code_load(&s, &c, err, sizeof(err)) == 0, "%s: %s", files[i].file,
		      err);
		if (!c)
			continue;
		CHECK(c->n == files[i].n && c->m == files[i].m && c->gf.q == files[i].q,
		      "%s: N %u M %u q %u", files[i].file, c->n, c->m, c->gf.q);
		check_encoder(c, 100 + i);
		if (files[i].file[0] == 'B') {
			/* full rank, information symbols first (the ICD's systematic order) */
			bool first = c->k == c->n - c->m;

			for (uint32_t j = 0; first && j < c->k; j++)
				first = c->info_cols[j] == j;
			CHECK(first, "%s: k %u, information not in columns 1..K", files[i].file,
			      c->k);
		}
		nbldpc_code_free(c);
	}
	fec_codes_dir_set(NULL);
}

int main(void)
{
	const char *dir = getenv("FECD_CODES_DIR");
	struct stat st;

	test_fields();
	test_generated();
	test_bad_files();
	if (dir && *dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		test_files(dir);
	else
		printf("SKIPPED (FECD_CODES_DIR %s%s): the shared non-binary files; the rest ran\n",
		       dir && *dir ? dir : "unset", dir && *dir ? " is not a folder" : "");
	return check_done();
}
