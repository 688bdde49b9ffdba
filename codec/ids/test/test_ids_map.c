/*
 * The ids MAP decoder (ids_map.h) against what it must compute:
 *   - the forward-backward posteriors against brute force on tiny codes: every message, and
 *     for each every insertion/deletion/transmission pattern of the BSID channel that gives the
 *     received frame, summed in double (hard and soft input, uniform and given priors), with
 *     limits wide enough to drop no path;
 *   - the lattice receiver metric (gamma) against direct enumeration of every pattern within
 *     the corridor, for every symbol, start drift, drift change and codeword;
 *   - noiseless frames, frames with known insertions and deletions within the limits, frames
 *     whose drift leaves them (erased), global and local storage bit for bit;
 *   - pruning (ids_map_params.prune): the exact decoder's decisions, on the brute-force cases
 *     and on Fig. 17 frames, posteriors close to the exact ones, global = local bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "ids_map.h"

struct dec {
	struct ids_code *code;
	struct ids_map map;
	void *scratch;
};

/* prune: ids_map_params.prune (0: the exact decoder). */
static int dec_open_p(struct dec *d, struct ids_code *code, double pi, double pd, double ps,
                      double p_excl, enum ids_storage storage, double prune)
{
	struct ids_map_params par = {.ch = {pi, pd, ps},
	                             .p_excl = p_excl,
	                             .llr_scale = 8.0f,
	                             .storage = storage,
	                             .prune = prune};
	char err[256] = "";
	int ret = ids_map_init(&d->map, code, &par, err, sizeof(err));

	CHECK(ret == 0, "ids_map_init: %s", err);
	d->code = code;
	d->scratch = ret ? NULL : aligned_alloc(64, (d->map.scratch_bytes + 63) & ~(size_t)63);
	return ret;
}

static int dec_open(struct dec *d, struct ids_code *code, double pi, double pd, double ps,
                    double p_excl, enum ids_storage storage)
{
	return dec_open_p(d, code, pi, pd, ps, p_excl, storage, 0.0);
}

static void dec_close(struct dec *d)
{
	free(d->scratch);
}

static void hard_llr(const uint8_t *bits, size_t n, int8_t *out)
{
	for (size_t k = 0; k < n; k++)
		out[k] = bits[k] ? -127 : 127;
}

/* Q(y | x) in double, as ids_map.h defines it. */
static double q_of(const struct ids_chan *ch, int8_t y, unsigned x)
{
	const double pt = 1.0 - ch->pi - ch->pd;
	double p0 = y >= 127 ? 1.0 : y <= -127 ? 0.0 : 1.0 / (1.0 + exp(-(double)y / 8.0));
	const double px = x ? 1.0 - p0 : p0;

	return pt * ((1.0 - ch->ps) * px + ch->ps * (1.0 - px));
}

/* ---- Brute force over whole frames. */

struct frame_enum {
	const struct ids_chan *ch;
	const uint8_t *x;
	unsigned tau;
	const int8_t *y;
	unsigned rho;
};

/* Probability that bits x[t..tau) give y[j..rho): at each bit, an insertion (a random bit,
 * pi/2 for either value) and the same bit again, a deletion, or a transmission. */
static double frame_prob(const struct frame_enum *e, unsigned t, unsigned j)
{
	double p;

	if (t == e->tau)
		return j == e->rho ? 1.0 : 0.0;
	p = e->ch->pd * frame_prob(e, t + 1, j);
	if (j < e->rho) {
		p += 0.5 * e->ch->pi * frame_prob(e, t, j + 1);
		p += q_of(e->ch, e->y[j], e->x[t]) * frame_prob(e, t + 1, j + 1);
	}
	return p;
}

