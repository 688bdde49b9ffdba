/*
 * A timing program for the GPU LDPC kernels, run by hand on the GPU machine (not a test): the
 * kernel-only rate (information bits per second, no host copies) of one code and algorithm on
 * random int8 frames, for the figures in cuda/ldpc/LDPC_GPU.md. The decoder runs every iteration
 * (early_stop=false), so the frames' content does not change the rate.
 *     bench_gpu_ldpc SPEC [FRAMES_PER_BATCH [ROUNDS]]
 *     e.g. bench_gpu_ldpc ldpc,code=DVB-S2_64800x32400.alist,iters=10,early_stop=false 2112
 * FECD_LDPC_GPU_THREADS and FECD_LDPC_GPU_GENERIC choose the kernel's variant (ldpc_gpu.cu).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_timer.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "prng.h"

int main(int argc, char **argv)
{
	struct fec_spec spec;
	struct fec_decoder *cpu = NULL;
	struct fecd_cuda *ctx = NULL;
	struct fecd_cuda_decoder *dec = NULL;
	struct fecd_cuda_lane *lane = NULL;
	struct fec_job *jobs = NULL;
	int8_t *in = NULL;
	uint8_t *out = NULL;
	char err[256] = "";
	const uint32_t count = argc > 2 ? (uint32_t)atoi(argv[2]) : 2112;
	const unsigned rounds = argc > 3 ? (unsigned)atoi(argv[3]) : 10;
	int rc = 1;

	if (argc < 2 || !count || !rounds) {
		fprintf(stderr, "usage: bench_gpu_ldpc SPEC [FRAMES_PER_BATCH [ROUNDS]]\n");
		return 2;
	}
	if (fec_spec_from_string(argv[1], &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &cpu)) {
		fprintf(stderr, "bench_gpu_ldpc: %s: %s\n", argv[1], err[0] ? err : "no decoder");
		return 1;
	}
	const struct fec_info *info = fec_decoder_info(cpu);
	const uint32_t n_tx = info->frame_syms, k = fec_decoder_spec(cpu)->u.ldpc.k;
	const size_t ostride = (info->max_out_bits + 7) / 8;

	if (fecd_cuda_open(0, &ctx, err, sizeof(err)) ||
	    fecd_cuda_decoder_create(ctx, cpu, &dec, err, sizeof(err)) ||
	    fecd_cuda_lane_create(ctx, &lane, err, sizeof(err))) {
		fprintf(stderr, "bench_gpu_ldpc: %s\n", err);
		goto out;
	}
	struct fec_prng prng;

	jobs = fecd_cuda_host_alloc(ctx, count * sizeof(*jobs));
	in = fecd_cuda_host_alloc(ctx, (size_t)count * n_tx);
	out = fecd_cuda_host_alloc(ctx, (size_t)count * ostride);

	if (!jobs || !in || !out) {
		fprintf(stderr, "bench_gpu_ldpc: out of pinned memory\n");
		goto out;
	}
	fec_prng_seed(&prng, 1);
	for (size_t i = 0; i < (size_t)count * n_tx; i++)
		in[i] = (int8_t)(fec_prng_next(&prng) % 81) - 20; /* mostly positive, some errors */
	for (uint32_t i = 0; i < count; i++)
		jobs[i] = (struct fec_job){.in_len = n_tx, .own_len = n_tx};
	struct fec_batch b = {.count = count,
	                      .jobs = jobs,
	                      .in = in,
	                      .in_stride = n_tx,
	                      .out = out,
	                      .out_stride = ostride};
	/* the first submit copies the input; the timed ones decode it again in place */
	rc = fecd_cuda_lane_submit(lane, dec, &b, 0, err, sizeof(err)) ||
	     fecd_cuda_lane_wait(lane, err, sizeof(err));
	double t0 = cpu_timer_secs(CLOCK_MONOTONIC);
	for (unsigned r = 0; !rc && r < rounds; r++) {
		rc = fecd_cuda_lane_submit(
		    lane, dec, &b, FECD_CUDA_NO_COPY_IN | FECD_CUDA_NO_COPY_OUT, err, sizeof(err));
		if (!rc && fecd_cuda_lane_pending(lane) >= 2)
			rc = fecd_cuda_lane_wait(lane, err, sizeof(err));
	}
	while (!rc && fecd_cuda_lane_pending(lane))
		rc = fecd_cuda_lane_wait(lane, err, sizeof(err));
	double secs = cpu_timer_secs(CLOCK_MONOTONIC) - t0;
	if (rc) {
		fprintf(stderr, "bench_gpu_ldpc: %s\n", err);
		goto out;
	}
	printf("%s: %u frames x %u rounds in %.3f s: %.2f Gb/s of information bits (%.0f "
	       "frames/s)\n  %s\n",
	       argv[1], count, rounds, secs, (double)count * rounds * k / secs / 1e9,
	       (double)count * rounds / secs, fecd_cuda_decoder_describe(dec));
	rc = 0;
out:
	if (lane)
		fecd_cuda_lane_destroy(lane);
	if (dec)
		fecd_cuda_decoder_destroy(dec);
	if (ctx) {
		fecd_cuda_host_free(ctx, jobs);
		fecd_cuda_host_free(ctx, in);
		fecd_cuda_host_free(ctx, out);
		fecd_cuda_close(ctx);
	}
	fec_decoder_destroy(cpu);
	return rc;
}
