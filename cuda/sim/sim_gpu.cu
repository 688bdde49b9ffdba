/*
 * fecd-sim's GPU engine (fecd_cuda.h, fecd_cuda_sim_*): Monte Carlo frames generated, encoded,
 * sent through BPSK over AWGN, quantized, decoded and counted on the device; only the tally comes
 * back. SIM_GPU.md has the design and the figures.
 *
 * A frame is one job of the code's decoder (a frame code's frame; one block of a stream code with
 * its head and tail), described by the family's simulator encoder (gpu_family.h's gpu_sim_code).
 * Its random numbers are counter-based (cuRAND's Philox4x32-10, keyed by the seed): frame i's
 * bits are subsequence 2i, its noise subsequence 2i + 1, each value at an offset set by its
 * position, so a frame is the same whatever batch it falls in and whatever thread draws it.
 *
 * Per batch, on one lane (a CUDA stream with its own buffers): bits -> the family's encoder ->
 * modulate (BPSK, noise, the LLR 2y/sigma^2 quantized as fecd-feed quantizes it: int8 =
 * round(LLR * 40 / mean LLR), half away from zero, clamped to +-127; float32 decoders get the
 * LLR) -> the family's decoder launch -> count (a warp per frame, atomics into the lane's
 * tally). Lanes take batches in turn, so one lane's generation overlaps another's decoding, and
 * nothing waits for the host until the run's end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curand_kernel.h>

/* The codec's headers are C: their functions have C linkage. */
extern "C" {
#include "channel_model.h"
#include "fec.h"
}
#include "gpu_core.h"
#include "sim_channel.cuh"

#define SIM_LANES       4
#define SIM_BATCH_BYTES (512u << 20) /* input bytes of one lane's batch */
#define SIM_BATCH_MAX   (1u << 17)
#define SIM_FEED_MEAN   40.0                   /* fecd-feed's automatic scale: mean |LLR| -> 40 */
#define SIM_RUNS        FECD_CUDA_SIM_RUNS_MAX /* runs submitted and not yet waited for */

/* A lane's tally words per run (T_BIT_ERRORS_SQ: the sum over frames of the square of their
 * bit errors, for the frame-level BER interval) */
enum { T_FRAME_ERRORS, T_BIT_ERRORS, T_UNCONVERGED, T_WRONG_BITS, T_BIT_ERRORS_SQ, T_WORDS };

struct sim_lane {
	cudaStream_t s;
	uint32_t *bits, *code;
	uint32_t *rx, *rx_len, *edits; /* a channel that edits: received bits, lengths, edits */
	void *in;
	uint8_t *out;
	struct fec_job *jobs;
	void *ws;
	size_t ws_bytes;
	unsigned long long *tally;  /* SIM_RUNS x T_WORDS: one row per run slot */
	cudaEvent_t done[SIM_RUNS]; /* the slot's tally copied to the host */
};

/* A run submitted and not yet waited for: its frames, mode and tally slot. */
struct sim_pending {
	uint64_t count;
	enum fecd_cuda_sim_mode mode;
};

struct fecd_cuda_sim {
	struct fecd_cuda *ctx;
	struct fecd_cuda_decoder *dec;
	const struct gpu_sim_encoder_ops *eops;
	void *enc;
	bool laid_out, zero_code; /* zero_code: all-zero code bits, no encoder (sim_zero_layout) */
	struct gpu_sim_code code;
	bool all_zero, f32;
	enum fecd_cuda_sim_mode mode;
	double rate;
	float llr_scale; /* the code's (frame families), the int8 scale; 0: fecd-feed's */
	float noiseless_scale; /* noiseless: 40 / the model's mean LLR (awgn 40, bsid 127) */
	struct fec_channel ch; /* the channel table's model and parameters */
	const struct sim_channel_ops *chan;
	uint32_t max_in; /* values of the decoder's input a frame at most (0: any) */
	uint32_t max_rx; /* received values a frame at most: code_syms, or the edit's bound */
	size_t bits_words, code_words, rx_words, in_stride, out_stride; /* in_stride: elements */
	uint32_t batch;
	struct fec_job *jobs_tpl; /* device: batch copies of code.job */
	unsigned nlanes, next_lane;
	struct sim_lane lane[SIM_LANES];
	/* runs submitted: slot (head + i) % SIM_RUNS for the i-th pending; their tallies land in
	 * host_tally[slot][lane] (pinned) */
	struct sim_pending runs[SIM_RUNS];
	unsigned head, pending;
	unsigned long long (*host_tally)[SIM_LANES][T_WORDS];
};

/* ---- Kernels */

/* Two standard normals from two 32-bit values by Box-Muller, as curand_normal4 makes them. */
__device__ static inline float2 box_muller(uint32_t a, uint32_t b)
{
	const float inv = 2.3283064e-10f; /* 2^-32 */
	float u = a * inv + inv / 2, v = b * (inv * 6.2831855f) + inv * 3.1415927f;
	float r = sqrtf(-2.0f * logf(u)), sn, cs;

	__sincosf(v, &sn, &cs);
	return make_float2(sn * r, cs * r);
}

/* Of the 32 bits lo .. lo+31, those in [a, b). */
__device__ static inline uint32_t range_mask(uint32_t lo, uint32_t a, uint32_t b)
{
	long long s = (long long)a - lo, e = (long long)b - lo;

	s = s < 0 ? 0 : s;
	e = e > 32 ? 32 : e;
	if (e <= s)
		return 0;
	return (e == 32 ? 0xffffffffu : (1u << e) - 1) & ~((1u << s) - 1);
}

/* Frame f's generated bits, one thread per 4 words (one Philox block): subsequence 2(first + f),
 * the 32-bit value at offset w for word w; zero_head, zero_tail and the words past gen_bits
 * forced to 0. */
