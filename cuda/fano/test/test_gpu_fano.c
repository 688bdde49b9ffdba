/*
 * The GPU fano decoder against the CPU reference (codec/fano/fano_decode.c), bit for bit,
 * through the public GPU API (a lane): every job's status, out_bits, soft_count, work (cycles)
 * and metric (its float's bits) and the decoded bytes must be equal; the first difference of a
 * case is reported with the case, the job, the field and, for the bits, the first differing bit.
 * Cases: the three presets and random codes (K 3..64, n 2..4, random polynomials, frames of 1 to
 * 400 bits), UFA and BFA (merge 1..4), deltas 8..64, budgets from 1 cycle per stage (most frames
 * not converged) to 100, Eb/N0 2..6 dB, input as int8, packed 4-bit and float32 LLRs (with
 * exact halves, NaN and out-of-range values for the quantizer), the budget ladder on and off
 * (FECD_FANO_GPU_LADDER=0), batches with erased jobs (a wrong input length), batches of more
 * frames than the grid has threads, and one batch decoded again on the device (NO_COPY_IN) to
 * the same result; all of it with each build of the kernels (FECD_FANO_GPU_KERNEL: 2, the
 * default, 1 and 0, last session's, kept for measurements). Exits 77 without a GPU.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fano_frames.h"
#include "fecd_cuda.h"
#include "gpu_test.h"
#include "softbits.h"

enum kind { IN_S8, IN_S4, IN_F32 };
static const char *const kind_name[] = {"s8", "s4", "f32"};

/* One case's batch: the CPU's and the GPU's inputs (the same symbols), jobs and outputs. */
struct batch {
	uint32_t count, nsym;
	size_t stride, gstride, ostride; /* CPU input (symbols), GPU input (kind's units), out */
	int8_t *cpu_in;                  /* s8 (and s4 expanded) */
	float *f32;                      /* f32 kind: both decoders' input */
	uint8_t *s4;                     /* s4 kind: the GPU's input */
	struct fec_job *jobs[2];
	uint8_t *out[2];
};

static unsigned cases, converged_jobs, unconverged_jobs;
static const char *walker; /* FECD_FANO_GPU_KERNEL of the cases being run */

static void batch_free(struct batch *b)
{
	free(b->cpu_in);
	free(b->f32);
	free(b->s4);
	for (int i = 0; i < 2; i++) {
		free(b->jobs[i]);
		free(b->out[i]);
	}
	memset(b, 0, sizeof(*b));
}

/* The frames as a batch of count + 2 jobs (jobs 1 and count + 1 erased: one symbol short). */
static int batch_make(const struct frames *f, enum kind kind, struct fec_prng *p, float scale,
                      struct batch *b)
{
	memset(b, 0, sizeof(*b));
	b->count = f->count + 2;
	b->nsym = f->nsym;
	b->stride = f->nsym + 5; /* slots not multiples of anything */
	b->ostride = (f->nbits + 7) / 8 + 3;
	b->cpu_in = calloc(b->count, b->stride);
	for (int i = 0; i < 2; i++) {
		b->jobs[i] = calloc(b->count, sizeof(struct fec_job));
		b->out[i] = calloc(b->count, b->ostride);
		if (!b->jobs[i] || !b->out[i])
			return -1;
	}
	if (!b->cpu_in)
		return -1;
	for (uint32_t j = 0; j < b->count; j++) {
		const uint32_t src = j == 0 ? 0 : j - 1 < f->count ? j - 1 : f->count - 1;
		const bool erased = j == 1 || j == b->count - 1;
		const uint32_t len = erased ? f->nsym - 1 : f->nsym;

		memcpy(b->cpu_in + j * b->stride, f->in + (size_t)src * f->nsym, f->nsym);
		for (int i = 0; i < 2; i++)
			b->jobs[i][j] = (struct fec_job){.in_len = len, .own_len = len};
	}
	if (kind == IN_S4) {
		b->gstride = (b->stride + 1) / 2 + 1;
		b->s4 = calloc(b->count, b->gstride);
		if (!b->s4)
			return -1;
		for (uint32_t j = 0; j < b->count; j++) {
			uint8_t *slot = b->s4 + j * b->gstride;
			int8_t *cpu = b->cpu_in + j * b->stride;

			for (uint32_t s = 0; s < b->nsym; s++) {
				long q = lround(cpu[s] / 18.0);

				q = q > 7 ? 7 : q < -8 ? -8 : q; /* -8 too: the expansion's -7 */
				slot[s / 2] |=
				    (uint8_t)(((unsigned long)q & 0xfu) << (s & 1 ? 0 : 4));
			}
			fec_syms_to_s8(FECD_FMT_S4_PACKED, slot, b->nsym, false, 1.0f, cpu);
		}
	} else if (kind == IN_F32) {
		b->gstride = b->stride;
		b->f32 = calloc((size_t)b->count * b->stride, sizeof(float));
		if (!b->f32)
			return -1;
		for (size_t i = 0; i < (size_t)b->count * b->stride; i++) {
			const double u = fec_prng_uniform(p);
			float v = (float)((b->cpu_in[i] + fec_prng_uniform(p) - 0.5) / scale);

			if (u < 0.02) /* exactly half a step: rounds away from zero */
				v = (float)((floor(b->cpu_in[i]) + 0.5) / scale);
			else if (u < 0.025)
				v = NAN;
			else if (u < 0.03)
				v = (u < 0.0275 ? 1e9f : -1e9f);
			b->f32[i] = v;
		}
	} else {
		b->gstride = b->stride;
	}
	return 0;
}

