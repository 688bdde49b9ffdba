/*
 * The nbldpc family's trellis min-sum (algo=tms) for any q on any CPU: nbldpc_tms.c's spec
 * computed bit for bit (test_nbldpc_tms compares it with the reference) the way
 * nbldpc_tms_avx512.c computes it, in plain C: GF products from q x q tables built once per
 * decoder, step 5 as a set (a histogram of m1 gives the dev2-th smallest value; ties in
 * increasing eta), step 6 through per-edge tables V[e][j] (v_e with 255 where d_e = j and at
 * eta = 0), so that its inner loop is a load, an add and a minimum with no test. The reference
 * stays the readable spec; this is what q other than 64, and CPUs without AVX-512 VBMI, run.
 */
#include <string.h>

#include "nbldpc_decoder.h"

/* The work area of one check (deg edges): W (int16), then bytes: D, v, jj, T (deg q each), the
 * tables (deg^2 q), m1, m2, e1, e2, o (q each). */
size_t nbldpc__tms_fast_work_bytes(unsigned maxd, unsigned q)
{
	return (size_t)maxd * q * sizeof(int16_t) +
	       ((size_t)4 * maxd + (size_t)maxd * maxd + 5) * q + 64;
}

static inline uint8_t u8min(unsigned a, unsigned b)
{
	return (uint8_t)(a < b ? a : b);
}

/* The set of step 5: eta = 1..q-1 with the nsel smallest keys (m1, eta) among those with
 * m1 < 255 (the others lower no T), into sel; returns how many. */
static unsigned select_set(const uint8_t *m1, unsigned q, unsigned nsel, uint8_t *sel)
{
	unsigned hist[256] = {0}, below = 0, thr = 0, n = 0, need;

	for (unsigned eta = 1; eta < q; eta++)
		hist[m1[eta]]++;
	/* thr: the value at which the count of smaller keys reaches nsel (255: all fit) */
	while (thr < 255 && below + hist[thr] < nsel)
		below += hist[thr++];
	need = nsel - below; /* of those equal to thr, the first need in eta order */
	for (unsigned eta = 1; eta < q; eta++) {
		const unsigned v = m1[eta];

		if (v < thr || (v == thr && v < 255 && need && need--))
			sel[n++] = (uint8_t)eta;
	}
	return n;
}

