/*
 * The nbldpc decoders on one frame:
 *   - FFT belief propagation (the seed's section 3.2), flooding, float32: a check node permutes
 *     each incoming message by its coefficient, takes its Walsh-Hadamard transform (the Fourier
 *     transform of GF(2^p)'s additive group, where the sum of symbols becomes a product), forms
 *     each edge's product of the others' transforms and transforms back. In the probability
 *     domain messages are normalised probability vectors; in the log domain they are
 *     log-probabilities and the transform runs on signed logarithms (magnitude and sign, as the
 *     seed's log-FFT: the transform of a probability vector has negative entries).
 *   - Min-max, layered, in fixed point: messages are integer costs (0 the likeliest symbol,
 *     larger less likely); a check node gives each edge, for each value, the smallest over the
 *     other symbols' configurations meeting the check of the largest of their costs, by forward
 *     and backward min-max convolutions over GF(q), O(d q^2) per check.
 * Both stop at the first iteration whose hard decision satisfies every check (when asked) or
 * after max_iters.
 */
#include <math.h>
#include <string.h>

#include "nbldpc_decoder.h"

#define LOG_FLOOR (-80.0f) /* log-probabilities below are taken as this (e^-80: nothing) */

#define PROB_FLOOR (1e-30f) /* the same for probabilities */

size_t nbldpc__scratch_bytes(const struct nbldpc_decoder *d)
{
	const struct nbldpc_code *c = d->code;
	const size_t q = d->q, deg = c->max_row_deg;
	const size_t fft =
	    (2 * (size_t)c->nnz * q + (size_t)c->n * q + (4 * deg + 4) * q) * sizeof(float);
	const size_t mm =
	    (size_t)c->nnz * q * sizeof(int16_t) + ((3 * deg + 3) * q) * sizeof(int32_t);

	/* tms: R (nnz q bytes), then the reference's (one check's extrinsic messages in 16 and 8
	 * bits, new ones, its work area), the AVX-512 path's (its stage, 64-byte aligned) or the
	 * portable fast path's work area, whichever is largest */
	const size_t ref = 4 * deg * q + nbldpc__tms_work_bytes(deg, q);
	const size_t avx = 64 + nbldpc__tms_stage_bytes(deg, q),
	             fast = nbldpc__tms_fast_work_bytes(deg, q);
	const size_t tms = (((size_t)c->nnz * q + 63) & ~(size_t)63) +
	                   (ref > avx ? (ref > fast ? ref : fast) : (avx > fast ? avx : fast));
	const size_t big = fft > mm ? fft : mm;

	return (big > tms ? big : tms) + 64;
}

/* ---- Walsh-Hadamard transforms (unnormalised: applying one twice multiplies by q). */

static void wht(float *v, unsigned q)
{
	for (unsigned h = 1; h < q; h <<= 1)
		for (unsigned i = 0; i < q; i += 2 * h)
			for (unsigned j = i; j < i + h; j++) {
				const float a = v[j], b = v[j + h];

				v[j] = a + b;
				v[j + h] = a - b;
			}
}

/* a + b for signed logarithms (magnitude m, sign s = +1 or -1). */
static inline void slog_add(float ma, float sa, float mb, float sb, float *m, float *s)
{
	const bool a_big = ma >= mb;
	const float hi = a_big ? ma : mb, d = a_big ? mb - ma : ma - mb;

	if (sa == sb) {
		*m = hi + log1pf(expf(d));
		*s = sa;
	} else {
		const float t = -expm1f(d); /* 1 - e^d */

		*m = t > 0.0f ? hi + logf(t) : LOG_FLOOR;
		*s = a_big ? sa : sb;
	}
	if (*m < LOG_FLOOR)
		*m = LOG_FLOOR;
}

static void wht_slog(float *m, float *s, unsigned q)
{
	for (unsigned h = 1; h < q; h <<= 1)
		for (unsigned i = 0; i < q; i += 2 * h)
			for (unsigned j = i; j < i + h; j++) {
				const float ma = m[j], sa = s[j], mb = m[j + h], sb = s[j + h];

				slog_add(ma, sa, mb, sb, &m[j], &s[j]);
				slog_add(ma, sa, mb, -sb, &m[j + h], &s[j + h]);
			}
}

