/*
 * The fast GPU Viterbi kernel: one thread per job, the whole trellis in registers, no exchange
 * between threads. Templates on K (3..8) and on the branch-metric shape (n = 2, n = 2 with a
 * symmetric trellis, n = 3..4); the code's polynomials stay run-time data (PRMT selectors).
 *
 * Path metrics are 16-bit, two states per 32-bit register (N/2 registers), stored offset by
 * 32768 so that a plain 32-bit add of two packed values never carries between the halves: each
 * half stays within 0..65535 (VITERBI_GPU.md has the bounds). Branch metrics carry +512 so they
 * are never negative either: every candidate then gains the same 512 per stage, which changes no
 * comparison and is taken back out of job.metric. Per output register and stage:
 *   X = P + MX, Y = Q + MY       (P, Q: the two predecessor registers; MX, MY: one PRMT each
 *                                 from the stage's table of 2^n branch metrics)
 *   new = VIMNMX.U16x2(X, Y)      (ties keep X: the lower predecessor, as the CPU decoder)
 *   Z = X - Y + 0x80008000        (bit 15 / 31 set iff X >= Y, i.e. decision 0)
 * and a PRMT in sign-replicate mode plus a LOP3 pack the Z signs of two registers into bits.
 * The register layout rotates so that no state moves between halves for K-2 stages: at phase x a
 * register holds the two states that differ only in bit x; a stage takes phase x to x-1, and one
 * PRMT per register takes phase 0 back to K-2. Decisions go to global memory as [row][job]
 * vectors (coalesced); the same thread traces back right after its forward pass, prefetching
 * rows (their addresses do not depend on the state) and finding a state's bit in a row through
 * a small shared-memory table indexed by layout phase and state.
 * The 171/133 family (KIND_STD7) has more instances (OPT_*: whole cycles, compile-time symbol
 * fetch, DPX add+max, aligned word loads of a cycle's symbols); VITERBI_GPU.md has the figures.
 */
#include <stdlib.h>
#include <string.h>

#include "viterbi_gpu_fast.cuh"
#include "viterbi_gpu_pack.cuh"

#define FAST_BIAS    512u   /* added to every branch metric */
#define FAST_ZERO    32768u /* the offset of a metric */
#define FAST_UNREACH 16384u /* start value of states other than 0 when the start is known */

enum { KIND_N2 = 0, KIND_N2_SYM = 1, KIND_WIDE = 2, KIND_STD7 = 3 };

/* Instance options (KIND_STD7 gets all; the other kinds only OPT_FULL):
 * OPT_FULL: whole cycles of K-2 stages with no per-stage end test; the end is a tail cycle.
 * OPT_S8 / OPT_S4: unpunctured n = 2 with int8 / packed 4-bit input chosen at compile time:
 *   the stage's symbols come straight from stage t's bytes (no puncturing pattern, no run-time
 *   expansion choice).
 * OPT_DPX: nm = VIADDMNMX(Q, MY, X) (add and max in one DPX instruction), and the decision is
 *   Z = nm - X + 0x7fff7fff (bit 15 / 31 set iff Y > X: decision 1), one add fewer per register. */
enum { OPT_FULL = 1, OPT_S8 = 2, OPT_S4 = 4, OPT_DPX = 8, OPT_VEC = 16 };

/* OPT_VEC (with OPT_S8 / OPT_S4, K = 7, 4-byte aligned slots): a whole cycle's symbols (10 or 5
 * bytes) come from 3 or 2 aligned 32-bit loads and funnel shifts instead of one or two byte loads
 * per stage: each load of 32 jobs' bytes costs the L1 32 sectors whatever its width, so the
 * count of loads, not bytes, is what the forward pass pays there.
 * Host flag (never a template option): FAST_NOBAL turns off the balanced launch shape
 * (vgpu_fast_launch); measurements only. */
#define FAST_NOBAL 256
/* Host flags too: FAST_NOMIX: every warp traces back at once (no lagging odd warps);
 * FAST_THIN: at most 64 threads in the grid, so that any batch over 64 jobs runs several jobs per
 * thread in both warp orders (test_gpu_viterbi covers that path with it). Neither changes the
 * output. */
#define FAST_NOMIX 512
#define FAST_THIN  1024

/* ---- State layout: at phase x, register r holds states ins0(r, x) and ins0(r, x) | 1 << x. */

__host__ __device__ constexpr uint32_t ins0(uint32_t r, int x)
{
	return ((r >> x) << (x + 1)) | (r & ((1u << x) - 1));
}

__host__ __device__ constexpr uint32_t rem_bit(uint32_t s, int x)
{
	return ((s >> (x + 1)) << x) | (s & ((1u << x) - 1));
}

