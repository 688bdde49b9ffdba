/*
 * The sparse systematic encoder over GF(q), for codes too large for the dense elimination of
 * nbldpc_code.c (the seed's GF64_5040: 840 x 1680 symbols would take about a second that way,
 * GF64_32400 minutes). It works as an erasure decoder with inactivation, as the ldpc family's
 * does over GF(2): the last m columns are the unknowns (parity); a check with one unknown left
 * determines it ("peeling", which orders H's parity part lower triangular); when no check has
 * one, an unknown is set aside as a symbol ("inactivated") and peeling goes on. The checks left
 * over give a g x g system over the g inactivated symbols (the "gap"), inverted once here.
 * Encoding is then: peel with the inactivated symbols 0, solve the gap from the left-over checks'
 * sums, peel again with them: O(nnz + g^2) a word.
 *
 * It applies when H's last m columns are independent (full rank, parity last): the information
 * symbols are then columns 0..k-1 and the codewords are exactly those of the dense encoder. The
 * family's generated codes are built so (their parity part is a zigzag, nbldpc_gen.c), with a
 * gap of 1; BeiDou's files are too. Otherwise nbldpc__enc_plan_build says no and the dense
 * elimination chooses other parity columns.
 */
#include <stdlib.h>
#include <string.h>

#include "fec_impl.h"
#include "nbldpc.h"

struct nbldpc_enc_plan {
	uint32_t npeel;
	uint32_t *peel_row, *peel_col; /* peel_row[i] determines peel_col[i], in this order */
	uint32_t g;
	uint32_t *inact_col, *left_row; /* g each */
	uint8_t *ainv;                  /* g x g: inactivated values from left-over sums */
	uint32_t *erow;                 /* each edge's row */
};

void nbldpc__enc_plan_free(struct nbldpc_enc_plan *p)
{
	if (!p)
		return;
	free(p->peel_row);
	free(p->peel_col);
	free(p->inact_col);
	free(p->left_row);
	free(p->ainv);
	free(p->erow);
	free(p);
}

void nbldpc__enc_plan_view(const struct nbldpc_enc_plan *p, struct nbldpc_enc_plan_view *v)
{
	v->npeel = p->npeel;
	v->g = p->g;
	v->peel_row = p->peel_row;
	v->peel_col = p->peel_col;
	v->inact_col = p->inact_col;
	v->left_row = p->left_row;
	v->ainv = p->ainv;
}

/* Fills cw's peeled columns in order from its information and inactivated ones. */
static void peel_pass(const struct nbldpc_code *c, const struct nbldpc_enc_plan *p, uint8_t *cw)
{
	const struct nbldpc_gf *gf = &c->gf;

	for (uint32_t i = 0; i < p->npeel; i++) {
		const uint32_t r = p->peel_row[i], v = p->peel_col[i];
		uint8_t s = 0, hv = 1;

		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			if (c->row_col[e] == v)
				hv = c->row_val[e];
			else
				s ^= nbldpc_gf_mul(gf, c->row_val[e], cw[c->row_col[e]]);
		cw[v] = nbldpc_gf_div(gf, s, hv);
	}
}

static uint8_t row_sum(const struct nbldpc_code *c, uint32_t r, const uint8_t *cw)
{
	uint8_t s = 0;

	for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
		s ^= nbldpc_gf_mul(&c->gf, c->row_val[e], cw[c->row_col[e]]);
	return s;
}

void nbldpc__enc_plan_encode(const struct nbldpc_code *c, const struct nbldpc_enc_plan *p,
                             const uint8_t *info, uint8_t *cw)
{
	uint8_t s[NBLDPC_N_MAX];

	memcpy(cw, info, c->k); /* information symbols are columns 0..k-1 */
	memset(cw + c->k, 0, c->n - c->k);
	peel_pass(c, p, cw);
	if (!p->g)
		return;
	for (uint32_t j = 0; j < p->g; j++)
		s[j] = row_sum(c, p->left_row[j], cw);
	for (uint32_t i = 0; i < p->g; i++) {
		uint8_t x = 0;

		for (uint32_t j = 0; j < p->g; j++)
			x ^= nbldpc_gf_mul(&c->gf, p->ainv[(size_t)i * p->g + j], s[j]);
		cw[p->inact_col[i]] = x;
	}
	peel_pass(c, p, cw);
}