__global__ void sim_bits_kernel(uint64_t seed, uint64_t first, uint32_t count, uint32_t gen_bits,
                                uint32_t zero_head, uint32_t zero_tail, bool all_zero,
                                uint32_t *bits, size_t bits_words)
{
	const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, quads = (bits_words + 3) / 4;
	const uint32_t f = g / quads, q = g % quads, w0 = q * 4;
	uint4 r = make_uint4(0, 0, 0, 0);

	if (f >= count)
		return;
	if (!all_zero)
		r = sim_philox(seed, 2 * (first + f), q);
	uint32_t v[4] = {r.x, r.y, r.z, r.w};
	const uint32_t keep_end = gen_bits - zero_tail;

	for (uint32_t i = 0; i < 4 && w0 + i < bits_words; i++)
		bits[f * bits_words + w0 + i] =
		    v[i] & range_mask((w0 + i) * 32, zero_head, keep_end);
}

/* BPSK, noise and quantization: one thread per 8 symbols of a frame (two Philox blocks); the
 * noise of symbol j is the normal of subsequence 2(first + f) + 1 at offset j (Box-Muller on
 * the values at offsets j and j + 1 rounded down to even, as curand_normal4). The frame's
 * symbols are its code_syms code bits, or with rx_len its rx_len[f] received bits (of at most
 * code_syms), the slot's values past them 0. */
template <bool F32>
__global__ void sim_modulate_kernel(uint64_t seed, uint64_t first, uint32_t count,
                                    uint32_t code_syms, const uint32_t *rx_len,
                                    const uint32_t *code, size_t code_words, float sigma,
                                    float gain, float scale, void *in, size_t in_stride)
{
	const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, octs = (code_syms + 7) / 8;
	const uint32_t f = g / octs, j0 = g % octs * 8;
	float nz[8] = {0, 0, 0, 0, 0, 0, 0, 0};

	if (f >= count)
		return;
	if (rx_len)
		code_syms = rx_len[f];
	uint32_t cb = ((const uint8_t *)(code + f * code_words))[j0 / 8];
	if (sigma > 0.0f && j0 < code_syms) {
		for (uint32_t h = 0; h < 2; h++) {
			uint4 r = sim_philox(seed, 2 * (first + f) + 1, j0 / 4 + h);
			float2 a = box_muller(r.x, r.y), b = box_muller(r.z, r.w);

			nz[4 * h] = a.x, nz[4 * h + 1] = a.y, nz[4 * h + 2] = b.x,
			       nz[4 * h + 3] = b.y;
		}
	}
	/* the 8 values in one store (int8) or two (float): slots start at multiples of 16 values */
	float v[8];
	uint64_t packed = 0;

	for (uint32_t i = 0; i < 8; i++) {
		float y = (cb >> i & 1u ? -1.0f : 1.0f) + sigma * nz[i];
		float llr = j0 + i < code_syms ? gain * y : 0.0f;

		if (F32) {
			v[i] = llr;
		} else {
			float q = fminf(fmaxf(roundf(llr * scale), -127.0f), 127.0f);

			packed |= (uint64_t)(uint8_t)(int8_t)q << (8 * i);
		}
	}
	if (F32) {
		float4 *d = (float4 *)((float *)in + f * in_stride + j0);

		d[0] = make_float4(v[0], v[1], v[2], v[3]);
		d[1] = make_float4(v[4], v[5], v[6], v[7]);
	} else {
		*(uint64_t *)((int8_t *)in + f * in_stride + j0) = packed;
	}
}

/* Bit and frame errors: one warp per frame; the decoder's output (packed MSB first) against
 * generated bits cmp_first .. cmp_first + cmp_bits - 1. A job that wrote fewer bits counts the
 * missing ones as errors; a frame error is a frame with a wrong bit or a status other than
 * decoded (as fecd-sink counts them); unconverged, the latter; wrong bits, the former. */
__global__ void sim_count_kernel(uint32_t count, const uint8_t *out, size_t out_stride,
                                 const struct fec_job *jobs, const uint32_t *bits,
                                 size_t bits_words, uint32_t cmp_first, uint32_t cmp_bits,
                                 unsigned long long *tally)
{
	const uint32_t f = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	uint32_t lane = threadIdx.x & 31;

	if (f >= count)
		return;
	const uint8_t *o = out + f * out_stride;
	const uint32_t *fb = bits + f * bits_words;
	uint32_t got = min(jobs[f].out_bits, cmp_bits);
	unsigned long long errs = 0;

	for (uint32_t j = lane * 32; j < got; j += 32 * 32) {
		uint32_t nb = min(32u, got - j), v = 0, want;

		for (uint32_t q = 0; q < (nb + 7) / 8; q++)
			v |= (__brev((uint32_t)o[j / 8 + q]) >> 24) << (8 * q);
		uint32_t p = cmp_first + j, w = p >> 5, s = p & 31;
		want = s ? (fb[w] >> s) | (fb[w + 1] << (32 - s)) : fb[w];
		uint32_t d = v ^ want;
		if (nb < 32)
			d &= (1u << nb) - 1;
		errs += __popc(d);
	}
	for (int sh = 16; sh > 0; sh >>= 1)
		errs += __shfl_down_sync(0xffffffffu, errs, sh);
	if (lane == 0) {
		bool decoded = jobs[f].status == FECD_STATUS_DECODED;

		errs += cmp_bits - got;
		if (errs) {
			atomicAdd(&tally[T_BIT_ERRORS], errs);
			atomicAdd(&tally[T_WRONG_BITS], 1ull);
			atomicAdd(&tally[T_BIT_ERRORS_SQ], errs * errs);
		}
		if (errs || !decoded)
			atomicAdd(&tally[T_FRAME_ERRORS], 1ull);
		if (!decoded)
			atomicAdd(&tally[T_UNCONVERGED], 1ull);
	}
}

/* ---- Setup */

static int cuda_ok(cudaError_t e, const char *what, char *err, size_t errlen)
{
	return e == cudaSuccess ? 0 : gpu_error(e, what, err, errlen);
}

