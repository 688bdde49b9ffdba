/*
 * The convolutional encoder on the device, for the simulator (cuda/sim/, gpu_family.h's
 * gpu_sim_encoder_ops): the CPU encoder's code bits (codec/viterbi/conv_encode.c), punctured
 * alike, for stream jobs and for terminated or truncated frames.
 *
 * A frame's generated bits are the encoder's inputs, preceded by the K-1 bits that set its start
 * state: at stage t the register (input << (K-1) | state, conv_code.h) is then bits t .. t+K-1
 * of the frame read as a K-bit number with bit t lowest, so any thread computes any code bit from
 * a window of the packed bits, with no pass along the trellis. A stream job draws all of them
 * (a random state before its head); a frame forces the first K-1 to 0 (state 0) and, terminated,
 * the last K-1 (its tail). Frames vary in length: one is frame_bits long, by default the longest
 * of at most 1024 bits (and max_frame_bits) filling whole puncturing periods. One thread writes
 * one word of 32 code bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viterbi_gpu_common.cuh"
#include "sim_encoder.cuh"

/* A frame's default length where frames vary (fecd-sim's CPU engine picks the same). */
#define VSIM_FRAME_DEFAULT 1024

/* The code as the kernel reads it: output r's polynomial in bits 9r .. 9r+8 of polys (bit b taps
 * register bit b; from conv_code's branch words, which are parity(reg & poly) ^ invert), the
 * inverted outputs, and per sent symbol u of one puncturing period its stage within the period
 * and its output. No table is indexed by the register: lanes of a warp would read different
 * entries of the constant bank, one after the other. */
struct vsim_code {
	unsigned k, period, unit_syms;
	uint32_t code_syms;
	uint64_t polys;
	unsigned invert;
	uint8_t u_step[CONV_PUNCT_MAX * CONV_N_MAX], u_out[CONV_PUNCT_MAX * CONV_N_MAX];
};

/* The K-bit register at stage t: bits t .. t+k-1 of the frame (k <= 9, so two words hold it). */
__device__ static inline unsigned reg_at(const uint32_t *bits, uint32_t t, unsigned k)
{
	uint32_t w = t >> 5, s = t & 31;
	uint64_t two = (uint64_t)bits[w] | (uint64_t)bits[w + 1] << 32;

	return (unsigned)(two >> s) & ((1u << k) - 1);
}

/* One thread per 32 code bits: the stages they span come from three words of the frame's bits
 * held in registers (a window of 96 bits from the first stage's word), the period's tables from
 * shared memory. */
__global__ void vsim_encode_kernel(const struct vsim_code c, const uint32_t *bits,
                                   size_t bits_words, uint32_t *code, size_t code_words,
                                   uint32_t count)
{
	__shared__ uint8_t u_step[CONV_PUNCT_MAX * CONV_N_MAX], u_out[CONV_PUNCT_MAX * CONV_N_MAX];
	const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
	const uint32_t f = g / (uint32_t)code_words, w = g % (uint32_t)code_words;

	for (uint32_t i = threadIdx.x; i < c.unit_syms; i += blockDim.x) {
		u_step[i] = c.u_step[i];
		u_out[i] = c.u_out[i];
	}
	__syncthreads();
	if (f >= count)
		return;
	const uint32_t *fb = bits + f * bits_words;
	const unsigned mask = (1u << c.k) - 1;
	uint32_t s = w * 32, end = min(s + 32, c.code_syms), out = 0;
	uint32_t p = s / c.unit_syms, u = s % c.unit_syms;
	const uint32_t w0 = (p * c.period + u_step[u]) >> 5, base = w0 * 32;
	const uint32_t a0 = fb[w0], a1 = fb[w0 + 1], a2 = w0 + 2 < bits_words ? fb[w0 + 2] : 0;
	const uint64_t lo = (uint64_t)a0 | (uint64_t)a1 << 32,
	               hi = (uint64_t)a1 | (uint64_t)a2 << 32;

	for (uint32_t i = 0; s + i < end; i++) {
		uint32_t t = p * c.period + u_step[u], off = t - base, r = u_out[u];
		unsigned reg = off + c.k <= 64   ? (unsigned)(lo >> off) & mask
		               : off + c.k <= 96 ? (unsigned)(hi >> (off - 32)) & mask
		                                 : reg_at(fb, t, c.k);
		unsigned poly = (unsigned)(c.polys >> (9 * r)) & 0x1ffu;

		out |= ((__popc(reg & poly) ^ (c.invert >> r)) & 1u) << i;
		if (++u == c.unit_syms) {
			u = 0;
			p++;
		}
	}
	code[f * code_words + w] = out;
}

/* The frame length: frame_bits, or the longest of at most VSIM_FRAME_DEFAULT bits (and
 * max_frame_bits) whose stages fill whole periods; 0 when there is none. */
