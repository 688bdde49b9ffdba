/*
 * FFT belief propagation with a frame's messages on chip: probability domain, flooding, codes
 * whose columns all have degree 2 (every BeiDou code, the seed's (2,4) sizes), the same steps as
 * codec/nbldpc/nbldpc_decode.c nbldpc__fftbp. NBLDPC_GPU.md ("FFT-BP on chip") has the design and
 * its arithmetic; nbldpc_gpu_fftbp.cu is the kernel for every other code and the log domain.
 *
 * One copy of the messages. A degree-2 column's variable-to-check message on one edge is the
 * prior times the check-to-variable message of the other, so each edge needs one slot of q floats:
 * the check phase reads its edges' slots (variable-to-check) and overwrites them with its
 * check-to-variable messages (a check owns its edges), the variable phase reads a column's two
 * slots and overwrites them with the next variable-to-check messages (a variable owns its edges).
 * A frame's slots and priors live in the shared memory of a thread block cluster of C blocks
 * (C = 1 for B1C, 8 for GF64_5040): block `rank` holds the slots of its rows (m / C rows,
 * partitioned at create so that few columns join two blocks; its checks read and write only their
 * own block's memory) and the priors of its variables (each variable goes to the block of one of
 * its two edges, so one of the two slots it reads and writes is local, the other local where the
 * partition kept the column in one block, else in distributed shared memory).
 *
 * Groups of L = Q / V lanes: lane l holds values l V .. l V + V - 1 of a message, so butterflies
 * of distance below V stay in registers; a check's D transforms are a register array (rows of at
 * most D edges). The coefficient permutations are the slots' indices: the check reads value
 * a = y / h of an edge's slot for its value y and writes its result for y back to index y / h
 * (out(x) = T(h x)); chip_quots forms the V indices from 1 + log2 V table reads.
 *
 * Arithmetic: the CPU's elementwise operations in its order (the products of the others from both
 * sides, the butterflies); normalisation sums are group trees and the division a multiplication
 * by the reciprocal, as in nbldpc_gpu_fftbp.cu, so values differ from the CPU's by rounding.
 */
#include <cooperative_groups.h>
#include <stdlib.h>
#include <string.h>

#include "nbldpc_gpu.cuh"
#include "nbldpc_gpu_group.cuh"

namespace cg = cooperative_groups;

#define CHIP_LOG_FLOOR (-80.0f)
/* threads a block at most: 1024 where a lane's message arrays are small (V, D <= 4: 64
 * registers without spills, measured with ptxas -v), else 640 (76-96 registers); prepare takes
 * as many as the registers allow */
#define CHIP_THREADS(V, D) ((V) <= 4 && (D) <= 4 ? 1024 : 640)
#define CHIP_MAX_C         16 /* blocks a cluster */
#define CHIP_MAX_D         8  /* edges a row */
#define CHIP_SLOT_NONE     0xffffffffu /* the edge form's rows: no edge here */
/* shared memory before the frame's arrays: the field's tables (768 B) and the cluster's
 * syndrome flags (2 x CHIP_MAX_C words) */
#define CHIP_HEAD_BYTES (768 + 2 * CHIP_MAX_C * 4)

static __host__ __device__ size_t chip_align16(size_t v)
{
	return (v + 15) / 16 * 16;
}

/* ---- Group steps on a message held V values a lane (value a = ln V + v in r[v]). */

template <int L, int V> __device__ __forceinline__ void chip_norm_log(float (&r)[V], unsigned mask)
{
	float mx = r[0];

#pragma unroll
	for (int v = 1; v < V; v++)
		mx = fmaxf(mx, r[v]);
	mx = gmax<L>(mx, mask);
#pragma unroll
	for (int v = 0; v < V; v++) {
		r[v] -= mx;
		if (!(r[v] > CHIP_LOG_FLOOR))
			r[v] = CHIP_LOG_FLOOR;
	}
}

/* V consecutive floats from (generic, possibly another block's) shared memory, and back. */
template <int V> __device__ __forceinline__ void chip_load(float (&r)[V], const float *p)
{
	if (V % 4 == 0) {
#pragma unroll
		for (int v = 0; v < V; v += 4) {
			const float4 t = *(const float4 *)(p + v);

			r[v] = t.x;
			r[v + 1] = t.y;
			r[v + 2] = t.z;
			r[v + 3] = t.w;
		}
	} else {
#pragma unroll
		for (int v = 0; v < V; v++)
			r[v] = p[v];
	}
}

template <int V> __device__ __forceinline__ void chip_store(float *p, const float (&r)[V])
{
	if (V % 4 == 0) {
#pragma unroll
		for (int v = 0; v < V; v += 4)
			*(float4 *)(p + v) = make_float4(r[v], r[v + 1], r[v + 2], r[v + 3]);
	} else {
#pragma unroll
		for (int v = 0; v < V; v++)
			p[v] = r[v];
	}
}

/* ---- A frame's layout in each block of its cluster (the same offsets in every block). */

/* the quotient table (chip_qt) where q <= 128: q x q bytes */
static __host__ __device__ size_t chip_qt_bytes(uint32_t q)
{
	return q <= 128 ? (size_t)q * q : 0;
}

struct chip_layout {
	/* byte offsets: the hard decisions (n), the staged rows (rmax x 16 B, the fused form's
	 * 48 B) and variables (vmax x 8 B), the quotient table (the fused form: and its chain
	 * steps, 8 q B), the priors (vmax q floats, the fused form's emax q: one an edge), the
	 * slots */
	size_t hard, rows, vars, qt, pr, msg;
};

static __host__ __device__ struct chip_layout chip_layout_of(uint32_t n, uint32_t q, uint32_t vmax,
                                                             uint32_t rmax, uint32_t emax, bool fu)
{
	struct chip_layout l;

	l.hard = CHIP_HEAD_BYTES;
	l.rows = l.hard + chip_align16(n);
	l.vars = l.rows + (size_t)rmax * (fu ? 48 : 16);
	l.qt = l.vars + chip_align16((size_t)vmax * 8);
	l.pr =
	    l.qt + chip_align16(chip_qt_bytes(q) + (fu ? 8 * q : 0)); /* the fused form's steps */
	l.msg = l.pr + (size_t)(fu ? emax : vmax) * q * 4;
	return l;
}

__host__ __device__ constexpr int chip_log2(int v)
{
	return v > 1 ? 1 + chip_log2(v / 2) : 0;
}

/* The slot indices y / h of a lane's values y = ln V + v. Division by h is GF(2)-linear and
 * y = ln V xor v, so y / h = (ln V) / h xor v / h, v / h the xor of the quotients of v's bits:
 * 1 + log2 V table reads an edge, not V. lgb: the logarithm of ln V (-1 for 0), lgs[t]: of 2^t,
 * lgi: of 1 / h. */
template <int V>
__device__ __forceinline__ void chip_quots(const uint8_t *ex, int lgb,
                                           const unsigned (&lgs)[chip_log2(V)], unsigned lgi,
                                           unsigned (&idx)[V])
{
	constexpr int B = chip_log2(V);
	const unsigned base = lgb < 0 ? 0u : ex[lgb + lgi];
	unsigned t[B];

#pragma unroll
	for (int k = 0; k < B; k++)
		t[k] = ex[lgs[k] + lgi];
#pragma unroll
	for (int v = 0; v < V; v++) {
		unsigned x = base;

#pragma unroll
		for (int k = 0; k < B; k++)
			if ((v >> k) & 1)
				x ^= t[k];
		idx[v] = x;
	}
}

/* Whether the kernel with the staged tables reads its slot indices from the quotient table:
 * entry (h, ln) holds the V indices (ln V + v) / h as bytes, whole 32-bit words of them; for
 * q <= 64 as byte offsets (4 (ln V + v) / h), so that an address is one byte permute and one
 * add from the slot's start. */
template <int Q, int V> __host__ __device__ constexpr bool chip_uses_qt()
{
	return Q <= 128 && V % 4 == 0;
}

/* Fills the quotient table from the field's tables (shared memory), once a launch. */
template <int Q, int V>
__device__ void chip_qt_fill(uint8_t *qt, const uint8_t *ex, const uint8_t *lg, unsigned tid,
                             unsigned nt)
{
	constexpr int L = Q / V;

	for (unsigned e = tid; e < (unsigned)(Q * L); e += nt) {
		const unsigned h = e / L, ln = e % L;

		for (int v = 0; v < V; v++) {
			const unsigned y = ln * V + v;

			qt[e * V + v] =
			    (Q <= 64 ? 4 : 1) * (h && y ? ex[lg[y] + Q - 1 - lg[h]] : 0);
		}
	}
}

/* Value v's place in an edge's slot e: from the edge's quotient words (QT; byte offsets where
 * q <= 64) or its indices idx. */
template <int Q, int V, bool QT>
__device__ __forceinline__ float *chip_at(float *e, const unsigned (&key)[QT ? V / 4 : 1],
                                          const unsigned (&idx)[V], int v)
{
	if (QT && Q <= 64)
		return (float *)((char *)e + __byte_perm(key[v / 4], 0, 0x4440 + v % 4));
	if (QT)
		return e + __byte_perm(key[v / 4], 0, 0x4440 + v % 4);
	return e + idx[v];
}

/* One check of deg <= D edges whose slots start at s (row-major, q floats each, local shared
 * memory) and whose coefficients are hv[0 .. deg) (TAB: the bytes of hw, from the staged row):
 * the slots' variable-to-check messages in, the check-to-variable messages out
 * (nbldpc__fft_check, probability domain). TAB: the indices come from the quotient table qt
 * where chip_uses_qt, else from chip_quots. FULL: deg is D (no per-edge tests: the D transforms
 * interleave). */
