/*
 * The fast GPU LDPC kernel's order of the layered walk. The decoder's layers (codec/ldpc/ldpc.h:
 * first fit in row order) are what the arithmetic is defined by, but what the result depends on is
 * only, for every column, the order of the rows that update it: any order of the rows that keeps
 * those per-column sequences gives the same values bit for bit. The rows form a graph (each row
 * after the previous row of each of its columns); list scheduling on it fills levels of exactly
 * `cap` rows (the thread block's size) while the graph allows, taking first the rows with the
 * longest chain still after them. ldpc_gpu.cu takes levels of two steps (2 x the block's
 * threads): DVB-S2 r1/2's 18 layers of 3416 .. 360 rows become 21 levels, every thread two rows
 * in each, 3% faster than the layers' 40 steps on the H100 (levels of one step, 1024 rows, were
 * 8% slower on the H200: one row per level leaves nothing to overlap a row's loads with before
 * the barrier). FECD_LDPC_GPU_LEVEL_ROWS=N sets the cap, 0 walks the layers themselves.
 */
#include <stdlib.h>

#include "ldpc_gpu_sched.h"

/* A max-heap of positions by (height, then lower position first). */
struct heap {
	uint32_t *a, len;
	const uint32_t *h;
};

static int before(const struct heap *q, uint32_t x, uint32_t y)
{
	return q->h[x] != q->h[y] ? q->h[x] > q->h[y] : x < y;
}

static void heap_push(struct heap *q, uint32_t x)
{
	uint32_t i = q->len++;

	while (i > 0 && before(q, x, q->a[(i - 1) / 2])) {
		q->a[i] = q->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->a[i] = x;
}

static uint32_t heap_pop(struct heap *q)
{
	const uint32_t top = q->a[0], x = q->a[--q->len];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= q->len)
			break;
		if (c + 1 < q->len && before(q, q->a[c + 1], q->a[c]))
			c++;
		if (!before(q, q->a[c], x))
			break;
		q->a[i] = q->a[c];
		i = c;
	}
	if (q->len)
		q->a[i] = x;
	return top;
}

int lgpu_reschedule(const uint32_t *sched_start, const uint32_t *sched_col, uint32_t m, uint32_t n,
                    uint32_t cap, uint32_t *order, uint32_t *level_start, uint32_t *nlevels)
{
	const uint32_t nnz = sched_start[m];
	uint32_t *last = malloc((size_t)n * sizeof(*last));
	uint32_t *succ_start = calloc((size_t)m + 1, sizeof(*succ_start));
	uint32_t *succ = malloc(((size_t)nnz + 1) * sizeof(*succ));
	uint32_t *indeg = calloc(m, sizeof(*indeg)), *height = calloc(m, sizeof(*height));
	uint32_t *fill = NULL, *next = NULL;
	struct heap q = {malloc(((size_t)m + 1) * sizeof(uint32_t)), 0, height};
	int rc = -1;

	if (!last || !succ_start || !succ || !indeg || !height || !q.a)
		goto out;
	/* Edges: the previous row of each column to this row (twice if two columns agree). */
	for (uint32_t v = 0; v < n; v++)
		last[v] = UINT32_MAX;
	for (uint32_t p = 0; p < m; p++)
		for (uint32_t e = sched_start[p]; e < sched_start[p + 1]; e++) {
			const uint32_t v = sched_col[e];

			if (last[v] != UINT32_MAX) {
				succ_start[last[v] + 1]++;
				indeg[p]++;
			}
			last[v] = p;
		}
	for (uint32_t p = 0; p < m; p++)
		succ_start[p + 1] += succ_start[p];
	fill = malloc(((size_t)m + 1) * sizeof(*fill));
	next = malloc(((size_t)m + 1) * sizeof(*next));
	if (!fill || !next)
		goto out;
	for (uint32_t p = 0; p <= m; p++)
		fill[p] = succ_start[p];
	for (uint32_t v = 0; v < n; v++)
		last[v] = UINT32_MAX;
	for (uint32_t p = 0; p < m; p++)
		for (uint32_t e = sched_start[p]; e < sched_start[p + 1]; e++) {
			const uint32_t v = sched_col[e];

			if (last[v] != UINT32_MAX)
				succ[fill[last[v]]++] = p;
			last[v] = p;
		}
	/* Height: rows on the longest chain after this one, itself included. */
	for (uint32_t p = m; p-- > 0;) {
		uint32_t h = 0;

		for (uint32_t i = succ_start[p]; i < succ_start[p + 1]; i++)
			if (height[succ[i]] > h)
				h = height[succ[i]];
		height[p] = h + 1;
	}
	/* Levels: up to cap of the ready rows each; rows they release wait for the next level. */
	for (uint32_t p = 0; p < m; p++)
		if (!indeg[p])
			heap_push(&q, p);
	uint32_t placed = 0, levels = 0;
	while (q.len) {
		uint32_t take = q.len < cap ? q.len : cap, nn = 0;

		level_start[levels++] = placed;
		for (uint32_t i = 0; i < take; i++)
			order[placed++] = heap_pop(&q);
		for (uint32_t i = placed - take; i < placed; i++)
			for (uint32_t s = succ_start[order[i]]; s < succ_start[order[i] + 1]; s++)
				if (--indeg[succ[s]] == 0)
					next[nn++] = succ[s];
		for (uint32_t i = 0; i < nn; i++)
			heap_push(&q, next[i]);
	}
	level_start[levels] = placed;
	*nlevels = levels;
	rc = placed == m ? 0 : -1;
out:
	free(last);
	free(succ_start);
	free(succ);
	free(indeg);
	free(height);
	free(fill);
	free(next);
	free(q.a);
	return rc;
}
