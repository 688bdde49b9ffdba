/*
 * The fast GPU LDPC kernel: layered min-sum (ms, nms, oms) on int8, for codes with rows of at
 * most 32 edges and fewer than 65535 columns (DVB-S2, 5G NR, WiMAX, 802.11n, MacKay (3,6), ...).
 * A row's columns are R records of 8 (R = 1 for rows of up to 8 edges, the row below; 2 or 4
 * for longer rows: ldpc_gpu_long.cuh).
 *
 * One thread block decodes two frames at a time, one in each 16-bit half of every value (SIMD
 * within a register: Hopper's 16x2 add/min/max, PRMT byte selects). The two frames' exact
 * a-posteriori values (int16, codec/ldpc/ldpc.h) sit in shared memory: as one 32-bit word per
 * column where 4n bytes fit, else words for the leading columns of degree >= 3 and the rest packed
 * to 12 bits each (3 bytes per column; DVB-S2: 32400 words + 32400 packed parity columns = 227 KB),
 * which holds them exactly when 127 (1 + column degree) <= 2047. The threads share out the rows
 * of a layer, __syncthreads between layers. A row's check-to-variable messages are kept
 * compressed in the block's workspace slice (8 bytes per short row for both frames): the scaled
 * magnitudes m1', m2' of each frame as bytes, and per edge two bits per frame, "not the minimum"
 * and "negative"; a PRMT with a computed selector rebuilds a message sign-extended to 16 bits.
 * Every value stays within -2048..2047 in its half, so the halves never carry into each other.
 * LDPC_GPU.md has the design and figures.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ldpc_gpu_long.cuh"

/* Row position q's messages: one wide multiply-add (size = the record's bytes, unseen by the
 * compiler, which would otherwise shift and add on the integer ALU pipe). */
template <int R>
__device__ __forceinline__ fast_rec<R> *msg_at(fast_rec<R> *msg, uint32_t q, uint32_t size)
{
	return (fast_rec<R> *)((char *)msg + (unsigned long long)q * size);
}

/* One row for both frames. cols: the row's columns; rec: its compressed messages (in/out);
 * k: the normalisation constant; four, minus1: 4 and -1 from kernel parameters (multipliers the
 * compiler cannot see, LDPC_GPU.md). D: edges looked at; PAD: the row may have fewer; NW: see
 * edge_word. */
