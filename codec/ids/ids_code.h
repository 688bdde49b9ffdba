/*
 * The ids family's building blocks, apart from its fec_family table: time-varying block (TVB)
 * inner codes, the binary substitution/insertion/deletion (BSID) channel and the drift limits of
 * the MAP decoder (ids_map.h), as the seed (Briffa 2014, section II) defines them.
 *
 * A TVB code is a sequence of N constituent encodings C_i, each an injective map from a q-ary
 * symbol to an n-bit codeword (2^n >= q). Codeword bits are sent most significant first: bit n-1
 * of cw[i * q + d] is the first bit sent for symbol d at position i. Codes come from a codebook
 * file (ids_code_parse: the format is below), from seeded random codebooks (ids_code_random) or
 * from Davey and MacKay's watermark construction (ids_code_watermark: the q lightest n-bit words,
 * added to a pseudo-random watermark that changes with i).
 *
 * Codebook file: lines starting with '#' and blank lines are skipped;
 *     N q n K          the message length, the alphabet, the codeword length, codebooks given
 *     K lines of q     codeword values 0..2^n-1 (decimal), distinct within a line; position i
 *                      uses line i mod K (K = 1: the same codebook everywhere), 1 <= K <= N
 * Every complaint names the file and line.
 *
 * Functions return 0 or a negative FEC_E* code with a message in err.
 */
#ifndef IDS_CODE_H
#define IDS_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "prng.h"

#define IDS_N_MAX     4096
#define IDS_Q_MAX     256
#define IDS_NBITS_MAX 16

struct ids_code {
	uint32_t N;   /* message symbols */
	uint32_t q;   /* alphabet size, 2..256 */
	uint32_t n;   /* codeword bits, 1..16, 2^n >= q */
	uint16_t *cw; /* N * q codewords */
};

/* Checks N, q and n (the message names what was wrong). */
int ids_code_check_size(uint32_t N, uint32_t q, uint32_t n, char *err, size_t errlen);
int ids_code_random(uint32_t N, uint32_t q, uint32_t n, uint64_t seed, struct ids_code **out,
                    char *err, size_t errlen);
int ids_code_watermark(uint32_t N, uint32_t q, uint32_t n, uint64_t seed, struct ids_code **out,
                       char *err, size_t errlen);
/* A codebook file's text (name is used in messages). */
int ids_code_parse(const char *text, const char *name, struct ids_code **out, char *err,
                   size_t errlen);
void ids_code_free(struct ids_code *code);

/* Symbols (N, each < q) -> n * N code bits, one per byte. */
void ids_code_encode(const struct ids_code *code, const uint8_t *sym, uint8_t *bits);

/* The BSID channel (the seed's section II-B): before each transmitted bit, insertions of a random
 * bit with probability pi each; then the bit is deleted with probability pd, or sent with
 * pt = 1 - pi - pd and flipped with probability ps. No insertion follows the last bit. */
struct ids_chan {
	double pi, pd, ps;
};

int ids_chan_check(const struct ids_chan *ch, char *err, size_t errlen);
/* n bits -> *nout received bits, at most max_out: insertions beyond it are not made (with
 * max_out = ids_bsid_max_out(n), 3n + 128, and pi <= 0.5, whose mean is at most n insertions,
 * a frame that reaches it is far rarer than any error rate measured here). */
void ids_bsid_apply(const struct ids_chan *ch, struct fec_prng *p, const uint8_t *bits, size_t n,
                    uint8_t *out, size_t max_out, size_t *nout);
size_t ids_bsid_max_out(size_t n);

/* Drift limits [*lo, *hi] for a segment of T transmitted bits: the smallest range around 0 that
 * the drift after T bits leaves with probability at most p_excl (half below, half above), from
 * its exact distribution under the BSID channel (the seed's reference [11]). */
int ids_drift_limits(const struct ids_chan *ch, uint32_t T, double p_excl, int *lo, int *hi,
                     char *err, size_t errlen);

#endif