template <int Q, int V, int D, bool TAB, bool FULL>
__device__ __forceinline__ void chip_check(const uint8_t *ex, const uint8_t *lg, const uint8_t *qt,
                                           const uint8_t *hv, uint2 hw, unsigned deg, float *s,
                                           int lgb, const unsigned (&lgs)[chip_log2(V)],
                                           unsigned ln, unsigned mask)
{
	constexpr int L = Q / V;
	constexpr bool QT = TAB && chip_uses_qt<Q, V>();
	constexpr int W = QT ? V / 4 : 1;
	float F[D][V], acc[V];
	unsigned key[D][W]; /* per edge: its quotient words (QT), else log(1 / h) */
	unsigned h[D];

	if (TAB) {
#pragma unroll
		for (int i = 0; i < D; i++)
			h[i] = ((i < 4 ? hw.x : hw.y) >> (8 * (i % 4))) & 0xffu;
	} else {
#pragma unroll
		for (int i = 0; i < D; i++)
			h[i] = FULL || i < (int)deg ? hv[i] : 0u;
	}
#pragma unroll
	for (int i = 0; i < D; i++)
		if (FULL || i < (int)deg) {
			unsigned idx[V];

			if (QT) {
				const uint32_t *w = (const uint32_t *)(qt + (h[i] * L + ln) * V);

#pragma unroll
				for (int k = 0; k < W; k++)
					key[i][k] = w[k];
			} else {
				key[i][0] = Q - 1 - lg[h[i]];
				chip_quots<V>(ex, lgb, lgs, key[i][0], idx);
			}
#pragma unroll
			for (int v = 0; v < V; v++)
				F[i][v] = *chip_at<Q, V, QT>(s + i * Q, key[i], idx, v);
		}
#pragma unroll
	for (int i = 0; i < D; i++)
		if (FULL || i < (int)deg)
			group_wht<Q, V>(F[i], ln, mask);
			/* each edge's product of the others, prefix times suffix as the CPU forms
			 * them (its prefix products recomputed here rather than kept: fewer live
			 * registers, the same roundings) */
#pragma unroll
	for (int v = 0; v < V; v++)
		acc[v] = 1.0f;
	__syncwarp(mask); /* every lane has read the slots before any is overwritten */
#pragma unroll
	for (int i = D - 1; i >= 0; i--)
		if (FULL || i < (int)deg) {
			float t[V];
			unsigned idx[V];

#pragma unroll
			for (int v = 0; v < V; v++) {
				float pre = 1.0f;

#pragma unroll
				for (int j = 0; j < i; j++)
					pre = j ? pre * F[j][v] : F[j][v];
				t[v] = pre * acc[v];
				acc[v] *= F[i][v];
			}
			group_wht<Q, V>(t, ln, mask);
			group_norm_prob<L, V>(t, mask);
			if (!QT)
				chip_quots<V>(ex, lgb, lgs, key[i][0], idx);
#pragma unroll
			for (int v = 0; v < V; v++)
				*chip_at<Q, V, QT>(s + i * Q, key[i], idx, v) = t[v];
		}
}

/* Information symbol i's soft output from its normalised a-posteriori probabilities r (as
 * nbldpc_gpu_fftbp.cu fbp_soft: nbldpc__fftbp's end, then nbldpc_coder.c; group_soft). */
template <int Q, int V>
__device__ static void chip_soft(const struct nbgpu_code &c, const struct gpu_batch &b, uint32_t f,
                                 uint32_t i, float (&r)[V], unsigned ln, unsigned mask)
{
#pragma unroll
	for (int v = 0; v < V; v++)
		r[v] = logf(r[v]);
	chip_norm_log<Q / V, V>(r, mask);
	group_soft<Q / V, V>(r, b.soft + (size_t)f * b.soft_stride, i, Q, c.p, c.soft_bit,
	                     c.bit_shift, ln, mask);
}

/* The cluster's shared memory bases (generic addresses of each block's dynamic shared memory). */
struct chip_ranks {
	char *base[CHIP_MAX_C];
	uint32_t cbase[CHIP_MAX_C]; /* the same as shared::cluster addresses (the fused form) */
};

/* Slot (rank << 16 | local edge; the top byte the inverse of its edge's coefficient, which the
 * edge form uses) as a pointer into its block's messages, SQ floats a slot. */
template <int SQ>
__device__ __forceinline__ float *chip_slot_ptr(const struct chip_ranks &rk, size_t msg, uint32_t s)
{
	return (float *)(rk.base[(s >> 16) & 0xffu] + msg) + (size_t)(s & 0xffffu) * SQ;
}

/* A variable's two slots: from the staged table (TAB) or the code's (position pos). */
template <bool TAB>
__device__ __forceinline__ uint2 chip_var_slots(const struct nbgpu_code &c, const uint2 *vart,
                                                uint32_t v0, uint32_t j)
{
	if (TAB)
		return vart[j];
	return make_uint2(c.chip_slot[2 * (v0 + j)], c.chip_slot[2 * (v0 + j) + 1]);
}

/* A lane's values ln V + v of a variable's message in slot word s (at e): in the variable's
 * order, or CD (the edge form, nbldpc_gpu_fftbp_edge.cuh) at the check's places h (ln V + v),
 * byte offsets from the quotient table's entry for 1 / h (the slot word's top byte). */
template <int Q, int V, bool CD> struct chip_cd_key {
	uint32_t w[CD ? V / 4 : 1];
};

template <int Q, int V, bool CD>
__device__ __forceinline__ chip_cd_key<Q, V, CD> chip_cd_key_of(const uint8_t *qt, uint32_t s,
                                                                 unsigned ln)
{
	chip_cd_key<Q, V, CD> k;

	static_assert(!CD || (V % 4 == 0 && Q <= 64), "the edge form takes V = 4 or 8, q <= 64");
	if constexpr (CD) {
#pragma unroll
		for (int i = 0; i < V / 4; i++)
			k.w[i] = *(const uint32_t *)(qt + ((s >> 24) * (Q / V) + ln) * V + 4 * i);
	}
	return k;
}

template <int Q, int V, bool CD>
__device__ __forceinline__ void chip_slot_load(float (&r)[V], const float *e, uint32_t s,
                                               const uint8_t *qt, unsigned ln)
{
	if constexpr (!CD) {
		chip_load<V>(r, e + ln * V);
	} else {
		const chip_cd_key<Q, V, CD> k = chip_cd_key_of<Q, V, CD>(qt, s, ln);

#pragma unroll
		for (int v = 0; v < V; v++)
			r[v] = *(const float *)((const char *)e +
			                        __byte_perm(k.w[v / 4], 0, 0x4440 + v % 4));
	}
}

template <int Q, int V, bool CD>
__device__ __forceinline__ void chip_slot_store(float *e, uint32_t s, const uint8_t *qt,
                                                unsigned ln, const float (&r)[V])
{
	if constexpr (!CD) {
		chip_store<V>(e + ln * V, r);
	} else {
		const chip_cd_key<Q, V, CD> k = chip_cd_key_of<Q, V, CD>(qt, s, ln);

#pragma unroll
		for (int v = 0; v < V; v++)
			*(float *)((char *)e + __byte_perm(k.w[v / 4], 0, 0x4440 + v % 4)) = r[v];
	}
}

/* Variable at position j of block rank's list, slots sl: a-posteriori probabilities (prior
 * times both check messages, column order, normalised) into r. SQ floats a slot; CD: the edge
 * form's slots (chip_slot_load). */
template <int Q, int V, int SQ, bool CD>
__device__ __forceinline__ void chip_app(const struct chip_ranks &rk, const struct chip_layout &ly,
                                         const uint8_t *qt, uint32_t rank, uint32_t j, uint2 sl,
                                         float (&r)[V], unsigned ln, unsigned mask)
{
	float m0[V], m1[V];

	chip_load<V>(r, (const float *)(rk.base[rank] + ly.pr) + (size_t)j * Q + ln * V);
	chip_slot_load<Q, V, CD>(m0, chip_slot_ptr<SQ>(rk, ly.msg, sl.x), sl.x, qt, ln);
	chip_slot_load<Q, V, CD>(m1, chip_slot_ptr<SQ>(rk, ly.msg, sl.y), sl.y, qt, ln);
#pragma unroll
	for (int v = 0; v < V; v++)
		r[v] = r[v] * m0[v] * m1[v];
	group_norm_prob<Q / V, V>(r, mask);
}

/* The kernel's variants (FECD_FFTBP_KERNEL, nbldpc_gpu.cu): CHIP_F_TAB, the code's tables
 * staged in shared memory once a launch (",s0": read from device memory); CHIP_F_BAR, block
 * barriers where C = 1 (",b0": the cluster's); CHIP_F_FULL, rows of D edges checked without
 * per-edge degree tests (",d0": with them); CHIP_F_SPLIT (",split", not in the default: 2 %
 * slower on GF64_5040, NBLDPC_GPU.md), where C > 1 the variable phase around a split cluster
 * barrier, a block's interior rows and local variables before its waits; CHIP_F_ALIGN (",al",
 * not in the default), the whole cluster's barriers as .aligned arrive and wait after a
 * __syncwarp (cooperative groups' cluster.sync() is not .aligned); CHIP_F_EDGE (",e"), the edge
 * form of nbldpc_gpu_fftbp_edge.cuh (q = 64, V = 4, rows of at most 4, with the staged tables;
 * not with SPLIT); CHIP_F_FUSE (with EDGE; ",f0" without), the fused form of
 * nbldpc_gpu_fftbp_fused.cuh: the variable phase folded into the edge form's check. */
#define CHIP_F_TAB   1
#define CHIP_F_BAR   2
#define CHIP_F_FULL  4
#define CHIP_F_SPLIT 8
#define CHIP_F_ALIGN 16
#define CHIP_F_EDGE  32
#define CHIP_F_FUSE  64
#define CHIP_F_ALL   (CHIP_F_TAB | CHIP_F_BAR | CHIP_F_FULL)