/* The GPU family whose decoder takes the spec, or NULL. */
static const struct gpu_family_ops *sim_family_of(const struct fec_spec *spec)
{
	static const struct gpu_family_ops *const fams[] = {
#define X(ops) &ops,
	    GPU_FAMILY_MAP(X)
#undef X
	};
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++)
		if (fams[i]->family == spec->family && fams[i]->supports(spec))
			return fams[i];
	return NULL;
}

static const struct gpu_sim_encoder_ops *sim_encoder_of(const struct fec_spec *spec)
{
	const struct gpu_family_ops *f = sim_family_of(spec);

	return f ? f->sim_encoder : NULL;
}

/* Whether the model changes the received length (its bound on n bits is not n). */
static bool channel_varies(const struct fec_channel *ch)
{
	return fec_channel_max_out_len(ch, 1000) != 1000;
}

/* The channel from its text form into *ch and the device's model into *ops: one of the
 * channel table's models the device makes (sim_channel.cuh), and where it changes the received
 * length, a decoder of frames of varying length (fec_info.frame_syms 0: ids) that takes it. */
static int sim_channel_open(const char *channel, double rate, const struct fec_info *info,
                            struct fec_channel *ch, const struct sim_channel_ops **ops,
                            char *err, size_t errlen)
{
	const struct fec_channel_link link = {.ebn0_db = 0.0, .rate = rate, .noiseless = false};
	char why[256];

	if (fec_channel_open(channel ? channel : "awgn", &link, ch, why, sizeof(why))) {
		snprintf(err, errlen, "channel: %.200s", why);
		return -FEC_EINVAL;
	}
	*ops = sim_channel_by_name(ch->model->name);
	if (!*ops) {
		snprintf(err, errlen, "the GPU simulator has no channel %s: simulate it on the CPU",
		         ch->model->name);
		return -FEC_ENOTSUP;
	}
	if (channel_varies(ch) && (info->kind != FEC_KIND_FRAME || info->frame_syms != 0)) {
		snprintf(err, errlen,
		         "channel %s changes the received length: the GPU simulator takes it for "
		         "decoders of frames of varying length (ids), not this code's",
		         ch->model->name);
		return -FEC_ENOTSUP;
	}
	return 0;
}

extern "C" bool fecd_cuda_sim_supports(const struct fec_spec *spec, const char *channel)
{
	const struct gpu_sim_encoder_ops *e = sim_encoder_of(spec);
	const struct fec_channel_link link = {.ebn0_db = 0.0, .rate = 0.5, .noiseless = false};
	const struct sim_channel_ops *ops;
	struct fec_decoder *dec = NULL;
	struct fec_channel ch;
	struct fec_info info = {};
	char err[256];
	bool ok;

	if (!e || (e->supports && !e->supports(spec)) ||
	    fec_channel_open(channel ? channel : "awgn", &link, &ch, err, sizeof(err)))
		return false;
	/* only a channel that changes the length asks the decoder (building it) */
	info.kind = FEC_KIND_FRAME;
	if (channel_varies(&ch)) {
		if (fec_decoder_create(spec, &dec))
			return false;
		info = *fec_decoder_info(dec);
	}
	ok = sim_channel_open(channel, 0.5, &info, &ch, &ops, err, sizeof(err)) == 0;
	fec_decoder_destroy(dec);
	return ok;
}

/* All-zero is awgn only (open refuses it over a channel that treats bits unequally). */
extern "C" bool fecd_cuda_sim_supports_all_zero(const struct fec_spec *spec, const char *channel)
{
	const struct sim_channel_ops *ops;
	struct fec_channel ch;
	struct fec_info info = {};
	char err[256];

	info.kind = FEC_KIND_FRAME; /* awgn keeps the length: the decoder is not asked */
	return sim_family_of(spec) &&
	       sim_channel_open(channel, 0.5, &info, &ch, &ops, err, sizeof(err)) == 0 &&
	       !strcmp(ch.model->name, "awgn");
}

static void lane_free(struct sim_lane *l)
{
	if (l->s)
		cudaStreamSynchronize(l->s);
	cudaFree(l->bits);
	cudaFree(l->code);
	cudaFree(l->rx);
	cudaFree(l->rx_len);
	cudaFree(l->edits);
	cudaFree(l->in);
	cudaFree(l->out);
	cudaFree(l->jobs);
	cudaFree(l->ws);
	cudaFree(l->tally);
	for (unsigned i = 0; i < SIM_RUNS; i++)
		if (l->done[i])
			cudaEventDestroy(l->done[i]);
	if (l->s)
		cudaStreamDestroy(l->s);
	memset(l, 0, sizeof(*l));
}