static void check_update(const struct nbldpc_decoder *d, uint32_t e0, unsigned deg, int16_t *app,
                         uint8_t *rm, unsigned nsel, unsigned offset, void *work)
{
	const struct nbldpc_code *c = d->code;
	const unsigned q = d->q;
	const uint8_t *mul = d->tms_mul, *dvd = d->tms_div;
	int16_t *w = work;
	uint8_t *dv = (uint8_t *)(w + (size_t)deg * q), *vv = dv + (size_t)deg * q;
	uint8_t *jj = vv + (size_t)deg * q, *tt = jj + (size_t)deg * q, *vt = tt + (size_t)deg * q;
	uint8_t *m1 = vt + (size_t)deg * deg * q, *m2 = m1 + q, *e1 = m2 + q, *e2 = e1 + q;
	uint8_t *o = e2 + q, z[NBLDPC_DEG_MAX], sel[NBLDPC_Q_MAX];
	unsigned beta = 0, nset;

	/* steps 1-3; o holds Q_e(b / h_e) for a moment */
	for (unsigned i = 0; i < deg; i++) {
		const uint32_t e = e0 + i;
		const unsigned h = c->row_val[e];
		const int16_t *p = app + (size_t)c->row_col[e] * q;
		const uint8_t *r = rm + (size_t)e * q;
		int16_t *wi = w + (size_t)i * q, mn = INT16_MAX;
		uint8_t *di = dv + (size_t)i * q;
		unsigned a = 0;

		for (unsigned x = 0; x < q; x++) {
			wi[x] = (int16_t)(p[x] - r[x]);
			mn = wi[x] < mn ? wi[x] : mn;
		}
		for (unsigned x = 0; x < q; x++) {
			const int v = wi[x] - mn;

			wi[x] = (int16_t)(v > 32767 ? 32767 : v);
		}
		while (wi[a] != 0)
			a++;
		z[i] = mul[h * q + a];
		beta ^= z[i];
		for (unsigned b = 0; b < q; b++)
			o[b] = u8min((unsigned)wi[dvd[h * q + b]], 255);
#if defined(FECD_SIMD_X86)
		if (d->tms_avx2) {
			nbldpc__tms_xor_shift_avx2(di, o, q, z[i]);
			continue;
		}
#endif
		for (unsigned eta = 0; eta < q; eta++)
			di[eta] = o[eta ^ z[i]];
	}
	/* step 4 */
	memset(m1, 255, q);
	memset(m2, 255, q);
	memset(e1, 0, q);
	memset(e2, 255, q);
	/* in masks (0 or 255) rather than selects: the compiler vectorises these loops, where
	 * as selects they were a mispredicted branch a byte */
	for (unsigned i = 0; i < deg; i++)
		for (unsigned eta = 0; eta < q; eta++) {
			const uint8_t v = dv[(size_t)i * q + eta];
			const uint8_t lt = (uint8_t) - (v < m1[eta]);
			const uint8_t lt2 = (uint8_t)(-(v < m2[eta]) & ~lt),
			              keep = (uint8_t) ~(lt | lt2);

			m2[eta] = (uint8_t)((m1[eta] & lt) | (v & lt2) | (m2[eta] & keep));
			e2[eta] = (uint8_t)((e1[eta] & lt) | (i & lt2) | (e2[eta] & keep));
			m1[eta] = (uint8_t)((v & lt) | (m1[eta] & ~lt));
			e1[eta] = (uint8_t)((i & lt) | (e1[eta] & ~lt));
		}
	/* step 6's v and d per edge, the table each eta1 reads (d, or the edge itself where
	 * d = 255: v = 255 there, any table does) and the tables */
	for (unsigned i = 0; i < deg; i++) {
		uint8_t *vi = vv + (size_t)i * q, *ji = jj + (size_t)i * q,
		        *ti = tt + (size_t)i * q;

		for (unsigned eta = 0; eta < q; eta++) {
			const uint8_t own = (uint8_t) - (e1[eta] == i);
			const uint8_t dd = (uint8_t)((e2[eta] & own) | (e1[eta] & ~own));
			const uint8_t none = (uint8_t) - (dd == 255);

			vi[eta] = (uint8_t)((m2[eta] & own) | (m1[eta] & ~own));
			ji[eta] = (uint8_t)((i & none) | (dd & ~none));
			ti[eta] = 255;
		}
		for (unsigned j = 0; j < deg; j++) {
			uint8_t *tab = vt + ((size_t)i * deg + j) * q;

			/* 255 | v = 255: branch-free, so that the compiler vectorises it (as a
			 * select it was a mispredicted branch a byte, half the path's time) */
			for (unsigned eta = 0; eta < q; eta++)
				tab[eta] = (uint8_t)(vi[eta] | (j != i && ji[eta] == j ? 255 : 0));
			tab[0] = 255;
		}
	}
	/* steps 5 and 6 */
	nset = select_set(m1, q, nsel, sel);
#if defined(FECD_SIMD_X86)
	if (d->tms_avx2)
		nbldpc__tms_pairs_avx2(q, deg, nset, sel, vv, jj, vt, tt);
	else
#endif
		for (unsigned s = 0; s < nset; s++) {
			const unsigned eta1 = sel[s];

			for (unsigned i = 0; i < deg; i++) {
				const unsigned v1 = vv[(size_t)i * q + eta1];
				const uint8_t *tab =
				    vt + ((size_t)i * deg + jj[(size_t)i * q + eta1]) * q;
				uint8_t *ti = tt + (size_t)i * q;

				/* T <= 255, so min(T, v1 + V) is the saturating sum's minimum too
				 */
				for (unsigned eta = 0; eta < q; eta++)
					ti[eta] = u8min(ti[eta], v1 + tab[eta ^ eta1]);
			}
		}
	/* steps 7-9 */
	for (unsigned i = 0; i < deg; i++) {
		const uint32_t e = e0 + i;
		const unsigned h = c->row_val[e], shift = beta ^ z[i];
		const uint8_t *vi = vv + (size_t)i * q, *ti = tt + (size_t)i * q;
		const int16_t *wi = w + (size_t)i * q;
		int16_t *p = app + (size_t)c->row_col[e] * q, mn = INT16_MAX;
		uint8_t *r = rm + (size_t)e * q;

		for (unsigned eta = 0; eta < q; eta++) {
			const unsigned v = u8min(vi[eta], ti[eta]);

			o[eta] = (uint8_t)(v > offset ? v - offset : 0);
		}
		o[0] = 0;
		for (unsigned a = 0; a < q; a++) {
			const int v = wi[a] + (r[a] = o[mul[h * q + a] ^ shift]);

			p[a] = (int16_t)(v < 32767 ? v : 32767);
			mn = p[a] < mn ? p[a] : mn;
		}
		for (unsigned a = 0; a < q; a++)
			p[a] = (int16_t)(p[a] - mn);
	}
}

unsigned nbldpc__tms_fast(const struct nbldpc_decoder *d, void *scratch, int16_t *app,
                          uint8_t *hard, bool *ok)
{
	const struct nbldpc_code *c = d->code;
	const struct nbldpc_spec *s = &d->base.spec.u.nbldpc;
	const unsigned q = d->q, nsel = s->dev2 < q - 1 ? s->dev2 : q - 1;
	uint8_t *rm = scratch;
	void *work = rm + (((size_t)c->nnz * q + 63) & ~(size_t)63);
	unsigned it = 0;

	memset(rm, 0, (size_t)c->nnz * q);
	for (uint32_t x = 0; x < c->n; x++)
		nbldpc__tms_normalise(app + (size_t)x * q, q);
	*ok = false;
	while (it < s->max_iters) {
		it++;
		for (uint32_t r = 0; r < c->m; r++)
			check_update(d, c->row_start[r], c->row_start[r + 1] - c->row_start[r], app,
			             rm, nsel, s->offset, work);
		/* without early stop only the last iteration's decision counts */
		if (!s->early_stop && it < s->max_iters)
			continue;
		*ok = nbldpc__tms_decide(c, q, app, hard);
		if (*ok && s->early_stop)
			break;
	}
	if (it == 0)
		*ok = nbldpc__tms_decide(c, q, app, hard);
	return it;
}
