/*
 * The fast LDPC kernel's rows of 9 to 32 edges (ldpc_gpu_fast.cu with R = 2 or 4 records of 8
 * columns per row: DVB-S2's other rates, 5G NR, 802.11n's high rates). The arithmetic is the
 * short rows' (ldpc_gpu_fast.cuh: two frames in 16-bit halves, the same message codes and
 * selectors), with what does not fit a row of 32 edges in registers done differently: the two
 * smallest magnitudes are updated edge after edge instead of by a tree, |x| is recomputed in
 * the second pass instead of kept, and the codes are gathered word by word (8 edges each).
 * Device code only; LDPC_GPU.md has the design.
 */
#ifndef LDPC_GPU_LONG_CUH
#define LDPC_GPU_LONG_CUH

#include "ldpc_gpu_fast.cuh"

/* A row's compressed messages in the workspace: w[0] the scaled magnitudes (bytes m2'0 m1'0
 * m2'1 m1'1, as fast_row's rec.x), w[1 + j] the codes of edges 8 j .. 8 j + 7 (as fast_row's
 * rec.y); padded to a whole vector load. */
template <int R> struct __align__(R == 1 ? 8 : 16) fast_rec
{
	uint32_t w[R == 1 ? 2 : R == 2 ? 4 : 8];
};

/* |x| of both halves, x * -1 - 1 = ~x on the FMA pipe (fast_row). */
__device__ __forceinline__ uint32_t abs16(uint32_t x, uint32_t minus1)
{
	return max_s16(x, add16(x * minus1 + minus1, 0x00010001u));
}

/* One row of up to 8 R edges for both frames (its columns in R records, 0xffff past the row's
 * end), rec its messages in and out. k, four, minus1: as fast_row. */
template <int ALGO, int R, int LAYOUT, bool FIRST>
__device__ __forceinline__ void fast_row_long(const app_store<LAYOUT> &app, const uint4 *cols,
                                              fast_rec<R> &rec, uint32_t k, uint32_t four,
                                              uint32_t minus1)
{
	enum { D = 8 * R };
	uint32_t xe[D];
	uint32_t m1 = 0x7fff7fffu, m2 = 0x7fff7fffu, sx = 0;

	{
		const uint32_t nb = neg_bytes(rec.w[0], minus1);
		const uint32_t pn = prmt(rec.w[0], nb, 0x1054u), qn = prmt(rec.w[0], nb, 0x3276u);

#pragma unroll
		for (int e = 0; e < D; e++) {
			const uint32_t cw = (&cols[e / 8].x)[(e % 8) / 2];
			const uint32_t col = (e & 1) ? cw >> 16 : cw & 0xffffu;

			xe[e] = 0;
			if (col == LGPU_PAD_COL)
				continue;
			const uint32_t t = code_sel2(rec.w[1 + e / 8], e % 4);
			const uint32_t ap = app.load(col);
			const uint32_t x =
			    FIRST ? ap : add16(ap, prmt(pn, qn, (e % 8) < 4 ? t : t >> 16));
			const uint32_t av = abs16(x, minus1);

			sx ^= x; /* sat8 keeps the sign */
			xe[e] = x;
			m2 = min_u16(m2, max_u16(m1, av));
			m1 = min_u16(m1, av);
		}
	}
	const struct row_msgs out = row_msgs_of<ALGO>(m1, m2, k, minus1);

	rec.w[0] = out.mx;
#pragma unroll
	for (int j = 0; j < R; j++) {
		uint32_t bits = 0;

		/* the word's codes by Horner's rule from its last edge (fast_row) */
#pragma unroll
		for (int e = 8 * j + 7; e >= 8 * j; e--) {
			const uint32_t cw = (&cols[j].x)[(e % 8) / 2];
			const uint32_t col = (e & 1) ? cw >> 16 : cw & 0xffffu;
			uint32_t v = 0;

			if (col != LGPU_PAD_COL) {
				v = msg_code(abs16(xe[e], minus1), xe[e], sx, out.kk);
				app.store(col, add16(xe[e], prmt(out.p, out.q, msg_sel(v))));
			}
			bits = bits * four + v;
		}
		rec.w[1 + j] = rec_codes(bits);
	}
}

#endif
