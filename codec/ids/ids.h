/*
 * The ids family: time-varying block (TVB) inner codes for channels with insertions, deletions
 * and substitutions (the BSID channel), decoded by the MAP forward-backward decoder of the seed
 * (Briffa 2014), alone or as the inner code of a Davey-MacKay concatenation with an outer nbldpc
 * code over the same GF(q) (one outer symbol per TVB codeword).
 *
 * A frame sends N q-ary symbols as N n-bit codewords; what arrives is longer or shorter (the
 * received length varies from frame to frame). ids_code.h has the codes, the channel and the
 * drift limits, ids_map.h the decoder; ids.c documents each parameter.
 */
#ifndef IDS_H
#define IDS_H

#include <stdint.h>

#define IDS_CODE_TEXT_MAX  256
#define IDS_OUTER_TEXT_MAX 512 /* = FEC_CODE_TEXT_MAX (fec.h includes this header first) */
#define IDS_ITERS_MAX      100
#define IDS_EXCL_MAX       30  /* drift limits: p_excl = 10^-drift_excl, 1..30 */
#define IDS_PRUNE_MAX      300 /* pruning: alpha below 10^-prune dropped, 0 (none)..300 */

enum ids_storage { IDS_STORAGE_AUTO = 1, IDS_STORAGE_GLOBAL, IDS_STORAGE_LOCAL };

struct ids_spec {
	/* "random" (seeded random codebooks), "watermark" (Davey-MacKay) or a codebook file */
	char code[IDS_CODE_TEXT_MAX];
	uint32_t N, q, n; /* a file gives its own: spec_finish reads them from it */
	uint32_t seed;
	double pi, pd, ps; /* the channel the decoder assumes */
	uint8_t drift_excl;
	enum ids_storage storage;
	uint16_t prune; /* 0: every drift state (exact); else alpha below 10^-prune is dropped */
	char outer[IDS_OUTER_TEXT_MAX]; /* "" (none), or the outer nbldpc code's canonical text */
	uint16_t iters;                 /* inner-outer iterations after the first pass */
	/* derived by spec_finish: the outer code's length and dimension in symbols (0: none) */
	uint32_t outer_n, outer_k;
};

#endif