static int lane_alloc(struct fecd_cuda_sim *sim, struct sim_lane *l, char *err, size_t errlen)
{
	const size_t B = sim->batch, el = sim->f32 ? sizeof(float) : 1;
	int rc;

	rc = cuda_ok(cudaStreamCreateWithFlags(&l->s, cudaStreamNonBlocking),
	             "cudaStreamCreateWithFlags", err, errlen);
	if (!rc)
		rc = cuda_ok(cudaMalloc((void **)&l->bits, B * sim->bits_words * 4),
		             "cudaMalloc (simulated bits)", err, errlen);
	if (!rc)
		rc = cuda_ok(cudaMalloc((void **)&l->code, B * sim->code_words * 4),
		             "cudaMalloc (code bits)", err, errlen);
	if (!rc && sim->chan->edit)
		rc = cuda_ok(cudaMalloc((void **)&l->rx, B * sim->rx_words * 4),
		             "cudaMalloc (received bits)", err, errlen);
	if (!rc && sim->chan->edit)
		rc = cuda_ok(cudaMalloc((void **)&l->rx_len, B * 4), "cudaMalloc (received lengths)",
		             err, errlen);
	if (!rc && sim->chan->edit)
		rc = cuda_ok(cudaMalloc((void **)&l->edits, B * SIM_EDITS * 4),
		             "cudaMalloc (channel edits)", err, errlen);
	if (!rc)
		rc = cuda_ok(cudaMalloc(&l->in, B * sim->in_stride * el), "cudaMalloc (input)", err,
		             errlen);
	if (!rc)
		rc = cuda_ok(cudaMalloc((void **)&l->out, B * sim->out_stride),
		             "cudaMalloc (output)", err, errlen);
	if (!rc)
		rc = cuda_ok(cudaMalloc((void **)&l->jobs, B * sizeof(struct fec_job)),
		             "cudaMalloc (jobs)", err, errlen);
	if (!rc) {
		l->ws_bytes = sim->dec->ops->workspace_bytes(sim->dec->impl, sim->batch);
		rc = cuda_ok(cudaMalloc(&l->ws, l->ws_bytes ? l->ws_bytes : 4),
		             "cudaMalloc (decoder workspace)", err, errlen);
	}
	if (!rc)
		rc = cuda_ok(
		    cudaMalloc((void **)&l->tally, SIM_RUNS * T_WORDS * sizeof(unsigned long long)),
		    "cudaMalloc (tally)", err, errlen);
	if (!rc)
		rc = cuda_ok(
		    cudaMemset(l->tally, 0, SIM_RUNS * T_WORDS * sizeof(unsigned long long)),
		    "cudaMemset (tally)", err, errlen);
	for (unsigned i = 0; !rc && i < SIM_RUNS; i++)
		rc = cuda_ok(cudaEventCreateWithFlags(&l->done[i], cudaEventDisableTiming),
		             "cudaEventCreateWithFlags", err, errlen);
	return rc;
}

/* Frames per batch: SIM_BATCH_BYTES of input, at most the encoder's batch_max (where it has
 * one), or $FECD_SIM_BATCH (for measurements). */
static uint32_t sim_batch_size(size_t in_bytes, uint32_t batch_max)
{
	const char *ev = getenv("FECD_SIM_BATCH");
	size_t b = SIM_BATCH_BYTES / (in_bytes ? in_bytes : 1);

	if (batch_max && b > batch_max)
		b = batch_max;
	if (ev && atol(ev) > 0)
		b = (size_t)atol(ev);
	if (b > SIM_BATCH_MAX)
		b = SIM_BATCH_MAX;
	/* the kernels index a batch's bytes (and so its threads) in 32 bits */
	if (in_bytes && b > (1ull << 31) / in_bytes)
		b = (1ull << 31) / in_bytes;
	if (b < 1)
		b = 1;
	return (uint32_t)b;
}

/* Frees what sim_layout builds. */
static void sim_unlayout(struct fecd_cuda_sim *sim)
{
	for (unsigned i = 0; i < SIM_LANES; i++)
		lane_free(&sim->lane[i]);
	sim->head = sim->pending = 0; /* runs under way are dropped with their lanes */
	cudaFree(sim->jobs_tpl);
	sim->jobs_tpl = NULL;
	if (sim->enc)
		sim->eops->destroy(sim->enc);
	sim->enc = NULL;
	sim->laid_out = sim->zero_code = false;
}

/* The all-zero codeword without an encoder (a code the family's device encoder does not take,
 * or a family without one): a frame code of fixed frames whose family declares the all-zero
 * codeword valid, its code bits 0, its frame the decoder's (fec_info). */
static int sim_zero_layout(struct fecd_cuda_sim *sim, uint32_t frame_bits, char *err, size_t errlen)
{
	const struct fec_info *info = fec_decoder_info(sim->dec->cpu);
	struct gpu_sim_code *c = &sim->code;

	if (!info->all_zero_valid || info->kind != FEC_KIND_FRAME || !info->frame_info_bits ||
	    !info->frame_syms) {
		snprintf(err, errlen,
		         "the GPU simulator has no encoder for this code, and sends the all-zero "
		         "codeword without one only for frame codes of fixed frames whose family "
		         "declares it valid");
		return -FEC_ENOTSUP;
	}
	if (frame_bits && frame_bits != info->frame_info_bits) {
		snprintf(err, errlen, "a frame of this code carries %u bits, not %u",
		         info->frame_info_bits, frame_bits);
		return -FEC_EINVAL;
	}
	memset(c, 0, sizeof(*c));
	c->gen_bits = c->cmp_bits = info->frame_info_bits;
	c->code_syms = info->frame_syms;
	c->job.in_len = c->job.own_len = info->frame_syms;
	sim->zero_code = true;
	return 0;
}

/* The family's encoder for frames of frame_bits information bits (0: its default), the frame's
 * layout and rate, and the lanes' buffers for it. */