/* Posteriors by enumerating every message; prior: N * q log-probabilities or NULL. */
static void brute_posteriors(const struct ids_code *code, const struct ids_chan *ch,
                             const int8_t *y, unsigned rho, const float *prior, double *post)
{
	const unsigned N = code->N, q = code->q, tau = code->n * code->N;
	uint8_t sym[8], x[64];
	unsigned total = 1;
	struct frame_enum e = {ch, x, tau, y, rho};

	for (unsigned i = 0; i < N; i++)
		total *= q;
	memset(post, 0, (size_t)N * q * sizeof(*post));
	for (unsigned msg = 0; msg < total; msg++) {
		double w = 1.0, p;

		for (unsigned i = 0, v = msg; i < N; i++, v /= q) {
			sym[i] = (uint8_t)(v % q);
			if (prior) {
				double z = 0.0;

				for (unsigned D = 0; D < q; D++)
					z += exp(prior[i * q + D]);
				w *= exp(prior[i * q + sym[i]]) / z;
			} else {
				w /= q;
			}
		}
		ids_code_encode(code, sym, x);
		p = w * frame_prob(&e, 0, 0);
		for (unsigned i = 0; i < N; i++)
			post[i * q + sym[i]] += p;
	}
	for (unsigned i = 0; i < N; i++) {
		double z = 0.0;

		for (unsigned D = 0; D < q; D++)
			z += post[i * q + D];
		for (unsigned D = 0; D < q; D++)
			post[i * q + D] /= z;
	}
}

static void test_brute_force(unsigned N, unsigned q, unsigned n, bool soft, bool priors,
                             uint64_t seed)
{
	const struct ids_chan ch = {0.1, 0.1, 0.05};
	/* pruned decoders: decisions as the exact path's, posteriors within about the pruning
	 * threshold of brute force */
	static const double prunes[2] = {1e-15, 1e-3};
	struct ids_code *code = NULL;
	struct dec d, dp[2];
	struct fec_prng p;
	uint8_t sym[8], bits[64], rxb[256], psym[8];
	int8_t rx[256];
	float prior[64], post[64], ppost[64];
	double ref[64];
	char err[256];
	size_t rho;
	int st;

	CHECK(ids_code_random(N, q, n, seed, &code, err, sizeof(err)) == 0, "%s", err);
	if (!code || dec_open(&d, code, ch.pi, ch.pd, ch.ps, 1e-30, IDS_STORAGE_AUTO)) {
		ids_code_free(code);
		return;
	}
	for (unsigned k = 0; k < 2; k++)
		dec_open_p(&dp[k], code, ch.pi, ch.pd, ch.ps, 1e-30, IDS_STORAGE_AUTO, prunes[k]);
	fec_prng_seed(&p, seed * 7 + 1);
	for (unsigned frame = 0; frame < 4; frame++) {
		double worst = 0.0;

		for (unsigned i = 0; i < N; i++)
			sym[i] = (uint8_t)(fec_prng_next(&p) % q);
		ids_code_encode(code, sym, bits);
		do
			ids_bsid_apply(&ch, &p, bits, (size_t)N * n, rxb, sizeof(rxb), &rho);
		while (rho > (size_t)N * n + 2); /* keep the enumeration small */
		for (size_t j = 0; j < rho; j++)
			rx[j] =
			    soft ? (int8_t)((rxb[j] ? -1 : 1) * (int)(fec_prng_next(&p) % 60 + 4))
			         : (int8_t)(rxb[j] ? -127 : 127);
		for (unsigned k = 0; k < N * q; k++)
			prior[k] = (float)(fec_prng_uniform(&p) * 3.0 - 1.5);
		CHECK(d.map.fmin == -(int)(N * n) && d.map.cmax >= (int)rho,
		      "limits too narrow for an exact comparison: [%d, %d], corridor to %d",
		      d.map.fmin, d.map.fmax, d.map.cmax);
		st = ids_map_decode(&d.map, d.scratch, rx, (uint32_t)rho, priors ? prior : NULL,
		                    post, sym);
		brute_posteriors(code, &ch, rx, (unsigned)rho, priors ? prior : NULL, ref);
		CHECK(st == FECD_STATUS_DECODED, "N=%u q=%u n=%u frame %u: status %d", N, q, n,
		      frame, st);
		for (unsigned k = 0; k < N * q; k++) {
			const double diff = fabs(exp((double)post[k]) - ref[k]);

			if (diff > worst)
				worst = diff;
		}
		CHECK(worst < 2e-5,
		      "N=%u q=%u n=%u %s %s frame %u (rho %zu): posteriors differ from brute "
		      "force by %g",
		      N, q, n, soft ? "soft" : "hard", priors ? "priors" : "uniform", frame, rho,
		      worst);
		for (unsigned k = 0; k < 2; k++) {
			double pw = 0.0;

			st = ids_map_decode(&dp[k].map, dp[k].scratch, rx, (uint32_t)rho,
			                    priors ? prior : NULL, ppost, psym);
			CHECK(st == FECD_STATUS_DECODED, "pruned %g: status %d", prunes[k], st);
			for (unsigned i = 0; i < N * q; i++) {
				const double diff = fabs(exp((double)ppost[i]) - ref[i]);

				pw = diff > pw ? diff : pw;
			}
			CHECK(pw < 2e-5 + 10.0 * N * prunes[k],
			      "N=%u q=%u n=%u frame %u, pruned %g: posteriors differ from brute "
			      "force by %g",
			      N, q, n, frame, prunes[k], pw);
			/* the same decisions, but where two symbols tie within that */
			for (unsigned i = 0; i < N; i++) {
				const double *r = ref + i * q;

				CHECK(psym[i] == sym[i] ||
				          fabs(r[psym[i]] - r[sym[i]]) < 2.0 * (2e-5 + pw),
				      "N=%u q=%u n=%u frame %u, pruned %g: symbol %u decided %u, "
				      "exact %u",
				      N, q, n, frame, prunes[k], i, psym[i], sym[i]);
			}
		}
	}
	dec_close(&dp[0]);
	dec_close(&dp[1]);
	dec_close(&d);
	ids_code_free(code);
}

