/*
 * A timing program for the fano family's CPU decoders, run by hand (not a test): FRAMES distinct
 * random frames of the code SPEC through AWGN at EBN0 dB (int8 LLRs at the code's llr_scale),
 * decoded on the calling thread, ROUNDS rounds of all of them, by the reference (the "portable"
 * SIMD level) and by the fast path (the best level); for each, the best and the median round in
 * decoded information bits per second (wall clock), the core's cycles per decoded bit (the
 * thread's CPU time, at the clock a chain of dependent multiplies gives in CPU time just before:
 * the shared and lent machines change speed from second to second and run other processes, and
 * cycles are steadier), Fano cycles per bit and frame errors. The two
 * decodes are checked equal first (bits, status, work, metric).
 *     bench_fano_cpu SPEC EBN0 [FRAMES [ROUNDS]]
 *     e.g. taskset -c 1 build/tests/bench_fano_cpu whd-k7 6 512 5
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "cpu_simd.h"
#include "cpu_timer.h"
#include "fano_frames.h"

static double now(void)
{
	return cpu_timer_secs(CLOCK_MONOTONIC);
}

/* This thread's CPU time: what the cycle counts use, so that time the shared machine gives
 * other processes does not count. */
static double cpu_now(void)
{
	return cpu_timer_secs(CLOCK_THREAD_CPUTIME_ID);
}

/* Times ROUNDS decodes of every frame at the current SIMD level; prints one line. */
static int time_level(const struct frames *f, const char *text, unsigned rounds, const char *what)
{
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	char err[256] = "";
	double *rate = calloc(rounds, sizeof(*rate)), *cpb = calloc(rounds, sizeof(*cpb));
	struct result r = {0};
	void *scratch = NULL;
	int rc = -1;

	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		fprintf(stderr, "%s: %s\n", text, err[0] ? err : "no decoder");
		goto out;
	}
	const struct fec_info *info = fec_decoder_info(dec);

	r.out_stride = (info->max_out_bits + 7) / 8;
	r.jobs = calloc(f->count, sizeof(*r.jobs));
	r.out = calloc(f->count, r.out_stride);
	scratch = malloc(info->scratch_bytes);
	if (!rate || !cpb || !r.jobs || !r.out || !scratch)
		goto out;
	for (unsigned k = 0; k < rounds; k++) {
		struct fec_batch b = {.count = f->count,
		                      .jobs = r.jobs,
		                      .in = f->in,
		                      .in_stride = f->nsym,
		                      .out = r.out,
		                      .out_stride = r.out_stride};
		const double ghz = cpu_timer_core_ghz(CLOCK_THREAD_CPUTIME_ID), t0 = now(),
		             c0 = cpu_now();

		for (uint32_t j = 0; j < f->count; j++)
			r.jobs[j] = (struct fec_job){.in_len = f->nsym, .own_len = f->nsym};
		if (fec_decode(dec, scratch, &b, 0, f->count))
			goto out;
		const double secs = now() - t0, bits = (double)f->count * f->nbits;

		rate[k] = bits / secs / 1e6;
		cpb[k] = ghz * 1e9 * (cpu_now() - c0) / bits;
	}
	struct tally t;

	frames_tally(f, &r, &t);
	qsort(rate, rounds, sizeof(*rate), cpu_timer_cmp);
	qsort(cpb, rounds, sizeof(*cpb), cpu_timer_cmp);
	printf("%-9s %8.1f Mb/s best, %8.1f median; %7.1f core cycles per bit best, %7.1f median; "
	       "%.3f Fano cycles per bit, %u frame errors (%u not converged)\n",
	       what, rate[rounds - 1], rate[rounds / 2], cpb[0], cpb[rounds / 2],
	       (double)t.cycles / ((double)f->count * f->nbits), t.frame_errors, t.not_converged);
	rc = 0;
out:
	free(rate);
	free(cpb);
	free(scratch);
	result_free(&r);
	fec_decoder_destroy(dec);
	return rc;
}

int main(int argc, char **argv)
{
	const uint32_t count = argc > 3 ? (uint32_t)atoi(argv[3]) : 256;
	const unsigned rounds = argc > 4 ? (unsigned)atoi(argv[4]) : 5;
	char best[32];
	struct frames f;
	struct result ref, fast;
	int rc = 1;

	if (argc < 3 || !count || !rounds) {
		fprintf(stderr, "usage: bench_fano_cpu SPEC EBN0 [FRAMES [ROUNDS]]\n");
		return 2;
	}
	snprintf(best, sizeof(best), "%s", fec_simd_name());
	if (frames_make(&f, argv[1], count, atof(argv[2]), 2026))
		return 1;
	fec_simd_set("portable");
	if (frames_decode(&f, argv[1], &ref))
		goto out_frames;
	fec_simd_set(best);
	if (frames_decode(&f, argv[1], &fast))
		goto out_ref;
	for (uint32_t j = 0; j < f.count; j++) {
		const struct fec_job *x = &ref.jobs[j], *y = &fast.jobs[j];

		if (x->status != y->status || x->work != y->work || x->metric != y->metric ||
		    memcmp(ref.out + j * ref.out_stride, fast.out + j * fast.out_stride,
		           ref.out_stride)) {
			fprintf(stderr, "frame %u: fast and reference differ\n", j);
			goto out_fast;
		}
	}
	printf("%s at %s dB: %u frames of %u bits, %u rounds; fast path = reference on every "
	       "frame\n",
	       argv[1], argv[2], f.count, f.nbits, rounds);
	fec_simd_set("portable");
	if (time_level(&f, argv[1], rounds, "reference"))
		goto out_fast;
	fec_simd_set(best);
	if (time_level(&f, argv[1], rounds, "fast"))
		goto out_fast;
	rc = 0;
out_fast:
	result_free(&fast);
out_ref:
	result_free(&ref);
out_frames:
	frames_free(&f);
	return rc;
}
