/*
 * Parity-check matrices from text: reading files, lines of numbers, and MacKay's alist format
 * (ldpc_qc.c reads the quasi-cyclic ones). Every complaint names the file, the 1-based line and
 * what was expected there, since these files are edited by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fec.h"
#include "ldpc_code_impl.h"

#define LDPC_FILE_MAX (512u << 20)

int ldpc__read_file(const char *path, char **text, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return ldpc__err(err, errlen, "cannot open %s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || len > (long)LDPC_FILE_MAX ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return ldpc__err(err, errlen,
		                 "cannot read %s: not a regular file of at most %u bytes", path,
		                 LDPC_FILE_MAX);
	}
	buf = malloc((size_t)len + 1);
	if (!buf) {
		fclose(f);
		return -FEC_ENOMEM;
	}
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		return ldpc__err(err, errlen, "cannot read %s", path);
	}
	fclose(f);
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/* ---- Lines of numbers ---- */

void ldpc__reader_init(struct ldpc__reader *rd, const char *text, const char *name, char *err,
                       size_t errlen)
{
	memset(rd, 0, sizeof(*rd));
	rd->name = name;
	rd->p = text;
	rd->err = err;
	rd->errlen = errlen;
}

bool ldpc__is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

bool ldpc__next_line(struct ldpc__reader *rd)
{
	while (*rd->p) {
		const char *s = rd->p, *e = strchr(s, '\n');

		if (!e)
			e = s + strlen(s);
		rd->p = *e ? e + 1 : e;
		rd->line++;
		while (s < e && ldpc__is_blank(*s))
			s++;
		if (s == e || *s == '#')
			continue;
		rd->cur = s;
		rd->end = e;
		return true;
	}
	rd->line++; /* "the line after the last": where the missing one was expected */
	return false;
}

/* The next number on the current line: 1 found, 0 at the end of the line, or an error. Parsed
 * by hand: the DVB-S2 files hold half a million of them. */
static int next_num(struct ldpc__reader *rd, long *v)
{
	const char *s = rd->cur, *t;
	long x = 0;
	bool neg;

	while (s < rd->end && ldpc__is_blank(*s))
		s++;
	if (s == rd->end) {
		rd->cur = s;
		return 0;
	}
	t = s;
	neg = *t == '-' || *t == '+' ? *t++ == '-' : false;
	if (t == rd->end || *t < '0' || *t > '9')
		goto out_bad;
	while (t < rd->end && *t >= '0' && *t <= '9') {
		if (x > 100000000L)
			goto out_bad;
		x = x * 10 + (*t++ - '0');
	}
	if (t < rd->end && !ldpc__is_blank(*t))
		goto out_bad;
	rd->cur = t;
	*v = neg ? -x : x;
	return 1;

out_bad:
	t = s;
	while (t < rd->end && !ldpc__is_blank(*t))
		t++;
	return ldpc__err(rd->err, rd->errlen, "%s:%u: expected a number, found '%.*s'", rd->name,
	                 rd->line, (int)(t - s > 20 ? 20 : t - s), s);
}

int ldpc__line_nums(struct ldpc__reader *rd, long *vals, unsigned want, long lo, long hi,
                    const char *what)
{
	unsigned got = 0;
	long v;
	int r;

	if (!ldpc__next_line(rd))
		return ldpc__err(rd->err, rd->errlen, "%s:%u: expected %u %s, found end of file",
		                 rd->name, rd->line, want, what);
	while ((r = next_num(rd, &v)) == 1) {
		if (got < want) {
			if (v < lo || v > hi)
				return ldpc__err(rd->err, rd->errlen,
				                 "%s:%u: expected %s in %ld..%ld, found %ld",
				                 rd->name, rd->line, what, lo, hi, v);
			vals[got] = v;
		}
		got++;
	}
	if (r < 0)
		return r;
	if (got != want)
		return ldpc__err(rd->err, rd->errlen, "%s:%u: expected %u %s, found %u", rd->name,
		                 rd->line, want, what, got);
	return 0;
}

/* ---- alist ---- */

/* One column's (or row's) list: the nonzero entries, zeros being padding; exactly want of them,
 * each in 1..hi, no repeats. idx gets them 0-based. */