/* floats a slot: the edge form pads each by 16 bytes, so that the 8 lanes of a 128-bit access to
 * 8 consecutive slots meet 8 different banks (the fused form swizzles its chunks instead) */
__host__ __device__ constexpr int chip_slot_floats(int q, int f)
{
	return (f & CHIP_F_FUSE) ? q : (f & CHIP_F_EDGE) ? q + 4 : q;
}

/* The cluster barrier in halves: the arrive releases this thread's earlier writes (its own
 * block's slots the other blocks read, or theirs it wrote), the wait acquires the others'. Not
 * .aligned: the lanes of a warp may reach them apart (groups leave a loop after different
 * counts of rows or variables). */
__device__ __forceinline__ void chip_arrive()
{
	asm volatile("barrier.cluster.arrive.release;" ::: "memory");
}

__device__ __forceinline__ void chip_wait()
{
	asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
}

/* Everything a block's phases need, formed once a launch. */
struct chip_ctx {
	const uint8_t *ex, *lg, *qt;
	const uint4 *rows; /* staged rows: slot | deg << 16, coefficient bytes (2 words), row */
	const uint2 *vars; /* staged variables: the two slots */
	float *pr, *msg;
	uint32_t pr32, msg32; /* the same as shared-window addresses (the fused form) */
	struct chip_layout ly;
	uint32_t rank, r0, nr, nint, v0, nv, nloc;
	unsigned gid, ngroups, ln, mask;
	int lgb;
};

#include "nbldpc_gpu_fftbp_edge.cuh"  /* the edge form's check phase, on chip_ctx */
#include "nbldpc_gpu_fftbp_fused.cuh" /* the fused form's iteration */

/* The checks of the block's rows, taken round-robin by its groups; where pending, the rows from
 * split on wait for the cluster barrier (the other blocks' writes into their slots). FULL
 * (CHIP_F_FULL): rows of D edges without per-edge tests. */
template <int Q, int V, int D, int F>
__device__ __forceinline__ void chip_checks_group(const struct nbgpu_code &c,
                                                  const struct chip_ctx &x,
                                                  const unsigned (&lgs)[chip_log2(V)],
                                                  uint32_t split, bool pending)
{
	constexpr bool TAB = (F & CHIP_F_TAB) != 0, FULL = (F & CHIP_F_FULL) != 0;

	for (uint32_t k = x.gid; k < x.nr; k += x.ngroups) {
		uint2 hw = make_uint2(0, 0);
		const uint8_t *hv = NULL;
		unsigned deg;
		float *s;

		if (pending && k >= split) {
			chip_wait();
			pending = false;
		}
		if (TAB) {
			const uint4 rw = x.rows[k];

			hw = make_uint2(rw.y, rw.z);
			deg = rw.x >> 16;
			s = x.msg + (size_t)(rw.x & 0xffffu) * Q;
		} else {
			const uint32_t r = c.chip_row[x.r0 + k], e0 = c.row_start[r];

			hv = c.row_val + e0;
			deg = c.row_start[r + 1] - e0;
			s = x.msg + (size_t)c.chip_row_slot[x.r0 + k] * Q;
		}
		if (FULL && deg == D)
			chip_check<Q, V, D, TAB, true>(x.ex, x.lg, x.qt, hv, hw, deg, s, x.lgb, lgs,
			                               x.ln, x.mask);
		else
			chip_check<Q, V, D, TAB, false>(x.ex, x.lg, x.qt, hv, hw, deg, s, x.lgb,
			                                lgs, x.ln, x.mask);
	}
	if (pending)
		chip_wait();
}

/* The check phase: in edge form (CHIP_F_EDGE) or by groups. */
template <int Q, int V, int D, int F>
__device__ __forceinline__ void chip_checks(const struct nbgpu_code &c, const struct chip_ctx &x,
                                            const struct chip_ranks &rk,
                                            const unsigned (&lgs)[chip_log2(V)], uint32_t split,
                                            bool pending)
{
	if constexpr ((F & CHIP_F_EDGE) != 0) {
		static_assert((F & CHIP_F_TAB) && !(F & CHIP_F_SPLIT) && D == 4,
		              "the edge form: staged tables, no split barrier, rows of at most 4");
		chip_checks_edge<Q, chip_slot_floats(Q, F)>(x, rk);
	} else {
		chip_checks_group<Q, V, D, F>(c, x, lgs, split, pending);
	}
}

/* The next variable-to-check messages of the block's variables j in [j0, j1) (the prior times
 * the other edge's check message), taken round-robin by the groups from j0 on. LOCAL: both slots
 * of each in this block (addressed as its own shared memory). */
template <int Q, int V, int F, bool LOCAL>
__device__ __forceinline__ void chip_vars(const struct nbgpu_code &c, const struct chip_ctx &x,
                                          const struct chip_ranks &rk, uint32_t j0, uint32_t j1)
{
	constexpr int L = Q / V, SQ = chip_slot_floats(Q, F);
	constexpr bool CD = (F & CHIP_F_EDGE) != 0;
	uint32_t j = j0 + (x.gid + x.ngroups - j0 % x.ngroups) % x.ngroups;

	for (; j < j1; j += x.ngroups) {
		const uint2 sl = chip_var_slots<(F & CHIP_F_TAB) != 0>(c, x.vars, x.v0, j);
		float *p0 = LOCAL ? x.msg + (size_t)(sl.x & 0xffffu) * SQ
		                  : chip_slot_ptr<SQ>(rk, x.ly.msg, sl.x);
		float *p1 = LOCAL ? x.msg + (size_t)(sl.y & 0xffffu) * SQ
		                  : chip_slot_ptr<SQ>(rk, x.ly.msg, sl.y);
		float p[V], m0[V], m1[V];

		chip_load<V>(p, x.pr + (size_t)j * Q + x.ln * V);
		chip_slot_load<Q, V, CD>(m0, p0, sl.x, x.qt, x.ln);
		chip_slot_load<Q, V, CD>(m1, p1, sl.y, x.qt, x.ln);
		/* edge 1's: the prior times edge 0's message, and the other way */
#pragma unroll
		for (int v = 0; v < V; v++) {
			m0[v] *= p[v];
			m1[v] *= p[v];
		}
		group_norm_prob<L, V>(m1, x.mask);
		group_norm_prob<L, V>(m0, x.mask);
		chip_slot_store<Q, V, CD>(p0, sl.x, x.qt, x.ln, m1);
		chip_slot_store<Q, V, CD>(p1, sl.y, x.qt, x.ln, m0);
	}
}

/* The whole cluster's barrier; a block's where the cluster is one block (BAR). */
template <int F> __device__ __forceinline__ void chip_sync(cg::cluster_group &cl, uint32_t C)
{
	if ((F & CHIP_F_BAR) && C == 1) {
		__syncthreads();
	} else if (F & CHIP_F_ALIGN) {
		__syncwarp();
		asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
		             "barrier.cluster.wait.acquire.aligned;" ::
		                 : "memory");
	} else {
		cl.sync();
	}
}

/* The fused form's barrier an iteration: a block barrier, one thread's fence at cluster scope
 * (cumulative: it releases every write the block barrier ordered before it), and the threads'
 * relaxed arrives, where each thread's release arrive fenced alone; the wait acquires. */
__device__ __forceinline__ void chip_fu_sync(uint32_t C)
{
	__syncthreads();
	if (C == 1)
		return;
	if (threadIdx.x == 0)
		asm volatile("fence.acq_rel.cluster;" ::: "memory");
	asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\t"
	             "barrier.cluster.wait.aligned;" ::
	                 : "memory");
}

/* The decisions' barriers: the fused form's (one fence a block), the others' whole barrier. */
template <int F> __device__ __forceinline__ void chip_decide_sync(cg::cluster_group &cl, uint32_t C)
{
	if constexpr ((F & CHIP_F_FUSE) != 0)
		chip_fu_sync(C);
	else
		chip_sync<F>(cl, C);
}

/* A-posteriori values and hard decisions of the block's variables into every block's copy, then
 * the syndrome of its rows, every block's flag to every block: whether some check fails. */
template <int Q, int V, int F>
__device__ static bool chip_decide(const struct nbgpu_code &c, const struct chip_ctx &x,
                                   const struct chip_ranks &rk, cg::cluster_group &cl, uint32_t C,
                                   unsigned it, uint8_t *hard, int *flags)
{
	constexpr int L = Q / V;
	const unsigned tid = threadIdx.x, nt = blockDim.x;
	int my_bad = 0;
	bool bad = false;

	if constexpr ((F & CHIP_F_FUSE) != 0) /* a lane a variable (chip_fu_decide) */
		for (uint32_t j = tid; j < x.nv; j += nt) {
			const unsigned bi =
			    chip_fu_decide<Q>(x, rk, chip_var_slots<true>(c, x.vars, x.v0, j),
			                      c.chip_pair[x.v0 + j], it - 1);

			for (uint32_t k = 0; k < C; k++)
				rk.base[k][x.ly.hard + c.chip_var[x.v0 + j]] = (uint8_t)bi;
		}
	for (uint32_t j = x.gid; !(F & CHIP_F_FUSE) && j < x.nv; j += x.ngroups) {
		const uint2 sl = chip_var_slots<(F & CHIP_F_TAB) != 0>(c, x.vars, x.v0, j);
		float r[V];
		float best;
		unsigned bi;

		chip_app<Q, V, chip_slot_floats(Q, F), (F & CHIP_F_EDGE) != 0>(rk, x.ly, x.qt, x.rank,
		                                                                 j, sl, r, x.ln, x.mask);
		best = r[0];
		bi = x.ln * V;
#pragma unroll
		for (int v = 1; v < V; v++)
			if (r[v] > best) {
				best = r[v];
				bi = x.ln * V + v;
			}
		bi = gargmax<L>(best, bi, x.mask);
		for (uint32_t k = x.ln; k < C; k += L)
			rk.base[k][x.ly.hard + c.chip_var[x.v0 + j]] = (uint8_t)bi;
	}
	chip_decide_sync<F>(cl, C);
	for (uint32_t k = tid; k < x.nr; k += nt) {
		unsigned s = 0;

		if constexpr ((F & CHIP_F_FUSE) != 0) { /* the staged row: column | h << 24 */
			const uint4 cw = x.rows[3 * k + 2];

			s = nbgpu_mul(x.ex, x.lg, cw.x >> 24, hard[cw.x & 0xffffffu]) ^
			    nbgpu_mul(x.ex, x.lg, cw.y >> 24, hard[cw.y & 0xffffffu]) ^
			    nbgpu_mul(x.ex, x.lg, cw.z >> 24, hard[cw.z & 0xffffffu]) ^
			    nbgpu_mul(x.ex, x.lg, cw.w >> 24, hard[cw.w & 0xffffffu]);
		} else {
			const uint32_t r = (F & CHIP_F_TAB) && !(F & CHIP_F_EDGE)
			                       ? x.rows[k].w
			                       : c.chip_row[x.r0 + k];

			for (uint32_t e = c.row_start[r]; e < c.row_start[r + 1]; e++)
				s ^= nbgpu_mul(x.ex, x.lg, c.row_val[e], hard[c.row_col[e]]);
		}
		my_bad |= s != 0;
	}
	my_bad = __syncthreads_or(my_bad);
	if (tid < C)
		((int *)(rk.base[tid] + 768))[(it & 1) * CHIP_MAX_C + x.rank] = my_bad;
	chip_decide_sync<F>(cl, C);
	for (uint32_t k = 0; k < C; k++)
		bad |= flags[(it & 1) * CHIP_MAX_C + k] != 0;
	return bad;
}

