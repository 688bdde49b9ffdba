/*
 * Bit packing, MSB first, as every fecd payload carries decoded bits. Plain byte loops: these run
 * once per output frame, far from the decoder's inner loops. And the LSB-first word packing of
 * the encoders' word-parallel paths, which run per bit of a simulation: 8 bits at a time.
 */
#include <string.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "bitpack.h"

void fec_pack_bits(const uint8_t *bits, size_t n, uint8_t *packed)
{
	size_t i = 0;

	/* a byte at a time, no branch per bit: on random bits that branch went wrong half the
	 * time (2 % of an nbldpc tms frame's decode on B1C) */
	for (; i + 8 <= n; i += 8) {
		unsigned v = 0;

		for (unsigned t = 0; t < 8; t++)
			v = v << 1 | (bits[i + t] != 0);
		packed[i >> 3] = (uint8_t)v;
	}
	if (i < n) { /* the last bits, zeros after them */
		unsigned v = 0;

		for (unsigned t = 0; t < 8; t++)
			v = v << 1 | (i + t < n && bits[i + t] != 0);
		packed[i >> 3] = (uint8_t)v;
	}
}

void fec_unpack_bits(const uint8_t *packed, size_t n, uint8_t *bits)
{
	for (size_t i = 0; i < n; i++)
		bits[i] = (packed[i >> 3] >> (7 - (i & 7))) & 1u;
}

static inline unsigned get_bit(const uint8_t *p, size_t i)
{
	return (p[i >> 3] >> (7 - (i & 7))) & 1u;
}

static inline void put_bit(uint8_t *p, size_t i, unsigned v)
{
	uint8_t mask = (uint8_t)(0x80u >> (i & 7));

	if (v)
		p[i >> 3] |= mask;
	else
		p[i >> 3] &= (uint8_t)~mask;
}

void fec_copy_bits(uint8_t *dst, size_t dst_off, const uint8_t *src, size_t src_off, size_t n)
{
	/* Byte-aligned on both sides is the common case (outputs of whole blocks): copy bytes. */
	if ((dst_off & 7) == 0 && (src_off & 7) == 0) {
		size_t whole = n / 8;

		memmove(dst + dst_off / 8, src + src_off / 8, whole);
		dst_off += whole * 8;
		src_off += whole * 8;
		n -= whole * 8;
	}
	for (size_t i = 0; i < n; i++)
		put_bit(dst, dst_off + i, get_bit(src, src_off + i));
}

size_t fec_count_bit_errors(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t errors = 0, i = 0;
	size_t whole = n / 8;

	/* 8 bytes a count (a simulation counts every decoded bit; the order does not matter) */
	for (; i + 8 <= whole; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		errors += (size_t)__builtin_popcountll(x ^ y);
	}
	for (; i < whole; i++)
		errors += (size_t)__builtin_popcount((unsigned)(a[i] ^ b[i]));
	if (n & 7) {
		uint8_t mask = (uint8_t)(0xffu << (8 - (n & 7)));

		errors += (size_t)__builtin_popcount((unsigned)((a[whole] ^ b[whole]) & mask));
	}
	return errors;
}

/* 8 bytes (any non-zero one a 1) as 8 bits, the first in bit 0: each byte's bits folded into its
 * bit 0, then gathered into the top byte by one multiplication (no carries reach it). */
static inline uint64_t pack8(const uint8_t *b)
{
	uint64_t v = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, b, 8);
#else
	for (unsigned k = 0; k < 8; k++)
		v |= (uint64_t)b[k] << 8 * k;
#endif
	v |= v >> 4;
	v |= v >> 2;
	v |= v >> 1;
	v &= 0x0101010101010101ull;
	return v * 0x0102040810204080ull >> 56;
}

uint64_t fec_pack_word_lsb(const uint8_t *bits, size_t n)
{
	uint64_t u = 0;
	size_t j = 0;

	for (; j + 8 <= n; j += 8)
		u |= pack8(bits + j) << j;
	for (; j < n; j++)
		u |= (uint64_t)(bits[j] != 0) << j;
	return u;
}

/* nib2[v]: the 4 bits of v at bytes 0, 2, 4, 6 (two words' bits interleaved a byte each) */
static const uint64_t nib2[16] = {
    0x0000000000000000ull, 0x0000000000000001ull, 0x0000000000010000ull, 0x0000000000010001ull,
    0x0000000100000000ull, 0x0000000100000001ull, 0x0000000100010000ull, 0x0000000100010001ull,
    0x0001000000000000ull, 0x0001000000000001ull, 0x0001000000010000ull, 0x0001000000010001ull,
    0x0001000100000000ull, 0x0001000100000001ull, 0x0001000100010000ull, 0x0001000100010001ull};

/* The 8 bits of v one a byte, bit 0 in the low byte: v copied to every byte, bit i kept in byte
 * i, which + 0x7f carries into its top bit (no byte overflows into the next). */
static inline uint64_t spread8(uint64_t v)
{
	const uint64_t x = (v & 255) * 0x0101010101010101ull & 0x8040201008040201ull;

	return (x + 0x7f7f7f7f7f7f7f7full) >> 7 & 0x0101010101010101ull;
}

/* pair[nw - 3][v]: the 2 bits of v at bytes 0 and nw */
static const uint64_t pair[2][4] = {{0, 1, 1ull << 24, 1ull << 24 | 1},
                                    {0, 1, 1ull << 32, 1ull << 32 | 1}};

void fec_spread_words_lsb(const uint64_t *w, unsigned nw, size_t n, uint8_t *out)
{
	size_t j = 0, o = 0;

#if defined(__SSE2__) && defined(__x86_64__)
	/* two words 8 bits at a time: each byte spread to 8 bytes, the two interleaved */
	if (nw == 2)
		for (; j + 8 <= n; j += 8, o += 16) {
			const __m128i a = _mm_cvtsi64_si128((long long)spread8(w[0] >> j));
			const __m128i b = _mm_cvtsi64_si128((long long)spread8(w[1] >> j));

			_mm_storeu_si128((__m128i *)(out + o), _mm_unpacklo_epi8(a, b));
		}
#endif
	if (nw == 2)
		for (; j + 4 <= n; j += 4, o += 8)
			fec_store_le64(out + o, nib2[w[0] >> j & 15] | nib2[w[1] >> j & 15] << 8);
	/* three or four words: two stages' 6 or 8 bytes in one store of 8, while 8 remain */
	for (; (nw == 3 || nw == 4) && j + 2 <= n && (n - j) * nw >= 8; j += 2, o += 2 * nw) {
		uint64_t x = 0;

		for (unsigned r = 0; r < nw; r++)
			x |= pair[nw - 3][w[r] >> j & 3] << (8 * r);
		fec_store_le64(out + o, x);
	}
	for (; j < n; j++)
		for (unsigned r = 0; r < nw; r++)
			out[o++] = (uint8_t)(w[r] >> j & 1u);
}