/* ---- The lattice against enumeration within the corridor. */

struct cw_enum {
	const struct ids_chan *ch;
	uint32_t word;
	unsigned n;
	const int8_t *y;
	unsigned target;
	int cmin, cmax;
};

/* Probability that bits r.. of the codeword give y[j..target) with every node's drift j - r
 * within the corridor; the last bit is followed by no insertion (the next codeword's). */
static double cw_prob(const struct cw_enum *e, unsigned r, unsigned j)
{
	const int c = (int)j - (int)r;
	double p;

	if (c < e->cmin || c > e->cmax)
		return 0.0;
	if (r == e->n)
		return j == e->target ? 1.0 : 0.0;
	p = e->ch->pd * cw_prob(e, r + 1, j);
	if (j < e->target) {
		p += 0.5 * e->ch->pi * cw_prob(e, r, j + 1);
		p +=
		    q_of(e->ch, e->y[j], e->word >> (e->n - 1 - r) & 1u) * cw_prob(e, r + 1, j + 1);
	}
	return p;
}

static void test_lattice(bool soft)
{
	const struct ids_chan ch = {0.05, 0.06, 0.02};
	const unsigned N = 4, q = 4, n = 4;
	struct ids_code *code = NULL;
	struct dec d;
	struct fec_prng p;
	uint8_t sym[4], bits[16], rxb[128];
	int8_t rx[128];
	float prior[16], *g;
	char err[256];
	size_t rho;
	unsigned bad = 0, nonzero = 0;

	CHECK(ids_code_watermark(N, q, n, 5, &code, err, sizeof(err)) == 0, "%s", err);
	if (!code || dec_open(&d, code, ch.pi, ch.pd, ch.ps, 1e-3, IDS_STORAGE_LOCAL)) {
		ids_code_free(code);
		return;
	}
	fec_prng_seed(&p, 99);
	for (unsigned i = 0; i < N; i++)
		sym[i] = (uint8_t)(fec_prng_next(&p) % q);
	ids_code_encode(code, sym, bits);
	ids_bsid_apply(&ch, &p, bits, sizeof(bits), rxb, sizeof(rxb), &rho);
	for (size_t j = 0; j < rho; j++)
		rx[j] = soft ? (int8_t)((rxb[j] ? -1 : 1) * (int)(fec_prng_next(&p) % 90 + 2))
		             : (int8_t)(rxb[j] ? -127 : 127);
	for (unsigned k = 0; k < N * q; k++)
		prior[k] = (float)(fec_prng_uniform(&p) * 2.0 - 1.0);
	g = malloc((size_t)d.map.Mtau * d.map.Mn * q * sizeof(*g));
	CHECK(d.map.cmax - d.map.cmin + 1 < (int)(2 * n + 1),
	      "corridor [%d, %d] is not narrower than the lattice: the test would not test it",
	      d.map.cmin, d.map.cmax);
	for (unsigned i = 0; g && i < N; i++) {
		double pz = 0.0;

		ids_map_gamma(&d.map, d.scratch, rx, (uint32_t)rho, i, prior, g);
		for (unsigned D = 0; D < q; D++)
			pz += exp((double)prior[i * q + D]);
		for (int mp = d.map.fmin; mp <= d.map.fmax; mp++)
			for (int dd = d.map.cmin; dd <= d.map.cmax; dd++)
				for (unsigned D = 0; D < q; D++) {
					const long start = (long)n * i + mp;
					const long end = (long)n * (i + 1) + mp + dd;
					const float got = g[((size_t)(mp - d.map.fmin) * d.map.Mn +
					                     (size_t)(dd - d.map.cmin)) *
					                        q +
					                    D];
					double want = 0.0;

					if (start >= 0 && end <= (long)rho && end >= start &&
					    mp + dd >= d.map.fmin && mp + dd <= d.map.fmax) {
						struct cw_enum e = {
						    &ch,        code->cw[i * q + D],     n,
						    rx + start, (unsigned)(end - start), d.map.cmin,
						    d.map.cmax};

						want = exp((double)prior[i * q + D]) / pz *
						       cw_prob(&e, 0, 0);
					}
					nonzero += want > 0.0;
					if (fabs(got - want) > 1e-5 * want + 1e-30) {
						if (!bad++)
							fprintf(stderr,
							        "i=%u m'=%d d=%d D=%u: lattice "
							        "%g, enumeration %g\n",
							        i, mp, dd, D, got, want);
					}
				}
	}
	CHECK(bad == 0, "%s: %u gamma values differ from the enumeration", soft ? "soft" : "hard",
	      bad);
	CHECK(nonzero > 50, "only %u gamma values are nonzero", nonzero);
	free(g);
	dec_close(&d);
	ids_code_free(code);
}

