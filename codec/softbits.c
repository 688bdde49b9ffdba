/*
 * Wire soft-symbol formats <-> fecd's internal int8 LLR, and q-ary symbol log-probabilities
 * into float slots. The rules are those of softbits.h (and PROTOCOL.md); the daemon converts
 * every received bit symbol through fec_syms_to_s8 once (a code with float32 input reads the
 * int8 value over its llr_scale, or an f32 LLR as sent), so 0 is the neutral value everywhere.
 *
 * Quantizers are the exact inverses where a format can carry the value: u8 maps q >= 0 to 127 - q
 * and q < 0 to 128 - q; s4 carries round(llr * scale / 18), so that a caller using one scale for
 * every format gets about the same int8 LLRs back after fec_syms_to_s8.
 */
#include <math.h>
#include <string.h>

#include "fec.h"
#include "softbits.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "f32v values are copied as host floats, which the protocol defines as little-endian"
#endif

#define S4_STEP 18

static int8_t f32_to_s8(float v)
{
	if (isnan(v))
		return 0;
	if (v >= 127.0f)
		return 127;
	if (v <= -127.0f)
		return -127;
	return (int8_t)lroundf(v);
}

/* The converters below run on every received symbol (on the daemon's loop thread), so each is a
 * loop over fixed chunks of CONV_CHUNK symbols with restrict pointers: GCC and Clang vectorise
 * such loops even at -O2 (no alias checks, no scalar epilogue inside a chunk). Polarity is an
 * xor-and-subtract mask (0 or -1) folded into the same pass. */
#define CONV_CHUNK 64

static void s8_chunk(const uint8_t *restrict u, size_t n, int8_t *restrict dst, int8_t neg)
{
	for (size_t i = 0; i < n; i++) {
		int8_t v = (int8_t)u[i];

		v = v < -127 ? -127 : v;
		dst[i] = (int8_t)((v ^ neg) - neg);
	}
}

/* Offset binary: 127 - v below 128, 128 - v from 128 up, that is 127 - v + (v >> 7). */
static void u8_chunk(const uint8_t *restrict u, size_t n, int8_t *restrict dst, int8_t neg)
{
	for (size_t i = 0; i < n; i++) {
		int8_t v = (int8_t)(uint8_t)(127u - u[i] + (u[i] >> 7));

		dst[i] = (int8_t)((v ^ neg) - neg);
	}
}

/* One byte holds two symbols, the first in the high nibble; -8 reads as -7; times S4_STEP. */
static void s4_chunk(const uint8_t *restrict u, size_t nbytes, int8_t *restrict dst, int8_t neg)
{
	for (size_t i = 0; i < nbytes; i++) {
		int8_t hi = (int8_t)((int8_t)u[i] >> 4);
		int8_t lo = (int8_t)((int8_t)(uint8_t)(u[i] << 4) >> 4);

		hi = (int8_t)((hi < -7 ? -7 : hi) * S4_STEP);
		lo = (int8_t)((lo < -7 ? -7 : lo) * S4_STEP);
		dst[2 * i] = (int8_t)((hi ^ neg) - neg);
		dst[2 * i + 1] = (int8_t)((lo ^ neg) - neg);
	}
}

/* Rounds half away from zero like lroundf, but in a form that vectorises: once clamped to
 * +-127 the value converts to int exactly by truncation, and v - trunc(v) is exact. */
static void f32_chunk(const uint8_t *restrict u, size_t n, float scale, int8_t *restrict dst,
                      int8_t neg)
{
	for (size_t i = 0; i < n; i++) {
		float v;

		memcpy(&v, u + 4 * i, sizeof(v)); /* payloads need not be aligned */
		v *= scale;
		v = v != v ? 0.0f : v >= 127.0f ? 127.0f : v <= -127.0f ? -127.0f : v;
		int t = (int)v;
		float frac = v - (float)t;
		t += (frac >= 0.5f) - (frac <= -0.5f);
		dst[i] = (int8_t)(((int8_t)t ^ neg) - neg);
	}
}

