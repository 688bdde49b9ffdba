/*
 * A timing program for the CPU LDPC decoder, run by hand (not a test): fec_decode on the calling
 * thread over random int8 frames, FRAMES_PER_CALL frames per call, ROUNDS rounds of 256 frames
 * (64 distinct ones in turn), each round's rate in information bits per second, then the median
 * and the best. The decoder runs every iteration (early_stop=false), so the frames' content does
 * not change the rate. On x86 each round also gives the core's clock, from a chain of dependent
 * multiplies timed before it, and the round's thousands of core cycles per frame: the lent
 * machines' Xeons change speed from second to second, and a figure in cycles is steadier. The
 * summary adds the best of the rounds counted in the thread's CPU time, which time a shared
 * machine gives other processes does not count.
 *     bench_cpu_ldpc SPEC [FRAMES_PER_CALL [ROUNDS]]
 *     e.g. taskset -c 2 bench_cpu_ldpc ldpc,code=DVB-S2_64800x32400.alist,iters=10,early_stop=false
 * 1 10
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_simd.h"
#include "cpu_timer.h"
#include "fec.h"
#include "prng.h"

#define DISTINCT 64
#define ROUND    256

static double now(void)
{
	return cpu_timer_secs(CLOCK_MONOTONIC);
}

int main(int argc, char **argv)
{
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	struct fec_prng prng;
	char err[256] = "";
	const uint32_t per_call = argc > 2 ? (uint32_t)atoi(argv[2]) : 1;
	const unsigned rounds = argc > 3 ? (unsigned)atoi(argv[3]) : 10;

	if (argc < 2 || !per_call || per_call > ROUND || !rounds) {
		fprintf(stderr, "usage: bench_cpu_ldpc SPEC [FRAMES_PER_CALL (1-%d) [ROUNDS]]\n",
		        ROUND);
		return 2;
	}
	if (fec_spec_from_string(argv[1], &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		fprintf(stderr, "bench_cpu_ldpc: %s: %s\n", argv[1], err[0] ? err : "no decoder");
		return 1;
	}
	const struct fec_info *info = fec_decoder_info(dec);
	const uint32_t n = info->frame_syms, k = info->frame_info_bits;
	const size_t ostride = (info->max_out_bits + 7) / 8;
	int8_t *in = malloc((size_t)n * (DISTINCT + ROUND));
	uint8_t *out = malloc(ostride * ROUND);
	struct fec_job *jobs = calloc(ROUND, sizeof(*jobs));
	void *scratch = malloc(info->scratch_bytes ? info->scratch_bytes : 1);
	double *rate = calloc(rounds, sizeof(*rate)), cpu_best = 0;
	int rc = 1;

	if (!in || !out || !jobs || !scratch || !rate) {
		fprintf(stderr, "bench_cpu_ldpc: out of memory\n");
		goto out;
	}
	fec_prng_seed(&prng, 1);
	for (size_t i = 0; i < (size_t)n * DISTINCT; i++)
		in[i] = (int8_t)(fec_prng_next(&prng) % 64) - 24;
	for (unsigned r = 0; r < rounds; r++) {
		const double ghz = cpu_timer_core_ghz(CLOCK_MONOTONIC), t0 = now();
		const double c0 = cpu_timer_secs(CLOCK_THREAD_CPUTIME_ID);

		for (uint32_t f = 0; f < ROUND; f += per_call) {
			const uint32_t count = ROUND - f < per_call ? ROUND - f : per_call;
			struct fec_batch b = {.count = count,
			                      .jobs = jobs,
			                      .in = in + (size_t)((r * ROUND + f) % DISTINCT) * n,
			                      .in_stride = n,
			                      .out = out,
			                      .out_stride = ostride};

			/* frames f..f+count-1 of the distinct ones, wrapping through a copy */
			if ((r * ROUND + f) % DISTINCT + count > DISTINCT) {
				memcpy(in + (size_t)DISTINCT * n, b.in, (size_t)count * n);
				b.in = in + (size_t)DISTINCT * n;
			}
			for (uint32_t j = 0; j < count; j++)
				jobs[j] = (struct fec_job){.in_len = n, .own_len = n};
			if (fec_decode(dec, scratch, &b, 0, count)) {
				fprintf(stderr, "bench_cpu_ldpc: fec_decode failed\n");
				goto out;
			}
		}
		const double secs = now() - t0;
		const double cpu = cpu_timer_secs(CLOCK_THREAD_CPUTIME_ID) - c0;

		rate[r] = (double)ROUND * k / secs;
		if (cpu > 0 && (double)ROUND * k / cpu > cpu_best)
			cpu_best = (double)ROUND * k / cpu;
		printf("round %u: %.1f Mb/s", r, rate[r] / 1e6);
		if (ghz > 0)
			printf(", core at %.2f GHz: %.0f k cycles per frame", ghz,
			       secs / ROUND * ghz * 1e6);
		printf("\n");
	}
	qsort(rate, rounds, sizeof(*rate), cpu_timer_cmp);
	printf("%s, %u per call, %s: median %.1f Mb/s, best %.1f (%u rounds of %d frames); "
	       "thread CPU time best %.1f\n",
	       argv[1], per_call, fec_simd_name(), rate[rounds / 2] / 1e6, rate[rounds - 1] / 1e6,
	       rounds, ROUND, cpu_best / 1e6);
	rc = 0;
out:
	free(rate);
	free(scratch);
	free(jobs);
	free(out);
	free(in);
	fec_decoder_destroy(dec);
	return rc;
}