/* ---- Whole frames of the Fig. 17 code. */

static struct ids_code *fig17_code(void)
{
	struct ids_code *code = NULL;
	char err[256];

	CHECK(ids_code_random(840, 16, 8, 1, &code, err, sizeof(err)) == 0, "%s", err);
	return code;
}

/* Decodes rx and counts the symbols that differ from sym. */
static unsigned decode_errors(struct dec *d, const int8_t *rx, size_t rho, const uint8_t *sym,
                              int *status, float *post)
{
	uint8_t got[IDS_N_MAX];
	unsigned wrong = 0;

	*status = ids_map_decode(&d->map, d->scratch, rx, (uint32_t)rho, NULL, post, got);
	for (uint32_t i = 0; i < d->code->N; i++)
		wrong += got[i] != sym[i];
	return wrong;
}

static void test_frames(void)
{
	struct ids_code *code = fig17_code();
	struct dec glob, loc;
	struct fec_prng p;
	const size_t tau = 840 * 8;
	uint8_t sym[840], *bits = malloc(tau), *edit = malloc(tau + 64);
	int8_t *rx = malloc(tau + 64);
	float *post_g = malloc(840 * 16 * sizeof(float)),
	      *post_l = malloc(840 * 16 * sizeof(float));
	unsigned wrong;
	int st;
	size_t k;

	if (!code || dec_open(&glob, code, 1e-3, 1e-3, 0.0, 1e-10, IDS_STORAGE_GLOBAL)) {
		ids_code_free(code);
		return;
	}
	dec_open(&loc, code, 1e-3, 1e-3, 0.0, 1e-10, IDS_STORAGE_LOCAL);
	CHECK(glob.map.global && !loc.map.global, "storage not as forced");
	printf("fig17: frame drift [%d, %d], codeword [%d, %d]; scratch global %zu, local %zu "
	       "bytes\n",
	       glob.map.fmin, glob.map.fmax, glob.map.cmin, glob.map.cmax, glob.map.scratch_bytes,
	       loc.map.scratch_bytes);
	fec_prng_seed(&p, 17);
	for (unsigned i = 0; i < 840; i++)
		sym[i] = (uint8_t)(fec_prng_next(&p) % 16);
	ids_code_encode(code, sym, bits);

	/* noiseless, hard and soft */
	hard_llr(bits, tau, rx);
	wrong = decode_errors(&glob, rx, tau, sym, &st, post_g);
	CHECK(st == FECD_STATUS_DECODED && wrong == 0, "noiseless: status %d, %u symbols wrong", st,
	      wrong);
	for (k = 0; k < tau; k++)
		rx[k] = (int8_t)(bits[k] ? -20 : 20);
	wrong = decode_errors(&loc, rx, tau, sym, &st, post_l);
	CHECK(st == FECD_STATUS_DECODED && wrong == 0,
	      "noiseless soft (+-20): status %d, %u symbols wrong", st, wrong);

	/* known edits: 3 insertions and 2 deletions spread over the frame, net drift +1 */
	{
		size_t out = 0;
		const size_t ins[3] = {100, 2500, 6000}, del[2] = {1200, 4000};

		for (k = 0; k < tau; k++) {
			for (unsigned e = 0; e < 3; e++)
				if (k == ins[e])
					edit[out++] = (uint8_t)(e & 1);
			if (k == del[0] || k == del[1])
				continue;
			edit[out++] = bits[k];
		}
		hard_llr(edit, out, rx);
		wrong = decode_errors(&glob, rx, out, sym, &st, post_g);
		CHECK(st == FECD_STATUS_DECODED && wrong == 0,
		      "3 insertions, 2 deletions: status %d, %u symbols wrong", st, wrong);
		decode_errors(&loc, rx, out, sym, &st, post_l);
		CHECK(!memcmp(post_g, post_l, 840 * 16 * sizeof(float)),
		      "global and local storage give different posteriors");
		/* a burst of 4 deletions in one codeword: still within its limits */
		out = 0;
		for (k = 0; k < tau; k++)
			if (k < 3000 || k >= 3004)
				edit[out++] = bits[k];
		hard_llr(edit, out, rx);
		wrong = decode_errors(&glob, rx, out, sym, &st, post_g);
		CHECK(st == FECD_STATUS_DECODED && wrong <= 1,
		      "4 deletions in a row: status %d, %u symbols wrong", st, wrong);
	}

	/* noisy frames through the BSID channel: global = local, bit for bit */
	for (unsigned f = 0; f < 2; f++) {
		const struct ids_chan ch = {1e-3, 1e-3, 0.0};
		uint8_t *rxb = malloc(ids_bsid_max_out(tau));
		size_t rho;
		int st2;

		ids_bsid_apply(&ch, &p, bits, tau, rxb, ids_bsid_max_out(tau), &rho);
		if (rho > tau + 64)
			rho = tau + 64;
		hard_llr(rxb, rho, rx);
		decode_errors(&glob, rx, rho, sym, &st, post_g);
		decode_errors(&loc, rx, rho, sym, &st2, post_l);
		CHECK(st == st2 && !memcmp(post_g, post_l, 840 * 16 * sizeof(float)),
		      "channel frame %u: global and local storage differ", f);
		free(rxb);
	}

	/* drift out of the limits at the end: erased, with uniform posteriors */
	{
		const size_t over = tau + (size_t)glob.map.fmax + 1;

		for (k = tau; k < over; k++)
			rx[k] = 127;
		hard_llr(bits, tau, rx);
		for (k = tau; k < over; k++)
			rx[k] = (int8_t)(k & 1 ? 127 : -127);
		decode_errors(&glob, rx, over, sym, &st, post_g);
		CHECK(st == FECD_STATUS_ERASED, "final drift %d beyond the limit %d: status %d",
		      glob.map.fmax + 1, glob.map.fmax, st);
		CHECK(fabsf(post_g[5] + logf(16.0f)) < 1e-6f, "erased: posterior %g, not uniform",
		      post_g[5]);
		decode_errors(&glob, rx, tau + (size_t)glob.map.fmin - 1, sym, &st, post_g);
		CHECK(st == FECD_STATUS_ERASED, "final drift %d below the limit %d: status %d",
		      glob.map.fmin - 1, glob.map.fmin, st);
	}
	dec_close(&glob);
	dec_close(&loc);
	ids_code_free(code);
	free(bits);
	free(edit);
	free(rx);
	free(post_g);
	free(post_l);
}

