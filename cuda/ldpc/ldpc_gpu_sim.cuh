/*
 * Internal to the simulator's LDPC encoders (ldpc_gpu_sim.cu: the operations and the DVB-S2
 * form's encoder; ldpc_gpu_sim_peel.cu: any code, by the plan of codec/ldpc/ldpc_encode.c run
 * on the device).
 */
#ifndef LDPC_GPU_SIM_CUH
#define LDPC_GPU_SIM_CUH

#include "ldpc_gpu.cuh"
#include "sim_encoder.cuh"

/* Bits pos .. pos+31 of a packed array (reads one word past the last used: arrays are padded). */
__device__ static inline uint32_t lsim_bits32_at(const uint32_t *a, uint32_t pos)
{
	uint32_t w = pos >> 5, s = pos & 31;

	return s ? (a[w] >> s) | (a[w + 1] << (32 - s)) : a[w];
}

struct lpeel_enc;

/* The plan encoder for code (any code with an encoder plan). -FEC_ENOTSUP (why in err) where it
 * cannot take it (the device's shared memory too small for a frame's codeword). */
int lpeel_create(const struct ldpc_code *code, struct lpeel_enc **out, char *err, size_t errlen);
/* Enqueues count frames: information bits (k, packed) at bits + f * bits_words, the sent code
 * bits (columns punct .. n-1, packed) to code + f * code_words. */
int lpeel_encode(const struct lpeel_enc *p, const uint32_t *bits, size_t bits_words, uint32_t *code,
                 size_t code_words, uint32_t count, cudaStream_t s, char *err, size_t errlen);
void lpeel_destroy(struct lpeel_enc *p);

#endif
