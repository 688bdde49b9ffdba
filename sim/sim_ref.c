/*
 * Reference curves (sim_ref.h): uncoded BPSK, the union bound of a convolutional code from its
 * distance spectrum, and the Shannon limits for a rate.
 *
 * The spectrum is counted on the trellis whose nodes are (encoder state, puncturing phase). An
 * error event leaves state 0 with a 1 at one of the P phases and ends when it first returns to
 * state 0. d_free is found first by Dial's shortest-path search (integer weights, one bucket per
 * weight); then the events of weight d_free .. d_free + count - 1 are counted by a walk, one
 * trellis step at a time, that keeps for every node and every weight so far how many partial
 * events are there and how many information 1s they hold, dropping what passes the largest
 * weight. Without a cycle of weight 0 away from state 0 (checked first: such a code is
 * catastrophic) every partial event gains weight at least once per V steps, so the walk ends.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_ref.h"

double sim_ref_q(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}

double sim_ref_bpsk_ber(double ebn0_db)
{
	return sim_ref_q(sqrt(2.0 * pow(10.0, ebn0_db / 10.0)));
}

/* ---- The code from a spec. */

int sim_ref_conv_from_spec(const struct fec_spec *spec, struct sim_ref_conv *out, char *err,
                           size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (spec->family == FECD_FAMILY_VITERBI) {
		const struct conv_spec *c = &spec->u.conv;

		out->k = c->k;
		out->n = c->n;
		out->period = c->punct_period ? c->punct_period : 1;
		for (unsigned j = 0; j < c->n && j < SIM_REF_CONV_N_MAX; j++) {
			out->polys[j] = c->polys[j];
			out->punct[j] = c->punct_period > 1 ? c->punct[j] : 1u;
		}
	} else if (spec->family == FECD_FAMILY_FANO) {
		const struct fano_spec *f = &spec->u.fano;

		out->k = f->k;
		out->n = f->n;
		out->period = 1;
		for (unsigned j = 0; j < f->n && j < SIM_REF_CONV_N_MAX; j++) {
			out->polys[j] = f->polys[j];
			out->punct[j] = 1u;
		}
	} else {
		snprintf(err, errlen, "a union bound needs a convolutional code (viterbi or fano)");
		return -FEC_ENOTSUP;
	}
	if (out->k < 2 || out->k > SIM_REF_CONV_K_MAX || out->n < 1 ||
	    out->n > SIM_REF_CONV_N_MAX) {
		snprintf(
		    err, errlen,
		    "a union bound is computed for K = 2..%d and 1..%d outputs (this code: K = %u, "
		    "%u outputs)",
		    SIM_REF_CONV_K_MAX, SIM_REF_CONV_N_MAX, out->k, out->n);
		return -FEC_ENOTSUP;
	}
	return 0;
}

/* ---- The trellis. */

struct trellis {
	unsigned k, n, period, states, nodes;
	const struct sim_ref_conv *code;
};

static unsigned parity64(uint64_t v)
{
	return (unsigned)__builtin_parityll(v);
}

/* Output weight of the branch from state s with input u at phase ph, and its next state. */
static unsigned branch(const struct trellis *t, unsigned s, unsigned u, unsigned ph, unsigned *next)
{
	uint64_t reg = ((uint64_t)u << (t->k - 1)) | s;
	unsigned w = 0;

	for (unsigned j = 0; j < t->n; j++)
		if (t->code->punct[j] >> (t->period - 1 - ph) & 1u)
			w += parity64(reg & t->code->polys[j]);
	*next = (unsigned)(reg >> 1);
	return w;
}

static unsigned node_of(const struct trellis *t, unsigned s, unsigned ph)
{
	return s * t->period + ph;
}

/* True where a cycle of weight 0 runs through nodes away from state 0 (Kahn's algorithm on the
 * graph of weight-0 branches between such nodes: what cannot be peeled off lies on a cycle). */
static int zero_cycle(const struct trellis *t, bool *found)
{
	unsigned *indeg = calloc(t->nodes, sizeof(*indeg));
	unsigned *queue = malloc(t->nodes * sizeof(*queue));
	unsigned head = 0, tail = 0, peeled = 0, live = 0;

	if (!indeg || !queue) {
		free(indeg);
		free(queue);
		return -FEC_ENOMEM;
	}
	for (unsigned s = 1; s < t->states; s++)
		for (unsigned ph = 0; ph < t->period; ph++)
			for (unsigned u = 0; u < 2; u++) {
				unsigned nx, w = branch(t, s, u, ph, &nx);

				if (w == 0 && nx != 0)
					indeg[node_of(t, nx, (ph + 1) % t->period)]++;
			}
	for (unsigned s = 1; s < t->states; s++)
		for (unsigned ph = 0; ph < t->period; ph++) {
			live++;
			if (indeg[node_of(t, s, ph)] == 0)
				queue[tail++] = node_of(t, s, ph);
		}
	while (head < tail) {
		unsigned v = queue[head++], s = v / t->period, ph = v % t->period;

		peeled++;
		for (unsigned u = 0; u < 2; u++) {
			unsigned nx, w = branch(t, s, u, ph, &nx), m;

			if (w != 0 || nx == 0)
				continue;
			m = node_of(t, nx, (ph + 1) % t->period);
			if (--indeg[m] == 0)
				queue[tail++] = m;
		}
	}
	*found = peeled != live;
	free(indeg);
	free(queue);
	return 0;
}