template <int Q, int V, int D, int F>
__global__ void __launch_bounds__((F & CHIP_F_FUSE)  ? CHIP_FUSE_THREADS
                                  : (F &CHIP_F_EDGE) ? CHIP_EDGE_THREADS
                                                     : CHIP_THREADS(V, D),
                                  1)
    nbldpc_fftbp_chip_kernel(const struct nbgpu_code c, const struct gpu_batch b)
{
	constexpr int L = Q / V, SQ = chip_slot_floats(Q, F);
	constexpr bool TAB = (F & CHIP_F_TAB) != 0, SPLIT = (F & CHIP_F_SPLIT) != 0;
	constexpr bool CD = (F & CHIP_F_EDGE) != 0, FU = (F & CHIP_F_FUSE) != 0;
	extern __shared__ float4 smem4[];
	__shared__ struct chip_ranks rk;
	char *sm = (char *)smem4;
	uint8_t *ex = (uint8_t *)sm, *lg = ex + 512;
	int *flags = (int *)(sm + 768); /* [parity][rank] */
	cg::cluster_group cl = cg::this_cluster();
	const uint32_t C = cl.num_blocks(), rank = cl.block_rank();
	const unsigned tid = threadIdx.x, nt = blockDim.x;
	struct chip_ctx x;
	uint8_t *hard;
	unsigned lgs[chip_log2(V)]; /* the logarithms of 2^t */

	x.ly = chip_layout_of(c.n, Q, c.chip_vmax, c.chip_rmax, c.chip_emax, FU);
	if (FU) { /* the fused form's slots and priors 256-byte aligned (the host adds 256) */
		const size_t pad = (0u - ((uint32_t)__cvta_generic_to_shared(sm) + x.ly.pr)) & 255u;

		x.ly.pr += pad;
		x.ly.msg += pad;
	}
	x.ex = ex;
	x.lg = lg;
	x.qt = (const uint8_t *)(sm + x.ly.qt);
	x.rows = (const uint4 *)(sm + x.ly.rows);
	x.vars = (const uint2 *)(sm + x.ly.vars);
	x.pr = (float *)(sm + x.ly.pr);
	x.msg = (float *)(sm + x.ly.msg);
	x.pr32 = (uint32_t)__cvta_generic_to_shared(sm + x.ly.pr);
	x.msg32 = (uint32_t)__cvta_generic_to_shared(sm + x.ly.msg);
	x.rank = rank;
	x.r0 = c.chip_row_start[rank];
	x.nr = c.chip_row_start[rank + 1] - x.r0;
	x.nint = c.chip_row_nint[rank];
	x.v0 = c.chip_var_start[rank];
	x.nv = c.chip_var_start[rank + 1] - x.v0;
	x.nloc = c.chip_var_nloc[rank];
	x.ln = tid % L;
	x.gid = tid / L;
	x.ngroups = nt / L;
	x.mask = gmask<L>(tid);
	hard = (uint8_t *)(sm + x.ly.hard);

	for (unsigned i = tid; i < 512; i += nt)
		ex[i] = c.gf_exp[i];
	for (unsigned i = tid; i < 256; i += nt)
		lg[i] = c.gf_log[i];
	if (tid < C) {
		rk.base[tid] = (char *)cl.map_shared_rank((void *)sm, tid);
		asm("mapa.shared::cluster.u32 %0, %1, %2;"
		    : "=r"(rk.cbase[tid])
		    : "r"((uint32_t)__cvta_generic_to_shared(sm)), "r"(tid));
	}
	if (TAB) { /* the block's rows and variables from the code's tables */
		for (uint32_t k = tid; k < x.nr; k += nt) {
			if constexpr (FU) { /* the fused form: 12 words a row */
				for (int i = 0; i < 3; i++)
					((uint4 *)x.rows)[3 * k + i] =
					    ((const uint4 *)c.chip_row_slots)[3 * (x.r0 + k) + i];
			} else if constexpr (CD) { /* the edge form: the row's slot words, no
				                    * coefficients */
				((uint4 *)x.rows)[k] = ((const uint4 *)c.chip_row_slots)[x.r0 + k];
			} else {
				const uint32_t r = c.chip_row[x.r0 + k], e0 = c.row_start[r];
				const uint32_t deg = c.row_start[r + 1] - e0;
				uint32_t lo = 0, hi = 0;

				for (uint32_t i = 0; i < deg; i++) {
					const uint32_t h = (uint32_t)c.row_val[e0 + i]
					                   << (8 * (i % 4));

					if (i < 4)
						lo |= h;
					else
						hi |= h;
				}
				((uint4 *)x.rows)[k] =
				    make_uint4(c.chip_row_slot[x.r0 + k] | deg << 16, lo, hi, r);
			}
		}
		for (uint32_t j = tid; j < x.nv; j += nt)
			((uint2 *)x.vars)[j] = chip_var_slots<false>(c, x.vars, x.v0, j);
	}
	__syncthreads();
	if (FU && tid < C &&
	    ((((uintptr_t)(rk.base[tid] + x.ly.msg)) & 255u) ||
	     ((rk.cbase[tid] + x.ly.msg) & 255u)))
		__trap(); /* the xor addressing needs every block's slots 256-byte aligned */
	if (TAB && chip_uses_qt<Q, V>())
		chip_qt_fill<Q, V>((uint8_t *)x.qt, ex, lg, tid, nt);
	if (FU)
		chip_fu_steps_fill<Q>((uint8_t *)x.qt + Q * Q, ex, lg, tid, nt);
	x.lgb = x.ln ? (int)lg[x.ln * V] : -1;
#pragma unroll
	for (int k = 0; k < chip_log2(V); k++)
		lgs[k] = lg[1u << k];

	for (uint32_t f = blockIdx.x / C; f < b.count; f += gridDim.x / C) {
		struct fec_job *job = &b.jobs[f];
		const bool usable = job->in_len == c.in_syms && job->head_len == 0;
		bool bad = true, pending = false;
		unsigned it = 0;

		/* the cluster is done with the last frame's arrays (and the tables). The fused form
		 * without soft output needs this only before its first frame: its decisions read
		 * slots and priors before the decisions' first barrier, and nothing reads another
		 * block's after it. */
		if (!FU || b.soft || f == blockIdx.x / C)
			cl.sync();
		if (!usable) {
			if (rank == 0 && tid == 0)
				nbgpu_job_ok(c, job);
			continue;
		}
		/* the priors (nbldpc_gpu_fftbp.cu fbp_prior), and the first variable-to-check
		 * messages: the priors themselves (the fused form: each edge's lane forms its
		 * own in iteration 0, chip_fu_prior) */
		for (uint32_t j = x.gid; !FU && j < x.nv; j += x.ngroups) {
			const uint2 sl = chip_var_slots<TAB>(c, x.vars, x.v0, j);
			const uint32_t xv = c.chip_var[x.v0 + j];
			float r[V];

			nbgpu_priors<V>(c, b, f, xv, x.ln * V, r);
			chip_norm_log<L, V>(r, x.mask);
#pragma unroll
			for (int v = 0; v < V; v++)
				r[v] = expf(r[v]);
			group_norm_prob<L, V>(r, x.mask);
			chip_store<V>(x.pr + (size_t)j * Q + x.ln * V, r);
			chip_slot_store<Q, V, CD>(chip_slot_ptr<SQ>(rk, x.ly.msg, sl.x), sl.x, x.qt,
			                          x.ln, r);
			chip_slot_store<Q, V, CD>(chip_slot_ptr<SQ>(rk, x.ly.msg, sl.y), sl.y, x.qt,
			                          x.ln, r);
		}
		if (!FU) /* the fused form: each lane forms its prior in iteration 0 */
			chip_sync<F>(cl, C);
		if constexpr (FU) /* one phase and one barrier an iteration */
			while (it < c.max_iters) {
				chip_checks_fused<Q>(c, b, f, x, rk, it);
				it++;
				chip_fu_sync(C);
				if (c.early_stop || it == c.max_iters) {
					bad =
					    chip_decide<Q, V, F>(c, x, rk, cl, C, it, hard, flags);
					if ((!bad && c.early_stop) || it == c.max_iters)
						break;
				}
			}
		while (!FU && it < c.max_iters) {
			/* the rows whose slots only this block's variables write (SPLIT: the first
			 * nint; all rows otherwise) before the rest, which wait for the other
			 * blocks' variables where their writes are pending */
			chip_checks<Q, V, D, F>(c, x, rk, lgs, SPLIT ? x.nint : x.nr, pending);
			pending = false;
			it++;
			if (c.early_stop || it == c.max_iters || !SPLIT || C == 1) {
				chip_sync<F>(cl, C); /* the check messages, for every block */
				if (c.early_stop || it == c.max_iters) {
					bad =
					    chip_decide<Q, V, F>(c, x, rk, cl, C, it, hard, flags);
					if ((!bad && c.early_stop) || it == c.max_iters)
						break;
				}
				/* the edge form: both slots in the variable's block */
				chip_vars<Q, V, F, CD>(c, x, rk, 0, x.nv);
				chip_sync<F>(cl, C); /* the variable messages, for every block */
				continue;
			}
			/* SPLIT, C > 1: the variables whose slots are both here (the first nloc,
			 * after a block barrier) while the other blocks finish their checks; those
			 * with a slot elsewhere once they have; the arrive after them (and a block
			 * barrier) lets the next iteration's rows of this block's variables start
			 * before the other blocks are done */
			chip_arrive(); /* before the block barrier: the others wait on it */
			__syncthreads();
			chip_vars<Q, V, F, true>(c, x, rk, 0, x.nloc);
			chip_wait();
			chip_vars<Q, V, F, false>(c, x, rk, x.nloc, x.nv);
			chip_arrive();
			__syncthreads();
			pending = true;
		}
		nbgpu_out_bits(c, b, f, hard, tid + rank * nt, nt * C);
		if (b.soft)
			for (uint32_t i = rank * x.ngroups + x.gid; i < c.k; i += C * x.ngroups) {
				const uint32_t ps = c.chip_pos[c.info_cols[i]];
				const uint32_t vr = ps >> 16, vj = ps & 0xffffu;
				const uint2 sl =
				    make_uint2(c.chip_slot[2 * (c.chip_var_start[vr] + vj)],
				               c.chip_slot[2 * (c.chip_var_start[vr] + vj) + 1]);
				float r[V];

				if constexpr (FU)
					chip_fu_app<Q, V>(rk, x.ly, x.qt, vr, sl,
					                  c.chip_pair[c.chip_var_start[vr] + vj],
					                  it - 1, r, x.ln, x.mask);
				else
					chip_app<Q, V, SQ, CD>(rk, x.ly, x.qt, vr, vj, sl, r, x.ln,
					                       x.mask);
				chip_soft<Q, V>(c, b, f, i, r, x.ln, x.mask);
			}
		if (rank == 0 && tid == 0)
			nbgpu_job_done(c, b, job, it, !bad);
	}
	cl.sync(); /* no block leaves while another may still read its shared memory */
}

