/*
 * The MAP decoder of ids_map.h: the corridor-constrained lattice (gamma for one symbol at every
 * start drift), the normalised forward and backward recursions and the posteriors, in the
 * orders and precisions that header states. The inner loops run over the q symbols at once
 * (every symbol's lattice shares the received bits), which the compiler vectorises.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fec_impl.h"
#include "ids_map.h"

/* Scratch layout, each part rounded up to 64 bytes. */
struct map_scratch {
	float *qrx;    /* 2 per received value: Q(y|0), Q(y|1) */
	float *prior;  /* q: this symbol's priors as probabilities */
	float *xf;     /* n * q: the bits of each symbol's codeword, 0 or 1 */
	float *rows;   /* 2 lattice rows of (M_n + 2) * q, a zero guard at each end */
	float *gamma;  /* global: N slices; local: one; a slice is M_tau * M_n * q */
	double *alpha; /* (N + 1) * M_tau */
	double *beta;  /* 2 * M_tau */
	double *lsum;  /* q */
};

static size_t round64(size_t v)
{
	return (v + 63) & ~(size_t)63;
}

static size_t slice_floats(const struct ids_map *m)
{
	return (size_t)m->Mtau * m->Mn * m->code->q;
}

/* Lays the parts out from base (NULL: only measures); returns the bytes needed. */
static size_t scratch_layout(const struct ids_map *m, bool global, char *base,
                             struct map_scratch *s)
{
	const size_t q = m->code->q, N = m->code->N;
	size_t off = 0;
	struct map_scratch tmp;

	if (!s)
		s = &tmp;
#define PART(field, count)                                                                         \
	do {                                                                                       \
		s->field = base ? (void *)(base + off) : NULL;                                     \
		off += round64((count) * sizeof(*s->field));                                       \
	} while (0)
	PART(qrx, 2 * (size_t)m->rho_max);
	PART(prior, q);
	PART(xf, (size_t)m->code->n * q);
	PART(rows, 2 * ((size_t)m->Mn + 2) * q);
	PART(gamma, (global ? N : 1) * slice_floats(m));
	PART(alpha, (N + 1) * m->Mtau);
	PART(beta, 2 * (size_t)m->Mtau);
	PART(lsum, q);
#undef PART
	return off;
}

int ids_map_init(struct ids_map *m, const struct ids_code *code, const struct ids_map_params *par,
                 char *err, size_t errlen)
{
	const double pt = 1.0 - par->ch.pi - par->ch.pd, ps = par->ch.ps;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!(par->llr_scale > 0.0f))
		return fec__err(err, errlen, FEC_ERANGE, "llr_scale: expected a number > 0");
	m->code = code;
	m->par = *par;
	m->tau = code->n * code->N;
	ret = ids_drift_limits(&par->ch, m->tau, par->p_excl, &m->fmin, &m->fmax, err, errlen);
	if (!ret)
		ret = ids_drift_limits(&par->ch, code->n, par->p_excl, &m->cmin, &m->cmax, err,
		                       errlen);
	if (ret)
		return ret;
	/* the seed's conditions: m_n^- >= -n (a codeword loses at most its n bits),
	 * m_tau^- <= m_n^-, m_tau^+ >= m_n^+ */
	if (m->cmin < -(int)code->n)
		m->cmin = -(int)code->n;
	if (m->fmin > m->cmin)
		m->fmin = m->cmin;
	if (m->fmax < m->cmax)
		m->fmax = m->cmax;
	if (m->fmin < -(int)m->tau)
		m->fmin = -(int)m->tau;
	m->Mtau = (uint32_t)(m->fmax - m->fmin + 1);
	m->Mn = (uint32_t)(m->cmax - m->cmin + 1);
	m->rho_max = m->tau + (uint32_t)m->fmax;
	m->hpi = (float)(0.5 * par->ch.pi);
	m->pd = (float)par->ch.pd;
	for (int v = -128; v < 128; v++) {
		double p0;

		if (v >= 127)
			p0 = 1.0;
		else if (v <= -127)
			p0 = 0.0;
		else
			p0 = 1.0 / (1.0 + exp(-(double)v / par->llr_scale));
		m->qtab[v + 128][0] = (float)(pt * ((1.0 - ps) * p0 + ps * (1.0 - p0)));
		m->qtab[v + 128][1] = (float)(pt * ((1.0 - ps) * (1.0 - p0) + ps * p0));
	}
	if (par->storage == IDS_STORAGE_GLOBAL)
		m->global = true;
	else if (par->storage == IDS_STORAGE_LOCAL)
		m->global = false;
	else
		m->global = (double)code->N * slice_floats(m) * sizeof(float) <=
		            (double)IDS_GLOBAL_AUTO_BYTES;
	m->scratch_bytes = scratch_layout(m, m->global, NULL, NULL);
	return 0;
}

