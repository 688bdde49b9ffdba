/* The conformance cases: see conformance.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awgn.h"
#include "bitpack.h"
#include "conformance.h"
#include "prng.h"
#include "softbits.h"

#define CONF_EBN0      4.0  /* the noisy batch: every code decodes it, with work to do */
#define CONF_LLR_SCALE 4.0f /* int8 input: LLR * 4, so that noise spreads over the range */
#define CONF_SEED      15
/* Frames whose length the code leaves free: information bits per frame. */
#define CONF_FREE_FRAME_BITS 200

unsigned conf_case_count(void)
{
	return fec_family_count() + fec_preset_count();
}

static void batch_free(struct conf_batch *b)
{
	free(b->jobs);
	free(b->in);
	free(b->in_f);
	memset(b, 0, sizeof(*b));
}

void conf_case_close(struct conf_case *c)
{
	fec_decoder_destroy(c->dec);
	free(c->bits);
	batch_free(&c->clean);
	batch_free(&c->noisy);
	memset(c, 0, sizeof(*c));
}

static int fail(char *why, size_t whylen, int rc, const char *fmt, const char *a, const char *b)
{
	snprintf(why, whylen, fmt, a, b);
	return rc;
}

/* The job layout of the case's nsym symbols: stream blocks as the daemon's batcher cuts them
 * (frame_syms 0), or one frame of frame_syms per job; at[j] gets where job j's input starts. */
static void cut_jobs(const struct fec_info *in, size_t nsym, uint32_t frame_syms,
                     struct fec_job *jobs, uint32_t count, size_t *at)
{
	for (uint32_t j = 0; j < count; j++) {
		if (frame_syms) {
			jobs[j] = (struct fec_job){.in_len = frame_syms, .own_len = frame_syms};
			at[j] = (size_t)j * frame_syms;
			continue;
		}
		const size_t block = in->block_syms, own_at = (size_t)j * block;
		const size_t own = nsym - own_at < block ? nsym - own_at : block;
		const size_t head = own_at < in->head_syms ? own_at : in->head_syms;
		const size_t rest = nsym - own_at - own;
		const size_t tail = rest < in->tail_syms ? rest : in->tail_syms;

		jobs[j] = (struct fec_job){.in_len = (uint32_t)(head + own + tail),
		                           .head_len = (uint32_t)head,
		                           .own_len = (uint32_t)own,
		                           .flags = (own_at == 0 ? FEC_JOB_STREAM_START : 0) |
		                                    (rest == 0 ? FEC_JOB_STREAM_END : 0)};
		at[j] = own_at - head;
	}
}

/* One batch of the sent code bits through AWGN (sigma 0: none) into int8 and float LLRs. */
static int batch_make(const struct conf_case *c, const uint8_t *code, size_t nsym,
                      uint32_t frame_syms, uint32_t count, double sigma, struct conf_batch *b)
{
	const struct fec_info *in = c->info;
	float *llr = malloc((nsym + 1) * sizeof(*llr));
	size_t *at = malloc(count * sizeof(*at));
	struct fec_prng prng;
	int rc = -1;

	b->count = count;
	b->in_stride = frame_syms ? frame_syms : in->head_syms + in->block_syms + in->tail_syms;
	b->jobs = calloc(count, sizeof(*b->jobs));
	b->in = calloc(count, b->in_stride);
	b->in_f = calloc((size_t)count * b->in_stride, sizeof(float));
	if (!llr || !at || !b->jobs || !b->in || !b->in_f)
		goto out;
	fec_prng_seed(&prng, CONF_SEED + (sigma > 0));
	fec_awgn_llr(&prng, code, nsym, sigma, 100.0f, llr);
	cut_jobs(in, nsym, frame_syms, b->jobs, count, at);
	for (uint32_t j = 0; j < count; j++) {
		const uint32_t n = b->jobs[j].in_len;

		memcpy(b->in_f + j * b->in_stride, llr + at[j], n * sizeof(float));
		fec_llr_quantize(FECD_FMT_S8_LLR, llr + at[j], n, false, CONF_LLR_SCALE,
		                 b->in + j * b->in_stride);
	}
	rc = 0;
out:
	free(llr);
	free(at);
	return rc;
}