template <int ALGO, int D, bool PAD, int LAYOUT, int NW, bool FIRST>
__device__ __forceinline__ void fast_row(const app_store<LAYOUT> &app, uint4 cols, uint2 &rec,
                                         uint32_t k, const struct lgpu_code &cc)
{
	const uint32_t cw[4] = {cols.x, cols.y, cols.z, cols.w};
	uint32_t xe[D], a[D], vv[D], cv[8];
	uint32_t m1, m2, sx = 0;

	/* the columns: the high one of a pair by a shift; for the mixed layout the low one as cw -
	 * high * 65536 (a multiply-add on the FMA pipe, where the mask is on the integer ALU pipe:
	 * see app_store's word_at), DVB-S2's seventh from its pair with the row kind's mark */
#pragma unroll
	for (int j = 0; j < (D + 1) / 2; j++) {
		if (LAYOUT == LGPU_APP_MIXED && NW == 5 && D == 7 && j == 3) {
			cv[6] = cw[3] - (LGPU_ROW_5W2P << 16);
			continue;
		}
		const uint32_t hi = cw[j] >> 16;

		cv[2 * j] = LAYOUT == LGPU_APP_MIXED ? cw[j] + hi * cc.m65536 : cw[j] & 0xffffu;
		cv[2 * j + 1] = hi;
	}

	{
		const uint32_t nb = neg_bytes(rec.x, cc.minus1);
		const uint32_t pn = prmt(rec.x, nb, 0x1054u), qn = prmt(rec.x, nb, 0x3276u);
		uint32_t sel[D];

		/* the selectors of edges e and e + 4 from one field (code_sel2): e's in the low
		 * half, e + 4's in the high half */
#pragma unroll
		for (int e = 0; e < 4 && e < D; e++) {
			const uint32_t t = code_sel2(rec.y, e);

			sel[e] = t;
			if (e + 4 < D)
				sel[e + 4] = t >> 16;
		}

#pragma unroll
		for (int e = 0; e < D; e++) {
			const uint32_t col = cv[e];

			if (PAD && col == LGPU_PAD_COL) {
				xe[e] = 0;
				a[e] = 0x007f007fu; /* neutral: |x| 127 changes no minimum */
				continue;
			}
			/* exact app - old message, and its magnitude (up to 1270: sat8's bound
			 * is applied to the two minima, which gives the same messages) */
			const uint32_t nc = prmt(pn, qn, sel[e]);
			const uint32_t ap = edge_word<LAYOUT, NW>(app, e, col)
			                        ? *app.word_at(col, cc.four)
			                        : app.load_pm(col, cc.two, cc.one);
			const uint32_t x = FIRST ? ap : add16(ap, nc);
			/* -x in each half from ~x; for the mixed layout (the packed columns load
			 * the ALU pipe most) ~x = x * -1 - 1, a multiply-add on the FMA pipe:
			 * DVB-S2 +0.7%, where MacKay's words layout lost 3% with it */
			const uint32_t nx =
			    LAYOUT == LGPU_APP_MIXED ? x * cc.minus1 + cc.minus1 : ~x;
			const uint32_t av = max_s16(x, add16(nx, 0x00010001u));

			sx ^= x; /* sat8 keeps the sign */
			xe[e] = x;
			a[e] = av;
		}
	}
	if (LAYOUT == LGPU_APP_MIXED && D == 7 && !PAD)
		two_min7(a, cc.minus1, m1, m2);
	else
		two_min<D>(a, m1, m2);
	const struct row_msgs out = row_msgs_of<ALGO>(m1, m2, k, cc.minus1);
	uint32_t bits;

#pragma unroll
	for (int e = 0; e < D; e++) {
		const uint32_t col = cv[e];

		vv[e] = 0;
		if (PAD && col == LGPU_PAD_COL)
			continue;
		const uint32_t v = msg_code(a[e], xe[e], sx, out.kk);
		const uint32_t c = prmt(out.p, out.q, msg_sel(v));

		if (edge_word<LAYOUT, NW>(app, e, col))
			*app.word_at(col, cc.four) = add16(xe[e], c);
		else
			app.store_pm(col, add16(xe[e], c), cc.two, cc.one);
		vv[e] = v;
	}
	/* bits = the sum of vv[e] << 2 e, by Horner's rule in multiply-adds: a multiplier the
	 * compiler cannot see keeps them on the FMA pipe, where shifts would load the busier
	 * integer ALU pipe (LDPC_GPU.md) */
	bits = vv[D - 1];
#pragma unroll
	for (int e = D - 2; e >= 0; e--)
		bits = bits * cc.four + vv[e];
	rec = make_uint2(out.mx, rec_codes(bits));
}

/* Parity of each frame's hard decisions over a row: bit 15 frame 0, bit 31 frame 1. D, PAD, NW
 * as for fast_row. */
template <int LAYOUT, int D, bool PAD, int NW>
__device__ __forceinline__ uint32_t fast_parity(const app_store<LAYOUT> &app, uint4 cols)
{
	const uint32_t cw[4] = {cols.x, cols.y, cols.z, cols.w};
	uint32_t par = 0;

#pragma unroll
	for (int e = 0; e < D; e++) {
		const uint32_t col = (e & 1) ? cw[e / 2] >> 16 : cw[e / 2] & 0xffffu;

		if (PAD && col == LGPU_PAD_COL)
			continue;
		par ^= edge_word<LAYOUT, NW>(app, e, col) ? app.w[col] : app.signs_p(col);
	}
	return par & 0x80008000u;
}

