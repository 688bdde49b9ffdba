/*
 * The exact quantized AWGN channel of sim_qawgn.h: probabilities of the 255 int8 values and
 * Walker's alias table over 256 buckets (the 256th value has probability 0).
 */
#include <math.h>
#include <string.h>

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
		t->value[i] = t->value[256 + i] = (int8_t)(i < VALUES ? i - 127 : 0);
		if (prob[i] < 1.0)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	/* Vose: each small bucket is topped up from a large value, which may become small */
	while (ns && nl) {
		int s = small[--ns], l = large[--nl];

		t->thresh[s] = prob[s] >= 1.0 ? UINT64_MAX : (uint64_t)ldexp(prob[s], 56);
		t->value[256 + s] = (int8_t)(l < VALUES ? l - 127 : 0);
		prob[l] -= 1.0 - prob[s];
		if (prob[l] < 1.0)
			small[ns++] = l;
		else
			large[nl++] = l;
	}
	/* what is left holds 1 up to rounding: keeps its own value */
	while (nl)
		t->thresh[large[--nl]] = UINT64_MAX;
	while (ns)
		t->thresh[small[--ns]] = UINT64_MAX;
}

/* fec_prng_next's xoshiro256**, here so that the loop below keeps it inline: the same numbers. */
static inline uint64_t next(uint64_t *s)
{
	const uint64_t x = s[1] * 5, result = (x << 7 | x >> 57) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = s[3] << 45 | s[3] >> 19;
	return result;
}

void sim_qawgn_apply(const struct sim_qawgn *t, struct fec_prng *p, const uint8_t *bits, size_t n,
                     int8_t *out)
{
	uint64_t s[4];

	memcpy(s, p->s, sizeof(s));
	/* no branch: random bits and buckets would mispredict every other one */
	for (size_t i = 0; i < n; i++) {
		uint64_t w = next(s);
		unsigned b = (unsigned)(w & 255);
		unsigned alias = (w >> 8) >= t->thresh[b];
		int v = t->value[b + 256 * alias], m = -(int)(bits[i] & 1u);

		out[i] = (int8_t)((v ^ m) - m);
	}
	memcpy(p->s, s, sizeof(s));
}
