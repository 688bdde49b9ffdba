/*
 * The multi-lane GPU Viterbi kernel for large trellises (K 7..9): 2^LB threads ("lanes") of one
 * warp decode one job together, each holding 2^(K-2-LB) packed 16-bit metric registers (the
 * arithmetic of viterbi_gpu_fast.cu: offset 32768, branch metrics +512, VIMNMX.U16x2, Z signs as
 * decisions), so K = 9 keeps its 256 states in registers instead of local memory.
 *
 * Layout at phase a (a = T .. 0, T = K-2-LB): state bits [0, a) are register bits [0, a), bit a
 * is the register half, bits a+1 .. a+LB the lane, the bits above the remaining register bits.
 * A stage shifts every state bit down by one, so it takes phase a to a-1 with no state moving
 * between lanes or halves, and in register index space it is the plain butterfly: new register
 * r from registers 2r and 2r+1 (mod R). After T stages (phase 0) the lanes exchange through
 * shared memory (one u32 store and one u32 load + PRMT per register), back to phase T; the
 * renormalisation by state 0 rides along.
 * Branch metrics: a code word is affine in the register bits, so a state's word is the word of
 * its lane-0 twin XOR a per-lane, per-phase mask; XORing the table index by that mask is flipping
 * the signs of the symbols, so every lane uses lane 0's selectors (uniform kernel parameters).
 * Decisions: [row][job][lane] vectors, coalesced; traceback runs in every lane of the job in step,
 * each loading its own vector and taking the word it needs by shuffle from the lane that owns
 * the state.
 */
#include <string.h>

#include "viterbi_gpu_lanes.cuh"
#include "viterbi_gpu_pack.cuh"

#define LN_BIAS    512u   /* added to every branch metric */
#define LN_ZERO    32768u /* the offset of a metric */
#define LN_UNREACH 16384u /* start value of states other than 0 when the start is known */

/* State at phase a of register r, half h, lane l (LB lane bits). */
__host__ __device__ constexpr uint32_t ln_state(uint32_t r, uint32_t h, uint32_t l, int a, int lb)
{
	return (r & ((1u << a) - 1)) | h << a | l << (a + 1) | (r >> a) << (a + 1 + lb);
}

struct ln_fwd {
	const uint8_t *slot;
	uint32_t t, total, head, pos, step, count, job, lane;
	long long sub; /* renormalisation amounts taken out */
	bool s4;
};

template <int K, int LB, bool WIDE, int X>
__device__ __forceinline__ void ln_stage(uint32_t (&m)[1 << (K - 2 - LB)],
                                         const struct vgpu_code &code, const struct vgpu_lsel &sel,
                                         struct ln_fwd &f, uint32_t lmask, void *dec)
{
	constexpr int T = K - 2 - LB, R = 1 << T, W = (R + 15) / 16, Y = X - 1;
	const uint32_t sent = code.sent[f.step], flip = lmask >> (4 * Y);
	int32_t y[4] = {0, 0, 0, 0};
	uint32_t t0, t1, ta0 = 0, ta1 = 0;

#pragma unroll
	for (int r = 0; r < (WIDE ? 4 : 2); r++)
		if (r < (int)code.n && (sent >> r & 1u)) {
			const int32_t v = vgpu_symbol_rt(f.slot, f.pos++, f.s4);

			y[r] = (flip >> r & 1u) ? -v : v;
		}
	{
		const uint32_t bias = WIDE ? LN_BIAS / 2 : LN_BIAS;

		t0 = (bias + y[0] + y[1]) | (bias - y[0] + y[1]) << 16;
		t1 = (bias + y[0] - y[1]) | (bias - y[0] - y[1]) << 16;
		if (WIDE) {
			ta0 = (bias + y[2] + y[3]) | (bias - y[2] + y[3]) << 16;
			ta1 = (bias + y[2] - y[3]) | (bias - y[2] - y[3]) << 16;
		}
	}
	uint32_t nm[R], z[R];

#pragma unroll
	for (int r = 0; r < R; r++) {
		const uint32_t P = m[(2 * r) & (R - 1)], Q = m[(2 * r + 1) & (R - 1)];
		uint32_t mx = prmt(t0, t1, sel.s[Y][r][0][0]);
		uint32_t my = prmt(t0, t1, sel.s[Y][r][1][0]);

		if (WIDE) {
			mx += prmt(ta0, ta1, sel.s[Y][r][0][1]);
			my += prmt(ta0, ta1, sel.s[Y][r][1][1]);
		}
		const uint32_t cx = P + mx, cy = Q + my;

		nm[r] = __vmaxu2(cx, cy);
		z[r] = cx - cy + 0x80008000u;
	}
	if (f.t >= f.head) {
		typedef typename dec_vec<W>::type vec;
		uint32_t dw[W];
		vec v;

#pragma unroll
		for (int w = 0; w < W; w++)
			dw[w] = 0;
#pragma unroll
		for (int r = 0; r < R; r += 2)
			dw[r / 16] |=
			    prmt(z[r], z[r + 1], 0xFDB9u) & (0x01010101u << ((r & 15) >> 1));
		vec_set(&v, dw);
		((vec *)dec)[((size_t)(f.t - f.head) * f.count + f.job) * (1u << LB) + f.lane] = v;
	}
#pragma unroll
	for (int r = 0; r < R; r++)
		m[r] = nm[r];
	f.step = f.step + 1 == code.period ? 0 : f.step + 1;
	f.t++;
}

