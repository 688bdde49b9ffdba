/*
 * The exact quantized AWGN channel of sim_qawgn.h: probabilities of the 255 int8 values, Walker's
 * alias table over 256 buckets (the 256th value has probability 0), the lanes' seeding and the
 * portable sampler; the SIMD level in force picks it, the AVX2 or the AVX-512 one.
 */
#include <math.h>
#include <string.h>

#include "bitpack.h"
#include "cpu_simd.h"
#include "sim_qawgn.h"

#define VALUES 255

/* P(a <= N(0,1) < b), from whichever tail keeps the precision of small differences. */
static double normal_between(double a, double b)
{
	if (a >= 0)
		return 0.5 * (erfc(a / M_SQRT2) - erfc(b / M_SQRT2));
	if (b <= 0)
		return 0.5 * (erfc(-b / M_SQRT2) - erfc(-a / M_SQRT2));
	return 1.0 - 0.5 * erfc(-a / M_SQRT2) - 0.5 * erfc(b / M_SQRT2);
}

double sim_qawgn_prob(double sigma, double scale, int v)
{
	const double a = scale * 2.0 / (sigma * sigma), b = scale * 2.0 / sigma;
	/* round half away from zero: value v covers [v - 1/2, v + 1/2) (the ends have measure 0) */
	double lo = v <= -127 ? -INFINITY : v - 0.5, hi = v >= 127 ? INFINITY : v + 0.5;

	return normal_between((lo - a) / b, (hi - a) / b);
}

