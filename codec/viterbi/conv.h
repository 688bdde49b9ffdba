/*
 * Convolutional codes: definitions, presets and puncturing, for the Viterbi family.
 *
 * Rate 1/n (n = 2..4) feed-forward codes of constraint length K = 3..9. Generator polynomials are
 * written in octal with the most significant of their K bits tapping the current input bit (the
 * convention of the CCSDS and DVB-S standards: CCSDS K=7 is G1 = 171, G2 = 133, sent G1 first with
 * G2 inverted). Puncturing deletes code bits by a pattern of one row per output and `period`
 * columns; the symbols that survive are sent time-major (all outputs of step t before step t+1).
 *
 * Every block and frame starts at puncturing step 0, so stream geometry (decode_len,
 * traceback_len, head_len, in trellis stages = decoded bits) is rounded up to whole periods when
 * a spec is finished, and a frame must span whole periods: nbits (+ K-1 when terminated) a
 * multiple of punct_period, or the encoder refuses it and the decoder returns it ERASED.
 * conv.c's parameter table documents each parameter's text form; viterbi.c documents the
 * decoder's exact arithmetic.
 */
#ifndef CONV_H
#define CONV_H

#include <stdint.h>

#define CONV_K_MIN 3
#define CONV_K_MAX 9
#define CONV_N_MIN 2
#define CONV_N_MAX 4
#define CONV_PUNCT_MAX 16 /* longest puncturing period */

enum conv_mode {
	CONV_MODE_STREAM = 1,     /* continuous stream decoded as parallel overlapping blocks (PBVD) */
	CONV_MODE_TERMINATED = 2, /* frames with K-1 zero tail bits: start and end in state 0 */
	CONV_MODE_TRUNCATED = 3,  /* frames with no tail: start in state 0, end in the best state */
};

struct conv_spec {
	uint8_t k;                       /* constraint length */
	uint8_t n;                       /* outputs per input bit */
	uint16_t polys[CONV_N_MAX];      /* generator polynomials, K bits each */
	uint8_t invert;                  /* bit r set: output r is inverted */
	uint8_t punct_period;            /* 1: not punctured */
	uint16_t punct[CONV_N_MAX];      /* per output, bit (period-1-t) set: step t's bit is sent */
	enum conv_mode mode;
	uint32_t decode_len;             /* stream: D, decoded stages per block */
	uint32_t traceback_len;          /* stream: L, stages after the block (traceback) */
	uint32_t head_len;               /* stream: M, stages before the block (metric warm-up) */
	uint32_t max_frame_bits;         /* frames: largest number of information bits per frame */
};

#endif