/* Stages from phase X down to 0; returns the phase where the job ended, or -1 when all ran. */
template <int K, int LB, bool WIDE, int X> struct ln_cycle {
	static __device__ __forceinline__ int run(uint32_t (&m)[1 << (K - 2 - LB)],
	                                          const struct vgpu_code &code,
	                                          const struct vgpu_lsel &sel, struct ln_fwd &f,
	                                          uint32_t lmask, void *dec)
	{
		if (f.t == f.total)
			return X;
		ln_stage<K, LB, WIDE, X>(m, code, sel, f, lmask, dec);
		return ln_cycle<K, LB, WIDE, X - 1>::run(m, code, sel, f, lmask, dec);
	}
};

template <int K, int LB, bool WIDE> struct ln_cycle<K, LB, WIDE, 0> {
	static __device__ __forceinline__ int run(uint32_t (&)[1 << (K - 2 - LB)],
	                                          const struct vgpu_code &,
	                                          const struct vgpu_lsel &, struct ln_fwd &,
	                                          uint32_t, void *)
	{
		return -1;
	}
};

/* Shared memory words per job: a job's N/2 state pairs plus one pad word per 2^T pairs, which
 * makes both exchange directions free of bank conflicts (VITERBI_GPU.md). */
template <int K, int LB> __host__ __device__ constexpr uint32_t ln_smem_words()
{
	return (1u << (K - 2)) + (1u << LB);
}

