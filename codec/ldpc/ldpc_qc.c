/*
 * Quasi-cyclic LDPC codes: a base matrix of circulant shifts lifted by z, each shift s becoming
 * the z x z identity shifted right s times (row i has its one in column (i + s) mod z, as in
 * 38.212 5.3.2 and the CCSDS AR4JA definition). Read from .qc files (aff3ct's: `columns rows Z`,
 * the base matrix, an optional puncturing line) and from the 3GPP TS 38.212 base-graph tables
 * (5G_bg1.csv / 5G_bg2.csv: row; column; shift for set index 0..7), with the codec's line reader
 * (textfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fec.h"
#include "ldpc_code_impl.h"
#include "textfile.h"

struct qc_base {
	uint32_t rows, cols;
	int32_t *shift; /* rows x cols, -1 = zero block */
};

/* Base matrix -> lifted matrix; perm[b] = where base column b goes (NULL: in place). */
static int qc_lift(const char *name, const struct qc_base *b, uint32_t z, const uint32_t *perm,
                   struct ldpc_code **out, char *err, size_t errlen)
{
	size_t nb = 0, nnz;
	uint32_t *erow, *ecol;
	int ret;

	if ((uint64_t)b->cols * z > LDPC_N_MAX || (uint64_t)b->rows * z > LDPC_N_MAX)
		return ldpc__err(err, errlen,
		                 "%s: the lifted matrix has more than %u columns or rows", name,
		                 LDPC_N_MAX);
	for (size_t i = 0; i < (size_t)b->rows * b->cols; i++)
		nb += b->shift[i] >= 0;
	nnz = nb * z;
	erow = malloc((nnz ? nnz : 1) * sizeof(*erow));
	ecol = malloc((nnz ? nnz : 1) * sizeof(*ecol));
	if (!erow || !ecol) {
		free(erow);
		free(ecol);
		return -FEC_ENOMEM;
	}
	nnz = 0;
	for (uint32_t r = 0; r < b->rows; r++)
		for (uint32_t cb = 0; cb < b->cols; cb++) {
			int32_t s = b->shift[(size_t)r * b->cols + cb];
			uint32_t col0 = (perm ? perm[cb] : cb) * z;

			if (s < 0)
				continue;
			for (uint32_t i = 0; i < z; i++) {
				erow[nnz] = r * z + i;
				ecol[nnz++] = col0 + (i + (uint32_t)s % z) % z;
			}
		}
	ret = ldpc__code_from_edges(name, b->cols * z, b->rows * z, erow, ecol, nnz, out, err,
	                            errlen);
	free(erow);
	free(ecol);
	if (ret == 0)
		(*out)->z = z;
	return ret;
}

