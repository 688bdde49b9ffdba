/*
 * FFT-BP on chip, the check phase in edge form (CHIP_F_EDGE, nbldpc_gpu_fftbp_chip.cu's kernel;
 * NBLDPC_GPU.md, "The edge form"): a lane per edge, a whole message of q values in its registers,
 * so the two transforms an edge make no shuffles; a warp takes 8 rows, lanes 4 r .. 4 r + 3 the
 * edges of its row r.
 *
 * The slots hold each message at the check's places: value x of the variable's message at place
 * h x of its edge's slot (h the edge's coefficient), where the group form keeps it at x. The
 * check then reads and writes a slot as it lies, 16 128-bit accesses a lane, and the variable
 * phase does the permutations, reading and writing its values at h x (chip_slot_load). Slots are
 * padded to q + 4 floats, so that 8 lanes reading 8 consecutive slots meet 8 bank groups. Each
 * slot lies in its variable's block (the plan's chip_place_by_var), so the variable phase's
 * scalar accesses stay in the block's own shared memory and a check reaches another block's
 * slots through distributed shared memory with 128-bit accesses.
 *
 * Each edge's product of the others, in the CPU's order: with F0..F3 the row's transforms, the
 * CPU forms edge 0's (F3 F2) F1, edge 1's F0 (F3 F2), edge 2's (F0 F1) F3 and edge 3's
 * (F0 F1) F2 (nbldpc__fft_check: prefix times suffix, a product with 1 being exact). Here lane e
 * takes w = F(e xor 1) from its pair's other lane and u = F(e xor 2) F(e xor 3), the other pair's
 * product (both lanes of a pair form it, and float products commute exactly), and forms u w: the
 * same roundings, two shuffles a value. A row of fewer than 4 edges runs its missing lanes with
 * the transform of a point mass at 0 (every value 1), the products' identity, so rows of 2 and 3
 * give the CPU's values as well. The normalisation sums in the check's order (the CPU: the
 * variable's), a rounding apart as the group form's.
 *
 * Tried and dropped (NBLDPC_GPU.md): the variable phase a lane an edge as well (xor chains of
 * offsets, no tables): fewer instructions, but a phase of one round of 13 warps a block waits
 * on its own latency; B1C 580 against 994 Mb/s.
 */
#ifndef NBLDPC_GPU_FFTBP_EDGE_CUH
#define NBLDPC_GPU_FFTBP_EDGE_CUH

/* threads a block: 64 message registers a lane; at 640 threads, 96 registers, ptxas -v spills 16
 * bytes (768 threads at 80 registers spilled 60 and measured 7 % slower) */
#define CHIP_EDGE_THREADS 640

/* Eight values' products of the others (the file's top comment): w from lane e xor 1, the pair's
 * product from lane e xor 2, as PTX of eight values at a time. Written as C, the compiler issues
 * the 128 shuffles of a message first and spills the operands they keep alive (ptxas -v: 300 to
 * 500 bytes at 80 or 96 registers); these blocks keep 8 in flight. Products with .ftz as the
 * kernel's other arithmetic (--use_fast_math). */
__device__ __forceinline__ void chip_edge_others8(float &r0, float &r1, float &r2, float &r3,
                                                  float &r4, float &r5, float &r6, float &r7)
{
	asm volatile("{\n\t.reg .f32 w<8>, p<8>, u<8>;\n\t"
	             "shfl.sync.bfly.b32 w0, %0, 1, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 w1, %1, 1, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 w2, %2, 1, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 w3, %3, 1, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 w4, %4, 1, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 w5, %5, 1, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 w6, %6, 1, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 w7, %7, 1, 31, -1;\n\t"
	             "mul.ftz.f32 p0, %0, w0;\n\t"
	             "mul.ftz.f32 p1, %1, w1;\n\t"
	             "mul.ftz.f32 p2, %2, w2;\n\t"
	             "mul.ftz.f32 p3, %3, w3;\n\t"
	             "mul.ftz.f32 p4, %4, w4;\n\t"
	             "mul.ftz.f32 p5, %5, w5;\n\t"
	             "mul.ftz.f32 p6, %6, w6;\n\t"
	             "mul.ftz.f32 p7, %7, w7;\n\t"
	             "shfl.sync.bfly.b32 u0, p0, 2, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 u1, p1, 2, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 u2, p2, 2, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 u3, p3, 2, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 u4, p4, 2, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 u5, p5, 2, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 u6, p6, 2, 31, -1;\n\t"
	             "shfl.sync.bfly.b32 u7, p7, 2, 31, -1;\n\t"
	             "mul.ftz.f32 %0, u0, w0;\n\t"
	             "mul.ftz.f32 %1, u1, w1;\n\t"
	             "mul.ftz.f32 %2, u2, w2;\n\t"
	             "mul.ftz.f32 %3, u3, w3;\n\t"
	             "mul.ftz.f32 %4, u4, w4;\n\t"
	             "mul.ftz.f32 %5, u5, w5;\n\t"
	             "mul.ftz.f32 %6, u6, w6;\n\t"
	             "mul.ftz.f32 %7, u7, w7;\n\t}"
	             : "+f"(r0), "+f"(r1), "+f"(r2), "+f"(r3), "+f"(r4), "+f"(r5), "+f"(r6),
	               "+f"(r7));
}