/* d_free by Dial's algorithm: buckets of nodes by distance, in a pool of list cells (each branch
 * is relaxed once, when its source is settled, so 2 V + P cells suffice). */
#define DFREE_SEARCH_MAX 1024
static int find_dfree(const struct trellis *t, unsigned *dfree)
{
	unsigned cells = 2 * t->nodes + t->period + 1, used = 0, best = UINT32_MAX;
	unsigned *dist = malloc(t->nodes * sizeof(*dist));
	int *bucket = malloc(DFREE_SEARCH_MAX * sizeof(*bucket));
	unsigned *cell_node = malloc(cells * sizeof(*cell_node));
	int *cell_next = malloc(cells * sizeof(*cell_next));
	int rc = 0;

	if (!dist || !bucket || !cell_node || !cell_next) {
		rc = -FEC_ENOMEM;
		goto out_free;
	}
	for (unsigned v = 0; v < t->nodes; v++)
		dist[v] = UINT32_MAX;
	for (unsigned d = 0; d < DFREE_SEARCH_MAX; d++)
		bucket[d] = -1;
#define PUSH(v, d)                                                                                 \
	do {                                                                                       \
		cell_node[used] = (v);                                                             \
		cell_next[used] = bucket[d];                                                       \
		bucket[d] = (int)used++;                                                           \
	} while (0)
	for (unsigned ph = 0; ph < t->period; ph++) {
		unsigned nx, w = branch(t, 0, 1, ph, &nx), v = node_of(t, nx, (ph + 1) % t->period);

		if (w < DFREE_SEARCH_MAX && w < dist[v]) {
			dist[v] = w;
			PUSH(v, w);
		}
	}
	for (unsigned d = 0; d < DFREE_SEARCH_MAX && d < best; d++) {
		while (bucket[d] >= 0) {
			unsigned v = cell_node[bucket[d]], s = v / t->period, ph = v % t->period;

			bucket[d] = cell_next[bucket[d]];
			if (dist[v] != d)
				continue; /* settled earlier at a smaller distance */
			for (unsigned u = 0; u < 2; u++) {
				unsigned nx, nd = d + branch(t, s, u, ph, &nx), m;

				if (nx == 0) {
					if (nd < best)
						best = nd;
					continue;
				}
				m = node_of(t, nx, (ph + 1) % t->period);
				if (nd < DFREE_SEARCH_MAX && nd < dist[m] && used < cells) {
					dist[m] = nd;
					PUSH(m, nd);
				}
			}
		}
	}
#undef PUSH
	if (best == UINT32_MAX)
		rc = -FEC_EINVAL;
	*dfree = best;
out_free:
	free(dist);
	free(bucket);
	free(cell_node);
	free(cell_next);
	return rc;
}

int sim_ref_conv_spectrum(const struct sim_ref_conv *code, unsigned count,
                          struct sim_ref_spectrum *out, char *err, size_t errlen)
{
	struct trellis t = {.k = code->k, .n = code->n, .period = code->period, .code = code};
	unsigned sent = 0, wmax, levels;
	double *cnt = NULL, *inf = NULL, *ncnt = NULL, *ninf = NULL;
	bool cyc, active;
	int rc;