/* Hard decisions (and soft values) of the pair's frames (f0 where live0, f0 + 1 where live1),
 * by threads t0 .. t0 + nt - 1 (whole warps): each warp takes 32 output bits at a time, lane l
 * reading bit 32 w + l of both frames, and gathers them with a ballot per frame; lanes 0-3
 * write frame 0's four bytes, lanes 4-7 frame 1's (first bit in the byte's top bit). */
template <int LAYOUT>
__device__ static void fast_emit(const struct lgpu_code &c, const struct gpu_batch &b,
                                 const app_store<LAYOUT> &app, uint32_t f0, bool live0, bool live1,
                                 uint32_t t0, uint32_t nt)
{
	const uint32_t t = threadIdx.x - t0, lane = t % 32, nbytes = (c.out_n + 7) / 8;
	uint8_t *const out = b.out + (size_t)(f0 + (lane >= 4)) * b.out_stride;
	const bool live = lane < 4 ? live0 : live1;

	for (uint32_t w = t / 32; 32 * w < c.out_n; w += nt / 32) {
		const uint32_t j = 32 * w + lane;
		const uint32_t s = j < c.out_n ? app.signs(lgpu_out_col(c, j)) : 0;
		const uint32_t m0 = __ballot_sync(~0u, s & 0x8000u),
		               m1 = __ballot_sync(~0u, s & 0x80000000u);
		const uint32_t q = lane % 4, at = 4 * w + q;

		/* bit 8 q + i of the ballot to bit 7 - i of byte q */
		if (lane < 8 && live && at < nbytes)
			out[at] = (uint8_t)(__brev(lane < 4 ? m0 : m1) >> (24 - 8 * q));
	}
	if (b.soft) {
		float *soft = b.soft + (size_t)f0 * b.soft_stride;

		for (uint32_t j = t; j < c.out_n; j += nt) {
			const uint32_t v = lgpu_out_col(c, j);

			if (live0)
				soft[j] = (float)app.value(v, 0) * c.inv_scale;
			if (live1)
				soft[b.soft_stride + j] = (float)app.value(v, 1) * c.inv_scale;
		}
	}
}

/* Whether a row (mixed layout) is DVB-S2's kind: its eighth slot says so. */
__device__ __forceinline__ bool row_5w2p(uint4 cols)
{
	return (cols.w >> 16) == LGPU_ROW_5W2P;
}

/* A row by its length: 8 edges, 7 (DVB-S2's), or fewer (padded). Mixed layout: DVB-S2's rows
 * of 5 word and 2 packed columns have their instance, any other row takes the padded one,
 * which asks each column its kind. */
template <int ALGO, int LAYOUT, bool FIRST>
__device__ __forceinline__ void fast_row_any(const app_store<LAYOUT> &app, uint4 cols, uint2 &rec,
                                             uint32_t k, const struct lgpu_code &cc)
{
	if (LAYOUT == LGPU_APP_MIXED) {
		if (row_5w2p(cols))
			fast_row<ALGO, 7, false, LAYOUT, 5, FIRST>(app, cols, rec, k, cc);
		else
			fast_row<ALGO, 8, true, LAYOUT, -1, FIRST>(app, cols, rec, k, cc);
		return;
	}
	if ((cols.w >> 16) != LGPU_PAD_COL)
		fast_row<ALGO, 8, false, LAYOUT, -1, FIRST>(app, cols, rec, k, cc);
	else if ((cols.w & 0xffffu) != LGPU_PAD_COL)
		fast_row<ALGO, 7, false, LAYOUT, -1, FIRST>(app, cols, rec, k, cc);
	else
		fast_row<ALGO, 8, true, LAYOUT, -1, FIRST>(app, cols, rec, k, cc);
}

/* fast_parity by the row's kind, as fast_row_any; 0 for a padding position. */
template <int LAYOUT>
__device__ __forceinline__ uint32_t fast_parity_any(const app_store<LAYOUT> &app, uint4 cols)
{
	if (LAYOUT == LGPU_APP_MIXED && row_5w2p(cols))
		return fast_parity<LAYOUT, 7, false, 5>(app, cols);
	return fast_parity<LAYOUT, 8, true, -1>(app, cols);
}

