/*
 * The GPU ids decoder against the CPU one, through the public GPU API (a lane), job by job.
 * Cases: the seed's Fig. 17 code (tvb-fig17) with global, local and automatic storage; generated
 * codes for every q = 2..256 with n = 2 log2 q and others (watermark codes, n = log2 q + 1, wide
 * corridors that take the kernels' longer rows); hard and soft input, int8 and float32; frames
 * through the BSID channel (their lengths vary within a batch, with insertions and deletions),
 * frames too short for the drift limits, and a channel the decoder believes error-free whose
 * flipped frames no path explains: both must come back erased; the Davey-MacKay concatenation
 * (dm-ldpc: the outer nbldpc decoder on the GPU).
 *
 * What must agree: every job's status, out_bits, soft_count, work and metric, and its output
 * bytes, exactly; soft values (symbol log-probabilities) within SOFT_ABS + SOFT_REL |value|. The
 * GPU does the CPU's float and double operations in the CPU's order, so the values are the same
 * but for the device's double log (an ulp): the tolerance also holds against a CPU whose lattice
 * rounds otherwise (codec/ids/NOTES.md: posteriors within about 1e-6 relative). The
 * concatenation's outer decoder is nbldpc's FFT-BP, whose GPU sums round otherwise
 * (cuda/nbldpc/test/test_gpu_nbldpc.c): its decisions must agree, its soft values within
 * OUTER_ABS + OUTER_REL |value|, or both below -OUTER_TAIL. Every difference names the case, job,
 * field and first differing index. Exits 77 without a GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "gpu_test.h"
#include "ids_code.h"
#include "prng.h"
#include "twin_batch.h"

#define SOFT_ABS  1e-4f /* inner posteriors: absolute tolerance (log-probabilities) */
#define SOFT_REL  1e-5f /* and relative */
#define OUTER_ABS 0.05f /* the concatenation's soft output (nbldpc FFT-BP on the GPU) */
#define OUTER_REL 0.1f
/* and from this magnitude on both need only be below it (test_gpu_nbldpc.c's SOFT_TAIL: a symbol
 * probability under 3e-4, whose log FFT-BP's float rounding moves by tens: measured on an H200,
 * -34 on the CPU and -68 on the GPU) */
#define OUTER_TAIL 8.0f

struct tcase {
	const char *spec;  /* the decoder */
	double pi, pd, ps; /* the channel the frames go through */
	double sigma;      /* AWGN on the received bits (0: hard bits) */
	unsigned frames;   /* frames through the channel (plus SHORT_EVERY short ones) */
	bool soft;         /* soft output wanted */
	bool want_erased;  /* some channel frames must be erased (no path) */
};

/* Every SHORT_EVERY-th job, and the last, is cut to half the transmitted length: below the
 * drift limits. */
#define SHORT_EVERY 7

