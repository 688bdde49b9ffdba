/*
 * The MAP decoder of ids_map.h: the corridor-constrained lattice (gamma for one symbol at every
 * start drift), the normalised forward and backward recursions and the posteriors, in the
 * orders and precisions that header states. The inner loops run over the q symbols at once
 * (every symbol's lattice shares the received bits), which the compiler vectorises.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_simd.h"
#include "fec_impl.h"
#include "ids_lattice.h"
#include "ids_map.h"

/* Scratch layout, each part rounded up to 64 bytes. */
struct map_scratch {
	float *qrx;    /* 2 per received value: Q(y|0), Q(y|1) */
	float *prior;  /* qpad: this symbol's priors as probabilities, 0 past q */
	float *xf;     /* n * qpad: the bits of each symbol's codeword, 0 or 1 (0 past q) */
	float *gamma;  /* global: N slices; local: one; a slice is M_tau * M_n * q */
	double *gsum;  /* the same slices' sums over D, M_tau * M_n each */
	float *qv;     /* the lattice's table of Q values */
	float *rows;   /* the lattice's rows */
	double *alpha; /* (N + 1) * M_tau */
	double *beta;  /* 2 * M_tau */
	double *lsum;  /* q */
};

static uint32_t qpad_of(uint32_t q);

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
	/* the lattice's vectors want 32-byte alignment, whatever the caller's scratch has */
	if (base)
		base = (char *)(((uintptr_t)base + 63) & ~(uintptr_t)63);
	off = 63;
#define PART(field, count)                                                                         \
	do {                                                                                       \
		s->field = base ? (void *)(base + off - 63) : NULL;                                \
		off += round64((count) * sizeof(*s->field));                                       \
	} while (0)
	PART(qrx, 2 * (size_t)m->rho_max);
	PART(prior, qpad_of(q));
	PART(xf, (size_t)m->code->n * qpad_of(q));
	PART(qv, ids_lattice_qv_floats(m->code->n, m->Mtau, m->Mn));
	PART(rows, ids_lattice_rows_floats(m->Mn));
	PART(gamma, (global ? N : 1) * slice_floats(m));
	PART(gsum, (global ? N : 1) * (size_t)m->Mtau * m->Mn);
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
	if (m->Mn > IDS_MN_MAX)
		return fec__err(err, errlen, FEC_ERANGE,
		                "drift limits: one codeword's drift spans %u values at p_excl %g, "
		                "at most %u: a larger p_excl or a better channel",
		                m->Mn, par->p_excl, IDS_MN_MAX);
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

static uint32_t qpad_of(uint32_t q)
{
	const uint32_t lanes = ids_lattice_lanes(q);

	return (q + lanes - 1) / lanes * lanes;
}

/* gamma for symbol i at every start drift m' (eq. 6), by the lattice of ids_lattice.h at the
 * CPU's level. */
static void gamma_slice(const struct ids_map *m, const struct map_scratch *s, uint32_t rho,
                        uint32_t i, const double *act, float *g)
{
	const uint32_t q = m->code->q, n = m->code->n, qpad = qpad_of(q);
	const uint16_t *cw = m->code->cw + (size_t)i * q;
	const struct ids_lattice_in in = {
	    .q = q,
	    .qpad = qpad,
	    .n = n,
	    .Mn = m->Mn,
	    .cmin = m->cmin,
	    .cmax = m->cmax,
	    .fmin = m->fmin,
	    .fmax = m->fmax,
	    .base = (long)n * i,
	    .rho = rho,
	    .hpi = m->hpi,
	    .pd = m->pd,
	    .qrx = s->qrx,
	    .xf = s->xf,
	    .prior = s->prior,
	    .act = act,
	    .qv = s->qv,
	    .rows = s->rows,
	};

	for (uint32_t r = 0; r < n; r++)
		for (uint32_t D = 0; D < qpad; D++)
			s->xf[r * qpad + D] = D < q ? (float)(cw[D] >> (n - 1 - r) & 1u) : 0.0f;
#ifdef FECD_SIMD_X86
	if (fec_simd_level() >= FEC_SIMD_AVX2) {
		(qpad % 16 ? ids__lattice8_avx2 : ids__lattice16_avx2)(&in, g);
		return;
	}
#endif
	(qpad % 16 ? ids__lattice8_portable : ids__lattice16_portable)(&in, g);
}

