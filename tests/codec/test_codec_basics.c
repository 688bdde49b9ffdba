/*
 * The codec's small pieces: bit packing, the deterministic PRNG and bit stream (frozen outputs:
 * the feed and the sink must agree forever), every soft-symbol format in both polarities, the
 * quantizers' round trips, and the AWGN channel's noise level and LLR statistics.
 */
#include <math.h>
#include <string.h>

#include "awgn.h"
#include "bitpack.h"
#include "check.h"
#include "fec.h"
#include "prng.h"
#include "softbits.h"

static void test_bitpack(void)
{
	struct fec_prng p;
	uint8_t bits[300], back[300], packed[40], shifted[48], ref[48];
	const uint8_t pattern[] = {1, 0, 1, 1, 0, 0, 0, 1, 1, 1};

	fec_pack_bits(pattern, 10, packed);
	CHECK(packed[0] == 0xb1 && packed[1] == 0xc0, "MSB first: %02x %02x", packed[0], packed[1]);

	fec_prng_seed(&p, 5);
	for (size_t n = 0; n <= 300; n += 37) {
		fec_prng_bits(&p, bits, n);
		memset(packed, 0xff, sizeof(packed));
		fec_pack_bits(bits, n, packed);
		fec_unpack_bits(packed, n, back);
		CHECK(memcmp(bits, back, n) == 0, "round trip of %zu bits", n);
		if (n % 8)
			CHECK((packed[n / 8] & (0xffu >> (n % 8))) == 0, "trailing bits of %zu", n);
	}

	/* fec_copy_bits against a bit-at-a-time reference at every offset pair. */
	fec_prng_bits(&p, bits, 300);
	fec_pack_bits(bits, 300, packed);
	for (size_t so = 0; so < 9; so++) {
		for (size_t dof = 0; dof < 9; dof++) {
			size_t n = 200 + so;

			memset(shifted, 0x5a, sizeof(shifted));
			memcpy(ref, shifted, sizeof(ref));
			fec_copy_bits(shifted, dof, packed, so, n);
			for (size_t i = 0; i < n; i++) {
				uint8_t m = (uint8_t)(0x80u >> ((dof + i) % 8));

				ref[(dof + i) / 8] =
				    (uint8_t)((ref[(dof + i) / 8] & ~m) | (bits[so + i] ? m : 0));
			}
			CHECK(memcmp(shifted, ref, sizeof(ref)) == 0, "copy %zu bits %zu -> %zu", n,
			      so, dof);
		}
	}

	memcpy(shifted, packed, 38);
	shifted[3] ^= 0x11;
	shifted[37] ^= 0x01; /* bit 303: beyond the 300 counted */
	shifted[37] ^= 0x80; /* bit 296: counted */
	CHECK(fec_count_bit_errors(packed, shifted, 300) == 3, "errors: %zu",
	      fec_count_bit_errors(packed, shifted, 300));
}

static void test_prng(void)
{
	/* Frozen: xoshiro256** seeded by splitmix64(1). Never change them. */
	static const uint64_t seed1[] = {0xb3f2af6d0fc710c5ull, 0x853b559647364ceaull,
	                                 0x92f89756082a4514ull, 0x642e1c7bc266a3a7ull};
	struct fec_prng p, q;
	uint8_t a[1000], b[1000];
	double sum = 0, sum2 = 0;

	/* splitmix64's first output for seed 0 is the well-known 0xe220a8397b1dcdaf. */
	fec_prng_seed(&p, 0);
	CHECK(p.s[0] == 0xe220a8397b1dcdafull, "splitmix64(0)");
	fec_prng_seed(&p, 1);
	for (int i = 0; i < 4; i++)
		CHECK(fec_prng_next(&p) == seed1[i], "seed 1 output %d", i);
	fec_prng_seed(&p, 1);
	CHECK(fabs(fec_prng_uniform(&p) - 0.70292183315885048) < 1e-15, "uniform");
	CHECK(fabs(fec_prng_gauss(&p) - 0.72757476687775147) < 1e-12, "gauss");

	/* Bits are the words' bits MSB first. */
	fec_prng_seed(&p, 1);
	fec_prng_bits(&p, a, 70);
	CHECK(a[0] == 1 && a[1] == 0 && a[2] == 1 && a[3] == 1 && a[63] == 1, "bits of word 0");
	CHECK(a[64] == 1 && a[65] == 0 && a[66] == 0 && a[67] == 0, "bits of word 1");

	fec_prng_seed(&p, 42);
	fec_prng_seed(&q, 42);
	fec_prng_bits(&p, a, 1000);
	fec_prng_bits(&q, b, 1000);
	CHECK(memcmp(a, b, 1000) == 0, "same seed, same bits");

	fec_prng_seed(&p, 3);
	for (int i = 0; i < 200000; i++) {
		double g = fec_prng_gauss(&p);

		sum += g;
		sum2 += g * g;
	}
	CHECK(fabs(sum / 200000) < 0.01 && fabs(sum2 / 200000 - 1.0) < 0.02, "gauss mean %g var %g",
	      sum / 200000, sum2 / 200000);
}

