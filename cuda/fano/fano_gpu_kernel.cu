/*
 * The fano family's GPU kernels and their launcher: the Fano algorithm exactly as
 * codec/fano/fano_decode.c specifies it (bits, status, cycles and metric bit for bit), UFA with
 * one thread per frame and BFA with two (the forward decoder in the even lane, the backward one in
 * the odd lane beside it), run as a budget ladder: every frame first gets a small cycle budget,
 * and each later rung continues, from their saved state, only the frames the rung before left
 * unfinished, with a larger one, up to the channel's budget. The frames a rung leaves are listed
 * on the device and the next rung reads the list, so that the whole ladder is enqueued on the
 * stream at once; hard frames end up together instead of holding whole warps of finished ones.
 * FANO_GPU.md has the design and the figures.
 */
#include <stddef.h>

#include "fano_gpu_walker.cuh"

/* Whether information bits [a, a + len) agree between the FD's path and the BD's (bit t of the
 * BD at its depth nb - 1 - t); bits of the tail (t >= nb) are zeros to both. */
__device__ bool window_agrees(const struct fgpu_code &c, const uint64_t *fd, const uint64_t *bd,
                              uint32_t stride, uint32_t a, uint32_t len)
{
	for (uint32_t o = 0; o < len; o += 64) {
		const unsigned m = len - o < 64 ? len - o : 64;
		const uint32_t t = a + o;
		const uint64_t f = path_bits(fd, stride, t, m);
		const uint64_t r = path_bits(bd, stride, (long long)c.info_bits - t - m, m);

		if (f != __brevll(r) >> (64 - m))
			return false;
	}
	return true;
}

/* After the FD's forward move (fano_decode.c merge_after_fd): the run's start or -1. */
__device__ long long merge_after_fd(const struct fgpu_code &c, const uint64_t *fd,
                                    const uint64_t *bd, uint32_t stride, uint32_t fdepth,
                                    uint32_t bdepth)
{
	const uint32_t lo = bdepth >= c.info_bits ? 0 : c.info_bits - bdepth;

	if (fdepth < lo + c.merge_len)
		return -1;
	return window_agrees(c, fd, bd, stride, fdepth - c.merge_len, c.merge_len)
	           ? (long long)(fdepth - c.merge_len)
	           : -1;
}

/* After the BD's forward move onto an information bit (merge_after_bd). */
__device__ long long merge_after_bd(const struct fgpu_code &c, const uint64_t *fd,
                                    const uint64_t *bd, uint32_t stride, uint32_t fdepth,
                                    uint32_t bdepth)
{
	if (bdepth > c.info_bits)
		return -1;
	const uint32_t s = c.info_bits - bdepth;

	if (s + c.merge_len > fdepth)
		return -1;
	return window_agrees(c, fd, bd, stride, s, c.merge_len) ? (long long)s : -1;
}

/* Which decoder gives which output bits: the FD below x, the BD (when bd) from max(x, y). */
struct fgpu_pick {
	uint32_t x, y;
	bool bd;
};

/* Output bits [64 w, 64 w + 64) as one word (bit 0 the first). */
__device__ uint64_t out_word(const struct fgpu_code &c, const uint64_t *fd, const uint64_t *bd,
                             uint32_t stride, const struct fgpu_pick &p, uint32_t w)
{
	const uint32_t t0 = 64 * w, z = p.x > p.y ? p.x : p.y;
	uint64_t v = 0;

	if (p.x > t0)
		v = fd[(size_t)w * stride] & (p.x >= t0 + 64 ? ~0ull : (1ull << (p.x - t0)) - 1);
	if (p.bd && z < t0 + 64) {
		const uint64_t r =
		    __brevll(path_bits(bd, stride, (long long)c.info_bits - t0 - 64, 64));

		v |= r & (z <= t0 ? ~0ull : ~((1ull << (z - t0)) - 1));
	}
	if (c.info_bits < t0 + 64)
		v &= (1ull << (c.info_bits - t0)) - 1;
	return v;
}

/* The output path's gamma, from the forward code and the output bits (path_metric). */
__device__ long long out_metric(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                const int8_t *in, const uint64_t *fd, const uint64_t *bd,
                                uint32_t stride, const struct fgpu_pick &p)
{
	const uint64_t mask = c.k == 64 ? ~0ull : (1ull << c.k) - 1;
	uint64_t reg = 0, word = 0;
	long long g = 0;

	for (uint32_t t = 0; t < c.stages; t++) {
		unsigned bit = 0;

		if (t < c.info_bits) {
			if ((t & 63) == 0)
				word = out_word(c, fd, bd, stride, p, t >> 6);
			bit = (unsigned)(word >> (t & 63) & 1u);
		}
		reg = (reg << 1 | bit) & mask;
		g += word_metric(c, sm, in + (size_t)t * c.n, code_word(c, sm, 0, reg));
	}
	return g;
}

