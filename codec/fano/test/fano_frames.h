/*
 * Helpers of the fano family's tests: seeded random frames of a code through its encoder, AWGN
 * and the s8 quantizer (the channel's llr_scale is the spec's), decoded as one batch by any
 * decoder of the same frame length, and a tally of what came back against what was sent.
 */
#ifndef FANO_FRAMES_H
#define FANO_FRAMES_H

#include <stdlib.h>
#include <string.h>

#include "bitpack.h"
#include "codec_util.h"
#include "fec.h"
#include "prng.h"

#define FRAMES_NOISELESS 1000.0 /* Eb/N0 meaning no noise */

struct frames {
	struct fec_spec spec;
	uint32_t count, nbits, nsym;
	uint8_t *bits; /* count x nbits, one per byte */
	int8_t *in;    /* count x nsym LLRs */
};

/* What one decode of the frames gave. */
struct result {
	struct fec_job *jobs;
	uint8_t *out; /* count x out_stride */
	size_t out_stride;
};

struct tally {
	unsigned decoded, wrong, not_converged, erased; /* wrong: DECODED with a wrong bit */
	unsigned frame_errors;                          /* not DECODED, or DECODED wrong */
	uint64_t cycles;
};

static inline void frames_free(struct frames *f)
{
	free(f->bits);
	free(f->in);
	memset(f, 0, sizeof(*f));
}

/* count frames of the code `text`; 0 or -1 (message on stderr). */
static inline int frames_make(struct frames *f, const char *text, uint32_t count, double ebn0,
                              uint64_t seed)
{
	struct fec_encoder *enc = NULL;
	struct fec_prng prng;
	char err[256] = "";
	uint8_t *code = NULL;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	if (fec_spec_from_string(text, &f->spec, err, sizeof(err)) ||
	    fec_encoder_create(&f->spec, &enc)) {
		fprintf(stderr, "%s: %s\n", text, err[0] ? err : "no encoder");
		return -1;
	}
	f->count = count;
	f->nbits = f->spec.u.fano.frame_bits;
	f->nsym = (uint32_t)fec_encoded_len(&f->spec, f->nbits);
	f->bits = malloc((size_t)count * f->nbits);
	f->in = malloc((size_t)count * f->nsym);
	code = malloc(f->nsym);
	if (!f->bits || !f->in || !code)
		goto out;
	fec_prng_seed(&prng, seed);
	for (uint32_t j = 0; j < count; j++) {
		uint8_t *bits = f->bits + (size_t)j * f->nbits;
		size_t n = 0;

		fec_prng_bits(&prng, bits, f->nbits);
		if (fec_encode(enc, bits, f->nbits, code, &n) || n != f->nsym)
			goto out;
		util_channel_s8(&prng, code, n, ebn0 >= FRAMES_NOISELESS ? 1000.0 : ebn0,
		                fec_spec_rate(&f->spec), f->spec.frame.llr_scale,
		                f->in + (size_t)j * f->nsym);
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "%s: could not make frames\n", text);
	free(code);
	fec_encoder_destroy(enc);
	return rc;
}

static inline void result_free(struct result *r)
{
	free(r->jobs);
	free(r->out);
	memset(r, 0, sizeof(*r));
}

/* Decodes every frame with the code `text` (same frames, any decoder settings); 0 or -1. */
static inline int frames_decode(const struct frames *f, const char *text, struct result *r)
{
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	const struct fec_info *info;
	char err[256] = "";
	void *scratch = NULL;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		fprintf(stderr, "%s: %s\n", text, err[0] ? err : "no decoder");
		return -1;
	}
	info = fec_decoder_info(dec);
	r->out_stride = (info->max_out_bits + 7) / 8;
	r->jobs = calloc(f->count, sizeof(*r->jobs));
	r->out = calloc(f->count, r->out_stride + 1);
	scratch = malloc(info->scratch_bytes);
	if (!r->jobs || !r->out || !scratch)
		goto out;
	for (uint32_t j = 0; j < f->count; j++)
		r->jobs[j] = (struct fec_job){.in_len = f->nsym, .own_len = f->nsym};
	struct fec_batch b = {.count = f->count,
	                      .jobs = r->jobs,
	                      .in = f->in,
	                      .in_stride = f->nsym,
	                      .out = r->out,
	                      .out_stride = r->out_stride};
	rc = fec_decode(dec, scratch, &b, 0, f->count);
out:
	free(scratch);
	fec_decoder_destroy(dec);
	if (rc)
		result_free(r);
	return rc ? -1 : 0;
}

/* Frame j's decoded bits differ from those sent. */
static inline bool frame_wrong(const struct frames *f, const struct result *r, uint32_t j)
{
	const uint8_t *sent = f->bits + (size_t)j * f->nbits, *got = r->out + j * r->out_stride;

	if (r->jobs[j].out_bits != f->nbits)
		return true;
	for (uint32_t i = 0; i < f->nbits; i++)
		if ((got[i >> 3] >> (7 - (i & 7)) & 1u) != sent[i])
			return true;
	return false;
}

static inline void frames_tally(const struct frames *f, const struct result *r, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (uint32_t j = 0; j < f->count; j++) {
		const struct fec_job *job = &r->jobs[j];

		t->cycles += job->work;
		if (job->status == FECD_STATUS_DECODED) {
			t->decoded++;
			if (frame_wrong(f, r, j)) {
				t->wrong++;
				t->frame_errors++;
			}
		} else {
			t->frame_errors++;
			if (job->status == FECD_STATUS_NOT_CONVERGED)
				t->not_converged++;
			else
				t->erased++;
		}
	}
}

#endif
