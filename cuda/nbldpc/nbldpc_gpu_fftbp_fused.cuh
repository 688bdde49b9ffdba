/*
 * FFT-BP on chip, the fused form (CHIP_F_FUSE, nbldpc_gpu_fftbp_chip.cu's kernel; NBLDPC_GPU.md,
 * "The fused form"): the edge form's check (a lane an edge, the whole message in its registers)
 * with the variable node's work folded in, so an iteration is one phase and one barrier.
 *
 * In a column of degree 2 with edges a and b, the variable-to-check message on a is the prior
 * times b's check message, normalised. So a slot holds a check message, written by its edge's
 * lane at the places of the other edge's check (value x at h_b x), and the lane of a, next
 * iteration, reads b's check message at its own places, multiplies in the prior (kept per edge,
 * at that edge's places), normalises and has its variable-to-check message: the variable phase's
 * products, a lane's registers apart. The lane forms that prior itself in iteration 0 from its
 * column's LLRs (chip_fu_prior), and a lane a variable decides (chip_fu_decide): the per-frame
 * work without groups' shuffles or remote accesses.
 *
 * One barrier an iteration: a column's two slots are a pair (2 i, 2 i + 1) and each slot is read
 * and then written by one lane in an iteration. In iteration t the lane of edge a reads the slot
 * that b's lane wrote in t - 1 and writes its own check message over it: its own slot where t is
 * even, the other where t is odd; b's lane does the same with the other slot. So nothing else
 * touches a slot between its read and its write, and the writes of t need only be seen before
 * the reads of t + 1.
 *
 * Where a column's edges are in one block (kind CHIP_FU_IN), its pair is there, and each lane
 * writes its message at the other edge's places (permuted, scalar) and reads as it lies (128-bit).
 * Where they are in two blocks, the pair lies in one of them, the host's, and every slot of the
 * column holds its message at the other edge's places (the guest's): the host lane reads and
 * writes them permuted, in its own block, and the guest lane as they lie, through distributed
 * shared memory, 16 128-bit loads and 16 stores (scalar remote stores, 64 a lane, measured
 * GF64_5040 at 510 Mb/s against 664: NBLDPC_GPU.md).
 *
 * Places: the lane holds value y of its message at the check's place y = h_a x; the other edge's
 * place of the same value is h_b x = r y with r = h_b / h_a, GF(2)-linear in y, so the 64
 * addresses are an xor chain over the images of 1, 2, .., 32 in Gray-code order (one xor a
 * value; the steps from a table of 8 bytes a coefficient ratio). Slots and priors are 64 floats,
 * 256-byte aligned, their 16-byte chunks swizzled (chunk c at c xor z), so that an address stays
 * a slot's base xor an offset and the 8 lanes of a quarter-warp, each reading chunk c of its slot,
 * meet 8 bank groups: priors with z = their place mod 16 (a quarter's are consecutive), slots
 * with z from the plan, 8 distinct ones in every quarter in both parities (chip_pair_colours).
 *
 * Arithmetic: the CPU's operations value for value (the prior times the other check's message,
 * the check's products of the others, the butterflies); normalisation sums in the check's order,
 * a rounding apart as in the edge form. A-posteriori values (decisions, soft output) read both
 * slots and a prior in the variable's order (chip_fu_app).
 */
#ifndef NBLDPC_GPU_FFTBP_FUSED_CUH
#define NBLDPC_GPU_FFTBP_FUSED_CUH

/* threads a block: a lane an edge, one round of 8 rows a warp for up to 128 rows a block (B1C 100,
 * GF64_5040 105 on 8 blocks); 128 registers a lane */
#define CHIP_FUSE_THREADS 512

__host__ __device__ constexpr int chip_ctz(int i)
{
	return (i & 1) ? 0 : 1 + chip_ctz(i >> 1);
}

/* 128-bit loads and 32-bit stores at 32-bit addresses: of this block's shared memory, or
 * (cluster) of any block's through distributed shared memory. Local slots take the first, so
 * that they stay off the generic load/store queue. */
template <bool CL> __device__ __forceinline__ float4 chip_fu_ld4(uint32_t a)
{
	float4 r;

	if (CL)
		asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
		             : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
		             : "r"(a));
	else
		asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
		             : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
		             : "r"(a));
	return r;
}

