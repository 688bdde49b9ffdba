/*
 * The nbldpc family's reduced-complexity decoder, algo=tms: layered trellis min-sum with one- and
 * two-deviation configurations, in 8-bit unsigned costs. This file is the readable reference;
 * nbldpc_tms_avx512.c computes the same bit for bit (one 64-byte vector per GF(64) message), and
 * the GPU kernel must too, so every step is specified here in integers.
 *
 * Costs are in llr_scale units (int8 LLRs taken exactly), 0 for the likeliest value, unsigned,
 * with saturating arithmetic: a + b is min(MAX, a + b), a - b is max(0, a - b), MAX 32767 for
 * 16-bit and 255 for 8-bit values. The channel cost of value a of a symbol is the sum of the
 * LLRs of a's 1 bits, less the smallest over a, capped at 32767. P[x] (n * q, int16) holds the
 * a-posteriori costs and R[e] (nnz * q, uint8) each edge's last check message, both in the
 * variable's values and with minimum 0; R starts at 0. P is wider than the messages, and the
 * extrinsic P - R signed, so that neither a saturated P nor the normalisation of P undercuts it
 * (with 8-bit P, or P - R floored at 0, decoding collapsed).
 *
 * One iteration takes the checks r = 0..m-1 in order; for check r with edges e = 0..d-1
 * (row order), variables x_e and coefficients h_e:
 *  1. W_e(a) = P[x_e](a) - R[e](a) (signed, exact), W_e(a) -= min_a W_e(a) (saturating at
 *     32767); Q_e(a) = min(W_e(a), 255).
 *  2. a_e = the smallest a with Q_e(a) = 0; z_e = h_e a_e (GF product); beta = XOR of the z_e.
 *  3. Deviations in the check's values: D_e(eta) = Q_e((eta ^ z_e) / h_e), so D_e(0) = 0.
 *  4. For eta = 0..q-1: m1(eta) = min_e D_e(eta), e1(eta) the smallest e attaining it,
 *     m2(eta) = min over e != e1(eta) of D_e(eta), e2(eta) the smallest e != e1(eta) attaining
 *     that (scanning e upwards: v < m1 moves m1, e1 to m2, e2; else v < m2 replaces m2, e2;
 *     m1 = m2 = 255, e1 = 0, e2 = 255 before the scan).
 *  5. S = the dev2 values eta != 0 with the smallest keys (m1(eta), eta), lexicographic, in
 *     increasing key order (all q - 1 of them when dev2 >= q - 1). Only the set matters (step 6
 *     takes minima over it), and members with m1 = 255 change nothing (their sums saturate):
 *     the fast paths build S as a set of those with m1 < 255.
 *  6. Each edge e: its best single deviations v(eta) = m1(eta) and edge d(eta) = e1(eta)
 *     where e1(eta) != e, else m2(eta) and e2(eta). Two deviations: T(eta) = 255 for every
 *     eta; for each eta1 in S, for eta = 1..q-1 with eta != eta1: eta2 = eta ^ eta1; when
 *     d(eta1) != d(eta2), T(eta) = min(T(eta), v(eta1) + v(eta2)).
 *  7. o(eta) = min(v(eta), T(eta)) - offset for eta = 1..q-1; o(0) = 0.
 *  8. The message to x_e, in its values: R[e](a) = o(h_e a ^ beta ^ z_e) (the others' values
 *     sum to h_e a exactly when their deviations sum to h_e a ^ beta ^ z_e).
 *  9. P[x_e](a) = W_e(a) + R[e](a) (16 bits), then P[x_e](a) -= min_a P[x_e](a).
 * After each iteration the hard decision of x is the smallest a with P[x](a) = 0; decoding stops
 * there when it satisfies H and early_stop is set, else after max_iters.
 *
 * Arithmetic per check for q = 64, d = 4 (the budget in NOTES.md): steps 1-4 and 7-9 are a few
 * vector operations per edge on 64 lanes (the GF products and the XOR shifts are permutations of
 * the 64 lanes); step 6 is d dev2 passes of 64 lanes; step 5 is dev2 selections of a minimum.
 * Step 6 is T-EMS's two-deviation column made per edge: taking a deviation of the edge itself
 * out of the pairs (rather than dropping a pair that used it) closed most of the gap to FFT-BP
 * (NOTES.md).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_simd.h"
#include "nbldpc_decoder.h"

/* Per-check work: the deviations (maxd q), m1, m2, e1, e2, T (5 q), the candidate list (q). */
size_t nbldpc__tms_work_bytes(unsigned maxd, unsigned q)
{
	return ((size_t)maxd + 7) * q + 64;
}

