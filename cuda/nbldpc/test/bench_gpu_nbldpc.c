/*
 * bench_gpu_nbldpc SPEC [FRAMES [ROUNDS]]: times the GPU nbldpc kernel alone (input and jobs left
 * on the device, outputs not copied back) on FRAMES frames of the code SPEC (its text form, e.g.
 * "nbldpc,code=regular,q=64,n=1680,dv=2,dc=4,iters=10,early_stop=false"), seeded codewords
 * through BPSK over AWGN at 2 dB as int8 LLRs; prints information bits per second, best and
 * median of ROUNDS rounds, and the kernel's launch shape. A by-hand program for the GPU machine
 * (and for a profiler: each round is one launch); fecd-bench's nbldpc section is the report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "awgn.h"
#include "cpu_timer.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "prng.h"

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* frames codewords of the decoder's code as int8 LLRs at in (stride frame_syms). */
static int make_frames(const struct fec_spec *spec, const struct fec_info *info, uint32_t frames,
                       int8_t *in, struct fec_job *jobs)
{
	const uint32_t kb = info->frame_info_bits, nb = info->frame_syms;
	const double sigma = fec_awgn_sigma(2.0, fec_spec_rate(spec));
	struct fec_encoder *enc = NULL;
	struct fec_prng rng;
	uint8_t *bits = malloc(kb), *cw = malloc(nb);
	size_t nout;
	int rc = -1;

	if (!bits || !cw || fec_encoder_create(spec, &enc))
		goto out;
	fec_prng_seed(&rng, 1);
	for (uint32_t j = 0; j < frames; j++) {
		fec_prng_bits(&rng, bits, kb);
		if (fec_encode(enc, bits, kb, cw, &nout) || nout != nb)
			goto out;
		for (uint32_t i = 0; i < nb; i++) {
			const double y = (cw[i] ? -1.0 : 1.0) + sigma * fec_prng_gauss(&rng);
			const double s = 2.0 * y / (sigma * sigma) * spec->frame.llr_scale;

			in[(size_t)j * nb + i] = (int8_t)(s > 127    ? 127
			                                  : s < -127 ? -127
			                                             : lrint(s));
		}
		jobs[j] = (struct fec_job){.in_len = nb, .own_len = nb};
	}
	rc = 0;
out:
	fec_encoder_destroy(enc);
	free(bits);
	free(cw);
	return rc;
}

int main(int argc, char **argv)
{
	const uint32_t frames = argc > 2 ? (uint32_t)atoi(argv[2]) : 1024;
	const unsigned rounds = argc > 3 ? (unsigned)atoi(argv[3]) : 10;
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	struct fecd_cuda *ctx = NULL;
	struct fecd_cuda_decoder *gdec = NULL;
	struct fecd_cuda_lane *lane = NULL;
	char err[400] = "";
	double *secs = calloc(rounds ? rounds : 1, sizeof(double));
	int rc = 1;

	if (argc < 2 || frames == 0 || rounds == 0) {
		fprintf(stderr, "usage: bench_gpu_nbldpc SPEC [FRAMES [ROUNDS]]\n");
		return 2;
	}
	if (fec_spec_from_string(argv[1], &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	const struct fec_info *info = fec_decoder_info(dec);
	int8_t *in = malloc((size_t)frames * info->frame_syms);
	struct fec_job *jobs = calloc(frames, sizeof(*jobs));
	uint8_t *out = calloc(frames, (info->max_out_bits + 7) / 8);

	if (!secs || !in || !jobs || !out || make_frames(&spec, info, frames, in, jobs)) {
		fprintf(stderr, "no frames\n");
		goto out;
	}
	if (fecd_cuda_open(0, &ctx, err, sizeof(err)) ||
	    fecd_cuda_decoder_create(ctx, dec, &gdec, err, sizeof(err)) ||
	    fecd_cuda_lane_create(ctx, &lane, err, sizeof(err))) {
		fprintf(stderr, "CUDA: %s\n", err);
		goto out;
	}
	struct fec_batch b = {
	    .count = frames,
	    .jobs = jobs,
	    .in = in,
	    .in_stride = info->frame_syms,
	    .out = out,
	    .out_stride = (info->max_out_bits + 7) / 8,
	};
	if (fecd_cuda_lane_submit(lane, gdec, &b, 0, err, sizeof(err)) ||
	    fecd_cuda_lane_wait(lane, err, sizeof(err)))
		goto out_cuda;
	for (unsigned r = 0; r < rounds; r++) {
		const double t0 = cpu_timer_secs(CLOCK_MONOTONIC);

		if (fecd_cuda_lane_submit(lane, gdec, &b,
		                          FECD_CUDA_NO_COPY_IN | FECD_CUDA_NO_COPY_OUT, err,
		                          sizeof(err)) ||
		    fecd_cuda_lane_wait(lane, err, sizeof(err)))
			goto out_cuda;
		secs[r] = cpu_timer_secs(CLOCK_MONOTONIC) - t0;
	}
	qsort(secs, rounds, sizeof(double), cmp_double);
	const double bits = (double)frames * info->frame_info_bits;
	printf("%s: %u frames, best %.1f Mb/s, median %.1f Mb/s (%.3f ms a launch)\n  %s\n",
	       argv[1], frames, bits / secs[0] / 1e6, bits / secs[rounds / 2] / 1e6,
	       secs[rounds / 2] * 1e3, fecd_cuda_decoder_describe(gdec));
	rc = 0;
out_cuda:
	if (rc)
		fprintf(stderr, "CUDA: %s\n", err);
out:
	fecd_cuda_lane_destroy(lane);
	fecd_cuda_decoder_destroy(gdec);
	fecd_cuda_close(ctx);
	fec_decoder_destroy(dec);
	free(in);
	free(jobs);
	free(out);
	free(secs);
	return rc;
}