/* A row of R records (R > 1: long rows, no row kinds): the parity over all of them. */
template <int LAYOUT, int R>
__device__ __forceinline__ uint32_t fast_parity_rec(const app_store<LAYOUT> &app, const uint4 *cols)
{
	if constexpr (R == 1) {
		return fast_parity_any(app, cols[0]);
	} else {
		uint32_t par = 0;

#pragma unroll
		for (int j = 0; j < R; j++)
			par ^= fast_parity<LAYOUT, 8, true, -1>(app, cols[j]);
		return par & 0x80008000u;
	}
}

/* A row, short (fast_row_any, rec as its uint2) or long (fast_row_long). */
template <int ALGO, int LAYOUT, int R, bool FIRST>
__device__ __forceinline__ void fast_row_rec(const app_store<LAYOUT> &app, const uint4 *cols,
                                             fast_rec<R> &rec, uint32_t k,
                                             const struct lgpu_code &cc)
{
	if constexpr (R == 1) {
		uint2 r = make_uint2(rec.w[0], rec.w[1]);

		fast_row_any<ALGO, LAYOUT, FIRST>(app, cols[0], r, k, cc);
		rec.w[0] = r.x;
		rec.w[1] = r.y;
	} else {
		fast_row_long<ALGO, R, LAYOUT, FIRST>(app, cols, rec, k, cc.four, cc.minus1);
	}
}

/* Position p's R records of columns. */
template <int R>
__device__ __forceinline__ void load_cols(const uint4 *__restrict__ tab, uint32_t p, uint4 *cols)
{
#pragma unroll
	for (int j = 0; j < R; j++)
		cols[j] = tab[(size_t)p * R + j];
}

/* A row's messages, none (zeros) in the first iteration. */
template <int R>
__device__ __forceinline__ void load_rec(const fast_rec<R> *mp, bool first, fast_rec<R> &rec)
{
	if (first) {
#pragma unroll
		for (int j = 0; j < (int)(sizeof(rec.w) / 4); j++)
			rec.w[j] = 0;
	} else {
		rec = *mp;
	}
}

/* This thread's share of the syndrome, among threads t0 .. t0 + nt - 1: the parity of its rows,
 * a round's records (4 short rows, or one long row's R) all in flight before the first is used
 * (a dependent load per step would expose the L2 latency nsteps times). */
template <int LAYOUT, int R>
__device__ __forceinline__ uint32_t fast_syndrome(const app_store<LAYOUT> &app,
                                                  const uint4 *__restrict__ tab, uint32_t nsteps,
                                                  uint32_t t0, uint32_t nt)
{
	enum { F = R == 1 ? 4 : 1 }; /* rows in flight */
	const uint32_t end = nsteps * blockDim.x;
	uint32_t par = 0;

	for (uint32_t p = threadIdx.x - t0; p < end; p += F * nt) {
		uint4 r[F][R];

#pragma unroll
		for (int j = 0; j < F; j++)
#pragma unroll
			for (int i = 0; i < R; i++)
				r[j][i] = p + j * nt < end
				              ? tab[(size_t)(p + j * nt) * R + i]
				              : make_uint4(~0u, ~0u, ~0u, ~0u); /* padding */
#pragma unroll
		for (int j = 0; j < F; j++)
			par |= fast_parity_rec<LAYOUT, R>(app, r[j]);
	}
	return par;
}

/* The next pair's channel values (frames f0, f0 + 1) towards L2 while this pair's last
 * iteration runs, so that its start does not wait on device memory. */
__device__ __forceinline__ void prefetch_input(const struct lgpu_code &c, const struct gpu_batch &b,
                                               uint32_t f0)
{
	const uint32_t len = c.n - c.punct, lines = (len + 127) / 128;

	for (uint32_t h = 0; h < 2; h++) {
		if (f0 + h >= b.count)
			break;
		const char *in = (const char *)b.in + (size_t)(f0 + h) * b.in_stride;

		for (uint32_t i = threadIdx.x; i < lines; i += blockDim.x)
			asm volatile("prefetch.global.L2 [%0];" ::"l"(in + 128 * (size_t)i));
	}
}

