/*
 * fec_syms_to_s8 against a plain per-symbol reference written straight from the rules in
 * softbits.h: every byte value of s8, u8 and s4, floats around every rounding edge and the clamps,
 * lengths and alignments that exercise the chunked loops' remainders, both polarities; and
 * fec_syms_to_f32v (q-ary symbols: values as sent, the clamp, the NaN rule).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "prng.h"
#include "softbits.h"

#define MAXN 1000

static int8_t ref_one(int fmt, const uint8_t *u, size_t i, float scale)
{
	switch (fmt) {
	case FECD_FMT_F32_LLR: {
		float v;

		memcpy(&v, u + 4 * i, sizeof(v));
		v *= scale;
		if (isnan(v))
			return 0;
		if (v >= 127.0f)
			return 127;
		if (v <= -127.0f)
			return -127;
		return (int8_t)lroundf(v);
	}
	case FECD_FMT_S8_LLR:
		return u[i] == 0x80 ? -127 : (int8_t)u[i];
	case FECD_FMT_U8_OFFSET:
		return u[i] <= 127 ? (int8_t)(127 - u[i]) : (int8_t)(128 - (int)u[i]);
	default: {
		unsigned nib = (i & 1) ? u[i / 2] & 0xfu : u[i / 2] >> 4;
		int v = nib >= 8 ? (int)nib - 16 : (int)nib;

		return (int8_t)((v == -8 ? -7 : v) * 18);
	}
	}
}

static float edge_float(uint64_t r)
{
	static const float special[] = {0.5f,    -0.5f,      0.49999997f, -0.49999997f, 126.5f,
	                                -126.5f, 126.49999f, 127.0f,      -127.0f,      127.5f,
	                                1e30f,   -1e30f,     INFINITY,    -INFINITY,    NAN,
	                                0.0f,    -0.0f,      2.5f,        -3.5f};
	size_t ns = sizeof(special) / sizeof(special[0]);

	if (r % 3 == 0)
		return special[(r >> 8) % ns];
	if (r % 3 == 1) /* halves and near-halves across the range */
		return (float)((int)((r >> 8) % 512) - 256) * 0.5f + (float)((r >> 20) % 3) * 1e-5f;
	return ((float)(int64_t)(r >> 11) / (float)(1ull << 52) - 1.0f) * 300.0f;
}

/* fec_syms_to_f32v: q little-endian float32 values per symbol copied as sent at any alignment,
 * magnitudes clamped to FEC_SYMLOGP_MAX, a symbol with a NaN all zeros; no other format. */
static void test_f32v(void)
{
	enum { Q = 4, N = 5 };
	const float vals[N][Q] = {
	    {0.0f, -1.5f, -3.25f, -40.0f},
	    {-INFINITY, 0.0f, -2e6f, 2e6f},
	    {-1.0f, NAN, -2.0f, -3.0f},
	    {-0.5f, -0.5f, -0.5f, -0.5f},
	    {INFINITY, -7.0f, 1e-30f, -1e6f},
	};
	const float want[N][Q] = {
	    {0.0f, -1.5f, -3.25f, -40.0f},
	    {-FEC_SYMLOGP_MAX, 0.0f, -FEC_SYMLOGP_MAX, FEC_SYMLOGP_MAX},
	    {0.0f, 0.0f, 0.0f, 0.0f},
	    {-0.5f, -0.5f, -0.5f, -0.5f},
	    {FEC_SYMLOGP_MAX, -7.0f, 1e-30f, -1e6f},
	};
	uint8_t src[1 + sizeof(vals)];
	float out[N * Q + 1];

	for (unsigned off = 0; off < 2; off++) {
		memcpy(src + off, vals, sizeof(vals)); /* the host is little-endian, as the wire */
		out[N * Q] = 42.0f;
		CHECK(fec_syms_to_f32v(FECD_FMT_F32V, src + off, N, Q, out) == 0, "f32v");
		for (unsigned i = 0; i < N * Q; i++)
			CHECK(out[i] == want[i / Q][i % Q], "f32v offset %u value %u: %g, expected %g",
			      off, i, out[i], want[i / Q][i % Q]);
		CHECK(out[N * Q] == 42.0f, "wrote past the end");
	}
	CHECK(fec_syms_to_f32v(FECD_FMT_F32_LLR, src, N, Q, out) == -FEC_EINVAL,
	      "a bit format is refused");
	CHECK(fec_syms_to_f32v(FECD_FMT_F32V, src, N, 1, out) == -FEC_EINVAL, "q 1 is refused");
	CHECK(fec_syms_to_s8(FECD_FMT_F32V, src, N, false, 1.0f, (int8_t *)out) == -FEC_EINVAL,
	      "f32v does not become int8 LLRs");
}

