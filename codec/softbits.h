/*
 * Soft symbols: conversion of every wire format to fecd's internal int8 LLR (log(P0/P1) scaled,
 * positive favours 0, 0 neutral, -127..127), and quantizers from float LLRs to every wire format
 * (for the feed and the tests). The rules, which PROTOCOL.md repeats:
 *   f32: round(llr * scale) half away from zero, clamped to +-127; NaN -> 0.
 *   s8 : as is, -128 -> -127.
 *   u8 : offset binary, 0 = strong 0, 255 = strong 1: v <= 127 -> 127 - v, v >= 128 -> 128 - v.
 *   s4 : 4-bit two's complement, first symbol in the high nibble; -8 -> -7; times 18.
 * Inverted polarity (FECD_IN_POLARITY_ONE) negates the result. The vector format f32v (q float32
 * log-probabilities per q-ary symbol) is no bit format: fec_syms_to_f32v takes it into the float
 * slots of a code with q-ary input, value by value:
 *   f32v: as sent, magnitudes clamped to FEC_SYMLOGP_MAX (-inf included); a symbol holding a
 *         NaN carries no information and becomes q zeros (all values equally likely).
 */
#ifndef FEC_SOFTBITS_H
#define FEC_SOFTBITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Converts nsyms symbols of format fmt (enum fecd_format) at src into dst. Returns 0, or
 * -FEC_EINVAL for an unknown format. scale only matters for f32. For s4, src starts at a byte
 * boundary. */
int fec_syms_to_s8(int fmt, const void *src, size_t nsyms, bool polarity_one, float scale,
		   int8_t *dst);

/* Largest magnitude of a log-probability in a float slot: beyond it the decoders' sums could
 * overflow. */
#define FEC_SYMLOGP_MAX 1.0e6f

/* Converts nsyms q-ary symbols of format fmt (FECD_FMT_F32V: q little-endian float32 each, at
 * any alignment) at src into nsyms * q floats at dst. Returns 0, or -FEC_EINVAL for another
 * format or q < 2. */
int fec_syms_to_f32v(int fmt, const void *src, size_t nsyms, uint32_t q, float *dst);

/* Converts nsyms float LLRs (positive favours 0) into format fmt at dst (fecd_format_bytes(fmt,
 * nsyms) bytes). f32 is copied as is (times polarity); s8/u8/s4 quantize llr * scale first.
 * s4 carries round(llr * scale / 18) clamped to +-7, so that fec_syms_to_s8 gives back about
 * llr * scale whatever the format. */
int fec_llr_quantize(int fmt, const float *llr, size_t nsyms, bool polarity_one, float scale,
		     void *dst);

#endif