	memset(out, 0, sizeof(*out));
	if (code->k < 2 || code->k > SIM_REF_CONV_K_MAX || code->n < 1 ||
	    code->n > SIM_REF_CONV_N_MAX || code->period < 1 || code->period > SIM_REF_PUNCT_MAX ||
	    count < 1 || count > SIM_REF_SPECTRUM_MAX) {
		snprintf(
		    err, errlen,
		    "spectrum: K must be 2..%d, outputs 1..%d, the puncturing period 1..%d and "
		    "the weights counted 1..%d",
		    SIM_REF_CONV_K_MAX, SIM_REF_CONV_N_MAX, SIM_REF_PUNCT_MAX,
		    SIM_REF_SPECTRUM_MAX);
		return -FEC_EINVAL;
	}
	for (unsigned j = 0; j < code->n; j++) {
		if (code->polys[j] >> code->k) {
			snprintf(err, errlen, "spectrum: polynomial %llo has more than K = %u bits",
			         (unsigned long long)code->polys[j], code->k);
			return -FEC_EINVAL;
		}
		sent += (unsigned)__builtin_popcount(code->punct[j] &
		                                     (uint32_t)((1ull << code->period) - 1));
	}
	if (sent == 0) {
		snprintf(err, errlen, "spectrum: the puncturing pattern sends no bit");
		return -FEC_EINVAL;
	}
	t.states = 1u << (code->k - 1);
	t.nodes = t.states * t.period;
	rc = zero_cycle(&t, &cyc);
	if (rc < 0)
		goto out_nomem;
	if (cyc) {
		snprintf(
		    err, errlen,
		    "spectrum: the code is catastrophic (a path of weight 0 never returns to state "
		    "0), so it has no union bound");
		return -FEC_EINVAL;
	}
	rc = find_dfree(&t, &out->dfree);
	if (rc == -FEC_ENOMEM)
		goto out_nomem;
	if (rc < 0) {
		snprintf(err, errlen, "spectrum: no error event of weight below %d",
		         DFREE_SEARCH_MAX);
		return rc;
	}
	out->count = count;
	out->period = code->period;
	out->rate = (double)code->period / sent;
	wmax = out->dfree + count - 1;
	levels = wmax + 1;
	cnt = calloc((size_t)t.nodes * levels, sizeof(double));
	inf = calloc((size_t)t.nodes * levels, sizeof(double));
	ncnt = calloc((size_t)t.nodes * levels, sizeof(double));
	ninf = calloc((size_t)t.nodes * levels, sizeof(double));
	if (!cnt || !inf || !ncnt || !ninf) {
		rc = -FEC_ENOMEM;
		goto out_nomem;
	}
	for (unsigned ph = 0; ph < t.period; ph++) {
		unsigned nx, w = branch(&t, 0, 1, ph, &nx);
		size_t at = (size_t)node_of(&t, nx, (ph + 1) % t.period) * levels + w;

		if (w <= wmax) {
			cnt[at] += 1.0;
			inf[at] += 1.0;
		}
	}
	do {
		double *swap;

		active = false;
		memset(ncnt, 0, (size_t)t.nodes * levels * sizeof(double));
		memset(ninf, 0, (size_t)t.nodes * levels * sizeof(double));
		for (unsigned v = 0; v < t.nodes; v++) {
			unsigned s = v / t.period, ph = v % t.period;
			const double *c = cnt + (size_t)v * levels, *in = inf + (size_t)v * levels;

			for (unsigned u = 0; u < 2; u++) {
				unsigned nx, w = branch(&t, s, u, ph, &nx);
				size_t to = (size_t)node_of(&t, nx, (ph + 1) % t.period) * levels;

				for (unsigned d = 0; d + w <= wmax; d++) {
					if (c[d] == 0.0)
						continue;
					if (nx == 0) {
						out->events[d + w - out->dfree] += c[d];
						out->bit_errors[d + w - out->dfree] += in[d];
					} else {
						ncnt[to + d + w] += c[d];
						ninf[to + d + w] += in[d] + u * c[d];
						active = true;
					}
				}
			}
		}
		swap = cnt, cnt = ncnt, ncnt = swap;
		swap = inf, inf = ninf, ninf = swap;
	} while (active);
	rc = 0;
	goto out_free;
out_nomem:
	snprintf(err, errlen, "spectrum: out of memory");
	rc = -FEC_ENOMEM;
out_free:
	free(cnt);
	free(inf);
	free(ncnt);
	free(ninf);
	return rc;
}

double sim_ref_union_bound(const struct sim_ref_spectrum *s, double ebn0_db)
{
	double ebn0 = pow(10.0, ebn0_db / 10.0), sum = 0.0;

	for (unsigned i = 0; i < s->count; i++)
		sum += s->bit_errors[i] * sim_ref_q(sqrt(2.0 * (s->dfree + i) * s->rate * ebn0));
	return s->period ? sum / s->period : NAN;
}

/* ---- Shannon limits. */

/* log(1 + exp(-x)) without overflow. */
static double softplus_neg(double x)
{
	return x > 0 ? log1p(exp(-x)) : -x + log1p(exp(x));
}

