/*
 * LDPC codes (test_ldpc_badfile.c has the malformed files): every binary matrix in the codes
 * folder loading with its standard's n, m and k, the systematic encoder on each (valid codeword,
 * information bits where info_cols says), the sparse matrix's two orientations agreeing, the
 * layers, random matrices' rank against a dense reference, and the generated codes (degrees, no
 * 4-cycles, same seed same code). The parts that need ../shared/codes skip, saying so, without
 * it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fec.h"
#include "ldpc.h"
#include "ldpc_code_impl.h"
#include "prng.h"

/* ---- properties every code must have ---- */

static void check_matrix(const struct ldpc_code *c)
{
	const struct ldpc_matrix *h = &c->h;
	uint32_t *seen = calloc(h->nnz + 1, sizeof(uint32_t));
	uint32_t maxr = 0, maxc = 0, bad = 0;

	for (uint32_t r = 0; r < h->m; r++) {
		uint32_t d = h->row_start[r + 1] - h->row_start[r];

		maxr = d > maxr ? d : maxr;
		for (uint32_t e = h->row_start[r] + 1; e < h->row_start[r + 1]; e++)
			bad += h->row_col[e] <= h->row_col[e - 1];
	}
	for (uint32_t v = 0; v < h->n; v++) {
		uint32_t d = h->col_start[v + 1] - h->col_start[v];

		maxc = d > maxc ? d : maxc;
		for (uint32_t i = h->col_start[v]; i < h->col_start[v + 1]; i++) {
			uint32_t e = h->col_edge[i];

			bad += e >= h->nnz || h->row_col[e] != v || seen[e]++;
			bad += i > h->col_start[v] && e <= h->col_edge[i - 1];
		}
	}
	CHECK(bad == 0, "%s: %u inconsistencies between rows and columns", c->name, bad);
	CHECK(h->row_start[h->m] == h->nnz && h->col_start[h->n] == h->nnz, "%s: nnz", c->name);
	CHECK(maxr == c->max_row_deg && maxc == c->max_col_deg, "%s: max degrees %u %u, want %u %u",
	      c->name, c->max_row_deg, c->max_col_deg, maxr, maxc);
	CHECK(c->n_tx == h->n - c->punct, "%s: n_tx", c->name);
	bad = 0;
	for (uint32_t i = 0; i < c->k; i++)
		bad += c->info_cols[i] >= h->n || (i && c->info_cols[i] <= c->info_cols[i - 1]);
	CHECK(bad == 0, "%s: info_cols not increasing", c->name);
	free(seen);
}

/* Every row in exactly one layer; no two rows of a layer share a column. */
static void check_layers(const struct ldpc_code *c)
{
	const struct ldpc_matrix *h = &c->h;
	uint32_t *row_seen = calloc(h->m, sizeof(uint32_t));
	uint32_t *col_layer = calloc(h->n, sizeof(uint32_t));
	uint32_t bad = 0, clash = 0;

	CHECK(c->layer_start[0] == 0 && c->layer_start[c->nlayers] == h->m, "%s: layer bounds",
	      c->name);
	for (uint32_t l = 0; l < c->nlayers; l++)
		for (uint32_t i = c->layer_start[l]; i < c->layer_start[l + 1] && i < h->m; i++) {
			uint32_t r = c->layer_rows[i];

			if (r >= h->m || row_seen[r]++) {
				bad++;
				continue;
			}
			for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
				clash += col_layer[h->row_col[e]] == l + 1;
				col_layer[h->row_col[e]] = l + 1;
			}
		}
	for (uint32_t r = 0; r < h->m; r++)
		bad += row_seen[r] != 1;
	CHECK(bad == 0, "%s: %u rows not in exactly one layer", c->name, bad);
	CHECK(clash == 0, "%s: %u columns shared within a layer", c->name, clash);
	if (c->z)
		CHECK(c->nlayers == h->m / c->z, "%s: %u layers, want the %u block rows", c->name,
		      c->nlayers, h->m / c->z);
	free(row_seen);
	free(col_layer);
}

