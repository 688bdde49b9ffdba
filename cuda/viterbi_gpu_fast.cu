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
 * rows, since the row addresses do not depend on the state.
 */
#include <string.h>

#include "viterbi_gpu_fast.cuh"
#include "viterbi_gpu_pack.cuh"

#define FAST_BIAS       512u   /* added to every branch metric */
#define FAST_ZERO       32768u /* the offset of a metric */
#define FAST_UNREACH    16384u /* start value of states other than 0 when the start is known */

enum { KIND_N2 = 0, KIND_N2_SYM = 1, KIND_WIDE = 2 };

/* ---- State layout: at phase x, register r holds states ins0(r, x) and ins0(r, x) | 1 << x. */

__host__ __device__ constexpr uint32_t ins0(uint32_t r, int x)
{
	return ((r >> x) << (x + 1)) | (r & ((1u << x) - 1));
}

__host__ __device__ constexpr uint32_t rem_bit(uint32_t s, int x)
{
	return ((s >> (x + 1)) << x) | (s & ((1u << x) - 1));
}

/* Everything of a job's forward pass but the metrics. */
struct fwd {
	const uint8_t *slot;
	uint32_t t, total, head, pos, step, count, job;
	long long sub; /* renormalisation amounts taken out */
	bool s4;
};

/* ---- Kernel pieces */

template <int K, int KIND, int X>
__device__ __forceinline__ void acs_stage(uint32_t (&m)[1 << (K - 2)], const struct vgpu_code &code,
                                          const struct vgpu_sel &sel, struct fwd &f, void *dec)
{
	constexpr int R = 1 << (K - 2), N = 1 << (K - 1), Y = X - 1, W = (R + 15) / 16;
	constexpr int RS = KIND == KIND_N2_SYM ? R / 2 : R;
	const uint32_t sent = code.sent[f.step];
	int32_t y[4] = {0, 0, 0, 0};
	uint32_t t0, t1, ta0 = 0, ta1 = 0;

#pragma unroll
	for (int r = 0; r < (KIND == KIND_WIDE ? 4 : 2); r++)
		if (r < (int)code.n && (sent >> r & 1u))
			y[r] = vgpu_symbol_rt(f.slot, f.pos++, f.s4);
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
		uint32_t mx = prmt(t0, t1, sel.s[X - 1][rs][swap ? 1 : 0][0]);
		uint32_t my = prmt(t0, t1, sel.s[X - 1][rs][swap ? 0 : 1][0]);
		(void)dummy;
		if (KIND == KIND_WIDE) {
			mx += prmt(ta0, ta1, sel.s[X - 1][r][0][1]);
			my += prmt(ta0, ta1, sel.s[X - 1][r][1][1]);
		}
		const uint32_t cx = P + mx, cy = Q + my;

		nm[r] = __vmaxu2(cx, cy);
		z[r] = cx - cy + 0x80008000u;
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
	f.step = f.step + 1 == code.period ? 0 : f.step + 1;
	f.t++;
}

/* Stages at input phases X, X-1, ..., 1; returns the layout phase where the job ended, or -1
 * when the whole cycle ran. */
template <int K, int KIND, int X> struct cycle {
	static __device__ __forceinline__ int run(uint32_t (&m)[1 << (K - 2)],
	                                          const struct vgpu_code &code,
	                                          const struct vgpu_sel &sel, struct fwd &f, void *dec)
	{
		if (f.t == f.total)
			return X;
		acs_stage<K, KIND, X>(m, code, sel, f, dec);
		return cycle<K, KIND, X - 1>::run(m, code, sel, f, dec);
	}
};

template <int K, int KIND> struct cycle<K, KIND, 0> {
	static __device__ __forceinline__ int run(uint32_t (&)[1 << (K - 2)], const struct vgpu_code &,
	                                          const struct vgpu_sel &, struct fwd &, void *)
	{
		return -1;
	}
};

template <int K, int KIND>
__global__ void viterbi_fast_kernel(const struct vgpu_code code, const struct vgpu_sel sel,
                                    struct gpu_batch b, void *__restrict__ dec)
{
	constexpr int R = 1 << (K - 2), N = 1 << (K - 1), W = (R + 15) / 16;
	typedef typename dec_vec<W>::type vec;
	const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	struct vgpu_plan p;
	uint32_t m[R];
	struct fwd f;
	int ph;