static void normalise_prob(float *v, unsigned q)
{
	float sum = 0.0f;

	for (unsigned a = 0; a < q; a++) {
		if (!(v[a] > PROB_FLOOR))
			v[a] = PROB_FLOOR;
		sum += v[a];
	}
	for (unsigned a = 0; a < q; a++)
		v[a] /= sum;
}

static void normalise_log(float *v, unsigned q)
{
	float mx = v[0];

	for (unsigned a = 1; a < q; a++)
		if (v[a] > mx)
			mx = v[a];
	for (unsigned a = 0; a < q; a++) {
		v[a] -= mx;
		if (!(v[a] > LOG_FLOOR))
			v[a] = LOG_FLOOR;
	}
}

/* work: (4 deg + 4) q floats */
void nbldpc__fft_check(const struct nbldpc_gf *gf, unsigned deg, const uint8_t *h, const float *in,
                       float *out, bool log, float *work)
{
	const unsigned q = gf->q;
	float *fm = work, *fs = work + (size_t)deg * q, *tm = fs + (size_t)deg * q, *ts = tm + q;
	float *acc_m = ts + q, *acc_s = acc_m + q;

	/* permute (the check sees h_i x_i) and transform */
	for (unsigned i = 0; i < deg; i++) {
		float *m = fm + (size_t)i * q, *s = fs + (size_t)i * q;

		for (unsigned a = 0; a < q; a++) {
			m[nbldpc_gf_mul(gf, h[i], (uint8_t)a)] = in[(size_t)i * q + a];
			s[a] = 1.0f;
		}
		if (log)
			wht_slog(m, s, q);
		else
			wht(m, q);
	}
	if (log) {
		/* the product of all, then each edge's by taking its own out */
		for (unsigned a = 0; a < q; a++) {
			acc_m[a] = 0.0f;
			acc_s[a] = 1.0f;
		}
		for (unsigned i = 0; i < deg; i++)
			for (unsigned a = 0; a < q; a++) {
				acc_m[a] += fm[(size_t)i * q + a];
				acc_s[a] *= fs[(size_t)i * q + a];
			}
		for (unsigned i = 0; i < deg; i++) {
			float *o = out + (size_t)i * q;

			for (unsigned a = 0; a < q; a++) {
				tm[a] = acc_m[a] - fm[(size_t)i * q + a];
				ts[a] = acc_s[a] * fs[(size_t)i * q + a];
			}
			wht_slog(tm, ts, q);
			/* back to the variable's own values: x_i = y / h_i, so out(x) = T(h_i x);
			 * a negative result is rounding around zero */
			for (unsigned x = 0; x < q; x++) {
				const uint8_t y = nbldpc_gf_mul(gf, h[i], (uint8_t)x);

				o[x] = ts[y] > 0.0f ? tm[y] : LOG_FLOOR;
			}
			normalise_log(o, q);
		}
		return;
	}
	/* probability domain: products of the others from both sides */
	for (unsigned a = 0; a < q; a++)
		acc_m[a] = 1.0f;
	for (unsigned i = 0; i < deg; i++)
		for (unsigned a = 0; a < q; a++) {
			out[(size_t)i * q + a] = acc_m[a];
			acc_m[a] *= fm[(size_t)i * q + a];
		}
	for (unsigned a = 0; a < q; a++)
		acc_m[a] = 1.0f;
	for (unsigned i = deg; i-- > 0;) {
		float *o = out + (size_t)i * q;

		for (unsigned a = 0; a < q; a++) {
			tm[a] = o[a] * acc_m[a];
			acc_m[a] *= fm[(size_t)i * q + a];
		}
		wht(tm, q);
		for (unsigned x = 0; x < q; x++)
			o[x] = tm[nbldpc_gf_mul(gf, h[i], (uint8_t)x)];
		normalise_prob(o, q);
	}
}