int main(void)
{
	static const int fmts[] = {FECD_FMT_F32_LLR, FECD_FMT_S8_LLR, FECD_FMT_U8_OFFSET,
	                           FECD_FMT_S4_PACKED};
	static uint8_t src[4 * MAXN + 16];
	static int8_t out[MAXN + 64], want[MAXN];
	struct fec_prng st;

	fec_prng_seed(&st, 12345);

	for (unsigned f = 0; f < 4; f++) {
		int fmt = fmts[f];
		for (unsigned trial = 0; trial < 400; trial++) {
			size_t n = trial < 200 ? trial : fec_prng_next(&st) % MAXN;
			size_t off = fmt == FECD_FMT_S4_PACKED ? 0 : trial % 7;
			bool inv = trial & 1;
			float scale = fmt == FECD_FMT_F32_LLR && (trial & 2) ? 3.7f : 1.0f;
			uint8_t *u = src + off;

			if (fmt == FECD_FMT_F32_LLR) {
				for (size_t i = 0; i < n; i++) {
					float v = edge_float(fec_prng_next(&st));
					memcpy(u + 4 * i, &v, sizeof(v));
				}
			} else {
				for (size_t i = 0; i < fecd_format_bytes(fmt, n); i++)
					u[i] = (uint8_t)(trial < 2 ? i : fec_prng_next(&st));
			}
			for (size_t i = 0; i < n; i++)
				want[i] = (int8_t)(inv ? -ref_one(fmt, u, i, scale)
				                       : ref_one(fmt, u, i, scale));
			memset(out, 0x55, sizeof(out));
			CHECK(fec_syms_to_s8(fmt, u, n, inv, scale, out) == 0, "%s n %zu",
			      fecd_format_name(fmt), n);
			size_t bad = 0;
			while (bad < n && out[bad] == want[bad])
				bad++;
			CHECK(bad == n, "%s n %zu inv %d symbol %zu: %d, expected %d",
			      fecd_format_name(fmt), n, inv, bad, out[bad],
			      bad < n ? want[bad] : 0);
			CHECK(out[n] == 0x55, "%s n %zu: wrote past the end", fecd_format_name(fmt),
			      n);
		}
	}
	/* every byte value, both polarities, in one long run */
	for (unsigned f = 1; f < 4; f++)
		for (int inv = 0; inv < 2; inv++) {
			int fmt = fmts[f];
			size_t n = fmt == FECD_FMT_S4_PACKED ? 512 : 256;

			for (size_t i = 0; i < 256; i++)
				src[i] = (uint8_t)i;
			CHECK(fec_syms_to_s8(fmt, src, n, inv, 1.0f, out) == 0, "all bytes");
			for (size_t i = 0; i < n; i++) {
				int8_t w = ref_one(fmt, src, i, 1.0f);
				CHECK(out[i] == (inv ? -w : w), "%s byte %zu inv %d: %d",
				      fecd_format_name(fmt), i, inv, out[i]);
			}
		}
	test_f32v();
	return check_done();
}