/* ---- Host: the cluster's plan and the launchers */

void nbgpu_chip_plan_free(struct nbgpu_chip_plan *p)
{
	free(p->var);
	free(p->var_start);
	free(p->slot);
	free(p->pos);
	free(p->row);
	free(p->row_start);
	free(p->row_slot);
	free(p->row_slots);
	free(p->pair);
	free(p->var_nloc);
	free(p->row_nint);
	memset(p, 0, sizeof(*p));
}

/* The row at the other end of edge e's column (degree 2). */
static uint32_t chip_other_row(const struct nbldpc_code *code, const uint32_t *erow, uint32_t e)
{
	const uint32_t x = code->row_col[e], j = code->col_start[x];
	const uint32_t o = code->col_edge[j] == e ? code->col_edge[j + 1] : code->col_edge[j];

	return erow[o];
}

/* Rows into cs parts of m / cs (rank[r]), few columns across parts: each part grows from its
 * lowest free row by a free row with the most columns into it, so most of a variable's two checks
 * share a block and its messages stay in that block's shared memory. A row's gain (its columns
 * into the part) is at most its degree (<= CHIP_MAX_D), so the free rows wait in a stack per
 * gain (stk: (CHIP_MAX_D + 1) m words; stale entries are skipped when met): O(m + nnz) a part. */
static void chip_partition(const struct nbldpc_code *code, const uint32_t *erow, unsigned cs,
                           uint32_t *rank, uint32_t *gain, uint32_t *stk)
{
	const uint32_t m = code->m;

	for (uint32_t r = 0; r < m; r++)
		rank[r] = UINT32_MAX;
	for (uint32_t part = 0; part < cs; part++) {
		const uint32_t size =
		    (uint32_t)(((uint64_t)part + 1) * m / cs - (uint64_t)part * m / cs);
		uint32_t top[CHIP_MAX_D + 1] = {0};

		for (uint32_t r = m; r-- > 0;) {
			gain[r] = 0;
			if (rank[r] == UINT32_MAX)
				stk[top[0]++] = r; /* the lowest free row on top */
		}
		for (uint32_t k = 0; k < size; k++) {
			uint32_t r = UINT32_MAX;

			for (int g = CHIP_MAX_D; g >= 0 && r == UINT32_MAX; g--)
				while (top[g] > 0 && r == UINT32_MAX) {
					const uint32_t t = stk[(size_t)g * m + --top[g]];

					if (rank[t] == UINT32_MAX && gain[t] == (uint32_t)g)
						r = t;
				}
			rank[r] = part;
			for (uint32_t e = code->row_start[r]; e < code->row_start[r + 1]; e++) {
				const uint32_t o = chip_other_row(code, erow, e);

				if (rank[o] == UINT32_MAX && gain[o] < CHIP_MAX_D) {
					gain[o]++;
					stk[(size_t)gain[o] * m + top[gain[o]]++] = o;
				}
			}
		}
	}
}

/* Whether every column of row r has its variable in the row's block (vrank, rrank): then only
 * that block's variables write the row's slots. */
static bool chip_row_interior(const struct nbldpc_code *code, const uint32_t *vrank,
                              const uint32_t *rrank, uint32_t r)
{
	for (uint32_t e = code->row_start[r]; e < code->row_start[r + 1]; e++)
		if (vrank[code->row_col[e]] != rrank[r])
			return false;
	return true;
}

/* Edge e's slot word: the inverse of its coefficient (the edge form's key into the quotient
 * table) << 24 | its block << 16 | its place there. */
static uint32_t chip_slot_word(const struct nbldpc_code *code, uint32_t e, uint32_t rank,
                               uint32_t loc)
{
	return (uint32_t)nbldpc_gf_div(&code->gf, 1, code->row_val[e]) << 24 | rank << 16 | loc;
}

/* The edge form's slots (CHIP_F_EDGE): each in its variable's block, where the variable phase
 * makes its permuted scalar accesses; the check phase reaches those of another block through
 * distributed shared memory, 128 bits at a time. A block's slots: those of its own rows first, in
 * row order (a warp's 8 rows then read consecutive slots), then the rest. Fills erank and eloc
 * (block and place of every edge's slot), the blocks' counts ecnt and the rows' slot words
 * (row_slots, 4 a row in the plan's row order, CHIP_SLOT_NONE past the row's end). */
static int chip_place_by_var(const struct nbldpc_code *code, const uint32_t *rrank,
                             const uint32_t *vrank, uint32_t *erank, uint32_t *eloc,
                             uint32_t *ecnt, struct nbgpu_chip_plan *p)
{
	if (code->max_row_deg > 4)
		return -FEC_ENOTSUP;
	p->row_slots = (uint32_t *)malloc(((size_t)code->m * 4 + 1) * sizeof(uint32_t));
	if (!p->row_slots)
		return -FEC_ENOMEM;
	for (unsigned k = 0; k < p->c; k++)
		ecnt[k] = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < code->m; i++) {
			const uint32_t r = p->row[i];

			for (uint32_t e = code->row_start[r]; e < code->row_start[r + 1]; e++) {
				const uint32_t k = vrank[code->row_col[e]];

				if ((k == rrank[r]) != (pass == 0))
					continue;
				erank[e] = k;
				eloc[e] = ecnt[k]++;
			}
		}
	p->row_words = 4;
	for (uint32_t i = 0; i < code->m; i++) {
		const uint32_t r = p->row[i], e0 = code->row_start[r];

		for (uint32_t j = 0; j < 4; j++)
			p->row_slots[4 * i + j] =
			    e0 + j < code->row_start[r + 1]
			        ? chip_slot_word(code, e0 + j, erank[e0 + j], eloc[e0 + j])
			        : CHIP_SLOT_NONE;
	}
	return 0;
}

/* Euler orientation of a multigraph whose vertices all have even degree (Hierholzer, one circuit
 * a component): dir[i] = 1 where edge i (a[i] - b[i]) is walked from b to a. On a bipartite graph
 * the walk alternates sides, so the edges walked from one side are half of each vertex's: an
 * Euler split. adj: CSR scratch (nv + 1 + 2 ne), stk: ne + 1 words, used: ne bytes. */
