/*
 * The nbldpc family's trellis min-sum decoder (algo=tms, nbldpc_tms.c): its check node against a
 * brute-force search over every value of the other symbols on small checks (exact with one
 * deviation; between the best configuration and the best single deviation with two); clean
 * frames for every q; the fast paths (AVX-512 for GF(64), portable for any q) against the
 * reference bit for bit (costs, decisions, iterations) on noisy frames of codes with checks of
 * 4, 5 and 6 and q = 4 to 256; the costs formed from int8 LLRs against those formed from the
 * same LLRs in float32, for every q and both bit orders.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codec_util.h"
#include "fec.h"
#include "nbldpc_decoder.h"
#include "prng.h"

/* ---- The check node against brute force. */

/* For each edge i and value a: the least summed cost of the other symbols' values meeting the
 * check, over all configurations (all), over those with at most two (two) and at most one (one)
 * symbols off their likeliest value. */
static void brute_tms(const struct nbldpc_gf *gf, unsigned deg, const uint8_t *h, const uint8_t *qe,
                      unsigned *all, unsigned *two, unsigned *one)
{
	const unsigned q = gf->q;
	unsigned best[8], total = 1;

	for (unsigned j = 0; j < deg; j++) {
		best[j] = 0;
		while (qe[j * q + best[j]] != 0)
			best[j]++;
	}
	for (unsigned j = 0; j < deg - 1; j++)
		total *= q;
	for (unsigned i = 0; i < deg; i++) {
		for (unsigned a = 0; a < q; a++)
			all[i * q + a] = two[i * q + a] = one[i * q + a] = 1u << 30;
		for (unsigned t = 0; t < total; t++) {
			unsigned u = t, s = 0, cost = 0, devs = 0, a;

			for (unsigned j = 0; j < deg; j++) {
				unsigned x;

				if (j == i)
					continue;
				x = u % q;
				u /= q;
				s ^= nbldpc_gf_mul(gf, h[j], (uint8_t)x);
				cost += qe[j * q + x];
				devs += x != best[j];
			}
			a = nbldpc_gf_div(gf, (uint8_t)s, h[i]);
			if (cost < all[i * q + a])
				all[i * q + a] = cost;
			if (devs <= 2 && cost < two[i * q + a])
				two[i * q + a] = cost;
			if (devs <= 1 && cost < one[i * q + a])
				one[i * q + a] = cost;
		}
	}
}

static unsigned cap(unsigned v)
{
	return v > 255 ? 255 : v;
}

static void test_check_node(void)
{
	static const unsigned sizes[][2] = {{4, 3},  {4, 4},  {8, 3}, {8, 4},
	                                    {16, 3}, {16, 4}, {32, 3}};
	struct fec_prng rng;

	fec_prng_seed(&rng, 17);
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		const unsigned q = sizes[s][0], deg = sizes[s][1];
		struct nbldpc_gf gf;
		uint8_t h[4], qe[4 * 32], re[4 * 32];
		uint8_t *work = malloc(nbldpc__tms_work_bytes(deg, q));
		unsigned *all = malloc(4 * 32 * sizeof(unsigned) * 3), *two = all + 4 * 32;
		unsigned *one = two + 4 * 32, bad1 = 0, bad2 = 0, exact2 = 0;

		if (!work || !all || nbldpc_gf_init(&gf, (unsigned)__builtin_ctz(q), 0, NULL, 0))
			abort();
		for (unsigned trial = 0; trial < 40; trial++) {
			for (unsigned j = 0; j < deg; j++) {
				unsigned zero = (unsigned)(fec_prng_next(&rng) % q);

				h[j] = (uint8_t)(1 + fec_prng_next(&rng) % (q - 1));
				for (unsigned a = 0; a < q; a++)
					qe[j * q + a] = (uint8_t)(fec_prng_next(&rng) %
					                          (trial < 20 ? 40 : 256));
				qe[j * q + zero] = 0;
			}
			brute_tms(&gf, deg, h, qe, all, two, one);
			/* one deviation (dev2 = 0) is exact */
			nbldpc__tms_check(&gf, deg, h, qe, re, 0, 0, work);
			for (unsigned i = 0; i < deg * q; i++)
				bad1 += re[i] != cap(one[i]);
			/* with two: a cost of some configuration of at most two deviations, no
			 * worse than the best single one; count where it finds the best of them */
			nbldpc__tms_check(&gf, deg, h, qe, re, q - 1, 0, work);
			for (unsigned i = 0; i < deg * q; i++) {
				bad2 += re[i] < cap(two[i]) || re[i] > cap(one[i]);
				exact2 += re[i] == cap(two[i]);
			}
		}
		CHECK(bad1 == 0, "GF(%u) degree %u, one deviation: %u values off brute force", q,
		      deg, bad1);
		CHECK(bad2 == 0, "GF(%u) degree %u, two deviations: %u values out of bounds", q,
		      deg, bad2);
		/* the approximation finds the best two-deviation value for most entries */
		CHECK(exact2 * 10 >= 40u * deg * q * 8, "GF(%u) degree %u: %u of %u exact", q, deg,
		      exact2, 40 * deg * q);
		free(work);
		free(all);
	}
}