/* PRMT selector taking halves w_lo and w_hi of the table (entry w: bytes 2w, 2w+1). */
__host__ __device__ constexpr uint32_t half_sel(uint32_t w_lo, uint32_t w_hi)
{
	return (2 * w_lo) | (2 * w_lo + 1) << 4 | (2 * w_hi) << 8 | (2 * w_hi + 1) << 12;
}

/* ---- KIND_STD7: K = 7, n = 2 codes whose words are those of 171/133 up to the order of the
 * outputs and their inversion (CCSDS, NASA-DSN, Voyager, DVB-S, 802.11, LTE's rate 1/2 mother
 * code...). The selectors are compile-time constants (PRMT immediates, no constant-bank loads)
 * and equal ones are shared; the order and inversion become a 2x2 signed matrix on the symbols
 * (vgpu_sel.ymat). */
__host__ __device__ constexpr uint32_t std7_parity(uint32_t x)
{
	x ^= x >> 4;
	x ^= x >> 2;
	x ^= x >> 1;
	return x & 1u;
}

__host__ __device__ constexpr uint32_t std7_word(uint32_t reg)
{
	return std7_parity(reg & 0171u) | std7_parity(reg & 0133u) << 1;
}

/* Selector of register r, candidate q (0: from P, 1: from Q) for the stage from phase x. */
__host__ __device__ constexpr uint32_t std7_sel(int x, uint32_t r, uint32_t q)
{
	return half_sel(
	    std7_word((((ins0(r, x - 1) << 1) & 127u) | (ins0(r, x - 1) >> 5) << 6) | q),
	    std7_word((((ins0(r, x - 1) << 1) & 63u) | 1u << x | (ins0(r, x - 1) >> 5) << 6) | q));
}

/* Everything of a job's forward pass but the metrics. */
struct fwd {
	const uint8_t *slot;
	uint32_t t, total, head, pos, step, count, job;
	long long sub; /* renormalisation amounts taken out */
	bool s4;
	/* OPT_VEC: the cycle's symbol bytes, stage j's at byte 2j (s8) or j (s4). */
	uint32_t win[3];
};

/* ---- Kernel pieces */

/* The 4-bit symbol in bits 28..31 of v, expanded as codec/softbits.c does. */
__device__ __forceinline__ int32_t s4_top(uint32_t v)
{
	const int32_t x = (int32_t)v >> 28;

	return (x < -7 ? -7 : x) * 18;
}

