/*
 * The LDPC soft-in/soft-out entry (fec_decode_siso), on a generated code (no code files needed):
 * with no priors or zero priors it gives fec_decode's bits, soft values, status and iterations
 * for every algorithm, schedule, input type and output; priors that agree with the sent bits
 * take fewer iterations and lose no frame fec_decode decodes, and decode frames it does not;
 * priors alone decode an erased frame; bad calls and a family without the entry are refused
 * with a message.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codec_util.h"
#include "fec.h"
#include "prng.h"

#define CODE      "ldpc,code=peg,n=504,dv=3,seed=7"
#define FRAMES    48
#define LLR_SCALE 8.0f /* the family's default llr_scale */

/* A decoder, a batch of FRAMES noisy frames for it, and the sent output bits (one per byte). */
struct rig {
	struct fec_decoder *dec;
	const struct fec_info *info;
	struct fec_batch b;
	uint8_t *sent; /* FRAMES x max_out_bits */
	void *scratch;
};

static int rig_open(struct rig *r, const char *text, double ebn0, uint64_t seed)
{
	struct fec_spec spec;
	struct fec_encoder *enc;
	struct fec_prng p;
	uint8_t info[1024], code[1024];
	char err[256];
	size_t ncode;
	bool codeword;

	memset(r, 0, sizeof(*r));
	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &r->dec) || fec_encoder_create(&spec, &enc)) {
		fprintf(stderr, "%s: %s\n", text, err);
		return -1;
	}
	r->info = fec_decoder_info(r->dec);
	codeword = r->info->max_out_bits != r->info->frame_info_bits;
	r->b.count = FRAMES;
	r->b.in_stride = r->info->frame_syms;
	r->b.out_stride = (r->info->max_out_bits + 7) / 8;
	r->b.soft_stride = r->info->max_soft;
	r->b.jobs = calloc(FRAMES, sizeof(*r->b.jobs));
	r->b.in = calloc(FRAMES, r->b.in_stride);
	r->b.in_f32 = calloc(FRAMES, r->b.in_stride * sizeof(float));
	r->b.out = calloc(FRAMES, r->b.out_stride);
	r->b.soft = calloc(FRAMES, r->b.soft_stride * sizeof(float));
	r->sent = calloc(FRAMES, r->info->max_out_bits);
	r->scratch = malloc(r->info->scratch_bytes + 64);
	if (!r->b.jobs || !r->b.in || !r->b.in_f32 || !r->b.out || !r->b.soft || !r->sent ||
	    !r->scratch || r->info->frame_info_bits > sizeof(info) ||
	    r->info->frame_syms > sizeof(code))
		abort();
	fec_prng_seed(&p, seed);
	for (unsigned f = 0; f < FRAMES; f++) {
		int8_t *s8 = (int8_t *)r->b.in + (size_t)f * r->b.in_stride;
		float *f32 = (float *)r->b.in_f32 + (size_t)f * r->b.in_stride;

		fec_prng_bits(&p, info, r->info->frame_info_bits);
		if (fec_encode(enc, info, r->info->frame_info_bits, code, &ncode) ||
		    ncode != r->info->frame_syms)
			abort();
		/* the generated code punctures nothing: the codeword is what is sent */
		memcpy(r->sent + (size_t)f * r->info->max_out_bits, codeword ? code : info,
		       r->info->max_out_bits);
		util_channel_s8(&p, code, ncode, ebn0, (double)r->info->frame_info_bits / ncode,
		                LLR_SCALE, s8);
		for (size_t t = 0; t < ncode; t++)
			f32[t] = s8[t] / LLR_SCALE;
	}
	fec_encoder_destroy(enc);
	return 0;
}

static void rig_close(struct rig *r)
{
	fec_decoder_destroy(r->dec);
	free(r->b.jobs);
	free((void *)r->b.in);
	free((void *)r->b.in_f32);
	free(r->b.out);
	free(r->b.soft);
	free(r->sent);
	free(r->scratch);
}

static void reset_jobs(struct rig *r)
{
	for (uint32_t i = 0; i < r->b.count; i++)
		r->b.jobs[i] = (struct fec_job){
		    .in_len = r->info->frame_syms, .own_len = r->info->frame_syms, .status = 0xEE};
	memset(r->b.out, 0xA5, (size_t)r->b.count * r->b.out_stride);
	memset(r->b.soft, 0x5A, (size_t)r->b.count * r->b.soft_stride * sizeof(float));
}

