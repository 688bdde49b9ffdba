/* Bit packing, MSB first: bit i of a sequence is bit (7 - i % 8) of byte i / 8. */
#ifndef FEC_BITPACK_H
#define FEC_BITPACK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* bits: one bit per byte (0 or nonzero). packed: (n + 7) / 8 bytes; trailing bits are zero. */
void fec_pack_bits(const uint8_t *bits, size_t n, uint8_t *packed);
void fec_unpack_bits(const uint8_t *packed, size_t n, uint8_t *bits);
/* Copies n packed bits starting at bit src_off of src to bit dst_off of dst. */
void fec_copy_bits(uint8_t *dst, size_t dst_off, const uint8_t *src, size_t src_off, size_t n);
/* Number of differing bits among the first n of two packed sequences. */
size_t fec_count_bit_errors(const uint8_t *a, const uint8_t *b, size_t n);

/* For the encoders' word-parallel paths, LSB first: up to 64 bits, one a byte (nonzero: 1),
 * as a word whose bit j is bits[j] (8 at a time); and the reverse for nw words interleaved,
 * out[j * nw + r] = bit j of w[r] for j < n (two words 4 bits at a time, three or four 2). */
uint64_t fec_pack_word_lsb(const uint8_t *bits, size_t n);
void fec_spread_words_lsb(const uint64_t *w, unsigned nw, size_t n, uint8_t *out);

/* A word's bytes in little-endian order (a vector register's order on x86) on any machine. */
static inline void fec_store_le64(uint8_t *dst, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(dst, &w, 8);
#else
	for (unsigned k = 0; k < 8; k++)
		dst[k] = (uint8_t)(w >> 8 * k);
#endif
}

#endif
