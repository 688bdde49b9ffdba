/*
 * Reductions over a group of L lanes (a warp or an aligned part of one) for the FFT-BP kernels
 * (nbldpc_gpu_fftbp.cu, nbldpc_gpu_fftbp_chip.cu): sums, maxima and the first index of the
 * largest value, and the Walsh-Hadamard transform across such a group. The reductions are xor
 * butterflies, which combine commutatively, so every lane of the group gets the same bits.
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

/* The unnormalised Walsh-Hadamard transform over a group whose lane ln holds values ln V ..
 * ln V + V - 1 in r: a butterfly across lanes is one fma with +1 or -1 (the lane holding a gets
 * a + b, the one holding b gets a - b, each rounded once as the CPU's sum and difference). */
template <int Q, int V>
__device__ __forceinline__ void group_wht(float (&r)[V], unsigned ln, unsigned mask)
{
#pragma unroll
	for (int h = 1; h < Q; h <<= 1) {
		if (h < V) {
#pragma unroll
			for (int j = 0; j < V; j++)
				if (!(j & h)) {
					const float a = r[j], b = r[j + h];

					r[j] = a + b;
					r[j + h] = a - b;
				}
		} else {
			const int d = h / V;
			const float sg = (ln & d) ? -1.0f : 1.0f;

#pragma unroll
			for (int v = 0; v < V; v++)
				r[v] = fmaf(r[v], sg, __shfl_xor_sync(mask, r[v], d));
		}
	}
}

#endif