/* Inverts the g x g matrix a (row-major) into inv by Gauss-Jordan; false when singular, or past
 * the build deadline (the dense elimination the caller turns to then says so). */
static bool invert(const struct nbldpc_gf *gf, uint8_t *a, uint8_t *inv, uint32_t g)
{
	memset(inv, 0, (size_t)g * g);
	for (uint32_t i = 0; i < g; i++)
		inv[(size_t)i * g + i] = 1;
	for (uint32_t col = 0; col < g; col++) {
		uint32_t piv = col;
		uint8_t f;

		if (col % 64 == 0 && fec__build_expired())
			return false;
		while (piv < g && !a[(size_t)piv * g + col])
			piv++;
		if (piv == g)
			return false;
		for (uint32_t j = 0; j < g; j++) {
			uint8_t t = a[(size_t)piv * g + j];

			a[(size_t)piv * g + j] = a[(size_t)col * g + j];
			a[(size_t)col * g + j] = t;
			t = inv[(size_t)piv * g + j];
			inv[(size_t)piv * g + j] = inv[(size_t)col * g + j];
			inv[(size_t)col * g + j] = t;
		}
		f = nbldpc_gf_div(gf, 1, a[(size_t)col * g + col]);
		for (uint32_t j = 0; j < g; j++) {
			a[(size_t)col * g + j] = nbldpc_gf_mul(gf, a[(size_t)col * g + j], f);
			inv[(size_t)col * g + j] = nbldpc_gf_mul(gf, inv[(size_t)col * g + j], f);
		}
		for (uint32_t o = 0; o < g; o++) {
			const uint8_t h = a[(size_t)o * g + col];

			if (o == col || !h)
				continue;
			for (uint32_t j = 0; j < g; j++) {
				a[(size_t)o * g + j] ^=
				    nbldpc_gf_mul(gf, h, a[(size_t)col * g + j]);
				inv[(size_t)o * g + j] ^=
				    nbldpc_gf_mul(gf, h, inv[(size_t)col * g + j]);
			}
		}
	}
	return true;
}

enum col_state { COL_INFO, COL_ACTIVE, COL_PEELED, COL_INACTIVE };

/* The largest gap inverted: Gauss-Jordan takes about g^3 table look-ups, a second at 1024. */
#define NBLDPC_GAP_MAX 1024u

/* The peeling order and the inactivated symbols; 0 and *out NULL when the last m columns are not
 * independent (the caller eliminates densely), -FEC_ETIME past the build deadline. */
