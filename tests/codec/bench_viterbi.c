/*
 * Throughput of the CPU Viterbi decoder on one core, by hand (not a ctest test):
 *     bench_viterbi [CODE [MBITS [EBN0]]]      e.g. bench_viterbi ccsds 20 4
 * Symbols are generated first (stream mode, int8 LLRs at EBN0 dB); then only fec_decode is timed,
 * over batches of 64 overlapping blocks cut as the daemon's batcher cuts them. Prints decoded
 * information bits per second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec_util.h"
#include "fec.h"
#include "prng.h"

#define BATCH 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *code = argc > 1 ? argv[1] : "ccsds";
	double mbits = argc > 2 ? atof(argv[2]) : 20, ebn0 = argc > 3 ? atof(argv[3]) : 4.0;
	struct fec_spec spec;
	struct fec_encoder *enc;
	struct fec_decoder *dec;
	const struct fec_info *in;
	struct fec_prng prng;
	struct fec_job jobs[BATCH];
	char err[256];
	size_t nbits, nsym, n = 0, stride, out_stride;
	uint8_t *bits, *sent, *out;
	int8_t *syms, *batch_in;
	void *scratch;
	double t0, elapsed, decoded = 0;

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
	stride = in->head_syms + in->block_syms + in->tail_syms;
	out_stride = (in->max_out_bits + 7) / 8;
	batch_in = malloc(BATCH * stride);
	out = malloc(BATCH * out_stride);
	scratch = malloc(in->scratch_bytes);
	if (!bits || !sent || !syms || !batch_in || !out || !scratch)
		return 1;
	fec_prng_seed(&prng, 1);
	fec_prng_bits(&prng, bits, nbits);
	fec_encode(enc, bits, nbits, sent, &n);
	util_channel_s8(&prng, sent, n, ebn0, fec_spec_rate(&spec), 8.0f, syms);

	elapsed = 0;
	for (size_t at = 0; at < n;) {
		struct fec_batch b = {.jobs = jobs,
		                      .in = batch_in,
		                      .in_stride = stride,
		                      .out = out,
		                      .out_stride = out_stride};

		for (b.count = 0; b.count < BATCH && at < n; b.count++) {
			size_t own = n - at < in->block_syms ? n - at : in->block_syms;
			size_t head = at < in->head_syms ? at : in->head_syms;
			size_t rest = n - at - own,
			       tail = rest < in->tail_syms ? rest : in->tail_syms;

			memcpy(batch_in + b.count * stride, syms + at - head, head + own + tail);
			jobs[b.count] = (struct fec_job){.in_len = (uint32_t)(head + own + tail),
			                                 .head_len = (uint32_t)head,
			                                 .own_len = (uint32_t)own,
			                                 .flags = (at ? 0 : FEC_JOB_STREAM_START) |
			                                          (rest ? 0 : FEC_JOB_STREAM_END)};
			at += own;
		}
		t0 = now();
		if (fec_decode(dec, scratch, &b, 0, b.count))
			return 1;
		elapsed += now() - t0;
		for (uint32_t i = 0; i < b.count; i++)
			decoded += jobs[i].out_bits;
	}
	printf("%s: %.0f bits decoded in %.3f s: %.1f Mb/s on one core (D=%u L=%u M=%u)\n", code,
	       decoded, elapsed, decoded / elapsed / 1e6, spec.u.conv.decode_len,
	       spec.u.conv.traceback_len, spec.u.conv.head_len);
	fec_encoder_destroy(enc);
	fec_decoder_destroy(dec);
	free(bits);
	free(sent);
	free(syms);
	free(batch_in);
	free(out);
	free(scratch);
	return 0;
}
