/*
 * The ids family's codes, channel and drift limits (ids_code.h): random and watermark codebooks
 * (injective, seeded, the watermark's sparse words), codebook files and their errors naming
 * file:line, bad sizes and channel parameters named, the BSID channel's rates against Pi, Pd
 * and Ps, and the drift limits against the drift the channel makes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "ids_code.h"

static bool injective(const struct ids_code *c)
{
	for (uint32_t i = 0; i < c->N; i++)
		for (uint32_t a = 0; a < c->q; a++)
			for (uint32_t b = a + 1; b < c->q; b++)
				if (c->cw[i * c->q + a] == c->cw[i * c->q + b])
					return false;
	return true;
}

static void test_generated(void)
{
	struct ids_code *a = NULL, *b = NULL, *w = NULL;
	char err[256] = "";

	CHECK(ids_code_random(840, 16, 8, 1, &a, err, sizeof(err)) == 0, "%s", err);
	CHECK(ids_code_random(840, 16, 8, 1, &b, err, sizeof(err)) == 0, "%s", err);
	if (a && b) {
		CHECK(injective(a), "random codebook not injective");
		CHECK(!memcmp(a->cw, b->cw, 840 * 16 * 2), "same seed, different codes");
		CHECK(memcmp(a->cw, a->cw + 16, 16 * 2) != 0, "codebooks do not vary with i");
	}
	CHECK(ids_code_random(4, 256, 8, 3, &w, err, sizeof(err)) == 0, "%s", err);
	CHECK(w && injective(w), "q = 2^n random code not a permutation");
	ids_code_free(w);
	w = NULL;
	CHECK(ids_code_watermark(100, 16, 6, 2, &w, err, sizeof(err)) == 0, "%s", err);
	if (w) {
		unsigned light = 0;

		CHECK(injective(w), "watermark codebook not injective");
		/* symbol d is the d-th lightest word plus the position's watermark: C_i(0) is
		 * the watermark itself, and C_i(d) ^ C_i(0) has weight <= 2 for q = 16, n = 6
		 * (1 + 6 + 15 words of weight 0..2) */
		for (uint32_t i = 0; i < 100; i++)
			for (uint32_t d = 0; d < 16; d++)
				light += __builtin_popcount(w->cw[i * 16 + d] ^ w->cw[i * 16]) <= 2;
		CHECK(light == 1600,
		      "watermark: %u of 1600 words are not sparse words plus the mark",
		      1600 - light);
	}
	ids_code_free(a);
	ids_code_free(b);
	ids_code_free(w);
}

static void test_files(void)
{
	static const struct {
		const char *text, *want; /* want: NULL parses, else a part of the message */
	} cases[] = {
	    {"# two codebooks\n3 4 3 2\n0 3 5 6\n1 2 4 7\n", NULL},
	    {"3 4 3\n", "book:1: expected the sizes 'N q n K'"},
	    {"3 4 1 1\n0 1 0 1\n", "book:1: n: 2^n must be at least q"},
	    {"0 4 3 1\n", "book:1: number 1: expected a size in 1..65536"},
	    {"3 4 3 4\n", "book:1: K: expected 1..N=3"},
	    {"3 4 3 1\n0 3 5\n", "book:2: expected a codebook"},
	    {"3 4 3 1\n0 3 5 8\n", "book:2:"},
	    {"3 4 3 1\n0 3 5 3\n", "book:2: codeword 4 of this codebook repeats"},
	    {"3 4 3 2\n0 3 5 6\n", "book:3:"},
	    {"3 4 3 1\n0 3 5 6\n1 2 4 7\n", "book:3: expected the end of the file"},
	    {"3 4 3 1\n0 x 5 6\n", "book:2:"},
	};

	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ids_code *c = NULL;
		char err[256] = "";
		const int ret = ids_code_parse(cases[k].text, "book", &c, err, sizeof(err));

		if (!cases[k].want) {
			CHECK(ret == 0, "case %u: %s", k, err);
			if (c) {
				CHECK(c->N == 3 && c->cw[2 * 4 + 1] == 3 && c->cw[1 * 4 + 3] == 7,
				      "case %u: codebooks not repeated as i mod K", k);
				uint8_t sym[3] = {1, 3, 2}, bits[9];

				ids_code_encode(c, sym, bits);
				CHECK(!memcmp(bits, "\0\1\1\1\1\1\1\0\1", 9),
				      "encoding 1 3 2: not 011 111 101 MSB first");
			}
		} else {
			CHECK(ret < 0 && strstr(err, cases[k].want),
			      "case %u: got %d '%s', want '%s'", k, ret, err, cases[k].want);
		}
		ids_code_free(c);
	}
}