/* normalise_prob of nbldpc_decode.c over a lane's whole message: floored, then scaled to sum 1;
 * the sum as 8 partial sums (a shorter latency chain than one running sum; the order is not the
 * CPU's anyway, which sums in the variable's order) */
template <int Q> __device__ __forceinline__ void chip_edge_norm(float (&r)[Q])
{
	float s[8];

#pragma unroll
	for (int v = 0; v < Q; v++) {
		if (!(r[v] > GROUP_PROB_FLOOR))
			r[v] = GROUP_PROB_FLOOR;
		s[v % 8] = v < 8 ? r[v] : s[v % 8] + r[v];
	}
	const float t = 1.0f / (((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])));

#pragma unroll
	for (int v = 0; v < Q; v++)
		r[v] *= t;
}

/* A lane without an edge (a row shorter than 4): the transform of a point mass at 0, all ones,
 * the products' identity. */
template <int Q> __device__ __forceinline__ void chip_edge_ones(float (&F)[Q])
{
#pragma unroll
	for (int v = 0; v < Q; v++)
		F[v] = 1.0f;
}

/* The rest of a lane's check from its edge's transform in F: the products of the others, the
 * inverse transform, the normalisation. Every lane of the warp (the shuffles). The inputs sum
 * to 1 (their transforms are 1 at 0, and so are the products), so the inverse transform sums to
 * q up to rounding: a product with 1 / q, exact, takes the place of the CPU's division by the
 * sum (no sum and no reciprocal a message), then the floor. */
template <int Q> __device__ __forceinline__ void chip_edge_rest(float (&F)[Q])
{
#pragma unroll
	for (int v = 0; v < Q; v += 8)
		chip_edge_others8(F[v], F[v + 1], F[v + 2], F[v + 3], F[v + 4], F[v + 5], F[v + 6],
		                  F[v + 7]);
	group_wht<Q, Q>(F, 0, 0u);
#pragma unroll
	for (int v = 0; v < Q; v++) {
		F[v] *= 1.0f / Q;
		if (!(F[v] > GROUP_PROB_FLOOR))
			F[v] = GROUP_PROB_FLOOR;
	}
}

/* The block's rows, 8 a warp round-robin; SQ floats a slot. */
template <int Q, int SQ>
__device__ __forceinline__ void chip_checks_edge(const struct chip_ctx &x,
                                                 const struct chip_ranks &rk)
{
	const unsigned lane = threadIdx.x & 31, e = lane & 3;
	const unsigned warp = threadIdx.x >> 5, nw = blockDim.x >> 5;

	/* every lane of a warp makes the same trips: the shuffles name the whole warp */
	for (uint32_t k0 = warp * 8; k0 < x.nr; k0 += nw * 8) {
		const uint32_t k = k0 + lane / 4;
		float *s = NULL;
		float F[Q];

		if (k < x.nr) {
			const uint4 rw = x.rows[k];
			const uint32_t sw = e == 0 ? rw.x : e == 1 ? rw.y : e == 2 ? rw.z : rw.w;

			if (sw != CHIP_SLOT_NONE)
				s = chip_slot_ptr<SQ>(rk, x.ly.msg, sw);
		}
		if (s) {
			chip_load<Q>(F, s);
			group_wht<Q, Q>(F, 0, 0u);
		} else {
			chip_edge_ones<Q>(F);
		}
		chip_edge_rest<Q>(F);
		if (s)
			chip_store<Q>(s, F);
	}
}

#endif
