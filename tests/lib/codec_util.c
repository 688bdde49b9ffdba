/* Test helpers: see codec_util.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "awgn.h"
#include "bitpack.h"
#include "codec_util.h"
#include "prng.h"
#include "softbits.h"

size_t util_cut_stream(const struct fec_info *info, const int8_t *syms, size_t nsym,
                       uint32_t block_syms, struct fec_job *jobs, int8_t *in, size_t stride)
{
	const size_t block = block_syms ? block_syms : info->block_syms;
	const size_t njobs = (nsym + block - 1) / block;

	for (size_t j = 0; j < njobs; j++) {
		size_t own_at = j * block;
		size_t own = nsym - own_at < block ? nsym - own_at : block;
		size_t head = own_at < info->head_syms ? own_at : info->head_syms;
		size_t rest = nsym - own_at - own;
		size_t tail = rest < info->tail_syms ? rest : info->tail_syms;

		memcpy(in + j * stride, syms + own_at - head, head + own + tail);
		jobs[j].in_len = (uint32_t)(head + own + tail);
		jobs[j].head_len = (uint32_t)head;
		jobs[j].own_len = (uint32_t)own;
		jobs[j].flags =
		    (own_at == 0 ? FEC_JOB_STREAM_START : 0) | (rest == 0 ? FEC_JOB_STREAM_END : 0);
	}
	return njobs;
}

long util_decode_stream(const struct fec_decoder *dec, const int8_t *syms, size_t nsym,
                        uint32_t block_syms, uint8_t *bits, unsigned *erased)
{
	const struct fec_info *info = fec_decoder_info(dec);
	uint32_t block = block_syms ? block_syms : info->block_syms;
	size_t njobs = (nsym + block - 1) / block,
	       stride = info->head_syms + block + info->tail_syms;
	size_t out_stride = (info->max_out_bits + 7) / 8;
	struct fec_job *jobs = calloc(njobs ? njobs : 1, sizeof(*jobs));
	int8_t *in = calloc(njobs ? njobs : 1, stride);
	uint8_t *out = calloc(njobs ? njobs : 1, out_stride);
	void *scratch = malloc(info->scratch_bytes);
	struct fec_batch b = {.count = (uint32_t)njobs,
	                      .jobs = jobs,
	                      .in = in,
	                      .in_stride = stride,
	                      .out = out,
	                      .out_stride = out_stride};
	long total = 0;
	int ret = -FEC_ENOMEM;

	*erased = 0;
	if (!jobs || !in || !out || !scratch)
		goto out_free;
	util_cut_stream(info, syms, nsym, block, jobs, in, stride);
	/* Two calls over disjoint ranges, as two worker threads would. */
	ret = fec_decode(dec, scratch, &b, 0, (uint32_t)(njobs / 2));
	if (!ret)
		ret = fec_decode(dec, scratch, &b, (uint32_t)(njobs / 2),
		                 (uint32_t)(njobs - njobs / 2));
	if (ret)
		goto out_free;
	for (size_t j = 0; j < njobs; j++) {
		if (jobs[j].status != FECD_STATUS_DECODED)
			(*erased)++;
		fec_unpack_bits(out + j * out_stride, jobs[j].out_bits, bits + total);
		total += jobs[j].out_bits;
	}
	ret = 0;
out_free:
	free(scratch);
	free(out);
	free(in);
	free(jobs);
	return ret ? ret : total;
}

long util_decode_frame(const struct fec_decoder *dec, const int8_t *syms, size_t nsym,
                       uint8_t *bits, float *metric)
{
	const struct fec_info *info = fec_decoder_info(dec);
	struct fec_job job = {.in_len = (uint32_t)nsym, .own_len = (uint32_t)nsym};
	size_t out_len = (info->max_out_bits + 7) / 8 + 1;
	uint8_t *out = calloc(1, out_len);
	void *scratch = malloc(info->scratch_bytes);
	struct fec_batch b = {.count = 1, .jobs = &job, .in = syms, .out = out};
	long ret = -FEC_ENOMEM;

	if (!out || !scratch)
		goto out_free;
	ret = fec_decode(dec, scratch, &b, 0, 1);
	if (ret)
		goto out_free;
	if (job.status != FECD_STATUS_DECODED) {
		ret = -1;
		goto out_free;
	}
	fec_unpack_bits(out, job.out_bits, bits);
	if (metric)
		*metric = job.metric;
	ret = job.out_bits;
out_free:
	free(scratch);
	free(out);
	return ret;
}