static bool syndrome_ok(const struct nbldpc_code *c, const uint8_t *hard)
{
	return nbldpc_codeword_valid(c, hard);
}

unsigned nbldpc__fftbp(const struct nbldpc_decoder *d, void *scratch, const float *prior,
                       float *app, uint8_t *hard, bool *ok)
{
	const struct nbldpc_code *c = d->code;
	const struct nbldpc_spec *s = &d->base.spec.u.nbldpc;
	const unsigned q = d->q;
	const bool log = s->domain == NBLDPC_DOMAIN_LOG;
	float *v = scratch, *ch = v + (size_t)c->nnz * q, *pr = ch + (size_t)c->nnz * q;
	float *work = pr + (size_t)c->n * q;
	unsigned it = 0;

	/* the priors in the decoder's domain, and the first variable-to-check messages */
	for (uint32_t x = 0; x < c->n; x++) {
		float *p = pr + (size_t)x * q;

		memcpy(p, prior + (size_t)x * q, q * sizeof(float));
		normalise_log(p, q);
		if (!log) {
			for (unsigned a = 0; a < q; a++)
				p[a] = expf(p[a]);
			normalise_prob(p, q);
		}
		for (uint32_t j = c->col_start[x]; j < c->col_start[x + 1]; j++)
			memcpy(v + (size_t)c->col_edge[j] * q, p, q * sizeof(float));
	}
	*ok = false;
	while (it < s->max_iters) {
		it++;
		for (uint32_t r = 0; r < c->m; r++) {
			const uint32_t e0 = c->row_start[r];

			nbldpc__fft_check(&c->gf, c->row_start[r + 1] - e0, c->row_val + e0,
			                  v + (size_t)e0 * q, ch + (size_t)e0 * q, log, work);
		}
		/* variable nodes: each edge gets the prior and the other checks' messages; the
		 * a-posteriori value takes them all */
		for (uint32_t x = 0; x < c->n; x++) {
			const uint32_t j0 = c->col_start[x], j1 = c->col_start[x + 1];
			const float *p = pr + (size_t)x * q;
			float *ap = app + (size_t)x * q;

			for (uint32_t j = j0; j <= j1; j++) {
				float *o = j < j1 ? v + (size_t)c->col_edge[j] * q : ap;

				memcpy(o, p, q * sizeof(float));
				for (uint32_t i = j0; i < j1; i++) {
					const float *m = ch + (size_t)c->col_edge[i] * q;

					if (i == j)
						continue;
					for (unsigned a = 0; a < q; a++) {
						if (log)
							o[a] += m[a];
						else
							o[a] *= m[a];
					}
				}
				if (log)
					normalise_log(o, q);
				else
					normalise_prob(o, q);
			}
			{
				unsigned best = 0;

				for (unsigned a = 1; a < q; a++)
					if (ap[a] > ap[best])
						best = a;
				hard[x] = (uint8_t)best;
			}
		}
		*ok = syndrome_ok(c, hard);
		if (*ok && s->early_stop)
			break;
	}
	if (it == 0) { /* no iteration: decide on the priors */
		for (uint32_t x = 0; x < c->n; x++) {
			unsigned best = 0;

			memcpy(app + (size_t)x * q, pr + (size_t)x * q, q * sizeof(float));
			for (unsigned a = 1; a < q; a++)
				if (app[(size_t)x * q + a] > app[(size_t)x * q + best])
					best = a;
			hard[x] = (uint8_t)best;
		}
		*ok = syndrome_ok(c, hard);
	}
	/* app as normalised log-probabilities */
	for (uint32_t x = 0; x < c->n; x++) {
		float *ap = app + (size_t)x * q;
		float sum = 0.0f;

		if (!log)
			for (unsigned a = 0; a < q; a++)
				ap[a] = logf(ap[a]);
		normalise_log(ap, q);
		for (unsigned a = 0; a < q; a++)
			sum += expf(ap[a]);
		sum = logf(sum);
		for (unsigned a = 0; a < q; a++)
			ap[a] -= sum;
	}
	return it;
}