static uint32_t count_4cycles(const struct ldpc_code *c)
{
	const struct ldpc_matrix *h = &c->h;
	uint32_t *mark = calloc(h->n, sizeof(uint32_t)), *edge_row = malloc(h->nnz * 4), cycles = 0;

	for (uint32_t r = 0; r < h->m; r++)
		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
			edge_row[e] = r;
	for (uint32_t r = 0; r < h->m; r++) {
		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
			mark[h->row_col[e]] = r + 1;
		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
			uint32_t v = h->row_col[e];

			for (uint32_t i = h->col_start[v]; i < h->col_start[v + 1]; i++) {
				uint32_t r2 = edge_row[h->col_edge[i]], common = 0;

				if (r2 <= r)
					continue;
				for (uint32_t f = h->row_start[r2]; f < h->row_start[r2 + 1]; f++)
					common += mark[h->row_col[f]] == r + 1;
				cycles += common >= 2;
			}
		}
	}
	free(mark);
	free(edge_row);
	return cycles;
}

/* Codes whose encoder took each form (enum ldpc_enc_form). */
static unsigned forms[4];

/* Random information -> codeword: valid, information where info_cols says; a flip breaks it; the
 * same codeword as the plan's reference encoder (ldpc_encode takes a faster form where it can). */
static void check_encode(struct ldpc_code *c, uint64_t seed, int frames)
{
	struct fec_prng p;
	uint8_t *info = malloc(c->k + 1), *cw = malloc(c->h.n), *ref = malloc(c->h.n);
	uint32_t wrong = 0;

	fec_prng_seed(&p, seed);
	for (int f = 0; f < frames; f++) {
		uint32_t flip;
		int ret;

		for (uint32_t i = 0; i < c->k; i++)
			info[i] = (uint8_t)(fec_prng_next(&p) & 1);
		ret = ldpc_encode(c, info, cw);
		CHECK(ret == 0, "%s: ldpc_encode %d", c->name, ret);
		CHECK(ldpc_codeword_valid(c, cw), "%s: frame %d not a codeword", c->name, f);
		for (uint32_t i = 0; i < c->k; i++)
			wrong += cw[c->info_cols[i]] != info[i];
		ret = ldpc__encode_plan(c, info, ref);
		CHECK(ret == 0, "%s: the reference encoder %d", c->name, ret);
		for (uint32_t i = 0; ret == 0 && i < c->h.n; i++)
			if (cw[i] != ref[i]) {
				CHECK(0, "%s: frame %d: code bit %u is %u, the reference's %u",
				      c->name, f, i, cw[i], ref[i]);
				break;
			}
		flip = (uint32_t)(fec_prng_next(&p) % c->h.n);
		/* a column of weight 0 would not show; every code here has none */
		cw[flip] ^= 1;
		CHECK(!ldpc_codeword_valid(c, cw), "%s: bit %u flipped still valid", c->name, flip);
	}
	CHECK(wrong == 0, "%s: %u information bits not where info_cols says", c->name, wrong);
	forms[ldpc__encode_form(c)]++;
	free(info);
	free(cw);
	free(ref);
}

/* The cyclic structure, when found, describes every row: row t of group g meets exactly its
 * group's slots (short rows a subset); positions are a permutation of the columns. */
static void check_cyclic(const struct ldpc_code *c)
{
	const struct ldpc_cyclic *cy = c->cyc;
	const struct ldpc_matrix *h = &c->h;
	uint8_t *seen;
	uint32_t wrong = 0, shorts = 0;

	if (!cy)
		return;
	seen = calloc(h->n, 1);
	CHECK(cy->ngroups * cy->z == h->m, "%s: %u groups of %u", c->name, cy->ngroups, cy->z);
	for (uint32_t v = 0; v < h->n; v++)
		wrong += cy->col_pos[v] >= h->n || seen[cy->col_pos[v]]++;
	CHECK(wrong == 0, "%s: column positions not a permutation", c->name);
	wrong = 0;
	memset(seen, 0, h->m);
	for (uint32_t g = 0; g < cy->ngroups; g++)
		for (uint32_t t = 0; t < cy->z; t++) {
			const uint32_t r = ldpc_cyclic_row(cy, g, t);
			const uint32_t deg = h->row_start[r + 1] - h->row_start[r];
			const uint32_t nslot = cy->slot_start[g + 1] - cy->slot_start[g];

			wrong += r >= h->m || seen[r]++ || deg > nslot;
			shorts += deg < nslot;
			for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
				uint32_t s = cy->slot_start[g];

				while (s < cy->slot_start[g + 1] &&
				       ldpc_cyclic_pos(cy, s, t) != cy->col_pos[h->row_col[e]])
					s++;
				wrong += s == cy->slot_start[g + 1];
			}
		}
	CHECK(wrong == 0, "%s: %u rows off their group's slots", c->name, wrong);
	CHECK(shorts == cy->nshort, "%s: %u short rows, listed %u", c->name, shorts, cy->nshort);
	free(seen);
}