/* Pruning (ids_map_params.prune = 1e-15, the family's default) on Fig. 17 frames: the same
 * decisions as the exact decoder, posteriors within 1e-6 of its, global = local bit for bit;
 * frames with known edits, noiseless soft, and through the channel at pi = pd = 1e-3 and 5e-3. */
static void test_pruned_frames(void)
{
	struct ids_code *code = fig17_code();
	struct dec ex, pg, pl;
	struct fec_prng p;
	const size_t tau = 840 * 8, cap = tau + 64;
	uint8_t sym[840], got_e[840], got_g[840], got_l[840], *bits = malloc(tau),
	                                                      *rxb = malloc(ids_bsid_max_out(tau));
	int8_t *rx = malloc(cap);
	float *post_e = malloc(840 * 16 * sizeof(float)),
	      *post_g = malloc(840 * 16 * sizeof(float)),
	      *post_l = malloc(840 * 16 * sizeof(float));

	if (!code || dec_open(&ex, code, 1e-3, 1e-3, 0.0, 1e-10, IDS_STORAGE_GLOBAL)) {
		ids_code_free(code);
		return;
	}
	dec_open_p(&pg, code, 1e-3, 1e-3, 0.0, 1e-10, IDS_STORAGE_GLOBAL, 1e-15);
	dec_open_p(&pl, code, 1e-3, 1e-3, 0.0, 1e-10, IDS_STORAGE_LOCAL, 1e-15);
	fec_prng_seed(&p, 23);
	for (unsigned f = 0; f < 12; f++) {
		const struct ids_chan ch = {f < 8 ? 1e-3 : 5e-3, f < 8 ? 1e-3 : 5e-3, 0.0};
		size_t rho = 0;
		double worst = 0.0;
		unsigned differ = 0, wrong = 0;
		int se, sg, sl;

		for (unsigned i = 0; i < 840; i++)
			sym[i] = (uint8_t)(fec_prng_next(&p) % 16);
		ids_code_encode(code, sym, bits);
		if (f == 0 || f == 1) { /* noiseless, hard and soft (+-20) */
			rho = tau;
			for (size_t k = 0; k < tau; k++)
				rx[k] = (int8_t)((bits[k] ? -1 : 1) * (f ? 20 : 127));
		} else if (f == 2) { /* a burst of 4 deletions, 3 insertions further on */
			for (size_t k = 0; k < tau; k++) {
				if (k == 5000 || k == 5001 || k == 5002)
					rxb[rho++] = (uint8_t)(k & 1);
				if (k < 3000 || k >= 3004)
					rxb[rho++] = bits[k];
			}
			hard_llr(rxb, rho, rx);
		} else {
			ids_bsid_apply(&ch, &p, bits, tau, rxb, ids_bsid_max_out(tau), &rho);
			rho = rho < cap ? rho : cap;
			hard_llr(rxb, rho, rx);
		}
		se = ids_map_decode(&ex.map, ex.scratch, rx, (uint32_t)rho, NULL, post_e, got_e);
		sg = ids_map_decode(&pg.map, pg.scratch, rx, (uint32_t)rho, NULL, post_g, got_g);
		sl = ids_map_decode(&pl.map, pl.scratch, rx, (uint32_t)rho, NULL, post_l, got_l);
		CHECK(sg == sl && !memcmp(post_g, post_l, 840 * 16 * sizeof(float)) &&
		          !memcmp(got_g, got_l, sizeof(got_g)),
		      "pruned frame %u: global and local storage differ", f);
		for (unsigned i = 0; i < 840; i++) {
			differ += got_e[i] != got_g[i];
			wrong += got_g[i] != sym[i];
		}
		for (size_t k = 0; k < 840 * 16; k++) {
			const double d = fabs(exp((double)post_e[k]) - exp((double)post_g[k]));

			worst = d > worst ? d : worst;
		}
		CHECK(se == sg && differ == 0 && worst < 1e-6,
		      "pruned frame %u (pi = pd = %g, rho %zu): status %d (exact %d), %u decisions "
		      "differ from the exact decoder's, posteriors by up to %g",
		      f, ch.pi, rho, sg, se, differ, worst);
		/* the burst of 4 deletions may cost its codeword, as for the exact decoder */
		CHECK(f > 2 || (sg == FECD_STATUS_DECODED && wrong <= (f == 2)),
		      "pruned frame %u: status %d, %u symbols wrong", f, sg, wrong);
	}
	dec_close(&ex);
	dec_close(&pg);
	dec_close(&pl);
	ids_code_free(code);
	free(bits);
	free(rxb);
	free(rx);
	free(post_e);
	free(post_g);
	free(post_l);
}