static int sim_layout(struct fecd_cuda_sim *sim, uint32_t frame_bits, char *err, size_t errlen)
{
	const struct fec_decoder *cpu_dec = sim->dec->cpu;
	const struct fec_info *info = fec_decoder_info(cpu_dec);
	struct fec_job *tpl;
	int rc;

	rc = sim->eops ? sim->eops->create(cpu_dec, frame_bits, &sim->enc, &sim->code, err, errlen)
	               : -FEC_ENOTSUP;
	if (rc)
		sim->enc = NULL;
	if (rc == -FEC_ENOTSUP && sim->all_zero)
		rc = sim_zero_layout(sim, frame_bits, err, errlen);
	if (rc)
		return rc;
	sim->laid_out = true;
	/* Eb/N0 counts every code bit sent per information bit: a frame's rate is its bits over
	 * its code bits (a terminated frame's tail included), a stream job's the code's rate
	 * (fecd-sim's CPU engine counts the same) */
	sim->rate = info->kind == FEC_KIND_STREAM
	                ? fec_spec_rate(fec_decoder_spec(cpu_dec))
	                : (double)sim->code.cmp_bits / (double)sim->code.code_syms;
	sim->bits_words = (sim->code.gen_bits + 31) / 32 + 1; /* one more: windows read past */
	sim->code_words = (sim->code.code_syms + 31) / 32;
	/* a channel that edits: its bound on the received length, cut at the decoder's input
	 * bound (the CPU engine decodes the first values of a longer frame) */
	sim->max_rx = sim->code.code_syms;
	if (sim->chan->edit) {
		size_t m = fec_channel_max_out_len(&sim->ch, sim->code.code_syms);

		if (sim->max_in && m > sim->max_in)
			m = sim->max_in;
		sim->max_rx = (uint32_t)m;
	}
	sim->rx_words = (sim->max_rx + 31) / 32 + 1;
	sim->in_stride = (sim->max_rx + 15) / 16 * 16;
	sim->out_stride = ((size_t)info->max_out_bits + 7) / 8;
	sim->out_stride = (sim->out_stride + 15) / 16 * 16;
	sim->batch = sim_batch_size(sim->in_stride * (sim->f32 ? 4 : 1), sim->code.batch_max);
	sim->nlanes = SIM_LANES;
	sim->next_lane = 0;

	tpl = (struct fec_job *)malloc(sim->batch * sizeof(*tpl));
	if (!tpl) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	for (uint32_t i = 0; i < sim->batch; i++)
		tpl[i] = sim->code.job;
	rc = cuda_ok(cudaMalloc((void **)&sim->jobs_tpl, sim->batch * sizeof(*tpl)),
	             "cudaMalloc (jobs)", err, errlen);
	if (!rc)
		rc = cuda_ok(cudaMemcpy(sim->jobs_tpl, tpl, sim->batch * sizeof(*tpl),
		                        cudaMemcpyHostToDevice),
		             "cudaMemcpy (jobs)", err, errlen);
	free(tpl);
	for (unsigned i = 0; !rc && i < sim->nlanes; i++)
		rc = lane_alloc(sim, &sim->lane[i], err, errlen);
	return rc;
}

extern "C" void fecd_cuda_sim_close(struct fecd_cuda_sim *sim)
{
	if (!sim)
		return;
	gpu_use_device(sim->ctx, NULL, 0);
	sim_unlayout(sim);
	cudaFreeHost(sim->host_tally);
	if (sim->dec)
		fecd_cuda_decoder_destroy(sim->dec);
	cudaGetLastError();
	free(sim);
}

extern "C" int fecd_cuda_sim_open(struct fecd_cuda *ctx, const struct fec_decoder *cpu_dec,
                                  const char *channel, bool all_zero, struct fecd_cuda_sim **out,
                                  char *err, size_t errlen)
{
	const struct fec_spec *spec = fec_decoder_spec(cpu_dec);
	const struct fec_info *info = fec_decoder_info(cpu_dec);
	struct fecd_cuda_sim *sim;
	int rc;

	rc = gpu_use_device(ctx, err, errlen);
	if (rc)
		return rc;
	sim = (struct fecd_cuda_sim *)calloc(1, sizeof(*sim));
	if (!sim) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	sim->ctx = ctx;
	sim->all_zero = all_zero;
	sim->llr_scale = info->frame.llr_scale;
	sim->eops = sim_encoder_of(spec);
	if (!sim->eops && !(all_zero && sim_family_of(spec))) {
		snprintf(err, errlen,
		         "the GPU simulator has no encoder for this code (family %s): simulate "
		         "it on the CPU%s",
		         fecd_family_name(spec->family),
		         info->all_zero_valid && sim_family_of(spec)
		             ? ", or send the all-zero codeword (--all-zero), which needs none"
		             : "");
		rc = -FEC_ENOTSUP;
		goto fail;
	}
	rc = sim_channel_open(channel, fec_spec_rate(spec), info, &sim->ch, &sim->chan, err,
	                      errlen);
	if (rc)
		goto fail;
	if (all_zero && strcmp(sim->ch.model->name, "awgn")) {
		snprintf(err, errlen, "all_zero: only over awgn (channel %s treats the bits it "
		         "carries unequally)", sim->ch.model->name);
		rc = -FEC_EINVAL;
		goto fail;
	}
	{
		/* noiseless, the values are the model's without noise, at 40 / their mean LLR */
		const struct fec_channel_link nl = {.ebn0_db = 0.0, .rate = 0.5, .noiseless = true};
		struct fec_channel q;

		sim->noiseless_scale = (float)SIM_FEED_MEAN;
		if (fec_channel_open(channel ? channel : "awgn", &nl, &q, err, errlen) == 0)
			sim->noiseless_scale = (float)(SIM_FEED_MEAN / fec_channel_llr_mean(&q));
	}
	sim->max_in = info->max_frame_syms;
	if (info->in_kind != FEC_IN_S8_LLR && info->in_kind != FEC_IN_F32_LLR) {
		snprintf(err, errlen, "the GPU simulator sends bit LLRs: this decoder takes %s",
		         "q-ary symbols");
		rc = -FEC_ENOTSUP;
		goto fail;
	}
	sim->f32 = info->in_kind == FEC_IN_F32_LLR;
	rc = cuda_ok(cudaHostAlloc((void **)&sim->host_tally, SIM_RUNS * sizeof(*sim->host_tally),
	                           cudaHostAllocDefault),
	             "cudaHostAlloc (tallies)", err, errlen);
	if (!rc)
		rc = fecd_cuda_decoder_create(ctx, cpu_dec, &sim->dec, err, errlen);
	if (!rc)
		rc = sim_layout(sim, 0, err, errlen);
	if (rc)
		goto fail;
	*out = sim;
	return 0;

fail:
	fecd_cuda_sim_close(sim);
	return rc;
}