/* ---- Min-max. */

/* The nm smallest entries of x (indices into idx) and the smallest of the rest (*rest). */
static void smallest(const int32_t *x, unsigned q, unsigned nm, uint8_t *idx, int32_t *rest)
{
	int32_t val[NBLDPC_Q_MAX + 1];
	unsigned have = 0;

	/* insertion into a sorted list of nm + 1: most entries fail the first comparison */
	for (unsigned a = 0; a < q; a++) {
		unsigned i;

		if (have == nm + 1 && x[a] >= val[nm])
			continue;
		i = have < nm + 1 ? have++ : nm;
		while (i > 0 && val[i - 1] > x[a]) {
			val[i] = val[i - 1];
			idx[i] = idx[i - 1];
			i--;
		}
		val[i] = x[a];
		idx[i] = (uint8_t)a;
	}
	*rest = val[nm];
}

/* out[c] = min over a ^ b = c of max(x[a], y[b]). With 0 < nm < q, over the nm smallest entries
 * of each only (the truncated min-max): a value no such pair reaches gets the smaller of the two
 * lists' first left-out costs (the least a pair with an entry left out can cost) plus off, the
 * truncation's offset (pairs that reach it keep the smaller of theirs and that). off: 1.5 LLR
 * units, measured best of 0.5, 1, 1.5 and 3 on the GF(64) (200,100) code at 1.5 dB (NOTES.md). */
static void minmax_conv(const int32_t *x, const int32_t *y, int32_t *out, unsigned q, unsigned nm,
                        int32_t off)
{
	if (nm && nm < q) {
		uint8_t ix[NBLDPC_Q_MAX + 1], iy[NBLDPC_Q_MAX + 1];
		int32_t rx, ry, floor_;

		smallest(x, q, nm, ix, &rx);
		smallest(y, q, nm, iy, &ry);
		floor_ = (rx < ry ? rx : ry) + off;
		for (unsigned cc = 0; cc < q; cc++)
			out[cc] = floor_;
		for (unsigned i = 0; i < nm; i++) {
			const int32_t xa = x[ix[i]];

			for (unsigned j = 0; j < nm; j++) {
				const int32_t yb = y[iy[j]], m = xa > yb ? xa : yb;
				const unsigned cc = ix[i] ^ iy[j];

				if (m < out[cc])
					out[cc] = m;
			}
		}
		return;
	}
	for (unsigned cc = 0; cc < q; cc++)
		out[cc] = INT32_MAX;
	for (unsigned a = 0; a < q; a++) {
		const int32_t xa = x[a];

		for (unsigned b = 0; b < q; b++) {
			const int32_t m = xa > y[b] ? xa : y[b];

			if (m < out[a ^ b])
				out[a ^ b] = m;
		}
	}
}

static void normalise_cost(int32_t *v, unsigned q)
{
	int32_t mn = v[0];

	for (unsigned a = 1; a < q; a++)
		if (v[a] < mn)
			mn = v[a];
	for (unsigned a = 0; a < q; a++) {
		v[a] -= mn;
		if (v[a] > NBLDPC_COST_MAX)
			v[a] = NBLDPC_COST_MAX;
	}
}