/* Builds the case's code; 1 (skip) or < 0 with why. */
static int case_code(unsigned i, struct conf_case *c, char *why, size_t whylen)
{
	char err[256] = "";
	int rc;

	if (i < fec_family_count()) {
		snprintf(c->name, sizeof(c->name), "%s", fec_family_at(i)->name);
		snprintf(c->text, sizeof(c->text), "%s", c->name);
		if (fec_spec_from_string(c->text, &c->spec, err, sizeof(err)))
			return fail(
			    why, whylen, 1,
			    "family %s: skipped, its defaults name no code (%s); its presets "
			    "are cases",
			    c->name, err);
	} else {
		snprintf(c->name, sizeof(c->name), "%s",
		         fec_preset_at(i - fec_family_count())->name);
		snprintf(c->text, sizeof(c->text), "%s", c->name);
		if (fec_spec_from_string(c->text, &c->spec, err, sizeof(err))) {
			/* codes whose files are not here: the CI's fresh clone has no codes */
			if (strstr(err, "cannot open") &&
			    (strstr(err, "no such file") || strstr(err, "No such file")))
				return fail(why, whylen, 1,
				            "preset %s: skipped, its code file is absent (%s)",
				            c->name, err);
			return fail(why, whylen, -1, "preset %s: %s", c->name, err);
		}
	}
	rc = fec_decoder_create(&c->spec, &c->dec);
	if (rc)
		return fail(why, whylen, -1, "%s: decoder: %s", c->name, fec_strerror(rc));
	c->info = fec_decoder_info(c->dec);
	if (c->info->in_kind != FEC_IN_S8_LLR && c->info->in_kind != FEC_IN_F32_LLR)
		return fail(why, whylen, -1,
		            "%s: an input kind tests/lib/conformance.c does not make yet%s",
		            c->name, " (add it there)");
	return 0;
}

int conf_case_open(unsigned i, struct conf_case *c, char *why, size_t whylen)
{
	const struct fec_info *in;
	struct fec_encoder *enc = NULL;
	struct fec_prng prng;
	uint8_t *code = NULL;
	uint32_t count, frame_syms = 0;
	size_t ncode = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	rc = case_code(i, c, why, whylen);
	if (rc)
		goto out;
	in = c->info;
	rc = fec_encoder_create(&c->spec, &enc);
	if (rc) {
		rc = fail(why, whylen, -1, "%s: encoder: %s", c->name, fec_strerror(rc));
		goto out;
	}
	if (in->kind == FEC_KIND_STREAM) {
		/* three full blocks and part of a fourth, in whole units */
		const size_t block_bits = (size_t)in->block_syms / in->unit_syms * in->unit_bits;

		c->nbits = 3 * block_bits + 7 * in->unit_bits;
		count = 4;
	} else {
		/* a SIMD group of frames and one more (the leftover path), or a few */
		c->nbits = in->frame_info_bits ? in->frame_info_bits : CONF_FREE_FRAME_BITS;
		count = in->job_group > 1 ? in->job_group + 1 : 5;
	}
	const size_t per = c->nbits; /* bits per fec_encode call: the stream, or a frame */
	const size_t total = in->kind == FEC_KIND_STREAM ? c->nbits : c->nbits * count;
	const size_t enc_len = fec_encoded_len(&c->spec, per);

	c->bits = malloc(total);
	code = malloc(enc_len * (in->kind == FEC_KIND_STREAM ? 1 : count) + 1);
	rc = -1;
	if (!c->bits || !code) {
		fail(why, whylen, -1, "%s: %s", c->name, "out of memory");
		goto out;
	}
	fec_prng_seed(&prng, CONF_SEED);
	fec_prng_bits(&prng, c->bits, total);
	for (size_t at = 0; at < total; at += per) {
		size_t nout = 0;

		rc = fec_encode(enc, c->bits + at, per, code + ncode, &nout);
		if (rc || nout > enc_len ||
		    (in->kind == FEC_KIND_FRAME && frame_syms && nout != frame_syms)) {
			fail(why, whylen, -1, "%s: encode: %s", c->name,
			     rc ? fec_strerror(rc) : "frames of different lengths");
			rc = -1;
			goto out;
		}
		if (in->kind == FEC_KIND_FRAME)
			frame_syms = (uint32_t)nout;
		ncode += nout;
	}
	c->nbits = total;
	c->out_stride = (in->max_out_bits + 7) / 8;
	c->soft_stride = in->soft_kind != FEC_SOFT_NONE ? in->max_soft : 0;
	if (batch_make(c, code, ncode, frame_syms, count, 0.0, &c->clean) ||
	    batch_make(c, code, ncode, frame_syms, count,
	               fec_awgn_sigma(CONF_EBN0, fec_spec_rate(&c->spec)), &c->noisy)) {
		rc = fail(why, whylen, -1, "%s: %s", c->name, "out of memory");
		goto out;
	}
	rc = 0;
out:
	fec_encoder_destroy(enc);
	free(code);
	if (rc)
		conf_case_close(c);
	return rc;
}