template <int K, int KIND, int OPT, int X, bool WIN>
__device__ __forceinline__ void acs_stage(uint32_t (&m)[1 << (K - 2)], const struct vgpu_code &code,
                                          const struct vgpu_sel &sel, struct fwd &f, void *dec)
{
	constexpr int R = 1 << (K - 2), N = 1 << (K - 1), Y = X - 1, W = (R + 15) / 16;
	constexpr int RS = KIND == KIND_N2_SYM ? R / 2 : R;
	const uint32_t sent = (OPT & (OPT_S8 | OPT_S4)) ? 3u : code.sent[f.step];
	int32_t y[4] = {0, 0, 0, 0};
	uint32_t t0, t1, ta0 = 0, ta1 = 0;

	if (WIN && (OPT & OPT_S8)) {
		constexpr int j = K - 2 - X, w = 2 * j / 4, sh = 8 * (2 * j % 4);

		y[0] = (int32_t)(f.win[w] << (24 - sh)) >> 24;
		y[1] = (int32_t)(f.win[w] << (16 - sh)) >> 24;
	} else if (WIN && (OPT & OPT_S4)) {
		constexpr int j = K - 2 - X;
		const uint32_t byte = f.win[j / 4] >> (8 * (j % 4));

		y[0] = s4_top(byte << 24);
		y[1] = s4_top(byte << 28);
	} else if (OPT & OPT_S8) {
		y[0] = (int8_t)f.slot[2 * f.t];
		y[1] = (int8_t)f.slot[2 * f.t + 1];
	} else if (OPT & OPT_S4) {
		const uint32_t byte = f.slot[f.t];

		y[0] = s4_top(byte << 24);
		y[1] = s4_top(byte << 28);
	} else {
#pragma unroll
		for (int r = 0; r < (KIND == KIND_WIDE ? 4 : 2); r++)
			if (r < (int)code.n && (sent >> r & 1u))
				y[r] = vgpu_symbol_rt(f.slot, f.pos++, f.s4);
	}
	if (KIND == KIND_STD7) {
		const int32_t y0 = y[0], y1 = y[1];

		y[0] = y0 * sel.ymat[0] + y1 * sel.ymat[1];
		y[1] = y0 * sel.ymat[2] + y1 * sel.ymat[3];
	}
	{
		/* Biased so every entry is >= 0 and packs without borrows. */
		const uint32_t bias = KIND == KIND_WIDE ? FAST_BIAS / 2 : FAST_BIAS;
		const uint32_t a = bias + y[0] + y[1], bq = bias - y[0] + y[1];
		const uint32_t c = bias + y[0] - y[1], d = bias - y[0] - y[1];

		t0 = a | bq << 16;
		t1 = c | d << 16;
		if (KIND == KIND_WIDE) {
			const uint32_t e = bias + y[2] + y[3], g = bias - y[2] + y[3];
			const uint32_t h = bias + y[2] - y[3], k = bias - y[2] - y[3];

			ta0 = e | g << 16;
			ta1 = h | k << 16;
		}
	}
	uint32_t nm[R], z[R];

#pragma unroll
	for (int r = 0; r < R; r++) {
		constexpr int dummy = 0;
		const uint32_t j = ins0(r, Y);
		const uint32_t p0 = (j << 1) & (N - 1);
		const uint32_t P = m[rem_bit(p0, X)], Q = m[rem_bit(p0 | 1, X)];
		const int rs = r % RS;
		const bool swap = KIND == KIND_N2_SYM && r >= RS;
		/* prmt, not __byte_perm: the selectors are valid as they are, and masking them
		 * would cost an instruction each. */
		uint32_t mx, my;

		if (KIND == KIND_STD7) {
			mx = __byte_perm(t0, t1, std7_sel(X, (uint32_t)r, 0));
			my = __byte_perm(t0, t1, std7_sel(X, (uint32_t)r, 1));
		} else {
			mx = prmt(t0, t1, sel.s[X - 1][rs][swap ? 1 : 0][0]);
			my = prmt(t0, t1, sel.s[X - 1][rs][swap ? 0 : 1][0]);
		}
		(void)dummy;
		if (KIND == KIND_WIDE) {
			mx += prmt(ta0, ta1, sel.s[X - 1][r][0][1]);
			my += prmt(ta0, ta1, sel.s[X - 1][r][1][1]);
		}
		const uint32_t cx = P + mx;

		if (OPT & OPT_DPX) {
			/* max(Q + MY, X): equal values either way, so ties cannot matter here; Z
			 * says Y > X strictly (nm >= X per half, so no borrow crosses halves). */
			nm[r] = __viaddmax_u16x2(Q, my, cx);
			z[r] = nm[r] - cx + 0x7fff7fffu;
		} else {
			const uint32_t cy = Q + my;

			nm[r] = __vmaxu2(cx, cy);
			z[r] = cx - cy + 0x80008000u;
		}
	}
	if (f.t >= f.head) {
		uint32_t dw[W];

#pragma unroll
		for (int w = 0; w < W; w++)
			dw[w] = 0;
#pragma unroll
		for (int r = 0; r < R; r += 2) {
			const uint32_t g = prmt(z[r], z[r + 1], 0xFDB9u);

			dw[r / 16] |= g & (0x01010101u << ((r & 15) >> 1));
		}
		typedef typename dec_vec<W>::type vec;
		vec v;

		vec_set(&v, dw);
		((vec *)dec)[(size_t)(f.t - f.head) * f.count + f.job] = v;
	}
#pragma unroll
	for (int r = 0; r < R; r++)
		m[r] = nm[r];
	if (!(OPT & (OPT_S8 | OPT_S4)))
		f.step = f.step + 1 == code.period ? 0 : f.step + 1;
	f.t++;
}

/* Stages at input phases X, X-1, ..., 1; returns the layout phase where the job ended, or -1
 * when the whole cycle ran. */
template <int K, int KIND, int OPT, int X> struct cycle {
	static __device__ __forceinline__ int run(uint32_t (&m)[1 << (K - 2)],
	                                          const struct vgpu_code &code,
	                                          const struct vgpu_sel &sel, struct fwd &f,
	                                          void *dec)
	{
		if (f.t == f.total)
			return X;
		acs_stage<K, KIND, OPT, X, false>(m, code, sel, f, dec);
		return cycle<K, KIND, OPT, X - 1>::run(m, code, sel, f, dec);
	}
};

template <int K, int KIND, int OPT> struct cycle<K, KIND, OPT, 0> {
	static __device__ __forceinline__ int run(uint32_t (&)[1 << (K - 2)],
	                                          const struct vgpu_code &, const struct vgpu_sel &,
	                                          struct fwd &, void *)
	{
		return -1;
	}
};