static inline uint8_t sat_add(unsigned a, unsigned b)
{
	return (uint8_t)(a + b > 255 ? 255 : a + b);
}

static inline uint8_t sat_sub(unsigned a, unsigned b)
{
	return (uint8_t)(a > b ? a - b : 0);
}

/* v -= min v, saturating at 32767 */
void nbldpc__tms_normalise(int16_t *v, unsigned q)
{
	int16_t mn = v[0];

	for (unsigned a = 1; a < q; a++)
		if (v[a] < mn)
			mn = v[a];
	for (unsigned a = 0; a < q; a++)
		v[a] = (int16_t)(v[a] - mn > 32767 ? 32767 : v[a] - mn);
}

/* Steps 2-8 on one check: qe (deg q, step 1's normalised extrinsic messages in the variables'
 * values) to re (deg q, the new messages in the variables' values). */
void nbldpc__tms_check(const struct nbldpc_gf *gf, unsigned deg, const uint8_t *h,
                       const uint8_t *qe, uint8_t *re, unsigned dev2, unsigned offset,
                       uint8_t *work)
{
	const unsigned q = gf->q;
	uint8_t *dv = work, *m1 = dv + (size_t)deg * q, *m2 = m1 + q, *e1 = m2 + q, *t = e1 + q;
	uint8_t *e2 = t + q, *sel = e2 + q;
	uint8_t z[NBLDPC_DEG_MAX];
	unsigned beta = 0, nsel;

	for (unsigned e = 0; e < deg; e++) {
		const uint8_t *qv = qe + (size_t)e * q;
		unsigned a = 0;

		while (qv[a] != 0)
			a++;
		z[e] = nbldpc_gf_mul(gf, h[e], (uint8_t)a);
		beta ^= z[e];
		for (unsigned eta = 0; eta < q; eta++)
			dv[(size_t)e * q + eta] =
			    qv[nbldpc_gf_div(gf, (uint8_t)(eta ^ z[e]), h[e])];
	}
	for (unsigned eta = 0; eta < q; eta++) {
		m1[eta] = 255;
		m2[eta] = 255;
		e1[eta] = 0;
		e2[eta] = 255;
		for (unsigned e = 0; e < deg; e++) {
			const uint8_t v = dv[(size_t)e * q + eta];

			if (v < m1[eta]) {
				m2[eta] = m1[eta];
				e2[eta] = e1[eta];
				m1[eta] = v;
				e1[eta] = (uint8_t)e;
			} else if (v < m2[eta]) {
				m2[eta] = v;
				e2[eta] = (uint8_t)e;
			}
		}
	}
	/* step 5: selection of the dev2 smallest keys (a quadratic scan is fine: q <= 256) */
	nsel = dev2 < q - 1 ? dev2 : q - 1;
	for (unsigned k = 0; k < nsel; k++) {
		unsigned best = 0;

		for (unsigned eta = 1; eta < q; eta++) {
			bool taken = false;

			for (unsigned j = 0; j < k; j++)
				taken |= sel[j] == eta;
			if (!taken && (best == 0 || m1[eta] < m1[best]))
				best = eta;
		}
		sel[k] = (uint8_t)best;
	}
	/* steps 6-8, for each edge */
	for (unsigned e = 0; e < deg; e++) {
		uint8_t o[NBLDPC_Q_MAX];
		const unsigned shift = beta ^ z[e];

		for (unsigned eta = 0; eta < q; eta++)
			t[eta] = 255;
		for (unsigned k = 0; k < nsel; k++) {
			const unsigned eta1 = sel[k];
			const uint8_t v1 = e1[eta1] != e ? m1[eta1] : m2[eta1];
			const uint8_t d1 = e1[eta1] != e ? e1[eta1] : e2[eta1];

			for (unsigned eta = 1; eta < q; eta++) {
				const unsigned eta2 = eta ^ eta1;
				const uint8_t v2 = e1[eta2] != e ? m1[eta2] : m2[eta2];
				const uint8_t d2 = e1[eta2] != e ? e1[eta2] : e2[eta2];
				uint8_t c;

				if (eta == eta1 || d1 == d2)
					continue;
				c = sat_add(v1, v2);
				if (c < t[eta])
					t[eta] = c;
			}
		}
		o[0] = 0;
		for (unsigned eta = 1; eta < q; eta++) {
			uint8_t v = e1[eta] != e ? m1[eta] : m2[eta];

			if (t[eta] < v)
				v = t[eta];
			o[eta] = sat_sub(v, offset);
		}
		for (unsigned a = 0; a < q; a++)
			re[(size_t)e * q + a] = o[nbldpc_gf_mul(gf, h[e], (uint8_t)a) ^ shift];
	}
}