/* Output bytes [8 w, 8 w + 8) of a frame (those below nbytes) from bits [64 w, 64 w + 64) as one
 * word: byte j holds bits 8j..8j+7, the first in its top bit, so the word's bits are reversed
 * (byte j lands in byte 7 - j) and its bytes swapped back; two 32-bit stores where aligned. */
__device__ __forceinline__ void store_out_word(uint8_t *out, uint32_t w, uint32_t nbytes,
                                               uint64_t v)
{
	const uint64_t rv = __brevll(v);
	const uint32_t lo = __byte_perm((uint32_t)(rv >> 32), 0, 0x0123),
	               hi = __byte_perm((uint32_t)rv, 0, 0x0123);
	uint8_t *o = out + 8 * w;

	if (w * 8 + 8 <= nbytes && ((uintptr_t)o & 3u) == 0) {
		((uint32_t *)o)[0] = lo;
		((uint32_t *)o)[1] = hi;
		return;
	}
	for (uint32_t j = 0; j < 8 && w * 8 + j < nbytes; j++)
		o[j] = (uint8_t)((j < 4 ? lo : hi) >> (8 * (j & 3)));
}

/* BFA: which decoder gives which output bits, from how the frame ended (done: 0 budget spent,
 * 1 FD complete, 2 BD complete, 3 merged at at). */
__device__ struct fgpu_pick bfa_pick(const struct fgpu_code &c, int done, long long at,
                                     uint32_t fdepth, uint32_t bdepth)
{
	const uint32_t nb = c.info_bits;

	switch (done) {
	case 1:
		return {nb, nb, false};
	case 2:
		return {0, 0, true};
	case 3:
		return {(uint32_t)at, (uint32_t)at, true};
	default:
		return {fdepth < nb ? fdepth : nb, bdepth >= nb ? 0 : nb - bdepth, true};
	}
}

/* BFA: frame f's job fields but the bits (and, where the BD gave bits, the metric), and what
 * fgpu_bfa_emit_kernel needs for them, in the frame's walker slots (no later rung reads a
 * finished frame's): T[2f] how it ended, T[2f + 1] the merge point, depth_i[2f], depth_i[2f + 1]
 * the FD's and the BD's depths. The output is written after the last rung: a lane that wrote
 * it here (a path metric over every stage where the BD gave bits) would hold up its warp. */
__device__ void finish_bfa(const struct fgpu_code &c, const struct gpu_batch &b,
                           const struct fgpu_ws &ws, uint32_t f, int done, long long at,
                           uint32_t fdepth, uint32_t bdepth, int32_t fgamma, uint32_t used)
{
	struct fec_job *job = &b.jobs[f];

	job->out_bits = c.info_bits;
	job->soft_count = 0;
	job->work = used;
	job->status = done ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
	job->metric = (float)(long long)fgamma / 16.0f; /* done 2, 3: the emit kernel's */
	ws.T[2 * f] = done;
	ws.T[2 * f + 1] = (int32_t)at;
	ws.depth_i[2 * f] = fdepth;
	ws.depth_i[2 * f + 1] = bdepth;
}

/* UFA: frame f's job fields, and the length of its output path for fgpu_emit_kernel (in
 * ws.depth_i[f], which no later rung reads: the information bits, or, out of budget, the
 * decided ones; the same outputs as finish's). The bits are written after the last rung, so that
 * a lane does not hold up its warp reading its path back. */
__device__ __forceinline__ void finish_ufa(const struct fgpu_code &c, const struct gpu_batch &b,
                                           const struct fgpu_ws &ws, uint32_t f, bool done,
                                           uint32_t depth, int32_t gamma, uint32_t used)
{
	struct fec_job *job = &b.jobs[f];
	const uint32_t nb = c.info_bits;

	job->out_bits = nb;
	job->soft_count = 0;
	job->work = used;
	job->status = done ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
	job->metric = (float)(long long)gamma / 16.0f;
	ws.depth_i[f] = (done || depth > nb ? nb : depth) << 1;
}

__device__ __forceinline__ void job_erased(struct fec_job *job)
{
	job->out_bits = 0;
	job->soft_count = 0;
	job->work = 0;
	job->metric = 0.0f;
	job->status = FECD_STATUS_ERASED;
}