void util_channel_s8(struct fec_prng *p, const uint8_t *code, size_t n, double ebn0_db, double rate,
                     float llr_scale, int8_t *out)
{
	float *llr = malloc(n * sizeof(*llr) + 1);
	double sigma = ebn0_db >= 100.0 ? 0.0 : fec_awgn_sigma(ebn0_db, rate);

	if (!llr)
		abort();
	fec_awgn_llr(p, code, n, sigma, 100.0f, llr);
	fec_llr_quantize(FECD_FMT_S8_LLR, llr, n, false, llr_scale, out);
	free(llr);
}

double util_union_bound_ccsds(double ebn0_db, double rate)
{
	static const struct {
		int d;
		double b;
	} spectrum[] = {{10, 36}, {12, 211}, {14, 1404}, {16, 11633}, {18, 77433}};
	double ebn0 = pow(10.0, ebn0_db / 10.0), pb = 0;

	for (size_t i = 0; i < sizeof(spectrum) / sizeof(spectrum[0]); i++)
		pb += spectrum[i].b * 0.5 * erfc(sqrt(spectrum[i].d * rate * ebn0));
	return pb;
}

long util_stream_errors(const char *code, double ebn0, size_t nbits, uint64_t seed, float llr_scale,
                        util_stream_fn fn, void *arg)
{
	struct fec_spec spec;
	struct fec_encoder *enc = NULL;
	struct fec_decoder *dec = NULL;
	struct fec_prng prng;
	size_t ncode, n = 0;
	uint8_t *bits, *sent, *got;
	int8_t *syms;
	long errors = -1;

	if (fec_spec_from_string(code, &spec, NULL, 0))
		return -1;
	while (nbits % spec.u.conv.punct_period)
		nbits--;
	ncode = fec_encoded_len(&spec, nbits);
	bits = malloc(nbits);
	got = malloc(nbits + 64);
	sent = malloc(ncode);
	syms = malloc(ncode);
	if (!bits || !got || !sent || !syms || fec_encoder_create(&spec, &enc) ||
	    fec_decoder_create(&spec, &dec))
		goto out;
	fec_prng_seed(&prng, seed);
	fec_prng_bits(&prng, bits, nbits);
	if (fec_encode(enc, bits, nbits, sent, &n))
		goto out;
	util_channel_s8(&prng, sent, n, ebn0, fec_spec_rate(&spec), llr_scale, syms);
	if (fn(arg, dec, syms, n, got) != (long)nbits)
		goto out;
	errors = 0;
	for (size_t i = 0; i < nbits; i++)
		errors += bits[i] != got[i];
out:
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	free(bits);
	free(got);
	free(sent);
	free(syms);
	return errors;
}

