/*
 * Internal glue between the LDPC code files (ldpc_code.c, ldpc_parse.c, ldpc_gen.c,
 * ldpc_encode.c): building a code from an edge list, finishing it (layers, degrees, rank and
 * information set), the encoder plan and the generators. Not for the decoders or the daemon:
 * they use ldpc.h.
 */
#ifndef LDPC_CODE_IMPL_H
#define LDPC_CODE_IMPL_H

#include <stdarg.h>

#include "ldpc.h"

/* Formats "fmt" into err and returns -FEC_EINVAL (the code every malformed-input path returns). */
int ldpc__err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A new code (zeroed, name set) holding the n x m matrix built from nnz edges (erow[i], ecol[i]),
 * 0-based; edges may come in any order. Out-of-range and duplicate edges, and sizes or degrees
 * past LDPC_N_MAX / LDPC_DEG_MAX, are errors naming `name` (and no value: the edges may come
 * from a file). */
int ldpc__code_from_edges(const char *name, uint32_t n, uint32_t m, const uint32_t *erow,
                          const uint32_t *ecol, size_t nnz, struct ldpc_code **out, char *err,
                          size_t errlen);

/* Derives layers (block rows when code->z, else greedy first fit), maximum degrees, and through
 * the encoder plan k and info_cols. parity_pref lists all n columns, the one most wanted as a
 * parity column first (NULL: from the rightmost column down). */
int ldpc__code_finish(struct ldpc_code *code, const uint32_t *parity_pref, char *err,
                      size_t errlen);

/* Finds code->cyc and builds the layers (ldpc.h's rule); ldpc_layers.c. */
int ldpc__layers_build(struct ldpc_code *code);
void ldpc__cyclic_free(struct ldpc_cyclic *cy);

/* Builds code->enc, code->k and code->info_cols. */
int ldpc__enc_plan_build(struct ldpc_code *code, const uint32_t *parity_pref, char *err,
                         size_t errlen);
void ldpc__enc_plan_free(struct ldpc_enc_plan *plan);
/* The plan's encoder in its reference form (ldpc_encode takes a faster one where it can: the
 * tests compare them), and the form ldpc_encode takes (ldpc_encode.c's head says what they
 * are). */
enum ldpc_enc_form {
	LDPC_ENC_PLAN,       /* the reference: peeling, each edge tested */
	LDPC_ENC_FLAT,       /* peeling with the rows' other columns listed apart */
	LDPC_ENC_IRA,        /* IRA: rows' information sums, prefix XOR on packed words */
	LDPC_ENC_IRA_CYCLIC, /* IRA in DVB-S2's cyclic form: shifted blocks on packed words */
};
int ldpc__encode_plan(struct ldpc_code *code, const uint8_t *info, uint8_t *codeword);
enum ldpc_enc_form ldpc__encode_form(const struct ldpc_code *code);

/* Generated codes; the result is finished. */
int ldpc__gen_regular(uint32_t n, unsigned dv, unsigned dc, uint32_t seed, struct ldpc_code **out,
                      char *err, size_t errlen);
int ldpc__gen_peg(uint32_t n, unsigned dv, unsigned dc, uint32_t seed, struct ldpc_code **out,
                  char *err, size_t errlen);

#endif
