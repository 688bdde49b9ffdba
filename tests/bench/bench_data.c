/*
 * fecd-bench's data set: seeded information bits, encoded, BPSK over AWGN at a fixed Eb/N0,
 * quantized to int8 LLRs as fecd-feed quantizes them (mean |LLR| -> 40), and cut into the
 * overlapping stream jobs the daemon's batcher makes (block_syms owned, up to head_syms before
 * and tail_syms after, START and END flags at the stream's edges). Every decoder in the bench
 * decodes these same jobs, or (the anchors) the same symbols.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awgn.h"
#include "bitpack.h"
#include "fecd_proto.h"
#include "prng.h"
#include "softbits.h"

#include "bench.h"

#define CHUNK_SYMS (1u << 20) /* noise is made in chunks: the float LLRs of all would not fit */

static int make_stream(struct bench_data *d, uint64_t seed, double ebn0)
{
	struct fec_encoder *enc;
	struct fec_prng prng;
	uint8_t *cbits = malloc(d->nsyms);
	float *llr = malloc(CHUNK_SYMS * sizeof(float));
	size_t n = 0;
	int rc = -FEC_ENOMEM;

	if (!cbits || !llr)
		goto out_free;
	rc = fec_encoder_create(&d->spec, &enc);
	if (rc)
		goto out_free;
	fec_prng_seed(&prng, seed);
	fec_prng_bits(&prng, d->bits, d->nbits);
	rc = fec_encode(enc, d->bits, d->nbits, cbits, &n);
	fec_encoder_destroy(enc);
	if (rc || n != d->nsyms) {
		rc = rc ? rc : -FEC_EINVAL;
		goto out_free;
	}
	double sigma = fec_awgn_sigma(ebn0, fec_spec_rate(&d->spec));
	float scale = (float)(40.0 / (2.0 / (sigma * sigma)));

	for (size_t at = 0; at < n; at += CHUNK_SYMS) {
		size_t c = n - at < CHUNK_SYMS ? n - at : CHUNK_SYMS;

		fec_awgn_llr(&prng, cbits + at, c, sigma, 1.0f, llr);
		fec_llr_quantize(FECD_FMT_S8_LLR, llr, c, false, scale, d->syms + at);
	}
	rc = 0;
out_free:
	free(cbits);
	free(llr);
	return rc;
}

static void cut_jobs(struct bench_data *d)
{
	const struct fec_info *in = d->info;
	uint64_t bits_per_block = (uint64_t)in->block_syms / in->unit_syms * in->unit_bits;
	size_t at = 0;

	for (uint32_t j = 0; j < d->njobs; j++) {
		size_t own = d->nsyms - at < in->block_syms ? d->nsyms - at : in->block_syms;
		size_t head = at < in->head_syms ? at : in->head_syms;
		size_t rest = d->nsyms - at - own;
		size_t tail = rest < in->tail_syms ? rest : in->tail_syms;

		memcpy(d->in + (size_t)j * d->in_stride, d->syms + at - head, head + own + tail);
		d->jobs[j] = (struct fec_job){.in_len = (uint32_t)(head + own + tail),
		                              .head_len = (uint32_t)head,
		                              .own_len = (uint32_t)own,
		                              .flags = (at ? 0 : FEC_JOB_STREAM_START) |
		                                       (rest ? 0 : FEC_JOB_STREAM_END)};
		d->bit0[j] = (uint64_t)j * bits_per_block;
		at += own;
	}
}

int bench_data_build(struct bench_data *d, const char *code, uint64_t nbits, uint64_t seed,
                     double ebn0, char *err, size_t errlen)
{
	int rc;

	memset(d, 0, sizeof(*d));
	snprintf(d->code_text, sizeof(d->code_text), "%s", code);
	if (fec_spec_from_string(code, &d->spec, err, errlen))
		return -FEC_EINVAL;
	rc = fec_decoder_create(&d->spec, &d->dec);
	if (rc)
		goto out_err;
	d->info = fec_decoder_info(d->dec);
	if (d->info->kind != FEC_KIND_STREAM) {
		rc = -FEC_EINVAL;
		goto out_err;
	}
	/* Whole blocks: no job is short, so every job decodes the same work. */
	uint64_t block_bits =
	    (uint64_t)d->info->block_syms / d->info->unit_syms * d->info->unit_bits;
	d->nbits = nbits < block_bits ? block_bits : nbits / block_bits * block_bits;
	d->nsyms = fec_encoded_len(&d->spec, (size_t)d->nbits);
	d->njobs = (uint32_t)(d->nbits / block_bits);
	d->in_stride = d->info->head_syms + d->info->block_syms + d->info->tail_syms;
	d->out_stride = (d->info->max_out_bits + 7) / 8;
	d->bits = malloc(d->nbits);
	d->syms = malloc(d->nsyms);
	d->jobs = calloc(d->njobs, sizeof(*d->jobs));
	d->in = malloc((size_t)d->njobs * d->in_stride);
	d->bit0 = malloc(d->njobs * sizeof(*d->bit0));
	d->ref = calloc(d->njobs, d->out_stride);
	rc = -FEC_ENOMEM;
	if (!d->bits || !d->syms || !d->jobs || !d->in || !d->bit0 || !d->ref)
		goto out_err;
	rc = make_stream(d, seed, ebn0);
	if (rc)
		goto out_err;
	cut_jobs(d);
	return 0;
out_err:
	snprintf(err, errlen, "%s: %s", code, fec_strerror(rc));
	bench_data_free(d);
	return rc;
}

