/*
 * TVB inner codes (random, watermark, codebook files), their encoder, the BSID channel and the
 * drift limits: the pieces of the ids family that are not the MAP decoder (ids_code.h says what
 * each is). Everything random is drawn from fecd's seeded PRNG, so a code or a channel run is the
 * same on every machine for the same seed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fec_impl.h"
#include "ids_code.h"
#include "textfile.h"

int ids_code_check_size(uint32_t N, uint32_t q, uint32_t n, char *err, size_t errlen)
{
	if (N < 1 || N > IDS_N_MAX)
		return fec__err(err, errlen, FEC_ERANGE,
		                "N: expected a message length of 1..%u symbols, got %u", IDS_N_MAX,
		                N);
	if (q < 2 || q > IDS_Q_MAX)
		return fec__err(err, errlen, FEC_ERANGE, "q: expected an alphabet of 2..%u, got %u",
		                IDS_Q_MAX, q);
	if (n < 1 || n > IDS_NBITS_MAX)
		return fec__err(err, errlen, FEC_ERANGE,
		                "n: expected a codeword length of 1..%u bits, got %u",
		                IDS_NBITS_MAX, n);
	if ((1u << n) < q)
		return fec__err(err, errlen, FEC_ERANGE,
		                "n: 2^n must be at least q: %u bits give %u codewords, q is %u", n,
		                1u << n, q);
	return 0;
}

static int code_alloc(uint32_t N, uint32_t q, uint32_t n, struct ids_code **out, char *err,
                      size_t errlen)
{
	struct ids_code *c;
	int ret = ids_code_check_size(N, q, n, err, errlen);

	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->cw = malloc((size_t)N * q * sizeof(*c->cw)))) {
		free(c);
		return fec__err(err, errlen, FEC_ENOMEM, "out of memory for an ids code");
	}
	c->N = N;
	c->q = q;
	c->n = n;
	*out = c;
	return 0;
}

void ids_code_free(struct ids_code *code)
{
	if (!code)
		return;
	free(code->cw);
	free(code);
}

/* Uniform in [0, bound), bound <= 2^16, without modulo bias. */
static uint32_t draw_below(struct fec_prng *p, uint32_t bound)
{
	const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t v;

	do
		v = fec_prng_next(p);
	while (v >= limit);
	return (uint32_t)(v % bound);
}

/* Each position's codebook: q distinct words drawn uniformly from the 2^n (a partial
 * Fisher-Yates shuffle of all words, so every injective map is equally likely). */
int ids_code_random(uint32_t N, uint32_t q, uint32_t n, uint64_t seed, struct ids_code **out,
                    char *err, size_t errlen)
{
	struct ids_code *c = NULL;
	struct fec_prng p;
	uint16_t *pool;
	const uint32_t words = 1u << n;
	int ret = code_alloc(N, q, n, &c, err, errlen);

	if (ret)
		return ret;
	pool = malloc(words * sizeof(*pool));
	if (!pool) {
		ids_code_free(c);
		return fec__err(err, errlen, FEC_ENOMEM, "out of memory for an ids code");
	}
	fec_prng_seed(&p, seed);
	for (uint32_t i = 0; i < N; i++) {
		for (uint32_t w = 0; w < words; w++)
			pool[w] = (uint16_t)w;
		for (uint32_t d = 0; d < q; d++) {
			uint32_t k = d + draw_below(&p, words - d);
			uint16_t t = pool[d];

			pool[d] = pool[k];
			pool[k] = t;
			c->cw[(size_t)i * q + d] = pool[d];
		}
	}
	free(pool);
	*out = c;
	return 0;
}

static unsigned weight(uint32_t v)
{
	return (unsigned)__builtin_popcount(v);
}

/* Davey and MacKay: symbol d is sent as the d-th lightest n-bit word (by weight, then value),
 * added (XOR) to n watermark bits drawn afresh for each position. */
int ids_code_watermark(uint32_t N, uint32_t q, uint32_t n, uint64_t seed, struct ids_code **out,
                       char *err, size_t errlen)
{
	struct ids_code *c = NULL;
	struct fec_prng p;
	uint16_t sparse[IDS_Q_MAX];
	uint32_t got = 0;
	int ret = code_alloc(N, q, n, &c, err, errlen);

	if (ret)
		return ret;
	for (unsigned w = 0; w <= n && got < q; w++)
		for (uint32_t v = 0; v < (1u << n) && got < q; v++)
			if (weight(v) == w)
				sparse[got++] = (uint16_t)v;
	fec_prng_seed(&p, seed);
	for (uint32_t i = 0; i < N; i++) {
		const uint16_t mark = (uint16_t)(fec_prng_next(&p) >> (64 - n));

		for (uint32_t d = 0; d < q; d++)
			c->cw[(size_t)i * q + d] = sparse[d] ^ mark;
	}
	*out = c;
	return 0;
}