/* The walker of slot s: fresh at the root (first rung) or as the rung before left it. */
template <int N, typename S, int B, int V>
__device__ __forceinline__ void walker_load(const struct fgpu_code &c, const struct fgpu_smem &sm,
                                            const struct fgpu_ws &ws,
                                            struct fgpu_walker<S, B, V> &w, uint32_t s, bool first)
{
	w.path = ws.path + s;
	w.stride = ws.slots;
	if (first) {
		walker_start<N>(c, sm, w, 0, 0, (S)0, 0, 0);
		return;
	}
	walker_start<N>(c, sm, w, ws.depth_i[s] >> 1, ws.depth_i[s] & 1u, (S)ws.state[s],
	                ws.gamma[s], ws.T[s]);
}

/* The decided bits of the word being written go to memory, in memory's order (a word the walker
 * has left is there already; the word at a depth that is a multiple of 64 holds nothing
 * decided). */
template <typename S, int B, int V>
__device__ __forceinline__ void walker_sync(const struct fgpu_walker<S, B, V> &w)
{
	const uint32_t d = w.depth & 63;

	if (!d)
		return;
	/* a shift register holds bit 64 (depth / 64) + j at bit d - 1 - j */
	w.path[(size_t)(w.depth >> 6) * w.stride] =
	    shift_path<V>() ? __brevll(w.pw) >> (64 - d) : w.pw;
}

template <typename S, int B, int V>
__device__ __forceinline__ void walker_save(const struct fgpu_ws &ws,
                                            const struct fgpu_walker<S, B, V> &w, uint32_t s)
{
	walker_sync(w);
	ws.depth_i[s] = w.depth << 1 | w.i;
	ws.state[s] = w.state;
	ws.gamma[s] = w.gamma;
	ws.T[s] = w.T;
}

/* The block's tables; lut_copy: how many bytes of fano_code.lut the kernel reads from shared
 * memory (UFA where K <= 8: none, it reads selreg). */
__device__ void load_tables(const struct fgpu_code &c, struct fgpu_smem &sm, uint32_t lut_copy)
{
	for (unsigned j = threadIdx.x; j < 256; j += blockDim.x)
		sm.met[j] = c.met[j ^ 0x80u]; /* by the LLR's byte as it is (fgpu_smem) */
	for (unsigned j = threadIdx.x; j < 2 * 16; j += blockDim.x) {
		/* the selectors of code word w0 (fgpu_smem): bit r of a branch's word takes the
		 * met entry's bytes 0-1 (metric of a 0) or 2-3 (of a 1) */
		const unsigned dir = j >> 4, w0 = j & 15u, w1 = w0 ^ c.lut[dir * 8 * 256 + 1];
		uint32_t v[2] = {0, 0};

		for (unsigned r = 0; r < 4; r++)
			v[r >> 1] |= (((w0 >> r & 1u) ? 0x32u : 0x10u) |
			              ((w1 >> r & 1u) ? 0x3200u : 0x1000u))
			             << (16 * (r & 1));
		sm.sel[dir][w0] = make_uint2(v[0], v[1]);
	}
	__syncthreads();
	if (c.lut_bytes == 1 && !c.bfa)
		for (unsigned j = threadIdx.x; j < 256; j += blockDim.x)
			sm.selreg[j] = sm.sel[0][c.lut[j]];
	for (unsigned j = threadIdx.x; j < lut_copy; j += blockDim.x)
		(&sm.lut[0][0][0])[j] = c.lut[j];
	__syncthreads();
}

/* The frame list i % 2 (by a select: indexing the parameter's array would copy the whole
 * workspace description to local memory). */
__device__ __forceinline__ uint32_t *ws_list(const struct fgpu_ws &ws, unsigned i)
{
	return i & 1 ? ws.list[1] : ws.list[0];
}

/* The next entries of a rung's frame queue for the lanes that call it together: one atomicAdd
 * per warp for all of them, each lane its own entry (in lane order). */
__device__ __forceinline__ uint32_t take(uint32_t *cursor)
{
	const unsigned act = __activemask(), lane = threadIdx.x & 31u;
	const unsigned leader = __ffs(act) - 1;
	uint32_t first = 0;

	if (lane == leader)
		first = atomicAdd(cursor, (uint32_t)__popc(act));
	first = __shfl_sync(act, first, leader);
	return first + (uint32_t)__popc(act & ((1u << lane) - 1u));
}

