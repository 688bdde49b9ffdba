/*
 * Internal to codec/fano/: the fast path's search on accumulated code words (fano_lane.c), for
 * the codes whose K - 1 code words of n bits fit 64 bits (K <= 33 at n = 2, 22 at 3, 17 at 4).
 * One search direction of one frame is a lane; the UFA runs two frames' lanes in one loop (their
 * chains of decisions are independent: 0.3-0.8 cycles per bit faster than one frame a loop), the
 * BFA its two directions (struct blane). fano_fast.c builds the stage tables, starts the lanes and
 * turns what they decided into results; both files follow fano_decode.c's specification cycle for
 * cycle.
 */
#ifndef FANO_LANE_H
#define FANO_LANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The threshold's step, and its reciprocal: q = (x * dmul) >> dshift is x / delta for every
 * x < 2^30, the product in 64 bits (fano_fast_init). */
struct delta_k {
	int32_t delta;
	uint32_t dmask; /* -delta: a multiple of a power-of-two delta rounded down */
	unsigned dshift;
	uint64_t dmul;
};

/* The UFA's lanes keep a frame in blocks, one per depth t = 0..stages: the stage table's row of
 * depth t (2^n entries; zeros at depth stages, the last node's children), then the record of node
 * t of the current path, written on arrival: a lane moves along its frame with one pointer. The
 * decided inputs are in a byte array of their own (struct ulane's bp), which the output is packed
 * from: by a frame's end its first blocks have left the L1 cache, and reading one input per block
 * cost about 1.5 cycles per bit. */
struct ublock_rec {
	int32_t gamma;
	uint64_t reg; /* the node's register: its entry is row t's entry reg mod 2^n */
};

/* A block's bytes for n = 2..4. */
static inline size_t fano__ublock_bytes(unsigned n)
{
	return ((size_t)4 << n) + sizeof(struct ublock_rec);
}

/* The record in a block. */
static inline struct ublock_rec *fano__ublock_rec(uint8_t *blk, unsigned n)
{
	return (struct ublock_rec *)(blk + ((size_t)4 << n));
}

/* A UFA frame's search. Code words come from the node's register: the parts of the next K - 1
 * input-0 code words that the inputs already decided, n bits each, the node's own in the lowest;
 * deciding input b shifts it down by n bits and adds b times g (struct ulane_k), the code words
 * of an input at lags 1..K-1. */
struct ulane {
	uint8_t *p;                    /* the current node's block */
	uint8_t *base, *info_at, *end; /* the blocks of depth 0, frame_bits and stages */
	uint8_t *bp;   /* bits + the node's depth (bits[t]: depth t's input, 0 or 0xff) */
	uint64_t left; /* cycles left of the frame's budget */
	uint64_t reg;  /* the node's register and gamma (also in its record) */
	int32_t gamma;
	uint32_t tr; /* the branch to try next: its metric in bits 0..15, its input in 31 */
	int32_t T;
};

struct ulane_k {
	struct delta_k dk;
	uint64_t g;
	uint32_t g1; /* g's lowest code word */
};

/* Cycles of lane l until its end or its budget's; returns whether it reached the end. n = 2..4;
 * the table's tail rows are in fano_fast.c's tail form (input 0 first). */
bool fano__ufa_one(const struct ulane_k *k, struct ulane *l, unsigned n);

/* Two frames, a cycle of each in turn, until either reaches its end or its budget's end;
 * returns which one stopped (0: a, 1: b). */
unsigned fano__ufa_two(const struct ulane_k *k, struct ulane *a, struct ulane *b, unsigned n);

/* The BFA's lanes keep a frame in blocks too, one per stage s = -1..stages (block s at base +
 * s * S): stage s's row of the FD's table (zeros at s = -1 and stages, past each end), the BD's
 * row where its table differs (two: fano_fast.c's two_tabs), then the FD's record of its node of
 * depth s and the BD's of its node of depth stages - 1 - s (whose own entry is in row s). Each
 * lane moves one pointer, the FD forward from block 0, the BD backward from block stages - 1; the
 * records before either root are sentinels (a gamma below every threshold). The tail rows stay
 * as built: a stage is in the FD's tail and not in the BD's. */
