/*
 * nbldpc codes: GF(2^p) for every p against exhaustive tables built by carry-less multiplication
 * modulo the polynomial; non-primitive polynomials refused; the shared non-binary alist files
 * load with their N, M, q and k (skipped without ../shared/codes); encoded words satisfy H for
 * files and generated codes of every q; generated codes are regular, free of 4-cycles and the
 * same for the same seed; irregular codes of the seed's sizes have its degree profile and build in
 * seconds through the sparse encoder; malformed files are refused with messages naming the line.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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
	static uint8_t info[NBLDPC_N_MAX], cw[NBLDPC_N_MAX];
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

/* Two rows sharing two columns: for each row, the rows met through its columns, each at most
 * once. */
static bool has_4cycle(const struct nbldpc_code *c)
{
	uint32_t *seen = calloc(c->m, sizeof(uint32_t)), *erow = malloc(c->nnz * sizeof(uint32_t));
	bool found = false;

	for (uint32_t r = 0; r < c->m; r++)
		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			erow[e] = r;
	for (uint32_t a = 0; a < c->m && !found; a++)
		for (uint32_t e = c->row_start[a]; e < c->row_start[a + 1]; e++) {
			const uint32_t v = c->row_col[e];

			for (uint32_t k = c->col_start[v]; k < c->col_start[v + 1]; k++) {
				const uint32_t b = erow[c->col_edge[k]];

				if (b == a)
					continue;
				found |= seen[b] == a + 1;
				seen[b] = a + 1;
			}
		}
	free(seen);
	free(erow);
	return found;
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

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* This thread's CPU time: build times measured so are not the machine's load. */
static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The seed's sizes (table 4.4, 5040 information bits): the profile's degrees, no 4-cycles, the
 * zigzag's sparse encoder (information first), the same code for the same seed, built in seconds.
 */
static void test_irregular(void)
{
	static const unsigned sizes[][2] = {
	    /* q, n */
	    {2, 10080},  {8, 3360},   {16, 2520}, {32, 2016}, {64, 1680},
	    {128, 1440}, {256, 1260}, {64, 168},  {256, 126},
	};
	char err[256];

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const unsigned q = sizes[i][0], n = sizes[i][1], base = q == 2 ? 3 : 2;
		struct nbldpc_code *c = NULL, *c2 = NULL;
		unsigned dv_max, dc_max, bad = 0;
		double t0 = cpu_s(), dt;

		nbldpc_irregular_profile(q, &dv_max, &dc_max);
		err[0] = '\0';
		CHECK(nbldpc_irregular_build(n, q, 0, 11, &c, err, sizeof(err)) == 0,
		      "irregular q=%u n=%u: %s", q, n, err);
		dt = cpu_s() - t0;
		if (!c)
			continue;
		printf("irregular GF(%u) n=%u: built in %.3f s of CPU, %u edges\n", q, n, dt,
		       c->nnz);
		CHECK(dt < 5.0, "GF(%u) n=%u took %.1f s to build", q, n, dt);
		CHECK(c->m == n / 2 && c->k == n / 2 && c->plan, "GF(%u): m %u k %u, plan %s", q,
		      c->m, c->k, c->plan ? "yes" : "no");
		CHECK(c->max_col_deg == dv_max && c->max_row_deg == dc_max,
		      "GF(%u): degrees up to %u and %u, the profile's %u and %u", q, c->max_col_deg,
		      c->max_row_deg, dv_max, dc_max);
		for (uint32_t v = 0; v < c->n; v++) {
			const uint32_t d = c->col_start[v + 1] - c->col_start[v];

			if (v >= c->k)
				bad += d != 2 && !(q == 2 && v == c->n - 1 && d == 3);
			else
				bad += d != base && d != dv_max;
		}
		for (uint32_t r = 0; r < c->m; r++) {
			const uint32_t d = c->row_start[r + 1] - c->row_start[r];

			bad += d != dc_max && d != dc_max - 1;
		}
		for (uint32_t j = 0; j < c->k; j++)
			bad += c->info_cols[j] != j;
		CHECK(bad == 0, "GF(%u): %u degrees or information columns off the profile", q,
		      bad);
		CHECK(c->nnz > (dc_max - 0.6) * c->m && c->nnz < (dc_max - 0.4) * c->m,
		      "GF(%u): %u edges for %u rows, want rows averaging %u - 1/2", q, c->nnz, c->m,
		      dc_max);
		CHECK(!has_4cycle(c), "irregular GF(%u) n=%u: a 4-cycle", q, n);
		check_encoder(c, 300 + i);
		CHECK(nbldpc_irregular_build(n, q, 0, 11, &c2, err, sizeof(err)) == 0 &&
		          c2->nnz == c->nnz &&
		          !memcmp(c2->row_col, c->row_col, c->nnz * sizeof(uint32_t)) &&
		          !memcmp(c2->row_val, c->row_val, c->nnz),
		      "irregular GF(%u): the same seed builds another code", q);
		nbldpc_code_free(c);
		nbldpc_code_free(c2);
	}
	{
		struct nbldpc_code *c = NULL;

		CHECK(nbldpc_irregular_build(101, 64, 0, 1, &c, err, sizeof(err)) < 0 &&
		          strstr(err, "even"),
		      "odd n refused: %s", err);
	}
}

/* spec_finish remembers a finished code: the GF(2) n=10080 code (about a second to build here)
 * named again, or through its text form, is not built again. */
static void test_memo(void)
{
	const char *text = "nbldpc,code=irregular,q=2,n=10080,seed=3";
	struct fec_spec spec;
	char err[256];
	double t0 = cpu_s(), first, again;

	CHECK(fec_spec_from_string(text, &spec, err, sizeof(err)) == 0 && spec.u.nbldpc.k == 5040 &&
	          spec.u.nbldpc.code_q == 2,
	      "%s: %s", text, err);
	first = cpu_s() - t0;
	t0 = cpu_s();
	for (int i = 0; i < 10; i++)
		CHECK(fec_spec_from_string(text, &spec, err, sizeof(err)) == 0 &&
		          spec.u.nbldpc.k == 5040,
		      "%s again: %s", text, err);
	again = (cpu_s() - t0) / 10;
	printf("spec_finish %s: %.3f s, then %.6f s\n", text, first, again);
	CHECK(again * 20 < first, "the code is built again: %.3f s after %.3f s", again, first);
}

/* A generated code too large for the build deadline stops at it: GF(2) n=65536 (minutes of
 * placement) with 100 ms allowed returns -FEC_ETIME within about that. */
static void test_deadline(void)
{
	struct nbldpc_code *c = NULL;
	char err[256];
	double t0 = now_s(), dt;
	int ret;

	fec_build_deadline_set((uint64_t)(t0 * 1e9) + 100000000u);
	ret = nbldpc_irregular_build(65536, 2, 0, 1, &c, err, sizeof(err));
	fec_build_deadline_set(0);
	dt = now_s() - t0;
	CHECK(ret == -FEC_ETIME && !c, "irregular n=65536 past the deadline: %d", ret);
	CHECK(dt < 5.0, "the deadline of 0.1 s stopped the build after %.2f s", dt);
	nbldpc_code_free(c);
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
	test_irregular();
	test_memo();
	test_deadline();
	test_bad_files();
	if (dir && *dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		test_files(dir);
	else
		printf("SKIPPED (FECD_CODES_DIR %s%s): the shared non-binary files; the rest ran\n",
		       dir && *dir ? dir : "unset", dir && *dir ? " is not a folder" : "");
	return check_done();
}