/* Rung r of the ladder: the frames of the list the rung before left (the first rung: every
 * job), each decoded until done or until it has used `budget` cycles in all. Persistent
 * threads: a thread whose frame ends (finished, or stopped at the rung's budget) takes the next
 * frame of the rung's queue (ws.cursor[r]) in the same loop, so that a warp runs cycles on all
 * its lanes until the queue is empty instead of waiting for its slowest frame; frames are taken
 * in any order (each one's result does not depend on it). V: the walker's build (FGPU_V_REG or
 * FGPU_V_UFA). FLAT: a loop iteration runs one step of a cycle, a forward move or one step back,
 * so that the lanes of a warp that look back several steps do it while the others move on,
 * instead of holding them in the look back's loop. */
template <int V, bool FLAT, int N, typename S, int B>
__global__ void __launch_bounds__(FGPU_THREADS, FGPU_UFA_BLOCKS)
    fgpu_ufa_kernel(const struct fgpu_code c, const struct gpu_batch b, const struct fgpu_ws ws,
                    const int8_t *in_base, size_t in_stride, unsigned r, uint32_t budget)
{
	/* the tables without the parts of fano_code.lut this build never reads (shared memory
	 * bounds the resident blocks): the new walker reads none (selreg where K <= 8, else
	 * code_word_popc) */
	constexpr uint32_t lut_copy = V == FGPU_V_REG ? 8 * 256 : 0;
	__shared__ __align__(16) unsigned char smraw[offsetof(struct fgpu_smem, lut) + lut_copy];
	__shared__ uint2 queue[FGPU_QUEUE * FGPU_THREADS];
	__shared__ uint32_t win[(V == FGPU_V_REG ? 1 : FGPU_WIN_ROWS) * FGPU_THREADS];
	struct fgpu_smem &sm = *reinterpret_cast<struct fgpu_smem *>(smraw);
	struct fgpu_walker<S, B, V> w;
	const bool first = r == 0;
	const uint32_t count = first ? b.count : ws.counter[r - 1];
	const uint32_t *list = first ? NULL : ws_list(ws, r - 1);
	uint32_t f = 0, used = 0;
	bool live = false; /* the walker holds frame f, unfinished */
	bool back = false; /* FLAT: in a cycle's look back */

	load_tables(c, sm, lut_copy);
	w.dir = 0;
	walker_place(w, queue, win);
	for (;;) {
		if (!live) {
			const uint32_t e = take(&ws.cursor[r]);

			if (e >= count)
				break;
			f = first ? e : list[e];
			if (first &&
			    (b.jobs[f].in_len != c.frame_syms || b.jobs[f].head_len != 0)) {
				job_erased(&b.jobs[f]);
				continue;
			}
			/* a listed frame has used the rung before's budget, below this one's */
			used = first ? 0 : ws.used[f];
			w.in = in_base + (size_t)f * in_stride;
			walker_load<N>(c, sm, ws, w, f, first);
			live = true;
		}
		int st;

		if (FLAT) {
			st = back ? ST_BACK : try_forward<false, N>(c, sm, w);
			if (st == ST_BACK)
				st = back_step<N>(c, sm, w);
			back = st == ST_MORE;
			if (back)
				continue;
		} else {
			st = cycle<false, N>(c, sm, w);
		}
		used++;
		const bool end = st == ST_END;

		if (!end && used < budget)
			continue;
		live = false;
		if (end || used >= c.budget) {
			walker_sync(w);
			finish_ufa(c, b, ws, f, end, w.depth, w.gamma, used);
			continue;
		}
		walker_save(ws, w, f);
		ws.used[f] = used;
		ws_list(ws, r)[take(&ws.counter[r])] = f;
	}
}

/* BFA: two threads per frame, side by side in a warp: the forward decoder in the even lane, the
 * backward one in the odd lane. Each runs its own cycles; after every pair of cycles both look at
 * both paths and agree on the outcome, in the CPU's order: FD cycle, FD's merge check, BD cycle
 * (when the budget leaves one), BD's merge check. Persistent like UFA: a pair whose frame ends
 * takes the next one of the rung's queue (the even lane's atomicAdd, shared with the odd one),
 * in the same loop. V: the walker's build (FGPU_V_REG or FGPU_V_BFA). */