/* gamma for symbol i at every start drift m' (eq. 6): g[((m' - fmin) M_n + d - cmin) q + D] =
 * prior[D] R(y[s, s + n + d) | C_i(D)), s = n i + m', from the lattice of eq. 7-10 in the
 * corridor cmin <= j - r <= cmax. A row is indexed by c = j - r, slot c - cmin + 1, with zero
 * guards at slots 0 and M_n + 1 (outside the corridor). */
static void gamma_slice(const struct ids_map *m, const struct map_scratch *s, uint32_t rho,
                        uint32_t i, float *g)
{
	const uint32_t q = m->code->q, n = m->code->n, Mn = m->Mn;
	const int cmin = m->cmin, cmax = m->cmax;
	const size_t W = (size_t)(Mn + 2) * q;
	const uint16_t *cw = m->code->cw + (size_t)i * q;
	const float hpi = m->hpi, pd = m->pd;

	for (uint32_t r = 0; r < n; r++)
		for (uint32_t D = 0; D < q; D++)
			s->xf[r * q + D] = (float)(cw[D] >> (n - 1 - r) & 1u);
	for (int mp = m->fmin; mp <= m->fmax; mp++) {
		float *gm = g + (size_t)(mp - m->fmin) * Mn * q;
		const long start = (long)n * i + mp;
		float *prev = s->rows, *cur = s->rows + W;
		long avail;
		float h = 1.0f;

		if (start < 0 || start > (long)rho) {
			memset(gm, 0, (size_t)Mn * q * sizeof(*gm));
			continue;
		}
		avail = (long)rho - start;
		/* row 0: F(0, j) = (pi/2)^j, insertions before the first bit */
		memset(prev, 0, W * sizeof(*prev));
		for (int c = 0; c <= cmax && c <= avail; c++) {
			float *o = prev + (size_t)(c - cmin + 1) * q;

			for (uint32_t D = 0; D < q; D++)
				o[D] = h;
			h *= hpi;
		}
		for (uint32_t r = 1; r <= n; r++) {
			/* the last row takes no insertion (eq. 10) */
			const float hr = r < n ? hpi : 0.0f;
			const float *x = s->xf + (size_t)(r - 1) * q;
			float *t;

			memset(cur, 0, q * sizeof(*cur));
			memset(cur + (size_t)(Mn + 1) * q, 0, q * sizeof(*cur));
			for (int c = cmin; c <= cmax; c++) {
				const long j = (long)r + c;
				float *o = cur + (size_t)(c - cmin + 1) * q;
				const float *left = o - q;
				const float *up = prev + (size_t)(c - cmin + 2) * q;
				const float *diag = prev + (size_t)(c - cmin + 1) * q;

				if (j < 0 || j > avail) {
					memset(o, 0, q * sizeof(*o));
				} else if (j == 0) {
					for (uint32_t D = 0; D < q; D++)
						o[D] = pd * up[D];
				} else {
					const float *qy = s->qrx + 2 * (size_t)(start + j - 1);
					const float q0 = qy[0], dq = qy[1] - qy[0];

					for (uint32_t D = 0; D < q; D++)
						o[D] = hr * left[D] + pd * up[D] +
						       (q0 + dq * x[D]) * diag[D];
				}
			}
			t = prev;
			prev = cur;
			cur = t;
		}
		for (int d = cmin; d <= cmax; d++) {
			float *o = gm + (size_t)(d - cmin) * q;
			const float *f = prev + (size_t)(d - cmin + 1) * q;

			if (mp + d < m->fmin || mp + d > m->fmax) {
				memset(o, 0, q * sizeof(*o));
				continue;
			}
			for (uint32_t D = 0; D < q; D++)
				o[D] = s->prior[D] * f[D];
		}
	}
}