int fec_syms_to_s8(int fmt, const void *src, size_t nsyms, bool polarity_one, float scale,
                   int8_t *dst)
{
	const uint8_t *u = src;
	int8_t neg = polarity_one ? -1 : 0;
	size_t i = 0, n;

	switch (fmt) {
	case FECD_FMT_F32_LLR:
		for (; nsyms - i >= CONV_CHUNK; i += CONV_CHUNK)
			f32_chunk(u + 4 * i, CONV_CHUNK, scale, dst + i, neg);
		f32_chunk(u + 4 * i, nsyms - i, scale, dst + i, neg);
		break;
	case FECD_FMT_S8_LLR:
		for (; nsyms - i >= CONV_CHUNK; i += CONV_CHUNK)
			s8_chunk(u + i, CONV_CHUNK, dst + i, neg);
		s8_chunk(u + i, nsyms - i, dst + i, neg);
		break;
	case FECD_FMT_U8_OFFSET:
		for (; nsyms - i >= CONV_CHUNK; i += CONV_CHUNK)
			u8_chunk(u + i, CONV_CHUNK, dst + i, neg);
		u8_chunk(u + i, nsyms - i, dst + i, neg);
		break;
	case FECD_FMT_S4_PACKED:
		n = nsyms / 2; /* whole bytes */
		for (; n - i >= CONV_CHUNK; i += CONV_CHUNK)
			s4_chunk(u + i, CONV_CHUNK, dst + 2 * i, neg);
		s4_chunk(u + i, n - i, dst + 2 * i, neg);
		if (nsyms & 1) {
			int8_t last[2];

			s4_chunk(u + n, 1, last, neg);
			dst[nsyms - 1] = last[0];
		}
		break;
	default:
		return -FEC_EINVAL;
	}
	return 0;
}

int fec_syms_to_f32v(int fmt, const void *src, size_t nsyms, uint32_t q, float *dst)
{
	const uint8_t *u = src;

	if (fmt != FECD_FMT_F32V || q < 2)
		return -FEC_EINVAL;
	for (size_t i = 0; i < nsyms; i++, u += 4 * (size_t)q, dst += q) {
		bool nan = false;

		memcpy(dst, u, 4 * (size_t)q); /* the wire is little-endian, as the host */
		for (uint32_t j = 0; j < q; j++) {
			float v = dst[j];

			if (isnan(v))
				nan = true;
			else if (!(fabsf(v) <= FEC_SYMLOGP_MAX))
				dst[j] = v < 0 ? -FEC_SYMLOGP_MAX : FEC_SYMLOGP_MAX;
		}
		if (nan)
			memset(dst, 0, 4 * (size_t)q);
	}
	return 0;
}

int fec_llr_quantize(int fmt, const float *llr, size_t nsyms, bool polarity_one, float scale,
                     void *dst)
{
	uint8_t *u = dst;
	float sign = polarity_one ? -1.0f : 1.0f;

	switch (fmt) {
	case FECD_FMT_F32_LLR:
		for (size_t i = 0; i < nsyms; i++) {
			float f = sign * llr[i];

			memcpy(u + 4 * i, &f, sizeof(f));
		}
		break;
	case FECD_FMT_S8_LLR:
		for (size_t i = 0; i < nsyms; i++)
			u[i] = (uint8_t)f32_to_s8(sign * llr[i] * scale);
		break;
	case FECD_FMT_U8_OFFSET:
		for (size_t i = 0; i < nsyms; i++) {
			int q = f32_to_s8(sign * llr[i] * scale);

			u[i] = (uint8_t)(q >= 0 ? 127 - q : 128 - q);
		}
		break;
	case FECD_FMT_S4_PACKED:
		memset(u, 0, (nsyms + 1) / 2);
		for (size_t i = 0; i < nsyms; i++) {
			float v = sign * llr[i] * scale / (float)S4_STEP;
			long q = isnan(v) ? 0 : v >= 7.0f ? 7 : v <= -7.0f ? -7 : lroundf(v);

			u[i / 2] |= (uint8_t)(((unsigned long)q & 0xfu) << ((i & 1) ? 0 : 4));
		}
		break;
	default:
		return -FEC_EINVAL;
	}
	return 0;
}