template <int V, int N, typename S, int B>
__global__ void __launch_bounds__(FGPU_THREADS, FGPU_BFA_BLOCKS)
    fgpu_bfa_kernel(const struct fgpu_code c, const struct gpu_batch b, const struct fgpu_ws ws,
                    const int8_t *in_base, size_t in_stride, unsigned r, uint32_t budget)
{
	__shared__ struct fgpu_smem sm;
	__shared__ uint2 queue[FGPU_QUEUE * FGPU_THREADS];
	__shared__ uint32_t win[(V == FGPU_V_REG ? 1 : FGPU_WIN_ROWS) * FGPU_THREADS];
	struct fgpu_walker<S, B, V> w;
	const bool first = r == 0;
	const uint32_t count = first ? b.count : ws.counter[r - 1];
	const uint32_t *list = first ? NULL : ws_list(ws, r - 1);
	const unsigned lane = threadIdx.x & 31, base = lane & ~1u;
	const unsigned pm = 3u << base;
	uint32_t f = 0, used = 0, fdepth = 0, bdepth = 0;
	long long at = -1;
	int done = 0;
	bool live = false; /* the pair holds frame f, unfinished */

	load_tables(c, sm, 2 * 8 * 256);
	w.dir = threadIdx.x & 1u;
	walker_place(w, queue, win);
	for (;;) {
		if (!live) {
			uint32_t e = 0;

			if (w.dir == 0)
				e = atomicAdd(&ws.cursor[r], 1u);
			e = __shfl_sync(pm, e, base);
			if (e >= count)
				break;
			f = first ? e : list[e];
			if (first &&
			    (b.jobs[f].in_len != c.frame_syms || b.jobs[f].head_len != 0)) {
				if (w.dir == 0)
					job_erased(&b.jobs[f]);
				continue;
			}
			used = first ? 0 : ws.used[f];
			w.in = in_base + (size_t)f * in_stride;
			walker_load<N>(c, sm, ws, w, 2 * f + w.dir, first);
			fdepth = __shfl_sync(pm, w.depth, base);
			bdepth = __shfl_sync(pm, w.depth, base + 1);
			at = -1;
			done = 0;
			live = true;
		}
		const uint64_t *fd = ws.path + 2 * f, *bd = fd + 1;

		if (used < budget && !done) {
			const bool bd_runs = used + 1 < c.budget;
			int st = ST_STAYED;

			if (w.dir == 0 || bd_runs)
				st = cycle<true, N>(c, sm, w);
			__syncwarp(pm);
			const int sf = __shfl_sync(pm, st, base),
			          sb = __shfl_sync(pm, st, base + 1);
			const uint32_t bnew = __shfl_sync(pm, w.depth, base + 1);

			fdepth = __shfl_sync(pm, w.depth, base);
			used++;
			if (sf == ST_END)
				done = 1;
			else if (sf == ST_FORWARD &&
			         (at = merge_after_fd(c, fd, bd, ws.slots, fdepth, bdepth)) >= 0)
				done = 3;
			if (!done && bd_runs) {
				used++;
				bdepth = bnew;
				if (sb == ST_END)
					done = 2;
				else if (sb == ST_FORWARD &&
				         (at = merge_after_bd(c, fd, bd, ws.slots, fdepth,
				                              bdepth)) >= 0)
					done = 3;
			}
		}
		if (used < budget && !done)
			continue;
		live = false;
		if (done || used >= c.budget) {
			if (w.dir == 0)
				finish_bfa(c, b, ws, f, done, at, fdepth, bdepth, w.gamma, used);
			__syncwarp(pm);
			continue;
		}
		walker_save(ws, w, 2 * f + w.dir);
		if (w.dir == 0) {
			ws.used[f] = used;
			ws_list(ws, r)[atomicAdd(&ws.counter[r], 1u)] = f;
		}
	}
}

/* UFA's output bits, after the last rung: each frame's path below the length finish_ufa left
 * in ws.depth_i, zeros above (erased jobs: nothing). One thread per 64-bit output word, the
 * frames of a word side by side, so that the path's interleaved words are read coalesced. */
__global__ void fgpu_emit_kernel(const struct fgpu_code c, const struct gpu_batch b,
                                 const struct fgpu_ws ws)
{
	const uint32_t nbytes = (c.info_bits + 7) / 8, nw = (nbytes + 7) / 8;
	const size_t total = (size_t)b.count * nw;

	for (size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; x < total;
	     x += (size_t)gridDim.x * blockDim.x) {
		const uint32_t w = (uint32_t)(x / b.count), f = (uint32_t)(x % b.count);
		const uint32_t t0 = 64 * w;

		if (b.jobs[f].status == FECD_STATUS_ERASED)
			continue;
		const uint32_t len = ws.depth_i[f] >> 1;
		uint64_t v = len > t0 ? ws.path[(size_t)w * ws.slots + f] : 0;

		if (len < t0 + 64)
			v &= len <= t0 ? 0 : (1ull << (len - t0)) - 1;
		store_out_word(b.out + (size_t)f * b.out_stride, w, nbytes, v);
	}
}