static void test_bitstream(void)
{
	static const size_t sizes[] = {1, 3, 7, 64, 100, 13, 128, 5};
	struct fec_bitstream bs;
	struct fec_prng p;
	uint8_t ref[4096], got[4096];
	size_t pos = 0;

	fec_prng_seed(&p, 9);
	fec_prng_bits(&p, ref, sizeof(ref));
	fec_bitstream_init(&bs, 9);
	for (unsigned i = 0; pos < sizeof(got); i++) {
		size_t n = sizes[i % 8] < sizeof(got) - pos ? sizes[i % 8] : sizeof(got) - pos;

		fec_bitstream_read(&bs, got + pos, n);
		pos += n;
	}
	CHECK(memcmp(ref, got, sizeof(ref)) == 0, "reads of mixed sizes");
	CHECK(bs.pos == sizeof(ref), "position %llu", (unsigned long long)bs.pos);

	for (uint64_t start = 0; start < 300; start += 61) {
		fec_bitstream_init(&bs, 9);
		fec_bitstream_read(&bs, got, 5);
		fec_bitstream_skip_to(&bs, start < 5 ? 5 : start);
		fec_bitstream_read(&bs, got, 1000);
		start = start < 5 ? 5 : start;
		CHECK(memcmp(ref + start, got, 1000) == 0, "skip to %llu",
		      (unsigned long long)start);
	}
}

struct conv_case {
	int fmt;
	uint8_t bytes[8];
	unsigned nsyms;
	float scale;
	int8_t expect[16];
};

static void test_softbits(void)
{
	float f[] = {0.4f,    0.5f,     -0.5f, 1.5f,     -2.5f,     126.6f,
	             1000.0f, -1000.0f, NAN,   INFINITY, -INFINITY, 12.6f};
	int8_t fexp[] = {0, 1, -1, 2, -3, 127, 127, -127, 0, 127, -127, 13};
	const struct conv_case cases[] = {
	    {FECD_FMT_S8_LLR, {0, 1, 0xff, 127, 0x81, 0x80}, 6, 1, {0, 1, -1, 127, -127, -127}},
	    {FECD_FMT_U8_OFFSET, {0, 1, 127, 128, 129, 255}, 6, 1, {127, 126, 0, 0, -1, -127}},
	    {FECD_FMT_S4_PACKED,
	     {0x7f, 0x80, 0x19, 0xe0},
	     7,
	     1,
	     {126, -18, -126, 0, 18, -126, -36}},
	};
	int8_t out[16];

	CHECK(fec_syms_to_s8(FECD_FMT_F32_LLR, f, 11, false, 1.0f, out) == 0, "f32");
	CHECK(memcmp(out, fexp, 11) == 0, "f32 values");
	CHECK(fec_syms_to_s8(FECD_FMT_F32_LLR, f + 11, 1, false, 1.0f, out) == 0 && out[0] == 13,
	      "f32 12.6 -> %d", out[0]);
	CHECK(fec_syms_to_s8(FECD_FMT_F32_LLR, f, 11, true, 1.0f, out) == 0, "f32 inverted");
	for (int i = 0; i < 11; i++)
		CHECK(out[i] == -fexp[i], "f32 inverted %d: %d", i, out[i]);
	CHECK(fec_syms_to_s8(FECD_FMT_F32_LLR, f, 2, false, 10.0f, out) == 0 && out[0] == 4 &&
	          out[1] == 5,
	      "f32 scaled: %d %d", out[0], out[1]);

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct conv_case *k = &cases[c];

		CHECK(fec_syms_to_s8(k->fmt, k->bytes, k->nsyms, false, 1.0f, out) == 0, "fmt %d",
		      k->fmt);
		for (unsigned i = 0; i < k->nsyms; i++)
			CHECK(out[i] == k->expect[i], "%s symbol %u: %d, expected %d",
			      fecd_format_name(k->fmt), i, out[i], k->expect[i]);
		CHECK(fec_syms_to_s8(k->fmt, k->bytes, k->nsyms, true, 1.0f, out) == 0, "inv");
		for (unsigned i = 0; i < k->nsyms; i++)
			CHECK(out[i] == -k->expect[i], "%s inverted symbol %u: %d",
			      fecd_format_name(k->fmt), i, out[i]);
	}
	CHECK(fec_syms_to_s8(99, f, 1, false, 1.0f, out) == -FEC_EINVAL, "unknown format");
}