static const struct tcase cases[] = {
    /* the seed's Fig. 17 setting */
    {"ids,code=random,N=840,q=16,n=8,seed=1,pi=0.001,pd=0.001,ps=0", 1e-3, 1e-3, 0, 0, 16, true},
    {"ids,code=random,N=840,q=16,n=8,seed=1,pi=0.001,pd=0.001,ps=0,storage=global", 2e-3, 2e-3, 0,
     0.5, 12, true},
    {"ids,code=random,N=840,q=16,n=8,seed=1,pi=0.001,pd=0.001,ps=0,storage=local,in=f32", 2e-3,
     2e-3, 0, 0.5, 12, false},
    /* the exact decoder (no pruning of alpha) */
    {"ids,code=random,N=840,q=16,n=8,seed=1,pi=0.001,pd=0.001,ps=0,prune=0", 1e-3, 1e-3, 0, 0.5, 8,
     true},
    /* q = 2..256, n = 2 log2 q, global and local, hard and soft, int8 and float32 */
    {"ids,code=random,N=300,q=2,n=2,seed=3,pi=0.01,pd=0.01,ps=0.01,storage=global", 0.01, 0.01,
     0.01, 0, 10, true},
    {"ids,code=random,N=300,q=2,n=2,seed=3,pi=0.01,pd=0.01,ps=0.01,storage=local,in=f32", 0.01,
     0.01, 0.01, 0.6, 10, true},
    {"ids,code=random,N=200,q=4,n=4,seed=4,pi=0.01,pd=0.01,ps=0.01,storage=local", 0.01, 0.01, 0.01,
     0, 10, true},
    {"ids,code=random,N=200,q=4,n=4,seed=4,pi=0.01,pd=0.01,ps=0.01,storage=global", 0.01, 0.01,
     0.01, 0.6, 10, true},
    {"ids,code=random,N=150,q=8,n=6,seed=5,pi=0.005,pd=0.005,ps=0.005,storage=global,in=f32", 0.005,
     0.005, 0.005, 0, 10, true},
    {"ids,code=random,N=150,q=8,n=6,seed=5,pi=0.005,pd=0.005,ps=0.005,storage=local", 0.005, 0.005,
     0.005, 0.6, 10, true},
    {"ids,code=random,N=120,q=16,n=8,seed=6,pi=0.01,pd=0.01,ps=0,storage=local", 0.01, 0.01, 0, 0,
     10, true},
    {"ids,code=random,N=80,q=32,n=10,seed=7,pi=0.003,pd=0.003,ps=0.001,storage=global", 0.003,
     0.003, 0.001, 0, 8, true},
    {"ids,code=random,N=80,q=32,n=10,seed=7,pi=0.003,pd=0.003,ps=0.001,storage=local", 0.003, 0.003,
     0.001, 0.6, 8, true},
    {"ids,code=random,N=60,q=64,n=12,seed=8,pi=0.002,pd=0.002,ps=0,storage=local,in=f32", 0.002,
     0.002, 0, 0.6, 6, true},
    {"ids,code=random,N=60,q=64,n=12,seed=8,pi=0.002,pd=0.002,ps=0,storage=global", 0.002, 0.002, 0,
     0, 6, true},
    {"ids,code=random,N=40,q=128,n=14,seed=9,pi=0.001,pd=0.001,ps=0,storage=global", 0.001, 0.001,
     0, 0.6, 5, true},
    {"ids,code=random,N=40,q=128,n=14,seed=9,pi=0.001,pd=0.001,ps=0,storage=local", 0.001, 0.001, 0,
     0, 5, true},
    {"ids,code=random,N=30,q=256,n=16,seed=10,pi=0.001,pd=0.001,ps=0,storage=local", 0.001, 0.001,
     0, 0, 4, true},
    {"ids,code=random,N=30,q=256,n=16,seed=10,pi=0.001,pd=0.001,ps=0,storage=global,in=f32", 0.001,
     0.001, 0, 0.6, 4, true},
    /* other n, watermark codes, soft output off */
    {"ids,code=watermark,N=200,q=16,n=5,seed=11,pi=0.01,pd=0.01,ps=0", 0.01, 0.01, 0, 0, 10, false},
    {"ids,code=random,N=100,q=64,n=7,seed=12,pi=0.002,pd=0.002,ps=0.002", 0.002, 0.002, 0.002, 0.6,
     8, true},
    {"ids,code=random,N=250,q=4,n=3,seed=13,pi=0.02,pd=0.02,ps=0.02,storage=local", 0.02, 0.02,
     0.02, 0, 10, true},
    /* wide corridors: M_n past 16 and past 32 (the kernels' longer rows) */
    {"ids,code=random,N=40,q=4,n=16,seed=14,pi=0.1,pd=0.1,ps=0.01,storage=global", 0.1, 0.1, 0.01,
     0, 6, true},
    {"ids,code=random,N=30,q=8,n=16,seed=15,pi=0.25,pd=0.25,ps=0.01,storage=local", 0.25, 0.25,
     0.01, 0, 4, true},
    /* a channel the decoder believes error-free: flipped frames have no path (erased) */
    {"ids,code=random,N=60,q=4,n=3,seed=16,pi=0,pd=0,ps=0", 0, 0, 0.01, 0, 12, true, true},
    /* the concatenation, single pass: inner on the GPU, outer nbldpc on the GPU */
    {"ids,code=watermark,N=500,q=16,n=6,seed=1,pi=0.01,pd=0.01,ps=0,"
     "outer=(nbldpc,code=regular,q=16,n=500,dv=2,dc=4,seed=1,iters=50)",
     0.01, 0.01, 0, 0, 12, true},
};