/* Where a thread is in an iteration's walk: step s of level l (which ends at step send), and
 * the columns and messages of its position. */
template <int R> struct walk {
	const uint4 *tp;
	fast_rec<R> *mp;
	uint32_t s, l, send;
};

/* A row's columns and messages. */
template <int R> struct row_buf {
	uint4 cols[R];
	fast_rec<R> rec;
};

/* A pointer moved on by stride bytes in one wide multiply-add (one from a kernel parameter):
 * a 64-bit add would be two instructions on the integer ALU pipe. */
template <typename T> __device__ __forceinline__ T *advance(T *p, uint32_t stride, uint32_t one)
{
	return (T *)((char *)p + (unsigned long long)stride * one);
}

/* One step of the walk (ldpc_gpu.cu: step-major, this thread's rows at tid, tid + nt, ...):
 * the row in cur, the next one fetched into next meanwhile (across level ends too: a thread's
 * rows are the same each iteration, so their messages are its own). A padding row (no columns)
 * ends its level at once. true after the last level. FIRST, first: the first iteration, known
 * at compile time (its rows skip the messages) or only at run time (zero messages). tstride,
 * mstride: a step's bytes of columns and of messages. */
template <int ALGO, int LAYOUT, int R, bool FIRST>
__device__ __forceinline__ bool
walk_step(const struct lgpu_code &c, const app_store<LAYOUT> &app, const uint4 *__restrict__ tab,
          fast_rec<R> *msg, struct walk<R> &w, struct row_buf<R> &cur, struct row_buf<R> &next,
          uint32_t k, bool first, uint32_t tstride, uint32_t mstride)
{
	if (cur.cols[0].x == 0xffffffffu) {
		/* padding: the rest of the level is too; on to the next level's first row */
		const uint32_t p = w.send * blockDim.x + threadIdx.x;

		w.s = w.send;
		w.tp = tab + (size_t)p * R;
		w.mp = msg_at(msg, p, c.four * (uint32_t)(sizeof(fast_rec<R>) / 4));
		load_cols<R>(w.tp, 0, next.cols);
		load_rec(w.mp, FIRST || first, next.rec);
	} else {
		fast_rec<R> *const here = w.mp;

		w.tp = advance(w.tp, tstride, c.one);
		w.mp = advance(w.mp, mstride, c.one);
		load_cols<R>(w.tp, 0, next.cols);
		load_rec(w.mp, FIRST || first, next.rec);
		fast_row_rec<ALGO, LAYOUT, R, FIRST>(app, cur.cols, cur.rec, k, c);
		*here = cur.rec;
		w.s++;
	}
	if (w.s < w.send)
		return false;
	__syncthreads();
	if (++w.l == c.nlevels)
		return true;
	w.send = c.step_end[w.l];
	return false;
}

/* An iteration's walk, in two row buffers in turn: the next row is fetched into one while the
 * other's row is decoded, with no copies between them. FIRST, first: as walk_step. */
template <int ALGO, int LAYOUT, int R, bool FIRST>
__device__ __forceinline__ void
walk_iteration(const struct lgpu_code &c, const app_store<LAYOUT> &app,
               const uint4 *__restrict__ tab, fast_rec<R> *msg, uint32_t k, bool first)
{
	const uint32_t rsize = c.four * (uint32_t)(sizeof(fast_rec<R>) / 4);
	const uint32_t tstride = blockDim.x * c.four * 4 * R, mstride = blockDim.x * rsize;
	const uint4 *const tp0 = tab + (size_t)threadIdx.x * R;
	struct walk<R> w = {
		tp0, msg_at(msg, threadIdx.x, rsize), 0, 0, c.step_end[0]
	};
	struct row_buf<R> a, b;

	load_cols<R>(w.tp, 0, a.cols);
	load_rec(w.mp, FIRST || first, a.rec);
	while (!walk_step<ALGO, LAYOUT, R, FIRST>(c, app, tab, msg, w, a, b, k, first, tstride,
	                                          mstride) &&
	       !walk_step<ALGO, LAYOUT, R, FIRST>(c, app, tab, msg, w, b, a, k, first, tstride,
	                                          mstride))
		;
}