static void chip_euler(uint32_t nv, uint32_t ne, const uint32_t *a, const uint32_t *b,
                       const uint8_t *take, uint8_t *dir, uint32_t *adj, uint32_t *stk,
                       uint8_t *used)
{
	uint32_t *start = adj, *list = adj + nv + 1;

	memset(start, 0, (nv + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < ne; i++)
		if (take[i]) {
			start[a[i] + 1]++;
			start[b[i] + 1]++;
		}
	for (uint32_t v = 0; v < nv; v++)
		start[v + 1] += start[v];
	for (uint32_t i = 0; i < ne; i++)
		if (take[i]) {
			list[start[a[i]]++] = i;
			list[start[b[i]]++] = i;
		}
	for (uint32_t v = nv; v > 0; v--)
		start[v] = start[v - 1];
	start[0] = 0;
	memset(used, 0, ne);
	for (uint32_t v0 = 0; v0 < nv; v0++) {
		uint32_t top = 0, v = v0;

		/* walk from v0 until stuck (back at v0), leaving each vertex by an unused edge; the
		 * vertices with unused edges left resume from the stack: the walk's direction is
		 * all that is kept, and every edge is walked once */
		stk[top++] = v0;
		while (top > 0) {
			v = stk[top - 1];
			while (start[v] < start[v + 1] && used[list[start[v]]])
				start[v]++;
			if (start[v] == start[v + 1]) {
				top--;
				continue;
			}
			{
				const uint32_t i = list[start[v]++];

				used[i] = 1;
				dir[i] = a[i] != v; /* walked from b */
				stk[top++] = a[i] == v ? b[i] : a[i];
			}
		}
	}
}

/* The fused form's slot swizzles (chip_rows_fused): a warp's quarter (8 lanes: 2 rows, one vertex
 * qw here) reads 8 slots at a time, its lanes' own in even iterations and their partners' (the
 * pair's other slot) in odd ones; a slot's 16-byte chunks are swizzled by its 3 bits, so 8 slots
 * of distinct swizzles meet 8 bank groups. A pair's slots take 2 c and 2 c + 1 (a colour c of 4,
 * its tail edge the first): then a quarter whose pairs have each colour once as tail and once as
 * head is clean in both parities. Such colours exist (Petersen: an 8-regular multigraph, the
 * quarters joined by the pairs and padded, splits into 4 2-factors): an Euler orientation gives
 * each vertex 4 tails and 4 heads, and two Euler splits of the bipartite graph tails x heads give
 * 4 perfect matchings. Fills swz[e] for every edge. */
static int chip_pair_colours(const struct nbldpc_code *code, uint32_t nq, const uint32_t *qw,
                             uint8_t *swz)
{
	const uint32_t n = code->n, ne = n + 4 * nq + 1; /* pairs, then padding */
	uint32_t *a = (uint32_t *)malloc(ne * sizeof(uint32_t));
	uint32_t *b = (uint32_t *)malloc(ne * sizeof(uint32_t));
	uint32_t *deg = (uint32_t *)calloc((size_t)nq + 1, sizeof(uint32_t));
	uint32_t *adj =
	    (uint32_t *)malloc((2 * (size_t)nq + 1 + 2 * (size_t)ne) * sizeof(uint32_t));
	uint32_t *stk = (uint32_t *)malloc((ne + 1) * sizeof(uint32_t));
	uint8_t *dir = (uint8_t *)calloc(ne, 1), *c1 = (uint8_t *)calloc(ne, 1);
	uint8_t *c2 = (uint8_t *)calloc(ne, 1), *take = (uint8_t *)malloc(ne);
	uint8_t *used = (uint8_t *)malloc(ne);
	uint32_t m = 0, odd = UINT32_MAX;
	int rc = -FEC_ENOMEM;

	if (!a || !b || !deg || !adj || !stk || !dir || !c1 || !c2 || !take || !used)
		goto out;
	for (uint32_t x = 0; x < n; x++) {
		a[m] = qw[code->col_edge[code->col_start[x]]];
		b[m] = qw[code->col_edge[code->col_start[x] + 1]];
		deg[a[m]]++;
		deg[b[m]]++;
		m++;
	}
	/* padding to degree 8: odd deficits joined in pairs, then loops */
	for (uint32_t v = 0; v < nq; v++)
		if ((8 - deg[v]) & 1) {
			if (odd == UINT32_MAX) {
				odd = v;
			} else {
				a[m] = odd;
				b[m++] = v;
				deg[odd]++;
				deg[v]++;
				odd = UINT32_MAX;
			}
		}
	for (uint32_t v = 0; v < nq; v++)
		while (deg[v] < 8) {
			a[m] = b[m] = v;
			m++;
			deg[v] += 2;
		}
	rc = -FEC_ENOTSUP;
	for (uint32_t v = 0; v < nq; v++)
		if (deg[v] != 8)
			goto out;
	memset(take, 1, m);
	chip_euler(nq, m, a, b, take, dir, adj, stk, used);
	/* tails x heads: tail t at t, head h at nq + h */
	for (uint32_t i = 0; i < m; i++) {
		const uint32_t t = dir[i] ? b[i] : a[i], h = dir[i] ? a[i] : b[i];

		a[i] = t;
		b[i] = nq + h;
	}
	chip_euler(2 * nq, m, a, b, take, c1, adj, stk, used);
	for (int k = 0; k < 2; k++) {
		for (uint32_t i = 0; i < m; i++)
			take[i] = c1[i] == k;
		chip_euler(2 * nq, m, a, b, take, c2, adj, stk, used);
	}
	/* edge 0 of column x: the tail of its pair (pair edge i = x), or the head */
	for (uint32_t x = 0; x < n; x++) {
		const uint32_t e0 = code->col_edge[code->col_start[x]];
		const uint32_t e1 = code->col_edge[code->col_start[x] + 1];
		const unsigned c = 2u * c1[x] + c2[x];
		const bool tail0 = !dir[x]; /* walked from edge 0's quarter */

		swz[e0] = (uint8_t)(2 * c + !tail0);
		swz[e1] = (uint8_t)(2 * c + tail0);
	}
	rc = 0;
out:
	free(a);
	free(b);
	free(deg);
	free(adj);
	free(stk);
	free(dir);
	free(c1);
	free(c2);
	free(take);
	free(used);
	return rc;
}

/* The fused form's slots and rows (CHIP_F_FUSE, nbldpc_gpu_fftbp_fused.cuh). Priors stay at
 * their edges' places in their rows' blocks (eloc). A column's two slots are a pair (2 i,
 * 2 i + 1) in its variable's block (vrank: its rows' block where both are in one, else the
 * host's, the block of the two with fewer hosts than guests so far, so that each block's pairs
 * and priors fit about evenly); their swizzles from chip_pair_colours. Fills eslot (block << 16
 * | place | swizzle << 20) and ekind per edge, and in the plan's row order 12 words a row: its
 * edges' first words (eloc | kind << 16 | 1 / h_a << 18 | h_a / h_b << 24, b the column's other
 * edge; CHIP_SLOT_NONE past the row's end; q <= 64), their eslot, then their columns | h_a << 24
 * (0 past the row's end: the priors' input and the syndrome without reads of device memory). */
static int chip_rows_fused(const struct nbldpc_code *code, const uint32_t *erank,
                           const uint32_t *vrank, const uint32_t *eloc, uint32_t *eslot,
                           uint32_t *ekind, struct nbgpu_chip_plan *p)
{
	const uint32_t nqb = p->rmax / 2 + 1, nq = p->c * nqb; /* quarters a block, in all */
	uint32_t np[CHIP_MAX_C] = {0};                         /* pairs */
	uint32_t *qw = (uint32_t *)malloc(((size_t)code->nnz + 1) * sizeof(uint32_t));
	uint8_t *swz = (uint8_t *)malloc((size_t)code->nnz + 1);
	int rc = -FEC_ENOMEM;

	if (!qw || !swz)
		goto out;
	rc = -FEC_ENOTSUP;
	if (code->max_row_deg > 4 || code->n > 0xffffffu) /* columns in 24 bits */
		goto out;
	for (unsigned k = 0; k < p->c; k++)
		for (uint32_t i = p->row_start[k]; i < p->row_start[k + 1]; i++)
			for (uint32_t e = code->row_start[p->row[i]];
			     e < code->row_start[p->row[i] + 1]; e++)
				qw[e] = k * nqb + (i - p->row_start[k]) / 2;
	rc = chip_pair_colours(code, nq, qw, swz);
	if (rc)
		goto out;
	for (uint32_t x = 0; x < code->n; x++) {
		const uint32_t e0 = code->col_edge[code->col_start[x]];
		const uint32_t e1 = code->col_edge[code->col_start[x] + 1];
		const uint32_t a = erank[e0], b = erank[e1];
		const uint32_t h = vrank[x]; /* the pair's block */
		const uint32_t i = np[h]++;

		if (a == b) {
			ekind[e0] = ekind[e1] = CHIP_FU_IN;
		} else {
			ekind[e0] = h == a ? CHIP_FU_HOST : CHIP_FU_GUEST;
			ekind[e1] = h == b ? CHIP_FU_HOST : CHIP_FU_GUEST;
		}
		eslot[e0] = h << 16 | 2 * i | (uint32_t)swz[e0] << 20;
		eslot[e1] = h << 16 | (2 * i + 1) | (uint32_t)swz[e1] << 20;
	}
	for (unsigned k = 0; k < p->c; k++)
		p->pmax = np[k] > p->pmax ? np[k] : p->pmax;
	if (2 * p->pmax > 0xffffu)
		goto out;
	rc = -FEC_ENOMEM;
	p->row_slots = (uint32_t *)malloc(((size_t)code->m * 12 + 1) * sizeof(uint32_t));
	if (!p->row_slots)
		goto out;
	p->row_words = 12;
	for (uint32_t i = 0; i < code->m; i++) {
		const uint32_t r = p->row[i], e0 = code->row_start[r];

		for (uint32_t j = 0; j < 4; j++) {
			const uint32_t e = e0 + j;
			uint32_t own = CHIP_SLOT_NONE, slot = 0;

			if (e < code->row_start[r + 1]) {
				const uint32_t x = code->row_col[e], k = code->col_start[x];
				const uint32_t o = code->col_edge[k] == e ? code->col_edge[k + 1]
				                                          : code->col_edge[k];

				own = eloc[e] | ekind[e] << 16 |
				      (uint32_t)nbldpc_gf_div(&code->gf, 1, code->row_val[e])
				          << 18 |
				      (uint32_t)nbldpc_gf_div(&code->gf, code->row_val[e],
				                              code->row_val[o])
				          << 24;
				slot = eslot[e];
			}
			p->row_slots[12 * i + j] = own;
			p->row_slots[12 * i + 4 + j] = slot;
			p->row_slots[12 * i + 8 + j] =
			    e < code->row_start[r + 1]
			        ? code->row_col[e] | (uint32_t)code->row_val[e] << 24
			        : 0;
		}
	}
	rc = 0;
out:
	free(qw);
	free(swz);
	return rc;
}

/* The fused form's word of a column's slot pair: its block << 16 | edge 0's slot, bit 22 / 23:
 * edge 0 / 1 the guest, edge 0's swizzle << 24 (chip_fu_app). */
static uint32_t chip_pair_word(const uint32_t *eslot, const uint32_t *ekind, uint32_t e0,
                               uint32_t e1)
{
	return (eslot[e0] & 0x000fffffu) | (uint32_t)(ekind[e0] == CHIP_FU_GUEST) << 22 |
	       (uint32_t)(ekind[e1] == CHIP_FU_GUEST) << 23 | (eslot[e0] >> 20 & 7u) << 24;
}

int nbgpu_chip_plan_make(const struct nbldpc_code *code, unsigned q, unsigned cs, bool part,
                         int f, struct nbgpu_chip_plan *p)
{
	const bool fu = (f & CHIP_F_FUSE) != 0;
	const uint32_t n = code->n, m = code->m;
	uint32_t *erow = (uint32_t *)malloc(((size_t)code->nnz + 1) * sizeof(uint32_t));
	uint32_t *erank = (uint32_t *)malloc(((size_t)code->nnz + 1) * sizeof(uint32_t));
	uint32_t *eloc = (uint32_t *)malloc(((size_t)code->nnz + 1) * sizeof(uint32_t));
	uint32_t *vrank = (uint32_t *)malloc(((size_t)n + 1) * sizeof(uint32_t));
	uint32_t *rrank = (uint32_t *)malloc(((size_t)m + 1) * sizeof(uint32_t));
	uint32_t *tmp = (uint32_t *)malloc(((size_t)m + 1) * (CHIP_MAX_D + 2) * sizeof(uint32_t));
	uint32_t cnt[CHIP_MAX_C] = {0}, ecnt[CHIP_MAX_C] = {0};
	uint32_t *eslot = NULL, *ekind = NULL; /* the fused form's */
	int32_t bal[CHIP_MAX_C] = {0};         /* the fused form's hosts less guests */
	int rc = -FEC_ENOMEM;

	memset(p, 0, sizeof(*p));
	p->c = cs;
	p->var = (uint32_t *)malloc(((size_t)n + 1) * sizeof(uint32_t));
	p->var_start = (uint32_t *)calloc(cs + 1, sizeof(uint32_t));
	p->var_nloc = (uint32_t *)calloc(cs + 1, sizeof(uint32_t));
	p->slot = (uint32_t *)malloc((2 * (size_t)n + 1) * sizeof(uint32_t));
	p->pos = (uint32_t *)malloc(((size_t)n + 1) * sizeof(uint32_t));
	p->row = (uint32_t *)malloc(((size_t)m + 1) * sizeof(uint32_t));
	p->row_start = (uint32_t *)calloc(cs + 1, sizeof(uint32_t));
	p->row_nint = (uint32_t *)calloc(cs + 1, sizeof(uint32_t));
	p->row_slot = (uint32_t *)malloc(((size_t)m + 1) * sizeof(uint32_t));
	if (!erow || !erank || !eloc || !vrank || !rrank || !tmp || !p->var || !p->var_start ||
	    !p->var_nloc || !p->slot || !p->pos || !p->row || !p->row_start || !p->row_nint ||
	    !p->row_slot)
		goto out;
	rc = -FEC_ENOTSUP;
	if (cs < 1 || cs > CHIP_MAX_C || m < cs || code->max_row_deg > CHIP_MAX_D)
		goto out;
	for (uint32_t x = 0; x < n; x++)
		if (code->col_start[x + 1] - code->col_start[x] != 2)
			goto out;
	for (uint32_t r = 0; r < m; r++)
		for (uint32_t e = code->row_start[r]; e < code->row_start[r + 1]; e++)
			erow[e] = r;
	/* the rows of each block: partitioned, or m / C in order */
	if (part && cs > 1)
		chip_partition(code, erow, cs, rrank, tmp, tmp + m);
	else
		for (uint32_t r = 0; r < m; r++)
			rrank[r] = (uint32_t)((uint64_t)r * cs / m);
	for (uint32_t r = 0; r < m; r++)
		p->row_start[rrank[r] + 1]++;
	for (uint32_t k = 0; k < cs; k++) {
		p->row_start[k + 1] += p->row_start[k];
		p->rmax = p->row_start[k + 1] - p->row_start[k] > p->rmax
		              ? p->row_start[k + 1] - p->row_start[k]
		              : p->rmax;
	}
	for (uint32_t e = 0; e < code->nnz; e++)
		erank[e] = rrank[erow[e]];
	/* each variable to the block of one of its edges, the one with fewer variables so far;
	 * the fused form: the block of its slot pair, its rows' block where both are in one, else
	 * the one of the two with fewer hosts than guests so far (chip_rows_fused), so that its
	 * decision reads local slots */
	for (uint32_t x = 0; x < n; x++) {
		const uint32_t a = erank[code->col_edge[code->col_start[x]]];
		const uint32_t b = erank[code->col_edge[code->col_start[x] + 1]];

		if (fu) {
			vrank[x] = a == b || bal[a] <= bal[b] ? a : b;
			if (a != b) {
				bal[vrank[x]]++;
				bal[vrank[x] == a ? b : a]--;
			}
		} else {
			vrank[x] = cnt[b] < cnt[a] ? b : a;
		}
		cnt[vrank[x]]++;
	}
	for (uint32_t k = 0; k < cs; k++) {
		p->var_start[k + 1] = p->var_start[k] + cnt[k];
		p->vmax = cnt[k] > p->vmax ? cnt[k] : p->vmax;
		cnt[k] = 0;
	}
	/* a block's rows: those only its own variables write first (the kernel checks them
	 * before the other blocks are done), each row's slots after the last row's */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t r = 0; r < m; r++) {
			const uint32_t k = rrank[r];
			uint32_t i;

			if (chip_row_interior(code, vrank, rrank, r) != (pass == 0))
				continue;
			i = p->row_start[k] + cnt[k]++;
			p->row[i] = r;
			p->row_slot[i] = ecnt[k];
			p->row_nint[k] += pass == 0;
			for (uint32_t e = code->row_start[r]; e < code->row_start[r + 1]; e++)
				eloc[e] = ecnt[k]++;
		}
	if (fu) {
		rc = -FEC_ENOMEM;
		eslot = (uint32_t *)malloc(((size_t)code->nnz + 1) * sizeof(uint32_t));
		ekind = (uint32_t *)malloc(((size_t)code->nnz + 1) * sizeof(uint32_t));
		p->pair = (uint32_t *)malloc(((size_t)n + 1) * sizeof(uint32_t));
		if (!eslot || !ekind || !p->pair)
			goto out;
		rc = chip_rows_fused(code, erank, vrank, eloc, eslot, ekind, p);
		if (rc)
			goto out;
		rc = -FEC_ENOTSUP;
	} else if (f & CHIP_F_EDGE) {
		rc = chip_place_by_var(code, rrank, vrank, erank, eloc, ecnt, p);
		if (rc)
			goto out;
		rc = -FEC_ENOTSUP;
	}
	for (uint32_t k = 0; k < cs; k++) {
		if (ecnt[k] > 0xffffu)
			goto out;
		p->emax = ecnt[k] > p->emax ? ecnt[k] : p->emax;
		cnt[k] = 0;
	}
	/* a block's variables: those whose two slots are both in it first (the kernel updates
	 * them while the other blocks finish their checks) */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t x = 0; x < n; x++) {
			const uint32_t k = vrank[x];
			const uint32_t e0 = code->col_edge[code->col_start[x]];
			const uint32_t e1 = code->col_edge[code->col_start[x] + 1];
			const bool local = erank[e0] == k && erank[e1] == k;
			uint32_t j, ps;

			if (local != (pass == 0))
				continue;
			j = cnt[k]++;
			ps = p->var_start[k] + j;
			p->var_nloc[k] += local;
			p->var[ps] = x;
			p->pos[x] = k << 16 | j;
			p->slot[2 * ps] = chip_slot_word(code, e0, erank[e0], eloc[e0]);
			p->slot[2 * ps + 1] = chip_slot_word(code, e1, erank[e1], eloc[e1]);
			if (fu)
				p->pair[ps] = chip_pair_word(eslot, ekind, e0, e1);
			p->remote += (erank[e0] != k) + (erank[e1] != k);
		}
	if ((f & CHIP_F_EDGE) && !fu) /* the slots in another block than their row's */
		for (uint32_t e = 0; e < code->nnz; e++)
			p->remote += erank[e] != rrank[erow[e]];
	if (p->vmax > 0xffffu)
		goto out;
	/* the fused form: 2 pmax slots (and 256 bytes to align them) */
	p->smem = chip_layout_of(n, q, p->vmax, p->rmax, p->emax, fu).msg +
	          (size_t)(fu ? 2 * p->pmax : p->emax) * (unsigned)chip_slot_floats((int)q, f) * 4 +
	          (fu ? 256 : 0);
	rc = 0;