static uint32_t frame_len(const struct conv_spec *cs, const struct conv_code *cc, uint32_t tail,
                          uint32_t frame_bits)
{
	uint32_t n =
	    cs->max_frame_bits < VSIM_FRAME_DEFAULT ? cs->max_frame_bits : VSIM_FRAME_DEFAULT;

	if (frame_bits)
		return frame_bits <= cs->max_frame_bits && (frame_bits + tail) % cc->period == 0
		           ? frame_bits
		           : 0;
	while (n > 0 && (n + tail) % cc->period)
		n--;
	return n;
}

static int vsim_create(const struct fec_decoder *cpu_dec, uint32_t frame_bits, void **enc,
                       struct gpu_sim_code *code, char *err, size_t errlen)
{
	const struct conv_spec *cs = &fec_decoder_spec(cpu_dec)->u.conv;
	struct conv_code cc;
	struct vsim_code *v;
	uint32_t stages, u = 0;

	conv_code_init(&cc, cs);
	memset(code, 0, sizeof(*code));
	if (cc.mode == CONV_MODE_STREAM && frame_bits && frame_bits != cs->decode_len) {
		snprintf(err, errlen,
		         "viterbi: a stream job's frame is its decode_len (%u bits), not %u",
		         cs->decode_len, frame_bits);
		return -FEC_EINVAL;
	}
	if (cc.mode == CONV_MODE_STREAM) {
		/* one decoder job of a random stream: head, owned block, tail */
		stages = cs->head_len + cs->decode_len + cs->traceback_len;
		code->gen_bits = cc.k - 1 + stages;
		code->cmp_first = cc.k - 1 + cs->head_len;
		code->cmp_bits = cs->decode_len;
		code->job.head_len = (uint32_t)conv_syms_for_stages(&cc, cs->head_len);
		code->job.own_len = (uint32_t)conv_syms_for_stages(&cc, cs->decode_len);
	} else {
		/* one frame from state 0 (and back, terminated) */
		uint32_t tail = cc.mode == CONV_MODE_TERMINATED ? cc.k - 1 : 0;
		uint32_t nbits = frame_len(cs, &cc, tail, frame_bits);

		if (nbits == 0) {
			snprintf(err, errlen,
			         "viterbi: no frame of %u bits: a frame has at most max_frame_bits "
			         "(%u) and fills whole puncturing periods of %u stages%s",
			         frame_bits, cs->max_frame_bits, cc.period,
			         tail ? ", its tail included" : "");
			return -FEC_EINVAL;
		}
		stages = nbits + tail;
		code->gen_bits = cc.k - 1 + stages;
		code->zero_head = cc.k - 1;
		code->zero_tail = tail;
		code->cmp_first = cc.k - 1;
		code->cmp_bits = nbits;
	}
	code->code_syms = (uint32_t)conv_syms_for_stages(&cc, stages);
	code->job.in_len = code->code_syms;
	if (cc.mode != CONV_MODE_STREAM)
		code->job.own_len = code->code_syms;

	v = (struct vsim_code *)calloc(1, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	v->k = cc.k;
	v->period = cc.period;
	v->unit_syms = cc.unit_syms;
	v->code_syms = code->code_syms;
	/* branch words are linear in the register: word[0] gives the inversions, word[1 << b]
	 * the polynomials' bit b */
	for (unsigned r = 0; r < cc.n; r++) {
		unsigned inv = cc.word[0] >> r & 1u;

		v->invert |= inv << r;
		for (unsigned b = 0; b < cc.k; b++)
			v->polys |= (uint64_t)((cc.word[1u << b] >> r & 1u) ^ inv) << (9 * r + b);
	}
	for (unsigned t = 0; t < cc.period; t++)
		for (unsigned r = 0; r < cc.n; r++)
			if (cc.sent[t] >> r & 1u) {
				v->u_step[u] = (uint8_t)t;
				v->u_out[u++] = (uint8_t)r;
			}
	*enc = v;
	return 0;
}

static int vsim_encode(const void *enc, const uint32_t *bits, size_t bits_words, uint32_t *code,
                       size_t code_words, uint32_t count, cudaStream_t s, char *err, size_t errlen)
{
	const struct vsim_code *v = (const struct vsim_code *)enc;
	const unsigned block = 256;

	return sim_encode_launch(vsim_encode_kernel, "vsim_encode_kernel",
	                         sim_blocks((uint64_t)count * code_words, block), block, 0, s, err,
	                         errlen, *v, bits, bits_words, code, code_words, count);
}

static void vsim_destroy(void *enc)
{
	free(enc);
}

extern "C" const struct gpu_sim_encoder_ops viterbi_gpu_sim_encoder = {NULL, vsim_create,
                                                                       vsim_encode, vsim_destroy};