/* DVB-S2's layers: rows g + q t in runs of consecutive t as long as the smallest distance between
 * two rows of the group on one column (ldpc.h), e.g. 11 for r1/2's group 1, where rows t and t+11
 * share a column of information group 10. */
static void check_dvbs2_layers(const struct ldpc_code *c, uint32_t group, uint32_t run)
{
	const struct ldpc_cyclic *cy = c->cyc;
	uint32_t *layer_of = calloc(c->h.m, sizeof(uint32_t)), apart = 0, together = 0;

	CHECK(cy && cy->z == 360 && cy->row_gstep == 1 && cy->row_tstep == c->h.m / 360 &&
	          cy->nshort == 1 && cy->short_rows[0] == 0,
	      "%s: no DVB-S2 structure found", c->name);
	if (!cy) {
		free(layer_of);
		return;
	}
	for (uint32_t l = 0; l < c->nlayers; l++)
		for (uint32_t i = c->layer_start[l]; i < c->layer_start[l + 1]; i++)
			layer_of[c->layer_rows[i]] = l;
	for (uint32_t t = 0; t < 360; t++) {
		const uint32_t l = layer_of[ldpc_cyclic_row(cy, group, t)];

		if (t % run)
			together += l != layer_of[ldpc_cyclic_row(cy, group, t - 1)];
		if (t + run < 360)
			apart += l == layer_of[ldpc_cyclic_row(cy, group, t + run)];
	}
	CHECK(together == 0 && apart == 0, "%s: group %u: %u runs split, %u rows %u apart together",
	      c->name, group, together, apart, run);
	free(layer_of);
}

static void check_code(struct ldpc_code *c, int frames)
{
	check_matrix(c);
	check_layers(c);
	check_cyclic(c);
	check_encode(c, 99, frames);
}

/* ---- codes from text, no files needed ---- */

#define ALIST_HEAD "6 3\n2 4\n1 1 2 2 2 2\n3 3 4\n"
#define ALIST_ROWS "1 3 4\n2 5 6\n3 4 5 6\n"

static void test_small_texts(void)
{
	struct ldpc_code *c = NULL;
	char err[256] = "";
	int ret;

	/* the table's base matrix, as a whole, with a comment and zero padding */
	ret = ldpc_alist_parse("# ok\n" ALIST_HEAD "1 0\n2 0\n1 3\n3 1\n0 2 3\n2 3\n" ALIST_ROWS,
	                       "t.alist", &c, err, sizeof(err));
	CHECK(ret == 0, "small alist: %s", err);
	if (ret == 0) {
		CHECK(c->h.n == 6 && c->h.m == 3 && c->k == 3 && c->punct == 0,
		      "small alist: n=%u m=%u k=%u", c->h.n, c->h.m, c->k);
		check_code(c, 4);
		ldpc_code_free(c);
	}
	/* rank deficient: the third row is the sum of the first two */
	ret = ldpc_alist_parse("4 3\n2 3\n2 2 2 2\n2 3 3\n1 3\n1 2\n2 3\n2 3\n"
	                       "1 2\n2 3 4\n1 3 4\n",
	                       "r.alist", &c, err, sizeof(err));
	CHECK(ret == 0, "rank-deficient alist: %s", err);
	if (ret == 0) {
		CHECK(c->k == 2, "rank-deficient alist: k=%u, want 2", c->k);
		check_code(c, 4);
		ldpc_code_free(c);
	}
	/* QC with a puncturing line: punctured block columns move to the front */
	ret =
	    ldpc_qc_parse("4 2 5\n0 1 -1 2\n3 -1 0 4\n1 1 1 0\n", "t.qc", 0, &c, err, sizeof(err));
	CHECK(ret == 0, "small qc: %s", err);
	if (ret == 0) {
		CHECK(c->h.n == 20 && c->h.m == 10 && c->z == 5 && c->punct == 5 && c->n_tx == 15,
		      "small qc: n=%u m=%u z=%u punct=%u", c->h.n, c->h.m, c->z, c->punct);
		/* base column 3 (shift 2 in row 0) now first: row 0 holds column (0 + 2) % 5 */
		CHECK(c->h.row_col[0] == 2, "small qc: row 0 starts at column %u", c->h.row_col[0]);
		check_code(c, 4);
		ldpc_code_free(c);
	}
	/* the same base matrix lifted by z = 3: shifts mod 3 */
	ret = ldpc_qc_parse("4 2 5\n0 1 -1 2\n3 -1 0 4\n", "t.qc", 3, &c, err, sizeof(err));
	CHECK(ret == 0 && c && c->h.n == 12 && c->z == 3, "qc lifted by z=3: %s", err);
	if (ret == 0) {
		check_code(c, 4);
		ldpc_code_free(c);
	}
}