out:
	free(eslot);
	free(ekind);
	free(erow);
	free(erank);
	free(eloc);
	free(vrank);
	free(rrank);
	free(tmp);
	if (rc)
		nbgpu_chip_plan_free(p);
	return rc;
}

typedef void (*chip_kernel_t)(const struct nbgpu_code, const struct gpu_batch);

/* The kernels built: every q with its default values a lane (nbgpu_chip_default_v), rows of up
 * to 4 and (q <= 128) 8 edges; q = 64 also with 2 and 8 values a lane, rows of 4; for q = 64, 4
 * values a lane, rows of 4 also the variants (flags f, CHIP_F_) without one of the default's
 * levers, without all three, with the split barrier and with .aligned cluster barriers; the
 * others are the default. */
static chip_kernel_t chip_kernel(unsigned q, int v, int d, int f)
{
	if (f & CHIP_F_EDGE) { /* the edge and fused forms (V: their groups' values a lane) */
		if (q != 64 || v != 4 || d != 4)
			return NULL;
		return f == (CHIP_F_ALL | CHIP_F_EDGE)
		           ? nbldpc_fftbp_chip_kernel<64, 4, 4, CHIP_F_ALL | CHIP_F_EDGE>
		       : f == (CHIP_F_ALL | CHIP_F_EDGE | CHIP_F_FUSE)
		           ? nbldpc_fftbp_chip_kernel<64, 4, 4,
		                                      CHIP_F_ALL | CHIP_F_EDGE | CHIP_F_FUSE>
		           : NULL;
	}
	if (f != CHIP_F_ALL) {
		if (q != 64 || v != 4 || d != 4)
			return NULL;
		switch (f) {
		case 0:
			return nbldpc_fftbp_chip_kernel<64, 4, 4, 0>;
		case CHIP_F_ALL & ~CHIP_F_TAB:
			return nbldpc_fftbp_chip_kernel<64, 4, 4, CHIP_F_ALL & ~CHIP_F_TAB>;
		case CHIP_F_ALL & ~CHIP_F_BAR:
			return nbldpc_fftbp_chip_kernel<64, 4, 4, CHIP_F_ALL & ~CHIP_F_BAR>;
		case CHIP_F_ALL & ~CHIP_F_FULL:
			return nbldpc_fftbp_chip_kernel<64, 4, 4, CHIP_F_ALL & ~CHIP_F_FULL>;
		case CHIP_F_ALL | CHIP_F_SPLIT:
			return nbldpc_fftbp_chip_kernel<64, 4, 4, CHIP_F_ALL | CHIP_F_SPLIT>;
		case CHIP_F_ALL | CHIP_F_ALIGN:
			return nbldpc_fftbp_chip_kernel<64, 4, 4, CHIP_F_ALL | CHIP_F_ALIGN>;
		}
		return NULL;
	}
#define K(Q, V)                                                                                    \
	if (q == Q && v == V)                                                                      \
		return d == 4 ? nbldpc_fftbp_chip_kernel<Q, V, 4, CHIP_F_ALL>                      \
		              : nbldpc_fftbp_chip_kernel<Q, V, 8, CHIP_F_ALL>;
	K(2, 2)
	K(4, 4)
	K(8, 4)
	K(16, 4)
	K(32, 4)
	K(64, 4)
	K(128, 4)
#undef K
	if (q == 256 && v == 8 && d == 4)
		return nbldpc_fftbp_chip_kernel<256, 8, 4, CHIP_F_ALL>;
	if (q == 64 && v == 2 && d == 4)
		return nbldpc_fftbp_chip_kernel<64, 2, 4, CHIP_F_ALL>;
	if (q == 64 && v == 8 && d == 4)
		return nbldpc_fftbp_chip_kernel<64, 8, 4, CHIP_F_ALL>;
	return NULL;
}