/* A whole cycle, stages at phases X..1, with no end test: no state merges between stages. */
template <int K, int KIND, int OPT, int X> struct full_cycle {
	static __device__ __forceinline__ void run(uint32_t (&m)[1 << (K - 2)],
	                                           const struct vgpu_code &code,
	                                           const struct vgpu_sel &sel, struct fwd &f,
	                                           void *dec)
	{
		acs_stage<K, KIND, OPT, X, (OPT & OPT_VEC) != 0>(m, code, sel, f, dec);
		full_cycle<K, KIND, OPT, X - 1>::run(m, code, sel, f, dec);
	}
};

template <int K, int KIND, int OPT> struct full_cycle<K, KIND, OPT, 0> {
	static __device__ __forceinline__ void run(uint32_t (&)[1 << (K - 2)],
	                                           const struct vgpu_code &,
	                                           const struct vgpu_sel &, struct fwd &, void *)
	{
	}
};

/* Decision of the state at bit pos (word * 32 + bit) of a row (set: from Q, the odd
 * predecessor); OPT_DPX rows hold decisions as they are, the others their complement. */
template <int OPT, typename vec>
__device__ __forceinline__ uint32_t tb_bit(const vec &v, uint32_t pos)
{
	const uint32_t w = vec_word(v, pos >> 5);
	const uint32_t x = __funnelshift_r(w, w, pos);

	return ((OPT & OPT_DPX) ? x : ~x) & 1u;
}

/* The forward pass of job i: writes its decision rows, returns its end state and metric; false
 * when the job is erased (its outputs are then set). */
template <int K, int KIND, int OPT>
__device__ __forceinline__ bool fast_forward(const struct vgpu_code &code, const struct vgpu_sel &sel,
                                             const struct gpu_batch &b, void *__restrict__ dec,
                                             uint32_t i, uint32_t *end_out, long long *metric)
{
	constexpr int R = 1 << (K - 2);
	struct vgpu_plan p;
	uint32_t m[R];
	struct fwd f;
	int ph;

	if (!vgpu_plan_job(code, b.jobs[i], &p)) {
		vgpu_job_erased(&b.jobs[i]);
		return false;
	}
	f.slot = (const uint8_t *)b.in + (size_t)i * b.in_stride;
	f.t = 0;
	f.total = p.head + p.own + p.tail;
	f.head = p.head;
	f.pos = 0;
	f.step = 0;
	f.count = b.count;
	f.job = i;
	f.sub = 0;
	f.s4 = b.in_kind == GPU_IN_S4_LLR;
#pragma unroll
	for (int r = 0; r < R; r++)
		m[r] = p.start_known ? FAST_UNREACH * 0x10001u : FAST_ZERO * 0x10001u;
	if (p.start_known)
		m[0] = FAST_ZERO | FAST_UNREACH << 16;
	for (;;) {
		if (OPT & OPT_FULL) {
			/* Fewer than K-2 stages left: the tail cycle ends inside (ph >= 1). */
			if (f.total - f.t < (uint32_t)(K - 2)) {
				ph = cycle<K, KIND, OPT, K - 2>::run(m, code, sel, f, dec);
				break;
			}
			if (OPT & OPT_VEC) {
				/* The cycle's bytes from aligned words (every word holds a byte of
				 * this job's slot, so none reads past the buffer). */
				static_assert(!(OPT & OPT_VEC) || K == 7, "OPT_VEC: 5 stages");
				const uint32_t b0 = (OPT & OPT_S8) ? 2 * f.t : f.t;
				const uint32_t *wp = (const uint32_t *)(f.slot + (b0 & ~3u));
				const uint32_t sh = 8 * (b0 & 3u);

				if (OPT & OPT_S8) {
					const uint32_t w0 = wp[0], w1 = wp[1], w2 = wp[2];

					f.win[0] = __funnelshift_r(w0, w1, sh);
					f.win[1] = __funnelshift_r(w1, w2, sh);
					f.win[2] = w2 >> sh;
				} else {
					const uint32_t w0 = wp[0], w1 = wp[1];

					f.win[0] = __funnelshift_r(w0, w1, sh);
					f.win[1] = w1 >> sh;
				}
			}
			full_cycle<K, KIND, OPT, K - 2>::run(m, code, sel, f, dec);
		} else {
			ph = cycle<K, KIND, OPT, K - 2>::run(m, code, sel, f, dec);
			if (ph >= 0)
				break;
		}
		/* Phase 0 -> K-2: states s, s+1 (register s/2) and s+h, s+h+1 become s, s+h and
		 * s+1, s+1+h. The renormalisation rides along, once per cycle of K-2 stages: shift
		 * so that state 0 (low half of register 0 in every phase) is at FAST_ZERO. */
		const uint32_t d = (m[0] & 0xffffu) - FAST_ZERO, d2 = d * 0x10001u;
		uint32_t nm[R];

		f.sub += d;
#pragma unroll
		for (int s = 0; s < R; s += 2) {
			nm[s] = prmt(m[s / 2], m[(s + R) / 2], 0x5410) - d2;
			nm[s + 1] = prmt(m[s / 2], m[(s + R) / 2], 0x7632) - d2;
		}
#pragma unroll
		for (int r = 0; r < R; r++)
			m[r] = nm[r];
	}

	/* End state: state 0, or the best one (lowest index among equals). */
	uint32_t end = 0, best = m[0] & 0xffffu;

	if (!p.end_zero) {
		best = 0;
#pragma unroll
		for (int r = 0; r < R; r++) {
#pragma unroll
			for (uint32_t l = 0; l < 2; l++) {
				const uint32_t v = l ? m[r] >> 16 : m[r] & 0xffffu;
				const uint32_t s = (((uint32_t)r >> ph) << (ph + 1)) |
				                   ((uint32_t)r & ((1u << ph) - 1)) | l << ph;

				if (v > best || (v == best && s < end)) {
					best = v;
					end = s;
				}
			}
		}
	}
	*end_out = end;
	*metric =
	    (long long)best - FAST_ZERO - (long long)FAST_BIAS * f.total + f.sub;

	return true;
}

