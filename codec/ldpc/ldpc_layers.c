/*
 * The decoders' layers, and the cyclic structure the single-frame SIMD decoder walks: for QC codes
 * the block rows; for codes built like DVB-S2 (groups of 360 information columns, a staircase of
 * parity columns, rows r, r+q, r+2q... forming one group), the row groups found in the matrix
 * itself, split where a group's rows share a column and packed by first fit; else a first fit of
 * single rows. ldpc.h states the rule; the decoders only follow code->layers.
 */
#include <stdlib.h>
#include <string.h>

#include "fec.h"
#include "fec_impl.h"
#include "ldpc_code_impl.h"

/* DVB-S2's parallelism: 360 columns per information group, 360 rows per row group. */
#define DVBS2_Z 360
/* Units placed between looks at the build deadline (fec_build_deadline_set). */
#define CHECK_EVERY 1024

/* A layering input: units (runs of rows) that must stay together, in the order they are placed. */
struct units {
	uint32_t count;
	uint32_t *start; /* count + 1, into rows */
	uint32_t *rows;
};

/* First fit: each unit joins the first layer none of whose rows shares a column with it. Units of
 * one row each give the plain greedy layering. -FEC_ETIME past the build deadline. */
static int first_fit(struct ldpc_code *c, const struct units *u)
{
	const struct ldpc_matrix *h = &c->h;
	uint32_t *layer_of = malloc(((size_t)u->count + 1) * sizeof(uint32_t));
	/* layers each column already belongs to, at most its degree */
	uint32_t *col_layers = malloc((h->nnz ? h->nnz : 1) * sizeof(uint32_t));
	uint32_t *col_fill = calloc(h->n, sizeof(uint32_t));
	uint32_t *stamp = calloc((size_t)h->m + 1, sizeof(uint32_t));
	uint32_t *count = calloc((size_t)h->m + 1, sizeof(uint32_t));
	uint32_t nl = 0;
	int ret = -FEC_ENOMEM;

	if (!layer_of || !col_layers || !col_fill || !stamp || !count)
		goto out_free;
	for (uint32_t i = 0; i < u->count; i++) {
		uint32_t l = 0;

		if (i % CHECK_EVERY == 0 && fec__build_expired()) {
			ret = -FEC_ETIME;
			goto out_free;
		}
		for (uint32_t j = u->start[i]; j < u->start[i + 1]; j++) {
			const uint32_t r = u->rows[j];

			for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
				const uint32_t v = h->row_col[e];

				for (uint32_t f = 0; f < col_fill[v]; f++)
					stamp[col_layers[h->col_start[v] + f]] = i + 1;
			}
		}
		while (l < nl && stamp[l] == i + 1)
			l++;
		if (l == nl)
			nl++;
		layer_of[i] = l;
		count[l] += u->start[i + 1] - u->start[i];
		for (uint32_t j = u->start[i]; j < u->start[i + 1]; j++) {
			const uint32_t r = u->rows[j];

			for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
				col_layers[h->col_start[h->row_col[e]] + col_fill[h->row_col[e]]++] = l;
		}
	}
	c->nlayers = nl;
	c->layer_start = calloc((size_t)nl + 1, sizeof(uint32_t));
	c->layer_rows = malloc(((size_t)h->m + 1) * sizeof(uint32_t));
	if (!c->layer_start || !c->layer_rows)
		goto out_free;
	for (uint32_t l = 0; l < nl; l++)
		c->layer_start[l + 1] = c->layer_start[l] + count[l];
	memset(count, 0, ((size_t)h->m + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < u->count; i++)
		for (uint32_t j = u->start[i]; j < u->start[i + 1]; j++)
			c->layer_rows[c->layer_start[layer_of[i]] + count[layer_of[i]]++] = u->rows[j];
	ret = 0;
out_free:
	free(layer_of);
	free(col_layers);
	free(col_fill);
	free(stamp);
	free(count);
	return ret;
}