/* Symbol i's priors as probabilities (uniform without any). */
static void load_prior(const struct ids_map *m, const struct map_scratch *s, const float *prior,
                       uint32_t i)
{
	const uint32_t q = m->code->q;
	const float *lp = prior ? prior + (size_t)i * q : NULL;
	double mx = -INFINITY, sum = 0.0;

	for (uint32_t D = q; D < qpad_of(q); D++)
		s->prior[D] = 0.0f;
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

/* act: alpha_i, whose zeros say which start drifts need no gamma (NULL: every one). */
static void compute_gamma(const struct ids_map *m, const struct map_scratch *s, const float *prior,
                          uint32_t rho, uint32_t i, const double *act, float *g)
{
	load_prior(m, s, prior, i);
	gamma_slice(m, s, rho, i, act, g);
}

static void compute_gsum(const struct ids_map *m, const float *g, const double *act, double *gs);

/* Symbol i's gamma and its sums over D: computed (local storage, or the forward pass), or
 * where the forward pass left them (global storage's backward pass). */
static void slice_of(const struct ids_map *m, const struct map_scratch *s, const float *prior,
                     uint32_t rho, uint32_t i, bool compute, float **g, double **gs)
{
	const double *act = s->alpha + (size_t)i * m->Mtau;

	const size_t k = m->global ? i : 0;

	*g = s->gamma + k * slice_floats(m);
	*gs = s->gsum + k * (size_t)m->Mtau * m->Mn;
	if (compute) {
		compute_gamma(m, s, prior, rho, i, act, *g);
		compute_gsum(m, *g, act, *gs);
	}
}

/* Sum over D of gamma(m', d, .) in double: four partial sums over D = 0, 1, 2, 3 mod 4, each in
 * increasing D, then (s0 + s1) + (s2 + s3). The order is fixed (a GPU decoder reproduces it) and
 * lets the compiler vectorise. */
typedef double ids_v4d __attribute__((vector_size(4 * sizeof(double))));
typedef float ids_v4f __attribute__((vector_size(4 * sizeof(float))));

static double gamma_sum(const float *g, uint32_t q)
{
	ids_v4d s4 = {0.0, 0.0, 0.0, 0.0};
	uint32_t D = 0;

	for (; D + 4 <= q; D += 4) {
		ids_v4f v;

		__builtin_memcpy(&v, g + D, sizeof(v));
		s4 += __builtin_convertvector(v, ids_v4d);
	}
	for (uint32_t k = 0; D + k < q; k++)
		s4[k] += g[D + k];
	return (s4[0] + s4[1]) + (s4[2] + s4[3]);
}

/* The sums of the active start drifts' gammas (the others are not read). */
static void compute_gsum(const struct ids_map *m, const float *g, const double *act, double *gs)
{
	for (uint32_t mp = 0; mp < m->Mtau; mp++) {
		if (act[mp] == 0.0)
			continue;
		for (size_t k = (size_t)mp * m->Mn; k < (size_t)(mp + 1) * m->Mn; k++)
			gs[k] = gamma_sum(g + k * m->code->q, m->code->q);
	}
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

/* eq. 11-12: an = normalised sum over m', D of a(m') gamma(m', m, D), then pruned: values below
 * m->par.prune set to 0 (kept ones not normalised again). */
static bool alpha_step(const struct ids_map *m, const double *gs, const double *a, double *an)
{
	const uint32_t Mn = m->Mn, Mt = m->Mtau;

	memset(an, 0, Mt * sizeof(*an));
	for (uint32_t mp = 0; mp < Mt; mp++) {
		if (a[mp] == 0.0)
			continue;
		for (uint32_t d = 0; d < Mn; d++) {
			const long to = (long)mp + m->cmin + (long)d;

			if (to < 0 || to >= (long)Mt)
				continue;
			an[to] += a[mp] * gs[(size_t)mp * Mn + d];
		}
	}
	if (!normalise(an, Mt))
		return false;
	for (uint32_t mp = 0; mp < Mt; mp++)
		if (an[mp] < m->par.prune)
			an[mp] = 0.0;
	return true;
}

/* The backward step (eq. 5, normalised) and the posteriors of symbol i (eq. 1-3): b is
 * beta_(i+1), bn gets beta_i (0 where alpha_i is 0: no path the forward pass kept goes through
 * there); s->lsum the posteriors. */
static bool beta_step(const struct ids_map *m, const struct map_scratch *s, const float *g,
                      const double *gs, const double *a, const double *b, double *bn)
{
	const uint32_t q = m->code->q, Mn = m->Mn, Mt = m->Mtau;

	memset(s->lsum, 0, q * sizeof(*s->lsum));
	for (uint32_t mp = 0; mp < Mt; mp++) {
		double acc = 0.0;

		if (a[mp] == 0.0) {
			bn[mp] = 0.0;
			continue;
		}
		for (uint32_t d = 0; d < Mn; d++) {
			const long to = (long)mp + m->cmin + (long)d;
			const float *gd = g + ((size_t)mp * Mn + d) * q;
			double ab;

			if (to < 0 || to >= (long)Mt || b[to] == 0.0)
				continue;
			acc += b[to] * gs[(size_t)mp * Mn + d];
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
	compute_gamma(m, &s, prior, rho, i, NULL, g);
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
		float *g;
		double *gs;

		slice_of(m, &s, prior, rho, i, true, &g, &gs);
		if (!alpha_step(m, gs, s.alpha + (size_t)i * Mt, s.alpha + (size_t)(i + 1) * Mt)) {
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
		float *g;
		double *gs, *t, best = -1.0;

		slice_of(m, &s, prior, rho, i, !m->global, &g, &gs);
		if (!beta_step(m, &s, g, gs, s.alpha + (size_t)i * Mt, b, bn)) {
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

uint64_t ids_map_states_kept(const struct ids_map *m, void *scratch)
{
	struct map_scratch s;
	uint64_t kept = 0;

	scratch_layout(m, m->global, scratch, &s);
	for (size_t k = 0; k < (size_t)m->code->N * m->Mtau; k++)
		kept += s.alpha[k] != 0.0;
	return kept;
}

/* Counted as the loops run for rho = tau, per symbol: the Q table (2 per row, received value
 * read and symbol), 5 per lattice cell and symbol (three products, two sums), 1 per gamma (the
 * prior), q for each (m', d)'s sum over D, 2 for alpha's and beta's products each, 2 per gamma
 * for the posteriors. Local storage makes the table, the lattice, gamma and its sums twice. */
double ids_map_flops(const struct ids_map *m)
{
	const uint32_t n = m->code->n, q = m->code->q, N = m->code->N;
	const double width = (double)m->Mtau + n + m->Mn - 2.0;
	double cells = 0.0, make, use;

	for (uint32_t r = 1; r <= n; r++)
		for (int c = m->cmin; c <= m->cmax; c++)
			if ((long)r + c >= 0)
				cells += 1.0;
	make = 2.0 * n * width * qpad_of(q) + (double)m->Mtau * (cells * 5.0 * qpad_of(q)) +
	       (double)m->Mtau * m->Mn * (q + q);
	use = (double)m->Mtau * m->Mn * (2.0 + 2.0 + 2.0 * q);
	return (double)N * (make * (m->global ? 1.0 : 2.0) + use);
}