/* 128 bits to any block's shared memory (a guest's writes; local writes are scalar chains) */
__device__ __forceinline__ void chip_fu_st4_cluster(uint32_t a, float4 v)
{
	asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(a), "f"(v.x),
	             "f"(v.y), "f"(v.z), "f"(v.w)
	             : "memory");
}

/* One value at an address of this block's shared memory (32-bit) or a generic one (any block's,
 * the per-frame work's). */
__device__ __forceinline__ float chip_fu_ld1(uint32_t a)
{
	float v;

	asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(a));
	return v;
}

__device__ __forceinline__ float chip_fu_ld1(uintptr_t a)
{
	return *(const float *)a;
}

__device__ __forceinline__ void chip_fu_st1(uint32_t a, float v)
{
	asm volatile("st.shared.f32 [%0], %1;" ::"r"(a), "f"(v) : "memory");
}

__device__ __forceinline__ void chip_fu_st1(uintptr_t a, float v)
{
	*(float *)a = v;
}

/* A message's 64 values from the slot at a (a swizzled 32-bit address), in place order. */
template <int Q, bool CL> __device__ __forceinline__ void chip_fu_read(float (&F)[Q], uint32_t a)
{
#pragma unroll
	for (int c = 0; c < Q / 4; c++) {
		const float4 m4 = chip_fu_ld4<CL>(a ^ (16 * c));

		F[4 * c] = m4.x;
		F[4 * c + 1] = m4.y;
		F[4 * c + 2] = m4.z;
		F[4 * c + 3] = m4.w;
	}
}

/* The xor chain's steps for the edge of first word ow: 4 r 2^i (byte offsets of the places r y
 * for y = 2^i), r = 1 / g with g ow's top byte: 8 bytes of the steps table (after the quotient
 * table: the same bytes as its g Q + 2^i, but those of one g together, so that a warp's lanes of
 * different g do not meet in two banks), one 64-bit load. Formed where used, not kept across the
 * check (registers): the word is loaded as the lane starts, unpacked where used. */
template <int Q>
__device__ void chip_fu_steps_fill(uint8_t *st, const uint8_t *ex, const uint8_t *lg, unsigned tid,
                                   unsigned nt)
{
	for (unsigned g = tid; g < (unsigned)Q; g += nt)
		for (int i = 0; i < 8; i++)
			st[8 * g + i] =
			    g && i < chip_log2(Q) ? 4 * ex[lg[1u << i] + Q - 1 - lg[g]] : 0;
}

template <int Q> struct chip_fu_steps {
	uint32_t b[chip_log2(Q)];
};

template <int Q> __device__ __forceinline__ chip_fu_steps<Q> chip_fu_basis(uint2 w)
{
	chip_fu_steps<Q> s;

#pragma unroll
	for (int i = 0; i < chip_log2(Q); i++)
		s.b[i] = ((i < 4 ? w.x : w.y) >> (8 * (i % 4))) & 0xffu;
	return s;
}

/* The same, the message's 64 values back as they lie, to any block's slot (a guest's). */
template <int Q>
__device__ __forceinline__ void chip_fu_put_cluster(uint32_t a, const float (&F)[Q])
{
#pragma unroll
	for (int c = 0; c < Q / 4; c++)
		chip_fu_st4_cluster(
		    a ^ (16 * c), make_float4(F[4 * c], F[4 * c + 1], F[4 * c + 2], F[4 * c + 3]));
}

/* Value y of F from place r y of the slot at a, and to it: xor chains over b (the images of 1,
 * 2, .., 32) in Gray-code order; a 32-bit address of this block's shared memory or a generic one.
 * MUL: F[y] times the value read, not the value. */
template <int Q, bool MUL = false, typename A>
__device__ __forceinline__ void chip_fu_gather(float (&F)[Q], A a, const chip_fu_steps<Q> &st)
{
	F[0] = MUL ? F[0] * chip_fu_ld1(a) : chip_fu_ld1(a);
#pragma unroll
	for (int i = 1; i < Q; i++) {
		const int y = i ^ (i >> 1);

		a ^= st.b[chip_ctz(i)];
		F[y] = MUL ? F[y] * chip_fu_ld1(a) : chip_fu_ld1(a);
	}
}

template <int Q, typename A>
__device__ __forceinline__ void chip_fu_write(A a, const chip_fu_steps<Q> &st, const float (&F)[Q])
{
	chip_fu_st1(a, F[0]);
#pragma unroll
	for (int i = 1; i < Q; i++) {
		a ^= st.b[chip_ctz(i)];
		chip_fu_st1(a, F[i ^ (i >> 1)]);
	}
}

