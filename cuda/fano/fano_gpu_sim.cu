/*
 * The fano family's encoder on the device, for the simulator (cuda/sim/, gpu_family.h's
 * gpu_sim_encoder_ops): the code bits of codec/fano/fano_encode.c, for every code the GPU
 * decoder takes (K = 3..64, n = 2..4, either polynomial notation), one frame of frame_bits
 * information bits and K-1 zero tail bits from state 0.
 *
 * A frame's generated bits are K-1 zeros (the start state), the information bits and the K-1
 * zero tail. At stage t the CPU encoder's register (bit 0 the current input, bit j the input j
 * stages before) is then generated bits t .. t+K-1 read backwards, so code bit r of stage t is
 * the parity of those bits, read as a number with bit t lowest, and the polynomial in the octal
 * notation (Karn's with its K bits reversed). Any thread computes any code bit from a window of
 * the packed bits, with no pass along the trellis. One thread writes one word of 32 code bits
 * (stage by stage, output by output, as the CPU sends them): they span at most 16 stages, so
 * the registers they need lie within 16 + 63 bits of the first stage's, in a 128-bit window of
 * four words held in registers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fano_gpu.cuh"
#include "sim_encoder.cuh"

extern "C" {
#include "fano_code.h"
}

/* The code as the kernel reads it (by value). */
struct fsim_code {
	uint32_t n, code_syms;
	uint64_t poly[FANO_N_MAX]; /* octal notation: bit i taps generated bit t + i at stage t */
};

/* One thread per 32 code bits of a frame. */
__global__ void fsim_encode_kernel(const struct fsim_code c, const uint32_t *bits,
                                   size_t bits_words, uint32_t *code, size_t code_words,
                                   uint32_t count)
{
	const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
	const uint32_t f = g / (uint32_t)code_words, w = g % (uint32_t)code_words;

	if (f >= count)
		return;
	const uint32_t *fb = bits + (size_t)f * bits_words;
	const uint32_t s0 = w * 32, end = min(s0 + 32, c.code_syms);
	uint32_t t = s0 / c.n, r = s0 % c.n;
	const uint32_t w0 = t >> 5, base = w0 * 32;
	uint32_t a[4];

	for (uint32_t i = 0; i < 4; i++)
		a[i] = w0 + i < bits_words ? fb[w0 + i] : 0;
	const uint64_t lo = (uint64_t)a[0] | (uint64_t)a[1] << 32,
	               hi = (uint64_t)a[2] | (uint64_t)a[3] << 32;
	uint32_t out = 0;

	for (uint32_t i = 0; s0 + i < end; i++) {
		/* the K <= 64 bits from t: off < 32 + 16, so within the window */
		const uint32_t off = t - base;
		const uint64_t reg = off ? (lo >> off) | (hi << (64 - off)) : lo;

		/* selected, not indexed: an indexed parameter array would go to local memory */
		const uint64_t poly = r == 0   ? c.poly[0]
		                      : r == 1 ? c.poly[1]
		                      : r == 2 ? c.poly[2]
		                               : c.poly[3];

		out |= (uint32_t)(__popcll(reg & poly) & 1) << i;
		if (++r == c.n) {
			r = 0;
			t++;
		}
	}
	code[(size_t)f * code_words + w] = out;
}

static int fsim_create(const struct fec_decoder *cpu_dec, uint32_t frame_bits, void **enc,
                       struct gpu_sim_code *code, char *err, size_t errlen)
{
	const struct fec_spec *spec = fec_decoder_spec(cpu_dec);
	const struct fano_spec *fs = &spec->u.fano;
	struct fano_code fc;
	struct fsim_code *c;

	if (spec->family != FECD_FAMILY_FANO || fs->k < FANO_K_MIN || fs->k > FANO_K_MAX ||
	    fs->n < FANO_N_MIN || fs->n > FANO_N_MAX) {
		snprintf(err, errlen, "fano: the GPU simulator takes K %u..%u, n %u..%u",
		         FANO_K_MIN, FANO_K_MAX, FANO_N_MIN, FANO_N_MAX);
		return -FEC_ENOTSUP;
	}
	if (frame_bits && frame_bits != fs->frame_bits) {
		snprintf(err, errlen,
		         "fano: a frame of this code carries %u bits (frame_bits), not %u",
		         fs->frame_bits, frame_bits);
		return -FEC_EINVAL;
	}
	fano_code_init(&fc, fs);
	c = (struct fsim_code *)calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	c->n = fc.n;
	c->code_syms = fc.n * fc.stages;
	/* the time-reversed code's polynomials are the forward ones (Karn's) bit-reversed */
	for (unsigned r = 0; r < fc.n; r++)
		c->poly[r] = fc.poly[1][r];

	memset(code, 0, sizeof(*code));
	code->gen_bits = fc.info_bits + 2 * (fc.k - 1);
	code->zero_head = fc.k - 1;
	code->zero_tail = fc.k - 1;
	code->cmp_first = fc.k - 1;
	code->cmp_bits = fc.info_bits;
	code->code_syms = c->code_syms;
	code->job.in_len = c->code_syms;
	code->job.own_len = c->code_syms;
	*enc = c;
	return 0;
}

static int fsim_encode(const void *enc, const uint32_t *bits, size_t bits_words, uint32_t *code,
                       size_t code_words, uint32_t count, cudaStream_t s, char *err, size_t errlen)
{
	const struct fsim_code *c = (const struct fsim_code *)enc;
	const unsigned block = 256;

	return sim_encode_launch(fsim_encode_kernel, "fsim_encode_kernel",
	                         sim_blocks((uint64_t)count * code_words, block), block, 0, s, err,
	                         errlen, *c, bits, bits_words, code, code_words, count);
}

static void fsim_destroy(void *enc)
{
	free(enc);
}

extern "C" const struct gpu_sim_encoder_ops fano_gpu_sim_encoder = {NULL, fsim_create, fsim_encode,
                                                                    fsim_destroy};