static void test_codes_dir(void)
{
	const char *env = getenv("FECD_CODES_DIR");

	fec_codes_dir_set("/some/where");
	CHECK(strcmp(fec_codes_dir(), "/some/where") == 0, "codes dir set: %s", fec_codes_dir());
	fec_codes_dir_set(NULL);
	CHECK(strcmp(fec_codes_dir(), env && *env ? env : "/usr/share/fecd/codes") == 0,
	      "codes dir default: %s", fec_codes_dir());
}

/* ---- random small matrices against a dense reference rank ---- */

static uint32_t dense_rank(uint8_t *a, uint32_t m, uint32_t n)
{
	uint32_t rank = 0;

	for (uint32_t c = 0; c < n && rank < m; c++) {
		uint32_t p = rank;

		while (p < m && !a[p * n + c])
			p++;
		if (p == m)
			continue;
		for (uint32_t j = 0; j < n; j++) {
			uint8_t t = a[p * n + j];

			a[p * n + j] = a[rank * n + j];
			a[rank * n + j] = t;
		}
		for (uint32_t i = 0; i < m; i++)
			if (i != rank && a[i * n + c])
				for (uint32_t j = 0; j < n; j++)
					a[i * n + j] ^= a[rank * n + j];
		rank++;
	}
	return rank;
}

/* Matrices of every shape and density, many rank deficient (rows copied from and added to
 * others), written as alist text: k = n - rank and the encoder works. */
static void test_random_matrices(void)
{
	enum { NMAX = 40 };
	static uint8_t a[NMAX * NMAX];
	static char text[16384];
	struct fec_prng p;
	uint32_t wrong_k = 0;

	fec_prng_seed(&p, 2024);
	for (int it = 0; it < 400; it++) {
		uint32_t n = 2 + (uint32_t)(fec_prng_next(&p) % (NMAX - 1));
		uint32_t m = 1 + (uint32_t)(fec_prng_next(&p) % NMAX);
		uint32_t dens = 1 + (uint32_t)(fec_prng_next(&p) % 40), len = 0;
		struct ldpc_code *c = NULL;
		char err[256];

		for (uint32_t i = 0; i < m * n; i++)
			a[i] = fec_prng_next(&p) % 100 < dens;
		for (uint32_t i = 1; i < m && it % 2; i++)
			if (fec_prng_next(&p) % 3 == 0)
				for (uint32_t j = 0, x = (uint32_t)(fec_prng_next(&p) % i); j < n;
				     j++)
					a[i * n + j] = a[x * n + j];
		/* alist has no empty rows or columns */
		for (uint32_t i = 0; i < m; i++)
			a[i * n + (i % n)] |= 1;
		for (uint32_t j = 0; j < n; j++)
			a[(j % m) * n + j] |= 1;
		len += (uint32_t)snprintf(text + len, sizeof(text) - len, "%u %u\n%u %u\n", n, m, m,
		                          n);
		for (int side = 0; side < 4; side++) {
			uint32_t outer = side % 2 ? m : n, inner = side % 2 ? n : m;

			for (uint32_t o = 0; o < outer; o++) {
				uint32_t w = 0;

				for (uint32_t i = 0; i < inner; i++) {
					bool one = side % 2 ? a[o * n + i] : a[i * n + o];

					if (side < 2)
						w += one;
					else if (one)
						len += (uint32_t)snprintf(
						    text + len, sizeof(text) - len, "%u ", i + 1);
				}
				if (side < 2)
					len += (uint32_t)snprintf(text + len, sizeof(text) - len,
					                          "%u ", w);
				else
					len += (uint32_t)snprintf(text + len, sizeof(text) - len,
					                          "\n");
			}
			if (side < 2)
				len += (uint32_t)snprintf(text + len, sizeof(text) - len, "\n");
		}
		if (ldpc_alist_parse(text, "rand.alist", &c, err, sizeof(err)) != 0) {
			CHECK(0, "random matrix %d: %s", it, err);
			continue;
		}
		wrong_k += c->k != n - dense_rank(a, m, n);
		check_encode(c, (uint64_t)it, 2);
		ldpc_code_free(c);
	}
	CHECK(wrong_k == 0, "%u random matrices with k != n - rank", wrong_k);
}

