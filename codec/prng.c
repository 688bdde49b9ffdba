/*
 * fecd's own deterministic random numbers: xoshiro256** (Blackman and Vigna) seeded by splitmix64,
 * uniform doubles from the top 53 bits, and Gaussian pairs by Marsaglia's polar method. The feed
 * and the sink must agree on every bit, so nothing here depends on the platform's libc generators.
 */
#include <math.h>

#include "prng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void fec_prng_seed(struct fec_prng *p, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		p->s[i] = splitmix64(&x);
	p->spare = 0.0;
	p->have_spare = 0;
}

uint64_t fec_prng_next(struct fec_prng *p)
{
	uint64_t *s = p->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double fec_prng_uniform(struct fec_prng *p)
{
	return (double)(fec_prng_next(p) >> 11) * 0x1.0p-53;
}

double fec_prng_gauss(struct fec_prng *p)
{
	double u, v, s;

	if (p->have_spare) {
		p->have_spare = 0;
		return p->spare;
	}
	do {
		u = 2.0 * fec_prng_uniform(p) - 1.0;
		v = 2.0 * fec_prng_uniform(p) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	s = sqrt(-2.0 * log(s) / s);
	p->spare = v * s;
	p->have_spare = 1;
	return u * s;
}

static void word_to_bits(uint64_t w, unsigned from, unsigned count, uint8_t *bits)
{
	for (unsigned i = 0; i < count; i++)
		bits[i] = (uint8_t)((w >> (63 - from - i)) & 1u);
}

void fec_prng_bits(struct fec_prng *p, uint8_t *bits, size_t n)
{
	while (n) {
		unsigned take = n < 64 ? (unsigned)n : 64;

		word_to_bits(fec_prng_next(p), 0, take, bits);
		bits += take;
		n -= take;
	}
}

void fec_bitstream_init(struct fec_bitstream *bs, uint64_t seed)
{
	fec_prng_seed(&bs->prng, seed);
	bs->word = 0;
	bs->left = 0;
	bs->pos = 0;
}

void fec_bitstream_read(struct fec_bitstream *bs, uint8_t *bits, size_t n)
{
	while (n) {
		unsigned take;

		if (bs->left == 0) {
			bs->word = fec_prng_next(&bs->prng);
			bs->left = 64;
		}
		take = n < bs->left ? (unsigned)n : bs->left;
		word_to_bits(bs->word, 64 - bs->left, take, bits);
		bs->left -= take;
		bs->pos += take;
		bits += take;
		n -= take;
	}
}

void fec_bitstream_skip_to(struct fec_bitstream *bs, uint64_t pos)
{
	if (pos <= bs->pos)
		return;
	/* Finish the current word, skip whole words, then land inside the target word. */
	if (pos - bs->pos <= bs->left) {
		bs->left -= (unsigned)(pos - bs->pos);
		bs->pos = pos;
		return;
	}
	bs->pos += bs->left;
	bs->left = 0;
	while (pos - bs->pos >= 64) {
		fec_prng_next(&bs->prng);
		bs->pos += 64;
	}
	if (pos > bs->pos) {
		bs->word = fec_prng_next(&bs->prng);
		bs->left = 64 - (unsigned)(pos - bs->pos);
		bs->pos = pos;
	}
}