/* The traceback of job i from its end state (its rows are in dec since its forward pass); writes
 * its output bits and job outputs. */
template <int K, int OPT>
__device__ __forceinline__ void fast_traceback(const struct vgpu_code &code, const struct gpu_batch &b,
                                               const void *__restrict__ dec, const uint8_t *tbpos,
                                               uint32_t i, uint32_t end, long long metric)
{
	constexpr int R = 1 << (K - 2), N = 1 << (K - 1), W = (R + 15) / 16;
	typedef typename dec_vec<W>::type vec;
	struct vgpu_plan p;

	vgpu_plan_job(code, b.jobs[i], &p);
	/* Traceback over the rows of own and tail; row r's layout phase follows from its stage.
	 * Rows above the last multiple of 8 one by one, then chunks of 8 rows (one output byte
	 * each below out_bits), the next chunk's rows loading while this one is traced. */
	const vec *rows = (const vec *)dec;
	uint8_t *out = b.out + (size_t)i * b.out_stride;
	const uint32_t nrows = p.own + p.tail;
	uint32_t acc = 0, y = 0, r0 = nrows;

	if (nrows)
		y = (uint32_t)(K - 3) - (nrows - 1 + p.head) % (uint32_t)(K - 2);
	for (; r0 % 8; r0--) {
		const uint32_t r = r0 - 1;
		const vec v = rows[(size_t)r * b.count + i];

		if (r < p.out_bits) {
			acc |= (end >> (K - 2) & 1u) << (7 - r % 8);
			if (r % 8 == 0) {
				out[r / 8] = (uint8_t)acc;
				acc = 0;
			}
		}
		end = ((end << 1) & (N - 1)) | tb_bit<OPT>(v, tbpos[y * N + end]);
		y = y + 1 == (uint32_t)(K - 2) ? 0 : y + 1;
	}
	vec v[8];

	if (r0) {
#pragma unroll
		for (uint32_t c = 0; c < 8; c++)
			v[c] = rows[(size_t)(r0 - 1 - c) * b.count + i];
	}
	for (; r0; r0 -= 8) {
		const uint8_t *tp = tbpos + y * N;
		vec nx[8];

		if (r0 > 8) {
#pragma unroll
			for (uint32_t c = 0; c < 8; c++)
				nx[c] = rows[(size_t)(r0 - 9 - c) * b.count + i];
		}
		if (r0 <= p.out_bits) {
			uint32_t byte = 0;

#pragma unroll
			for (uint32_t c = 0; c < 8; c++) {
				byte |= (end >> (K - 2) & 1u) << c;
				end = ((end << 1) & (N - 1)) | tb_bit<OPT>(v[c], tp[c * N + end]);
			}
			out[(r0 - 8) / 8] = (uint8_t)byte;
		} else {
#pragma unroll
			for (uint32_t c = 0; c < 8; c++) {
				const uint32_t r = r0 - 1 - c;

				if (r < p.out_bits) {
					acc |= (end >> (K - 2) & 1u) << (7 - r % 8);
					if (r % 8 == 0) {
						out[r / 8] = (uint8_t)acc;
						acc = 0;
					}
				}
				end = ((end << 1) & (N - 1)) | tb_bit<OPT>(v[c], tp[c * N + end]);
			}
		}
		y = (y + 8) % (uint32_t)(K - 2);
#pragma unroll
		for (uint32_t c = 0; c < 8; c++)
			v[c] = nx[c];
	}
	vgpu_job_decoded(&b.jobs[i], p.out_bits, metric);
}