int util_check_union_bound_ccsds(const char *label, double ebn0, size_t nbits, uint64_t seed,
                                 float llr_scale, util_stream_fn fn, void *arg, char *why,
                                 size_t whylen)
{
	const double bound = util_union_bound_ccsds(ebn0, 0.5), expect = bound * (double)nbits;
	const double limit = expect + 3.0 * sqrt(4.0 * expect);
	const long errors = util_stream_errors("ccsds", ebn0, nbits, seed, llr_scale, fn, arg);

	printf("%sccsds %.1f dB: %ld errors in %zu bits, BER %.3g; union bound %.3g (limit %.0f "
	       "errors)\n",
	       label, ebn0, errors, nbits, (double)errors / (double)nbits, bound, limit);
	if (errors < 0)
		snprintf(why, whylen, "decoding at %.1f dB failed", ebn0);
	else if (errors > limit)
		snprintf(why, whylen,
		         "%.1f dB: %ld errors in %zu bits, above the union bound's %.0f", ebn0,
		         errors, nbits, limit);
	else
		return 0;
	return -1;
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define FER_CHUNK 64u

int util_ldpc_frame_errors(const char *text, double ebn0, unsigned frames, uint64_t seed,
                           struct util_fer *out)
{
	struct fec_decoder *dec = NULL;
	struct fec_encoder *enc = NULL;
	const struct fec_info *info;
	struct fec_spec spec;
	struct fec_batch b = {0};
	struct fec_prng p;
	uint8_t *bits = NULL, *sent = NULL;
	void *scratch = NULL;
	char err[256];
	unsigned long iters = 0;
	double rate;
	int ret = -1;
	uint32_t k;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (fec_spec_from_string(text, &spec, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", text, err);
		return -1;
	}
	if ((spec.family != FECD_FAMILY_LDPC && spec.family != FECD_FAMILY_NBLDPC) ||
	    fec_decoder_create(&spec, &dec) || fec_encoder_create(&spec, &enc)) {
		fprintf(stderr, "%s: not an LDPC code this build can decode and encode\n", text);
		goto out;
	}
	info = fec_decoder_info(dec);
	k = info->frame_info_bits;
	rate = fec_spec_rate(&spec);
	b.in_stride = info->frame_syms;
	b.out_stride = (info->max_out_bits + 7) / 8;
	b.jobs = calloc(FER_CHUNK, sizeof(*b.jobs));
	b.in = malloc((size_t)FER_CHUNK * b.in_stride);
	b.in_f32 = malloc((size_t)FER_CHUNK * b.in_stride * sizeof(float));
	b.out = malloc((size_t)FER_CHUNK * b.out_stride);
	bits = malloc((size_t)FER_CHUNK * k);
	sent = malloc(info->frame_syms);
	scratch = malloc(info->scratch_bytes + 64);
	if (!b.jobs || !b.in || !b.in_f32 || !b.out || !bits || !sent || !scratch)
		goto out;
	fec_prng_seed(&p, seed);
	for (unsigned done = 0; done < frames; done += b.count) {
		double t0;

		b.count = frames - done < FER_CHUNK ? frames - done : FER_CHUNK;
		for (unsigned f = 0; f < b.count; f++) {
			uint8_t *in = bits + (size_t)f * k;

			fec_prng_bits(&p, in, k);
			if (fec_encode(enc, in, k, sent, &n) || n != info->frame_syms)
				goto out;
			if (spec.frame.in == FEC_IN_F32_LLR)
				fec_awgn_llr(&p, sent, n, fec_awgn_sigma(ebn0, rate), 0,
				             (float *)b.in_f32 + (size_t)f * b.in_stride);
			else
				util_channel_s8(&p, sent, n, ebn0, rate, spec.frame.llr_scale,
				                (int8_t *)b.in + (size_t)f * b.in_stride);
			b.jobs[f] = (struct fec_job){.in_len = info->frame_syms,
			                             .own_len = info->frame_syms};
		}
		t0 = thread_cpu_s();
		if (fec_decode(dec, scratch, &b, 0, b.count))
			goto out;
		out->cpu_s += thread_cpu_s() - t0;
		for (unsigned f = 0; f < b.count; f++) {
			const uint8_t *got = b.out + (size_t)f * b.out_stride;
			const uint8_t *in = bits + (size_t)f * k;
			bool wrong =
			    b.jobs[f].status != FECD_STATUS_DECODED || b.jobs[f].out_bits != k;

			for (uint32_t i = 0; i < k && !wrong; i++)
				wrong = (got[i / 8] >> (7 - i % 8) & 1u) != in[i];
			out->errors += wrong;
			iters += b.jobs[f].work;
		}
		out->frames += b.count;
	}
	out->mean_iters = out->frames ? (double)iters / out->frames : 0;
	ret = 0;
out:
	free(scratch);
	free(sent);
	free(bits);
	free(b.out);
	free((void *)b.in_f32);
	free((void *)b.in);
	free(b.jobs);
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	return ret;
}