/* ---- The fast path against the reference. */

/* The channel costs of a noisy codeword of the decoder's code as the coder forms them: per
 * symbol the sum of the int8 LLRs of each value's 1 bits (MSB first), less the smallest. */
static void noisy_costs(const struct nbldpc_code *c, struct fec_prng *rng, double ebn0,
                        int16_t *app)
{
	const unsigned q = c->gf.q, p = c->gf.p;
	uint8_t info[NBLDPC_N_MAX / 64], cw[NBLDPC_N_MAX / 64], bits[NBLDPC_N_MAX / 8];
	int8_t llr[NBLDPC_N_MAX / 8];

	for (uint32_t i = 0; i < c->k; i++)
		info[i] = (uint8_t)(fec_prng_next(rng) % q);
	nbldpc_encode(c, info, cw);
	for (uint32_t x = 0; x < c->n; x++)
		for (unsigned t = 0; t < p; t++)
			bits[x * p + t] = (cw[x] >> (p - 1 - t)) & 1;
	util_channel_s8(rng, bits, (size_t)c->n * p, ebn0, (double)c->k / c->n, 8.0f, llr);
	for (uint32_t x = 0; x < c->n; x++) {
		int v[NBLDPC_Q_MAX], mn = 1 << 30;

		for (unsigned a = 0; a < q; a++) {
			v[a] = 0;
			for (unsigned t = 0; t < p; t++)
				if ((a >> (p - 1 - t)) & 1)
					v[a] += llr[x * p + t];
			mn = v[a] < mn ? v[a] : mn;
		}
		for (unsigned a = 0; a < q; a++)
			app[(size_t)x * q + a] = (int16_t)(v[a] - mn);
	}
}

/* One frame's results through a path. */
struct run {
	unsigned it;
	bool ok;
};

/* Whether path's costs, decisions, iterations and verdict equal the reference's; prints the
 * first difference once (*said). */
static bool same_run(const char *text, const char *path, unsigned f, double ebn0, unsigned q,
                     size_t nv, struct run r, const int16_t *ref, const uint8_t *href, struct run x,
                     const int16_t *cost, const uint8_t *hard, uint32_t n, bool *said)
{
	size_t at = 0;

	if (r.it == x.it && r.ok == x.ok && !memcmp(href, hard, n) &&
	    !memcmp(ref, cost, nv * sizeof(int16_t)))
		return true;
	while (at < nv && ref[at] == cost[at])
		at++;
	if (!*said)
		printf("%s, %s path, frame %u (%.1f dB): iterations %u / %u, ok %d / %d, first "
		       "cost differing: symbol %zu value %zu (%d / %d)\n",
		       text, path, f, ebn0, r.it, x.it, r.ok, x.ok, at / q, at % q,
		       at < nv ? ref[at] : 0, at < nv ? cost[at] : 0);
	*said = true;
	return false;
}

/* Frames at several Eb/N0 (most decode, some do not) and settings through the reference, the
 * portable fast path and (GF(64) on a CPU with AVX-512 VBMI) the AVX-512 one: the a-posteriori
 * costs, the decisions, the iterations and the verdict must agree exactly. */
