/*
 * Throughput of the CPU LDPC decoder on one core at every SIMD level the CPU has, by hand (not a
 * ctest test):
 *     bench_ldpc [CODE [FRAMES [EBN0 [REPS]]]]   e.g. bench_ldpc dvbs2-1/2,iters=10 128 2 3
 * CODE is the text form (default "dvbs2-1/2", layered nms, 10 iterations, early stop off so that
 * every frame runs all of them, as the figure counts). Frames are random information
 * bits through the encoder, BPSK over AWGN at EBN0 dB and the int8 quantizer (llr_scale); only
 * fec_decode is timed, REPS times per level; the best run is printed in information bits per
 * second of this thread's CPU time, beside the wall-clock mean. Every level's output (bits,
 * status, iterations) is checked against the first level's; a difference makes the exit status 1.
 * The codes folder: FECD_CODES_DIR, else the project's ../shared/codes (set at build time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "awgn.h"
#include "codec_util.h"
#include "cpu_simd.h"
#include "cpu_timer.h"
#include "fec.h"
#include "prng.h"

int main(int argc, char **argv)
{
	const char *text = argc > 1 ? argv[1] : "dvbs2-1/2,iters=10,early_stop=false";
	const unsigned frames = argc > 2 ? (unsigned)atoi(argv[2]) : 64;
	const double ebn0 = argc > 3 ? atof(argv[3]) : 2.0;
	const unsigned reps = argc > 4 ? (unsigned)atoi(argv[4]) : 3;
	struct fec_decoder *dec = NULL;
	struct fec_encoder *enc = NULL;
	const struct fec_info *info;
	struct fec_spec spec;
	struct fec_prng prng;
	struct fec_batch b = {0};
	struct fec_job *ref_jobs = NULL;
	uint8_t *bits = NULL, *code = NULL, *ref = NULL;
	void *scratch = NULL;
	char err[256], desc[256];
	int status = 0, first = 1;

#ifdef FECD_CODES_DIR_DEFAULT
	if (!getenv("FECD_CODES_DIR"))
		fec_codes_dir_set(FECD_CODES_DIR_DEFAULT);
#endif
	if (fec_spec_from_string(text, &spec, err, sizeof(err))) {
		fprintf(stderr, "bench_ldpc: %s\n", err);
		return 2;
	}
	if (fec_decoder_create(&spec, &dec) || fec_encoder_create(&spec, &enc)) {
		fprintf(stderr, "bench_ldpc: cannot build the decoder or encoder\n");
		return 2;
	}
	info = fec_decoder_info(dec);
	fec_family_by_id(spec.family)->spec_describe(&spec, desc, sizeof(desc));
	b.count = frames;
	b.in_stride = info->frame_syms;
	b.out_stride = (info->max_out_bits + 7) / 8;
	b.jobs = calloc(frames, sizeof(*b.jobs));
	ref_jobs = calloc(frames, sizeof(*ref_jobs));
	b.in = calloc(frames, b.in_stride);
	b.in_f32 = calloc(frames, b.in_stride * sizeof(float));
	b.out = calloc(frames, b.out_stride);
	ref = calloc(frames, b.out_stride);
	bits = malloc(spec.u.ldpc.k);
	code = malloc(info->frame_syms);
	scratch = aligned_alloc(64, (info->scratch_bytes + 63) / 64 * 64);
	if (!b.jobs || !ref_jobs || !b.in || !b.in_f32 || !b.out || !ref || !bits || !code ||
	    !scratch) {
		fprintf(stderr, "bench_ldpc: out of memory\n");
		return 2;
	}
	fec_prng_seed(&prng, 1);
	for (unsigned f = 0; f < frames; f++) {
		size_t n;

		fec_prng_bits(&prng, bits, spec.u.ldpc.k);
		fec_encode(enc, bits, spec.u.ldpc.k, code, &n);
		if (spec.frame.in == FEC_IN_F32_LLR)
			fec_awgn_llr(&prng, code, n, fec_awgn_sigma(ebn0, fec_spec_rate(&spec)), 0,
			             (float *)b.in_f32 + (size_t)f * b.in_stride);
		else
			util_channel_s8(&prng, code, n, ebn0, fec_spec_rate(&spec),
			                spec.frame.llr_scale,
			                (int8_t *)b.in + (size_t)f * b.in_stride);
	}
	printf("%s, %u frames at Eb/N0 %.2f dB, best of %u\n", desc, frames, ebn0, reps);
	for (unsigned level = 0; level < FEC_SIMD_LEVELS; level++) {
		double best = 1e30, cpu_sum = 0, wall_sum = 0;
		unsigned ok = 0, iters = 0;

		if (!fec_simd_available(level) || fec_simd_set(fec_simd_level_name(level)))
			continue;
		if (getenv("FECD_SIMD") && *getenv("FECD_SIMD") &&
		    strcmp(getenv("FECD_SIMD"), fec_simd_level_name(level)))
			continue;
		for (unsigned r = 0; r < reps; r++) {
			double t0 = cpu_timer_secs(CLOCK_THREAD_CPUTIME_ID),
			       w0 = cpu_timer_secs(CLOCK_MONOTONIC), t;

			for (unsigned f = 0; f < frames; f++)
				b.jobs[f] = (struct fec_job){.in_len = info->frame_syms,
				                             .own_len = info->frame_syms};
			fec_decode(dec, scratch, &b, 0, frames);
			t = cpu_timer_secs(CLOCK_THREAD_CPUTIME_ID) - t0;
			cpu_sum += t;
			wall_sum += cpu_timer_secs(CLOCK_MONOTONIC) - w0;
			if (t < best)
				best = t;
		}
		for (unsigned f = 0; f < frames; f++) {
			ok += b.jobs[f].status == FECD_STATUS_DECODED;
			iters += b.jobs[f].work;
		}
		printf("  %-8s %8.1f Mb/s per core (CPU mean %.1f, wall mean %.1f)  %u/%u decoded, "
		       "%.1f iterations on average\n",
		       fec_simd_level_name(level), frames * (double)spec.u.ldpc.k / best / 1e6,
		       frames * (double)spec.u.ldpc.k * reps / cpu_sum / 1e6,
		       frames * (double)spec.u.ldpc.k * reps / wall_sum / 1e6, ok, frames,
		       (double)iters / frames);
		if (first) {
			memcpy(ref, b.out, (size_t)frames * b.out_stride);
			memcpy(ref_jobs, b.jobs, frames * sizeof(*ref_jobs));
			first = 0;
			continue;
		}
		for (unsigned f = 0; f < frames; f++)
			if (memcmp(ref + (size_t)f * b.out_stride, b.out + (size_t)f * b.out_stride,
			           b.out_stride) ||
			    ref_jobs[f].status != b.jobs[f].status ||
			    ref_jobs[f].work != b.jobs[f].work) {
				printf("  %s differs from the first level at frame %u\n",
				       fec_simd_level_name(level), f);
				status = 1;
				break;
			}
	}
	free(scratch);
	free(code);
	free(bits);
	free(ref);
	free((void *)b.in);
	free((void *)b.in_f32);
	free(b.out);
	free(ref_jobs);
	free(b.jobs);
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	return status;
}
