/*
 * libfecd from a program of one's own (docs/libfecd.md): a code from its text form, random
 * information bits encoded, sent over a channel model (BPSK over AWGN at an Eb/N0), quantized to
 * what the decoder takes, decoded as one batch of frames, and the bit and frame errors counted.
 *
 *   cc libfecd_example.c $(pkg-config --cflags --libs fecd) -o libfecd_example
 *   ./libfecd_example [CODE [EBN0_DB [FRAMES]]]    # default: ldpc,code=regular,n=576,dv=3,dc=6 2.5
 * 64
 *
 * It prints one line (code, frames, bit and frame errors, BER, FER) and exits 0, or 1 with a
 * message. It takes frame codes whose frames carry a fixed number of information bits (ldpc,
 * nbldpc, fano, viterbi with mode=terminated or truncated and its frame length).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bitpack.h>
#include <channel_model.h>
#include <fec.h>
#include <fec_lib.h>
#include <prng.h>
#include <softbits.h>

struct run {
	struct fec_spec spec;
	struct fec_decoder *dec;
	struct fec_encoder *enc;
	const struct fec_info *info;
	struct fec_channel ch;
	uint32_t frames, k;
	size_t n_max, in_stride, out_stride;
	uint8_t *info_bits, *code_bits, *out;
	float *llr;
	int8_t *in_s8;
	float *in_f32;
	struct fec_job *jobs;
	void *scratch;
};

static int setup(struct run *r, const char *code, double ebn0, char *err, size_t errlen)
{
	struct fec_channel_link link = {.ebn0_db = ebn0};
	int rc;

	rc = fec_spec_from_string(code, &r->spec, err, errlen);
	if (rc < 0)
		return rc;
	rc = fec_decoder_create(&r->spec, &r->dec);
	if (rc < 0) {
		snprintf(err, errlen, "decoder for %s: %s", code, fec_strerror(rc));
		return rc;
	}
	r->info = fec_decoder_info(r->dec);
	r->k = r->info->frame_info_bits;
	if (r->info->kind != FEC_KIND_FRAME || r->k == 0 ||
	    r->info->in_kind == FEC_IN_F32_SYMLOGP) {
		snprintf(err, errlen,
		         "%s: this example takes frame codes with a fixed number of "
		         "information bits and bit LLR input",
		         code);
		return -FEC_ENOTSUP;
	}
	rc = fec_encoder_create(&r->spec, &r->enc);
	if (rc < 0) {
		snprintf(err, errlen, "encoder for %s: %s", code, fec_strerror(rc));
		return rc;
	}
	link.rate = fec_spec_rate(&r->spec);
	rc = fec_channel_open("awgn", &link, &r->ch, err, errlen);
	if (rc < 0)
		return rc;
	/* Buffers: one frame's code bits and channel values, and the batch's slots. */
	r->n_max = fec_encoded_len(&r->spec, r->k);
	r->in_stride = r->info->max_frame_syms;
	r->out_stride = (r->info->max_out_bits + 7) / 8;
	r->info_bits = malloc((size_t)r->frames * r->k);
	r->code_bits = malloc(r->n_max);
	r->llr = malloc(fec_channel_max_out_len(&r->ch, r->n_max) * sizeof(float));
	r->out = calloc(r->frames, r->out_stride);
	r->jobs = calloc(r->frames, sizeof(*r->jobs));
	r->scratch = malloc(r->info->scratch_bytes ? r->info->scratch_bytes : 1);
	if (r->info->in_kind == FEC_IN_S8_LLR)
		r->in_s8 = calloc((size_t)r->frames, r->in_stride);
	else
		r->in_f32 = calloc((size_t)r->frames * r->in_stride, sizeof(float));
	if (!r->info_bits || !r->code_bits || !r->llr || !r->out || !r->jobs || !r->scratch ||
	    (!r->in_s8 && !r->in_f32)) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	return 0;
}

