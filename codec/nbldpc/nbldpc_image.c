/*
 * The binary image of a GF(2^p) code: each nonzero coefficient h of H becomes the p x p binary
 * matrix of x -> h x, so that the (m p) x (n p) binary matrix holds exactly the bit vectors of
 * the code's codewords, bits of a symbol in the family's bit order (msb: the symbol's bit p-1
 * first). It is written as the text of a binary alist file, the format the ldpc family reads, so
 * that the frames an nbldpc channel carries can be decoded through the ldpc family as well (the
 * receivers' usual shortcut, which the FER comparison in the tests measures).
 *
 * Row r p + i of the image is bit i (coefficient of x^i) of check r's sum; column v p + pos(b)
 * carries bit b of symbol v, pos(b) = p - 1 - b for msb first, b for lsb first; entry 1 when bit i
 * of h alpha^b is set. Each block is invertible (h != 0), so no row or column of the image is
 * empty, and the image of an invertible square block of H is invertible: when H's last m
 * columns are independent over GF(q) (the systematic encoder's information symbols are then
 * columns 0..k-1) the image's last m p columns are too, and the ldpc family's encoder, which
 * prefers the rightmost columns as parity, takes the first k p bits as information: the same
 * information bits in the same order as nbldpc's (nbldpc_binary_image_same_info says so). That
 * holds while peeling the image with those columns as unknowns leaves a gap within the ldpc
 * encoder's PEEL_GAP_MAX (2048 columns: BeiDou's codes leave none to speak of, the seed's
 * 5040-bit GF(64) and GF(256) codes 1472 and 1756); a larger generated code's image gets its
 * information columns from the ldpc encoder's greedy peeling instead, and the ldpc family then
 * reports them (fec_decoder_info_ranges).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fec_impl.h"
#include "nbldpc.h"

/* A text buffer that grows; the first failed allocation sticks. */
struct tbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void tb_printf(struct tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tb_printf(struct tbuf *b, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (b->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		w = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (w < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)w < b->cap - b->len) {
			b->len += (size_t)w;
			return;
		}
		{
			const size_t cap = b->cap * 2 + (size_t)w + 64;
			char *s = realloc(b->s, cap);

			if (!s) {
				b->failed = true;
				return;
			}
			b->s = s;
			b->cap = cap;
		}
	}
}

/* Bit i of h alpha^b for the p x p block of coefficient h: rows i, columns b (both 0..p-1). */
static void block_of(const struct nbldpc_gf *gf, uint8_t h, uint8_t blk[8])
{
	for (unsigned b = 0; b < gf->p; b++)
		blk[b] = nbldpc_gf_mul(gf, h, gf->exp[b]); /* alpha^b = x^b for b < p */
}

static unsigned bit_pos(unsigned p, unsigned b, enum nbldpc_bit_order order)
{
	return order == NBLDPC_LSB_FIRST ? b : p - 1 - b;
}