/* A batch of frames and both decodes of it. */
struct run {
	struct twin_batch b;
	const struct fec_info *info;
	uint32_t kb, shorts;
};

/* The case's frames through the BSID channel (and AWGN), in the decoder's input kind. */
static int run_make(const struct tcase *t, const struct fec_spec *spec, const struct fec_info *info,
                    uint64_t seed, struct run *r)
{
	const struct ids_chan ch = {t->pi, t->pd, t->ps};
	const uint32_t count = t->frames + 1 + t->frames / (SHORT_EVERY - 1);
	const size_t stride = info->max_frame_syms;
	struct fec_encoder *enc = NULL;
	struct fec_prng rng;
	uint8_t *bits = NULL, *cw = NULL, *rx = NULL;
	size_t tau = 0, nout, max_out;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->info = info;
	r->kb = info->frame_info_bits;
	if (twin_batch_alloc(&r->b, info, count, stride, (info->max_out_bits + 7) / 8))
		return -1;
	bits = malloc(r->kb);
	if (fec_encoder_create(spec, &enc))
		goto out;
	tau = fec_encoded_len(spec, r->kb);
	max_out = ids_bsid_max_out(tau);
	cw = malloc(tau);
	rx = malloc(max_out);
	if (!bits || !cw || !rx)
		goto out;
	fec_prng_seed(&rng, seed);
	for (uint32_t j = 0; j < count; j++) {
		size_t rho = 0;

		fec_prng_bits(&rng, bits, r->kb);
		if (fec_encode(enc, bits, r->kb, cw, &nout) || nout != tau)
			goto out;
		do
			ids_bsid_apply(&ch, &rng, cw, tau, rx, max_out, &rho);
		while (rho > stride);
		if (j % SHORT_EVERY == SHORT_EVERY - 1 || j == count - 1) {
			rho = tau / 2;
			r->shorts++;
		}
		for (size_t k = 0; k < rho; k++) {
			const double x = rx[k] ? -1.0 : 1.0;
			double llr = x * 1000.0;

			if (t->sigma > 0.0)
				llr = 2.0 * (x + t->sigma * fec_prng_gauss(&rng)) /
				      (t->sigma * t->sigma);
			const double s = llr * spec->frame.llr_scale;

			r->b.in[j * stride + k] = (int8_t)(s > 127    ? 127
			                                   : s < -128 ? -128
			                                              : lrint(s));
			r->b.in_f[j * stride + k] = (float)llr;
		}
		r->b.jobs[j] = (struct fec_job){.in_len = (uint32_t)rho, .own_len = (uint32_t)rho};
	}
	rc = 0;
out:
	fec_encoder_destroy(enc);
	free(bits);
	free(cw);
	free(rx);
	return rc;
}

