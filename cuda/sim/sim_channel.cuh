/*
 * Internal to cuda/sim: the channel models of the channel table (codec/channel_model.h) as the
 * GPU simulator makes them. Every model ends in BPSK over AWGN on the bits it delivers, which the
 * engine's modulate kernel applies (sim_gpu.cu); a model that does more to the bits first
 * (bsid: insertions, deletions and substitutions) gives an `edit` step that turns each frame's
 * code bits into its received bits, of a length that varies from frame to frame. A model the
 * table has and this list lacks is refused by fecd_cuda_sim_open (simulate it on the CPU).
 *
 * Random numbers: a frame's edits draw from Philox4x32-10 keyed by the seed, in frame i's noise
 * subsequence (2i + 1) at blocks whose upper 32 bits are 1 or more (block t + (k + 1) 2^32 for
 * the k-th draw before code bit t), which the noise (blocks below 2^30) never reaches: a
 * frame's edits and noise are its own whatever batch or thread makes them.
 */
#ifndef SIM_CHANNEL_CUH
#define SIM_CHANNEL_CUH

#include <stdint.h>

#include <cuda_runtime.h>
#include <curand_kernel.h>

extern "C" {
#include "channel_model.h"
}

/* Philox4x32-10 keyed by seed at block `block` of subsequence subseq: the four 32-bit values
 * cuRAND's curand_init(seed, subseq, 4 * block) state gives first, computed once. */
__device__ static inline uint4 sim_philox(uint64_t seed, uint64_t subseq, uint64_t block)
{
	return curand_Philox4x32_10(make_uint4((uint32_t)block, (uint32_t)(block >> 32),
	                                       (uint32_t)subseq, (uint32_t)(subseq >> 32)),
	                            make_uint2((uint32_t)seed, (uint32_t)(seed >> 32)));
}

/* What an edit step writes per frame, besides the received bits. */
enum { SIM_EDIT_INS, SIM_EDIT_DEL, SIM_EDIT_SUB, SIM_EDITS };

struct sim_channel_ops {
	const char *name; /* the model's name in the channel table */
	/* NULL: the model sends the code bits as they are (awgn). Else enqueues on s, for frames
	 * [first, first + count): frame f's code_syms code bits (code + f * code_words, packed
	 * 32 to a word, bit j at word j / 32, bit j % 32) to its received bits (rx + f *
	 * rx_words, packed the same way, bits past rx_len[f] zero), rx_len[f] of them: the
	 * model's received length, cut at max_rx (the decoder's input bound; the values past it
	 * are dropped, as the CPU engine drops them); edits[SIM_EDITS * f + SIM_EDIT_*]: the
	 * insertions, deletions and substitutions drawn (before the cut). */
	int (*edit)(const struct fec_channel *ch, uint64_t seed, uint64_t first, uint32_t count,
	            uint32_t code_syms, const uint32_t *code, size_t code_words, uint32_t max_rx,
	            uint32_t *rx, size_t rx_words, uint32_t *rx_len, uint32_t *edits,
	            cudaStream_t s, char *err, size_t errlen);
};

/* The models the GPU simulator makes, by the channel table's name; NULL for one it lacks. */
const struct sim_channel_ops *sim_channel_by_name(const char *name);

#endif
