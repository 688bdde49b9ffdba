/*
 * Faster forms of the systematic encoder (ldpc_encode.c), found once its plan is built; they give
 * the same codewords, since the parity bits are a function of the information bits (the tests
 * compare them with the plan's encoder). For IRA codes (the information in the first k columns,
 * the parity part dual-diagonal: parity bit r closes rows r and r + 1, as DVB-S2's) no peeling:
 * each row's sum over its information columns, the sums packed 64 to a word and the parity bits
 * their prefix XOR, word by word. Where the code also has DVB-S2's cyclic structure (rows b + q t
 * making row group b, information columns in blocks of z = 360), the row sums come 360 at a time:
 * each block's bits packed twice over, so that a cyclic shift is an extraction of words, and a
 * group's sums the XOR of its slots' shifted blocks. Other codes keep the plan's peeling, from
 * each peeled row's other columns listed here.
 */
#include <stdlib.h>
#include <string.h>

#include "bitpack.h"
#include "fec.h"
#include "fec_impl.h"
#include "ldpc_code_impl.h"
#include "ldpc_enc_plan.h"

/* The cyclic form of an IRA code whose cyclic structure (ldpc.h) has row groups b + q t and
 * the information columns in place, kept only when every row's information columns are exactly
 * its group's slots; 0 (with or without it) or -FEC_ENOMEM. */
static int cyclic_form_build(const struct ldpc_code *code, struct ldpc_enc_plan *p)
{
	const struct ldpc_matrix *h = &code->h;
	const struct ldpc_cyclic *cy = code->cyc;
	uint32_t ns = 0, q, z, *mark;
	bool ok = true;

	if (!cy || cy->z < 2 || h->m % cy->z || code->k % cy->z)
		return 0;
	z = cy->z;
	q = h->m / z;
	if (cy->ngroups != q || cy->row_gstep != 1 || cy->row_tstep != q)
		return 0;
	for (uint32_t v = 0; v < code->k; v++)
		if (cy->col_pos[v] != v)
			return 0;
	p->cslot_start = malloc(((size_t)q + 1) * sizeof(uint32_t));
	p->cslot_blk = malloc(((size_t)cy->slot_start[q] + 1) * sizeof(uint32_t));
	p->cslot_sh = malloc(((size_t)cy->slot_start[q] + 1) * sizeof(uint32_t));
	mark = calloc(code->k + 1, sizeof(uint32_t));
	if (!p->cslot_start || !p->cslot_blk || !p->cslot_sh || !mark) {
		free(mark);
		return -FEC_ENOMEM;
	}
	for (uint32_t b = 0; b < q; b++) {
		p->cslot_start[b] = ns;
		for (uint32_t sl = cy->slot_start[b]; sl < cy->slot_start[b + 1]; sl++)
			if (cy->slot_block[sl] < code->k / z) {
				p->cslot_blk[ns] = cy->slot_block[sl];
				p->cslot_sh[ns++] = cy->slot_shift[sl] % z;
			}
	}
	p->cslot_start[q] = ns;
	/* every row: its slots' columns marked, then H's information columns must be exactly
	 * those (a column met twice would cancel: refused) */
	for (uint32_t r = 0; r < h->m && ok; r++) {
		const uint32_t b = r % q, t = r / q, stamp = r + 1;
		uint32_t want = 0, seen = 0;

		for (uint32_t sl = p->cslot_start[b]; sl < p->cslot_start[b + 1] && ok; sl++) {
			const uint32_t v = p->cslot_blk[sl] * z + (t + p->cslot_sh[sl]) % z;

			ok = mark[v] != stamp;
			mark[v] = stamp;
			want++;
		}
		for (uint32_t e = p->ira_start[r]; e < p->ira_start[r + 1] && ok; e++) {
			ok = mark[p->ira_col[e]] == stamp;
			seen++;
		}
		ok = ok && seen == want;
	}
	free(mark);
	if (ok) {
		p->cq = q;
		p->cz = z;
		p->zw = (z + 63) / 64;
	}
	return 0;
}

/* Whether H is [A | B] with B dual-diagonal (column k + r in rows r and r + 1, the last in
 * row m - 1 alone) and the information in the first k columns: then row r's information sum s_r
 * gives parity bit r as s_0 ^ ... ^ s_r. */