int conf_result_alloc(const struct conf_case *c, const struct conf_batch *b, struct conf_result *r)
{
	r->jobs = calloc(b->count, sizeof(*r->jobs));
	r->out = malloc(b->count * c->out_stride + 1);
	r->soft = c->soft_stride ? malloc(b->count * c->soft_stride * sizeof(float)) : NULL;
	if (!r->jobs || !r->out || (c->soft_stride && !r->soft)) {
		conf_result_free(r);
		return -1;
	}
	return 0;
}

void conf_result_free(struct conf_result *r)
{
	free(r->jobs);
	free(r->out);
	free(r->soft);
	memset(r, 0, sizeof(*r));
}

struct fec_batch conf_batch_view(const struct conf_case *c, const struct conf_batch *b,
                                 struct conf_result *r)
{
	const bool f32 = c->info->in_kind == FEC_IN_F32_LLR;

	memcpy(r->jobs, b->jobs, b->count * sizeof(*r->jobs));
	for (uint32_t j = 0; j < b->count; j++) {
		r->jobs[j].status = 0xee;
		r->jobs[j].out_bits = 0xdead;
		r->jobs[j].soft_count = 0xdead;
		r->jobs[j].work = 0xbeef;
		r->jobs[j].metric = -1234.5f;
	}
	memset(r->out, 0xa5, b->count * c->out_stride);
	if (r->soft)
		memset(r->soft, 0xa5, b->count * c->soft_stride * sizeof(float));
	return (struct fec_batch){.count = b->count,
	                          .jobs = r->jobs,
	                          .in = f32 ? NULL : b->in,
	                          .in_f32 = f32 ? b->in_f : NULL,
	                          .in_stride = b->in_stride,
	                          .out = r->out,
	                          .out_stride = c->out_stride,
	                          .soft = r->soft,
	                          .soft_stride = c->soft_stride};
}

int conf_decode_cpu(const struct conf_case *c, const struct conf_batch *b, struct conf_result *r)
{
	struct fec_batch fb = conf_batch_view(c, b, r);
	void *scratch = malloc(c->info->scratch_bytes + 1);
	int rc = scratch ? fec_decode(c->dec, scratch, &fb, 0, b->count / 2) : -FEC_ENOMEM;

	if (!rc)
		rc = fec_decode(c->dec, scratch, &fb, b->count / 2, b->count - b->count / 2);
	free(scratch);
	return rc;
}

