/*
 * Internal to the GPU Viterbi kernels: the packed-metric helpers the one-thread and the
 * multi-lane kernels share (PRMT, the decision bit of a packed register, decision row vectors).
 */
#ifndef VITERBI_GPU_PACK_CUH
#define VITERBI_GPU_PACK_CUH

#include <stdint.h>

#include <cuda_runtime.h>

/* Bit of a state's decision in its stage's row: registers 2k and 2k+1 of a group of 16 fill
 * bits k (low half of 2k), 8+k (high half), 16+k and 24+k; word r / 16. */
__host__ __device__ __forceinline__ uint32_t dec_bit(uint32_t r, uint32_t lane)
{
	const uint32_t c = r & 15u;

	return 8u * (2u * (c & 1u) + lane) + (c >> 1);
}

__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel)
{
	uint32_t d;

	asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
	return d;
}

template <int W> struct dec_vec;
template <> struct dec_vec<1> {
	typedef uint32_t type;
};
template <> struct dec_vec<2> {
	typedef uint2 type;
};
template <> struct dec_vec<4> {
	typedef uint4 type;
};

__device__ __forceinline__ uint32_t vec_word(uint32_t v, uint32_t)
{
	return v;
}
__device__ __forceinline__ uint32_t vec_word(uint2 v, uint32_t w)
{
	return w ? v.y : v.x;
}
__device__ __forceinline__ uint32_t vec_word(uint4 v, uint32_t w)
{
	return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
}
__device__ __forceinline__ void vec_set(uint32_t *v, const uint32_t *d)
{
	*v = d[0];
}
__device__ __forceinline__ void vec_set(uint2 *v, const uint32_t *d)
{
	*v = make_uint2(d[0], d[1]);
}
__device__ __forceinline__ void vec_set(uint4 *v, const uint32_t *d)
{
	*v = make_uint4(d[0], d[1], d[2], d[3]);
}

#endif