static int layers_rows(struct ldpc_code *c)
{
	struct units u = {.count = c->h.m};
	int ret = -FEC_ENOMEM;

	u.start = malloc(((size_t)c->h.m + 1) * sizeof(uint32_t));
	u.rows = malloc(((size_t)c->h.m + 1) * sizeof(uint32_t));
	if (u.start && u.rows) {
		for (uint32_t r = 0; r <= c->h.m; r++)
			u.start[r] = u.rows[r] = r;
		ret = first_fit(c, &u);
	}
	free(u.start);
	free(u.rows);
	return ret;
}

/* QC codes: block row b is layer b (a circulant per block puts each column in one row of it). */
static int layers_blocks(struct ldpc_code *c)
{
	uint32_t m = c->h.m, z = c->z;

	c->nlayers = m / z;
	c->layer_start = malloc(((size_t)c->nlayers + 1) * sizeof(uint32_t));
	c->layer_rows = malloc((size_t)m * sizeof(uint32_t));
	if (!c->layer_start || !c->layer_rows)
		return -FEC_ENOMEM;
	for (uint32_t l = 0; l <= c->nlayers; l++)
		c->layer_start[l] = l * z;
	for (uint32_t r = 0; r < m; r++)
		c->layer_rows[r] = r;
	return 0;
}

void ldpc__cyclic_free(struct ldpc_cyclic *cy)
{
	if (!cy)
		return;
	free(cy->col_pos);
	free(cy->slot_start);
	free(cy->slot_block);
	free(cy->slot_shift);
	free(cy->short_rows);
	free(cy);
}

static bool row_has(const struct ldpc_matrix *h, uint32_t r, uint32_t v)
{
	for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
		if (h->row_col[e] == v)
			return true;
	return false;
}

/* Derives each group's slots from its row t = 1 and checks that every row follows them (a row
 * may lack slots: it is listed short). cy->z, ngroups, row_gstep, row_tstep and col_pos are set.
 * False when the matrix does not have this structure. */
static bool cyclic_slots(const struct ldpc_code *c, struct ldpc_cyclic *cy)
{
	const struct ldpc_matrix *h = &c->h;
	const uint32_t z = cy->z;
	uint32_t nslots = 0, nshort = 0;

	cy->slot_start = malloc(((size_t)cy->ngroups + 1) * sizeof(uint32_t));
	cy->slot_block = malloc(((size_t)h->nnz + 1) * sizeof(uint32_t));
	cy->slot_shift = malloc(((size_t)h->nnz + 1) * sizeof(uint32_t));
	cy->short_rows = malloc(((size_t)h->m + 1) * sizeof(uint32_t));
	if (!cy->slot_start || !cy->slot_block || !cy->slot_shift || !cy->short_rows || z < 2)
		return false;
	for (uint32_t g = 0; g < cy->ngroups; g++) {
		const uint32_t ref = ldpc_cyclic_row(cy, g, 1), first = nslots;

		cy->slot_start[g] = nslots;
		for (uint32_t e = h->row_start[ref]; e < h->row_start[ref + 1]; e++) {
			const uint32_t p = cy->col_pos[h->row_col[e]];

			cy->slot_block[nslots] = p / z;
			cy->slot_shift[nslots++] = (p % z + z - 1) % z;
		}
		for (uint32_t t = 0; t < z; t++) {
			const uint32_t r = ldpc_cyclic_row(cy, g, t);
			const uint32_t deg = h->row_start[r + 1] - h->row_start[r];

			if (deg > nslots - first)
				return false;
			for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
				const uint32_t p = cy->col_pos[h->row_col[e]];
				uint32_t s = first;

				while (s < nslots && p != ldpc_cyclic_pos(cy, s, t))
					s++;
				if (s == nslots)
					return false;
			}
			if (deg < nslots - first)
				cy->short_rows[nshort++] = r;
		}
	}
	cy->slot_start[cy->ngroups] = nslots;
	cy->nshort = nshort;
	return true;
}

/* The DVB-S2 form: with q = m / 360, the last m columns a staircase (row r holds parity column
 * r and, past row 0, r - 1), rows g, g + q, g + 2q... a group; parity column i sits at position
 * (i mod q) * 360 + i / q of the parity part, so that each group's rows meet it in circulants. */