extern "C" int fecd_cuda_sim_set_frame_bits(struct fecd_cuda_sim *sim, uint32_t frame_bits,
                                            char *err, size_t errlen)
{
	int rc = gpu_use_device(sim->ctx, err, errlen);

	if (rc)
		return rc;
	sim_unlayout(sim);
	rc = sim_layout(sim, frame_bits, err, errlen);
	if (rc) {
		/* back to the default layout, which worked at open */
		char why[256];

		sim_unlayout(sim);
		if (sim_layout(sim, 0, why, sizeof(why)))
			sim_unlayout(sim);
	}
	return rc;
}

/* ---- Running */

struct sim_noise {
	float sigma, gain, scale;
};

/* sigma, the LLR gain 2 / sigma^2 and the int8 scale at ebn0 (dB): the code's llr_scale where it
 * has one (the scale its decoder reads int8 LLRs at, as fecd-sim's CPU engine takes it), else
 * fecd-feed's 40 / mean LLR; an infinite ebn0 is noiseless: LLR +-1 at 40 / the model's mean
 * noiseless LLR (awgn: 40, as fecd-feed --noiseless; bsid: 127, hard bits). */
static struct sim_noise sim_noise_at(const struct fecd_cuda_sim *sim, double ebn0_db)
{
	struct sim_noise n = {0.0f, 1.0f, sim->noiseless_scale};

	if (isinf(ebn0_db) && ebn0_db > 0)
		return n;
	double sigma = sqrt(1.0 / (2.0 * sim->rate * pow(10.0, ebn0_db / 10.0)));
	double gain = 2.0 / (sigma * sigma);

	n.sigma = (float)sigma;
	n.gain = (float)gain;
	n.scale = sim->llr_scale > 0 ? sim->llr_scale : (float)(SIM_FEED_MEAN / gain);
	return n;
}

/* Enqueues frames [first, first + count) (count <= batch) on lane l: generation, encoding and
 * the channel into the lane's input. */
static int sim_make_input(struct fecd_cuda_sim *sim, struct sim_lane *l, const struct sim_noise *n,
                          uint64_t seed, uint64_t first, uint32_t count, char *err, size_t errlen)
{
	const struct gpu_sim_code *c = &sim->code;
	const unsigned block = 256;
	uint64_t threads;
	int rc;

	threads = (uint64_t)count * ((sim->bits_words + 3) / 4);
	sim_bits_kernel<<<(unsigned)((threads + block - 1) / block), block, 0, l->s>>>(
	    seed, first, count, c->gen_bits, c->zero_head, c->zero_tail, sim->all_zero, l->bits,
	    sim->bits_words);
	rc = cuda_ok(cudaGetLastError(), "sim_bits_kernel", err, errlen);
	if (!rc)
		rc = sim->zero_code
		         ? cuda_ok(cudaMemsetAsync(l->code, 0, count * sim->code_words * 4, l->s),
		                   "cudaMemsetAsync (all-zero code bits)", err, errlen)
		         : sim->eops->encode(sim->enc, l->bits, sim->bits_words, l->code,
		                             sim->code_words, count, l->s, err, errlen);
	if (!rc && sim->chan->edit)
		rc = sim->chan->edit(&sim->ch, seed, first, count, c->code_syms, l->code,
		                     sim->code_words, sim->max_rx, l->rx, sim->rx_words, l->rx_len,
		                     l->edits, l->s, err, errlen);
	if (rc)
		return rc;
	/* BPSK and noise on what arrives: the code bits, or the edited ones */
	const uint32_t *sent = sim->chan->edit ? l->rx : l->code;
	const size_t sent_words = sim->chan->edit ? sim->rx_words : sim->code_words;
	const uint32_t *len = sim->chan->edit ? l->rx_len : NULL;

	threads = (uint64_t)count * ((sim->max_rx + 7) / 8);
	if (sim->f32)
		sim_modulate_kernel<true>
		    <<<(unsigned)((threads + block - 1) / block), block, 0, l->s>>>(
		        seed, first, count, sim->max_rx, len, sent, sent_words, n->sigma, n->gain,
		        n->scale, l->in, sim->in_stride);
	else
		sim_modulate_kernel<false>
		    <<<(unsigned)((threads + block - 1) / block), block, 0, l->s>>>(
		        seed, first, count, sim->max_rx, len, sent, sent_words, n->sigma, n->gain,
		        n->scale, l->in, sim->in_stride);
	return cuda_ok(cudaGetLastError(), "sim_modulate_kernel", err, errlen);
}

/* The received lengths into the jobs (a channel that changes them): in_len = own_len. */
__global__ void sim_job_len_kernel(uint32_t count, const uint32_t *rx_len, struct fec_job *jobs)
{
	const uint32_t f = blockIdx.x * blockDim.x + threadIdx.x;

	if (f < count)
		jobs[f].in_len = jobs[f].own_len = rx_len[f];
}

/* Enqueues the decode of the lane's count frames. */
static int sim_decode(struct fecd_cuda_sim *sim, struct sim_lane *l, uint32_t count, char *err,
                      size_t errlen)
{
	int rc;

	rc = cuda_ok(cudaMemcpyAsync(l->jobs, sim->jobs_tpl, count * sizeof(struct fec_job),
	                             cudaMemcpyDeviceToDevice, l->s),
	             "cudaMemcpyAsync (jobs)", err, errlen);
	if (!rc && sim->chan->edit) {
		sim_job_len_kernel<<<(count + 255) / 256, 256, 0, l->s>>>(count, l->rx_len, l->jobs);
		rc = cuda_ok(cudaGetLastError(), "sim_job_len_kernel", err, errlen);
	}
	if (rc)
		return rc;
	struct gpu_batch gb = {
	    .count = count,
	    .jobs = l->jobs,
	    .in = l->in,
	    .in_stride = sim->in_stride * (sim->f32 ? sizeof(float) : 1),
	    .in_kind = sim->f32 ? GPU_IN_F32_LLR : GPU_IN_S8_LLR,
	    .in_q = 1,
	    .out = l->out,
	    .out_stride = sim->out_stride,
	    .soft = NULL,
	    .soft_stride = 0,
	};
	return sim->dec->ops->launch(sim->dec->impl, &gb, l->ws, l->ws_bytes, l->s, err, errlen);
}