/* What one decode left in the batch. */
struct result {
	struct fec_job jobs[FRAMES];
	uint8_t *out;
	float *soft;
};

static void result_take(struct rig *r, struct result *res)
{
	memcpy(res->jobs, r->b.jobs, sizeof(res->jobs));
	res->out = malloc((size_t)FRAMES * r->b.out_stride);
	res->soft = malloc((size_t)FRAMES * r->b.soft_stride * sizeof(float));
	if (!res->out || !res->soft)
		abort();
	memcpy(res->out, r->b.out, (size_t)FRAMES * r->b.out_stride);
	memcpy(res->soft, r->b.soft, (size_t)FRAMES * r->b.soft_stride * sizeof(float));
}

static bool result_equal(const struct rig *r, const struct result *a, const struct result *b)
{
	for (unsigned f = 0; f < FRAMES; f++)
		if (a->jobs[f].status != b->jobs[f].status || a->jobs[f].work != b->jobs[f].work ||
		    a->jobs[f].out_bits != b->jobs[f].out_bits ||
		    a->jobs[f].soft_count != b->jobs[f].soft_count)
			return false;
	return !memcmp(a->out, b->out, (size_t)FRAMES * r->b.out_stride) &&
	       !memcmp(a->soft, b->soft, (size_t)FRAMES * r->b.soft_stride * sizeof(float));
}

static void result_free(struct result *res)
{
	free(res->out);
	free(res->soft);
}

/* Whether frame f came back DECODED with the sent bits. */
static bool frame_right(const struct rig *r, unsigned f)
{
	const uint8_t *out = r->b.out + (size_t)f * r->b.out_stride;
	const uint8_t *sent = r->sent + (size_t)f * r->info->max_out_bits;

	if (r->b.jobs[f].status != FECD_STATUS_DECODED)
		return false;
	for (uint32_t j = 0; j < r->info->max_out_bits; j++)
		if ((out[j / 8] >> (7 - j % 8) & 1u) != sent[j])
			return false;
	return true;
}

/* Priors of magnitude mag on every output bit, with the sent bit's sign. */
static float *agreeing_priors(const struct rig *r, float mag)
{
	const size_t n = (size_t)FRAMES * r->info->max_soft;
	float *prior = malloc(n * sizeof(float));

	if (!prior)
		abort();
	for (size_t i = 0; i < n; i++)
		prior[i] = r->sent[i] ? -mag : mag;
	return prior;
}

/* No priors and zero priors: fec_decode's result, bit for bit (its SIMD passes against the
 * portable decoder that the soft-in/soft-out entry runs). */
static void test_zero_priors(const char *text)
{
	struct rig r;
	struct result plain, siso;
	float *zero;
	char err[256] = "";
	int ret;

	if (rig_open(&r, text, 1.5, 11)) {
		CHECK(0, "%s: no decoder", text);
		return;
	}
	CHECK(fec_decoder_has_siso(r.dec), "%s has decode_siso", text);
	reset_jobs(&r);
	CHECK(fec_decode(r.dec, r.scratch, &r.b, 0, FRAMES) == 0, "%s: fec_decode", text);
	result_take(&r, &plain);

	reset_jobs(&r);
	ret = fec_decode_siso(r.dec, r.scratch, &r.b, NULL, 0, 0, FRAMES, err, sizeof(err));
	CHECK(ret == 0, "%s: siso without priors: %d %s", text, ret, err);
	result_take(&r, &siso);
	CHECK(result_equal(&r, &plain, &siso), "%s: siso without priors = fec_decode", text);
	result_free(&siso);

	zero = calloc((size_t)FRAMES * r.info->max_soft, sizeof(float));
	reset_jobs(&r);
	ret = fec_decode_siso(r.dec, r.scratch, &r.b, zero, r.info->max_soft, 0, FRAMES, err,
	                      sizeof(err));
	CHECK(ret == 0, "%s: siso with zero priors: %d %s", text, ret, err);
	result_take(&r, &siso);
	CHECK(result_equal(&r, &plain, &siso), "%s: siso with zero priors = fec_decode", text);

	/* a job range past 0: the priors are read at job i's own place */
	reset_jobs(&r);
	ret =
	    fec_decode_siso(r.dec, r.scratch, &r.b, zero, r.info->max_soft, 5, 9, err, sizeof(err));
	CHECK(ret == 0 && r.b.jobs[4].status == 0xEE && r.b.jobs[14].status == 0xEE &&
	          r.b.jobs[5].status == plain.jobs[5].status &&
	          r.b.jobs[13].work == plain.jobs[13].work &&
	          !memcmp(r.b.soft + 13 * r.b.soft_stride, plain.soft + 13 * r.b.soft_stride,
	                  r.b.soft_stride * sizeof(float)),
	      "%s: jobs 5..13 only", text);
	free(zero);
	result_free(&siso);
	result_free(&plain);
	rig_close(&r);
}