/* Quantize then convert back: s8 and u8 exactly, s4 to the nearest multiple of 18. */
static void test_quantize(void)
{
	float llr[255];
	int8_t back[255];
	uint8_t buf[4 * 255];

	for (int i = 0; i < 255; i++)
		llr[i] = (float)(i - 127) * 0.5f; /* scale 2 brings them to -127..127 */
	for (int pol = 0; pol < 2; pol++) {
		CHECK(fec_llr_quantize(FECD_FMT_S8_LLR, llr, 255, pol, 2.0f, buf) == 0, "s8");
		fec_syms_to_s8(FECD_FMT_S8_LLR, buf, 255, pol, 1.0f, back);
		for (int i = 0; i < 255; i++)
			CHECK(back[i] == i - 127, "s8 round trip %d: %d", i, back[i]);
		CHECK(fec_llr_quantize(FECD_FMT_U8_OFFSET, llr, 255, pol, 2.0f, buf) == 0, "u8");
		fec_syms_to_s8(FECD_FMT_U8_OFFSET, buf, 255, pol, 1.0f, back);
		for (int i = 0; i < 255; i++)
			CHECK(back[i] == i - 127, "u8 round trip %d: %d", i, back[i]);
		CHECK(fec_llr_quantize(FECD_FMT_S4_PACKED, llr, 255, pol, 2.0f, buf) == 0, "s4");
		fec_syms_to_s8(FECD_FMT_S4_PACKED, buf, 255, pol, 1.0f, back);
		for (int i = 0; i < 255; i++) {
			long q = lround((i - 127) / 18.0);

			q = q > 7 ? 7 : q < -7 ? -7 : q;
			CHECK(back[i] == q * 18, "s4 round trip %d: %d", i, back[i]);
		}
		CHECK(fec_llr_quantize(FECD_FMT_F32_LLR, llr, 255, pol, 2.0f, buf) == 0, "f32");
		for (int i = 0; i < 255; i++) {
			float v;

			memcpy(&v, buf + 4 * i, 4);
			CHECK(v == (pol ? -llr[i] : llr[i]), "f32 copy %d", i);
		}
	}
	CHECK(fecd_format_bytes(FECD_FMT_S4_PACKED, 255) == 128, "s4 bytes");
	CHECK(fec_llr_quantize(0, llr, 1, false, 1.0f, buf) == -FEC_EINVAL, "unknown format");
}

static void test_awgn(void)
{
	struct fec_prng p;
	static uint8_t bits[100000];
	static float llr[100000];
	double sigma = fec_awgn_sigma(0.0, 0.5), mean = 0, var = 0;

	CHECK(fabs(sigma - 1.0) < 1e-12, "sigma at 0 dB, r=1/2: %g", sigma);
	CHECK(fabs(fec_awgn_sigma(3.0, 1.0) - sqrt(1.0 / (2.0 * pow(10.0, 0.3)))) < 1e-12, "3 dB");

	/* All zeros at sigma 0.8: LLR ~ N(2/s^2, 4/s^2). */
	sigma = 0.8;
	fec_prng_seed(&p, 11);
	fec_awgn_llr(&p, bits, 100000, sigma, 0.0f, llr);
	for (int i = 0; i < 100000; i++)
		mean += llr[i];
	mean /= 100000;
	for (int i = 0; i < 100000; i++)
		var += (llr[i] - mean) * (llr[i] - mean);
	var /= 100000;
	CHECK(fabs(mean - 2 / (sigma * sigma)) < 0.03, "LLR mean %g", mean);
	CHECK(fabs(var / (4 / (sigma * sigma)) - 1) < 0.02, "LLR variance %g", var);

	bits[0] = 1;
	fec_awgn_llr(&p, bits, 2, 0.0, 20.0f, llr);
	CHECK(llr[0] == -20.0f && llr[1] == 20.0f, "noiseless: %g %g", llr[0], llr[1]);
}

static void test_errors(void)
{
	CHECK(strcmp(fec_strerror(-FEC_ERANGE), "parameter out of range") == 0, "strerror");
	CHECK(strcmp(fec_strerror(FEC_EPARAM), "unknown parameter") == 0, "positive codes");
	CHECK(strcmp(fec_strerror(-1000), "unknown error") == 0, "unknown code");
}

int main(void)
{
	test_bitpack();
	test_prng();
	test_bitstream();
	test_softbits();
	test_quantize();
	test_awgn();
	test_errors();
	return check_done();
}