unsigned nbldpc__minmax(const struct nbldpc_decoder *d, void *scratch, int32_t *cost, uint8_t *hard,
                        bool *ok)
{
	const struct nbldpc_code *c = d->code;
	const struct nbldpc_spec *s = &d->base.spec.u.nbldpc;
	const struct nbldpc_gf *gf = &c->gf;
	const unsigned q = d->q, maxd = c->max_row_deg, nm = s->nm;
	const int32_t off = (int32_t)lrintf(1.5f * d->base.spec.frame.llr_scale);
	int16_t *rm = scratch;
	int32_t *qm = (int32_t *)(rm + (size_t)c->nnz * q + ((size_t)c->nnz * q & 1));
	int32_t *fw = qm + (size_t)maxd * q, *bw = fw + (size_t)(maxd + 1) * q;
	unsigned it = 0;

	memset(rm, 0, (size_t)c->nnz * q * sizeof(int16_t));
	for (uint32_t x = 0; x < c->n; x++)
		normalise_cost(cost + (size_t)x * q, q);
	*ok = false;
	while (it < s->max_iters) {
		it++;
		for (uint32_t r = 0; r < c->m; r++) {
			const uint32_t e0 = c->row_start[r], deg = c->row_start[r + 1] - e0;

			/* variable-to-check: the a-posteriori cost less this check's last message,
			 * in the check's values (h x) */
			for (uint32_t i = 0; i < deg; i++) {
				const uint32_t e = e0 + i, x = c->row_col[e];
				const uint8_t hv = c->row_val[e];
				int32_t *t = bw; /* scratch row before bw is used */

				for (unsigned a = 0; a < q; a++)
					t[a] = cost[(size_t)x * q + a] - rm[(size_t)e * q + a];
				normalise_cost(t, q);
				for (unsigned a = 0; a < q; a++)
					qm[(size_t)i * q + nbldpc_gf_mul(gf, hv, (uint8_t)a)] =
					    t[a];
			}
			/* forward: fw[i] combines edges 0..i-1; backward: bw[i] edges i..deg-1 */
			for (unsigned a = 0; a < q; a++)
				fw[a] = a ? NBLDPC_COST_MAX : 0;
			for (uint32_t i = 0; i < deg; i++)
				minmax_conv(fw + (size_t)i * q, qm + (size_t)i * q,
				            fw + (size_t)(i + 1) * q, q, nm, off);
			for (unsigned a = 0; a < q; a++)
				bw[(size_t)deg * q + a] = a ? NBLDPC_COST_MAX : 0;
			for (uint32_t i = deg; i-- > 1;)
				minmax_conv(bw + (size_t)(i + 1) * q, qm + (size_t)i * q,
				            bw + (size_t)i * q, q, nm, off);
			for (uint32_t i = 0; i < deg; i++) {
				const uint32_t e = e0 + i, x = c->row_col[e];
				const uint8_t hv = c->row_val[e];
				int32_t *t =
				    bw; /* bw[0] is free: edges 0..deg-1 are never needed */
				int32_t *o = cost + (size_t)x * q;

				minmax_conv(fw + (size_t)i * q, bw + (size_t)(i + 1) * q, t, q, nm,
				            off);
				for (unsigned a = 0; a < q; a++) {
					const int32_t old = rm[(size_t)e * q + a];
					const int32_t nv = t[nbldpc_gf_mul(gf, hv, (uint8_t)a)];

					o[a] = o[a] - old + nv;
				}
				{
					int32_t mn = INT32_MAX;

					for (unsigned a = 0; a < q; a++)
						if (t[a] < mn)
							mn = t[a];
					for (unsigned a = 0; a < q; a++)
						rm[(size_t)e * q + a] =
						    (int16_t)(t[nbldpc_gf_mul(gf, hv, (uint8_t)a)] -
						              mn);
					for (unsigned a = 0; a < q; a++)
						o[a] -= mn;
				}
				normalise_cost(o, q);
			}
		}
		for (uint32_t x = 0; x < c->n; x++) {
			const int32_t *o = cost + (size_t)x * q;
			unsigned best = 0;

			for (unsigned a = 1; a < q; a++)
				if (o[a] < o[best])
					best = a;
			hard[x] = (uint8_t)best;
		}
		*ok = syndrome_ok(c, hard);
		if (*ok && s->early_stop)
			break;
	}
	if (it == 0) {
		for (uint32_t x = 0; x < c->n; x++) {
			const int32_t *o = cost + (size_t)x * q;
			unsigned best = 0;

			for (unsigned a = 1; a < q; a++)
				if (o[a] < o[best])
					best = a;
			hard[x] = (uint8_t)best;
		}
		*ok = syndrome_ok(c, hard);
	}
	return it;
}