/* Priors that agree with the sent bits: at a noise level where fec_decode fails some frames,
 * every frame it decodes stays right, fewer iterations in all, and fewer frames fail. */
static void test_agreeing_priors(const char *text)
{
	struct rig r;
	struct fec_job plain[FRAMES];
	bool right[FRAMES];
	unsigned fails = 0, fails_siso = 0, lost = 0;
	unsigned long work = 0, work_siso = 0;
	float *prior;
	char err[256] = "";

	if (rig_open(&r, text, 1.0, 23)) {
		CHECK(0, "%s: no decoder", text);
		return;
	}
	reset_jobs(&r);
	CHECK(fec_decode(r.dec, r.scratch, &r.b, 0, FRAMES) == 0, "%s: fec_decode", text);
	memcpy(plain, r.b.jobs, sizeof(plain));
	for (unsigned f = 0; f < FRAMES; f++) {
		right[f] = frame_right(&r, f);
		fails += !right[f];
		work += plain[f].work;
	}
	prior = agreeing_priors(&r, 1.5f);
	reset_jobs(&r);
	CHECK(fec_decode_siso(r.dec, r.scratch, &r.b, prior, r.info->max_soft, 0, FRAMES, err,
	                      sizeof(err)) == 0,
	      "%s: siso: %s", text, err);
	for (unsigned f = 0; f < FRAMES; f++) {
		fails_siso += !frame_right(&r, f);
		lost += right[f] && !frame_right(&r, f);
		work_siso += r.b.jobs[f].work;
	}
	CHECK(fails > 0, "%s: the noise fails some frames without priors (%u)", text, fails);
	CHECK(lost == 0, "%s: agreeing priors lose %u frames", text, lost);
	CHECK(fails_siso < fails, "%s: frames failed: %u with priors, %u without", text, fails_siso,
	      fails);
	CHECK(work_siso < work, "%s: iterations: %lu with priors, %lu without", text, work_siso,
	      work);
	free(prior);
	rig_close(&r);
}

/* The channel erased (all input 0): priors on every codeword bit are all there is, and decode
 * the frame in one iteration. */
static void test_priors_alone(const char *text)
{
	struct rig r;
	float *prior;
	char err[256] = "";
	unsigned right = 0, once = 0;

	if (rig_open(&r, text, 1.0, 5)) {
		CHECK(0, "%s: no decoder", text);
		return;
	}
	memset((void *)r.b.in, 0, (size_t)FRAMES * r.b.in_stride);
	memset((void *)r.b.in_f32, 0, (size_t)FRAMES * r.b.in_stride * sizeof(float));
	prior = agreeing_priors(&r, 2.0f);
	reset_jobs(&r);
	CHECK(fec_decode_siso(r.dec, r.scratch, &r.b, prior, r.info->max_soft, 0, FRAMES, err,
	                      sizeof(err)) == 0,
	      "%s: siso: %s", text, err);
	for (unsigned f = 0; f < FRAMES; f++) {
		right += frame_right(&r, f);
		once += r.b.jobs[f].work == 1;
	}
	CHECK(right == FRAMES && once == FRAMES,
	      "%s: erased frames with priors: %u right, %u in one "
	      "iteration of %u",
	      text, right, once, FRAMES);
	/* the posteriors are at least as sure as the priors, with their signs */
	CHECK(r.b.soft[0] * prior[0] >= prior[0] * prior[0] &&
	          r.b.jobs[0].soft_count == r.info->max_soft,
	      "%s: posterior %g for prior %g", text, r.b.soft[0], prior[0]);
	free(prior);
	rig_close(&r);
}