/* Symbol i's priors as probabilities (uniform without any). */
static void load_prior(const struct ids_map *m, const struct map_scratch *s, const float *prior,
                       uint32_t i)
{
	const uint32_t q = m->code->q;
	const float *lp = prior ? prior + (size_t)i * q : NULL;
	double mx = -INFINITY, sum = 0.0;

	if (!lp) {
		for (uint32_t D = 0; D < q; D++)
			s->prior[D] = 1.0f / (float)q;
		return;
	}
	for (uint32_t D = 0; D < q; D++)
		if (lp[D] > mx)
			mx = lp[D];
	for (uint32_t D = 0; D < q; D++)
		sum += exp((double)lp[D] - mx);
	for (uint32_t D = 0; D < q; D++)
		s->prior[D] = (float)(exp((double)lp[D] - mx) / sum);
}

static void compute_gamma(const struct ids_map *m, const struct map_scratch *s, const float *prior,
                          uint32_t rho, uint32_t i, float *g)
{
	load_prior(m, s, prior, i);
	gamma_slice(m, s, rho, i, g);
}

/* Sum over D of gamma(m', d, .) in double, D in increasing order. */
static double gamma_sum(const float *g, uint32_t q)
{
	double v = 0.0;

	for (uint32_t D = 0; D < q; D++)
		v += g[D];
	return v;
}

/* Divides v by its sum; false when the sum is not positive and finite (no path). */
static bool normalise(double *v, uint32_t len)
{
	double sum = 0.0;

	for (uint32_t k = 0; k < len; k++)
		sum += v[k];
	if (!(sum > 0.0) || !isfinite(sum))
		return false;
	for (uint32_t k = 0; k < len; k++)
		v[k] /= sum;
	return true;
}

/* eq. 11-12: an = normalised sum over m', D of a(m') gamma(m', m, D). */
static bool alpha_step(const struct ids_map *m, const float *g, const double *a, double *an)
{
	const uint32_t q = m->code->q, Mn = m->Mn, Mt = m->Mtau;

	memset(an, 0, Mt * sizeof(*an));
	for (uint32_t mp = 0; mp < Mt; mp++) {
		if (a[mp] == 0.0)
			continue;
		for (uint32_t d = 0; d < Mn; d++) {
			const long to = (long)mp + m->cmin + (long)d;

			if (to < 0 || to >= (long)Mt)
				continue;
			an[to] += a[mp] * gamma_sum(g + ((size_t)mp * Mn + d) * q, q);
		}
	}
	return normalise(an, Mt);
}

/* The backward step (eq. 5, normalised) and the posteriors of symbol i (eq. 1-3): b is
 * beta_(i+1), bn gets beta_i; s->lsum the posteriors. */
static bool beta_step(const struct ids_map *m, const struct map_scratch *s, const float *g,
                      const double *a, const double *b, double *bn)
{
	const uint32_t q = m->code->q, Mn = m->Mn, Mt = m->Mtau;

	memset(s->lsum, 0, q * sizeof(*s->lsum));
	for (uint32_t mp = 0; mp < Mt; mp++) {
		double acc = 0.0;

		for (uint32_t d = 0; d < Mn; d++) {
			const long to = (long)mp + m->cmin + (long)d;
			const float *gd = g + ((size_t)mp * Mn + d) * q;
			double ab;

			if (to < 0 || to >= (long)Mt || b[to] == 0.0)
				continue;
			acc += b[to] * gamma_sum(gd, q);
			ab = a[mp] * b[to];
			if (ab == 0.0)
				continue;
			for (uint32_t D = 0; D < q; D++)
				s->lsum[D] += ab * gd[D];
		}
		bn[mp] = acc;
	}
	return normalise(bn, Mt) && normalise(s->lsum, q);
}

static void write_erased(const struct ids_map *m, float *post, uint8_t *sym)
{
	const size_t total = (size_t)m->code->N * m->code->q;

	if (post)
		for (size_t k = 0; k < total; k++)
			post[k] = -logf((float)m->code->q);
	memset(sym, 0, m->code->N);
}

