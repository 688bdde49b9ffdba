/*
 * The GPU ids decoder's lattice (cuda/ids/ids_gpu_lattice.cuh), run on the CPU, against the CPU
 * decoder's gammas (ids_map_gamma), bit for bit: every symbol, start drift, drift change and
 * codeword of frames through channels from Pi = Pd = 1e-3 (the Fig. 17 setting) to 0.25, with
 * deletions only and insertions only, hard and soft input, frames of every final drift within
 * the limits and ones ending at the frame's first bit, for each row length the kernels are
 * compiled for that holds the corridor. The kernels compute every cell without the CPU's tests
 * of the received frame's bounds (IDS_GPU.md says why that gives the same values); this checks
 * it with no GPU (label unit). The difference printed names the case, symbol, drift and value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ids_gpu_lattice.cuh"

extern "C" {
#include "ids_code.h"
#include "prng.h"
}

struct lcase {
	double pi, pd, ps;
	uint32_t N, q, n;
};

static const struct lcase cases[] = {
    {1e-3, 1e-3, 0, 60, 16, 8},   /* Fig. 17's channel and code size per symbol: M_n 9 */
    {1e-3, 1e-3, 0, 40, 4, 4},    /* M_n 7 */
    {0.01, 0.01, 0.01, 40, 2, 2}, /* substitutions too */
    {0.01, 0.01, 0.01, 30, 64, 12}, {0.1, 0.1, 0.01, 20, 4, 8}, /* M_n past 16 */
    {0.25, 0.2, 0.02, 12, 8, 16},                               /* M_n past 32 */
    {0, 0.02, 0, 30, 8, 3},                                     /* deletions only */
    {0.02, 0, 0.01, 30, 8, 3},                                  /* insertions only */
};

/* The lattice as the kernels compiled for MN_T (and EXACT) run it; F gets F(n, d) at d - cmin. */
template <int MN_T, bool EXACT>
static void lattice(const struct idsg_code &c, const float *win, long kwin0, long start, long avail,
                    unsigned cw, float *F)
{
	float row[MN_T + 2];

	idsg_lattice<MN_T, EXACT>(c, win, kwin0, start, avail, cw, row);
	for (uint32_t s = 0; s < c.Mn; s++)
		F[s] = row[s + 1];
}

typedef void lattice_fn(const struct idsg_code &, const float *, long, long, long, unsigned,
                        float *);

/* Every row length the kernels have that holds M_n. */
static unsigned variants(uint32_t Mn, lattice_fn **fn, const char **name)
{
	unsigned k = 0;

	if (Mn == 9) {
		fn[k] = lattice<9, true>;
		name[k++] = "9 exactly";
	}
	if (Mn <= 12) {
		fn[k] = lattice<12, false>;
		name[k++] = "12";
	}
	if (Mn <= 16) {
		fn[k] = lattice<16, false>;
		name[k++] = "16";
	}
	if (Mn <= 32) {
		fn[k] = lattice<32, false>;
		name[k++] = "32";
	}
	fn[k] = lattice<IDSG_MN_MAX, false>;
	name[k++] = "64";
	return k;
}

