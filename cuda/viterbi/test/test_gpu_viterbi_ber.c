/*
 * Bit error rate of the GPU stream decoder at fixed Eb/N0 and seed, CCSDS K=7 r=1/2 with int8
 * soft input, against the union bound, exactly as codec/viterbi/test/test_viterbi_ber.c checks the
 * CPU decoder (same channel, quantizer, bound and limits; see that file for the reasoning). The
 * stream is cut into overlapping jobs as the daemon's batcher cuts it and decoded in one batch
 * through a GPU lane. A 1 dB point must fail visibly, so the test can fail.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bitpack.h"
#include "check.h"
#include "codec_util.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "prng.h"

#define LLR_SCALE 8.0f

static struct fecd_cuda *ctx;
static struct fecd_cuda_lane *lane;

/* The stream in blocks of block_syms with head and tail, one GPU batch; returns bits or < 0. */
static long gpu_decode_stream(const struct fec_decoder *cpu, const int8_t *syms, size_t nsym,
                              uint8_t *bits)
{
	const struct fec_info *info = fec_decoder_info(cpu);
	const uint32_t block = info->block_syms;
	const size_t njobs = (nsym + block - 1) / block;
	const size_t stride = info->head_syms + block + info->tail_syms;
	const size_t ostride = (info->max_out_bits + 7) / 8;
	struct fecd_cuda_decoder *dec = NULL;
	struct fec_job *jobs = calloc(njobs, sizeof(*jobs));
	int8_t *in = calloc(njobs, stride);
	uint8_t *out = calloc(njobs, ostride);
	struct fec_batch b = {.count = (uint32_t)njobs,
	                      .jobs = jobs,
	                      .in = in,
	                      .in_stride = stride,
	                      .out = out,
	                      .out_stride = ostride};
	char err[256] = "";
	long total = -1;

	if (!jobs || !in || !out || fecd_cuda_decoder_create(ctx, cpu, &dec, err, sizeof(err)))
		goto out_free;
	util_cut_stream(info, syms, nsym, block, jobs, in, stride);
	if (fecd_cuda_lane_submit(lane, dec, &b, 0, err, sizeof(err)) ||
	    fecd_cuda_lane_wait(lane, err, sizeof(err))) {
		fprintf(stderr, "GPU decode: %s\n", err);
		goto out_free;
	}
	total = 0;
	for (size_t j = 0; j < njobs; j++) {
		if (jobs[j].status != FECD_STATUS_DECODED) {
			total = -1;
			break;
		}
		fec_unpack_bits(out + j * ostride, jobs[j].out_bits, bits + total);
		total += jobs[j].out_bits;
	}
out_free:
	fecd_cuda_decoder_destroy(dec);
	free(jobs);
	free(in);
	free(out);
	return total;
}

static long gpu_stream(void *arg, const struct fec_decoder *dec, const int8_t *syms, size_t nsym,
                       uint8_t *bits)
{
	(void)arg;
	return gpu_decode_stream(dec, syms, nsym, bits);
}

static long count_errors(const char *code, double ebn0, size_t nbits, uint64_t seed)
{
	return util_stream_errors(code, ebn0, nbits, seed, LLR_SCALE, gpu_stream, NULL);
}

static void against_bound(double ebn0, size_t nbits, uint64_t seed)
{
	char why[200];

	CHECK(util_check_union_bound_ccsds("GPU ", ebn0, nbits, seed, LLR_SCALE, gpu_stream, NULL,
	                                   why, sizeof(why)) == 0,
	      "%s", why);
}

int main(void)
{
	char msg[256] = "";
	long errors;

	if (fecd_cuda_device_count(msg, sizeof(msg)) <= 0) {
		char why[300];

		snprintf(why, sizeof(why), "no CUDA device (%s)", msg[0] ? msg : "none found");
		check_skip(why);
	}
	if (fecd_cuda_open(0, &ctx, msg, sizeof(msg)) ||
	    fecd_cuda_lane_create(ctx, &lane, msg, sizeof(msg))) {
		CHECK(0, "open: %s", msg);
		return check_done();
	}
	against_bound(3.0, 1000000, 31);
	against_bound(3.5, 2000000, 35);
	against_bound(4.0, 6000000, 40);
	against_bound(5.0, 3000000, 50);

	errors = count_errors("ccsds", 1.0, 200000, 10);
	printf("GPU ccsds 1.0 dB: %ld errors in 200000 bits\n", errors);
	CHECK(errors > 2000 && errors < 40000, "1 dB: %ld errors in 200000 bits", errors);

	errors = count_errors("dvbs-3/4", 5.0, 1000000, 75);
	printf("GPU dvbs-3/4 5.0 dB: %ld errors in 1000000 bits\n", errors);
	CHECK(errors >= 0 && errors < 500, "dvbs-3/4 at 5 dB: %ld errors in 1e6 bits", errors);

	fecd_cuda_lane_destroy(lane);
	fecd_cuda_close(ctx);
	return check_done();
}