static int chip_d(const struct nbgpu_code *c);

/* ",s0" in FECD_FFTBP_KERNEL's options: the code's tables read from device memory (not
 * staged); ",b0": cluster barriers where C = 1 (not BAR); ",d0": per-edge degree tests (not
 * FULL); ",old": all three, the kernel before the variants; ",split": the split cluster barrier
 * where C > 1 (SPLIT); ",al": .aligned cluster barriers (ALIGN). Without any of them, the edge
 * form (EDGE) where it exists (q = 64, v = 4 values a lane in the variable phase, rows of at most
 * 4), unless ",e0" asks for the group form, and there the fused form (FUSE) unless ",f0" asks
 * for the edge form's two phases. */
int nbgpu_chip_flags(const struct nbgpu_code *c, int v, const char *opt)
{
	int f;

	if (strstr(opt, ",old"))
		return 0;
	f = (strstr(opt, ",s0") ? 0 : CHIP_F_TAB) | (strstr(opt, ",b0") ? 0 : CHIP_F_BAR) |
	    (strstr(opt, ",d0") ? 0 : CHIP_F_FULL) | (strstr(opt, ",split") ? CHIP_F_SPLIT : 0) |
	    (strstr(opt, ",al") ? CHIP_F_ALIGN : 0);
	if (f == CHIP_F_ALL && !strstr(opt, ",e0") && c->q == 64 && v == 4 && chip_d(c) == 4)
		f |= CHIP_F_EDGE | (strstr(opt, ",f0") ? 0 : CHIP_F_FUSE);
	return f;
}

int nbgpu_chip_default_v(unsigned q)
{
	return q <= 4 ? (int)q : q >= 256 ? 8 : 4;
}

static int chip_d(const struct nbgpu_code *c)
{
	return c->max_row_deg <= 4 ? 4 : c->max_row_deg <= 8 ? 8 : 0;
}

bool nbgpu_chip_takes(const struct nbgpu_code *c)
{
	return c->algo == NBLDPC_ALGO_FFTBP && !c->log && c->max_col_deg == 2 && c->max_iters > 0 &&
	       chip_kernel(c->q, nbgpu_chip_default_v(c->q), chip_d(c), CHIP_F_ALL) != NULL;
}

static cudaLaunchConfig_t chip_config(int grid, int threads, size_t smem, cudaStream_t s,
                                      cudaLaunchAttribute *attr, unsigned cs)
{
	cudaLaunchConfig_t cfg = {};

	cfg.gridDim = dim3((unsigned)grid, 1, 1);
	cfg.blockDim = dim3((unsigned)threads, 1, 1);
	cfg.dynamicSmemBytes = smem;
	cfg.stream = s;
	attr->id = cudaLaunchAttributeClusterDimension;
	attr->val.clusterDim.x = cs;
	attr->val.clusterDim.y = 1;
	attr->val.clusterDim.z = 1;
	cfg.attrs = attr;
	cfg.numAttrs = 1;
	return cfg;
}

int nbgpu_fftbp_chip_prepare(const struct nbgpu_code *c, const struct fecd_cuda_device *dev,
                             const struct nbgpu_chip_plan *p, int v, int f, struct nbgpu_shape *sh,
                             bool *ok)
{
	const chip_kernel_t k = chip_kernel(c->q, v, chip_d(c), f);
	const size_t smem_max =
	    dev->smem_per_block_optin ? dev->smem_per_block_optin : (size_t)48 << 10;
	const char *env = getenv("FECD_FFTBP_KERNEL");
	const char *et = env ? strstr(env, ",t") : NULL;
	const int d = chip_d(c);
	struct cudaFuncAttributes fa;
	cudaLaunchAttribute attr;
	cudaLaunchConfig_t cfg;
	int clusters = 0, threads;
	cudaError_t e;

	*ok = false;
	if (!k || p->smem > smem_max || dev->cc_major < 9)
		return (int)cudaSuccess;
	e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p->smem);
	if (e == cudaSuccess && p->c > 8)
		e = cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
	if (e == cudaSuccess)
		e = cudaFuncGetAttributes(&fa, k);
	if (e != cudaSuccess)
		return (int)e;
	/* warps a block: as many as the registers allow (allocated 8 a thread at a time), up to
	 * the kernel's bound; ",t<N>" in FECD_FFTBP_KERNEL: N threads */
	threads = fa.maxThreadsPerBlock;
	if (dev->regs_per_sm > 0 && fa.numRegs > 0) {
		const int warps = dev->regs_per_sm / ((fa.numRegs + 7) / 8 * 8 * 32);

		threads = warps * 32 < threads ? warps * 32 : threads;
	}
	if (et) {
		const int t = atoi(et + 2) / 32 * 32;

		threads = t >= 32 && t <= threads ? t : threads;
	}
	if (threads < 32)
		return (int)cudaSuccess;
	cfg = chip_config((int)p->c, threads, p->smem, 0, &attr, p->c);
	/* a cluster size the device cannot hold is an error here: the kernel in device memory
	 * then decodes the code */
	if (cudaOccupancyMaxActiveClusters(&clusters, (void *)k, &cfg) != cudaSuccess) {
		(void)cudaGetLastError();
		return (int)cudaSuccess;
	}
	if (clusters < 1)
		return (int)cudaSuccess;
	sh->chip_c = (int)p->c;
	sh->chip_v = v;
	sh->chip_d = d;
	sh->chip_f = f;
	sh->threads = threads;
	sh->groups = threads / ((int)c->q / v);
	sh->smem = p->smem;
	sh->regs = fa.numRegs;
	sh->blocks_per_sm = 1;
	sh->grid = clusters * (int)p->c;
	sh->ws_per_frame = 0; /* everything a frame needs is on chip */
	*ok = true;
	return (int)cudaSuccess;
}

int nbgpu_fftbp_chip_launch(const struct nbgpu_code *c, const struct nbgpu_shape *sh,
                            const struct gpu_batch *b, cudaStream_t s)
{
	const chip_kernel_t k = chip_kernel(c->q, sh->chip_v, sh->chip_d, sh->chip_f);
	const uint32_t clusters = (uint32_t)(sh->grid / sh->chip_c);
	const uint32_t frames = b->count < clusters ? b->count : clusters;
	cudaLaunchAttribute attr;
	cudaLaunchConfig_t cfg;

	if (!k)
		return (int)cudaErrorInvalidValue;
	cfg = chip_config((int)(frames * (uint32_t)sh->chip_c), sh->threads, sh->smem, s, &attr,
	                  (unsigned)sh->chip_c);
	return (int)cudaLaunchKernelEx(&cfg, k, *c, *b);
}