static struct ldpc_cyclic *cyclic_dvbs2(const struct ldpc_code *c)
{
	const struct ldpc_matrix *h = &c->h;
	const uint32_t z = DVBS2_Z;
	struct ldpc_cyclic *cy;
	uint32_t kk, q;

	if (h->m < z || h->m % z || h->n <= h->m || (h->n - h->m) % z)
		return NULL;
	kk = h->n - h->m;
	q = h->m / z;
	for (uint32_t r = 0; r < h->m; r++)
		if (!row_has(h, r, kk + r) || (r && !row_has(h, r, kk + r - 1)))
			return NULL;
	cy = calloc(1, sizeof(*cy));
	if (!cy)
		return NULL;
	cy->z = z;
	cy->ngroups = q;
	cy->row_gstep = 1;
	cy->row_tstep = q;
	cy->col_pos = malloc((size_t)h->n * sizeof(uint32_t));
	if (cy->col_pos) {
		for (uint32_t v = 0; v < kk; v++)
			cy->col_pos[v] = v;
		for (uint32_t i = 0; i < h->m; i++)
			cy->col_pos[kk + i] = kk + (i % q) * z + i / q;
		if (cyclic_slots(c, cy))
			return cy;
	}
	ldpc__cyclic_free(cy);
	return NULL;
}

/* QC codes: block row g, row t of its circulants; columns in place. */
static struct ldpc_cyclic *cyclic_qc(const struct ldpc_code *c)
{
	struct ldpc_cyclic *cy = calloc(1, sizeof(*cy));

	if (!cy)
		return NULL;
	cy->z = c->z;
	cy->ngroups = c->h.m / c->z;
	cy->row_gstep = c->z;
	cy->row_tstep = 1;
	cy->col_pos = malloc((size_t)c->h.n * sizeof(uint32_t));
	if (cy->col_pos) {
		for (uint32_t v = 0; v < c->h.n; v++)
			cy->col_pos[v] = v;
		if (cyclic_slots(c, cy))
			return cy;
	}
	ldpc__cyclic_free(cy);
	return NULL;
}

/* The smallest cyclic distance between two rows of group g that share a column: two slots on one
 * block with shifts a and b put rows t and t + (a - b) on one column. z when none do. */
static uint32_t group_run_length(const struct ldpc_cyclic *cy, uint32_t g)
{
	uint32_t len = cy->z;

	for (uint32_t i = cy->slot_start[g]; i < cy->slot_start[g + 1]; i++)
		for (uint32_t j = i + 1; j < cy->slot_start[g + 1]; j++) {
			uint32_t d;

			if (cy->slot_block[i] != cy->slot_block[j])
				continue;
			d = (cy->slot_shift[i] + cy->z - cy->slot_shift[j]) % cy->z;
			if (cy->z - d < d)
				d = cy->z - d;
			if (d < len)
				len = d;
		}
	return len;
}

/* Each group in runs of consecutive rows t short enough that none of them share a column, placed
 * by first fit in group order. */
static int layers_cyclic(struct ldpc_code *c)
{
	const struct ldpc_cyclic *cy = c->cyc;
	struct units u = {0};
	int ret = -FEC_ENOMEM;

	u.start = malloc(((size_t)c->h.m + 1) * sizeof(uint32_t));
	u.rows = malloc(((size_t)c->h.m + 1) * sizeof(uint32_t));
	if (!u.start || !u.rows)
		goto out_free;
	for (uint32_t g = 0, i = 0; g < cy->ngroups; g++) {
		const uint32_t len = group_run_length(cy, g);

		for (uint32_t t = 0; t < cy->z; t++) {
			if (t % len == 0)
				u.start[u.count++] = i;
			u.rows[i++] = ldpc_cyclic_row(cy, g, t);
		}
	}
	u.start[u.count] = c->h.m;
	ret = first_fit(c, &u);
out_free:
	free(u.start);
	free(u.rows);
	return ret;
}

int ldpc__layers_build(struct ldpc_code *c)
{
	if (c->z && c->h.m % c->z == 0) {
		c->cyc = cyclic_qc(c);
		return layers_blocks(c);
	}
	c->cyc = cyclic_dvbs2(c);
	return c->cyc ? layers_cyclic(c) : layers_rows(c);
}