double sim_ref_biawgn_capacity(double esn0_db)
{
	/* Simpson's rule over z in [-12, 12] for Y = 1 + sigma z. */
	const int steps = 4000;
	const double lo = -12.0, hi = 12.0, h = (hi - lo) / steps;
	double sigma2 = 1.0 / (2.0 * pow(10.0, esn0_db / 10.0)), sigma = sqrt(sigma2), sum = 0.0;

	for (int i = 0; i <= steps; i++) {
		double z = lo + i * h, y = 1.0 + sigma * z;
		double f = exp(-0.5 * z * z) * softplus_neg(2.0 * y / sigma2);

		sum += f * (i == 0 || i == steps ? 1.0 : (i & 1) ? 4.0 : 2.0);
	}
	sum *= h / 3.0 / sqrt(2.0 * M_PI);
	return 1.0 - sum / log(2.0);
}

double sim_ref_shannon_biawgn(double rate)
{
	double lo = -1.6, hi = 40.0, off;

	if (!(rate > 0.0 && rate < 1.0))
		return NAN;
	off = 10.0 * log10(rate); /* Es/N0 = R Eb/N0 */
	while (hi - lo > 1e-5) {
		double mid = 0.5 * (lo + hi);

		if (sim_ref_biawgn_capacity(mid + off) < rate)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double sim_ref_shannon_gaussian(double rate)
{
	if (!(rate > 0.0))
		return NAN;
	return 10.0 * log10((pow(2.0, 2.0 * rate) - 1.0) / (2.0 * rate));
}

/* ---- Lines for a plot. */

static void sample_curve(struct sim_ref_line *l, double lo, double hi,
                         double (*f)(const void *arg, double x), const void *arg)
{
	unsigned steps = SIM_REF_LINE_POINTS - 1;

	l->kind = SIM_REF_CURVE;
	l->npoints = 0;
	for (unsigned i = 0; i <= steps; i++) {
		double x = lo + (hi - lo) * i / steps, y = f(arg, x);

		if (y > 1e-15 && y <= 0.5) {
			l->x[l->npoints] = x;
			l->y[l->npoints++] = y;
		}
	}
}

static double bpsk_at(const void *arg, double x)
{
	(void)arg;
	return sim_ref_bpsk_ber(x);
}

static double union_at(const void *arg, double x)
{
	return sim_ref_union_bound(arg, x);
}

int sim_ref_for_spec(const struct fec_spec *spec, const char *label, unsigned what, double lo,
                     double hi, struct sim_ref_line *out, unsigned max, unsigned *n, char *err,
                     size_t errlen)
{
	double rate = spec ? fec_spec_rate(spec) : 0.0;
	unsigned k = 0;

	*n = 0;
	if (!spec || !(lo < hi) || !isfinite(lo) || !isfinite(hi)) {
		snprintf(err, errlen, "reference lines need a code and an Eb/N0 range lo < hi");
		return -FEC_EINVAL;
	}
	if (!label)
		label = "";
#define NEXT()                                                                                     \
	do {                                                                                       \
		if (k == max) {                                                                    \
			snprintf(err, errlen, "reference lines: room for %u only", max);           \
			return -FEC_ERANGE;                                                        \
		}                                                                                  \
		memset(&out[k], 0, sizeof(out[k]));                                                \
	} while (0)
	if (what & SIM_REF_BPSK) {
		NEXT();
		snprintf(out[k].label, sizeof(out[k].label), "uncoded BPSK");
		sample_curve(&out[k++], lo, hi, bpsk_at, NULL);
	}
	if (what & SIM_REF_UNION) {
		struct sim_ref_conv code;
		struct sim_ref_spectrum sp;
		char why[160];

		/* Twenty weights from d_free: the terms beyond add nothing visible where the bound
		 * is below 1e-2. */
		if (sim_ref_conv_from_spec(spec, &code, why, sizeof(why)) == 0 &&
		    sim_ref_conv_spectrum(&code, 20, &sp, why, sizeof(why)) == 0) {
			NEXT();
			snprintf(out[k].label, sizeof(out[k].label), "union bound %s (dfree %u)",
			         label, sp.dfree);
			sample_curve(&out[k++], lo, hi, union_at, &sp);
		}
	}
	if ((what & SIM_REF_SHANNON) && rate > 0.0 && rate < 1.0) {
		NEXT();
		out[k].kind = SIM_REF_VLINE;
		out[k].x0 = sim_ref_shannon_biawgn(rate);
		snprintf(out[k].label, sizeof(out[k].label), "BI-AWGN limit R=%.3g (%.2f dB)", rate,
		         out[k].x0);
		k++;
	}
	if ((what & SIM_REF_SHANNON_GAUSS) && rate > 0.0) {
		NEXT();
		out[k].kind = SIM_REF_VLINE;
		out[k].x0 = sim_ref_shannon_gaussian(rate);
		snprintf(out[k].label, sizeof(out[k].label), "Shannon limit R=%.3g (%.2f dB)", rate,
		         out[k].x0);
		k++;
	}
#undef NEXT
	*n = k;
	return 0;
}