/* ---- generated codes ---- */

static int load_gen(const char *kind, uint32_t n, unsigned dv, unsigned dc, uint32_t seed,
                    struct ldpc_code **c, char *err, size_t errlen)
{
	struct ldpc_spec s;

	memset(&s, 0, sizeof(s));
	snprintf(s.code, sizeof(s.code), "%s", kind);
	s.gen_n = n;
	s.gen_dv = (uint8_t)dv;
	s.gen_dc = (uint8_t)dc;
	s.seed = seed;
	return ldpc_code_load(&s, c, err, errlen);
}

static bool same_matrix(const struct ldpc_code *a, const struct ldpc_code *b)
{
	return a->h.n == b->h.n && a->h.m == b->h.m && a->h.nnz == b->h.nnz &&
	       memcmp(a->h.row_start, b->h.row_start, (a->h.m + 1) * 4) == 0 &&
	       memcmp(a->h.row_col, b->h.row_col, a->h.nnz * 4) == 0;
}

static void test_generated(void)
{
	static const struct {
		const char *kind;
		uint32_t n;
		unsigned dv, dc, m;
	} gens[] = {
	    {"regular", 1008, 3, 6, 504}, {"regular", 2000, 4, 8, 1000},
	    {"regular", 1200, 3, 4, 900}, {"peg", 1008, 3, 6, 504},
	    {"peg", 600, 4, 0, 300},      {"peg", 999, 2, 5, 400},
	};
	char err[256] = "";

	for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++) {
		struct ldpc_code *a = NULL, *b = NULL, *d = NULL;
		uint32_t bad = 0;
		int ret = load_gen(gens[i].kind, gens[i].n, gens[i].dv, gens[i].dc, 7, &a, err,
		                   sizeof(err));

		CHECK(ret == 0, "%s n=%u: %s", gens[i].kind, gens[i].n, err);
		if (ret)
			continue;
		CHECK(a->h.n == gens[i].n && a->h.m == gens[i].m, "%s: n=%u m=%u, want m=%u",
		      a->name, a->h.n, a->h.m, gens[i].m);
		for (uint32_t v = 0; v < a->h.n; v++)
			bad += a->h.col_start[v + 1] - a->h.col_start[v] != gens[i].dv;
		if (strcmp(gens[i].kind, "regular") == 0)
			for (uint32_t r = 0; r < a->h.m; r++)
				bad += a->h.row_start[r + 1] - a->h.row_start[r] != gens[i].dc;
		CHECK(bad == 0, "%s: %u columns or rows of the wrong degree", a->name, bad);
		CHECK(count_4cycles(a) == 0, "%s: %u 4-cycles", a->name, count_4cycles(a));
		check_code(a, 3);
		ret = load_gen(gens[i].kind, gens[i].n, gens[i].dv, gens[i].dc, 7, &b, err,
		               sizeof(err));
		CHECK(ret == 0 && same_matrix(a, b), "%s: not the same code twice from a seed",
		      a->name);
		ret = load_gen(gens[i].kind, gens[i].n, gens[i].dv, gens[i].dc, 8, &d, err,
		               sizeof(err));
		CHECK(ret == 0 && !same_matrix(a, d), "%s: seed 8 gives seed 7's code", a->name);
		ldpc_code_free(a);
		ldpc_code_free(b);
		ldpc_code_free(d);
	}
	/* parameters out of range */
	{
		struct ldpc_code *c = NULL;

		CHECK(load_gen("regular", 1001, 3, 6, 1, &c, err, sizeof(err)) == -FEC_ERANGE,
		      "regular n*dv not a multiple of dc");
		CHECK(load_gen("regular", 1000, 6, 6, 1, &c, err, sizeof(err)) == -FEC_ERANGE,
		      "regular dv = dc");
		CHECK(load_gen("regular", 12, 3, 6, 1, &c, err, sizeof(err)) == -FEC_ERANGE,
		      "regular too short for no 4-cycles");
		CHECK(load_gen("peg", 0, 3, 6, 1, &c, err, sizeof(err)) == -FEC_ERANGE, "peg n=0");
		CHECK(c == NULL, "a code came back from bad parameters");
	}
}