/* One thread, jobs i, i + G, i + 2G... (G: threads in the grid). Every job's rows stay in dec
 * until the launch ends, so a traceback may wait: odd warps trace each job back after the next
 * one's forward pass (F0 F1 T0 F2 T1 ... T), even warps at once (F0 T0 F1 T1 ...), so that half
 * the SM reads rows back (memory) while the other half runs ACS (ALU) instead of every warp
 * reading in one burst at the end of each wave. */
template <int K, int KIND, int OPT>
__device__ __forceinline__ void fast_body(const struct vgpu_code &code, const struct vgpu_sel &sel,
                                          const struct gpu_batch &b, void *__restrict__ dec)
{
	constexpr int N = 1 << (K - 1);
	const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	const uint32_t grid = gridDim.x * blockDim.x;
	const uint32_t jobs = (b.count + grid - 1) / grid;
	const bool lag = sel.mix && (threadIdx.x / 32u) % 2u == 1u;
	/* The lagging job's end state (~0: none) and metric wait in shared memory, not in
	 * registers the forward pass needs. */
	__shared__ uint32_t prev_end[VGPU_FAST_THREADS_MAX];
	__shared__ long long prev_metric[VGPU_FAST_THREADS_MAX];

	/* Traceback's table: bit of state s in a row of layout phase y at [y * N + s] (0..127:
	 * word * 32 + bit), phases repeated up to K - 2 + 8 so a chunk of 8 rows indexes it at
	 * compile-time offsets. Built before any thread leaves, for the barrier. */
	__shared__ uint8_t tbpos[(K - 2 + 8) * N];

	for (uint32_t e = threadIdx.x; e < (K - 2 + 8) * N; e += blockDim.x) {
		const uint32_t y = e / N % (K - 2), s = e % N;
		const uint32_t reg = ((s >> (y + 1)) << y) | (s & ((1u << y) - 1));

		tbpos[e] = (uint8_t)(32 * (reg >> 4) + dec_bit(reg, s >> y & 1u));
	}
	__syncthreads();
	prev_end[threadIdx.x] = ~0u;
#pragma unroll 1
	for (uint32_t k = 0; k <= jobs; k++) {
		const uint32_t job = i + k * grid;
		uint32_t end = ~0u, tj = job;
		long long metric = 0;

		if (k < jobs && job < b.count &&
		    !fast_forward<K, KIND, OPT>(code, sel, b, dec, job, &end, &metric))
			end = ~0u;
		if (lag) {
			const uint32_t e = prev_end[threadIdx.x];
			const long long mt = prev_metric[threadIdx.x];

			prev_end[threadIdx.x] = end;
			prev_metric[threadIdx.x] = metric;
			end = e;
			metric = mt;
			tj = job - grid;
		}
#ifndef FECD_VITERBI_GPU_FWD_ONLY /* measurement builds only: the forward pass alone */
		if (end != ~0u)
			fast_traceback<K, OPT>(code, b, dec, tbpos, tj, end, metric);
#endif
	}
}

template <int K, int KIND, int OPT>
__global__ void viterbi_fast_kernel(const struct vgpu_code code, const struct vgpu_sel sel,
                                    struct gpu_batch b, void *__restrict__ dec)
{
	fast_body<K, KIND, OPT>(code, sel, b, dec);
}

/* The 171/133 family: at most 128 registers, so that 512 threads (16 warps) fit an SM. */
template <int K, int KIND, int OPT>
__global__ void __launch_bounds__(512, 1)
    viterbi_std7_kernel(const struct vgpu_code code, const struct vgpu_sel sel,
                        struct gpu_batch b, void *__restrict__ dec)
{
	fast_body<K, KIND, OPT>(code, sel, b, dec);
}

/* ---- Host side */

typedef void (*fast_fn)(const struct vgpu_code, const struct vgpu_sel, struct gpu_batch, void *);

#define FAST_INSTANCES(X) X(3) X(4) X(5) X(6) X(7) X(8)