static inline size_t fano__bblock_rec(unsigned n, bool two)
{
	return (two ? (size_t)8 : 4) << n;
}

static inline size_t fano__bblock_bytes(unsigned n, bool two)
{
	return fano__bblock_rec(n, two) + 2 * sizeof(struct ublock_rec);
}

/* Direction dir's record in block p. */
static inline struct ublock_rec *fano__bblock_recp(uint8_t *p, unsigned n, bool two, unsigned dir)
{
	return (struct ublock_rec *)(p + fano__bblock_rec(n, two)) + dir;
}

/* A BFA lane: its node's block, decided inputs and threshold, and the branch to try (as struct
 * ulane's). */
struct blane {
	uint8_t *p;
	uint8_t *bp;  /* bits + the node's depth */
	uint64_t reg; /* the node's register (also in its record) */
	uint32_t tr;
	int32_t T;
};

/* The frame's constants. */
struct blane_k {
	struct delta_k dk;
	uint64_t g[2];                    /* each direction's g (struct ulane_k's) */
	const uint8_t *fd_end, *bd_end;   /* blocks stages and -1: where each lane ends */
	const uint8_t *fd_info, *bd_info; /* blocks info and K - 1: the FD's nodes before fd_info,
	                                   * the BD's from bd_info on decide information bits */
	const uint8_t *fd_bits, *bd_bits;
	uintptr_t meet; /* fd_bits + bd_bits + info, as addresses (fano_lane.c's bfa) */
	uint32_t info;
	unsigned merge_len; /* K - 2 + merge */
	uint64_t budget;    /* cycles per frame, both directions together */
};

/* BFA: the forward lane fd and the backward lane bd in turn, the FD first, until one completes,
 * their paths merge or the budget is spent; returns the cycles used. done: 1 FD complete, 2 BD
 * complete, 3 merged at *at. */
uint64_t fano__bfa(const struct blane_k *k, struct blane *fd, struct blane *bd, unsigned n,
                   bool two, int *done, int64_t *at);

/* BFA's merge check after the FD decided input t = fd_depth - 1: a run of len inputs that both
 * decoders decided alike (the tail: zeros to both), ending at t; the input where the comparison
 * stopped successfully (the run's first, as fano_decode.c returns it), or -1. bd_bits[j] is the
 * BD's decision on information bit info - 1 - j. */
static inline int64_t fano__merge_after_fd(const uint8_t *fd_bits, uint32_t fd_depth,
                                           const uint8_t *bd_bits, uint32_t bd_depth, uint32_t info,
                                           unsigned len)
{
	const uint32_t lo = bd_depth >= info ? 0 : info - bd_depth;
	uint32_t t = fd_depth - 1, run = 0;

	if (t < lo)
		return -1;
	for (;;) {
		if (t < info && ((fd_bits[t] ^ bd_bits[info - 1 - t]) & 1u))
			return -1;
		if (++run == len)
			return t;
		if (t == lo)
			return -1;
		t--;
	}
}

/* After the BD's forward move onto an information bit: a run starting at it. */
static inline int64_t fano__merge_after_bd(const uint8_t *fd_bits, uint32_t fd_depth,
                                           const uint8_t *bd_bits, uint32_t bd_depth, uint32_t info,
                                           unsigned len)
{
	uint32_t run = 0;

	if (bd_depth > info)
		return -1; /* the BD's tail: nothing new to compare */
	for (uint32_t t = info - bd_depth; t < fd_depth; t++) {
		if (t < info && ((fd_bits[t] ^ bd_bits[info - 1 - t]) & 1u))
			return -1;
		if (++run == len)
			return info - bd_depth;
	}
	return -1;
}

#endif