/* ---- the codes folder ---- */

struct file_code {
	const char *code;
	uint32_t z;
	uint32_t n, m, k, punct;
	int info_first; /* 1: info_cols = 0..k-1; 0: not checked; >1: info_cols = that.. */
	bool cyclic;    /* a cyclic structure: QC codes, DVB-S2 */
};

static const struct file_code file_codes[] = {
    {"MACKAY_504_1008.alist", 0, 1008, 504, 504, 0, 0, false},
    {"MACKAY_4000_8000.alist", 0, 8000, 4000, 4000, 0, 0, false},
    {"CCSDS_64_128.alist", 0, 128, 64, 64, 0, 1, false},
    {"WIMAX_288_576.alist", 0, 576, 288, 288, 0, 1, false},
    {"WIFI_540_648.alist", 0, 648, 108, 540, 0, 1, false},
    {"10GBPS-ETHERNET_1723_2048.alist", 0, 2048, 384, 1723, 0, 0, false},
    {"DVB-S2_64800x32400.alist", 0, 64800, 32400, 32400, 0, 1, true},
    {"DVB-S2_64800x16200.alist", 0, 64800, 16200, 48600, 0, 1, true},
    {"DVB-S2_64800x6480.alist", 0, 64800, 6480, 58320, 0, 1, true},
    /* AR4JA's last 4 of 20 block columns are punctured: they move to the front */
    {"AR4JA_4096_8192.qc", 0, 10240, 6144, 4096, 2048, 2048, true},
    {"AR4JA_4096_8192.qc", 128, 2560, 1536, 1024, 512, 512, true},
    {"nr-bg1", 2, 68 * 2, 46 * 2, 22 * 2, 2 * 2, 1, true},
    {"nr-bg1", 15, 68 * 15, 46 * 15, 22 * 15, 2 * 15, 1, true},
    {"nr-bg1", 384, 68 * 384, 46 * 384, 22 * 384, 2 * 384, 1, true},
    {"nr-bg2", 2, 52 * 2, 42 * 2, 10 * 2, 2 * 2, 1, true},
    {"nr-bg2", 15, 52 * 15, 42 * 15, 10 * 15, 2 * 15, 1, true},
    {"nr-bg2", 384, 52 * 384, 42 * 384, 10 * 384, 2 * 384, 1, true},
};

static struct ldpc_code *load(const char *code, uint32_t z)
{
	struct ldpc_spec s;
	struct ldpc_code *c = NULL;
	char err[256] = "";
	int ret;

	memset(&s, 0, sizeof(s));
	snprintf(s.code, sizeof(s.code), "%s", code);
	s.z = z;
	ret = ldpc_code_load(&s, &c, err, sizeof(err));
	CHECK(ret == 0 && c, "%s z=%u: %d %s", code, z, ret, err);
	return ret ? NULL : c;
}