extern "C" int fecd_cuda_sim_submit(struct fecd_cuda_sim *sim, double ebn0_db, uint64_t seed,
                                    uint64_t first, uint64_t count, char *err, size_t errlen)
{
	const struct sim_noise n = sim_noise_at(sim, ebn0_db);
	const unsigned block = 256, slot = (sim->head + sim->pending) % SIM_RUNS;
	int rc;

	if (!sim->laid_out) {
		snprintf(err, errlen,
		         "the simulator has no frame layout (a failed set_frame_bits)");
		return -FEC_EINVAL;
	}
	if (sim->pending == SIM_RUNS) {
		snprintf(err, errlen, "%u runs pending: wait for one first", SIM_RUNS);
		return -FEC_EINVAL;
	}
	rc = gpu_use_device(sim->ctx, err, errlen);
	if (rc)
		return rc;
	/* batches of at most sim->batch, and at least one per lane where count allows, so that a
	 * run of a few batches still spreads over the lanes */
	uint64_t per = (count + sim->nlanes - 1) / sim->nlanes;
	if (per > sim->batch)
		per = sim->batch;
	for (uint64_t done = 0; done < count;) {
		uint32_t nb = (uint32_t)(count - done < per ? count - done : per);
		struct sim_lane *l = &sim->lane[sim->next_lane];

		sim->next_lane = (sim->next_lane + 1) % sim->nlanes;
		if (sim->mode != FECD_CUDA_SIM_DECODE_ONLY)
			rc = sim_make_input(sim, l, &n, seed, first + done, nb, err, errlen);
		if (!rc && sim->mode != FECD_CUDA_SIM_MAKE_ONLY)
			rc = sim_decode(sim, l, nb, err, errlen);
		if (!rc && sim->mode == FECD_CUDA_SIM_FULL) {
			uint64_t threads = (uint64_t)nb * 32;

			sim_count_kernel<<<(unsigned)((threads + block - 1) / block), block, 0,
			                   l->s>>>(nb, l->out, sim->out_stride, l->jobs, l->bits,
			                           sim->bits_words, sim->code.cmp_first,
			                           sim->code.cmp_bits, l->tally + slot * T_WORDS);
			rc = cuda_ok(cudaGetLastError(), "sim_count_kernel", err, errlen);
		}
		if (rc)
			return rc;
		done += nb;
	}
	/* each lane's tally of the run to the host, the slot cleared, and the point to wait on */
	for (unsigned i = 0; i < sim->nlanes; i++) {
		struct sim_lane *l = &sim->lane[i];
		unsigned long long *dt = l->tally + slot * T_WORDS;

		rc = cuda_ok(cudaMemcpyAsync(sim->host_tally[slot][i], dt,
		                             sizeof(sim->host_tally[slot][i]),
		                             cudaMemcpyDeviceToHost, l->s),
		             "cudaMemcpyAsync (tally)", err, errlen);
		if (!rc)
			rc = cuda_ok(cudaMemsetAsync(dt, 0, T_WORDS * sizeof(*dt), l->s),
			             "cudaMemsetAsync (tally)", err, errlen);
		if (!rc)
			rc = cuda_ok(cudaEventRecord(l->done[slot], l->s), "cudaEventRecord", err,
			             errlen);
		if (rc)
			return rc;
	}
	sim->runs[slot].count = count;
	sim->runs[slot].mode = sim->mode;
	sim->pending++;
	return 0;
}

extern "C" int fecd_cuda_sim_wait(struct fecd_cuda_sim *sim, struct fecd_cuda_sim_tally *t,
                                  char *err, size_t errlen)
{
	const unsigned slot = sim->head;
	int rc;

	if (!sim->pending) {
		snprintf(err, errlen, "no run pending");
		return -FEC_EINVAL;
	}
	rc = gpu_use_device(sim->ctx, err, errlen);
	for (unsigned i = 0; !rc && i < sim->nlanes; i++)
		rc = cuda_ok(cudaEventSynchronize(sim->lane[i].done[slot]),
		             "simulating (cudaEventSynchronize)", err, errlen);
	if (rc)
		return rc;
	sim->head = (sim->head + 1) % SIM_RUNS;
	sim->pending--;
	if (sim->runs[slot].mode != FECD_CUDA_SIM_FULL)
		return 0;
	t->frames += sim->runs[slot].count;
	t->bits += sim->runs[slot].count * sim->code.cmp_bits;
	for (unsigned i = 0; i < sim->nlanes; i++) {
		const unsigned long long *h = sim->host_tally[slot][i];

		t->frame_errors += h[T_FRAME_ERRORS];
		t->bit_errors += h[T_BIT_ERRORS];
		t->unconverged += h[T_UNCONVERGED];
		t->frames_wrong_bits += h[T_WRONG_BITS];
		t->bit_errors_sq += h[T_BIT_ERRORS_SQ];
	}
	return 0;
}

extern "C" unsigned fecd_cuda_sim_pending(const struct fecd_cuda_sim *sim)
{
	return sim->pending;
}

extern "C" int fecd_cuda_sim_run(struct fecd_cuda_sim *sim, double ebn0_db, uint64_t seed,
                                 uint64_t first, uint64_t count, struct fecd_cuda_sim_tally *t,
                                 char *err, size_t errlen)
{
	int rc;

	if (sim->pending) {
		snprintf(err, errlen, "run: %u runs submitted and not waited for", sim->pending);
		return -FEC_EINVAL;
	}
	rc = fecd_cuda_sim_submit(sim, ebn0_db, seed, first, count, err, errlen);
	return rc ? rc : fecd_cuda_sim_wait(sim, t, err, errlen);
}