/* BFA's outputs, after the last rung (finish_bfa): a frame's bits from both paths as it ended,
 * and its metric where the BD gave bits (the output path's, recomputed over every stage). One
 * thread per frame, so that the frames' outputs are written side by side. */
__global__ void __launch_bounds__(FGPU_THREADS)
    fgpu_bfa_emit_kernel(const struct fgpu_code c, const struct gpu_batch b,
                         const struct fgpu_ws ws, const int8_t *in_base, size_t in_stride)
{
	__shared__ struct fgpu_smem sm;
	const uint32_t nb = c.info_bits, nbytes = (nb + 7) / 8;

	load_tables(c, sm, 2 * 8 * 256);
	for (uint32_t f = blockIdx.x * blockDim.x + threadIdx.x; f < b.count;
	     f += gridDim.x * blockDim.x) {
		struct fec_job *job = &b.jobs[f];

		if (job->status == FECD_STATUS_ERASED)
			continue;
		const int done = ws.T[2 * f];
		const struct fgpu_pick p =
		    bfa_pick(c, done, ws.T[2 * f + 1], ws.depth_i[2 * f], ws.depth_i[2 * f + 1]);
		const uint64_t *fd = ws.path + 2 * f, *bd = fd + 1;
		uint8_t *out = b.out + (size_t)f * b.out_stride;

		for (uint32_t w = 0; w * 8 < nbytes; w++)
			store_out_word(out, w, nbytes, out_word(c, fd, bd, ws.slots, p, w));
		if (done >= 2)
			job->metric = (float)out_metric(c, sm, in_base + (size_t)f * in_stride, fd,
			                                bd, ws.slots, p) /
			              16.0f;
	}
}

/* Packed 4-bit or float32 input to int8 LLRs, as softbits.c converts them on the CPU (s4: two's
 * complement, -8 -> -7, times 18; f32: round(llr * scale) half away from zero, clamped to +-127,
 * NaN -> 0). */
__global__ void fgpu_convert_kernel(const struct fgpu_code c, const struct gpu_batch b, float scale,
                                    int8_t *out, size_t ostride)
{
	const size_t total = (size_t)b.count * c.frame_syms;

	for (size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; x < total;
	     x += (size_t)gridDim.x * blockDim.x) {
		const uint32_t f = (uint32_t)(x / c.frame_syms), s = (uint32_t)(x % c.frame_syms);
		const char *slot = (const char *)b.in + (size_t)f * b.in_stride;
		int v;

		if (b.jobs[f].in_len != c.frame_syms)
			continue;
		if (b.in_kind == GPU_IN_S4_LLR) {
			const unsigned byte = ((const uint8_t *)slot)[s / 2];

			v = (int)((s & 1u) ? byte & 0xfu : byte >> 4);
			v = v >= 8 ? v - 16 : v;
			v = (v == -8 ? -7 : v) * 18;
		} else {
			const float y = ((const float *)slot)[s] * scale;

			v = isnan(y)       ? 0
			    : y >= 127.0f  ? 127
			    : y <= -127.0f ? -127
			                   : (int)lroundf(y);
		}
		out[(size_t)f * ostride + s] = (int8_t)v;
	}
}

/* A packed 4-bit value (two's complement) as softbits.c widens it: -8 -> -7, times 18. */
__device__ __forceinline__ uint64_t s4_llr(unsigned nibble)
{
	const int v = nibble >= 8 ? (int)nibble - 16 : (int)nibble;

	return (uint8_t)(int8_t)((v == -8 ? -7 : v) * 18);
}

/* Packed 4-bit input to int8 LLRs, 8 symbols a thread: four packed bytes in, one 8-byte word
 * out (the int8 rows are 16-byte aligned and padded to 16 bytes, so a frame's last word stays
 * in its row), the frame found by one 32-bit division per 8 symbols. The kernel above spends a
 * 64-bit division and a byte store per symbol: it bounded 4-bit input with transfers at
 * ~80 % of the host link (FANO_GPU.md). total = count x chunks < 2^32 (the launcher checks). */