static void test_files(void)
{
	for (size_t i = 0; i < sizeof(file_codes) / sizeof(file_codes[0]); i++) {
		const struct file_code *f = &file_codes[i];
		struct ldpc_code *c = load(f->code, f->z);
		uint32_t off = 0;

		if (!c)
			continue;
		CHECK(c->h.n == f->n && c->h.m == f->m && c->k == f->k && c->punct == f->punct,
		      "%s: n=%u m=%u k=%u punct=%u, want %u %u %u %u", c->name, c->h.n, c->h.m,
		      c->k, c->punct, f->n, f->m, f->k, f->punct);
		CHECK(!f->z || c->z == f->z, "%s: z=%u", c->name, c->z);
		if (f->info_first == 1)
			off = 0;
		else if (f->info_first > 1)
			off = (uint32_t)f->info_first;
		for (uint32_t j = 0; f->info_first && j < c->k; j++)
			if (c->info_cols[j] != off + j) {
				CHECK(0, "%s: info column %u is %u, want %u", c->name, j,
				      c->info_cols[j], off + j);
				break;
			}
		check_code(c, 3);
		CHECK((c->cyc != NULL) == f->cyclic, "%s: cyclic structure %s", c->name,
		      c->cyc ? "found" : "not found");
		if (strcmp(f->code, "DVB-S2_64800x32400.alist") == 0)
			check_dvbs2_layers(c, 1, 11);
		CHECK((ldpc__encode_form(c) == LDPC_ENC_IRA_CYCLIC) ==
		          (strncmp(f->code, "DVB-S2", 6) == 0),
		      "%s: encoder form %d", c->name, ldpc__encode_form(c));
		ldpc_code_free(c);
	}
	/* every lifting size of both base graphs: sizes, and one codeword each */
	for (int bg = 1; bg <= 2; bg++)
		for (uint32_t z = 2; z <= 384; z++) {
			struct ldpc_code *c;

			if (!ldpc_nr_lifting_valid(z))
				continue;
			c = load(bg == 1 ? "nr-bg1" : "nr-bg2", z);
			if (!c)
				continue;
			CHECK(c->h.n == (bg == 1 ? 68 : 52) * z &&
			          c->h.m == (bg == 1 ? 46 : 42) * z &&
			          c->k == (bg == 1 ? 22 : 10) * z && c->n_tx == c->h.n - 2 * z &&
			          c->nlayers == c->h.m / z,
			      "%s: n=%u m=%u k=%u n_tx=%u layers=%u", c->name, c->h.n, c->h.m, c->k,
			      c->n_tx, c->nlayers);
			check_encode(c, z, 1);
			ldpc_code_free(c);
		}
	/* the non-binary file is not a binary alist */
	{
		struct ldpc_spec s;
		struct ldpc_code *c = NULL;
		char err[256] = "";

		memset(&s, 0, sizeof(s));
		snprintf(s.code, sizeof(s.code), "NB_60_40_GF64.alist");
		CHECK(ldpc_code_load(&s, &c, err, sizeof(err)) == -FEC_EINVAL &&
		          strstr(err, "NB_60_40_GF64.alist:1: ") != NULL,
		      "NB file as binary: %s", err);
		snprintf(s.code, sizeof(s.code), "no-such-file.alist");
		CHECK(ldpc_code_load(&s, &c, err, sizeof(err)) == -FEC_EINVAL &&
		          strstr(err, "no-such-file.alist") != NULL,
		      "missing file: %s", err);
		snprintf(s.code, sizeof(s.code), "nr-bg1");
		s.z = 17;
		CHECK(ldpc_code_load(&s, &c, err, sizeof(err)) == -FEC_EINVAL &&
		          strstr(err, "z=17") != NULL,
		      "nr-bg1 z=17: %s", err);
		CHECK(c == NULL, "a code came back from a failed load");
	}
}

int main(void)
{
	const char *dir = getenv("FECD_CODES_DIR");
	struct stat st;

	test_small_texts();
	test_codes_dir();
	test_random_matrices();
	test_generated();
	if (dir && *dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		test_files();
	else
		printf("SKIPPED (FECD_CODES_DIR %s%s): the standard matrices' sizes, encoders and "
		       "layers; the rest ran\n",
		       dir && *dir ? dir : "unset", dir && *dir ? " is not a folder" : "");
	printf("encoders checked against the reference: %u IRA cyclic, %u IRA, %u flat peeling, "
	       "%u other\n",
	       forms[LDPC_ENC_IRA_CYCLIC], forms[LDPC_ENC_IRA], forms[LDPC_ENC_FLAT],
	       forms[LDPC_ENC_PLAN]);
	CHECK(forms[LDPC_ENC_PLAN] == 0, "%u codes without a faster encoder", forms[LDPC_ENC_PLAN]);
	return check_done();
}
