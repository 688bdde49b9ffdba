/*
 * The fano family's codes: known-answer encoder vectors for each preset, the two polynomial
 * notations, the viterbi family's notation meaning the same code, and bad parameters refused
 * with messages naming the parameter and its range. Sources of the vectors:
 *   - wspr: WSJT-X 2.6.1's wsprcode (Debian package wsjtx 2.6.1+repack-1), `wsprcode "K1ABC
 *     FN42 37"`: its 50-bit source-encoded message (F7 0C 23 8B 0D 19 40) and its 162 data
 *     symbols, which are the encoder's output after WSPR's interleaver (bit-reversed 8-bit
 *     addresses below 162), applied here to ours;
 *   - whd-k7: the seed's equation 4.2 (Ates 2014), written out as the seed gives it
 *     (OUTA = d6+d4+d3+d1+d0, OUTB = d6+d5+d4+d3+d0, OUTC = d6+d5+d4+d2+d0, d6 the current input);
 *   - nasa-k32: Karn's encoder as libfec's fano.c and WSJT-X's encode232 define it (the register
 *     shifts left taking the new bit in bit 0; each output is the parity of the register and its
 *     polynomial, POLY1 first), with the polynomials 0xbbef6bb7, 0xbbef6bb5.
 * And every preset, at frame lengths around the encoder's 64-stage words, against the textbook
 * encoder written here (code bit r of stage t: the XOR of the inputs u[t - d] that Karn's
 * polynomial r taps at bit d, the tail zero).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fano_frames.h"

/* Encodes one frame of `text`; returns the code bits written. */
static size_t encode(const char *text, const uint8_t *bits, size_t nbits, uint8_t *out)
{
	struct fec_spec spec;
	struct fec_encoder *enc = NULL;
	char err[256] = "";
	size_t n = 0;

	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_encoder_create(&spec, &enc) || fec_encode(enc, bits, nbits, out, &n)) {
		CHECK(0, "%s: %s", text, err);
		n = 0;
	}
	fec_encoder_destroy(enc);
	return n;
}

static void test_wspr(void)
{
	static const uint8_t msg[7] = {0xF7, 0x0C, 0x23, 0x8B, 0x0D, 0x19, 0x40};
	static const char data[] = /* wsprcode's data symbols */
	    "110010000010010111000111011110"
	    "100011001111001111000111100110"
	    "110111011010100100101011011001"
	    "111011101010100011010001110110"
	    "101110111000000110011111101111"
	    "111110010111";
	uint8_t bits[50], code[200], inter[162];
	size_t n, p = 0;
	unsigned diff = 0;

	for (unsigned i = 0; i < 50; i++)
		bits[i] = msg[i / 8] >> (7 - i % 8) & 1u;
	n = encode("wspr", bits, 50, code);
	CHECK(n == 162, "wspr: %zu code bits, 162 expected", n);
	for (unsigned i = 0; i < 256 && p < n; i++) {
		unsigned j = 0;

		for (unsigned b = 0; b < 8; b++)
			j |= (i >> b & 1u) << (7 - b);
		if (j < 162)
			inter[j] = code[p++];
	}
	for (unsigned i = 0; i < 162; i++)
		diff += inter[i] != (uint8_t)(data[i] - '0');
	CHECK(n == 162 && diff == 0, "wspr: %u of 162 symbols differ from wsprcode's", diff);
}

static void test_whd(void)
{
	uint8_t bits[1024], code[3 * 1030];
	struct fec_prng p;
	unsigned diff = 0;
	size_t n;

	fec_prng_seed(&p, 41);
	fec_prng_bits(&p, bits, 1024);
	n = encode("whd-k7", bits, 1024, code);
	CHECK(n == 3 * 1030, "whd-k7: %zu code bits", n);
	for (unsigned t = 0; t < 1030 && n == 3 * 1030; t++) {
		unsigned d[7]; /* d[6] the current input, d[0] the one 6 stages before */

		for (unsigned j = 0; j < 7; j++) {
			const long at = (long)t - 6 + (long)j;

			d[j] = at >= 0 && at < 1024 ? bits[at] : 0;
		}
		diff += code[3 * t] != (d[6] ^ d[4] ^ d[3] ^ d[1] ^ d[0]);
		diff += code[3 * t + 1] != (d[6] ^ d[5] ^ d[4] ^ d[3] ^ d[0]);
		diff += code[3 * t + 2] != (d[6] ^ d[5] ^ d[4] ^ d[2] ^ d[0]);
	}
	CHECK(diff == 0, "whd-k7: %u code bits differ from the seed's equation 4.2", diff);
}

static void test_nasa(void)
{
	uint8_t bits[1024], code[2 * 1055];
	struct fec_prng p;
	uint64_t reg = 0;
	unsigned diff = 0;
	size_t n;

	fec_prng_seed(&p, 42);
	fec_prng_bits(&p, bits, 1024);
	n = encode("nasa-k32", bits, 1024, code);
	CHECK(n == 2 * 1055, "nasa-k32: %zu code bits", n);
	for (unsigned t = 0; t < 1055 && n == 2 * 1055; t++) {
		reg = (reg << 1 | (t < 1024 ? bits[t] : 0u)) & 0xffffffffu;
		diff += code[2 * t] != __builtin_parityll(reg & 0xbbef6bb7u);
		diff += code[2 * t + 1] != __builtin_parityll(reg & 0xbbef6bb5u);
	}
	CHECK(diff == 0, "nasa-k32: %u code bits differ from Karn's encoder", diff);
}

