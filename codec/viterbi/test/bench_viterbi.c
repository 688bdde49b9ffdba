/*
 * Throughput of the CPU Viterbi decoder on one core, at every SIMD level the CPU has, by hand
 * (not a ctest test):
 *     bench_viterbi [CODE [MBITS [EBN0 [REPS]]]]      e.g. bench_viterbi ccsds 20 4 5
 * Symbols are generated and cut into batches of 64 overlapping blocks first (stream mode, int8
 * LLRs at EBN0 dB, blocks cut as the daemon's batcher cuts them); then only fec_decode is timed,
 * REPS times over the whole stream per level, and the best run is printed in decoded information
 * bits per second of this thread's CPU time (the best run, because other work on the machine only
 * ever slows a run down), beside the mean over the runs in CPU time and in wall-clock time (what
 * fecd-bench reports: on a shared machine the two means tell how much others took).
 * FECD_SIMD=LEVEL limits the run to that level. Every level's output is checked against the
 * first level's (portable, unless FECD_SIMD names one): a level that differs is reported and the
 * exit status is 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec_util.h"
#include "cpu_simd.h"
#include "cpu_timer.h"
#include "fec.h"
#include "prng.h"

#define BATCH 64

struct stream {
	size_t nbatch, stride, out_stride;
	int8_t *in;          /* nbatch * BATCH slots of stride symbols */
	struct fec_job *job; /* nbatch * BATCH jobs (count in counts[]) */
	uint32_t *counts;
	uint8_t *out; /* nbatch * BATCH * out_stride */
};

/* Cuts n symbols into batches as the daemon's batcher does. */
static int cut_stream(const struct fec_info *in, const int8_t *syms, size_t n, struct stream *s)
{
	size_t blocks = (n + in->block_syms - 1) / in->block_syms;

	s->nbatch = (blocks + BATCH - 1) / BATCH;
	s->stride = in->head_syms + in->block_syms + in->tail_syms;
	s->out_stride = (in->max_out_bits + 7) / 8;
	s->in = calloc(s->nbatch * BATCH, s->stride);
	s->job = calloc(s->nbatch * BATCH, sizeof(*s->job));
	s->counts = calloc(s->nbatch, sizeof(*s->counts));
	s->out = calloc(s->nbatch * BATCH, s->out_stride);
	if (!s->in || !s->job || !s->counts || !s->out)
		return -1;
	for (size_t at = 0, i = 0; at < n; i++) {
		size_t own = n - at < in->block_syms ? n - at : in->block_syms;
		size_t head = at < in->head_syms ? at : in->head_syms;
		size_t rest = n - at - own, tail = rest < in->tail_syms ? rest : in->tail_syms;

		memcpy(s->in + i * s->stride, syms + at - head, head + own + tail);
		s->job[i] = (struct fec_job){.in_len = (uint32_t)(head + own + tail),
		                             .head_len = (uint32_t)head,
		                             .own_len = (uint32_t)own,
		                             .flags = (at ? 0 : FEC_JOB_STREAM_START) |
		                                      (rest ? 0 : FEC_JOB_STREAM_END)};
		s->counts[i / BATCH]++;
		at += own;
	}
	return 0;
}

/* Decodes the whole stream once; returns the seconds spent in fec_decode, < 0 on error. */
static double decode_stream(const struct fec_decoder *dec, void *scratch, struct stream *s,
                            double *bits)
{
	double elapsed = 0;

	*bits = 0;
	for (size_t i = 0; i < s->nbatch; i++) {
		struct fec_batch b = {.count = s->counts[i],
		                      .jobs = s->job + i * BATCH,
		                      .in = s->in + i * BATCH * s->stride,
		                      .in_stride = s->stride,
		                      .out = s->out + i * BATCH * s->out_stride,
		                      .out_stride = s->out_stride};
		double t0 = cpu_timer_secs(CLOCK_THREAD_CPUTIME_ID);

		if (fec_decode(dec, scratch, &b, 0, b.count))
			return -1;
		elapsed += cpu_timer_secs(CLOCK_THREAD_CPUTIME_ID) - t0;
		for (uint32_t j = 0; j < b.count; j++)
			*bits += b.jobs[j].out_bits;
	}
	return elapsed;
}