static void test_refused(void)
{
	struct rig r;
	struct fec_spec spec;
	struct fec_decoder *vit;
	float *prior;
	float *soft;
	char err[256] = "";
	int ret;

	if (rig_open(&r, CODE, 2.0, 3)) {
		CHECK(0, "no decoder");
		return;
	}
	prior = calloc((size_t)FRAMES * r.info->max_soft, sizeof(float));
	prior[r.info->max_soft + 3] = NAN;
	reset_jobs(&r);
	ret = fec_decode_siso(r.dec, r.scratch, &r.b, prior, r.info->max_soft, 0, FRAMES, err,
	                      sizeof(err));
	CHECK(ret == -FEC_EINVAL && strstr(err, "prior 3 of job 1 is not a finite number"),
	      "NaN prior: %d '%s'", ret, err);
	prior[r.info->max_soft + 3] = -INFINITY;
	ret = fec_decode_siso(r.dec, r.scratch, &r.b, prior, r.info->max_soft, 0, FRAMES, err,
	                      sizeof(err));
	CHECK(ret == -FEC_EINVAL && strstr(err, "prior 3 of job 1"), "infinite prior: %d '%s'", ret,
	      err);
	ret = fec_decode_siso(r.dec, r.scratch, &r.b, prior, 10, 0, FRAMES, err, sizeof(err));
	CHECK(ret == -FEC_EINVAL && strstr(err, "prior_stride 10 is below the"),
	      "short stride: %d '%s'", ret, err);
	soft = r.b.soft;
	r.b.soft = NULL;
	ret = fec_decode_siso(r.dec, r.scratch, &r.b, NULL, 0, 0, FRAMES, err, sizeof(err));
	CHECK(ret == -FEC_EINVAL && strstr(err, "no soft output buffer"), "no soft: %d '%s'", ret,
	      err);
	r.b.soft = soft;
	ret = fec_decode_siso(r.dec, r.scratch, &r.b, NULL, 0, 40, 9, err, sizeof(err));
	CHECK(ret == -FEC_EINVAL && strstr(err, "bad batch"), "past the batch: %d '%s'", ret, err);
	/* a job whose input is not one frame is erased, as fec_decode does */
	reset_jobs(&r);
	r.b.jobs[2].in_len--;
	ret = fec_decode_siso(r.dec, r.scratch, &r.b, NULL, 0, 0, 4, err, sizeof(err));
	CHECK(ret == 0 && r.b.jobs[2].status == FECD_STATUS_ERASED &&
	          r.b.jobs[3].status != FECD_STATUS_ERASED,
	      "short job erased: %d %u", ret, r.b.jobs[2].status);
	free(prior);
	rig_close(&r);

	/* a family without the entry */
	CHECK(fec_spec_from_string("ccsds", &spec, err, sizeof(err)) == 0, "%s", err);
	CHECK(fec_decoder_create(&spec, &vit) == 0, "viterbi decoder");
	CHECK(!fec_decoder_has_siso(vit), "viterbi has no decode_siso");
	memset(&r.b, 0, sizeof(r.b));
	err[0] = '\0';
	ret = fec_decode_siso(vit, NULL, &r.b, NULL, 0, 0, 0, err, sizeof(err));
	CHECK(ret == -FEC_ENOTSUP &&
	          strstr(err, "the viterbi decoder has no soft-in/soft-out entry (decode_siso)"),
	      "viterbi refused: %d '%s'", ret, err);
	CHECK(fec_decode_siso(NULL, NULL, &r.b, NULL, 0, 0, 0, NULL, 0) == -FEC_EINVAL,
	      "no decoder, no message buffer");
	fec_decoder_destroy(vit);
}

int main(void)
{
	static const char *const variants[] = {
	    CODE,                               /* layered nms, int8 (the SIMD passes) */
	    CODE ",schedule=flooding",          /* int8 flooding */
	    CODE ",algo=oms,schedule=flooding", /* int8 oms */
	    CODE ",algo=spa",                   /* float, int8 input */
	    CODE ",algo=ms,in=f32",             /* float input */
	    CODE ",output=codeword",            /* priors on every column */
	    CODE ",algo=spa,in=f32,output=codeword",
	};

	for (unsigned i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		test_zero_priors(variants[i]);
		test_agreeing_priors(variants[i]);
	}
	test_priors_alone(CODE ",output=codeword");
	test_priors_alone(CODE ",algo=spa,in=f32,output=codeword");
	test_refused();
	return check_done();
}