/* ---- For the tests and the bench */

extern "C" void fecd_cuda_sim_geometry(const struct fecd_cuda_sim *sim,
                                       struct fecd_cuda_sim_geometry *g)
{
	memset(g, 0, sizeof(*g));
	g->gen_bits = sim->code.gen_bits;
	g->zero_head = sim->code.zero_head;
	g->zero_tail = sim->code.zero_tail;
	g->cmp_first = sim->code.cmp_first;
	g->cmp_bits = sim->code.cmp_bits;
	g->code_syms = sim->code.code_syms;
	g->job = sim->code.job;
	g->in_f32 = sim->f32;
	g->in_stride = sim->in_stride;
	g->rate = sim->rate;
	g->batch = sim->batch;
	g->lanes = sim->nlanes;
	g->max_rx = sim->max_rx;
}

extern "C" void fecd_cuda_sim_mode(struct fecd_cuda_sim *sim, enum fecd_cuda_sim_mode mode)
{
	sim->mode = mode;
}

/* Unpacks count frames of nbits bits (LSB first, words apart) into one byte per bit. */
static void unpack(const uint32_t *w, size_t words, uint32_t count, uint32_t nbits, uint8_t *out)
{
	for (uint32_t f = 0; f < count; f++)
		for (uint32_t j = 0; j < nbits; j++)
			out[(size_t)f * nbits + j] =
			    (uint8_t)(w[f * words + j / 32] >> (j % 32) & 1u);
}

extern "C" int fecd_cuda_sim_peek(struct fecd_cuda_sim *sim, double ebn0_db, uint64_t seed,
                                  uint64_t first, uint32_t count, uint8_t *bits, uint8_t *code,
                                  void *in, char *err, size_t errlen)
{
	const struct sim_noise n = sim_noise_at(sim, ebn0_db);
	struct sim_lane *l = &sim->lane[0];
	const size_t el = sim->f32 ? sizeof(float) : 1;
	uint32_t *hb = NULL, *hc = NULL;
	int rc;

	if (count == 0 || count > sim->batch) {
		snprintf(err, errlen, "peek: 1 to %u frames", sim->batch);
		return -FEC_EINVAL;
	}
	rc = gpu_use_device(sim->ctx, err, errlen);
	if (rc)
		return rc;
	hb = (uint32_t *)malloc(count * sim->bits_words * 4);
	hc = (uint32_t *)malloc(count * sim->code_words * 4);
	if (!hb || !hc) {
		snprintf(err, errlen, "out of memory");
		rc = -FEC_ENOMEM;
		goto out;
	}
	rc = cuda_ok(cudaStreamSynchronize(l->s), "cudaStreamSynchronize", err, errlen);
	if (!rc)
		rc = sim_make_input(sim, l, &n, seed, first, count, err, errlen);
	if (!rc)
		rc = cuda_ok(cudaMemcpyAsync(hb, l->bits, count * sim->bits_words * 4,
		                             cudaMemcpyDeviceToHost, l->s),
		             "cudaMemcpyAsync (bits)", err, errlen);
	if (!rc)
		rc = cuda_ok(cudaMemcpyAsync(hc, l->code, count * sim->code_words * 4,
		                             cudaMemcpyDeviceToHost, l->s),
		             "cudaMemcpyAsync (code)", err, errlen);
	if (!rc && in)
		rc = cuda_ok(cudaMemcpyAsync(in, l->in, count * sim->in_stride * el,
		                             cudaMemcpyDeviceToHost, l->s),
		             "cudaMemcpyAsync (input)", err, errlen);
	if (!rc)
		rc = cuda_ok(cudaStreamSynchronize(l->s), "peek (cudaStreamSynchronize)", err,
		             errlen);
	if (!rc) {
		if (bits)
			unpack(hb, sim->bits_words, count, sim->code.gen_bits, bits);
		if (code)
			unpack(hc, sim->code_words, count, sim->code.code_syms, code);
	}
out:
	free(hb);
	free(hc);
	return rc;
}

extern "C" int fecd_cuda_sim_peek_channel(struct fecd_cuda_sim *sim, double ebn0_db, uint64_t seed,
                                          uint64_t first, uint32_t count, uint32_t *rx_len,
                                          uint32_t *edits, char *err, size_t errlen)
{
	const struct sim_noise n = sim_noise_at(sim, ebn0_db);
	struct sim_lane *l = &sim->lane[0];
	int rc;

	if (count == 0 || count > sim->batch) {
		snprintf(err, errlen, "peek: 1 to %u frames", sim->batch);
		return -FEC_EINVAL;
	}
	rc = gpu_use_device(sim->ctx, err, errlen);
	if (!rc)
		rc = cuda_ok(cudaStreamSynchronize(l->s), "cudaStreamSynchronize", err, errlen);
	if (!rc)
		rc = sim_make_input(sim, l, &n, seed, first, count, err, errlen);
	if (!rc && sim->chan->edit)
		rc = cuda_ok(cudaMemcpyAsync(rx_len, l->rx_len, count * sizeof(uint32_t),
		                             cudaMemcpyDeviceToHost, l->s),
		             "cudaMemcpyAsync (received lengths)", err, errlen);
	if (!rc && sim->chan->edit)
		rc = cuda_ok(cudaMemcpyAsync(edits, l->edits, (size_t)count * SIM_EDITS * 4,
		                             cudaMemcpyDeviceToHost, l->s),
		             "cudaMemcpyAsync (edits)", err, errlen);
	if (!rc)
		rc = cuda_ok(cudaStreamSynchronize(l->s), "peek (cudaStreamSynchronize)", err,
		             errlen);
	if (!rc && !sim->chan->edit) {
		for (uint32_t f = 0; f < count; f++)
			rx_len[f] = sim->code.code_syms;
		memset(edits, 0, (size_t)count * SIM_EDITS * 4);
	}
	return rc;
}