int main(int argc, char **argv)
{
	const char *code = argc > 1 ? argv[1] : "ccsds";
	double mbits = argc > 2 ? atof(argv[2]) : 20, ebn0 = argc > 3 ? atof(argv[3]) : 4.0;
	int reps = argc > 4 ? atoi(argv[4]) : 3;
	const char *only = getenv("FECD_SIMD");
	struct fec_spec spec;
	struct fec_encoder *enc;
	struct fec_decoder *dec;
	const struct fec_info *in;
	struct fec_prng prng;
	struct stream s;
	char err[256] = "";
	size_t nbits, nsym, n = 0, out_bytes;
	uint8_t *bits, *sent, *ref = NULL;
	int8_t *syms;
	void *scratch;
	int status = 0;

	if (fec_spec_from_string(code, &spec, err, sizeof(err)) || spec.u.conv.mode != 1) {
		fprintf(stderr, "bench_viterbi: %s: %s\n", code, err[0] ? err : "not a stream");
		return 2;
	}
	if (fec_encoder_create(&spec, &enc) || fec_decoder_create(&spec, &dec))
		return 1;
	in = fec_decoder_info(dec);
	nbits = (size_t)(mbits * 1e6) / in->unit_bits * in->unit_bits;
	nsym = fec_encoded_len(&spec, nbits);
	bits = malloc(nbits);
	sent = malloc(nsym);
	syms = malloc(nsym);
	scratch = malloc(in->scratch_bytes);
	if (!bits || !sent || !syms || !scratch)
		return 1;
	fec_prng_seed(&prng, 1);
	fec_prng_bits(&prng, bits, nbits);
	fec_encode(enc, bits, nbits, sent, &n);
	util_channel_s8(&prng, sent, n, ebn0, fec_spec_rate(&spec), 8.0f, syms);
	if (cut_stream(in, syms, n, &s))
		return 1;
	out_bytes = s.nbatch * BATCH * s.out_stride;
	printf("%s (D=%u L=%u M=%u), %zu bits, best of %d, one core; SIMD level by default: %s\n",
	       code, spec.u.conv.decode_len, spec.u.conv.traceback_len, spec.u.conv.head_len, nbits,
	       reps, fec_simd_name());
	for (unsigned l = 0; fec_simd_level_name(l); l++) {
		const char *name = fec_simd_level_name(l);
		double best = 0, decoded = 0, sum = 0, walls = 0;

		if (!fec_simd_available(l)) {
			printf("  %-8s  not available on this CPU/build\n", name);
			continue;
		}
		if (only && strcmp(only, name))
			continue;
		if (fec_simd_set(name))
			return 1;
		for (int r = 0; r < reps; r++) {
			double w = cpu_timer_secs(CLOCK_MONOTONIC),
			       t = decode_stream(dec, scratch, &s, &decoded);

			if (t < 0)
				return 1;
			walls += cpu_timer_secs(CLOCK_MONOTONIC) - w;
			sum += t;
			best = r == 0 || t < best ? t : best;
		}
		if (!ref) {
			ref = malloc(out_bytes);
			if (!ref)
				return 1;
			memcpy(ref, s.out, out_bytes);
		} else if (memcmp(ref, s.out, out_bytes)) {
			printf("  %-8s  OUTPUT DIFFERS FROM PORTABLE\n", name);
			status = 1;
		}
		printf("  %-8s  %.0f bits in %.3f s: best %7.1f Mb/s, mean %7.1f (CPU time), "
		       "%7.1f (wall clock)\n",
		       name, decoded, best, decoded / best / 1e6, decoded * reps / sum / 1e6,
		       decoded * reps / walls / 1e6);
	}
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	free(bits);
	free(sent);
	free(syms);
	free(s.in);
	free(s.job);
	free(s.counts);
	free(s.out);
	free(ref);
	free(scratch);
	return status;
}