int nbldpc_binary_image_alist(const struct nbldpc_code *c, enum nbldpc_bit_order order, char **text,
                              char *err, size_t errlen)
{
	const unsigned p = c->gf.p;
	const uint32_t nb = c->n * p, mb = c->m * p;
	uint32_t *rdeg, *cdeg, *erow, maxr = 0, maxc = 0;
	struct tbuf b = {0};
	uint8_t blk[8];

	*text = NULL;
	rdeg = calloc(mb + 1, sizeof(uint32_t));
	cdeg = calloc(nb + 1, sizeof(uint32_t));
	erow = malloc(((size_t)c->nnz + 1) * sizeof(uint32_t)); /* each edge's row */
	if (!rdeg || !cdeg || !erow) {
		free(rdeg);
		free(cdeg);
		free(erow);
		return -FEC_ENOMEM;
	}
	for (uint32_t r = 0; r < c->m; r++)
		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			erow[e] = r;
	/* degrees: row r p + i counts the set bits i over its blocks; column v p + pos(b) the set
	 * bits of h alpha^b over v's coefficients */
	for (uint32_t r = 0; r < c->m; r++)
		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++) {
			block_of(&c->gf, c->row_val[e], blk);
			for (unsigned bb = 0; bb < p; bb++)
				for (unsigned i = 0; i < p; i++)
					if (blk[bb] >> i & 1) {
						rdeg[r * p + i]++;
						cdeg[c->row_col[e] * p + bit_pos(p, bb, order)]++;
					}
		}
	for (uint32_t i = 0; i < mb; i++)
		maxr = rdeg[i] > maxr ? rdeg[i] : maxr;
	for (uint32_t j = 0; j < nb; j++)
		maxc = cdeg[j] > maxc ? cdeg[j] : maxc;
	tb_printf(&b, "%u %u\n%u %u\n", nb, mb, maxc, maxr);
	for (uint32_t j = 0; j < nb; j++)
		tb_printf(&b, j + 1 < nb ? "%u " : "%u\n", cdeg[j]);
	for (uint32_t i = 0; i < mb; i++)
		tb_printf(&b, i + 1 < mb ? "%u " : "%u\n", rdeg[i]);
	/* column lists: for symbol v, bit b, the rows r p + i of v's checks where bit i is set */
	for (uint32_t v = 0; v < c->n; v++)
		for (unsigned pos = 0; pos < p; pos++) {
			const unsigned bb = bit_pos(p, pos, order); /* pos is its own inverse map */
			bool first = true;

			for (uint32_t k = c->col_start[v]; k < c->col_start[v + 1]; k++) {
				const uint32_t e = c->col_edge[k], r = erow[e];
				const uint8_t col =
				    nbldpc_gf_mul(&c->gf, c->row_val[e], c->gf.exp[bb]);
				for (unsigned i = 0; i < p; i++)
					if (col >> i & 1) {
						tb_printf(&b, first ? "%u" : " %u", r * p + i + 1);
						first = false;
					}
			}
			tb_printf(&b, "\n");
		}
	/* row lists: check r, bit i: the columns v p + pos(b) with bit i of h alpha^b set */
	for (uint32_t r = 0; r < c->m; r++)
		for (unsigned i = 0; i < p; i++) {
			bool first = true;

			for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++) {
				block_of(&c->gf, c->row_val[e], blk);
				for (unsigned pos = 0; pos < p; pos++)
					if (blk[bit_pos(p, pos, order)] >> i & 1) {
						tb_printf(&b, first ? "%u" : " %u",
						          c->row_col[e] * p + pos + 1);
						first = false;
					}
			}
			tb_printf(&b, "\n");
		}
	free(rdeg);
	free(cdeg);
	free(erow);
	if (b.failed) {
		free(b.s);
		return fec__err(err, errlen, FEC_ENOMEM, "%s: no memory for its binary image",
		                c->name);
	}
	*text = b.s;
	return 0;
}

bool nbldpc_binary_image_same_info(const struct nbldpc_code *c)
{
	for (uint32_t i = 0; i < c->k; i++)
		if (c->info_cols[i] != i)
			return false;
	return true;
}

int nbldpc_binary_image_write(const struct nbldpc_spec *spec, const char *path, char *err,
                              size_t errlen)
{
	struct nbldpc_code *code;
	char *text = NULL;
	FILE *f;
	int ret = nbldpc_code_load(spec, &code, err, errlen);

	if (ret)
		return ret;
	ret = nbldpc_binary_image_alist(code, spec->bit_order, &text, err, errlen);
	nbldpc_code_free(code);
	if (ret)
		return ret;
	f = fopen(path, "w");
	if (!f) {
		free(text);
		return fec__err(err, errlen, FEC_EINVAL, "%s: cannot open for writing: %s", path,
		                strerror(errno));
	}
	if (fputs(text, f) == EOF)
		ret = fec__err(err, errlen, FEC_EINVAL, "%s: write failed: %s", path,
		               strerror(errno));
	if (fclose(f) && !ret)
		ret = fec__err(err, errlen, FEC_EINVAL, "%s: write failed: %s", path,
		               strerror(errno));
	free(text);
	return ret;
}
