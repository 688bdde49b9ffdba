/*
 * Internal to codec/ldpc/: the systematic encoder's plan, which ldpc_encode.c builds (peeling
 * with inactivation) and runs, and ldpc_encode_fast.c's faster forms of it read.
 */
#ifndef LDPC_ENC_PLAN_H
#define LDPC_ENC_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "ldpc.h"

struct ldpc_enc_plan {
	uint32_t t; /* peeled rows: peel_row[i] determines peel_col[i] */
	uint32_t *peel_row, *peel_col;
	uint32_t nleft, lw; /* rows left over, words per vector over them */
	uint32_t *left_rows;
	uint32_t nq1;      /* inactivated parity columns and their solutions: */
	uint32_t *q1_cols; /* value = parity(q1_rows[j] & leftover syndrome) */
	uint64_t *q1_rows; /* nq1 x lw */
	uint32_t nq2, nw;  /* parity columns outside the candidates (rank-deficient */
	uint32_t *q2_cols; /* candidates): value = parity(q2_rows[j] & info bits), */
	uint64_t *q2_rows; /* nq2 x nw, over all columns */
	/* peeled row i's columns other than peel_col[i]: peel_other[peel_start[i]...] */
	uint32_t *peel_start, *peel_other;
	/* IRA codes: row r's information columns at ira_col[ira_start[r]...] */
	bool ira;
	uint32_t *ira_start, *ira_col;
	/* IRA codes in DVB-S2's cyclic form (rows b + q t, t < z, make row group b; information
	 * columns in blocks of z): group b's slots (block, shift) at cslot_start[b]..., row
	 * b + q t meeting column block * z + (t + shift) % z; zw words hold z bits. 0 q: none */
	uint32_t cq, cz, zw;
	uint32_t *cslot_start, *cslot_blk, *cslot_sh;
};

/* The faster forms of a finished plan (ldpc_encode_fast.c); 0 or -FEC_ENOMEM. */
int ldpc__enc_fast_build(const struct ldpc_code *code, struct ldpc_enc_plan *p);
/* An IRA code's codeword (plan->ira), in the cyclic form where the plan has it; 0 or
 * -FEC_ENOMEM. */
int ldpc__encode_ira(const struct ldpc_code *code, const uint8_t *info, uint8_t *cw);

#endif
