/*
 * Parity-check matrices from text in MacKay's alist format, read with the codec's line reader
 * (textfile.h; ldpc_qc.c reads the quasi-cyclic ones). Every complaint names the file, the 1-based
 * line and what was expected there, since these files are edited by hand; what was found is
 * described by its kind, never quoted, and no value read from the file is repeated (a path may name
 * a file that is no code): expectations that come from earlier lines name the line they come from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fec.h"
#include "ldpc_code_impl.h"
#include "textfile.h"

/* ---- alist ---- */

/* One column's (or row's) list: the nonzero entries, zeros being padding; exactly want of them
 * (its weight, given on line wline), each in 1..hi (the size on line 1), no repeats. idx gets
 * them 0-based. */
static int alist_list(struct fec__text_reader *rd, uint32_t *idx, uint32_t want, long hi,
                      const char *what, const char *of, uint32_t which, unsigned wline,
                      uint8_t *seen)
{
	uint32_t got = 0;
	long v;
	int r;

	if (!fec__text_next_line(rd))
		return ldpc__err(rd->err, rd->errlen,
		                 "%s:%u: expected the %s indices of %s %u, found end of file",
		                 rd->name, rd->line, what, of, which + 1);
	while ((r = fec__text_next_num(rd, &v)) == 1) {
		if (v == 0)
			continue;
		if (v < 0 || v > hi) {
			r = ldpc__err(rd->err, rd->errlen,
			              "%s:%u: %s %u: expected %s indices in 1..%s (line 1) or 0, "
			              "found %s",
			              rd->name, rd->line, of, which + 1, what,
			              *what == 'r' ? "M" : "N", fec__text_range_miss(v, 0));
			goto out_clear;
		}
		if (got < want) {
			if (seen[v - 1]) {
				r = ldpc__err(
				    rd->err, rd->errlen,
				    "%s:%u: %s %u: expected each %s once, found one twice",
				    rd->name, rd->line, of, which + 1, what);
				goto out_clear;
			}
			seen[v - 1] = 1;
			idx[got] = (uint32_t)(v - 1);
		}
		got++;
	}
	if (r == 0 && got != want)
		r = ldpc__err(rd->err, rd->errlen,
		              "%s:%u: %s %u: expected as many %s indices as its weight on line %u, "
		              "found %s",
		              rd->name, rd->line, of, which + 1, what, wline,
		              got < want ? "fewer" : "more");
out_clear:
	for (uint32_t i = 0; i < got && i < want; i++)
		seen[idx[i]] = 0;
	return r;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int ldpc_alist_parse(const char *text, const char *name, struct ldpc_code **out, char *err,
                     size_t errlen)
{
	struct fec__text_reader rd;
	long hdr[2], maxw[2], v;
	uint32_t n, m, *cw = NULL, *rw = NULL, *erow = NULL, *ecol = NULL, list[LDPC_DEG_MAX];
	uint8_t *seen = NULL;
	size_t nnz = 0, rsum = 0;
	struct ldpc_code *c = NULL;
	unsigned wline[2];
	int ret;

	*out = NULL;
	fec__text_init(&rd, text, name, err, errlen);
	ret = fec__text_line_nums(&rd, hdr, 2, 1, LDPC_N_MAX, "2 sizes 'N M' (columns rows)",
	                          "a size in 1..1048576");
	if (ret)
		return ret;
	n = (uint32_t)hdr[0];
	m = (uint32_t)hdr[1];
	ret = fec__text_line_nums(&rd, maxw, 2, 1, LDPC_DEG_MAX, "2 maximum weights 'column row'",
	                          "a weight in 1..256");
	if (ret)
		return ret;
	cw = malloc((size_t)n * sizeof(*cw));
	rw = malloc((size_t)m * sizeof(*rw));
	seen = calloc(n > m ? n : m, 1);
	ret = -FEC_ENOMEM;
	if (!cw || !rw || !seen)
		goto out_free;

	/* the two weight lines, read number by number: N of them can be long */
	for (int side = 0; side < 2; side++) {
		uint32_t want = side ? m : n, got = 0, *w = side ? rw : cw;
		const char *what = side ? "a weight for each row (M on line 1)"
		                        : "a weight for each column (N on line 1)";

		if (!fec__text_next_line(&rd)) {
			ret = ldpc__err(err, errlen, "%s:%u: expected %s, found end of file", name,
			                rd.line, what);
			goto out_free;
		}
		while ((ret = fec__text_next_num(&rd, &v)) == 1) {
			if (got < want) {
				if (v < 1 || v > maxw[side]) {
					ret = ldpc__err(err, errlen,
					                "%s:%u: %s %u: expected a weight from 1 to "
					                "the maximum %s weight on line 2, found %s",
					                name, rd.line, side ? "row" : "column",
					                got + 1, side ? "row" : "column",
					                fec__text_range_miss(v, 1));
					goto out_free;
				}
				w[got] = (uint32_t)v;
				if (side)
					rsum += (size_t)v;
				else
					nnz += (size_t)v;
			}
			got++;
		}
		if (ret < 0)
			goto out_free;
		if (got != want) {
			ret = ldpc__err(err, errlen, "%s:%u: expected %s, found %u number%s", name,
			                rd.line, what, got, got == 1 ? "" : "s");
			goto out_free;
		}
		wline[side] = rd.line;
	}
	if (rsum != nnz) {
		ret = ldpc__err(err, errlen,
		                "%s:%u: expected row weights with the same sum as the column "
		                "weights on line %u, found a different sum",
		                name, wline[1], wline[0]);
		goto out_free;
	}
	erow = malloc(nnz * sizeof(*erow));
	ecol = malloc(nnz * sizeof(*ecol));
	ret = -FEC_ENOMEM;
	if (!erow || !ecol)
		goto out_free;
	nnz = 0;
	for (uint32_t j = 0; j < n; j++) {
		ret = alist_list(&rd, list, cw[j], m, "row", "column", j, wline[0], seen);
		if (ret)
			goto out_free;
		for (uint32_t i = 0; i < cw[j]; i++) {
			erow[nnz] = list[i];
			ecol[nnz++] = j;
		}
	}
	ret = ldpc__code_from_edges(name, n, m, erow, ecol, nnz, &c, err, errlen);
	if (ret)
		goto out_free;
	/* The row lists must describe the same matrix as the column lists. */
	for (uint32_t r = 0; r < m; r++) {
		const uint32_t *have = c->h.row_col + c->h.row_start[r];
		uint32_t deg = c->h.row_start[r + 1] - c->h.row_start[r];

		ret = alist_list(&rd, list, rw[r], n, "column", "row", r, wline[1], seen);
		if (ret)
			goto out_free;
		if (deg != rw[r]) {
			ret = ldpc__err(err, errlen,
			                "%s:%u: row %u: expected the column lists to name it as "
			                "often as its weight on line %u, found them naming it %s",
			                name, rd.line, r + 1, wline[1],
			                deg < rw[r] ? "less" : "more");
			goto out_free;
		}
		qsort(list, deg, sizeof(list[0]), cmp_u32);
		for (uint32_t i = 0; i < deg; i++)
			if (list[i] != have[i]) {
				/* have[i] is a column by its place in the file, list[i] a value */
				if (have[i] < list[i])
					ret = ldpc__err(
					    err, errlen,
					    "%s:%u: row %u: column %u lists it but this "
					    "line does not list column %u",
					    name, rd.line, r + 1, have[i] + 1, have[i] + 1);
				else
					ret = ldpc__err(
					    err, errlen,
					    "%s:%u: row %u: this line lists a column whose "
					    "list does not name row %u",
					    name, rd.line, r + 1, r + 1);
				goto out_free;
			}
	}
	ret = ldpc__code_finish(c, NULL, err, errlen);
	if (ret)
		goto out_free;
	*out = c;
	c = NULL;
out_free:
	ldpc_code_free(c);
	free(cw);
	free(rw);
	free(seen);
	free(erow);
	free(ecol);
	return ret;
}