static int alist_list(struct ldpc__reader *rd, uint32_t *idx, uint32_t want, long hi,
                      const char *what, const char *of, uint32_t which, uint8_t *seen)
{
	uint32_t got = 0;
	long v;
	int r;

	if (!ldpc__next_line(rd))
		return ldpc__err(rd->err, rd->errlen,
		                 "%s:%u: expected %u %s indices for %s %u, found end of file",
		                 rd->name, rd->line, want, what, of, which + 1);
	while ((r = next_num(rd, &v)) == 1) {
		if (v == 0)
			continue;
		if (v < 0 || v > hi) {
			r = ldpc__err(rd->err, rd->errlen,
			              "%s:%u: %s index %ld for %s %u out of range 1..%ld", rd->name,
			              rd->line, what, v, of, which + 1, hi);
			goto out_clear;
		}
		if (got < want) {
			if (seen[v - 1]) {
				r = ldpc__err(rd->err, rd->errlen,
				              "%s:%u: %s %ld listed twice for %s %u", rd->name,
				              rd->line, what, v, of, which + 1);
				goto out_clear;
			}
			seen[v - 1] = 1;
			idx[got] = (uint32_t)(v - 1);
		}
		got++;
	}
	if (r == 0 && got != want)
		r = ldpc__err(rd->err, rd->errlen,
		              "%s:%u: expected %u %s indices for %s %u, found %u", rd->name,
		              rd->line, want, what, of, which + 1, got);
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
	struct ldpc__reader rd;
	long hdr[2], maxw[2], v;
	uint32_t n, m, *cw = NULL, *rw = NULL, *erow = NULL, *ecol = NULL, list[LDPC_DEG_MAX];
	uint8_t *seen = NULL;
	size_t nnz = 0, rsum = 0;
	struct ldpc_code *c = NULL;
	unsigned wline;
	int ret;

	*out = NULL;
	ldpc__reader_init(&rd, text, name, err, errlen);
	ret = ldpc__line_nums(&rd, hdr, 2, 1, LDPC_N_MAX, "sizes 'N M' (columns rows)");
	if (ret)
		return ret;
	n = (uint32_t)hdr[0];
	m = (uint32_t)hdr[1];
	ret = ldpc__line_nums(&rd, maxw, 2, 1, LDPC_DEG_MAX, "maximum weights 'column row'");
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
		const char *what = side ? "row weights" : "column weights";

		if (!ldpc__next_line(&rd)) {
			ret = ldpc__err(err, errlen, "%s:%u: expected %u %s, found end of file",
			                name, rd.line, want, what);
			goto out_free;
		}
		while ((ret = next_num(&rd, &v)) == 1) {
			if (got < want) {
				if (v < 1 || v > maxw[side]) {
					ret = ldpc__err(err, errlen,
					                "%s:%u: %s %u has weight %ld; expected "
					                "1..%ld (the maximum on line 2)",
					                name, rd.line, side ? "row" : "column",
					                got + 1, v, maxw[side]);
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
			ret = ldpc__err(err, errlen, "%s:%u: expected %u %s, found %u", name,
			                rd.line, want, what, got);
			goto out_free;
		}
		wline = rd.line;
	}
	if (rsum != nnz) {
		ret = ldpc__err(err, errlen,
		                "%s:%u: row weights sum to %zu but column weights to %zu", name,
		                wline, rsum, nnz);
		goto out_free;
	}
	erow = malloc(nnz * sizeof(*erow));
	ecol = malloc(nnz * sizeof(*ecol));
	ret = -FEC_ENOMEM;
	if (!erow || !ecol)
		goto out_free;
	nnz = 0;
	for (uint32_t j = 0; j < n; j++) {
		ret = alist_list(&rd, list, cw[j], m, "row", "column", j, seen);
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

		ret = alist_list(&rd, list, rw[r], n, "column", "row", r, seen);
		if (ret)
			goto out_free;
		if (deg != rw[r]) {
			ret = ldpc__err(err, errlen,
			                "%s:%u: row %u has weight %u here but %u in the column "
			                "lists",
			                name, rd.line, r + 1, rw[r], deg);
			goto out_free;
		}
		qsort(list, deg, sizeof(list[0]), cmp_u32);
		for (uint32_t i = 0; i < deg; i++)
			if (list[i] != have[i]) {
				uint32_t a = list[i] < have[i] ? list[i] : have[i];

				ret = ldpc__err(err, errlen,
				                "%s:%u: row %u and column %u disagree: one lists "
				                "the other, not the reverse",
				                name, rd.line, r + 1, a + 1);
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
