/*
 * Internal to cuda/: what the backend core (contexts, lanes, copies) needs of one family's GPU
 * decoder. A family implements these operations in its folder (viterbi/viterbi_gpu.cu, ...) and
 * adds itself to GPU_FAMILY_MAP; the core never looks inside.
 *
 * The core copies a batch to the device as it is: the jobs array (struct fec_job, the same layout
 * as on the host) and the input slots at in_stride. The family's launch decodes every job exactly
 * as the CPU decoder would (same out_bits, status, metric, bits and soft values) and writes the
 * outputs at out_stride / soft_stride on the device; the core copies them back.
 */
#ifndef GPU_FAMILY_H
#define GPU_FAMILY_H

#include <cuda_runtime_api.h>

#include "fecd_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a batch's input slots hold on the device: the decoder's input kind (fec_info.in_kind),
 * or int8 LLRs packed two to a byte (FECD_CUDA_IN_S4). Each family's launch refuses the kinds it
 * lacks before launching anything (gpu_in_kind_name names them in its message). */
enum gpu_in_kind {
	GPU_IN_S8_LLR = 1,  /* one int8 LLR per symbol */
	GPU_IN_S4_LLR,      /* 4-bit LLRs, two per byte, expanded as softbits.h expands s4 */
	GPU_IN_F32_LLR,     /* one float32 LLR per symbol */
	GPU_IN_F32_SYMLOGP, /* in_q float32 log-probabilities per q-ary symbol */
};

const char *gpu_in_kind_name(enum gpu_in_kind kind);

/* A batch in device memory. */
struct gpu_batch {
	uint32_t count;
	struct fec_job *jobs;   /* device: inputs filled by the host, outputs by the launch */
	const void *in;         /* device: the input slots, in_kind values */
	size_t in_stride;       /* bytes between jobs' input slots */
	enum gpu_in_kind in_kind;
	uint32_t in_q;          /* GPU_IN_F32_SYMLOGP: values per symbol; else 1 */
	uint8_t *out;           /* device */
	size_t out_stride;
	float *soft;            /* device, NULL when no soft output is wanted */
	size_t soft_stride;
};

/* The simulator's view of one frame of a code (cuda/sim/, fecd_cuda_sim_*): a frame is one job
 * of the decoder, built from gen_bits random bits per frame (packed 32 to a word, bit j of the
 * frame in word j / 32 at bit j % 32), of which the first zero_head and the last zero_tail are
 * forced to 0 (a terminated frame's start state and tail); the family's encoder turns them into
 * code_syms code bits (the symbols sent, packed the same way), and the decoder's output bits
 * 0 .. cmp_bits-1 are compared with generated bits cmp_first .. cmp_first + cmp_bits - 1. */
struct gpu_sim_code {
	uint32_t gen_bits, zero_head, zero_tail;
	uint32_t cmp_first, cmp_bits;
	uint32_t code_syms;
	struct fec_job job; /* the input fields of the job every frame is decoded as (a channel
	                     * that changes the length sets in_len and own_len per frame) */
	/* Most frames a batch should hold, 0: the engine's rule (512 MB of input). A decoder that
	 * takes milliseconds a frame (ids) keeps batches to a fraction of a second, so that a
	 * run of a few batches still spreads over the lanes and ends soon. */
	uint32_t batch_max;
};

/* A family's encoder on the device, for the simulator (NULL in gpu_family_ops: none). */
struct gpu_sim_encoder_ops {
	/* Whether create will take the (finished) spec's code; NULL: every code the family's GPU
	 * decoder takes. */
	bool (*supports)(const struct fec_spec *spec);
	/* Builds it for cpu_dec's code and fills *code; frames of frame_bits information bits
	 * where the code's frames vary (0: the longest of at most 1024 bits that fills whole
	 * puncturing periods, fecd-sim's default), else 0 or the frame's own. -FEC_ENOTSUP (why in
	 * err) for a code of the family it does not encode, -FEC_EINVAL for a frame_bits it
	 * cannot take. */
	int (*create)(const struct fec_decoder *cpu_dec, uint32_t frame_bits, void **enc,
	              struct gpu_sim_code *code, char *err, size_t errlen);
	/* Enqueues the encoding of count frames on s: frame f's generated bits at bits + f *
	 * bits_words (words past gen_bits are 0), its code bits to code + f * code_words. */
	int (*encode)(const void *enc, const uint32_t *bits, size_t bits_words, uint32_t *code,
	              size_t code_words, uint32_t count, cudaStream_t s, char *err, size_t errlen);
	void (*destroy)(void *enc);
};

extern const struct gpu_sim_encoder_ops viterbi_gpu_sim_encoder, ldpc_gpu_sim_encoder;
extern const struct gpu_sim_encoder_ops ids_gpu_sim_encoder;

struct gpu_family_ops {
	enum fecd_family family;
	/* Whether this family's GPU decoder handles the (finished) spec. */
	bool (*supports)(const struct fec_spec *spec);
	/* Builds the device-side decoder for cpu_dec (tables uploaded, launch shape chosen from the
	 * device's properties and the code); *impl is the family's own object. */
	int (*create)(const struct fecd_cuda_device *dev, const struct fec_decoder *cpu_dec,
		      void **impl, char *err, size_t errlen);
	/* Device workspace one launch of up to count jobs needs (survivors, ...), in bytes. */
	size_t (*workspace_bytes)(const void *impl, uint32_t count);
	/* Enqueues the decode of b on stream s; checks the launch (cudaGetLastError). */
	int (*launch)(const void *impl, const struct gpu_batch *b, void *workspace, size_t ws_bytes,
		      cudaStream_t s, char *err, size_t errlen);
	const char *(*describe)(const void *impl);
	void (*destroy)(void *impl);
	/* The simulator's encoder, NULL where the family has none. */
	const struct gpu_sim_encoder_ops *sim_encoder;
};

#define GPU_FAMILY_MAP(X)                                                                          \
	X(viterbi_gpu_family)                                                                      \
	X(ldpc_gpu_family) X(fano_gpu_family) X(nbldpc_gpu_family) X(ids_gpu_family)

#define X(ops) extern const struct gpu_family_ops ops;
GPU_FAMILY_MAP(X)
#undef X

/* "cudaMemcpyAsync: invalid argument" into err; returns -FEC_EDEVICE (for the families too). */
int gpu_error(cudaError_t e, const char *what, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