static struct fec_batch batch_view(const struct batch *b, enum kind kind, int side)
{
	struct fec_batch fb = {.count = b->count,
	                       .jobs = b->jobs[side],
	                       .in_stride = side == 1 ? b->gstride : b->stride,
	                       .out = b->out[side],
	                       .out_stride = b->ostride};

	if (kind == IN_F32)
		fb.in_f32 = b->f32;
	else if (kind == IN_S4 && side == 1)
		fb.in = (const int8_t *)b->s4;
	else
		fb.in = b->cpu_in;
	return fb;
}

/* The GPU's jobs and bytes against the CPU's; false at the first difference (reported). */
static bool compare(const char *name, const struct batch *b)
{
	for (uint32_t j = 0; j < b->count; j++) {
		const struct fec_job *c = &b->jobs[0][j], *g = &b->jobs[1][j];
		const uint8_t *oc = b->out[0] + j * b->ostride, *og = b->out[1] + j * b->ostride;
		const char *field = c->status != g->status           ? "status"
		                    : c->out_bits != g->out_bits     ? "out_bits"
		                    : c->soft_count != g->soft_count ? "soft_count"
		                    : c->work != g->work             ? "work (cycles)"
		                    : memcmp(&c->metric, &g->metric, sizeof(float)) ? "metric"
		                                                                    : NULL;

		if (field) {
			CHECK(0,
			      "%s: job %u: %s differs: CPU status %u work %u metric %.4f out_bits "
			      "%u, GPU status %u work %u metric %.4f out_bits %u",
			      name, j, field, c->status, c->work, c->metric, c->out_bits, g->status,
			      g->work, g->metric, g->out_bits);
			return false;
		}
		for (uint32_t i = 0; i < c->out_bits; i++)
			if ((oc[i >> 3] ^ og[i >> 3]) >> (7 - (i & 7)) & 1u) {
				CHECK(
				    0,
				    "%s: job %u (status %u, work %u): bits differ, first at bit %u",
				    name, j, c->status, c->work, i);
				return false;
			}
		if (c->status == FECD_STATUS_DECODED)
			converged_jobs++;
		else if (c->status == FECD_STATUS_NOT_CONVERGED)
			unconverged_jobs++;
	}
	return true;
}

/* One case: frames of code text at ebn0 through the CPU and the GPU decoder. */
static void run_case(struct gpu_test *g, const char *text, uint32_t count, double ebn0,
                     enum kind kind, bool ladder, bool again, uint64_t seed)
{
	char name[480], dtext[400], err[400] = "";
	struct fec_decoder *dec = NULL;
	struct fecd_cuda_decoder *gdec = NULL;
	struct fec_spec spec;
	struct fec_prng p;
	struct frames f;
	struct batch b;
	void *scratch = NULL;
	unsigned flags = kind == IN_S4 ? FECD_CUDA_IN_S4 : 0;