static fast_fn fast_kernel(uint32_t k, int kind, int opt)
{
	if (kind == KIND_STD7 && k == 7) {
		switch (opt) {
		case 0:
			return viterbi_std7_kernel<7, KIND_STD7, 0>;
		case OPT_FULL:
			return viterbi_std7_kernel<7, KIND_STD7, OPT_FULL>;
		case OPT_FULL | OPT_DPX:
			return viterbi_std7_kernel<7, KIND_STD7, OPT_FULL | OPT_DPX>;
		case OPT_FULL | OPT_S8:
			return viterbi_std7_kernel<7, KIND_STD7, OPT_FULL | OPT_S8>;
		case OPT_FULL | OPT_S4:
			return viterbi_std7_kernel<7, KIND_STD7, OPT_FULL | OPT_S4>;
		case OPT_FULL | OPT_S8 | OPT_DPX:
			return viterbi_std7_kernel<7, KIND_STD7, OPT_FULL | OPT_S8 | OPT_DPX>;
		case OPT_FULL | OPT_S4 | OPT_DPX:
			return viterbi_std7_kernel<7, KIND_STD7, OPT_FULL | OPT_S4 | OPT_DPX>;
		case OPT_FULL | OPT_S8 | OPT_DPX | OPT_VEC:
			return viterbi_std7_kernel<7, KIND_STD7,
			                           OPT_FULL | OPT_S8 | OPT_DPX | OPT_VEC>;
		case OPT_FULL | OPT_S4 | OPT_DPX | OPT_VEC:
			return viterbi_std7_kernel<7, KIND_STD7,
			                           OPT_FULL | OPT_S4 | OPT_DPX | OPT_VEC>;
		}
		return NULL;
	}
	switch (k * 4 + (uint32_t)kind) {
#define X(kk)                                                                                      \
	case kk * 4 + KIND_N2:                                                                     \
		return viterbi_fast_kernel<kk, KIND_N2, OPT_FULL>;                                 \
	case kk * 4 + KIND_N2_SYM:                                                                 \
		return viterbi_fast_kernel<kk, KIND_N2_SYM, OPT_FULL>;                             \
	case kk * 4 + KIND_WIDE:                                                                   \
		return viterbi_fast_kernel<kk, KIND_WIDE, OPT_FULL>;
		FAST_INSTANCES(X)
#undef X
	}
	return NULL;
}

/* The instance options for this code and batch: f->opt, plus the compile-time symbol fetch where
 * the code is unpunctured (one stage = both symbols) and f->opt allows it. */
static int fast_opt(const struct vgpu_code *code, const struct vgpu_fast *f, bool s4, bool aligned)
{
	int opt = f->opt & (OPT_FULL | OPT_DPX | OPT_VEC);

	if (f->kind != KIND_STD7)
		return OPT_FULL;
	if (f->sym && (opt & OPT_FULL) && code->period == 1 && (code->sent[0] & 3u) == 3u)
		opt |= s4 ? OPT_S4 : OPT_S8;
	/* OPT_VEC instances: with DPX and the compile-time fetch, slots 4-byte aligned. */
	if (!aligned || !(opt & OPT_DPX) || !(opt & (OPT_S4 | OPT_S8)))
		opt &= ~OPT_VEC;
	return opt;
}

/* Whether the code's words are 171/133's with the outputs swapped and/or inverted; fills the
 * symbol matrix that makes 171/133's branch metrics the code's. */
static bool std7_match(const struct vgpu_code *c, int32_t ymat[4])
{
	if (c->k != 7 || c->n != 2)
		return false;
	for (uint32_t swap = 0; swap < 2; swap++)
		for (uint32_t neg = 0; neg < 4; neg++) {
			uint32_t reg = 0;

			for (; reg < 128; reg++) {
				uint32_t w = std7_word(reg) ^ neg;

				if (swap)
					w = (w >> 1) | (w & 1u) << 1;
				if (c->word[reg] != w)
					break;
			}
			if (reg < 128)
				continue;
			/* Canonical output s reads code output s (swap: 1 - s), negated if bit s
			 * of neg. */
			ymat[0] = swap ? 0 : (neg & 1u) ? -1 : 1;
			ymat[1] = swap ? ((neg & 1u) ? -1 : 1) : 0;
			ymat[2] = swap ? ((neg & 2u) ? -1 : 1) : 0;
			ymat[3] = swap ? 0 : (neg & 2u) ? -1 : 1;
			return true;
		}
	return false;
}

static void build_sel(const struct vgpu_code *c, struct vgpu_fast *f, bool *symmetric)
{
	const int K = (int)c->k;
	const uint32_t R = 1u << (K - 2), N = 1u << (K - 1);

	memset(&f->sel, 0, sizeof(f->sel));
	*symmetric = c->n == 2;
	for (int x = 1; x <= K - 2; x++) {
		for (uint32_t r = 0; r < R; r++) {
			const uint32_t j = ins0(r, x - 1), b = j >> (K - 2);
			const uint32_t p0 = (j << 1) & (N - 1), p0h = p0 | 1u << x;
			const uint32_t base = b << (K - 1);
			const uint32_t w[2][2] = {
			    {c->word[base | p0], c->word[base | p0h]},
			    {c->word[base | p0 | 1], c->word[base | p0h | 1]}};

			for (int q = 0; q < 2; q++) {
				f->sel.s[x - 1][r][q][0] = half_sel(w[q][0] & 3u, w[q][1] & 3u);
				f->sel.s[x - 1][r][q][1] = half_sel(w[q][0] >> 2, w[q][1] >> 2);
			}
		}
		/* The symmetric kernel reads the first half and swaps X and Y for the second. */
		for (uint32_t r = 0; r < R / 2; r++)
			if (f->sel.s[x - 1][r + R / 2][0][0] != f->sel.s[x - 1][r][1][0] ||
			    f->sel.s[x - 1][r + R / 2][1][0] != f->sel.s[x - 1][r][0][0])
				*symmetric = false;
	}
}

