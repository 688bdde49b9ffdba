/*
 * The GPU's side of the conformance test (tests/codec/test_conformance.c): every family and
 * every preset from the codec's tables (tests/lib/conformance.c builds the cases) that the GPU
 * decodes (fecd_cuda_supports) is decoded on the GPU, through the public GPU API (a lane), and
 * must give what the CPU decoder gives: the noiseless batch decoded back to the bits sent, and
 * on it and on the noisy batch (AWGN at 4 dB) every job's status, out_bits, soft_count and work
 * equal and the output bytes equal. Metric and soft values must be equal bit for bit, or, for
 * the float rules whose device functions round differently from the CPU's (spa's tanh: over the
 * iterations the magnitudes part by a few percent, as cuda/ldpc/test/test_gpu_ldpc.c allows;
 * nbldpc's FFT-BP, whose group sums and fast-math exponentials round otherwise, its symbol
 * log-probabilities all of one sign: cuda/nbldpc/test/test_gpu_nbldpc.c holds them closer),
 * of the same sign; ids (without an outer code) within IDS_SOFT_TOL: its posteriors are the
 * CPU's probabilities bit for bit, their logarithms the device's (cuda/ids/IDS_GPU.md); with
 * its outer nbldpc code, nbldpc's rule. The summary says which cases were bit for bit. Codes the
 * GPU does not decode, and presets whose code file is absent, are listed as skipped. Exits 77
 * without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conformance.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "gpu_test.h"

static unsigned ran, exact, skipped;

/* ids soft values (log-probabilities): relative to max(1, |value|), as conf_compare measures */
#define IDS_SOFT_TOL 1e-5f

/* How close soft values must be where they are not bit for bit (conf_compare's tolerance). */
static float loose_tolerance(const struct conf_case *c)
{
	if (c->spec.family == FECD_FAMILY_IDS && !c->spec.u.ids.outer[0])
		return IDS_SOFT_TOL;
	return CONF_SIGNS_ONLY;
}

/* Decodes b on the GPU into r. */
static int decode_gpu(struct gpu_test *g, const struct fecd_cuda_decoder *dec, const struct conf_case *c,
                      const struct conf_batch *b, struct conf_result *r, char *err, size_t len)
{
	struct fec_batch fb = conf_batch_view(c, b, r);
	int rc = fecd_cuda_lane_submit(g->lane, dec, &fb, 0, err, len);

	return rc ? rc : fecd_cuda_lane_wait(g->lane, err, len);
}

/* The GPU against the CPU on one batch; false when they differ beyond bit for bit. */
static bool compare_batch(struct gpu_test *g, const struct fecd_cuda_decoder *dec,
                          const struct conf_case *c, const struct conf_batch *b, const char *what)
{
	struct conf_result rc = {0}, rg = {0};
	char why[400] = "";
	bool same = false;

	if (conf_result_alloc(c, b, &rc) || conf_result_alloc(c, b, &rg)) {
		CHECK(0, "%s: out of memory", c->name);
		goto out;
	}
	CHECK(conf_decode_cpu(c, b, &rc) == 0, "%s, %s: CPU decode", c->name, what);
	if (decode_gpu(g, dec, c, b, &rg, why, sizeof(why))) {
		CHECK(0, "%s, %s: GPU decode: %s", c->name, what, why);
		goto out;
	}
	if (b == &c->clean)
		CHECK(conf_check_round_trip(c, b, &rg, why, sizeof(why)) == 0,
		      "%s, %s: GPU round trip: %s", c->name, what, why);
	same = conf_compare(c, b, &rc, &rg, 0.0f, why, sizeof(why)) == 0;
	if (!same)
		CHECK(conf_compare(c, b, &rc, &rg, loose_tolerance(c), why, sizeof(why)) == 0,
		      "%s, %s: GPU = CPU: %s", c->name, what, why);
out:
	conf_result_free(&rc);
	conf_result_free(&rg);
	return same;
}

static void run_case(struct gpu_test *g, unsigned i)
{
	struct conf_case c;
	struct fecd_cuda_decoder *dec = NULL;
	char why[400];
	int rc = conf_case_open(i, &c, why, sizeof(why));

	if (rc > 0) {
		printf("  %s\n", why);
		skipped++;
		return;
	}
	CHECK(rc == 0, "case %u: %s", i, why);
	if (rc)
		return;
	if (!fecd_cuda_supports(&c.spec)) {
		printf("  %s: skipped, the GPU does not decode it\n", c.name);
		skipped++;
		goto out;
	}
	if (fecd_cuda_decoder_create(g->ctx, c.dec, &dec, why, sizeof(why))) {
		CHECK(0, "%s: GPU decoder: %s", c.name, why);
		goto out;
	}
	bool same = compare_batch(g, dec, &c, &c.clean, "noiseless");
	same &= compare_batch(g, dec, &c, &c.noisy, "AWGN");
	printf("  %s: %s; %s\n", c.name, same ? "bit for bit" : "equal up to float rounding",
	       fecd_cuda_decoder_describe(dec));
	ran++;
	exact += same;
	fecd_cuda_decoder_destroy(dec);
out:
	conf_case_close(&c);
}

int main(void)
{
	struct gpu_test g = {0};
	int rc;

	rc = gpu_test_open(&g);
	if (rc)
		return rc;
	printf("%u families, %u presets; codes folder %s\n", fec_family_count(), fec_preset_count(),
	       fec_codes_dir());
	for (unsigned i = 0; i < conf_case_count(); i++)
		run_case(&g, i);
	printf("%u cases on the GPU (%u bit for bit), %u skipped\n", ran, exact, skipped);
	CHECK(ran > 0, "some case ran on the GPU");
	gpu_test_close(&g);
	return check_done();
}
