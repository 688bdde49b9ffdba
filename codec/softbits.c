/*
 * Wire soft-symbol formats <-> fecd's internal int8 LLR. The rules are those of softbits.h (and
 * PROTOCOL.md); the daemon converts every received payload through fec_syms_to_s8 once, so the
 * decoders only ever see int8 LLRs with 0 as the neutral value.
 *
 * Quantizers are the exact inverses where a format can carry the value: u8 maps q >= 0 to 127 - q
 * and q < 0 to 128 - q; s4 carries round(llr * scale / 18), so that a caller using one scale for
 * every format gets about the same int8 LLRs back after fec_syms_to_s8.
 */
#include <math.h>
#include <string.h>

#include "fec.h"
#include "softbits.h"

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

static int8_t s4_nibble(unsigned nib)
{
	int v = (nib & 0x8u) ? (int)nib - 16 : (int)nib;

	if (v == -8)
		v = -7;
	return (int8_t)(v * S4_STEP);
}

int fec_syms_to_s8(int fmt, const void *src, size_t nsyms, bool polarity_one, float scale,
                   int8_t *dst)
{
	const uint8_t *u = src;

	switch (fmt) {
	case FECD_FMT_F32_LLR: {
		for (size_t i = 0; i < nsyms; i++) {
			float f;

			memcpy(&f, u + 4 * i, sizeof(f)); /* payloads need not be aligned */
			dst[i] = f32_to_s8(f * scale);
		}
		break;
	}
	case FECD_FMT_S8_LLR:
		for (size_t i = 0; i < nsyms; i++) {
			int8_t v = (int8_t)u[i];

			dst[i] = v == -128 ? -127 : v;
		}
		break;
	case FECD_FMT_U8_OFFSET:
		for (size_t i = 0; i < nsyms; i++)
			dst[i] = u[i] <= 127 ? (int8_t)(127 - u[i]) : (int8_t)(128 - (int)u[i]);
		break;
	case FECD_FMT_S4_PACKED:
		for (size_t i = 0; i < nsyms; i++) {
			uint8_t byte = u[i / 2];

			dst[i] = s4_nibble((i & 1) ? byte & 0x0fu : byte >> 4);
		}
		break;
	default:
		return -FEC_EINVAL;
	}
	if (polarity_one)
		for (size_t i = 0; i < nsyms; i++)
			dst[i] = (int8_t)-dst[i];
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