	if (i >= b.count)
		return;
	if (!vgpu_plan_job(code, b.jobs[i], &p)) {
		vgpu_job_erased(&b.jobs[i]);
		return;
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
	f.s4 = b.in_s4;
#pragma unroll
	for (int r = 0; r < R; r++)
		m[r] = p.start_known ? FAST_UNREACH * 0x10001u : FAST_ZERO * 0x10001u;
	if (p.start_known)
		m[0] = FAST_ZERO | FAST_UNREACH << 16;
	for (;;) {
		ph = cycle<K, KIND, K - 2>::run(m, code, sel, f, dec);
		if (ph >= 0)
			break;
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
	const long long metric = (long long)best - FAST_ZERO - (long long)FAST_BIAS * f.total + f.sub;

	/* Traceback over the rows of own and tail; row r's layout phase follows from its stage. */
	const vec *rows = (const vec *)dec;
	uint8_t *out = b.out + (size_t)i * b.out_stride;
	const uint32_t nrows = p.own + p.tail;
	uint32_t acc = 0, y = 0;

	if (nrows)
		y = (uint32_t)(K - 3) - (nrows - 1 + p.head) % (uint32_t)(K - 2);
	for (uint32_t r0 = nrows; r0 > 0;) {
		const uint32_t chunk = r0 < 8 ? r0 : 8;
		vec v[8];

#pragma unroll
		for (uint32_t c = 0; c < 8; c++)
			if (c < chunk)
				v[c] = rows[(size_t)(r0 - 1 - c) * b.count + i];
#pragma unroll
		for (uint32_t c = 0; c < 8; c++) {
			if (c < chunk) {
				const uint32_t r = r0 - 1 - c;
				const uint32_t reg = ((end >> (y + 1)) << y) | (end & ((1u << y) - 1));
				const uint32_t bit = dec_bit(reg, end >> y & 1u);
				const uint32_t d = (~vec_word(v[c], reg >> 4) >> bit) & 1u;

				if (r < p.out_bits) {
					acc |= (end >> (K - 2) & 1u) << (7 - r % 8);
					if (r % 8 == 0) {
						out[r / 8] = (uint8_t)acc;
						acc = 0;
					}
				}
				end = ((end << 1) & (N - 1)) | d;
				y = y + 1 == (uint32_t)(K - 2) ? 0 : y + 1;
			}
		}
		r0 -= chunk;
	}
	vgpu_job_decoded(&b.jobs[i], p.out_bits, metric);
}

/* ---- Host side */

typedef void (*fast_fn)(const struct vgpu_code, const struct vgpu_sel, struct gpu_batch, void *);

#define FAST_INSTANCES(X)                                                                          \
	X(3) X(4) X(5) X(6) X(7) X(8)

static fast_fn fast_kernel(uint32_t k, int kind)
{
	switch (k * 4 + (uint32_t)kind) {
#define X(kk)                                                                                      \
	case kk * 4 + KIND_N2:                                                                     \
		return viterbi_fast_kernel<kk, KIND_N2>;                                           \
	case kk * 4 + KIND_N2_SYM:                                                                 \
		return viterbi_fast_kernel<kk, KIND_N2_SYM>;                                       \
	case kk * 4 + KIND_WIDE:                                                                   \
		return viterbi_fast_kernel<kk, KIND_WIDE>;
		FAST_INSTANCES(X)
#undef X
	}
	return NULL;
}

/* PRMT selector taking halves w_lo and w_hi of the table (entry w: bytes 2w, 2w+1). */
static uint32_t half_sel(uint32_t w_lo, uint32_t w_hi)
{
	return (2 * w_lo) | (2 * w_lo + 1) << 4 | (2 * w_hi) << 8 | (2 * w_hi + 1) << 12;
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
			const uint32_t w[2][2] = {{c->word[base | p0], c->word[base | p0h]},
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

	(void)dev;
	memset(f, 0, sizeof(*f));
	if (code->k > VGPU_FAST_K_MAX)
		return 0;
	build_sel(code, f, &symmetric);
	f->kind = code->n > 2 ? KIND_WIDE : symmetric ? KIND_N2_SYM : KIND_N2;
	fn = fast_kernel(code->k, f->kind);
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
	const unsigned grid = (b->count + (unsigned)f->threads - 1) / (unsigned)f->threads;
	fast_fn fn = fast_kernel(code->k, f->kind);

	if (!b->count)
		return 0;
	fn<<<grid, f->threads, 0, s>>>(*code, f->sel, *b, ws);
	return (int)cudaGetLastError();
}