__global__ void fgpu_s4_kernel(const struct fgpu_code c, const struct gpu_batch b, int8_t *out,
                               size_t ostride, uint32_t chunks, uint32_t total)
{
	const uint32_t nbytes = (c.frame_syms + 1) / 2;

	for (uint32_t x = blockIdx.x * blockDim.x + threadIdx.x; x < total;
	     x += gridDim.x * blockDim.x) {
		const uint32_t f = x / chunks, k = x - f * chunks;
		const uint8_t *slot = (const uint8_t *)b.in + (size_t)f * b.in_stride;
		uint64_t word = 0;

		if (b.jobs[f].in_len != c.frame_syms)
			continue;
		for (unsigned i = 0; i < 4; i++) {
			const uint32_t at = 4 * k + i;
			const unsigned byte = at < nbytes ? slot[at] : 0;

			word |= s4_llr(byte >> 4) << (16 * i) | s4_llr(byte & 0xfu) << (16 * i + 8);
		}
		*(uint64_t *)(out + (size_t)f * ostride + 8 * (size_t)k) = word;
	}
}

static size_t align256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

size_t fgpu_ws_layout(const struct fgpu_code *c, uint32_t count, void *base, struct fgpu_ws *ws)
{
	const uint32_t slots = count * (c->bfa ? 2 : 1);
	const size_t in8_stride = (c->frame_syms + 15) & ~(size_t)15;
	char *p = (char *)base;
	size_t off = 0;

#define TAKE(field, type, n)                                                                       \
	do {                                                                                       \
		if (ws)                                                                            \
			ws->field = (type *)(p + off);                                             \
		off += align256((size_t)(n) * sizeof(type));                                       \
	} while (0)
	if (ws) {
		ws->slots = slots;
		ws->in8_stride = in8_stride;
	}
	TAKE(in8, int8_t, in8_stride * count);
	TAKE(path, uint64_t, (size_t)c->words * slots);
	TAKE(T, int32_t, slots);
	TAKE(gamma, int32_t, slots);
	TAKE(state, uint64_t, slots);
	TAKE(depth_i, uint32_t, slots);
	TAKE(used, uint32_t, count);
	TAKE(list[0], uint32_t, count);
	TAKE(list[1], uint32_t, count);
	TAKE(counter, uint32_t, 2 * FGPU_RUNGS); /* the counters, then the cursors */
#undef TAKE
	if (ws)
		ws->cursor = ws->counter + FGPU_RUNGS;
	return off;
}

typedef void (*fgpu_kernel_fn)(const struct fgpu_code, const struct gpu_batch, const struct fgpu_ws,
                               const int8_t *, size_t, unsigned, uint32_t);

/* UFA for n = N: a code word from one table where K <= 8, a 32-bit state where K <= 32; the
 * build of c->kernel (FECD_FANO_GPU_KERNEL: 0 last session's walker, 1 the new one, 2 the new
 * one a step of a cycle per loop iteration). */
template <int N> static fgpu_kernel_fn ufa_kernel(const struct fgpu_code *c)
{
	switch (c->kernel) {
	case 0:
		if (c->lut_bytes == 1)
			return fgpu_ufa_kernel<FGPU_V_REG, false, N, uint32_t, 1>;
		if (c->k <= 32)
			return fgpu_ufa_kernel<FGPU_V_REG, false, N, uint32_t, 4>;
		return fgpu_ufa_kernel<FGPU_V_REG, false, N, uint64_t, 8>;
	case 1:
		if (c->lut_bytes == 1)
			return fgpu_ufa_kernel<FGPU_V_UFA, false, N, uint32_t, 1>;
		if (c->k <= 32)
			return fgpu_ufa_kernel<FGPU_V_UFA, false, N, uint32_t, 4>;
		return fgpu_ufa_kernel<FGPU_V_UFA, false, N, uint64_t, 8>;
	default:
		if (c->lut_bytes == 1)
			return fgpu_ufa_kernel<FGPU_V_UFA, true, N, uint32_t, 1>;
		if (c->k <= 32)
			return fgpu_ufa_kernel<FGPU_V_UFA, true, N, uint32_t, 4>;
		return fgpu_ufa_kernel<FGPU_V_UFA, true, N, uint64_t, 8>;
	}
}

/* BFA for n = N and the register width (the new walker), or last session's walker built for
 * any code (c->kernel 0). */
template <int N> static fgpu_kernel_fn bfa_kernel(const struct fgpu_code *c)
{
	if (c->kernel == 0)
		return fgpu_bfa_kernel<FGPU_V_REG, 0, uint64_t, 8>;
	if (c->k <= 32)
		return fgpu_bfa_kernel<FGPU_V_BFA, N, uint32_t, 4>;
	return fgpu_bfa_kernel<FGPU_V_BFA, N, uint64_t, 8>;
}

/* The rung kernel for the code: UFA and BFA built for its n (2, 3, 4) and register width (the
 * common codes' fast paths). */