/* Frame i: k random bits, encoded, through the channel, into slot i. */
static int send_frame(struct run *r, struct fec_prng *p, uint32_t i, char *err, size_t errlen)
{
	uint8_t *bits = r->info_bits + (size_t)i * r->k;
	size_t n, nrx;
	int rc;

	fec_prng_bits(p, bits, r->k);
	rc = fec_encode(r->enc, bits, r->k, r->code_bits, &n);
	if (rc == 0)
		rc = fec_channel_apply(&r->ch, p, r->code_bits, n, r->llr, &nrx);
	if (rc < 0) {
		snprintf(err, errlen, "frame %u: %s", i, fec_strerror(rc));
		return rc;
	}
	if (nrx > r->in_stride) {
		snprintf(err, errlen, "frame %u: %zu values, more than a slot's %zu", i, nrx,
		         r->in_stride);
		return -FEC_ELONG;
	}
	/* The decoder's input: int8 LLRs quantized with the code's llr_scale (a frame family's),
	 * or where it has none, as fecd-feed does, the mean LLR to 40; or floats. */
	if (r->in_s8) {
		float scale = r->info->frame.llr_scale;

		if (!(scale > 0.0f))
			scale = (float)(40.0 / fec_channel_llr_mean(&r->ch));
		rc = fec_llr_quantize(FECD_FMT_S8_LLR, r->llr, nrx, false, scale,
		                      r->in_s8 + (size_t)i * r->in_stride);
	} else
		memcpy(r->in_f32 + (size_t)i * r->in_stride, r->llr, nrx * sizeof(float));
	r->jobs[i].in_len = (uint32_t)nrx;
	r->jobs[i].own_len = (uint32_t)nrx;
	return rc;
}

static void release(struct run *r)
{
	fec_encoder_destroy(r->enc);
	fec_decoder_destroy(r->dec);
	free(r->info_bits);
	free(r->code_bits);
	free(r->llr);
	free(r->out);
	free(r->jobs);
	free(r->scratch);
	free(r->in_s8);
	free(r->in_f32);
}

int main(int argc, char **argv)
{
	const char *code = argc > 1 ? argv[1] : "ldpc,code=regular,n=576,dv=3,dc=6";
	double ebn0 = argc > 2 ? atof(argv[2]) : 2.5;
	struct run r = {.frames = argc > 3 ? (uint32_t)atoi(argv[3]) : 64};
	struct fec_batch b = {0};
	struct fec_prng p;
	uint64_t bit_errors = 0, frame_errors = 0;
	uint8_t *packed = NULL;
	char err[512] = "";
	int rc;

	if (r.frames < 1 || r.frames > 100000) {
		fprintf(stderr, "libfecd_example: FRAMES must be 1..100000\n");
		return 1;
	}
	rc = setup(&r, code, ebn0, err, sizeof(err));
	fec_prng_seed(&p, 1);
	for (uint32_t i = 0; rc == 0 && i < r.frames; i++)
		rc = send_frame(&r, &p, i, err, sizeof(err));
	if (rc == 0) {
		/* One batch of every frame, decoded on this thread. */
		b.count = r.frames;
		b.jobs = r.jobs;
		b.in = r.in_s8;
		b.in_f32 = r.in_f32;
		b.in_stride = r.in_stride;
		b.out = r.out;
		b.out_stride = r.out_stride;
		rc = fec_decode(r.dec, r.scratch, &b, 0, r.frames);
		if (rc < 0)
			snprintf(err, sizeof(err), "decode: %s", fec_strerror(rc));
	}
	packed = rc == 0 ? malloc((r.k + 7) / 8) : NULL;
	for (uint32_t i = 0; rc == 0 && i < r.frames; i++) {
		size_t e;

		if (!packed || r.jobs[i].out_bits != r.k) {
			snprintf(err, sizeof(err), "frame %u: %u bits decoded, %u sent", i,
			         r.jobs[i].out_bits, r.k);
			rc = -FEC_EINVAL;
			break;
		}
		fec_pack_bits(r.info_bits + (size_t)i * r.k, r.k, packed);
		e = fec_count_bit_errors(packed, r.out + (size_t)i * r.out_stride, r.k);
		bit_errors += e;
		frame_errors += e || r.jobs[i].status != FECD_STATUS_DECODED;
	}
	free(packed);
	if (rc == 0)
		printf("libfecd %s: %s at %.2f dB: %u frames, %llu bit errors, %llu frame errors, "
		       "BER %.3g, FER %.3g\n",
		       fec_version(), code, ebn0, r.frames, (unsigned long long)bit_errors,
		       (unsigned long long)frame_errors,
		       (double)bit_errors / ((double)r.frames * r.k),
		       (double)frame_errors / r.frames);
	else
		fprintf(stderr, "libfecd_example: %s\n", err);
	release(&r);
	return rc == 0 ? 0 : 1;
}