void sim_qawgn_build(struct sim_qawgn *t, double sigma, double scale)
{
	double prob[256];
	uint64_t thresh[256];
	int small[256], large[256], ns = 0, nl = 0;
	double sum = 0;

	for (int i = 0; i < VALUES; i++) {
		prob[i] = sim_qawgn_prob(sigma, scale, i - 127);
		sum += prob[i];
	}
	prob[VALUES] = 0;
	/* scaled so that a bucket holds 1 */
	for (int i = 0; i < 256; i++) {
		prob[i] = prob[i] / sum * 256.0;
		t->own[i] = t->alias[i] = (uint8_t)(i < VALUES ? i - 127 : 0);
		thresh[i] = 0; /* with alias == own: always its own value */
		if (prob[i] < 1.0)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	/* Vose: each small bucket is topped up from a large value, which may become small */
	while (ns && nl) {
		int s = small[--ns], l = large[--nl];

		thresh[s] = prob[s] > 0 ? (uint64_t)ldexp(prob[s], 56) : 0; /* rounding: >= 0 */
		t->alias[s] = (uint8_t)(l < VALUES ? l - 127 : 0);
		prob[l] -= 1.0 - prob[s];
		if (prob[l] < 1.0)
			small[ns++] = l;
		else
			large[nl++] = l;
	}
	/* what is left holds 1 up to rounding: keeps its own value (threshold 0, alias == own) */
	for (int i = 0; i < 256; i++) {
		t->thi[i] = (uint8_t)(thresh[i] >> 48);
		t->tlo[i] = (uint8_t)(thresh[i] >> 40);
		t->trest[i] = thresh[i] & ((1ull << 40) - 1);
		t->entry[i] = (uint32_t)t->own[i] | (uint32_t)t->alias[i] << 8 |
		              (uint32_t)(thresh[i] >> 40) << 16;
	}
}

static inline uint64_t rotl(uint64_t x, unsigned k)
{
	return x << k | x >> (64 - k);
}

/* splitmix64's output function */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The lanes from one word of the frame's PRNG, as splitmix64 seeds xoshiro. */
static void lanes_seed(struct sim_qawgn_lanes *ln, struct fec_prng *p)
{
	uint64_t x = fec_prng_next(p);

	for (unsigned i = 0; i < 4 * SIM_QAWGN_LANES; i++)
		ln->s[i / SIM_QAWGN_LANES][i % SIM_QAWGN_LANES] =
		    mix64(x + (i + 1) * 0x9e3779b97f4a7c15ull);
	/* an all-zero state would stay zero (probability 2^-256; made impossible all the same) */
	for (unsigned l = 0; l < SIM_QAWGN_LANES; l++)
		if (!(ln->s[0][l] | ln->s[1][l] | ln->s[2][l] | ln->s[3][l]))
			ln->s[0][l] = 1;
}

/* One step of every lane (xoshiro256**): out[l] is lane l's word. */
static inline void lanes_step(struct sim_qawgn_lanes *ln, uint64_t *out)
{
	uint64_t *s0 = ln->s[0], *s1 = ln->s[1], *s2 = ln->s[2], *s3 = ln->s[3];

	for (unsigned l = 0; l < SIM_QAWGN_LANES; l++) {
		const uint64_t t = s1[l] << 17;

		out[l] = rotl(s1[l] * 5, 7) * 9;
		s2[l] ^= s0[l];
		s3[l] ^= s1[l];
		s1[l] ^= s2[l];
		s0[l] ^= s3[l];
		s2[l] ^= t;
		s3[l] = rotl(s3[l], 45);
	}
}

static void apply_portable(const struct sim_qawgn *t, struct sim_qawgn_lanes *ln,
                           struct fec_prng *p, const uint8_t *bits, size_t n, int8_t *out)
{
	uint64_t w[SIM_QAWGN_LANES];
	/* a block's bytes: buckets, then the comparison's high and low bytes */
	uint8_t by[3][SIM_QAWGN_BLOCK];

	for (size_t at = 0; at < n; at += SIM_QAWGN_BLOCK) {
		const size_t m = n - at < SIM_QAWGN_BLOCK ? n - at : SIM_QAWGN_BLOCK;

		for (unsigned k = 0; k < 3; k++) {
			lanes_step(ln, w);
			for (unsigned l = 0; l < SIM_QAWGN_LANES; l++)
				fec_store_le64(by[k] + 8 * l, w[l]);
		}
		for (size_t j = 0; j < m; j++) {
			const unsigned b = by[0][j], u = (unsigned)by[1][j] << 8 | by[2][j];
			const uint32_t e = t->entry[b];
			const unsigned th = e >> 16;
			/* own below the threshold, alias above, by a mask from the sign of th - u
			 * (both below 2^16): a branch on it would mispredict every other value */
			const uint32_t above = (uint32_t)((int32_t)(th - u) >> 31);
			uint8_t v = (uint8_t)((e & ~above) | (e >> 8 & above));

			if (u == th)
				v = sim__qawgn_tie(t, p, b);
			/* a sent 1: the negated value (no branch on the random bit) */
			const uint8_t neg = (uint8_t) - (bits[at + j] & 1u);

			out[at + j] = (int8_t)(uint8_t)((v ^ neg) - neg);
		}
	}
}

void sim_qawgn_apply_portable(const struct sim_qawgn *t, struct fec_prng *p, const uint8_t *bits,
                              size_t n, int8_t *out)
{
	struct sim_qawgn_lanes ln;

	lanes_seed(&ln, p);
	apply_portable(t, &ln, p, bits, n, out);
}

void sim_qawgn_apply(const struct sim_qawgn *t, struct fec_prng *p, const uint8_t *bits, size_t n,
                     int8_t *out)
{
	struct sim_qawgn_lanes ln;

	lanes_seed(&ln, p);
#if defined(FECD_SIM_AVX512)
	if (fec_simd_level() >= FEC_SIMD_AVX512 && __builtin_cpu_supports("avx512vbmi")) {
		sim__qawgn_apply_avx512(t, &ln, p, bits, n, out);
		return;
	}
	if (fec_simd_level() >= FEC_SIMD_AVX2) {
		sim__qawgn_apply_avx2(t, &ln, p, bits, n, out);
		return;
	}
#endif
	apply_portable(t, &ln, p, bits, n, out);
}