static void test_fast_equals_reference(void)
{
	/* B1C's size and shape (checks of 4, two at a time where they share no variable), then
	 * checks of 4 and 5 mixed (the AVX-512 path for any degree, pairs and single checks), of
	 * 6 and of 36 (past the AVX-512 path's 32, where it keeps step 6's table numbers
	 * unscaled); other q for the portable path */
	static const struct {
		const char *code;
		unsigned frames;
	} codes[] = {{"code=regular,q=64,n=200,dv=2,dc=4,seed=1", 24},
	             {"code=irregular,q=64,n=240,seed=2", 8},
	             {"code=regular,q=64,n=120,dv=3,dc=6,seed=3", 8},
	             {"code=regular,q=64,n=1152,dv=2,dc=36,seed=7", 2},
	             {"code=regular,q=4,n=120,dv=2,dc=4,seed=4", 8},
	             {"code=irregular,q=16,n=160,seed=5", 8},
	             {"code=regular,q=256,n=60,dv=2,dc=4,seed=6", 4}};
	static const char *const settings[] = {"dev2=8,offset=8", "dev2=0,offset=0",
	                                       "dev2=255,offset=3,early_stop=false",
	                                       "dev2=2,offset=40"};
	static const double ebn0[] = {0.5, 1.5, 2.5, 4.0};
	const unsigned ns = sizeof(settings) / sizeof(settings[0]);
	struct fec_prng rng;
	bool avx_said = false, avx2_said = false;
	unsigned singles = 0, pairs = 0;

	fec_prng_seed(&rng, 5);
	for (unsigned i = 0; i < sizeof(codes) / sizeof(codes[0]) * ns; i++) {
		char text[256], err[256];
		struct fec_spec spec;
		struct fec_decoder *dec = NULL;
		struct nbldpc_decoder *d;
		int16_t *ref, *fast, *avx;
		uint8_t *href, *hfast, *havx;
		void *scratch;
		unsigned frames = 0, dfast = 0, davx = 0, q;
		bool said_fast = false, said_avx = false, has_avx2;

		snprintf(text, sizeof(text), "nbldpc,%s,algo=tms,iters=12,%s", codes[i / ns].code,
		         settings[i % ns]);
		if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
		    fec_decoder_create(&spec, &dec)) {
			CHECK(0, "%s: no decoder (%s)", text, err);
			continue;
		}
		d = (struct nbldpc_decoder *)dec;
		q = d->q;
		has_avx2 = d->tms_avx2;
		if (q >= 16 && !has_avx2 && !avx2_said) {
			printf("SKIPPED (no AVX2): the portable path's AVX2 pieces against the "
			       "reference\n");
			avx2_said = true;
		}
		CHECK(d->tms_mul != NULL, "%s: no tables for the fast paths", text);
		if (q == 64 && !d->tms_avx512 && !avx_said) {
			printf(
			    "SKIPPED (no AVX-512 VBMI): the AVX-512 path against the reference\n");
			avx_said = true;
		}
		/* the AVX-512 path's schedule: checks alone and in pairs */
		for (uint32_t g = 0; d->tms_avx512 && g < d->tms_groups; g++) {
			pairs += d->tms_sched[g] & 1;
			singles += !(d->tms_sched[g] & 1);
		}
		ref = malloc((size_t)d->code->n * q * sizeof(int16_t));
		fast = malloc((size_t)d->code->n * q * sizeof(int16_t));
		avx = malloc((size_t)d->code->n * q * sizeof(int16_t));
		scratch = malloc(nbldpc__scratch_bytes(d));
		href = malloc(3 * (size_t)d->code->n);
		hfast = href + d->code->n;
		havx = hfast + d->code->n;
		if (!ref || !fast || !avx || !scratch || !href || !d->tms_mul)
			abort();
		for (unsigned f = 0; f < codes[i / ns].frames; f++) {
			const size_t nv = (size_t)d->code->n * q;
			struct run r, x;

			noisy_costs(d->code, &rng, ebn0[f % 4], ref);
			memcpy(avx, ref, nv * sizeof(int16_t));
			r.it = nbldpc__tms_ref(d, scratch, ref, href, &r.ok);
			/* the portable path with its AVX2 pieces where the CPU has them, and
			 * without */
			for (unsigned v = 0; v < 1u + has_avx2; v++) {
				d->tms_avx2 = has_avx2 && v == 0;
				memcpy(fast, avx, nv * sizeof(int16_t));
				x.it = nbldpc__tms_fast(d, scratch, fast, hfast, &x.ok);
				dfast +=
				    !same_run(text, d->tms_avx2 ? "portable (AVX2)" : "portable", f,
				              ebn0[f % 4], q, nv, r, ref, href, x, fast, hfast,
				              d->code->n, &said_fast);
			}
			d->tms_avx2 = has_avx2;
			if (d->tms_avx512) {
				x.it = nbldpc__tms_avx512(d, scratch, avx, havx, &x.ok);
				davx += !same_run(text, "AVX-512", f, ebn0[f % 4], q, nv, r, ref,
				                  href, x, avx, havx, d->code->n, &said_avx);
			}
			frames++;
		}
		CHECK(dfast == 0,
		      "%s: %u of %u frames differ between the portable fast path and the "
		      "reference",
		      text, dfast, frames);
		CHECK(davx == 0,
		      "%s: %u of %u frames differ between the AVX-512 path and the "
		      "reference",
		      text, davx, frames);
		free(ref);
		free(fast);
		free(avx);
		free(href);
		free(scratch);
		fec_decoder_destroy(dec);
	}
	/* the AVX-512 path's checks alone and in pairs were both compared above */
	if (avx_said)
		return;
	CHECK(singles > 0 && pairs > 0, "AVX-512 schedule: %u checks alone, %u pairs", singles,
	      pairs);
	printf("AVX-512 schedule over the codes: %u checks alone, %u pairs\n", singles, pairs);
}

/* ---- The costs from int8 LLRs. */