int vgpu_fast_prepare(const struct vgpu_code *code, const struct fecd_cuda_device *dev,
                      struct vgpu_fast *f)
{
	struct cudaFuncAttributes fa;
	int min_grid = 0, block = 0, active = 0;
	bool symmetric;
	fast_fn fn;
	cudaError_t e;

	memset(f, 0, sizeof(*f));
	if (code->k > VGPU_FAST_K_MAX)
		return 0;
	build_sel(code, f, &symmetric);
	f->kind = code->n > 2 ? KIND_WIDE : symmetric ? KIND_N2_SYM : KIND_N2;
	if (std7_match(code, f->sel.ymat))
		f->kind = KIND_STD7;
	/* The fastest options by default; FECD_VITERBI_GPU_OPT (OPT_* bits, 2 = compile-time
	 * symbols, and the host flags above) picks others, for measurements and tests: every value
	 * decodes correctly. */
	{
		const char *ev = getenv("FECD_VITERBI_GPU_OPT");
		const int o = ev && *ev ? atoi(ev) : OPT_FULL | OPT_DPX | OPT_VEC | 2;

		f->opt = o & (OPT_FULL | OPT_DPX | OPT_VEC | FAST_NOBAL | FAST_NOMIX | FAST_THIN);
		f->sym = (o & 2) != 0;
		f->sel.mix = !(o & FAST_NOMIX);
	}
	f->sms = dev ? dev->sm_count : 0;
	fn = fast_kernel(code->k, f->kind, fast_opt(code, f, false, true));
	if (!fn)
		return 0;
	/* Block size for the most resident threads with this kernel's registers; the grid covers
	 * the batch (one thread per job). */
	e = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, fn, 0, 0);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, fn, block, 0);
	if (e == cudaSuccess)
		e = cudaFuncGetAttributes(&fa, fn);
	if (e != cudaSuccess)
		return (int)e;
	f->threads = block;
	f->blocks_per_sm = active;
	f->regs = fa.numRegs;
	f->smem = fa.sharedSizeBytes;
	f->ok = true;
	return 0;
}

size_t vgpu_fast_ws_bytes(const struct vgpu_code *code, const struct vgpu_fast *f, uint32_t count)
{
	const uint32_t R = 1u << (code->k - 2), W = (R + 15) / 16;

	(void)f;
	return (size_t)code->rows * count * W * sizeof(uint32_t);
}

int vgpu_fast_launch(const struct vgpu_code *code, const struct vgpu_fast *f,
                     const struct gpu_batch *b, void *ws, cudaStream_t s)
{
	const bool aligned = (((uintptr_t)b->in | b->in_stride) & 3u) == 0;
	fast_fn fn = fast_kernel(code->k, f->kind, fast_opt(code, f, b->in_kind == GPU_IN_S4_LLR, aligned));
	unsigned threads = (unsigned)f->threads, grid_threads = b->count;

	if (!b->count)
		return 0;
	/* One wave at most: a batch larger than the device holds runs several jobs per thread
	 * (fast_body), with blocks shrunk (to whole warps) so that the jobs spread evenly over all
	 * SMs instead of a short last round. */
	if (f->opt & FAST_THIN) {
		threads = 64;
		grid_threads = b->count < 64 ? b->count : 64;
	} else if (f->sms > 0 && f->blocks_per_sm > 0 && !(f->opt & FAST_NOBAL)) {
		const unsigned slots = (unsigned)f->sms * (unsigned)f->blocks_per_sm;
		const unsigned jobs = (b->count + slots * threads - 1) / (slots * threads);
		const unsigned t = ((b->count + jobs * slots - 1) / (jobs * slots) + 31) / 32 * 32;

		if (t < threads)
			threads = t;
		grid_threads = (b->count + jobs - 1) / jobs;
	}
	fn<<<(grid_threads + threads - 1) / threads, threads, 0, s>>>(*code, f->sel, *b, ws);
	return (int)cudaGetLastError();
}
