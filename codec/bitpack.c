/*
 * Bit packing, MSB first, as every fecd payload carries decoded bits. Plain byte loops: these run
 * once per output frame, far from the decoder's inner loops.
 */
#include <string.h>

#include "bitpack.h"

void fec_pack_bits(const uint8_t *bits, size_t n, uint8_t *packed)
{
	size_t nbytes = (n + 7) / 8;

	memset(packed, 0, nbytes);
	for (size_t i = 0; i < n; i++)
		if (bits[i])
			packed[i >> 3] |= (uint8_t)(0x80u >> (i & 7));
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
	size_t errors = 0;
	size_t whole = n / 8;

	for (size_t i = 0; i < whole; i++)
		errors += (size_t)__builtin_popcount((unsigned)(a[i] ^ b[i]));
	if (n & 7) {
		uint8_t mask = (uint8_t)(0xffu << (8 - (n & 7)));

		errors += (size_t)__builtin_popcount((unsigned)((a[whole] ^ b[whole]) & mask));
	}
	return errors;
}
