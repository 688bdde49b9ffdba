/*
 * Reductions over a group of L lanes (a warp or an aligned part of one) for the FFT-BP kernels
 * (nbldpc_gpu_fftbp.cu, nbldpc_gpu_fftbp_chip.cu): sums, maxima and the first index of the
 * largest value. They are xor butterflies, which combine commutatively, so every lane of the
 * group gets the same bits.
 */
#ifndef NBLDPC_GPU_GROUP_CUH
#define NBLDPC_GPU_GROUP_CUH

template <int L> __device__ __forceinline__ float gsum(float x, unsigned mask)
{
#pragma unroll
	for (int d = L / 2; d >= 1; d >>= 1)
		x += __shfl_xor_sync(mask, x, d);
	return x;
}

template <int L> __device__ __forceinline__ float gmax(float x, unsigned mask)
{
#pragma unroll
	for (int d = L / 2; d >= 1; d >>= 1)
		x = fmaxf(x, __shfl_xor_sync(mask, x, d));
	return x;
}

/* The first index of the largest value (the CPU's strict > scan). */
template <int L> __device__ __forceinline__ unsigned gargmax(float x, unsigned i, unsigned mask)
{
#pragma unroll
	for (int d = L / 2; d >= 1; d >>= 1) {
		const float ox = __shfl_xor_sync(mask, x, d);
		const unsigned oi = __shfl_xor_sync(mask, i, d);

		if (ox > x || (ox == x && oi < i)) {
			x = ox;
			i = oi;
		}
	}
	return i;
}

/* The mask of the L-lane group thread tid belongs to. */
template <int L> __device__ __forceinline__ unsigned gmask(unsigned tid)
{
	return L == 32 ? 0xffffffffu : ((1u << L) - 1) << ((tid & 31) & ~(L - 1u));
}

#endif
