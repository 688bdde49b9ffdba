/*
 * Internal to codec/fano/: the fast CPU path of the Fano decoders (fano_fast.c). It gives exactly
 * what fano_decode.c's reference gives (bits, status, work, metric), UFA and BFA, and is used
 * wherever its 32-bit metrics cannot overflow for the decoder's budget and delta (usable); the
 * reference, kept as written, decodes the rest and whatever runs at the "portable" SIMD level.
 */
#ifndef FANO_FAST_H
#define FANO_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fano_code.h"

struct fano_fast {
	const struct fano_code *code;
	int32_t delta;
	unsigned dshift; /* x / delta = (x * dmul) >> dshift for x < 2^30 (fano_lane.h) */
	uint64_t dmul;
	uint64_t budget;    /* cycles per frame */
	unsigned merge_len; /* BFA: K - 2 + merge */
	bool bfa;
	bool two_tabs; /* BFA whose backward code's c1 differs: a stage table per direction */
	bool usable;   /* no metric, threshold or difference of them can leave int32 */
	/* Per direction, output r and LLR q (as a byte), from ((r * 256) + q) * 2^(n+1): output
	 * r's metric in each code word w < 2^n, then in each w ^ c1 (c1 the code word of the
	 * current input alone) */
	int16_t vt[2][FANO_N_MAX * 256 * 32];
};

/* Sets f up for the decoder's code, metric table (met[bit][int8 LLR + 128], the reference's) and
 * parameters (c must outlive it). */
void fano_fast_init(struct fano_fast *f, const struct fano_code *c, const int32_t met[2][256],
                    uint32_t delta, uint64_t budget, unsigned merge_len, bool bfa);

/* Scratch bytes fano_fast_frame needs (any malloc alignment). */
size_t fano_fast_scratch_bytes(const struct fano_fast *f);

/* Where fano_fast_frames gets its frames: the next frame's int8 LLRs (c->stages * c->n of them,
 * read only before the next call), its job (for status, work, metric, out_bits, soft_count) and
 * its output (packed bits, first bit in the top bit of out[0]); NULL when there are no more. */
typedef const int8_t *(*fano_fast_next_fn)(void *ctx, struct fec_job **job, uint8_t **out);

/* Decodes every frame next gives (the UFA two at a time). f->usable must hold. */
void fano_fast_frames(const struct fano_fast *f, void *scratch, fano_fast_next_fn next, void *ctx);

#endif