/* Compares every gamma of one frame; returns the values that differ. */
static unsigned long check_frame(const struct lcase *t, const struct ids_map *m, void *scratch,
                                 const int8_t *rx, uint32_t rho, unsigned long *compared)
{
	const struct ids_code *code = m->code;
	const uint32_t q = code->q, n = code->n, Mn = m->Mn;
	const float prior = 1.0f / (float)q;
	struct idsg_code c = {};
	float qx[512], F[IDSG_MN_MAX];
	lattice_fn *fn[5];
	const char *name[5];
	const unsigned nv = variants(Mn, fn, name);
	/* the whole frame as one window: from fmin + cmin, symbols 0 .. N - 1 */
	const long kwin0 = (long)m->fmin + m->cmin;
	unsigned long bad = 0;

	c.N = code->N;
	c.q = q;
	c.n = n;
	c.Mtau = m->Mtau;
	c.Mn = Mn;
	c.fmin = m->fmin;
	c.fmax = m->fmax;
	c.cmin = m->cmin;
	c.cmax = m->cmax;
	c.hpi = m->hpi;
	c.pd = m->pd;
	idsg_q_table(m, qx);
	const long width = idsg_window(c, code->N);
	float *win = (float *)calloc(2 * (size_t)width, sizeof(float));
	float *g = (float *)malloc((size_t)m->Mtau * Mn * q * sizeof(float));

	if (!win || !g) {
		CHECK(0, "out of memory");
		free(win);
		free(g);
		return 1;
	}
	for (long w = 0; w < width; w++) {
		const long k = kwin0 + w;

		if (k >= 0 && k < (long)rho) {
			win[2 * w] = qx[2 * (rx[k] + 128)];
			win[2 * w + 1] = qx[2 * (rx[k] + 128) + 1];
		}
	}
	for (uint32_t i = 0; i < code->N; i++) {
		ids_map_gamma(m, scratch, rx, rho, i, NULL, g);
		for (int mp = m->fmin; mp <= m->fmax; mp++) {
			const long start = (long)n * i + mp;
			const bool outside = start < 0 || start > (long)rho;

			for (uint32_t D = 0; D < q; D++)
				for (unsigned v = 0; v < nv; v++) {
					if (outside)
						memset(F, 0, sizeof(F));
					else
						fn[v](c, win, kwin0, start, (long)rho - start,
						      code->cw[(size_t)i * q + D], F);
					for (uint32_t s = 0; s < Mn; s++) {
						const int to = mp + m->cmin + (int)s;
						const float gpu = to >= m->fmin && to <= m->fmax
						                      ? prior * F[s]
						                      : 0.0f;
						const float cpu =
						    g[((size_t)(mp - m->fmin) * Mn + s) * q + D];

						++*compared;
						if (!memcmp(&gpu, &cpu, sizeof(float)))
							continue;
						if (bad++ < 5)
							CHECK(0,
							      "pi %g pd %g q %u n %u, rho %u, rows "
							      "of %s: "
							      "symbol %u, m' %d, d %d, D %u: "
							      "lattice %.9g, "
							      "CPU %.9g",
							      t->pi, t->pd, q, n, rho, name[v], i,
							      mp, m->cmin + (int)s, D, gpu, cpu);
					}
				}
		}
	}
	free(win);
	free(g);
	return bad;
}

static void run_case(const struct lcase *t, unsigned idx, unsigned long *compared)
{
	const struct ids_map_params par = {.ch = {t->pi, t->pd, t->ps},
	                                   .p_excl = 1e-10,
	                                   .llr_scale = 8.0f,
	                                   .storage = IDS_STORAGE_LOCAL};
	struct ids_code *code = NULL;
	struct ids_map m;
	struct fec_prng p;
	char err[256] = "";
	void *scratch = NULL;
	int8_t *rx = NULL;

	if (ids_code_random(t->N, t->q, t->n, 10 + idx, &code, err, sizeof(err)) ||
	    ids_map_init(&m, code, &par, err, sizeof(err))) {
		CHECK(0, "case %u: %s", idx, err);
		ids_code_free(code);
		return;
	}
	scratch = aligned_alloc(64, (m.scratch_bytes + 63) / 64 * 64);
	rx = (int8_t *)malloc(m.rho_max + 1);
	CHECK(m.Mn <= IDSG_MN_MAX, "case %u: M_n %u", idx, m.Mn);
	if (!scratch || !rx || m.Mn > IDSG_MN_MAX)
		goto out;
	fec_prng_seed(&p, 100 + idx);
	/* final drifts: the limits, 0, random ones, and a frame ending before its first codeword */
	for (int rep = 0; rep < 8; rep++) {
		const int last = rep == 0   ? m.fmin
		                 : rep == 1 ? m.fmax
		                 : rep == 2 ? 0
		                            : m.fmin + (int)(fec_prng_next(&p) % m.Mtau);
		uint32_t rho = (uint32_t)((long)m.tau + last);
		const bool soft = rep % 2;

		if (rep == 7)
			rho = m.code->n / 2;
		for (uint32_t j = 0; j < rho; j++) {
			const int v = (int)(fec_prng_next(&p) % 255) - 127;

			rx[j] = (int8_t)(soft ? v : v < 0 ? -127 : 127);
		}
		check_frame(t, &m, scratch, rx, rho, compared);
	}
out:
	free(scratch);
	free(rx);
	ids_code_free(code);
}

int main(void)
{
	unsigned long compared = 0;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i], i, &compared);
	printf("%lu gammas compared\n", compared);
	CHECK(compared > 0, "some gamma compared");
	return check_done();
}