template <int ALGO, int LAYOUT, int NT, int R>
__global__ void __launch_bounds__(NT, 1)
    ldpc_fast_kernel(struct lgpu_code c, const uint4 *__restrict__ tab, struct gpu_batch b,
                     fast_rec<R> *ws, uint32_t split)
{
	enum { IN = 4 };
	extern __shared__ uint32_t smem[];
	/* whole 32-bit words of input per 4 columns: aligned, punctured columns a multiple of 4 */
	const bool words =
	    c.n % 4 == 0 && c.punct % 4 == 0 && b.in_stride % 4 == 0 && (uintptr_t)b.in % 4 == 0;
	/* packed entries start after the words: byte 4 split + 2 (v - split) for hi[v], then
	 * the n - split bytes of lo (split = 0 when all are packed) */
	const uint32_t s0 = LAYOUT == LGPU_APP_MIXED ? split : 0;
	const app_store<LAYOUT> app = {smem, (uint16_t *)smem + s0,
	                               (uint8_t *)smem + 2 * (size_t)c.n + s0, s0};
	fast_rec<R> *msg = ws + (size_t)blockIdx.x * (c.nsteps + 1) * blockDim.x;
	const unsigned tid = threadIdx.x;
	const uint32_t k = ALGO == LDPC_ALGO_NMS   ? (uint32_t)c.alpha16 * 16u
	                   : ALGO == LDPC_ALGO_OMS ? ((uint32_t)(-c.offset8) & 0xffffu) * 0x10001u
	                                           : 0;

	for (uint32_t pair = blockIdx.x; 2 * pair < b.count; pair += gridDim.x) {
		const uint32_t f0 = 2 * pair, f1 = f0 + 1;
		bool live0, live1, bad0 = true, bad1 = true;
		unsigned it = 0;

		__syncthreads(); /* the previous pair's readers are done with the app */
		live0 = b.jobs[f0].in_len == c.n_tx && b.jobs[f0].head_len == 0;
		live1 = f1 < b.count && b.jobs[f1].in_len == c.n_tx && b.jobs[f1].head_len == 0;
		__syncthreads();
		if (tid == 0) {
			if (!live0)
				lgpu_job_ok(c, &b.jobs[f0]);
			if (f1 < b.count && !live1)
				lgpu_job_ok(c, &b.jobs[f1]);
		}
		if (!live0 && !live1)
			continue;
		if (words)
			load_words<LAYOUT, IN>(c, b, app, f0, live0, live1);
		else
			load_bytes<LAYOUT, IN>(c, b, app, f0, live0, live1);
		__syncthreads();
		while (it < c.max_iters) {
			const bool first = it == 0;

			if (it + 1 == c.max_iters)
				prefetch_input(c, b, 2 * (pair + gridDim.x));
			/* no messages yet in the first iteration: its rows skip them (an instance
			 * of their own, for short rows only: long rows lost with it, 5G NR BG2 by
			 * 18%, DVB-S2 r9/10 by 5%) */
			if (first && R == 1)
				walk_iteration<ALGO, LAYOUT, R, true>(c, app, tab, msg, k, true);
			else
				walk_iteration<ALGO, LAYOUT, R, false>(c, app, tab, msg, k, first);
			it++;
			if (!c.early_stop) {
				if (it < c.max_iters)
					continue; /* only the final syndrome counts */
				/* the final syndrome in half the warps, the output in the other
				 * half, side by side (the syndrome waits on L2, the output does
				 * not) */
				const uint32_t half = blockDim.x / 2;
				uint32_t par = 0;

				if (tid < half)
					par = fast_syndrome<LAYOUT, R>(app, tab, c.nsteps, 0, half);
				else
					fast_emit(c, b, app, f0, live0, live1, half, half);
				bad0 = __syncthreads_or(par & 0x8000u) != 0;
				bad1 = __syncthreads_or(par & 0x80000000u) != 0;
				break;
			}
			const uint32_t par =
			    fast_syndrome<LAYOUT, R>(app, tab, c.nsteps, 0, blockDim.x);
			bad0 = __syncthreads_or(par & 0x8000u) != 0;
			bad1 = __syncthreads_or(par & 0x80000000u) != 0;
			/* A frame that converged is emitted now; its half keeps running, unread. */
			const bool done0 = live0 && !bad0, done1 = live1 && !bad1;

			if (done0 || done1) {
				fast_emit(c, b, app, f0, done0, done1, 0, blockDim.x);
				if (tid == 0 && done0)
					lgpu_job_done(c, b, &b.jobs[f0], it, true);
				if (tid == 0 && done1)
					lgpu_job_done(c, b, &b.jobs[f1], it, true);
				live0 = live0 && !done0;
				live1 = live1 && !done1;
				if (!live0 && !live1)
					break;
				__syncthreads(); /* emission read the app */
			}
		}
		if (c.early_stop && (live0 || live1))
			fast_emit(c, b, app, f0, live0, live1, 0, blockDim.x);
		if (tid == 0 && live0)
			lgpu_job_done(c, b, &b.jobs[f0], it, !bad0);
		if (tid == 0 && live1)
			lgpu_job_done(c, b, &b.jobs[f1], it, !bad1);
	}
}