static fgpu_kernel_fn rung_kernel(const struct fgpu_code *c)
{
	switch (c->n) {
	case 2:
		return c->bfa ? bfa_kernel<2>(c) : ufa_kernel<2>(c);
	case 3:
		return c->bfa ? bfa_kernel<3>(c) : ufa_kernel<3>(c);
	default:
		return c->bfa ? bfa_kernel<4>(c) : ufa_kernel<4>(c);
	}
}

int fgpu_shape(const struct fgpu_code *c, int *threads, int *blocks_per_sm, int *regs)
{
	struct cudaFuncAttributes a;
	const void *k = (const void *)rung_kernel(c);
	cudaError_t e = cudaFuncGetAttributes(&a, k);

	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, FGPU_THREADS,
		                                                  0);
	*threads = FGPU_THREADS;
	*regs = a.numRegs;
	return (int)e;
}

unsigned fgpu_rungs(const struct fgpu_code *c, bool ladder, uint32_t rung[FGPU_RUNGS])
{
	/* the first rung: BFA 2 cycles per stage (the average at 4 dB on whd-k7 is under that),
	 * UFA 8 (its persistent threads do not wait for a warp's slowest frame, and a frame
	 * stopped and resumed costs its queue: on the H200, one rung of the channel's budget was
	 * up to 4% faster than a first rung of 2); each next one 4 times the one before; all
	 * even, so that a BFA rung ends after the BD's cycle, except the channel's budget itself */
	uint64_t r = (c->bfa ? 2ull : 8ull) * c->stages;
	unsigned n = 0;

	while (ladder && r < c->budget && n < FGPU_RUNGS - 1) {
		rung[n++] = (uint32_t)r;
		r *= 4;
	}
	rung[n++] = c->budget;
	return n;
}

int fgpu_launch(const struct fgpu_code *c, const struct gpu_batch *b, void *ws_base, int threads,
                int grid, const uint32_t *rung, unsigned nrungs, cudaStream_t s)
{
	struct fgpu_ws ws;
	const int8_t *in = (const int8_t *)b->in;
	size_t in_stride = b->in_stride;
	const uint32_t tpf = c->bfa ? 2 : 1;
	uint32_t blocks = (uint32_t)(((uint64_t)b->count * tpf + threads - 1) / threads);
	cudaError_t e;

	fgpu_ws_layout(c, b->count, ws_base, &ws);
	if (blocks > (uint32_t)grid)
		blocks = (uint32_t)grid;
	e = cudaMemsetAsync(ws.counter, 0, 2 * FGPU_RUNGS * sizeof(uint32_t), s);
	if (e != cudaSuccess)
		return (int)e;
	if (b->in_kind != GPU_IN_S8_LLR) {
		const size_t total = (size_t)b->count * c->frame_syms;
		const uint32_t cb = (uint32_t)((total + 255) / 256);
		const uint32_t cgrid = cb < 65535u ? cb : 65535u;
		const size_t in_stride8 = ws.in8_stride;

		const uint64_t chunks = (c->frame_syms + 7) / 8, words = b->count * chunks;
		int8_t *out = ws.in8;

		if (b->in_kind == GPU_IN_S4_LLR && words < UINT32_MAX) {
			const uint64_t wb = (words + 255) / 256;

			fgpu_s4_kernel<<<(unsigned)(wb < 65535 ? wb : 65535), 256, 0, s>>>(
			    *c, *b, out, in_stride8, (uint32_t)chunks, (uint32_t)words);
		} else {
			fgpu_convert_kernel<<<cgrid, 256, 0, s>>>(*c, *b, c->llr_scale, out,
			                                          in_stride8);
		}
		in = ws.in8;
		in_stride = ws.in8_stride;
	}
	const fgpu_kernel_fn k = rung_kernel(c);

	for (unsigned r = 0; r < nrungs; r++)
		k<<<blocks, threads, 0, s>>>(*c, *b, ws, in, in_stride, r, rung[r]);
	if (!c->bfa && b->count) {
		const size_t total = (size_t)b->count * ((c->info_bits + 63) / 64);
		const size_t eb = (total + 255) / 256;

		fgpu_emit_kernel<<<(unsigned)(eb < 65535 ? eb : 65535), 256, 0, s>>>(*c, *b, ws);
	}
	if (c->bfa && b->count) {
		const uint32_t eb = (b->count + FGPU_THREADS - 1) / FGPU_THREADS;
		const uint32_t egrid = eb < 65535 ? eb : 65535;

		fgpu_bfa_emit_kernel<<<egrid, FGPU_THREADS, 0, s>>>(*c, *b, ws, in, in_stride);
	}
	return (int)cudaGetLastError();
}