static int plan_order(const struct nbldpc_code *c, struct nbldpc_enc_plan *p, uint8_t *state,
                      uint32_t *cnt, uint8_t *used, uint32_t *queue)
{
	const uint32_t k0 = c->n - c->m;
	uint32_t qh = 0, qt = 0, nactive = c->m;

	for (uint32_t v = 0; v < c->n; v++)
		state[v] = v < k0 ? COL_INFO : COL_ACTIVE;
	for (uint32_t r = 0; r < c->m; r++) {
		cnt[r] = 0;
		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			cnt[r] += state[c->row_col[e]] == COL_ACTIVE;
		if (cnt[r] == 1)
			queue[qt++] = r;
	}
	while (nactive) {
		uint32_t v = UINT32_MAX;

		if (qh == qt) {
			/* stuck: set aside an active column of the unused check with the fewest */
			uint32_t best = UINT32_MAX, br = 0;

			if (fec__build_expired())
				return -FEC_ETIME;
			for (uint32_t r = 0; r < c->m; r++)
				if (!used[r] && cnt[r] >= 2 && cnt[r] < best) {
					best = cnt[r];
					br = r;
				}
			if (best == UINT32_MAX)
				return 0; /* active columns in no unused check: dependent */
			for (uint32_t e = c->row_start[br]; e < c->row_start[br + 1]; e++)
				if (state[c->row_col[e]] == COL_ACTIVE)
					v = c->row_col[e];
			state[v] = COL_INACTIVE;
			p->inact_col[p->g++] = v;
		} else {
			const uint32_t r = queue[qh++];

			if (used[r] || cnt[r] != 1)
				continue;
			for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
				if (state[c->row_col[e]] == COL_ACTIVE)
					v = c->row_col[e];
			used[r] = 1;
			state[v] = COL_PEELED;
			p->peel_row[p->npeel] = r;
			p->peel_col[p->npeel++] = v;
		}
		nactive--;
		for (uint32_t k = c->col_start[v]; k < c->col_start[v + 1]; k++) {
			const uint32_t r = p->erow[c->col_edge[k]];

			if (--cnt[r] == 1 && !used[r])
				queue[qt++] = r;
		}
	}
	for (uint32_t r = 0, j = 0; r < c->m; r++)
		if (!used[r]) {
			if (j == p->g)
				return 0; /* more checks left than symbols set aside: rank below m
				           */
			p->left_row[j++] = r;
		}
	return 1;
}

int nbldpc__enc_plan_build(const struct nbldpc_code *c, struct nbldpc_enc_plan **out)
{
	struct nbldpc_enc_plan *p = calloc(1, sizeof(*p));
	uint8_t *state = malloc(c->n), *used = calloc(c->m, 1), *a = NULL, *cw = NULL;
	uint32_t *cnt = malloc(c->m * sizeof(uint32_t)), *queue = NULL;
	int ret = -FEC_ENOMEM;

	*out = NULL;
	if (!p || !state || !used || !cnt)
		goto out;
	p->peel_row = malloc(c->m * sizeof(uint32_t));
	p->peel_col = malloc(c->m * sizeof(uint32_t));
	p->inact_col = malloc(c->m * sizeof(uint32_t));
	p->left_row = malloc(c->m * sizeof(uint32_t));
	p->erow = malloc(((size_t)c->nnz + 1) * sizeof(uint32_t));
	/* a check enters the queue each time its count drops to 1, once at the start */
	queue = malloc(((size_t)c->nnz + c->m) * sizeof(uint32_t));
	if (!p->peel_row || !p->peel_col || !p->inact_col || !p->left_row || !p->erow || !queue)
		goto out;
	for (uint32_t r = 0; r < c->m; r++)
		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			p->erow[e] = r;
	ret = plan_order(c, p, state, cnt, used, queue);
	if (ret <= 0)
		goto out;
	if (p->g > NBLDPC_GAP_MAX) {
		ret = 0; /* peeling barely helped: as slow as the dense elimination, and larger */
		goto out;
	}
	/* column i of the gap matrix: the left-over sums when inactivated symbol i is 1 */
	a = malloc((size_t)p->g * p->g + 1);
	p->ainv = malloc((size_t)p->g * p->g + 1);
	cw = calloc(c->n, 1);
	ret = -FEC_ENOMEM;
	if (!a || !p->ainv || !cw)
		goto out;
	for (uint32_t i = 0; i < p->g; i++) {
		if (fec__build_expired()) {
			ret = -FEC_ETIME;
			goto out;
		}
		memset(cw, 0, c->n);
		cw[p->inact_col[i]] = 1;
		peel_pass(c, p, cw);
		for (uint32_t j = 0; j < p->g; j++)
			a[(size_t)j * p->g + i] = row_sum(c, p->left_row[j], cw);
	}
	ret = invert(&c->gf, a, p->ainv, p->g) ? 1 : 0;
out:
	free(state);
	free(used);
	free(cnt);
	free(queue);
	free(a);
	free(cw);
	if (ret == 1) {
		*out = p;
		return 0;
	}
	nbldpc__enc_plan_free(p);
	return ret;
}