int bench_frames_alloc(struct bench_data *d, const char *text, uint32_t nframes, size_t in_stride,
                       char *err, size_t errlen)
{
	int rc;

	memset(d, 0, sizeof(*d));
	snprintf(d->code_text, sizeof(d->code_text), "%.150s", text);
	if (fec_spec_from_string(text, &d->spec, err, errlen))
		return -FEC_EINVAL;
	rc = fec_decoder_create(&d->spec, &d->dec);
	if (rc)
		goto out_err;
	d->spec = *fec_decoder_spec(d->dec);
	d->info = fec_decoder_info(d->dec);
	d->njobs = nframes;
	d->nbits = (uint64_t)nframes * d->info->frame_info_bits;
	d->in_stride = in_stride             ? in_stride
	               : d->info->frame_syms ? d->info->frame_syms
	                                     : d->info->max_frame_syms;
	d->out_stride = (d->info->max_out_bits + 7) / 8;
	d->bits = malloc(d->nbits);
	d->jobs = calloc(nframes, sizeof(*d->jobs));
	d->in = calloc(nframes, d->in_stride);
	d->bit0 = malloc(nframes * sizeof(*d->bit0));
	d->ref = calloc(nframes, d->out_stride);
	rc = -FEC_ENOMEM;
	if (d->bits && d->jobs && d->in && d->bit0 && d->ref)
		return 0;
out_err:
	snprintf(err, errlen, "%.180s: %s", text, fec_strerror(rc));
	bench_data_free(d);
	return rc;
}

void bench_data_free(struct bench_data *d)
{
	if (d->dec)
		fec_decoder_destroy(d->dec);
	free(d->bits);
	free(d->syms);
	free(d->jobs);
	free(d->in);
	free(d->bit0);
	free(d->ref);
	memset(d, 0, sizeof(*d));
}

static uint32_t own_bits(const struct bench_data *d, uint32_t j)
{
	return d->jobs[j].own_len / d->info->unit_syms * d->info->unit_bits;
}

uint64_t bench_data_errors(const struct bench_data *d, const uint8_t *out, uint64_t *nbits)
{
	uint8_t *pk = malloc(d->out_stride);
	uint64_t errors = 0, n = 0;

	if (!pk)
		return UINT64_MAX;
	for (uint32_t j = 0; j < d->njobs; j++) {
		uint32_t b = own_bits(d, j);

		fec_pack_bits(d->bits + d->bit0[j], b, pk);
		errors += fec_count_bit_errors(out + (size_t)j * d->out_stride, pk, b);
		n += b;
	}
	free(pk);
	*nbits = n;
	return errors;
}

uint32_t bench_out_mismatches(const struct bench_data *d, const uint8_t *out, const uint8_t *ref,
                              uint32_t first, uint32_t count)
{
	uint32_t bad = 0;

	for (uint32_t j = first; j < first + count && j < d->njobs; j++) {
		size_t off = (size_t)j * d->out_stride;

		bad += fec_count_bit_errors(out + off, ref + off, own_bits(d, j)) != 0;
	}
	return bad;
}

uint32_t bench_data_mismatches(const struct bench_data *d, const uint8_t *out)
{
	return bench_out_mismatches(d, out, d->ref, 0, d->njobs);
}

struct fec_batch bench_batch(const struct bench_data *d, struct fec_job *jobs, const int8_t *in,
                             uint8_t *out, uint32_t first, uint32_t count)
{
	return (struct fec_batch){.count = count,
	                          .jobs = jobs + first,
	                          .in = in + (size_t)first * d->in_stride,
	                          .in_stride = d->in_stride,
	                          .out = out + (size_t)first * d->out_stride,
	                          .out_stride = d->out_stride};
}

void bench_data_geometry(const struct bench_data *d, cJSON *geo)
{
	const struct fec_info *in = d->info;
	/* input symbols to output bits: unit_syms symbols carry unit_bits bits */
	const double per = in->unit_syms ? (double)in->unit_bits / in->unit_syms : 0.0;

	cJSON_AddNumberToObject(geo, "decode_len", in->block_syms * per);
	cJSON_AddNumberToObject(geo, "traceback_len", in->tail_syms * per);
	cJSON_AddNumberToObject(geo, "head_len", in->head_syms * per);
}