/* A frame no path explains (no insertions, deletions or substitutions, and a received pair
 * that is no codeword): erased, not a guess. */
static void test_no_path(void)
{
	static const char book[] = "2 2 2 1\n0 3\n";
	struct ids_code *code = NULL;
	struct dec d;
	const int8_t good[4] = {127, 127, -127, -127}, bad[4] = {127, -127, -127, 127};
	uint8_t sym[2];
	char err[256];
	int st;

	CHECK(ids_code_parse(book, "book", &code, err, sizeof(err)) == 0, "%s", err);
	if (!code || dec_open(&d, code, 0.0, 0.0, 0.0, 1e-10, IDS_STORAGE_AUTO)) {
		ids_code_free(code);
		return;
	}
	st = ids_map_decode(&d.map, d.scratch, good, 4, NULL, NULL, sym);
	CHECK(st == FECD_STATUS_DECODED && sym[0] == 0 && sym[1] == 1,
	      "00 11: status %d, symbols %u %u", st, sym[0], sym[1]);
	st = ids_map_decode(&d.map, d.scratch, bad, 4, NULL, NULL, sym);
	CHECK(st == FECD_STATUS_ERASED, "01 10 on a channel without errors: status %d", st);
	dec_close(&d);
	ids_code_free(code);
}

int main(void)
{
	test_no_path();
	test_brute_force(2, 4, 3, false, false, 1);
	test_brute_force(2, 4, 3, true, true, 2);
	test_brute_force(3, 2, 2, false, true, 3);
	test_brute_force(3, 2, 2, true, false, 4);
	test_lattice(false);
	test_lattice(true);
	test_frames();
	test_pruned_frames();
	return check_done();
}