template <int LAYOUT, int NT, int R> static const void *fast_fn(int algo)
{
	switch (algo) {
	case LDPC_ALGO_NMS:
		return (const void *)ldpc_fast_kernel<LDPC_ALGO_NMS, LAYOUT, NT, R>;
	case LDPC_ALGO_OMS:
		return (const void *)ldpc_fast_kernel<LDPC_ALGO_OMS, LAYOUT, NT, R>;
	default:
		return (const void *)ldpc_fast_kernel<LDPC_ALGO_MS, LAYOUT, NT, R>;
	}
}

template <int NT, int R> static const void *fast_fn_nt(int algo, enum lgpu_layout layout)
{
	return layout == LGPU_APP_MIXED    ? fast_fn<LGPU_APP_MIXED, NT, R>(algo)
	       : layout == LGPU_APP_PACKED ? fast_fn<LGPU_APP_PACKED, NT, R>(algo)
	                                   : fast_fn<LGPU_APP_WORDS, NT, R>(algo);
}

/* The kernel instance for the code and shape (threads, layout, records per row). Short rows:
 * 1024 threads (LDPC_GPU.md), FECD_LDPC_GPU_THREADS=512 or 768 for measurements; long rows:
 * 512 (their 8 R values in registers). */
static const void *fast_fn_for(int algo, const struct lgpu_shape *sh)
{
	if (sh->recs == 4)
		return fast_fn_nt<512, 4>(algo, sh->layout);
	if (sh->recs == 2)
		return fast_fn_nt<512, 2>(algo, sh->layout);
	return sh->threads == 512   ? fast_fn_nt<512, 1>(algo, sh->layout)
	       : sh->threads == 768 ? fast_fn_nt<768, 1>(algo, sh->layout)
	                            : fast_fn_nt<1024, 1>(algo, sh->layout);
}

static int fast_threads(uint32_t recs)
{
	const char *ev = getenv("FECD_LDPC_GPU_THREADS");
	const int n = ev ? atoi(ev) : 0;

	if (recs > 1)
		return 512;
	return n == 512 || n == 768 ? n : 1024;
}

/* Highest degree of the columns from v0 on. */
static uint32_t max_deg_from(const uint32_t *col_start, uint32_t n, uint32_t v0)
{
	uint32_t d = 0;

	for (uint32_t v = v0; v < n; v++)
		if (col_start[v + 1] - col_start[v] > d)
			d = col_start[v + 1] - col_start[v];
	return d;
}