int conf_check_round_trip(const struct conf_case *c, const struct conf_batch *b,
                          const struct conf_result *r, char *why, size_t whylen)
{
	uint8_t *got = malloc((size_t)c->info->max_out_bits + 1);
	size_t pos = 0;
	int rc = -1;

	if (!got)
		return fail(why, whylen, -1, "%s%s", "out of memory", "");
	for (uint32_t j = 0; j < b->count; j++) {
		const struct fec_job *job = &r->jobs[j];

		if (job->status != FECD_STATUS_DECODED || job->out_bits > c->info->max_out_bits ||
		    job->out_bits > c->nbits - pos) {
			snprintf(why, whylen, "job %u: status %u, %u bits (%zu of %zu placed)", j,
			         job->status, job->out_bits, pos, c->nbits);
			goto out;
		}
		fec_unpack_bits(r->out + j * c->out_stride, job->out_bits, got);
		for (uint32_t k = 0; k < job->out_bits; k++) {
			if (got[k] != c->bits[pos + k]) {
				snprintf(why, whylen, "job %u: bit %u is %u, %u was sent", j, k,
				         got[k], c->bits[pos + k]);
				goto out;
			}
		}
		/* soft output, where given: one LLR per bit whose sign is the bit's */
		if (r->soft && c->info->soft_kind == FEC_SOFT_BIT_LLR) {
			const float *s = r->soft + j * c->soft_stride;

			if (job->soft_count != job->out_bits) {
				snprintf(why, whylen, "job %u: %u soft values for %u bits", j,
				         job->soft_count, job->out_bits);
				goto out;
			}
			for (uint32_t k = 0; k < job->soft_count; k++) {
				if (!(got[k] ? s[k] < 0 : s[k] > 0)) {
					snprintf(why, whylen,
					         "job %u: soft value %u is %g for bit %u", j, k,
					         (double)s[k], got[k]);
					goto out;
				}
			}
		}
		pos += job->out_bits;
	}
	if (pos != c->nbits) {
		snprintf(why, whylen, "%zu bits decoded, %zu sent", pos, c->nbits);
		goto out;
	}
	rc = 0;
out:
	free(got);
	return rc;
}

static bool near(float a, float b, float tol)
{
	if (tol < 0) /* CONF_SIGNS_ONLY */
		return a == 0 || b == 0 || (a < 0) == (b < 0);
	if (tol == 0)
		return memcmp(&a, &b, sizeof(a)) == 0;
	return fabsf(a - b) <= tol * fmaxf(1.0f, fmaxf(fabsf(a), fabsf(b)));
}

int conf_compare(const struct conf_case *c, const struct conf_batch *b, const struct conf_result *a,
                 const struct conf_result *r, float tol, char *why, size_t whylen)
{
	for (uint32_t j = 0; j < b->count; j++) {
		const struct fec_job *x = &a->jobs[j], *y = &r->jobs[j];

		if (x->status != y->status || x->out_bits != y->out_bits ||
		    x->soft_count != y->soft_count || x->work != y->work ||
		    !near(x->metric, y->metric, tol < 0 ? 1e-3f : tol)) {
			snprintf(
			    why, whylen,
			    "job %u: status %u/%u, out_bits %u/%u, soft_count %u/%u, work %u/%u, "
			    "metric %g/%g",
			    j, x->status, y->status, x->out_bits, y->out_bits, x->soft_count,
			    y->soft_count, x->work, y->work, (double)x->metric, (double)y->metric);
			return -1;
		}
		if (x->out_bits <= c->info->max_out_bits &&
		    memcmp(a->out + j * c->out_stride, r->out + j * c->out_stride,
		           (x->out_bits + 7) / 8)) {
			snprintf(why, whylen, "job %u: output bytes differ", j);
			return -1;
		}
		for (uint32_t k = 0;
		     a->soft && x->soft_count <= c->soft_stride && k < x->soft_count; k++) {
			const float p = a->soft[j * c->soft_stride + k],
			            q = r->soft[j * c->soft_stride + k];

			if (!near(p, q, tol)) {
				snprintf(why, whylen, "job %u: soft value %u: %g / %g", j, k,
				         (double)p, (double)q);
				return -1;
			}
		}
	}
	return 0;
}