static bool is_ira(const struct ldpc_code *code, const struct ldpc_enc_plan *p)
{
	const struct ldpc_matrix *h = &code->h;
	const uint32_t k = code->k, m = h->m;

	if (p->nq1 || p->nq2 || k + m != h->n)
		return false;
	for (uint32_t i = 0; i < k; i++)
		if (code->info_cols[i] != i)
			return false;
	for (uint32_t r = 0; r < m; r++) {
		uint32_t want = r ? 2 : 1, seen = 0;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
			uint32_t c = h->row_col[e];

			if (c < k)
				continue;
			if (c != k + r && !(r && c == k + r - 1))
				return false;
			seen++;
		}
		if (seen != want)
			return false;
	}
	return true;
}

/* The faster forms of a finished plan (the file's head says which); 0 or -FEC_ENOMEM. */
int ldpc__enc_fast_build(const struct ldpc_code *code, struct ldpc_enc_plan *p)
{
	const struct ldpc_matrix *h = &code->h;
	uint32_t e = 0;

	if (is_ira(code, p)) {
		p->ira_start = malloc(((size_t)h->m + 1) * sizeof(uint32_t));
		p->ira_col = malloc(((size_t)h->nnz + 1) * sizeof(uint32_t));
		if (!p->ira_start || !p->ira_col)
			return -FEC_ENOMEM;
		for (uint32_t r = 0; r < h->m; r++) {
			p->ira_start[r] = e;
			for (uint32_t j = h->row_start[r]; j < h->row_start[r + 1]; j++)
				if (h->row_col[j] < code->k)
					p->ira_col[e++] = h->row_col[j];
		}
		p->ira_start[h->m] = e;
		p->ira = true;
		return cyclic_form_build(code, p);
	}
	p->peel_start = malloc(((size_t)p->t + 1) * sizeof(uint32_t));
	p->peel_other = malloc(((size_t)h->nnz + 1) * sizeof(uint32_t));
	if (!p->peel_start || !p->peel_other)
		return -FEC_ENOMEM;
	for (uint32_t i = 0; i < p->t; i++) {
		const uint32_t r = p->peel_row[i];

		p->peel_start[i] = e;
		for (uint32_t j = h->row_start[r]; j < h->row_start[r + 1]; j++)
			if (h->row_col[j] != p->peel_col[i])
				p->peel_other[e++] = h->row_col[j];
	}
	p->peel_start[p->t] = e;
	return 0;
}

/* IRA codes: parity bit r is the XOR of rows 0..r's information sums. Rows go 64 at a time:
 * their sums packed into a word, whose prefix XOR (six shifts) continues the words before. */
static void encode_ira(const struct ldpc_code *code, const uint8_t *info, uint8_t *cw)
{
	const struct ldpc_enc_plan *p = code->enc;
	const uint32_t k = code->k, m = code->h.m;
	uint64_t carry = 0; /* all ones when the rows so far sum to 1 */

	for (uint32_t i = 0; i < k; i++)
		cw[i] = info[i] & 1;
	for (uint32_t r0 = 0; r0 < m; r0 += 64) {
		const uint32_t nb = m - r0 < 64 ? m - r0 : 64;
		uint64_t x = 0;

		for (uint32_t j = 0; j < nb; j++) {
			const uint32_t *col = p->ira_col + p->ira_start[r0 + j];
			const uint32_t deg = p->ira_start[r0 + j + 1] - p->ira_start[r0 + j];
			uint8_t sum = 0;

			for (uint32_t e = 0; e < deg; e++)
				sum ^= cw[col[e]];
			x |= (uint64_t)sum << j;
		}
		x ^= x << 1;
		x ^= x << 2;
		x ^= x << 4;
		x ^= x << 8;
		x ^= x << 16;
		x ^= x << 32;
		x ^= carry;
		for (uint32_t j = 0; j < nb; j++)
			cw[k + r0 + j] = (uint8_t)(x >> j & 1);
		carry = 0 - (x >> 63);
	}
}

