/*
 * Internal to the GPU ids files: the receiver-metric lattice of one symbol from one start drift
 * as the kernels run it (one lane's row in registers, no per-cell tests), the window of Q values
 * it reads, and the Q table. Host and device functions: test/test_ids_gpu_lattice.cu runs them
 * on the CPU against codec/ids's gammas, bit for bit, where there is no GPU.
 */
#ifndef IDS_GPU_LATTICE_CUH
#define IDS_GPU_LATTICE_CUH

#include "ids_gpu.cuh"

extern "C" {
#include "ids_map.h"
}

/* The lattice's loops over a row unrolled on the device (the row stays in registers); the host
 * (the CPU test) runs them as they are. */
#ifdef __CUDA_ARCH__
#define IDSG_UNROLL _Pragma("unroll")
#else
#define IDSG_UNROLL
#endif

/* Q(y | 0) and Q(y | 0) + (Q(y | 1) - Q(y | 0)) per int8 value y (index y + 128): the lattice's
 * q0 + (q1 - q0) x for x = 0, 1 (ids_lattice_body.h), in float as the CPU rounds it. */
inline void idsg_q_table(const struct ids_map *m, float qx[512])
{
	for (int v = 0; v < 256; v++) {
		const float q0 = m->qtab[v][0], dq = m->qtab[v][1] - q0;

		qx[2 * v] = q0;
		qx[2 * v + 1] = q0 + dq;
	}
}

/* Received values a block of syms symbols from i0 reads: from n i0 + fmin + cmin (the lattice's
 * cells left of j = 0 read down to there, multiplying zeros), this many. */
__host__ __device__ inline long idsg_window_first(const struct idsg_code &c, uint32_t i0)
{
	return (long)c.n * i0 + c.fmin + c.cmin;
}

__host__ __device__ inline long idsg_window(const struct idsg_code &c, uint32_t syms)
{
	return (long)c.n * (syms - 1) + c.Mtau + c.n + 2 * c.Mn;
}

/* The lattice of one symbol (codeword cw) from start drift m' (start = n i + m', avail received
 * values from there): ids_lattice_body.h's cells for one lane, rows of the corridor by
 * c = j - r at slot c - cmin + 1 with zero guards. On return F[s] = F(n, cmin + s - 1).
 *
 * Every cell of the corridor is computed with the full recursion, without the CPU's tests of
 * j: the cells left of j = 0 see only zeros (row 0 is zero there, and so are their
 * neighbours), so they come out 0 as the CPU sets them; at j = 0 the recursion gives
 * (0 + pd up) + Q 0 = pd up, the CPU's value exactly; cells past the frame's end (j > avail)
 * feed only cells past it in later rows, and the last row's are cleared at the end, as the CPU
 * leaves them 0. The window has finite Q values (0 outside the frame) wherever they are read. */
template <int MN_T, bool EXACT>
__host__ __device__ inline void idsg_lattice(const struct idsg_code &c, const float *win,
                                             long kwin0, long start, long avail, unsigned cw,
                                             float (&F)[MN_T + 2])
{
	const int Mn = EXACT ? MN_T : (int)c.Mn, cmin = c.cmin;
	float h = 1.0f;

	IDSG_UNROLL
	for (int s = 0; s < MN_T + 2; s++)
		F[s] = 0.0f;
	/* row 0: (pi/2)^c for 0 <= c <= avail */
	IDSG_UNROLL
	for (int s = 1; s <= MN_T; s++) {
		const int cc = cmin + s - 1;

		if (s > Mn)
			break;
		if (cc >= 0 && cc <= avail) {
			F[s] = h;
			h = h * c.hpi;
		}
	}
	for (uint32_t r = 1; r <= c.n; r++) {
		const float hr = r < c.n ? c.hpi : 0.0f;
		const unsigned x = cw >> (c.n - r) & 1u;
		/* Q for cell c (j = r + c reads y_(start + j - 1)) at qrow[2 (c - cmin)] */
		const float *qrow = win + 2 * (start + (long)r - 1 + cmin - kwin0) + x;
		float left = 0.0f;

		/* in place: cell s reads row r - 1 at s and s + 1, which no cell before it wrote */
		IDSG_UNROLL
		for (int s = 1; s <= MN_T; s++) {
			if (s > Mn)
				break;
			left = hr * left + c.pd * F[s + 1] + qrow[2 * (s - 1)] * F[s];
			F[s] = left;
		}
	}
	/* the last row's cells past the frame's end (j = n + d > avail) */
	IDSG_UNROLL
	for (int s = 1; s <= MN_T; s++) {
		if (s > Mn)
			break;
		if ((long)c.n + cmin + s - 1 > avail)
			F[s] = 0.0f;
	}
}

#endif