static void test_bad_params(void)
{
	struct ids_code *c = NULL;
	char err[256] = "";
	struct ids_chan ch = {0.6, 0.4, 0.0};
	int lo, hi;

	CHECK(ids_code_random(0, 16, 8, 1, &c, err, sizeof(err)) < 0 && strstr(err, "N:"),
	      "N = 0: '%s'", err);
	CHECK(ids_code_random(10, 16, 3, 1, &c, err, sizeof(err)) < 0 &&
	          strstr(err, "2^n must be at least q"),
	      "2^n < q: '%s'", err);
	CHECK(ids_code_random(10, 512, 10, 1, &c, err, sizeof(err)) < 0 && strstr(err, "q:"),
	      "q = 512: '%s'", err);
	CHECK(ids_code_random(10, 4, 17, 1, &c, err, sizeof(err)) < 0 && strstr(err, "n:"),
	      "n = 17: '%s'", err);
	CHECK(ids_code_random(4097, 4, 2, 1, &c, err, sizeof(err)) < 0 && strstr(err, "N:"),
	      "N = 4097: '%s'", err);
	CHECK(ids_chan_check(&ch, err, sizeof(err)) < 0 && strstr(err, "pi + pd"),
	      "pi + pd = 1: '%s'", err);
	ch = (struct ids_chan){0.1, 0.1, 0.7};
	CHECK(ids_chan_check(&ch, err, sizeof(err)) < 0 && strstr(err, "ps"), "ps = 0.7: '%s'",
	      err);
	ch = (struct ids_chan){-0.1, 0.1, 0.0};
	CHECK(ids_drift_limits(&ch, 10, 1e-10, &lo, &hi, err, sizeof(err)) < 0 && strstr(err, "pi"),
	      "pi < 0: '%s'", err);
}

/* The channel's rates: insertions, deletions and flips counted by the drift and by a channel
 * with one kind of event at a time. */
static void test_channel(void)
{
	const size_t n = 200000;
	uint8_t *bits = malloc(n), *out = malloc(ids_bsid_max_out(n));
	struct fec_prng p;
	size_t got, flips = 0;
	struct ids_chan ins = {0.05, 0.0, 0.0}, del = {0.0, 0.03, 0.0}, sub = {0.0, 0.0, 0.1};

	fec_prng_seed(&p, 3);
	fec_prng_bits(&p, bits, n);
	/* insertions only: pi / (1 - pi) extra bits per bit */
	ids_bsid_apply(&ins, &p, bits, n, out, ids_bsid_max_out(n), &got);
	CHECK(fabs((double)(got - n) / n - 0.05 / 0.95) < 0.003, "pi 0.05: %zu bits out of %zu",
	      got, n);
	ids_bsid_apply(&del, &p, bits, n, out, ids_bsid_max_out(n), &got);
	CHECK(fabs((double)(n - got) / n - 0.03) < 0.002, "pd 0.03: %zu bits out of %zu", got, n);
	ids_bsid_apply(&sub, &p, bits, n, out, ids_bsid_max_out(n), &got);
	CHECK(got == n, "ps only: length changed");
	for (size_t k = 0; k < n && got == n; k++)
		flips += out[k] != bits[k];
	CHECK(fabs((double)flips / n - 0.1) < 0.004, "ps 0.1: %zu flips in %zu", flips, n);
	free(bits);
	free(out);
}

/* The drift after T bits leaves the limits no more often than p_excl says (p_excl = 1e-2, so
 * that it can be counted), and the Fig. 17 limits are what NOTES.md reports. */
static void test_limits(void)
{
	const struct ids_chan ch = {0.01, 0.01, 0.0};
	const unsigned T = 400, runs = 20000;
	uint8_t bits[400], out[1400];
	struct fec_prng p;
	char err[256];
	int lo, hi, lo2, hi2;
	unsigned outside = 0;

	CHECK(ids_drift_limits(&ch, T, 1e-2, &lo, &hi, err, sizeof(err)) == 0, "%s", err);
	CHECK(ids_drift_limits(&ch, T, 1e-6, &lo2, &hi2, err, sizeof(err)) == 0, "%s", err);
	CHECK(lo2 < lo && hi2 > hi, "smaller p_excl, limits not wider: [%d,%d] [%d,%d]", lo, hi,
	      lo2, hi2);
	memset(bits, 0, sizeof(bits));
	fec_prng_seed(&p, 11);
	for (unsigned r = 0; r < runs; r++) {
		size_t got;
		long drift;

		ids_bsid_apply(&ch, &p, bits, T, out, sizeof(out), &got);
		drift = (long)got - T;
		outside += drift < lo || drift > hi;
	}
	/* at most 1e-2 expected; 2e-2 leaves room for the count's spread (sd 0.0007) */
	CHECK(outside <= runs / 50, "drift outside [%d, %d] in %u of %u runs", lo, hi, outside,
	      runs);
	CHECK(outside >= runs / 1000,
	      "drift outside [%d, %d] in only %u of %u runs: limits too "
	      "wide for p_excl 1e-2",
	      lo, hi, outside, runs);
	const struct ids_chan fig = {1e-3, 1e-3, 0.0};
	CHECK(ids_drift_limits(&fig, 6720, 1e-10, &lo, &hi, err, sizeof(err)) == 0, "%s", err);
	printf("Fig. 17 (tau 6720, p 1e-3, p_excl 1e-10): frame drift [%d, %d]\n", lo, hi);
	CHECK(ids_drift_limits(&fig, 8, 1e-10, &lo, &hi, err, sizeof(err)) == 0, "%s", err);
	printf("Fig. 17 codeword (n 8): drift [%d, %d]\n", lo, hi);
	CHECK(lo >= -8 && lo < 0 && hi > 0, "codeword limits [%d, %d]", lo, hi);
}

int main(void)
{
	test_generated();
	test_files();
	test_bad_params();
	test_channel();
	test_limits();
	return check_done();
}