/* Slot (or prior) s of an area as an address whose low 8 bits are the chunk swizzle z: chunk c
 * is at a ^ 16 c, value y at a ^ 4 y. Priors: z = s mod 16 (a warp's lanes read consecutive
 * ones); slots: z from the plan (chip_pair_colours). */
template <int Q>
__device__ __forceinline__ uintptr_t chip_fu_slot(const char *area, uint32_t s, uint32_t z)
{
	return ((uintptr_t)area + (size_t)s * (Q * 4)) ^ (uintptr_t)(16 * z);
}

template <int Q>
__device__ __forceinline__ uint32_t chip_fu_slot32(uint32_t area, uint32_t s, uint32_t z)
{
	return (area + s * (Q * 4)) ^ (16 * z);
}

/* A group's V values ln V + v of the message at slot (or prior) s of an area, swizzle z, whose
 * places are those of the coefficient with inverse key (the top byte of w). */
template <int Q, int V>
__device__ __forceinline__ void chip_fu_load(float (&r)[V], const char *area, uint32_t s,
                                             uint32_t z, uint32_t w, const uint8_t *qt, unsigned ln)
{
	const chip_cd_key<Q, V, true> k = chip_cd_key_of<Q, V, true>(qt, w, ln);
	const uintptr_t a = chip_fu_slot<Q>(area, s, z);

#pragma unroll
	for (int v = 0; v < V; v++)
		r[v] = *(const float *)(a ^ __byte_perm(k.w[v / 4], 0, 0x4440 + v % 4));
}

/* Lane kinds (bits 16-17 of an edge's first row word): a column inside the block (both slots
 * here, each written at the other edge's places, read as it lies), and a column across two
 * blocks: its host edge (both slots in the host's block, read and written at the guest's places:
 * permuted, local) and its guest edge (read and written as they lie: 128-bit, remote). */
#define CHIP_FU_IN    0u
#define CHIP_FU_HOST  1u
#define CHIP_FU_GUEST 2u

/* A-posteriori probabilities of a variable after iteration t (from 0), into a group's r: the
 * prior times edge 0's check message times edge 1's, normalised. sl: its edges' prior words
 * (block << 16 | place | 1 / h << 24, column order); pw its slot pair's word (block << 16 | edge
 * 0's slot, bit 22 / 23: edge 0 / 1 the guest, edge 0's swizzle << 24; edge 1's slot and swizzle
 * are edge 0's xor 1). Edge e's message lies in its own slot after an even iteration, in the
 * other after an odd one, at the guest's places or else the other edge's. */
template <int Q, int V>
__device__ __forceinline__ void chip_fu_app(const struct chip_ranks &rk,
                                            const struct chip_layout &ly, const uint8_t *qt,
                                            uint32_t rank, uint2 sl, uint32_t pw, unsigned t,
                                            float (&r)[V], unsigned ln, unsigned mask)
{
	const uint32_t wp = ((sl.x >> 16) & 0xffu) == rank ? sl.x : sl.y;
	const uint32_t s0 = (pw & 0xffffu) ^ (t & 1), z0 = ((pw >> 24) & 7u) ^ (t & 1);
	const char *msg = rk.base[(pw >> 16) & 0xfu] + ly.msg;
	float m0[V], m1[V];

	chip_fu_load<Q, V>(r, rk.base[(wp >> 16) & 0xffu] + ly.pr, wp & 0xffffu, wp & 15u, wp, qt,
	                   ln);
	chip_fu_load<Q, V>(m0, msg, s0, z0, ((pw >> 22) & 1) ? sl.x : sl.y, qt, ln);
	chip_fu_load<Q, V>(m1, msg, s0 ^ 1, z0 ^ 1, ((pw >> 23) & 1) ? sl.y : sl.x, qt, ln);
#pragma unroll
	for (int v = 0; v < V; v++)
		r[v] = r[v] * m0[v] * m1[v];
	group_norm_prob<Q / V, V>(r, mask);
}

/* The per-frame work a lane a variable (a whole message in its registers, as a check's lane): no
 * groups' shuffles, one round of the block's variables where groups of 16 lanes took 6 or 7
 * (GF64_5040 on 8 blocks, B1C: 210 and 200 variables, 32 groups). The chains' steps for the
 * places h x come from the steps table's entry for the key 1 / h. */
