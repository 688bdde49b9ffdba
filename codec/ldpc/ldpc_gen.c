/*
 * Generated LDPC codes, deterministic from a seed (fec_prng): a (dv,dc)-regular code built at
 * random without 4-cycles, and progressive edge growth (Hu, Eleftheriou and Arnold, 2005), which
 * places each new edge at the check farthest from its variable in the graph so far.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fec.h"
#include "fec_impl.h"
#include "ldpc_code_impl.h"
#include "prng.h"

#define REGULAR_ATTEMPTS 64
#define REGULAR_SAMPLES  16
#define CHECK_EVERY      256 /* columns between looks at the build deadline */

static int gen_range(char *err, size_t errlen, const char *fmt, uint32_t a, unsigned b, unsigned c)
{
	ldpc__err(err, errlen, fmt, a, b, c);
	return -FEC_ERANGE;
}

static int gen_expired(char *err, size_t errlen, const char *what, uint32_t n)
{
	fec__err(err, errlen, FEC_ETIME, "%s: n=%u: building the code passed its deadline", what,
	         n);
	return -FEC_ETIME;
}

static uint32_t rand_below(struct fec_prng *p, uint32_t n)
{
	return (uint32_t)(fec_prng_next(p) % n);
}

/* Finishes a generated code from its column lists (n x dv). */
static int gen_finish(const char *name, uint32_t n, uint32_t m, unsigned dv,
                      const uint32_t *col_rows, struct ldpc_code **out, char *err, size_t errlen)
{
	size_t nnz = (size_t)n * dv;
	uint32_t *ecol = malloc(nnz * sizeof(*ecol));
	struct ldpc_code *c;
	int ret;

	if (!ecol)
		return -FEC_ENOMEM;
	for (size_t i = 0; i < nnz; i++)
		ecol[i] = (uint32_t)(i / dv);
	ret = ldpc__code_from_edges(name, n, m, col_rows, ecol, nnz, &c, err, errlen);
	free(ecol);
	if (ret)
		return ret;
	ret = ldpc__code_finish(c, NULL, err, errlen);
	if (ret) {
		ldpc_code_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

/* One try at the regular construction: columns in order, each taking dv rows with room left,
 * the fullest-room rows first, none sharing a column with another of the same column's rows.
 * 1: built; 0: stuck (try again); -FEC_ETIME: past the build deadline. */
static int regular_try(struct fec_prng *p, uint32_t n, uint32_t m, unsigned dv, unsigned dc,
                       uint32_t *col_rows, uint32_t *row_cols, uint32_t *room, uint32_t *avail,
                       uint32_t *stamp)
{
	uint32_t navail = m;

	for (uint32_t r = 0; r < m; r++) {
		room[r] = dc;
		avail[r] = r;
		stamp[r] = 0;
	}
	for (uint32_t v = 0; v < n; v++) {
		if (v % CHECK_EVERY == 0 && fec__build_expired())
			return -FEC_ETIME;
		for (unsigned j = 0; j < dv; j++) {
			uint32_t best = UINT32_MAX, bi = 0;

			for (unsigned s = 0; s < REGULAR_SAMPLES && navail; s++) {
				uint32_t i = rand_below(p, navail), r = avail[i];

				if (stamp[r] != v + 1 &&
				    (best == UINT32_MAX || room[r] > room[best])) {
					best = r;
					bi = i;
				}
			}
			for (uint32_t i = 0; best == UINT32_MAX && i < navail; i++)
				if (stamp[avail[i]] != v + 1) {
					best = avail[i];
					bi = i;
				}
			if (best == UINT32_MAX)
				return 0;
			col_rows[(size_t)v * dv + j] = best;
			row_cols[(size_t)best * dc + (dc - room[best])] = v;
			if (--room[best] == 0)
				avail[bi] = avail[--navail];
			/* Rows sharing a column with this one would close a 4-cycle. */
			stamp[best] = v + 1;
			for (unsigned a = 0; a < dc - room[best]; a++) {
				uint32_t u = row_cols[(size_t)best * dc + a];

				for (unsigned b = 0; b < dv && u != v; b++)
					stamp[col_rows[(size_t)u * dv + b]] = v + 1;
			}
		}
	}
	return 1;
}

int ldpc__gen_regular(uint32_t n, unsigned dv, unsigned dc, uint32_t seed, struct ldpc_code **out,
                      char *err, size_t errlen)
{
	struct fec_prng p;
	uint32_t m, *col_rows, *row_cols, *room, *avail, *stamp;
	char name[96];
	int ret = -FEC_ENOMEM;

	*out = NULL;
	if (dv < 2 || dc <= dv || dc > LDPC_DEG_MAX)
		return gen_range(err, errlen,
		                 "regular: n=%u with (dv,dc)=(%u,%u); expected 2 <= dv < dc <= 256",
		                 n, dv, dc);
	if (n < dc || n > LDPC_N_MAX || (uint64_t)n * dv % dc)
		return gen_range(err, errlen,
		                 "regular: n=%u with (dv,dc)=(%u,%u); expected n*dv a multiple of "
		                 "dc, dc <= n <= 2^20",
		                 n, dv, dc);
	m = (uint32_t)((uint64_t)n * dv / dc);
	col_rows = malloc((size_t)n * dv * sizeof(uint32_t));
	row_cols = malloc((size_t)m * dc * sizeof(uint32_t));
	room = malloc((size_t)m * sizeof(uint32_t));
	avail = malloc((size_t)m * sizeof(uint32_t));
	stamp = malloc((size_t)m * sizeof(uint32_t));
	if (!col_rows || !row_cols || !room || !avail || !stamp)
		goto out_free;
	fec_prng_seed(&p, seed);
	ret = gen_range(err, errlen,
	                "regular: no 4-cycle-free (%u,%u)-regular code of length %u found in 64 "
	                "tries; take a longer code",
	                dv, dc, n);
	for (int a = 0; a < REGULAR_ATTEMPTS; a++) {
		int built = regular_try(&p, n, m, dv, dc, col_rows, row_cols, room, avail, stamp);

		if (built < 0) {
			ret = gen_expired(err, errlen, "regular", n);
			break;
		}
		if (built) {
			snprintf(name, sizeof(name), "regular (%u,%u) n=%u seed=%u", dv, dc, n,
			         seed);
			ret = gen_finish(name, n, m, dv, col_rows, out, err, errlen);
			break;
		}
	}
out_free:
	free(col_rows);
	free(row_cols);
	free(room);
	free(avail);
	free(stamp);
	return ret;
}

/* PEG's check choice for variable v: breadth first from v over the graph so far; the checks
 * never reached, or if every check is reached, those reached last, are the candidates; the one
 * of lowest degree wins, ties broken at random. */
struct peg {
	uint32_t n, m, dv, cap;
	uint32_t *col_rows, *ncol; /* n x dv, edges so far per variable */
	uint32_t *row_cols, *deg;  /* m x cap */
	uint32_t *cstamp, *vstamp, *front, *next, *cand;
	uint32_t stamp;
};

static uint32_t peg_pick(struct peg *g, struct fec_prng *p, uint32_t v)
{
	uint32_t nfront = 0, covered = 0, ncand = 0, mindeg = UINT32_MAX;
	uint32_t prev_stamp;

	g->stamp += 2;
	prev_stamp = g->stamp; /* checks with cstamp >= prev_stamp are reached */
	for (uint32_t i = 0; i < g->ncol[v]; i++) {
		uint32_t c = g->col_rows[(size_t)v * g->dv + i];

		g->cstamp[c] = g->stamp;
		g->front[nfront++] = c;
		covered++;
	}
	g->vstamp[v] = g->stamp;
	while (nfront && covered < g->m) {
		uint32_t nnext = 0;

		g->stamp++;
		for (uint32_t i = 0; i < nfront; i++) {
			uint32_t c = g->front[i];

			for (uint32_t a = 0; a < g->deg[c]; a++) {
				uint32_t u = g->row_cols[(size_t)c * g->cap + a];

				if (g->vstamp[u] >= prev_stamp)
					continue;
				g->vstamp[u] = prev_stamp;
				for (uint32_t b = 0; b < g->ncol[u]; b++) {
					uint32_t c2 = g->col_rows[(size_t)u * g->dv + b];

					if (g->cstamp[c2] < prev_stamp) {
						g->cstamp[c2] = g->stamp;
						g->next[nnext++] = c2;
					}
				}
			}
		}
		if (covered + nnext == g->m) {
			/* all reached: the candidates are those this last level added */
			for (uint32_t i = 0; i < nnext; i++)
				g->cstamp[g->next[i]] = 0;
			break;
		}
		covered += nnext;
		memcpy(g->front, g->next, nnext * sizeof(uint32_t));
		nfront = nnext;
	}
	for (uint32_t c = 0; c < g->m; c++) {
		if (g->cstamp[c] >= prev_stamp || g->deg[c] >= g->cap)
			continue;
		if (g->deg[c] < mindeg) {
			mindeg = g->deg[c];
			ncand = 0;
		}
		if (g->deg[c] == mindeg)
			g->cand[ncand++] = c;
	}
	return ncand ? g->cand[rand_below(p, ncand)] : UINT32_MAX;
}

int ldpc__gen_peg(uint32_t n, unsigned dv, unsigned dc, uint32_t seed, struct ldpc_code **out,
                  char *err, size_t errlen)
{
	struct peg g = {.n = n, .dv = dv};
	struct fec_prng p;
	char name[96];
	int ret = -FEC_ENOMEM;

	*out = NULL;
	if (dc == 0)
		dc = 2 * dv;
	if (dv < 1 || dc <= dv || dc > LDPC_DEG_MAX || n < dc || n > LDPC_N_MAX)
		return gen_range(err, errlen,
		                 "peg: n=%u, dv=%u, dc=%u; expected 1 <= dv < dc <= 256, dc <= n "
		                 "<= 2^20",
		                 n, dv, dc);
	/* dc sets the rate: m = n * dv / dc checks, rounded up. */
	g.m = (uint32_t)(((uint64_t)n * dv + dc - 1) / dc);
	g.cap = dc + 2 + dc / 2 > LDPC_DEG_MAX ? LDPC_DEG_MAX : dc + 2 + dc / 2;
	g.col_rows = malloc((size_t)n * dv * sizeof(uint32_t));
	g.ncol = calloc(n, sizeof(uint32_t));
	g.vstamp = calloc(n, sizeof(uint32_t));
	g.row_cols = malloc((size_t)g.m * g.cap * sizeof(uint32_t));
	g.deg = calloc(g.m, sizeof(uint32_t));
	g.cstamp = calloc(g.m, sizeof(uint32_t));
	g.front = malloc((size_t)g.m * sizeof(uint32_t));
	g.next = malloc((size_t)g.m * sizeof(uint32_t));
	g.cand = malloc((size_t)g.m * sizeof(uint32_t));
	if (!g.col_rows || !g.ncol || !g.vstamp || !g.row_cols || !g.deg || !g.cstamp || !g.front ||
	    !g.next || !g.cand)
		goto out_free;
	fec_prng_seed(&p, seed);
	for (uint32_t v = 0; v < n; v++) {
		/* Each variable costs a pass over every check: look at the deadline each time. */
		if (fec__build_expired()) {
			ret = gen_expired(err, errlen, "peg", n);
			goto out_free;
		}
		for (unsigned j = 0; j < dv; j++) {
			uint32_t c = peg_pick(&g, &p, v);

			if (c == UINT32_MAX) {
				ret =
				    gen_range(err, errlen,
				              "peg: n=%u, dv=%u, dc=%u leaves no check for an edge",
				              n, dv, dc);
				goto out_free;
			}
			g.col_rows[(size_t)v * dv + g.ncol[v]++] = c;
			g.row_cols[(size_t)c * g.cap + g.deg[c]++] = v;
		}
	}
	snprintf(name, sizeof(name), "peg n=%u m=%u dv=%u seed=%u", n, g.m, dv, seed);
	ret = gen_finish(name, n, g.m, dv, g.col_rows, out, err, errlen);
out_free:
	free(g.col_rows);
	free(g.ncol);
	free(g.vstamp);
	free(g.row_cols);
	free(g.deg);
	free(g.cstamp);
	free(g.front);
	free(g.next);
	free(g.cand);
	return ret;
}