static void load_received(const struct ids_map *m, const struct map_scratch *s, const int8_t *rx,
                          uint32_t rho)
{
	for (uint32_t j = 0; j < rho; j++) {
		const float *qt = m->qtab[(int)rx[j] + 128];

		s->qrx[2 * j] = qt[0];
		s->qrx[2 * j + 1] = qt[1];
	}
}

void ids_map_gamma(const struct ids_map *m, void *scratch, const int8_t *rx, uint32_t rho,
                   uint32_t i, const float *prior, float *g)
{
	struct map_scratch s;

	scratch_layout(m, m->global, scratch, &s);
	load_received(m, &s, rx, rho);
	compute_gamma(m, &s, prior, rho, i, g);
}

int ids_map_decode(const struct ids_map *m, void *scratch, const int8_t *rx, uint32_t rho,
                   const float *prior, float *post, uint8_t *sym)
{
	const uint32_t N = m->code->N, q = m->code->q, Mt = m->Mtau;
	const long last = (long)rho - (long)m->tau;
	struct map_scratch s;
	double *b, *bn;

	scratch_layout(m, m->global, scratch, &s);
	if (rho > m->rho_max || last < m->fmin || last > m->fmax) {
		write_erased(m, post, sym);
		return FECD_STATUS_ERASED;
	}
	load_received(m, &s, rx, rho);
	/* forward: alpha_0 is the frame's start, drift 0 */
	memset(s.alpha, 0, Mt * sizeof(*s.alpha));
	s.alpha[-m->fmin] = 1.0;
	for (uint32_t i = 0; i < N; i++) {
		float *g = m->global ? s.gamma + (size_t)i * slice_floats(m) : s.gamma;

		compute_gamma(m, &s, prior, rho, i, g);
		if (!alpha_step(m, g, s.alpha + (size_t)i * Mt, s.alpha + (size_t)(i + 1) * Mt)) {
			write_erased(m, post, sym);
			return FECD_STATUS_ERASED;
		}
	}
	/* backward, with the posteriors: beta_N is the frame's end, drift rho - tau */
	b = s.beta;
	bn = s.beta + Mt;
	memset(b, 0, Mt * sizeof(*b));
	b[last - m->fmin] = 1.0;
	for (uint32_t i = N; i-- > 0;) {
		float *g = m->global ? s.gamma + (size_t)i * slice_floats(m) : s.gamma;
		double *t, best = -1.0;

		if (!m->global)
			compute_gamma(m, &s, prior, rho, i, g);
		if (!beta_step(m, &s, g, s.alpha + (size_t)i * Mt, b, bn)) {
			write_erased(m, post, sym);
			return FECD_STATUS_ERASED;
		}
		sym[i] = 0;
		for (uint32_t D = 0; D < q; D++) {
			const double p = s.lsum[D];

			if (p > best) {
				best = p;
				sym[i] = (uint8_t)D;
			}
			if (post) {
				const float lp = p > 0.0 ? (float)log(p) : IDS_LOGP_FLOOR;

				post[(size_t)i * q + D] = lp > IDS_LOGP_FLOOR ? lp : IDS_LOGP_FLOOR;
			}
		}
		t = b;
		b = bn;
		bn = t;
	}
	return FECD_STATUS_DECODED;
}

/* Counted as the loops above run for rho = tau: per lattice cell 6 (three products, the Q
 * interpolation's multiply-add, two adds), per gamma value 1 (the prior) plus 1 in each of the
 * three sums over D (alpha, beta) and 2 in the posterior's; plus 2 per (m', d) for alpha's and
 * beta's products. Local storage computes the lattice twice. */
double ids_map_flops(const struct ids_map *m)
{
	const uint32_t n = m->code->n, q = m->code->q, N = m->code->N;
	double cells = 0.0, per_gamma, total;

	for (uint32_t r = 1; r <= n; r++)
		for (int c = m->cmin; c <= m->cmax; c++)
			if ((long)r + c >= 0)
				cells += 1.0;
	per_gamma = 1.0 + 1.0 + 1.0 + 2.0;
	total = (double)N * m->Mtau *
	        (q * cells * 6.0 * (m->global ? 1.0 : 2.0) + (double)m->Mn * (q * per_gamma + 4.0));
	return total;
}
