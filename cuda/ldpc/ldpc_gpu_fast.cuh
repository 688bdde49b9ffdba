/*
 * The fast LDPC kernel's building blocks (ldpc_gpu_fast.cu): 16x2 arithmetic on a frame pair's
 * values (one frame per 16-bit half), the shared-memory store of their a-posteriori values
 * (32-bit words and 12-bit packed columns), the compressed message codes, the check rule's
 * normalisation and two-minimum search, and the loading of a pair's channel values. Device code
 * only; LDPC_GPU.md has the design.
 */
#ifndef LDPC_GPU_FAST_CUH
#define LDPC_GPU_FAST_CUH

#include "ldpc_gpu.cuh"

/* ---- 16x2 helpers (PTX: add/min/max on .s16x2/.u16x2 are Hopper instructions) */

__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel)
{
	uint32_t d;

	asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
	return d;
}

__device__ __forceinline__ uint32_t add16(uint32_t a, uint32_t b)
{
	uint32_t d;

	asm("add.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
}

__device__ __forceinline__ uint32_t min_s16(uint32_t a, uint32_t b)
{
	uint32_t d;

	asm("min.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
}

__device__ __forceinline__ uint32_t min_u16(uint32_t a, uint32_t b)
{
	uint32_t d;

	asm("min.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
}

__device__ __forceinline__ uint32_t max_u16(uint32_t a, uint32_t b)
{
	uint32_t d;

	asm("max.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
}

__device__ __forceinline__ uint32_t max_s16(uint32_t a, uint32_t b)
{
	uint32_t d;

	asm("max.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
}

/* The pair of frames' a-posteriori values in shared memory (enum lgpu_layout). Packed: hi[v]
 * holds bits 4..11 of each frame's value + 2048 (frame 0 in the low byte), lo[v] bits 0..3
 * (frame 0 in the low nibble); a word w[v] is the 16x2 value itself. Mixed: words below split,
 * packed from there (hi and lo point split entries before their arrays, so that both are
 * indexed by the column). The _w and _p accessors are for callers that know the kind. */
template <int LAYOUT> struct app_store {
	uint32_t *w;
	uint16_t *hi;
	uint8_t *lo;
	uint32_t split;

	__device__ __forceinline__ bool word(uint32_t v) const
	{
		return LAYOUT == LGPU_APP_WORDS || (LAYOUT == LGPU_APP_MIXED && v < split);
	}
	/* A packed entry's value from its parts (h: its hi entry, l: its lo entry), and a value's
	 * parts (u: the value biased). (Multiplies where they can stand for shifts: they run on
	 * the FMA pipe, the shifts on the busier integer ALU pipe, LDPC_GPU.md.) */
	static __device__ __forceinline__ uint32_t unpack(const uint16_t *h, const uint8_t *l)
	{
		/* hi's bytes to bits 4 and 20, lo's nibbles to bits 0 and 16 */
		const uint32_t hb = prmt((uint32_t)*h, 0, 0x4140u) * 16u;
		const uint32_t lb = (uint32_t)*l * 0x1001u;

		return add16((lb & 0x000f000fu) | hb, 0xf800f800u);
	}
	static __device__ __forceinline__ uint32_t biased(uint32_t x)
	{
		/* 0..4095 in each half: bits 12-15 of the low half are 0 */
		return add16(x, 0x08000800u);
	}
	static __device__ __forceinline__ uint16_t hi_part(uint32_t u)
	{
		return (uint16_t)prmt(u * 16u, 0, 0x31u);
	}
	static __device__ __forceinline__ uint8_t lo_part(uint32_t u)
	{
		return (uint8_t)((u & 0xfu) | (u >> 12));
	}
	__device__ __forceinline__ uint32_t load_p(uint32_t v) const
	{
		return unpack(hi + v, lo + v);
	}
	__device__ __forceinline__ void store_p(uint32_t v, uint32_t x) const
	{
		const uint32_t u = biased(x);

		hi[v] = hi_part(u);
		lo[v] = lo_part(u);
	}
	/* The same with the column's byte offsets by multiply-adds for the mixed layout (four,
	 * two, one from kernel parameters): an address is then one IMAD on the FMA pipe, where
	 * base + v * 4 is a shift and a mask or a LEA on the integer ALU pipe, the busier one
	 * there (LDPC_GPU.md; the words layout's busier pipe is the FMA pipe: MacKay N=8000 lost
	 * 13% with them). */
	__device__ __forceinline__ uint32_t *word_at(uint32_t v, uint32_t four) const
	{
		if (LAYOUT != LGPU_APP_MIXED)
			return w + v;
		return (uint32_t *)((char *)w + v * four);
	}
	__device__ __forceinline__ uint16_t *hi_at(uint32_t v, uint32_t two) const
	{
		if (LAYOUT != LGPU_APP_MIXED)
			return hi + v;
		return (uint16_t *)((char *)hi + v * two);
	}
	__device__ __forceinline__ uint8_t *lo_at(uint32_t v, uint32_t one) const
	{
		return LAYOUT != LGPU_APP_MIXED ? lo + v : lo + v * one;
	}
	__device__ __forceinline__ uint32_t load_pm(uint32_t v, uint32_t two, uint32_t one) const
	{
		return unpack(hi_at(v, two), lo_at(v, one));
	}
	__device__ __forceinline__ void store_pm(uint32_t v, uint32_t x, uint32_t two,
	                                         uint32_t one) const
	{
		const uint32_t u = biased(x);

		*hi_at(v, two) = hi_part(u);
		*lo_at(v, one) = lo_part(u);
	}
	__device__ __forceinline__ uint32_t load(uint32_t v) const
	{
		return word(v) ? w[v] : load_p(v);
	}
	__device__ __forceinline__ void store(uint32_t v, uint32_t x) const
	{
		if (word(v))
			w[v] = x;
		else
			store_p(v, x);
	}
	/* Frame h's value, in plain integer arithmetic: the output path reads it once per bit
	 * (and ptxas was seen to drop the bias of the 16x2 form for frame 0 when only that half
	 * is used). */
	__device__ __forceinline__ int value(uint32_t v, int h) const
	{
		if (word(v))
			return (int16_t)(w[v] >> (16 * h));
		return (int)((((uint32_t)hi[v] >> (8 * h)) & 0xffu) << 4 |
		             (((uint32_t)lo[v] >> (4 * h)) & 0xfu)) -
		       2048;
	}
	/* Sign bits of the two values: bit 15 (frame 0) and bit 31 (frame 1), other bits junk. */
	__device__ __forceinline__ uint32_t signs_p(uint32_t v) const
	{
		/* bit 7 of a biased byte is "not negative": bytes 0, 1 to bits 15, 31 */
		return ~prmt((uint32_t)hi[v], 0, 0x1404u);
	}
	__device__ __forceinline__ uint32_t signs(uint32_t v) const
	{
		return word(v) ? w[v] : signs_p(v);
	}
};

/* Selector for PRMT(P, Q): message code c0 (frame 0, bits 0-1) and c1 (bits 16-17), each
 * "not the minimum" + 2 * "negative", picks byte c0 of P and c1 of Q, each sign-extended
 * into its half. */
__device__ __forceinline__ uint32_t msg_sel(uint32_t v)
{
	return (v + (v >> 8)) * 0x11u + 0xc480u;
}

/* The stored codes of a row: edge e's c0 at bit s(e) and c1 at s(e) + 8, s(e) = 2e for e < 4,
 * 16 + 2 (e - 4) after, so that one multiply-add of the field at 2e gives the selectors of edges
 * e (low half) and e + 4 (high half), e < 4; rec_codes makes that order from c0 at 2e and c1
 * at 16 + 2e, as pass 2 builds them. */
__device__ __forceinline__ uint32_t code_sel2(uint32_t y, int e)
{
	return ((y >> (2 * e)) & 0x03030303u) * 0x11u + 0xc480c480u;
}

__device__ __forceinline__ uint32_t rec_codes(uint32_t bits)
{
	return prmt(bits, 0, 0x3120u);
}

/* Per-byte negation of magnitudes 0..127 without carries between bytes; minus1 = -1, unseen by
 * the compiler, so that the subtraction is a multiply-add (FMA pipe, LDPC_GPU.md). */
__device__ __forceinline__ uint32_t neg_bytes(uint32_t m, uint32_t minus1)
{
	return (m * minus1 + 0x80808080u) ^ 0x80808080u;
}

/* The check rule's normalisation of both halves' magnitude (0..127), in bytes 0 and 2 of the
 * result, or, for nms, bytes 1 and 3 (NORM_HI): m * 16 alpha16 <= 32512 puts (m alpha16) >> 4
 * there with one multiply and no carry between halves, where the shift and mask would load the
 * integer ALU pipe. */
template <int ALGO> struct norm_at {
	static const bool hi = ALGO == LDPC_ALGO_NMS;
};

template <int ALGO> __device__ __forceinline__ uint32_t norm16(uint32_t m, uint32_t k)
{
	if (ALGO == LDPC_ALGO_NMS) /* k = 16 alpha16 */
		return m * k;
	if (ALGO == LDPC_ALGO_OMS) /* max(m - offset8, 0); k = -offset8 in each half */
		return max_s16(add16(m, k), 0);
	return m;
}

/* A row's outgoing messages from the two smallest |x| of each half (m1 <= m2): mx, the stored
 * magnitudes (bytes m2'0 m1'0 m2'1 m1'1: normalised, capped at 127, sat8's bound); p, q: the
 * messages by code (msg_code) for frames 0 and 1, bytes m2', m1', -m2', -m1'; kk = 0x3fff - m1
 * in each half, msg_code's test. An edge of |x| > 127 counts as "not the minimum" even where m1
 * is 127; m2 is then 127 too, and the message the same. */
struct row_msgs {
	uint32_t mx, p, q, kk;
};

template <int ALGO>
__device__ __forceinline__ struct row_msgs row_msgs_of(uint32_t m1, uint32_t m2, uint32_t k,
                                                       uint32_t minus1)
{
	m1 = min_u16(m1, 0x007f007fu);
	m2 = min_u16(m2, 0x007f007fu);
	const uint32_t m1s = norm16<ALGO>(m1, k), m2s = norm16<ALGO>(m2, k);
	const uint32_t mx = prmt(m2s, m1s, norm_at<ALGO>::hi ? 0x7351u : 0x6240u);
	const uint32_t nb = neg_bytes(mx, minus1);

	return {mx, prmt(mx, nb, 0x5410u), prmt(mx, nb, 0x7632u), m1 * minus1 + 0x3fff3fffu};
}

/* An edge's message code in each half (bits 0-1: frame 0, 16-17: frame 1), "not the minimum"
 * + 2 "negative", from its |x| (a >= m1, a - m1 <= 0x4000), its x and the row's sign sx: a +
 * kk has bit 14 set exactly when a != m1; bit 15 of sx ^ x is the message's sign. */
__device__ __forceinline__ uint32_t msg_code(uint32_t a, uint32_t x, uint32_t sx, uint32_t kk)
{
	const uint32_t u = add16(a, kk);
	const uint32_t wv = sx ^ x;
	const uint32_t z = (u & 0x40004000u) | (wv & ~0x40004000u);

	return (z >> 14) & 0x00030003u;
}

/* m1 <= m2, the two smallest of a[0..D-1] in each half (magnitudes below 2048; m2 at most 127
 * for odd D, which the caller's cap at 127 makes no difference), by a tree: sorted
 * pairs, then pairs of pairs merged, (a1, a2) with (b1, b2) giving (min(a1, b1),
 * min(max(a1, b1), min(a2, b2))). The same values as updating m1, m2 edge after edge, with a
 * dependent path of 5 steps instead of 14 for 7 edges, and fewer instructions. */
template <int D>
__device__ __forceinline__ void two_min(const uint32_t *a, uint32_t &m1, uint32_t &m2)
{
	uint32_t p1[(D + 1) / 2], p2[(D + 1) / 2];

#pragma unroll
	for (int i = 0; i < D / 2; i++) {
		p1[i] = min_u16(a[2 * i], a[2 * i + 1]);
		p2[i] = max_u16(a[2 * i], a[2 * i + 1]);
	}
	if (D & 1) {
		p1[D / 2] = a[D - 1];
		p2[D / 2] = 0x007f007fu;
	}
#pragma unroll
	for (int n = (D + 1) / 2; n > 1; n = (n + 1) / 2) {
#pragma unroll
		for (int i = 0; i < n / 2; i++) {
			const uint32_t x1 = p1[2 * i], x2 = p2[2 * i], y1 = p1[2 * i + 1],
			               y2 = p2[2 * i + 1];

			p1[i] = min_u16(x1, y1);
			p2[i] = min_u16(max_u16(x1, y1), min_u16(x2, y2));
		}
		if (n & 1) {
			p1[n / 2] = p1[n - 1];
			p2[n / 2] = p2[n - 1];
		}
	}
	m1 = p1[0];
	m2 = p2[0];
}

/* The smallest and the middle one of a, b, c in each half (magnitudes below 2048): the middle
 * one as the sum less the smallest and the largest, where the differences cannot borrow across
 * halves (a 32-bit multiply-add by minus1 = -1): adds on the FMA pipe for min/max on the
 * integer ALU pipe. */
__device__ __forceinline__ void low_two3(uint32_t a, uint32_t b, uint32_t c, uint32_t minus1,
                                         uint32_t &lo, uint32_t &mid)
{
	lo = min_u16(min_u16(a, b), c);
	mid = add16(lo, max_u16(max_u16(a, b), c)) * minus1 + add16(add16(a, b), c);
}

/* two_min of 7 magnitudes with less integer ALU work (DVB-S2's rows, mixed layout: its busier
 * pipe): the two smallest of two triples (low_two3) merged, then the seventh. */
__device__ __forceinline__ void two_min7(const uint32_t *a, uint32_t minus1, uint32_t &m1,
                                         uint32_t &m2)
{
	uint32_t x1, x2, y1, y2;

	low_two3(a[0], a[1], a[2], minus1, x1, x2);
	low_two3(a[3], a[4], a[5], minus1, y1, y2);
	const uint32_t q = min_u16(x1, y1), p = min_u16(min_u16(max_u16(x1, y1), x2), y2);

	m1 = min_u16(q, a[6]);
	m2 = min_u16(max_u16(q, a[6]), p);
}

/* Whether edge e (column col) of a row has a word: known from its position when NW >= 0 (the
 * row's first NW edges are words, the rest packed: mixed layout, columns sorted), else from the
 * column. */
template <int LAYOUT, int NW>
__device__ __forceinline__ bool edge_word(const app_store<LAYOUT> &app, int e, uint32_t col)
{
	if (LAYOUT == LGPU_APP_MIXED && NW >= 0)
		return e < NW;
	return app.word(col);
}

/* The pair's channel values into the app, IN columns per thread at a time: their loads all in
 * flight before the first store. f0: the pair's first frame; f1 = f0 + 1 (live1 false where it
 * is past the batch). */
template <int LAYOUT, int IN>
__device__ __forceinline__ void load_bytes(const struct lgpu_code &c, const struct gpu_batch &b,
                                           const app_store<LAYOUT> &app, uint32_t f0, bool live0,
                                           bool live1)
{
	for (uint32_t v0 = threadIdx.x; v0 < c.n; v0 += IN * blockDim.x) {
		uint32_t x[IN];

#pragma unroll
		for (int j = 0; j < IN; j++) {
			const uint32_t v = v0 + j * blockDim.x;
			uint32_t l0 = 0, l1 = 0;

			if (v < c.n && v >= c.punct) {
				if (live0)
					l0 = (uint32_t)lgpu_in8(b, f0, v - c.punct) & 0xffffu;
				if (live1)
					l1 = (uint32_t)lgpu_in8(b, f0 + 1, v - c.punct) & 0xffffu;
			}
			x[j] = l0 | l1 << 16;
		}
#pragma unroll
		for (int j = 0; j < IN; j++)
			if (v0 + j * blockDim.x < c.n)
				app.store(v0 + j * blockDim.x, x[j]);
	}
}

/* load_bytes four columns to a 32-bit load, where the input allows (words, below): a PRMT puts
 * column k of both frames, sign-extended, in the two halves. */
template <int LAYOUT, int IN>
__device__ __forceinline__ void load_words(const struct lgpu_code &c, const struct gpu_batch &b,
                                           const app_store<LAYOUT> &app, uint32_t f0, bool live0,
                                           bool live1)
{
	const uint32_t *in0 = (const uint32_t *)((const int8_t *)b.in + (size_t)f0 * b.in_stride);
	const uint32_t *in1 = (const uint32_t *)((const int8_t *)in0 + b.in_stride);
	const uint32_t nw = c.n / 4, pw = c.punct / 4;

	for (uint32_t w0 = threadIdx.x; w0 < nw; w0 += IN * blockDim.x) {
		uint32_t x0[IN], x1[IN];

#pragma unroll
		for (int j = 0; j < IN; j++) {
			const uint32_t w = w0 + j * blockDim.x;
			const bool in = w < nw && w >= pw;

			x0[j] = in && live0 ? in0[w - pw] : 0;
			x1[j] = in && live1 ? in1[w - pw] : 0;
		}
#pragma unroll
		for (int j = 0; j < IN; j++) {
			const uint32_t w = w0 + j * blockDim.x;

			if (w >= nw)
				continue;
#pragma unroll
			for (uint32_t k = 0; k < 4; k++) {
				const uint32_t v = prmt(x0[j], x1[j], 0xc480u + k * 0x1111u);

				app.store(4 * w + k, max_s16(v, 0xff81ff81u)); /* -128: -127 */
			}
		}
	}
}

#endif
