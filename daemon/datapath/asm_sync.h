/*
 * Frame synchronisation on an attached sync marker (CCSDS 131.0-B's ASM, 0x1ACFFC1D by default):
 * finds where frames start in a raw stream of int8 soft symbols. Pure code over a small state, no
 * I/O, so that it is tested alone (tests/integration/test_asm_sync.c) and the channel only moves
 * symbols through it.
 *
 * The test at a position is a normalised soft correlation of the last `bits` symbols x_i with the
 * marker's BPSK signs s_i (bit 0 -> +1, as a positive LLR favours 0):
 *     corr = sum(x_i * s_i) / sum(|x_i|),   in -1..1 (0 when every x_i is 0);
 * a negative corr is the marker with inverted polarity, and the frame after it is negated.
 * Two states, as a ground station's frame synchroniser:
 *  - searching: slides one symbol at a time, accepts when |corr| >= threshold (strict: random
 *    data must almost never pass, as every position is a chance to);
 *  - locked (a frame just ended): one test where the next marker must be, accepted when corr
 *    has the last marker's sign and |corr| >= lock_threshold (looser: one position, and a
 *    noisy marker must still pass), or, as a search would accept it, |corr| >= threshold.
 *    On failure, with `flywheel` F > 0 and fewer than F failures in a row so far, the window
 *    and the frame_syms symbols after it are given up unread and the next marker is expected
 *    right after them (the timing is kept: a damaged marker costs its own frame only); else the
 *    search slides on from that position.
 * Nothing is ever guessed: a frame is produced only after a marker that passed a test.
 */
#ifndef FECD_ASM_SYNC_H
#define FECD_ASM_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ASM_SYNC_MAX_BITS 64

/* What the channel configures: the marker (first sent bit in bit bits-1, bits 8..64), the two
 * thresholds (0..1), the flywheel and the frame length it skips over. */
struct asm_sync_params {
	uint64_t marker;
	unsigned bits;
	float threshold;      /* searching */
	float lock_threshold; /* at the expected position, locked */
	unsigned flywheel;    /* failed locked tests in a row that keep the timing */
	uint32_t frame_syms;  /* symbols after a marker that make its frame */
};

struct asm_sync {
	/* the marker and the rules */
	int8_t sign[ASM_SYNC_MAX_BITS]; /* +1 / -1, in sent order */
	unsigned bits;
	float threshold, lock_threshold;
	unsigned flywheel;
	uint32_t frame_syms;
	/* the last symbols seen, a ring of `bits` */
	int8_t ring[ASM_SYNC_MAX_BITS];
	unsigned head, have;
	bool locked;   /* a frame just ended: one test when the ring fills, no sliding before it */
	bool inverted; /* the polarity of the last marker accepted */
	unsigned misses; /* failed locked tests in a row */
	uint32_t coast;  /* flywheel: symbols of a frame still to give up before the next test */
};

/* What one asm_sync_scan call saw. */
struct asm_scan {
	bool found;       /* a marker ends at the last symbol consumed */
	bool inverted;    /* its correlation was negative */
	unsigned missed;  /* locked tests that failed (the marker was not where it was expected) */
	float corr;       /* found: its correlation */
	uint64_t skipped; /* symbols given up (searched past, or skipped by the flywheel) */
};

/* Sets the marker and the rules. Returns 0, or -1 when out of range. Keeps what the ring holds,
 * and the lock, when the length stays the same (a live change between codes with the same marker
 * length), else empties it: *dropped gets the symbols that were in it. */
int asm_sync_config(struct asm_sync *s, const struct asm_sync_params *p, uint64_t *dropped);

/* Normalised correlation of bits symbols x with the marker. */
float asm_sync_corr(const struct asm_sync *s, const int8_t *x);

/* Consumes symbols from in[0..n) until a marker ends (res->found; the frame starts at
 * in[returned]) or n run out. Returns the number consumed. */
size_t asm_sync_scan(struct asm_sync *s, const int8_t *in, size_t n, struct asm_scan *res);

/* The frame after a marker has been taken: expect the next marker at once. */
void asm_sync_expect(struct asm_sync *s);

/* Forgets the stream (it ended, or messages were lost): back to searching with an empty ring.
 * Returns the symbols the ring held (given up). A flywheel skip in progress ends (its symbols
 * were counted as they went). */
unsigned asm_sync_reset(struct asm_sync *s);

/* Symbols held in the ring, not yet given up or taken as a marker. */
static inline unsigned asm_sync_held(const struct asm_sync *s)
{
	return s->have;
}

/* True when only the rest of one marker is needed before the next test (the caller may convert
 * just that many symbols). */
static inline bool asm_sync_expecting(const struct asm_sync *s)
{
	return s->locked && !s->coast;
}

#endif