int ldpc_qc_parse(const char *text, const char *name, uint32_t z, struct ldpc_code **out, char *err,
                  size_t errlen)
{
	struct fec__text_reader rd;
	struct qc_base b;
	long hdr[3], *vals = NULL;
	uint32_t *perm = NULL, *pref = NULL, npunct = 0;
	struct ldpc_code *c = NULL;
	int ret;

	*out = NULL;
	fec__text_init(&rd, text, name, err, errlen);
	ret = fec__text_line_nums(&rd, hdr, 3, 1, LDPC_N_MAX, "3 sizes 'columns rows Z'",
	                          "a size in 1..1048576");
	if (ret)
		return ret;
	b.cols = (uint32_t)hdr[0];
	b.rows = (uint32_t)hdr[1];
	if ((uint64_t)b.cols * hdr[2] > LDPC_N_MAX || (uint64_t)b.rows * hdr[2] > LDPC_N_MAX)
		return ldpc__err(err, errlen,
		                 "%s:%u: expected a base matrix that Z lifts to at most %u columns "
		                 "and rows, found a larger one",
		                 name, rd.line, LDPC_N_MAX);
	if ((uint64_t)b.cols * z > LDPC_N_MAX || (uint64_t)b.rows * z > LDPC_N_MAX)
		return ldpc__err(err, errlen,
		                 "%s:%u: expected a base matrix that z=%u lifts to at most %u "
		                 "columns and rows, found a larger one",
		                 name, rd.line, z, LDPC_N_MAX);
	if (z == 0)
		z = (uint32_t)hdr[2];
	/* The base matrix grows as its rows are read: a short file claiming a huge one (a 20-byte
	 * file may claim 2^40 shifts) fails on its missing rows, not on asking for terabytes. */
	b.shift = NULL;
	vals = malloc((size_t)b.cols * sizeof(*vals));
	perm = malloc((size_t)b.cols * sizeof(*perm));
	ret = -FEC_ENOMEM;
	if (!vals || !perm)
		goto out_free;
	for (uint32_t r = 0, cap = 0; r < b.rows; r++) {
		if (r == cap) {
			uint32_t ncap = cap ? 2 * cap : 1;
			int32_t *ns;

			ncap = ncap < b.rows ? ncap : b.rows;
			ns = realloc(b.shift, (size_t)ncap * b.cols * sizeof(*b.shift));
			ret = -FEC_ENOMEM;
			if (!ns)
				goto out_free;
			b.shift = ns;
			cap = ncap;
		}
		ret = fec__text_line_nums(&rd, vals, b.cols, -1, hdr[2] - 1,
		                          "a shift for each base column (columns on line 1)",
		                          "a shift in -1..Z-1 (Z on line 1; -1: a zero block)");
		if (ret)
			goto out_free;
		for (uint32_t j = 0; j < b.cols; j++)
			b.shift[(size_t)r * b.cols + j] = (int32_t)vals[j];
	}
	/* An optional puncturing line: 1 = sent, 0 = not. Punctured block columns move to the
	 * front (the code's punct), the rest keep their order, so the transmitted bits stay in
	 * the standard's order. */
	for (uint32_t j = 0; j < b.cols; j++)
		perm[j] = j;
	if (fec__text_next_line(&rd)) {
		uint32_t front = 0, back;

		rd.p = rd.cur; /* read it again as a whole line */
		rd.line--;
		ret = fec__text_line_nums(&rd, vals, b.cols, 0, 1,
		                          "puncturing flags, one for each base column (columns on "
		                          "line 1), or end of file",
		                          "a puncturing flag, 1 (sent) or 0 (not sent)");
		if (ret)
			goto out_free;
		for (uint32_t j = 0; j < b.cols; j++)
			npunct += vals[j] == 0;
		back = npunct;
		for (uint32_t j = 0; j < b.cols; j++)
			perm[j] = vals[j] == 0 ? front++ : back++;
		if (fec__text_next_line(&rd)) {
			ret = ldpc__err(err, errlen,
			                "%s:%u: expected end of file after the puncturing line",
			                name, rd.line);
			goto out_free;
		}
	}
	ret = qc_lift(name, &b, z, perm, &c, err, errlen);
	if (ret)
		goto out_free;
	c->punct = npunct * z;
	/* Parity wanted from the right in the standard's column order, whatever moved. */
	pref = malloc((size_t)c->h.n * sizeof(*pref));
	ret = -FEC_ENOMEM;
	if (!pref)
		goto out_free;
	for (uint32_t j = 0, i = 0; j < b.cols; j++)
		for (uint32_t t = 0; t < z; t++, i++)
			pref[c->h.n - 1 - i] = perm[j] * z + t;
	ret = ldpc__code_finish(c, pref, err, errlen);
	if (ret)
		goto out_free;
	*out = c;
	c = NULL;
out_free:
	ldpc_code_free(c);
	free(pref);
	free(perm);
	free(vals);
	free(b.shift);
	return ret;
}

/* ---- 3GPP TS 38.212 base graphs ---- */

/* Table 5.3.2-1: the lifting sizes are a * 2^j up to 384; set index i_LS picks a. */
static const uint32_t nr_a[8] = {2, 3, 5, 7, 9, 11, 13, 15};

static int nr_set_index(uint32_t z)
{
	for (int i = 0; i < 8; i++)
		for (uint32_t v = nr_a[i]; v <= 384; v *= 2)
			if (v == z)
				return i;
	return -1;
}

bool ldpc_nr_lifting_valid(uint32_t z)
{
	return nr_set_index(z) >= 0;
}

/* The ';'-separated field idx of [s, e) into out (trimmed); false when the line has fewer. */
static bool csv_field(const char *s, const char *e, unsigned idx, const char **fs, const char **fe)
{
	for (unsigned i = 0; i < idx; i++) {
		const char *semi = memchr(s, ';', (size_t)(e - s));

		if (!semi)
			return false;
		s = semi + 1;
	}
	*fe = memchr(s, ';', (size_t)(e - s));
	if (!*fe)
		*fe = e;
	while (s < *fe && fec__text_is_blank(*s))
		s++;
	while (*fe > s && fec__text_is_blank((*fe)[-1]))
		(*fe)--;
	*fs = s;
	return true;
}

/* A field as a number in lo..hi: 1, or 0 when empty, or an error. */
static int csv_num(struct fec__text_reader *rd, const char *fs, const char *fe, long lo, long hi,
                   const char *what, long *v)
{
	char tok[24], *endp;

	if (fs == fe)
		return 0;
	snprintf(tok, sizeof(tok), "%.*s", (int)(fe - fs), fs);
	errno = 0;
	*v = strtol(tok, &endp, 10);
	if (fe - fs >= (long)sizeof(tok) || *endp || errno)
		return ldpc__err(rd->err, rd->errlen, "%s:%u: expected %s, found %s", rd->name,
		                 rd->line, what, fec__text_token_kind(fs, fe));
	if (*v < lo || *v > hi)
		return ldpc__err(rd->err, rd->errlen, "%s:%u: expected %s in %ld..%ld, found %s",
		                 rd->name, rd->line, what, lo, hi, fec__text_range_miss(*v, lo));
	return 1;
}

