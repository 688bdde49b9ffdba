/*
 * Reductions over a group of L lanes (a warp or an aligned part of one) for the FFT-BP kernels
 * (nbldpc_gpu_fftbp.cu, nbldpc_gpu_fftbp_chip.cu): sums, maxima and the first index of the
 * largest value, and the Walsh-Hadamard transform across such a group. The reductions are xor
 * butterflies, which combine commutatively, so every lane of the group gets the same bits. And
 * the soft output both kernels write from a symbol's a-posteriori log-probabilities.
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

#define GROUP_PROB_FLOOR (1e-30f) /* as nbldpc_decode.c */

/* normalise_prob of nbldpc_decode.c over a message held V values a lane by groups of L lanes:
 * values floored at GROUP_PROB_FLOOR, then scaled to sum 1. */
template <int L, int V>
__device__ __forceinline__ void group_norm_prob(float (&r)[V], unsigned mask)
{
	float s = 0.0f;

#pragma unroll
	for (int v = 0; v < V; v++) {
		if (!(r[v] > GROUP_PROB_FLOOR))
			r[v] = GROUP_PROB_FLOOR;
		s += r[v];
	}
	s = 1.0f / gsum<L>(s, mask);
#pragma unroll
	for (int v = 0; v < V; v++)
		r[v] *= s;
}

/* log of the sum of exp(r) over the group's values a = ln V + v with (a & msk) == want
 * (nbldpc_coder.c logsumexp); msk 0: all. */
template <int L, int V>
__device__ __forceinline__ float group_logsumexp(const float (&r)[V], unsigned ln, unsigned msk,
                                                 unsigned want, unsigned mask)
{
	float mx = -INFINITY, s = 0.0f;

#pragma unroll
	for (int v = 0; v < V; v++)
		if (((ln * V + v) & msk) == want)
			mx = fmaxf(mx, r[v]);
	mx = gmax<L>(mx, mask);
#pragma unroll
	for (int v = 0; v < V; v++)
		if (((ln * V + v) & msk) == want)
			s += expf(r[v] - mx);
	return mx + logf(gsum<L>(s, mask));
}

/* Information symbol i's soft output into the frame's soft slot o, from its a-posteriori
 * log-probabilities r normalised as the CPU's normalise_log leaves them (the largest 0, floored):
 * nbldpc__fftbp's end (less the log of the sum of their exponentials), then nbldpc_coder.c (less
 * their log-sum-exp again, then as they are, q values a symbol, or as p bit LLRs, bit t of value a
 * being (a >> bit_shift[t]) & 1). Scalar stores: the caller's stride need not keep 16-byte
 * alignment. */
template <int L, int V>
__device__ __forceinline__ void group_soft(float (&r)[V], float *o, uint32_t i, unsigned q,
                                           unsigned p, bool soft_bit, const uint8_t *bit_shift,
                                           unsigned ln, unsigned mask)
{
	float s = 0.0f;

#pragma unroll
	for (int v = 0; v < V; v++)
		s += expf(r[v]);
	s = logf(gsum<L>(s, mask));
#pragma unroll
	for (int v = 0; v < V; v++)
		r[v] -= s;
	const float norm = group_logsumexp<L, V>(r, ln, 0, 0, mask);

#pragma unroll
	for (int v = 0; v < V; v++)
		r[v] -= norm;
	if (!soft_bit) {
#pragma unroll
		for (int v = 0; v < V; v++)
			o[(size_t)i * q + ln * V + v] = r[v];
		return;
	}
	for (unsigned t = 0; t < p; t++) {
		const unsigned m = 1u << bit_shift[t];
		const float l0 = group_logsumexp<L, V>(r, ln, m, 0, mask);
		const float l1 = group_logsumexp<L, V>(r, ln, m, m, mask);

		if (ln == 0)
			o[(size_t)i * p + t] = l0 - l1;
	}
}

#endif