/* Compares the decodes job by job; returns the jobs that differ. */
static unsigned compare(const char *name, const struct run *r, bool outer, bool soft,
                        unsigned *decoded, unsigned *erased, float *max_diff)
{
	const float abs_tol = outer ? OUTER_ABS : SOFT_ABS, rel_tol = outer ? OUTER_REL : SOFT_REL;
	unsigned bad = 0;

	const struct twin_batch *tb = &r->b;

	for (uint32_t j = 0; j < tb->count; j++) {
		const struct fec_job *a = &tb->cpu.jobs[j], *b = &tb->gpu.jobs[j];
		const uint8_t *oa = tb->cpu.out + j * tb->out_stride,
		              *ob = tb->gpu.out + j * tb->out_stride;
		const float *sa = tb->cpu.soft + j * tb->soft_stride,
		            *sb = tb->gpu.soft + j * tb->soft_stride;
		char why[200] = "";

		*decoded += a->status == FECD_STATUS_DECODED;
		*erased += a->status == FECD_STATUS_ERASED;
		if (a->status != b->status)
			snprintf(why, sizeof(why), "status: CPU %u, GPU %u", a->status, b->status);
		else if (a->out_bits != b->out_bits)
			snprintf(why, sizeof(why), "out_bits: CPU %u, GPU %u", a->out_bits,
			         b->out_bits);
		else if (a->soft_count != b->soft_count)
			snprintf(why, sizeof(why), "soft_count: CPU %u, GPU %u", a->soft_count,
			         b->soft_count);
		else if (a->work != b->work)
			snprintf(why, sizeof(why), "work: CPU %u, GPU %u", a->work, b->work);
		else if (memcmp(&a->metric, &b->metric, sizeof(float)))
			snprintf(why, sizeof(why), "metric: CPU %g, GPU %g", a->metric, b->metric);
		for (uint32_t k = 0; !why[0] && k < (a->out_bits + 7) / 8; k++)
			if (oa[k] != ob[k])
				snprintf(why, sizeof(why), "bits: byte %u: CPU %02x, GPU %02x", k,
				         oa[k], ob[k]);
		for (uint32_t k = 0; soft && !why[0] && k < a->soft_count; k++) {
			const float d = fabsf(sa[k] - sb[k]);

			if (outer && sa[k] < -OUTER_TAIL && sb[k] < -OUTER_TAIL)
				continue;
			if (!(d <= abs_tol + rel_tol * fabsf(sa[k])))
				snprintf(why, sizeof(why),
				         "soft: value %u (symbol %u, D %u): CPU %.9g, GPU %.9g", k,
				         k / r->info->soft_per_unit, k % r->info->soft_per_unit,
				         sa[k], sb[k]);
			else if (d > *max_diff)
				*max_diff = d;
		}
		if (why[0]) {
			CHECK(0, "%s: job %u (%u received values): %s", name, j, tb->jobs[j].in_len,
			      why);
			bad++;
		}
	}
	return bad;
}

static void run_case(struct gpu_test *g, const struct tcase *t, unsigned idx)
{
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	struct fecd_cuda_decoder *gdec = NULL;
	struct run r = {0};
	char err[400] = "";
	unsigned decoded = 0, erased = 0, bad;
	float max_diff = 0.0f;
	const bool outer = strstr(t->spec, "outer=") != NULL;

	if (fec_spec_from_string(t->spec, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		CHECK(0, "case %u %s: %s", idx, t->spec, err);
		return;
	}
	if (!fecd_cuda_supports(fec_decoder_spec(dec))) {
		CHECK(0, "case %u %s: the GPU does not take it", idx, t->spec);
		goto out;
	}
	if (fecd_cuda_decoder_create(g->ctx, dec, &gdec, err, sizeof(err))) {
		CHECK(0, "case %u %s: GPU decoder: %s", idx, t->spec, err);
		goto out;
	}
	if (run_make(t, &spec, fec_decoder_info(dec), 1000 + idx, &r)) {
		CHECK(0, "case %u %s: making frames", idx, t->spec);
		goto out;
	}
	if (twin_batch_decode(&r.b, dec, g, gdec, t->soft, err, sizeof(err))) {
		CHECK(0, "case %u %s: %s", idx, t->spec, err);
		goto out;
	}
	bad = compare(t->spec, &r, outer, t->soft, &decoded, &erased, &max_diff);
	printf("case %u: %s\n  %u jobs: %u decoded, %u erased; %u differ; soft values within "
	       "%.3g\n  %s\n",
	       idx, t->spec, r.b.count, decoded, erased, bad, max_diff,
	       fecd_cuda_decoder_describe(gdec));
	/* the cases must exercise what they claim: decoded frames, and the erasures */
	CHECK(decoded > 0, "case %u: some frame decoded", idx);
	CHECK(erased >= r.shorts + (t->want_erased ? 1 : 0),
	      "case %u: %u erased, the short frames and %s", idx, erased,
	      t->want_erased ? "some without a path" : "nothing else needed");
out:
	twin_batch_free(&r.b);
	fecd_cuda_decoder_destroy(gdec);
	fec_decoder_destroy(dec);
}

int main(int argc, char **argv)
{
	struct gpu_test g = {0};
	int rc;

	rc = gpu_test_open(&g);
	if (rc)
		return rc;
	printf("device: %s\n", fecd_cuda_device_info(g.ctx)->name);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (argc < 2 || strstr(cases[i].spec, argv[1]))
			run_case(&g, &cases[i], i);
	gpu_test_close(&g);
	return check_done();
}