/* Random int8 frames through fec_decode as int8 and as the same values in float32 (in=f32,
 * llr_scale 8, so the float path's rounding is exact): the two inputs form tms's costs in
 * different code (nbldpc_coder.c's map_in_s8_i16, or nbldpc__tms_avx512_costs for GF(64) on the
 * AVX-512 path, and map_in_cost with costs_to_i16), so equal iterations, bits and soft bit
 * LLRs for every q and both bit orders say the int8 one is exact. */
static void test_s8_costs(void)
{
	static const char *const codes[] = {
	    "code=regular,q=2,n=60,dv=3,dc=6,seed=7",  "code=regular,q=4,n=60,dv=2,dc=4,seed=7",
	    "code=regular,q=8,n=60,dv=2,dc=4,seed=7",  "code=regular,q=16,n=60,dv=2,dc=4,seed=7",
	    "code=regular,q=64,n=60,dv=2,dc=4,seed=7", "code=regular,q=256,n=40,dv=2,dc=4,seed=7"};
	enum { JOBS = 4 };
	struct fec_prng rng;

	fec_prng_seed(&rng, 9);
	for (unsigned i = 0; i < sizeof(codes) / sizeof(codes[0]) * 2; i++) {
		struct fec_decoder *dec[2] = {NULL, NULL};
		const struct fec_info *info[2];
		struct fec_job jobs[2][JOBS];
		uint8_t out[2][JOBS * 256] = {{0}};
		float *soft[2] = {NULL, NULL}, *inf = NULL;
		int8_t *in = NULL;
		void *scratch = NULL;
		char text[2][256];
		unsigned n, diff = 0;

		for (unsigned v = 0; v < 2; v++) {
			struct fec_spec spec;
			char err[256] = "";

			snprintf(
			    text[v], sizeof(text[v]),
			    "nbldpc,%s,algo=tms,iters=6,early_stop=false,soft=bit,bit_order=%s%s",
			    codes[i / 2], i % 2 ? "lsb" : "msb", v ? ",in=f32" : "");
			if (fec_spec_from_string(text[v], &spec, err, sizeof(err)) ||
			    fec_decoder_create(&spec, &dec[v])) {
				CHECK(0, "%s: no decoder (%s)", text[v], err);
				goto next;
			}
			info[v] = fec_decoder_info(dec[v]);
			soft[v] = calloc((size_t)JOBS * info[v]->max_soft, sizeof(float));
		}
		n = info[0]->frame_syms;
		in = malloc((size_t)JOBS * n);
		inf = malloc((size_t)JOBS * n * sizeof(float));
		scratch = malloc(info[0]->scratch_bytes > info[1]->scratch_bytes
		                     ? info[0]->scratch_bytes
		                     : info[1]->scratch_bytes);
		if (!in || !inf || !scratch || !soft[0] || !soft[1])
			abort();
		for (size_t t = 0; t < (size_t)JOBS * n; t++) {
			in[t] = (int8_t)(fec_prng_next(&rng) % 256 - 128);
			inf[t] = in[t] / 8.0f;
		}
		for (unsigned v = 0; v < 2; v++) {
			struct fec_batch b = {.count = JOBS,
			                      .jobs = jobs[v],
			                      .in = v ? NULL : in,
			                      .in_f32 = v ? inf : NULL,
			                      .in_stride = n,
			                      .out = out[v],
			                      .out_stride = 256,
			                      .soft = soft[v],
			                      .soft_stride = info[v]->max_soft};

			for (unsigned j = 0; j < JOBS; j++)
				jobs[v][j] = (struct fec_job){.in_len = n, .own_len = n};
			CHECK(fec_decode(dec[v], scratch, &b, 0, JOBS) == 0, "%s: fec_decode",
			      text[v]);
		}
		for (unsigned j = 0; j < JOBS; j++)
			diff += jobs[0][j].status != jobs[1][j].status ||
			        jobs[0][j].work != jobs[1][j].work ||
			        jobs[0][j].out_bits != jobs[1][j].out_bits ||
			        memcmp(out[0] + j * 256, out[1] + j * 256, 256) ||
			        memcmp(soft[0] + (size_t)j * info[0]->max_soft,
			               soft[1] + (size_t)j * info[0]->max_soft,
			               info[0]->max_soft * sizeof(float));
		CHECK(diff == 0, "%s: %u of %u frames differ from float32 input", text[0], diff,
		      JOBS);
	next:
		free(in);
		free(inf);
		free(scratch);
		for (unsigned v = 0; v < 2; v++) {
			free(soft[v]);
			fec_decoder_destroy(dec[v]);
		}
	}
}

int main(void)
{
	test_check_node();
	test_fast_equals_reference();
	test_s8_costs();
	return check_done();
}