bool nbldpc__tms_decide(const struct nbldpc_code *c, unsigned q, const int16_t *app, uint8_t *hard)
{
	for (uint32_t x = 0; x < c->n; x++) {
		const int16_t *p = app + (size_t)x * q;
		unsigned a = 0;

		while (p[a] != 0)
			a++;
		hard[x] = (uint8_t)a;
	}
	return nbldpc_codeword_valid(c, hard);
}

unsigned nbldpc__tms_ref(const struct nbldpc_decoder *d, void *scratch, int16_t *app, uint8_t *hard,
                         bool *ok)
{
	const struct nbldpc_code *c = d->code;
	const struct nbldpc_spec *s = &d->base.spec.u.nbldpc;
	const unsigned q = d->q, maxd = c->max_row_deg;
	int16_t *qw = scratch;
	uint8_t *rm = (uint8_t *)(qw + (size_t)maxd * q), *qe = rm + (size_t)c->nnz * q;
	uint8_t *re = qe + (size_t)maxd * q, *work = re + (size_t)maxd * q;
	unsigned it = 0;

	memset(rm, 0, (size_t)c->nnz * q);
	for (uint32_t x = 0; x < c->n; x++)
		nbldpc__tms_normalise(app + (size_t)x * q, q);
	*ok = false;
	while (it < s->max_iters) {
		it++;
		for (uint32_t r = 0; r < c->m; r++) {
			const uint32_t e0 = c->row_start[r], deg = c->row_start[r + 1] - e0;

			for (uint32_t i = 0; i < deg; i++) {
				const int16_t *p = app + (size_t)c->row_col[e0 + i] * q;
				const uint8_t *old = rm + (size_t)(e0 + i) * q;
				int16_t *w = qw + (size_t)i * q;

				for (unsigned a = 0; a < q; a++)
					w[a] = (int16_t)(p[a] - old[a]);
				nbldpc__tms_normalise(w, q);
				for (unsigned a = 0; a < q; a++)
					qe[(size_t)i * q + a] = (uint8_t)(w[a] < 255 ? w[a] : 255);
			}
			nbldpc__tms_check(&c->gf, deg, c->row_val + e0, qe, re, s->dev2, s->offset,
			                  work);
			for (uint32_t i = 0; i < deg; i++) {
				int16_t *p = app + (size_t)c->row_col[e0 + i] * q;
				const int16_t *w = qw + (size_t)i * q;

				memcpy(rm + (size_t)(e0 + i) * q, re + (size_t)i * q, q);
				for (unsigned a = 0; a < q; a++) {
					const int v = w[a] + re[(size_t)i * q + a];

					p[a] = (int16_t)(v < 32767 ? v : 32767);
				}
				nbldpc__tms_normalise(p, q);
			}
		}
		*ok = nbldpc__tms_decide(c, q, app, hard);
		if (*ok && s->early_stop)
			break;
	}
	if (it == 0)
		*ok = nbldpc__tms_decide(c, q, app, hard);
	return it;
}