int ids_code_parse(const char *text, const char *name, struct ids_code **out, char *err,
                   size_t errlen)
{
	struct fec__text_reader rd;
	struct ids_code *c = NULL;
	long head[4], *vals = NULL;
	uint32_t K;
	int ret;

	fec__text_init(&rd, text, name, err, errlen);
	ret = fec__text_line_nums(&rd, head, 4, 1, 65536, "the sizes 'N q n K'",
	                          "a size in 1..65536");
	if (ret)
		return ret;
	{
		char why[160] = "";

		ret = code_alloc((uint32_t)head[0], (uint32_t)head[1], (uint32_t)head[2], &c, why,
		                 sizeof(why));
		if (ret)
			return fec__err(err, errlen, -ret, "%s:%u: %s", name, rd.line, why);
	}
	K = (uint32_t)head[3];
	if (K > c->N) {
		ret = fec__err(err, errlen, FEC_ERANGE,
		               "%s:%u: K: expected 1..N=%u codebooks, got %u", name, rd.line, c->N,
		               K);
		goto out_free;
	}
	vals = malloc(c->q * sizeof(*vals));
	if (!vals) {
		ret = fec__err(err, errlen, FEC_ENOMEM, "out of memory for an ids code");
		goto out_free;
	}
	for (uint32_t k = 0; k < K; k++) {
		uint8_t seen[1u << (IDS_NBITS_MAX - 3)] = {0};

		ret = fec__text_line_nums(&rd, vals, c->q, 0, (1l << c->n) - 1,
		                          "a codebook: q codewords", "a codeword in 0..2^n-1");
		if (ret)
			goto out_free;
		for (uint32_t d = 0; d < c->q; d++) {
			const uint32_t v = (uint32_t)vals[d];

			if (seen[v >> 3] >> (v & 7) & 1) {
				ret = fec__err(err, errlen, FEC_EINVAL,
				               "%s:%u: codeword %u of this codebook repeats an "
				               "earlier one: a codebook's q codewords must differ",
				               name, rd.line, d + 1);
				goto out_free;
			}
			seen[v >> 3] |= (uint8_t)(1u << (v & 7));
			c->cw[(size_t)k * c->q + d] = (uint16_t)v;
		}
	}
	if (fec__text_next_line(&rd)) {
		ret = fec__err(err, errlen, FEC_EINVAL,
		               "%s:%u: expected the end of the file after %u codebooks", name,
		               rd.line, K);
		goto out_free;
	}
	for (uint32_t i = K; i < c->N; i++)
		memcpy(c->cw + (size_t)i * c->q, c->cw + (size_t)(i % K) * c->q,
		       c->q * sizeof(*c->cw));
	free(vals);
	*out = c;
	return 0;
out_free:
	free(vals);
	ids_code_free(c);
	return ret;
}

void ids_code_encode(const struct ids_code *code, const uint8_t *sym, uint8_t *bits)
{
	for (uint32_t i = 0; i < code->N; i++) {
		const uint32_t w = code->cw[(size_t)i * code->q + sym[i]];

		for (uint32_t b = 0; b < code->n; b++)
			*bits++ = (uint8_t)(w >> (code->n - 1 - b) & 1u);
	}
}

int ids_chan_check(const struct ids_chan *ch, char *err, size_t errlen)
{
	if (!(ch->pi >= 0.0 && ch->pi < 1.0))
		return fec__err(err, errlen, FEC_ERANGE, "pi: expected 0 <= pi < 1, got %g",
		                ch->pi);
	if (!(ch->pd >= 0.0 && ch->pd < 1.0))
		return fec__err(err, errlen, FEC_ERANGE, "pd: expected 0 <= pd < 1, got %g",
		                ch->pd);
	if (!(ch->ps >= 0.0 && ch->ps <= 0.5))
		return fec__err(err, errlen, FEC_ERANGE, "ps: expected 0 <= ps <= 0.5, got %g",
		                ch->ps);
	if (!(ch->pi + ch->pd < 1.0))
		return fec__err(err, errlen, FEC_ERANGE,
		                "pi + pd: expected less than 1 (some bits must get through), got "
		                "%g + %g",
		                ch->pi, ch->pd);
	return 0;
}

size_t ids_bsid_max_out(size_t n)
{
	return 3 * n + 128;
}