template <int Q>
__device__ __forceinline__ uint2 chip_fu_steps_word(const struct chip_ctx &x, uint32_t key)
{
	return ((const uint2 *)(x.qt + Q * Q))[key]; /* after the quotient table */
}

template <int Q>
__device__ __forceinline__ chip_fu_steps<Q> chip_fu_steps_of(const struct chip_ctx &x, uint32_t key)
{
	return chip_fu_basis<Q>(chip_fu_steps_word<Q>(x, key));
}

/* An edge's prior of column col (bit input: the sums of nbgpu_priors; q-ary input as it is; its
 * largest value subtracted and floored as chip_norm_log, exp, normalised as group_norm_prob with
 * the sum in another order), at its places (the edge's key 1 / h) in this block's prior area at
 * pa. Bit input by subset sums: R[u], u's bit t standing for the t-th bit sent, is R[u less bit
 * t] less LLR t for the highest t in u, so each sum is the CPU's (its 1 bits' LLRs subtracted in
 * the order sent) in 63 subtractions, not 384 tests. R[u] is value a = the sum of 2^bit_shift[t]
 * over u's bits, so R goes out by the xor chain over those values' images. */
template <int Q>
__device__ __forceinline__ void chip_fu_prior(const struct nbgpu_code &c, const struct gpu_batch &b,
                                              uint32_t f, const struct chip_ctx &x, uint32_t col,
                                              uint32_t key, uint32_t pa)
{
	const uint2 w = chip_fu_steps_word<Q>(x, key);
	chip_fu_steps<Q> st = chip_fu_basis<Q>(w);
	float r[Q], mx;

	if (c.in == FEC_IN_F32_SYMLOGP) {
		nbgpu_priors<Q>(c, b, f, col, 0, r);
	} else {
		const char *slot = (const char *)b.in + (size_t)f * b.in_stride;
		float llr[chip_log2(Q)];

#pragma unroll
		for (int t = 0; t < chip_log2(Q); t++) {
			const unsigned sh = c.bit_shift[t];

			llr[t] = nbgpu_llr(c, slot, (size_t)col * chip_log2(Q) + t);
			st.b[t] = ((sh < 4 ? w.x : w.y) >> (8 * (sh % 4))) & 0xffu;
		}
		r[0] = 0.0f;
#pragma unroll
		for (int u = 1; u < Q; u++)
			r[u] = r[u ^ (1 << chip_log2(u))] - llr[chip_log2(u)];
	}
	mx = r[0];
#pragma unroll
	for (int v = 1; v < Q; v++)
		mx = fmaxf(mx, r[v]);
#pragma unroll
	for (int v = 0; v < Q; v++) {
		r[v] -= mx;
		if (!(r[v] > CHIP_LOG_FLOOR))
			r[v] = CHIP_LOG_FLOOR;
		r[v] = expf(r[v]);
	}
	chip_edge_norm<Q>(r);
	chip_fu_write<Q>(pa, st, r);
}

/* A variable's hard decision after iteration t (chip_fu_app's product, a lane's): the largest
 * a-posteriori value, the first of equal ones. */
template <int Q>
__device__ __forceinline__ unsigned chip_fu_decide(const struct chip_ctx &x,
                                                   const struct chip_ranks &rk, uint2 sl,
                                                   uint32_t pw, unsigned t)
{
	const uint32_t wp = ((sl.x >> 16) & 0xffu) == x.rank ? sl.x : sl.y;
	const uint32_t s0 = (pw & 0xffffu) ^ (t & 1), z0 = ((pw >> 24) & 7u) ^ (t & 1);
	const char *msg = rk.base[(pw >> 16) & 0xfu] + x.ly.msg;
	const uint32_t k0 = (((pw >> 22) & 1) ? sl.x : sl.y) >> 24;
	const uint32_t k1 = (((pw >> 23) & 1) ? sl.y : sl.x) >> 24;
	unsigned bi = 0;
	float r[Q], best;

	chip_fu_gather<Q>(
	    r, chip_fu_slot<Q>(rk.base[(wp >> 16) & 0xffu] + x.ly.pr, wp & 0xffffu, wp & 15u),
	    chip_fu_steps_of<Q>(x, wp >> 24));
	chip_fu_gather<Q, true>(r, chip_fu_slot<Q>(msg, s0, z0), chip_fu_steps_of<Q>(x, k0));
	chip_fu_gather<Q, true>(r, chip_fu_slot<Q>(msg, s0 ^ 1, z0 ^ 1),
	                        chip_fu_steps_of<Q>(x, k1));
	chip_edge_norm<Q>(r);
	best = r[0];
#pragma unroll
	for (int v = 1; v < Q; v++)
		if (r[v] > best) {
			best = r[v];
			bi = v;
		}
	return bi;
}