/* Whether rows r and r + 1 have the same degree and share no variable. */
static bool pairable(const struct nbldpc_code *c, uint32_t r)
{
	const uint32_t a = c->row_start[r], b = c->row_start[r + 1], end = c->row_start[r + 2];

	if (b - a != end - b)
		return false;
	for (uint32_t i = a; i < b; i++)
		for (uint32_t j = b; j < end; j++)
			if (c->row_col[i] == c->row_col[j])
				return false;
	return true;
}

/* The AVX-512 path's groups (nbldpc_decoder.h): consecutive checks two at a time where they
 * share no variable, once per decoder (the path scanned each pair every iteration before). */
static int build_schedule(struct nbldpc_decoder *d)
{
	const struct nbldpc_code *c = d->code;
	uint32_t g = 0;

	d->tms_sched = malloc((size_t)c->m * sizeof(*d->tms_sched));
	if (!d->tms_sched)
		return -FEC_ENOMEM;
	for (uint32_t r = 0; r < c->m; g++) {
		const uint32_t nc = r + 1 < c->m && pairable(c, r) ? 2 : 1;

		d->tms_sched[g] = r << 1 | (nc == 2);
		r += nc;
	}
	d->tms_groups = g;
	return 0;
}

int nbldpc__tms_prepare(struct nbldpc_decoder *d)
{
	const struct nbldpc_gf *gf = &d->code->gf;

	if (d->base.spec.u.nbldpc.algo != NBLDPC_ALGO_TMS)
		return 0;
	d->tms_mul = malloc((size_t)d->q * d->q);
	d->tms_div = malloc((size_t)d->q * d->q);
	if (!d->tms_mul || !d->tms_div)
		goto nomem;
	for (unsigned h = 0; h < d->q; h++)
		for (unsigned a = 0; a < d->q; a++) {
			d->tms_mul[h * d->q + a] = nbldpc_gf_mul(gf, (uint8_t)h, (uint8_t)a);
			d->tms_div[h * d->q + a] =
			    h ? nbldpc_gf_div(gf, (uint8_t)a, (uint8_t)h) : 0;
		}
#if defined(FECD_SIMD_X86)
	d->tms_avx512 = d->q == 64 && fec_simd_level() >= FEC_SIMD_AVX512 &&
	                __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("bmi2");
	d->tms_avx2 =
	    d->q >= 16 && fec_simd_level() >= FEC_SIMD_AVX2 && __builtin_cpu_supports("avx2");
#endif
	if (d->tms_avx512 && build_schedule(d))
		goto nomem;
	return 0;
nomem:
	free(d->tms_mul);
	free(d->tms_div);
	free(d->tms_sched);
	d->tms_mul = d->tms_div = NULL;
	d->tms_sched = NULL;
	return -FEC_ENOMEM;
}

unsigned nbldpc__tms(const struct nbldpc_decoder *d, void *scratch, int16_t *app, uint8_t *hard,
                     bool *ok)
{
#if defined(FECD_SIMD_X86)
	if (d->tms_avx512)
		return nbldpc__tms_avx512(d, scratch, app, hard, ok);
#endif
	if (d->tms_mul)
		return nbldpc__tms_fast(d, scratch, app, hard, ok);
	return nbldpc__tms_ref(d, scratch, app, hard, ok);
}