/* The same code in both notations, and in the viterbi family for K <= 9. */
static void test_notations(void)
{
	static const char *same[][2] = {
	    {"fano,k=7,polys=171:133,frame_bits=300",
	     "viterbi,k=7,polys=171:133,mode=terminated,max_frame_bits=300"},
	    {"fano,k=9,polys=557:663:711,frame_bits=300",
	     "viterbi,k=9,polys=557:663:711,mode=terminated,max_frame_bits=300"},
	    {"fano,k=7,polys=171:133,frame_bits=300", "fano,k=7,polys_karn=4f:6d,frame_bits=300"},
	    {"nasa-k32,frame_bits=300", "fano,k=32,polys=35565573735:25565573735,frame_bits=300"},
	};
	uint8_t bits[300], a[4 * 400], b[4 * 400];
	struct fec_prng p;

	fec_prng_seed(&p, 43);
	fec_prng_bits(&p, bits, 300);
	for (unsigned i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		const size_t na = encode(same[i][0], bits, 300, a),
		             nb = encode(same[i][1], bits, 300, b);

		CHECK(na == nb && na > 0 && !memcmp(a, b, na), "%s and %s: different code bits",
		      same[i][0], same[i][1]);
	}
	/* a finished spec reads back both lists, and equal codes compare equal */
	struct fec_spec x, y;
	char err[256], text[512];

	CHECK(!fec_spec_from_string(same[2][0], &x, err, sizeof(err)) &&
	          !fec_spec_from_string(same[2][1], &y, err, sizeof(err)),
	      "specs");
	CHECK(x.u.fano.polys_karn[0] == 0x4f && y.u.fano.polys[1] == 0133, "derived lists");
	CHECK(fec_spec_same_code(&x, &y), "the same code in both notations");
	fec_spec_to_string(&y, text, sizeof(text));
	CHECK(!fec_spec_from_string(text, &x, err, sizeof(err)) && fec_spec_equal(&x, &y),
	      "%s reads back", text);
}

/* text must be refused with a message holding each of the words. */
static void refused(const char *text, const char *w1, const char *w2)
{
	struct fec_spec spec;
	char err[256] = "";
	int rc = fec_spec_from_string(text, &spec, err, sizeof(err));

	CHECK(rc < 0 && strstr(err, w1) && strstr(err, w2), "%s: rc %d, '%s' (expected %s, %s)",
	      text, rc, err, w1, w2);
	printf("  %s: %s\n", text, err);
}

static void test_bad(void)
{
	refused("fano,k=65", "k", "64");
	refused("fano,k=2", "k", "3");
	refused("fano,k=7,polys=377:133", "polys", "k=7");
	refused("fano,k=32,polys_karn=1f2d05351:e4613c47", "polys_karn", "k=32");
	refused("fano,polys=133:171:165:117:127", "polys", "4");
	refused("fano,polys=133", "polys", "2");
	refused("fano,cycles=0", "cycles", "65000");
	refused("fano,delta=0", "delta", "65536");
	refused("fano,frame_bits=65537", "frame_bits", "65536");
	refused("fano,merge=0", "merge", "16");
	refused("fano,k=7,polys=43:61", "polys", "current input");
	refused("fano,k=7,polys=132:130", "polys", "oldest");
}

/* Every preset of the family, and a code of 4 outputs, at frame lengths 1..200 (steps of 7)
 * against the textbook encoder. */
static void test_textbook(void)
{
	static uint8_t bits[256], got[4 * 320], ref[4 * 320];
	struct fec_prng p;
	unsigned codes = 0;

	fec_prng_seed(&p, 17);
	for (unsigned i = 0; i <= fec_preset_count(); i++) {
		/* the presets, then a code of four outputs (the encoder's widest spreading) */
		const struct fec_preset *pr = i < fec_preset_count() ? fec_preset_at(i) : NULL;
		const char *name = pr ? pr->name : "fano,k=7,polys=171:133:165:117";
		struct fec_spec spec;
		char text[96];

		if (pr && pr->family != FECD_FAMILY_FANO)
			continue;
		codes++;
		for (uint32_t fb = 1; fb <= 200; fb += 7) {
			const struct fano_spec *f = &spec.u.fano;
			char err[256] = "";

			snprintf(text, sizeof(text), "%s,frame_bits=%u", name, fb);
			if (fec_spec_from_string(text, &spec, err, sizeof(err))) {
				CHECK(0, "%s: %s", text, err);
				continue;
			}
			for (uint32_t t = 0; t < fb; t++)
				bits[t] = (uint8_t)(fec_prng_next(&p) & 1);
			size_t n = encode(text, bits, fb, got), o = 0;

			for (uint32_t t = 0; t < fb + f->k - 1; t++)
				for (unsigned r = 0; r < f->n; r++) {
					unsigned x = 0;

					for (unsigned d = 0; d < f->k && d <= t; d++)
						if (f->polys_karn[r] >> d & 1u && t - d < fb)
							x ^= bits[t - d];
					ref[o++] = (uint8_t)x;
				}
			CHECK(n == o && memcmp(got, ref, o) == 0, "%s: not the textbook code bits",
			      text);
		}
	}
	CHECK(codes >= 4, "%u fano codes", codes);
}

int main(void)
{
	test_textbook();
	test_wspr();
	test_whd();
	test_nasa();
	test_notations();
	test_bad();
	return check_done();
}