/* z bits of v from bit `at`, into zw words (bits past z cleared). */
static void bits_extract(const uint64_t *v, uint32_t at, uint32_t z, uint32_t zw, uint64_t *out)
{
	const uint64_t *src = v + at / 64;
	const unsigned sh = at % 64;

	for (uint32_t i = 0; i < zw; i++)
		out[i] = sh ? src[i] >> sh | src[i + 1] << (64 - sh) : src[i];
	if (z % 64)
		out[zw - 1] &= (1ull << (z % 64)) - 1;
}

/* Prefix XOR of a word's bits (bit i becomes the XOR of bits 0..i). */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* IRA codes in the cyclic form: the information bits of each block packed twice over (2z bits,
 * so that a cyclic shift is a plain extraction), row group b's sums S_b (bit t: row b + q t)
 * the XOR of its slots' shifted blocks; parity bit b + q t then is E[t] ^ (S_0 ^ ... ^ S_b)[t],
 * E[t] the XOR of every group's sums at t' < t (an exclusive prefix XOR over t). */
static int encode_ira_cyclic(const struct ldpc_code *code, const uint8_t *info, uint8_t *cw)
{
	const struct ldpc_enc_plan *p = code->enc;
	const uint32_t k = code->k, q = p->cq, z = p->cz, zw = p->zw, blocks = k / z;
	const uint32_t dw = (2 * z + 63) / 64 + 1; /* words of a doubled block, one spare */
	uint64_t *dbl = calloc((size_t)blocks * dw + (size_t)(q + 3) * zw, 8);
	uint64_t *sums, *tot, *run, *tmp;

	if (!dbl)
		return -FEC_ENOMEM;
	sums = dbl + (size_t)blocks * dw;
	tot = sums + (size_t)q * zw;
	run = tot + zw;
	tmp = run + zw;
	for (uint32_t i = 0; i < k; i++)
		cw[i] = info[i] & 1;
	for (uint32_t blk = 0; blk < blocks; blk++) {
		uint64_t *d = dbl + (size_t)blk * dw;
		const uint8_t *u = cw + (size_t)blk * z;
		const unsigned zs = z % 64;

		/* a word at a time in a register, then the copy at bit z */
		for (uint32_t i = 0; i < zw; i++) {
			const uint32_t nb = z - 64 * i < 64 ? z - 64 * i : 64;
			const uint64_t x = fec_pack_word_lsb(u + 64 * i, nb);

			d[i] |= x;
			d[z / 64 + i] |= x << zs;
			if (zs)
				d[z / 64 + i + 1] |= x >> (64 - zs);
		}
	}
	for (uint32_t b = 0; b < q; b++) {
		uint64_t *sb = sums + (size_t)b * zw;

		for (uint32_t sl = p->cslot_start[b]; sl < p->cslot_start[b + 1]; sl++) {
			bits_extract(dbl + (size_t)p->cslot_blk[sl] * dw, p->cslot_sh[sl], z, zw,
			             tmp);
			for (uint32_t i = 0; i < zw; i++)
				sb[i] ^= tmp[i];
		}
		for (uint32_t i = 0; i < zw; i++)
			tot[i] ^= sb[i];
	}
	/* E: the exclusive prefix XOR of tot over t, words in order */
	uint64_t carry = 0;

	for (uint32_t i = 0; i < zw; i++) {
		const uint64_t incl = prefix_xor(tot[i]) ^ carry;

		run[i] = incl ^ tot[i];
		carry = 0 - (incl >> 63);
	}
	for (uint32_t b = 0; b < q; b++)
		for (uint32_t i = 0; i < zw; i++) {
			run[i] ^= sums[(size_t)b * zw + i];
			sums[(size_t)b * zw + i] = run[i];
		}
	for (uint32_t t = 0; t < z; t++) {
		uint8_t *dst = cw + k + (size_t)q * t;

		for (uint32_t b = 0; b < q; b++)
			dst[b] = (uint8_t)(sums[(size_t)b * zw + t / 64] >> (t % 64) & 1);
	}
	free(dbl);
	return 0;
}

int ldpc__encode_ira(const struct ldpc_code *code, const uint8_t *info, uint8_t *cw)
{
	if (code->enc->cq)
		return encode_ira_cyclic(code, info, cw);
	encode_ira(code, info, cw);
	return 0;
}