	snprintf(name, sizeof(name), "%s at %.1f dB, %s input, ladder %s, walker %s", text, ebn0,
	         kind_name[kind], ladder ? "on" : "off", walker);
	snprintf(dtext, sizeof(dtext), "%s%s", text, kind == IN_F32 ? ",in=f32" : "");
	fec_prng_seed(&p, seed ^ 0x5eed);
	if (frames_make(&f, text, count, ebn0, seed)) {
		CHECK(0, "%s: frames", name);
		return;
	}
	if (batch_make(&f, kind, &p, f.spec.frame.llr_scale, &b) ||
	    fec_spec_from_string(dtext, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		CHECK(0, "%s: setting up: %s", name, err);
		goto out;
	}
	scratch = malloc(fec_decoder_info(dec)->scratch_bytes);
	struct fec_batch cb = batch_view(&b, kind, 0), gb = batch_view(&b, kind, 1);

	CHECK(scratch && fec_decode(dec, scratch, &cb, 0, cb.count) == 0, "%s: CPU decode", name);
	setenv("FECD_FANO_GPU_LADDER", ladder ? "1" : "0", 1);
	if (fecd_cuda_decoder_create(g->ctx, dec, &gdec, err, sizeof(err)) ||
	    fecd_cuda_lane_submit(g->lane, gdec, &gb, flags, err, sizeof(err)) ||
	    fecd_cuda_lane_wait(g->lane, err, sizeof(err))) {
		CHECK(0, "%s: GPU decode: %s", name, err);
		goto out;
	}
	{ /* the build asked for is the one that ran */
		char want[32];

		snprintf(want, sizeof(want), "walker %s>", walker);
		CHECK(strstr(fecd_cuda_decoder_describe(gdec), want) != NULL,
		      "%s: the decoder is %s, not the walker asked for", name,
		      fecd_cuda_decoder_describe(gdec));
	}
	cases++;
	if (!compare(name, &b))
		goto out;
	if (again) { /* the input already on the device, decoded once more */
		memset(b.out[1], 0, (size_t)b.count * b.ostride);
		for (uint32_t j = 0; j < b.count; j++)
			b.jobs[1][j].status = 0, b.jobs[1][j].work = 0;
		if (fecd_cuda_lane_submit(g->lane, gdec, &gb, flags | FECD_CUDA_NO_COPY_IN, err,
		                          sizeof(err)) ||
		    fecd_cuda_lane_wait(g->lane, err, sizeof(err)))
			CHECK(0, "%s: GPU decode again: %s", name, err);
		else
			compare(name, &b);
	}
out:
	fecd_cuda_decoder_destroy(gdec);
	fec_decoder_destroy(dec);
	free(scratch);
	batch_free(&b);
	frames_free(&f);
}

/* Random polynomials of K bits tapping the current and the oldest input (Karn's notation). */
static void random_code(struct fec_prng *p, char *text, size_t len)
{
	static const unsigned cycles[] = {1, 2, 3, 5, 10, 30, 100};
	static const unsigned deltas[] = {8, 16, 32, 64};
	const unsigned k = 3 + (unsigned)(fec_prng_next(p) % 62);
	const unsigned n = 2 + (unsigned)(fec_prng_next(p) % 3);
	const bool bfa = fec_prng_next(p) & 1;
	const uint64_t mask = k == 64 ? ~0ull : (1ull << k) - 1;
	int used = snprintf(
	    text, len, "fano,k=%u,frame_bits=%u,algo=%s,cycles=%u,delta=%u,merge=%u,polys_karn=", k,
	    1 + (unsigned)(fec_prng_next(p) % 400), bfa ? "bfa" : "ufa",
	    cycles[fec_prng_next(p) % 7], deltas[fec_prng_next(p) % 4],
	    1 + (unsigned)(fec_prng_next(p) % 4));

	for (unsigned r = 0; r < n; r++) {
		const uint64_t poly = (fec_prng_next(p) & mask) | 1u | 1ull << (k - 1);

		used += snprintf(text + used, len - (size_t)used, "%s%" PRIx64, r ? ":" : "", poly);
	}
}

int main(void)
{
	static const char *const presets[] = {"wspr",
	                                      "wspr,algo=bfa",
	                                      "nasa-k32,cycles=20",
	                                      "nasa-k32,algo=bfa,cycles=20",
	                                      "whd-k7",
	                                      "whd-k7,algo=bfa,cycles=30"};
	struct gpu_test g = {0};
	struct fec_prng p;
	int rc;

	rc = gpu_test_open(&g);
	if (rc)
		return rc;
	for (unsigned v = 0; v < 3; v++) {
		walker = (const char *[]){"2", "1", "0"}[v];
		setenv("FECD_FANO_GPU_KERNEL", walker, 1);
		for (unsigned i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
			for (unsigned e = 0; e < 3; e++)
				run_case(&g, presets[i], i < 4 ? 48 : 96, 2.0 + 2.0 * e,
				         (enum kind)((i + e) % 3), (i + e) % 2 == 0,
				         i == 0 && e == 0, 100 + 10 * i + e);
		/* more frames than the grid has threads (or thread pairs): threads take
		 * several frames in turn, in every rung */
		run_case(&g, "fano,k=3,polys=7:5,frame_bits=3,cycles=3", 300000, 2.0, IN_S8, true,
		         false, 7);
		run_case(&g, "fano,k=5,polys=23:35,frame_bits=2,cycles=4,algo=bfa", 150000, 2.0,
		         IN_S4, true, false, 8);
		fec_prng_seed(&p, 16);
		for (unsigned i = 0; i < 60; i++) {
			char text[320];

			random_code(&p, text, sizeof(text));
			run_case(&g, text, 64, 2.0 + 4.0 * fec_prng_uniform(&p), (enum kind)(i % 3),
			         i % 4 != 3, false, 1000 + i);
		}
	}
	printf("%u cases, GPU = CPU on %u decoded and %u not converged jobs compared\n", cases,
	       converged_jobs, unconverged_jobs);
	CHECK(converged_jobs > 1000 && unconverged_jobs > 100, "both outcomes compared many times");
	gpu_test_close(&g);
	return check_done();
}