/* The app's layout: one word per column where 4n bytes fit; else words for the leading columns
 * of degree >= 3 (as many as fit beside the packed rest) and 12-bit packing for the others,
 * exact when 127 (1 + degree) <= 2047 for every packed column; FECD_LDPC_GPU_PACK_ALL=1 packs
 * every column (the v2 layout, for measurements). false: it does not fit exactly, or a column
 * has more than 126 rows. */
static bool fast_layout(const struct lgpu_code *c, const struct fecd_cuda_device *dev,
                        const uint32_t *col_start, struct lgpu_shape *sh)
{
	const char *ev = getenv("FECD_LDPC_GPU_PACK_ALL");
	const size_t cap = dev->smem_per_block_optin;
	uint32_t split = 0;

	/* |x| - m1 <= |app| + 127 at most 0x4000, so that |x| + 0x3fff - m1 (fast_row) stays in
	 * its half */
	if (127 * (2 + max_deg_from(col_start, c->n, 0)) >= 16384)
		return false;
	if ((size_t)c->n * 4 <= cap) {
		sh->layout = LGPU_APP_WORDS;
		sh->split = c->n;
		sh->smem = (size_t)c->n * 4;
		return true;
	}
	if ((size_t)c->n * 3 + 16 > cap)
		return false;
	if (!(ev && *ev == '1'))
		while (split < c->n && (size_t)c->n * 3 + split + 16 <= cap &&
		       col_start[split + 1] - col_start[split] >= 3)
			split++;
	sh->layout = split ? LGPU_APP_MIXED : LGPU_APP_PACKED;
	sh->split = split;
	sh->smem = ((size_t)c->n * 3 + split + 15) / 16 * 16;
	return 127 * (1 + max_deg_from(col_start, c->n, split)) <= 2047;
}

int lgpu_fast_prepare(const struct lgpu_code *c, const struct fecd_cuda_device *dev,
                      const uint32_t *col_start, uint32_t max_deg, struct lgpu_shape *sh, bool *ok)
{
	struct cudaFuncAttributes fa;
	const void *fn;
	cudaError_t e;
	int per_sm = 0;

	*ok = false;
	sh->recs = max_deg <= LGPU_FAST_DEG ? 1 : max_deg <= 2 * LGPU_FAST_DEG ? 2 : 4;
	if (!c->layered || c->in_f32 || c->algo == LDPC_ALGO_SPA || c->n >= LGPU_ROW_5W2P ||
	    max_deg > 4 * LGPU_FAST_DEG || !fast_layout(c, dev, col_start, sh))
		return 0;
	sh->threads = fast_threads(sh->recs);
	fn = fast_fn_for(c->algo, sh);
	e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh->smem);
	if (e == cudaSuccess)
		e = cudaFuncGetAttributes(&fa, fn);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, sh->threads,
		                                                  sh->smem);
	if (e != cudaSuccess)
		return (int)e;
	if (per_sm < 1)
		return 0;
	sh->blocks_per_sm = per_sm;
	sh->regs = fa.numRegs;
	sh->grid = dev->sm_count * per_sm;
	sh->ws_per_block = 0; /* set with the walk (ldpc_gpu.cu upload_fast) */
	*ok = true;
	return 0;
}

size_t lgpu_fast_rec_bytes(uint32_t recs)
{
	return recs == 1   ? sizeof(fast_rec<1>)
	       : recs == 2 ? sizeof(fast_rec<2>)
	                   : sizeof(fast_rec<4>);
}

int lgpu_fast_launch(const struct lgpu_code *c, const uint4 *tab, const struct lgpu_shape *sh,
                     const struct gpu_batch *b, void *ws, cudaStream_t s)
{
	const uint32_t pairs = (b->count + 1) / 2;
	const int grid = (int)(pairs < (uint32_t)sh->grid ? pairs : (uint32_t)sh->grid);
	struct lgpu_code cc = *c;
	struct gpu_batch bb = *b;

	uint32_t split = sh->split;
	void *args[] = {&cc, (void *)&tab, &bb, &ws, &split};

	return (int)cudaLaunchKernel(fast_fn_for(c->algo, sh), dim3((unsigned)grid),
	                             dim3((unsigned)sh->threads), args, sh->smem, s);
}