template <int K, int LB, bool WIDE>
__global__ void viterbi_lanes_kernel(const struct vgpu_code code, const struct vgpu_lsel sel,
                                     struct gpu_batch b, void *__restrict__ dec)
{
	constexpr int LANES = 1 << LB, T = K - 2 - LB, R = 1 << T, N = 1 << (K - 1);
	constexpr int W = (R + 15) / 16;
	typedef typename dec_vec<W>::type vec;
	extern __shared__ uint32_t ln_smem[];
	const uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) >> LB;
	const uint32_t lane = threadIdx.x & (LANES - 1);
	const unsigned gmask = ((1u << LANES) - 1) << (threadIdx.x & 31u & ~(LANES - 1u));
	uint32_t *const sm = ln_smem + (threadIdx.x >> LB) * ln_smem_words<K, LB>();
	struct vgpu_plan p;
	uint32_t m[R], lmask = 0;
	struct ln_fwd f;
	int ph;

	if (i >= b.count)
		return;
	if (!vgpu_plan_job(code, b.jobs[i], &p)) {
		if (lane == 0)
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
	f.lane = lane;
	f.sub = 0;
	f.s4 = b.in_kind == GPU_IN_S4_LLR;
	/* The lane's part of the code word at each destination phase: its lane bits in the state,
	 * shifted once more into the register (input bit on top, predecessor below). */
#pragma unroll
	for (int a = 0; a < T; a++)
		lmask |= (uint32_t)(code.word[lane << (a + 2)] ^ code.word[0]) << (4 * a);
#pragma unroll
	for (int r = 0; r < R; r++)
		m[r] = p.start_known ? LN_UNREACH * 0x10001u : LN_ZERO * 0x10001u;
	if (p.start_known && lane == 0)
		m[0] = LN_ZERO | LN_UNREACH << 16;
	for (;;) {
		ph = ln_cycle<K, LB, WIDE, T>::run(m, code, sel, f, lmask, dec);
		if (ph >= 0)
			break;
			/* Phase 0 -> T through shared memory: word k holds states 2k, 2k+1, at k +
			 * k / 2^T. Phase 0: register r = states r << (LB+1) | lane << 1 | h, i.e. k
			 * = r << LB | lane. Phase T: register r = states r | h << T | lane <<
			 * (T+1): registers r, r+1 (r even) are the halves of words (r/2 | lane <<
			 * T) (h = 0) and that | 2^(T-1) (h = 1). */
#pragma unroll
		for (int r = 0; r < R; r++)
			sm[(r << LB) + (r >> (T - LB)) + lane] = m[r];
		__syncwarp(gmask);
		const uint32_t d = (sm[0] & 0xffffu) - LN_ZERO, d2 = d * 0x10001u;
		const uint32_t *const rd = sm + lane * ((1u << T) + 1);

		f.sub += d;
#pragma unroll
		for (int r = 0; r < R; r += 2) {
			const uint32_t a = rd[r / 2], c = rd[r / 2 + (1 << (T - 1))];

			m[r] = prmt(a, c, 0x5410) - d2;
			m[r + 1] = prmt(a, c, 0x7632) - d2;
		}
		__syncwarp(gmask);
	}

	/* End state: state 0, or the best one (lowest index among equals) over every lane. */
	uint32_t end = 0, best;

	if (p.end_zero) {
		best = __shfl_sync(gmask, m[0] & 0xffffu, 0, LANES);
	} else {
		uint32_t key = 0;

#pragma unroll
		for (int r = 0; r < R; r++) {
#pragma unroll
			for (uint32_t h = 0; h < 2; h++) {
				const uint32_t v = h ? m[r] >> 16 : m[r] & 0xffffu;
				const uint32_t s = ((uint32_t)r & ((1u << ph) - 1)) | h << ph |
				                   lane << (ph + 1) |
				                   ((uint32_t)r >> ph) << (ph + 1 + LB);
				const uint32_t kv = v << 16 | (0xffffu - s);

				key = kv > key ? kv : key;
			}
		}
#pragma unroll
		for (int o = 1; o < LANES; o <<= 1) {
			const uint32_t other = __shfl_xor_sync(gmask, key, o, LANES);

			key = other > key ? other : key;
		}
		best = key >> 16;
		end = 0xffffu - (key & 0xffffu);
	}
	const long long metric = (long long)best - LN_ZERO - (long long)LN_BIAS * f.total + f.sub;

	/* Traceback over the rows of own and tail, in every lane; row r's phase follows from its
	 * stage, the owner lane of the state from the phase. */
	const vec *rows = (const vec *)dec;
	uint8_t *out = b.out + (size_t)i * b.out_stride;
	const uint32_t nrows = p.own + p.tail;
	uint32_t acc = 0, y = 0;

	if (nrows)
		y = (uint32_t)(T - 1) - (nrows - 1 + p.head) % (uint32_t)T;
	for (uint32_t r0 = nrows; r0 > 0;) {
		const uint32_t chunk = r0 < 8 ? r0 : 8;
		vec v[8];

#pragma unroll
		for (uint32_t c = 0; c < 8; c++)
			if (c < chunk)
				v[c] = rows[((size_t)(r0 - 1 - c) * b.count + i) * LANES + lane];
#pragma unroll
		for (uint32_t c = 0; c < 8; c++) {
			if (c < chunk) {
				const uint32_t r = r0 - 1 - c;
				const uint32_t reg = (end & ((1u << y) - 1)) | (end >> (y + 1 + LB))
				                                                   << y;
				const uint32_t owner = end >> (y + 1) & (LANES - 1);
				const uint32_t word =
				    __shfl_sync(gmask, vec_word(v[c], reg >> 4), owner, LANES);
				const uint32_t d = (~word >> dec_bit(reg, end >> y & 1u)) & 1u;

				if (r < p.out_bits) {
					acc |= (end >> (K - 2) & 1u) << (7 - r % 8);
					if (r % 8 == 0) {
						if (lane == 0)
							out[r / 8] = (uint8_t)acc;
						acc = 0;
					}
				}
				end = ((end << 1) & (N - 1)) | d;
				y = y + 1 == (uint32_t)T ? 0 : y + 1;
			}
		}
		r0 -= chunk;
	}
	if (lane == 0)
		vgpu_job_decoded(&b.jobs[i], p.out_bits, metric);
}

/* ---- Host side */

typedef void (*lanes_fn)(const struct vgpu_code, const struct vgpu_lsel, struct gpu_batch, void *);