void ids_bsid_apply(const struct ids_chan *ch, struct fec_prng *p, const uint8_t *bits, size_t n,
                    uint8_t *out, size_t max_out, size_t *nout)
{
	size_t k = 0;

	for (size_t t = 0; t < n; t++) {
		for (;;) {
			const double u = fec_prng_uniform(p);

			if (u < ch->pi) {
				const uint8_t b = (uint8_t)(fec_prng_next(p) >> 63);

				if (k < max_out)
					out[k++] = b;
				continue;
			}
			if (u < ch->pi + ch->pd)
				break; /* deleted */
			if (k < max_out)
				out[k++] = (uint8_t)(bits[t] ^ (fec_prng_uniform(p) < ch->ps));
			break;
		}
	}
	*nout = k;
}

/* ---- Drift limits. A distribution over drifts [lo, lo + len) as doubles. */

struct drift_dist {
	int lo;
	size_t len;
	double *p;
};

#define DRIFT_NEGLIGIBLE 1e-40 /* entries this small are dropped from the ends */

/* out = a * b (convolution), trimmed of negligible ends. */
static int drift_convolve(const struct drift_dist *a, const struct drift_dist *b,
                          struct drift_dist *out)
{
	const size_t len = a->len + b->len - 1;
	double *p = calloc(len, sizeof(*p));
	size_t first = 0, last = len;

	if (!p)
		return -FEC_ENOMEM;
	for (size_t i = 0; i < a->len; i++)
		for (size_t j = 0; j < b->len; j++)
			p[i + j] += a->p[i] * b->p[j];
	while (first + 1 < last && p[first] < DRIFT_NEGLIGIBLE)
		first++;
	while (last - 1 > first && p[last - 1] < DRIFT_NEGLIGIBLE)
		last--;
	memmove(p, p + first, (last - first) * sizeof(*p));
	out->lo = a->lo + b->lo + (int)first;
	out->len = last - first;
	out->p = p;
	return 0;
}

/* The drift after one bit: -1 (deleted, pd) or d >= 0 insertions then sent (pi^d pt) or d + 1
 * insertions then deleted (pi^(d+1) pd). */
static int drift_one_bit(const struct ids_chan *ch, struct drift_dist *out)
{
	const double pt = 1.0 - ch->pi - ch->pd;
	size_t len = 2;
	double pw = 1.0;

	while (len < 4096 && pw * ch->pi > DRIFT_NEGLIGIBLE) {
		pw *= ch->pi;
		len++;
	}
	out->p = malloc(len * sizeof(*out->p));
	if (!out->p)
		return -FEC_ENOMEM;
	out->lo = -1;
	out->len = len;
	out->p[0] = ch->pd;
	pw = 1.0;
	for (size_t d = 1; d < len; d++) {
		out->p[d] = pw * pt + pw * ch->pi * ch->pd;
		pw *= ch->pi;
	}
	return 0;
}

int ids_drift_limits(const struct ids_chan *ch, uint32_t T, double p_excl, int *lo, int *hi,
                     char *err, size_t errlen)
{
	struct drift_dist bit = {0}, acc = {0}, tmp;
	double tail;
	size_t a, b;
	int ret = ids_chan_check(ch, err, errlen);

	if (ret)
		return ret;
	if (T < 1 || !(p_excl > 0.0 && p_excl < 1.0))
		return fec__err(err, errlen, FEC_ERANGE,
		                "drift limits: expected T >= 1 bits and 0 < p_excl < 1");
	ret = drift_one_bit(ch, &bit);
	if (ret)
		goto out_nomem;
	/* acc = bit^T by squaring */
	acc.lo = 0;
	acc.len = 1;
	acc.p = malloc(sizeof(double));
	if (!acc.p)
		goto out_nomem;
	acc.p[0] = 1.0;
	for (uint32_t e = T;;) {
		if (e & 1) {
			if (drift_convolve(&acc, &bit, &tmp))
				goto out_nomem;
			free(acc.p);
			acc = tmp;
		}
		e >>= 1;
		if (!e)
			break;
		if (drift_convolve(&bit, &bit, &tmp))
			goto out_nomem;
		free(bit.p);
		bit = tmp;
	}
	/* the widest trimming of each tail that keeps it within p_excl / 2 */
	for (a = 0, tail = 0.0; a < acc.len && tail + acc.p[a] <= p_excl / 2; a++)
		tail += acc.p[a];
	for (b = acc.len, tail = 0.0; b > a + 1 && tail + acc.p[b - 1] <= p_excl / 2; b--)
		tail += acc.p[b - 1];
	*lo = acc.lo + (int)a;
	*hi = acc.lo + (int)b - 1;
	if (*lo > 0)
		*lo = 0;
	if (*hi < 0)
		*hi = 0;
	free(acc.p);
	free(bit.p);
	return 0;
out_nomem:
	free(acc.p);
	free(bit.p);
	return fec__err(err, errlen, FEC_ENOMEM, "out of memory for the drift limits");
}