int ldpc_nr_parse(const char *text, const char *name, int bg, uint32_t z, struct ldpc_code **out,
                  char *err, size_t errlen)
{
	struct fec__text_reader rd;
	struct qc_base b;
	struct ldpc_code *c = NULL;
	const char *fs, *fe;
	long row = -1, col, v, seen_rows = 0;
	bool data = false;
	int set = nr_set_index(z), ret;

	*out = NULL;
	if (bg != 1 && bg != 2)
		return ldpc__err(err, errlen, "%s: base graph %d; expected 1 or 2", name, bg);
	if (set < 0)
		return ldpc__err(err, errlen,
		                 "%s: z=%u is not a lifting size of 38.212 table 5.3.2-1 "
		                 "(a * 2^j, a in 2,3,5,7,9,11,13,15, up to 384)",
		                 name, z);
	b.rows = bg == 1 ? 46 : 42;
	b.cols = bg == 1 ? 68 : 52;
	b.shift = malloc((size_t)b.rows * b.cols * sizeof(*b.shift));
	if (!b.shift)
		return -FEC_ENOMEM;
	for (size_t i = 0; i < (size_t)b.rows * b.cols; i++)
		b.shift[i] = -1;
	fec__text_init(&rd, text, name, err, errlen);
	while (fec__text_next_line(&rd)) {
		long shifts[8];

		/* Header lines come first; they hold no column index. */
		if (!csv_field(rd.cur, rd.end, 1, &fs, &fe) || fs == fe ||
		    (!data && (*fs < '0' || *fs > '9'))) {
			if (!data)
				continue;
			ret = ldpc__err(err, errlen, "%s:%u: expected 'row;column;8 shifts'", name,
			                rd.line);
			goto out_free;
		}
		csv_field(rd.cur, rd.end, 0, &fs, &fe);
		ret = csv_num(&rd, fs, fe, 0, (long)b.rows - 1, "a base-graph row index", &v);
		if (ret < 0)
			goto out_free;
		if (ret == 0 && row < 0) {
			ret = ldpc__err(err, errlen, "%s:%u: expected a row index on the first row",
			                name, rd.line);
			goto out_free;
		}
		if (ret == 1) {
			if (v < row) {
				ret = ldpc__err(err, errlen,
				                "%s:%u: expected rows in increasing order, found a "
				                "smaller row index than on an earlier line",
				                name, rd.line);
				goto out_free;
			}
			if (v != row)
				seen_rows++;
			row = v;
		}
		data = true;
		csv_field(rd.cur, rd.end, 1, &fs, &fe);
		ret = csv_num(&rd, fs, fe, 0, (long)b.cols - 1, "a base-graph column index", &col);
		if (ret < 0)
			goto out_free;
		for (unsigned i = 0; i < 8; i++) {
			if (!csv_field(rd.cur, rd.end, 2 + i, &fs, &fe) || fs == fe) {
				ret = ldpc__err(
				    err, errlen,
				    "%s:%u: expected 8 shift values (sets 0..7), found %u", name,
				    rd.line, i);
				goto out_free;
			}
			ret = csv_num(&rd, fs, fe, 0, 383, "a shift value", &shifts[i]);
			if (ret < 0)
				goto out_free;
		}
		if (b.shift[row * b.cols + col] >= 0) {
			ret = ldpc__err(err, errlen,
			                "%s:%u: expected a new row and column, found a pair given "
			                "on an earlier line",
			                name, rd.line);
			goto out_free;
		}
		b.shift[row * b.cols + col] = (int32_t)(shifts[set] % z);
	}
	if (seen_rows != (long)b.rows || row != (long)b.rows - 1) {
		ret = ldpc__err(err, errlen, "%s:%u: expected %u base-graph rows, found %ld", name,
		                rd.line, b.rows, seen_rows);
		goto out_free;
	}
	ret = qc_lift(name, &b, z, NULL, &c, err, errlen);
	if (ret)
		goto out_free;
	c->punct = 2 * z;
	snprintf(c->name, sizeof(c->name), "nr-bg%d z=%u", bg, z);
	ret = ldpc__code_finish(c, NULL, err, errlen);
	if (ret)
		goto out_free;
	*out = c;
	c = NULL;
out_free:
	ldpc_code_free(c);
	free(b.shift);
	return ret;
}