/* (K, LB) instances: T = K-2-LB >= 4 keeps the exchange free of bank conflicts and the
 * registers per lane at 16 or more. */
#define LANES_INSTANCES(X) X(7, 1) X(8, 1) X(8, 2) X(9, 2) X(9, 3)

static lanes_fn lanes_kernel(uint32_t k, int lb, int wide)
{
	switch (k * 16 + (uint32_t)lb * 2 + (uint32_t)wide) {
#define X(kk, ll)                                                                                  \
	case kk * 16 + ll * 2:                                                                     \
		return viterbi_lanes_kernel<kk, ll, false>;                                        \
	case kk * 16 + ll * 2 + 1:                                                                 \
		return viterbi_lanes_kernel<kk, ll, true>;
		LANES_INSTANCES(X)
#undef X
	}
	return NULL;
}

static uint32_t ln_half_sel(uint32_t w_lo, uint32_t w_hi)
{
	return (2 * w_lo) | (2 * w_lo + 1) << 4 | (2 * w_hi) << 8 | (2 * w_hi + 1) << 12;
}

static void ln_build_sel(const struct vgpu_code *c, int lb, struct vgpu_lsel *sel)
{
	const int T = (int)c->k - 2 - lb;
	const uint32_t R = 1u << T;

	memset(sel, 0, sizeof(*sel));
	for (int a = 0; a < T; a++)
		for (uint32_t r = 0; r < R; r++) {
			const uint32_t s0 = ln_state(r, 0, 0, a, lb), s1 = ln_state(r, 1, 0, a, lb);

			for (uint32_t q = 0; q < 2; q++) {
				const uint32_t w0 = c->word[s0 << 1 | q], w1 = c->word[s1 << 1 | q];

				sel->s[a][r][q][0] = ln_half_sel(w0 & 3u, w1 & 3u);
				sel->s[a][r][q][1] = ln_half_sel(w0 >> 2, w1 >> 2);
			}
		}
}

/* Dynamic shared memory for a block of the given size (whole jobs per block). */
struct ln_smem_of {
	size_t per_job;
	int lanes;
	__host__ __device__ size_t operator()(int block) const
	{
		return (size_t)(block / lanes) * per_job;
	}
};

static size_t ln_per_job_bytes(uint32_t k, int lb)
{
	return ((1u << (k - 2)) + (1u << lb)) * sizeof(uint32_t);
}

int vgpu_lanes_prepare(const struct vgpu_code *code, int lb, struct vgpu_lanes *l)
{
	struct cudaFuncAttributes fa;
	int min_grid = 0, block = 0, active = 0;
	lanes_fn fn;
	cudaError_t e;

	memset(l, 0, sizeof(*l));
	if (code->k < VGPU_LANES_K_MIN || code->k > CONV_K_MAX)
		return 0;
	if (!lb)
		lb = code->k == 9 ? 2 : 1;
	l->lb = lb;
	l->wide = code->n > 2;
	fn = lanes_kernel(code->k, lb, l->wide);
	if (!fn)
		return 0;
	ln_build_sel(code, lb, &l->sel);

	const struct ln_smem_of smem = {ln_per_job_bytes(code->k, lb), 1 << lb};

	e = cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, fn, smem, 0);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, fn, block, smem(block));
	if (e == cudaSuccess)
		e = cudaFuncGetAttributes(&fa, fn);
	if (e != cudaSuccess)
		return (int)e;
	l->threads = block;
	l->blocks_per_sm = active;
	l->regs = fa.numRegs;
	l->smem = smem(block);
	l->ok = true;
	return 0;
}

size_t vgpu_lanes_ws_bytes(const struct vgpu_code *code, uint32_t count)
{
	/* One bit per state and row; per lane at least one 32-bit word. */
	return (size_t)code->rows * count * (code->nstates / 8);
}

int vgpu_lanes_launch(const struct vgpu_code *code, const struct vgpu_lanes *l,
                      const struct gpu_batch *b, void *ws, cudaStream_t s)
{
	const uint64_t threads = (uint64_t)b->count << l->lb;
	const unsigned grid =
	    (unsigned)((threads + (unsigned)l->threads - 1) / (unsigned)l->threads);
	lanes_fn fn = lanes_kernel(code->k, l->lb, l->wide);

	if (!b->count)
		return 0;
	fn<<<grid, l->threads, l->smem, s>>>(*code, l->sel, *b, ws);
	return (int)cudaGetLastError();
}