/* Iteration t (from 0) of the block's rows, 8 a warp round-robin. The staged rows hold 12 words
 * a row: the edges' first words (prior place | kind << 16 | 1 / h_a << 18 | g << 24, g = h_a /
 * h_b with b the column's other edge: the quotient table's key for the places h_b x = y / g;
 * CHIP_SLOT_NONE past the row's end), their slots' (block << 16 | place | swizzle << 20; the other
 * edge's slot and swizzle: both xor 1), then their columns (| h_a << 24). */
template <int Q>
__device__ __forceinline__ void
chip_checks_fused(const struct nbgpu_code &c, const struct gpu_batch &b, uint32_t f,
                  const struct chip_ctx &x, const struct chip_ranks &rk, unsigned t)
{
	static_assert(Q == 64, "the fused form: GF(64)");
	const unsigned lane = threadIdx.x & 31, e = lane & 3;
	const unsigned warp = threadIdx.x >> 5, nw = blockDim.x >> 5;

	/* every lane of a warp makes the same trips: the shuffles name the whole warp */
	for (uint32_t k0 = warp * 8; k0 < x.nr; k0 += nw * 8) {
		const uint32_t k = k0 + lane / 4;
		uint32_t ow = CHIP_SLOT_NONE, sw = 0, sa = 0, kind = 0;
		uint2 stw = make_uint2(0, 0); /* the chain's steps, packed */
		float F[Q];

		if (k < x.nr) {
			const uint4 o = x.rows[3 * k], p = x.rows[3 * k + 1];

			ow = e == 0 ? o.x : e == 1 ? o.y : e == 2 ? o.z : o.w;
			sw = e == 0 ? p.x : e == 1 ? p.y : e == 2 ? p.z : p.w;
		}
		if (ow != CHIP_SLOT_NONE) {
			const uint32_t pa = chip_fu_slot32<Q>(x.pr32, ow & 0xffffu, ow & 15u);

			kind = (ow >> 16) & 3u;
			stw = chip_fu_steps_word<Q>(x, ow >> 24);
			sa = chip_fu_slot32<Q>(
			    kind == CHIP_FU_GUEST ? rk.cbase[(sw >> 16) & 0xfu] + (uint32_t)x.ly.msg
			                          : x.msg32,
			    (sw & 0xffffu) ^ (t & 1), ((sw >> 20) & 7u) ^ (t & 1));
			if (t ==
			    0) { /* the first variable-to-check message: the prior, formed here */
				const uint4 cw = x.rows[3 * k + 2];
				const uint32_t col = e == 0   ? cw.x
				                     : e == 1 ? cw.y
				                     : e == 2 ? cw.z
				                              : cw.w;

				chip_fu_prior<Q>(c, b, f, x, col & 0xffffffu, (ow >> 18) & 63u, pa);
				chip_fu_read<Q, false>(F, pa);
			} else { /* the prior times the other edge's check message */
				if (kind == CHIP_FU_IN)
					chip_fu_read<Q, false>(F, sa);
				else if (kind == CHIP_FU_HOST)
					chip_fu_gather<Q>(F, sa, chip_fu_basis<Q>(stw));
				else
					chip_fu_read<Q, true>(F, sa);
#pragma unroll
				for (int c = 0; c < Q / 4; c++) {
					const float4 p4 = chip_fu_ld4<false>(pa ^ (16 * c));

					F[4 * c] = p4.x * F[4 * c];
					F[4 * c + 1] = p4.y * F[4 * c + 1];
					F[4 * c + 2] = p4.z * F[4 * c + 2];
					F[4 * c + 3] = p4.w * F[4 * c + 3];
				}
				chip_edge_norm<Q>(F);
			}
			group_wht<Q, Q>(F, 0, 0u);
		} else {
			chip_edge_ones<Q>(F);
		}
		chip_edge_rest<Q>(F);
		if (ow != CHIP_SLOT_NONE) { /* over the slot read */
			if (kind == CHIP_FU_GUEST)
				chip_fu_put_cluster<Q>(sa, F);
			else
				chip_fu_write<Q>(sa, chip_fu_basis<Q>(stw), F);
		}
	}
}

#endif
