/*
 * The fano family: terminated rate-1/n convolutional codes of long constraint length (K up to 64),
 * decoded sequentially by the Fano algorithm, unidirectional (UFA) or bidirectional (BFA, after Xu
 * et al., as the seed, Ates 2014, implements it).
 *
 * A frame is frame_bits information bits followed by K-1 zero tail bits; each of its
 * frame_bits + K - 1 trellis stages sends n code bits, output 1 first. Polynomials are given in
 * one of two notations, which name the same taps:
 *   - octal (the viterbi family's): the most significant of the K bits taps the current input
 *     bit, so a code with K <= 9 means the same in both families (CCSDS: 171, 133);
 *   - karn (Karn's libfec fano.c and WSJT-X's wsprd, in hexadecimal): the least significant bit
 *     taps the current input bit (WSPR: 0xf2d05351, 0xe4613c47).
 * fano.c's parameter table documents each parameter; fano_decode.c the decoder's exact arithmetic
 * and how it counts cycles.
 */
#ifndef FANO_H
#define FANO_H

#include <stdint.h>

#define FANO_K_MIN          3
#define FANO_K_MAX          64
#define FANO_N_MIN          2
#define FANO_N_MAX          4
#define FANO_FRAME_BITS_MAX 65536
#define FANO_CYCLES_MAX     65000 /* per stage: cycles * (65536 + 63) stages fits fec_job.work */
#define FANO_DELTA_MAX      65536
#define FANO_MERGE_MAX      16

enum fano_notation {
	FANO_NOTATION_OCTAL = 1, /* polys: top bit taps the current input (viterbi's) */
	FANO_NOTATION_KARN = 2,  /* polys_karn: bit 0 taps the current input (Karn's, WSJT-X's) */
};

enum fano_algo {
	FANO_ALGO_UFA = 1, /* one decoder, from the frame's start */
	FANO_ALGO_BFA = 2, /* a forward and a backward decoder in turn, until their paths merge */
};

struct fano_spec {
	uint8_t k; /* constraint length */
	uint8_t n; /* outputs per input bit */
	enum fano_notation
	    notation; /* the list given last (not a parameter); finish derives the other */
	uint64_t polys[FANO_N_MAX];      /* octal notation: bit K-1 taps the current input */
	uint64_t polys_karn[FANO_N_MAX]; /* Karn's notation: bit 0 taps the current input */
	uint32_t frame_bits;             /* information bits per frame */
	enum fano_algo algo;
	uint32_t delta;  /* threshold step, in metric units (1/16 bit) */
	uint32_t cycles; /* search cycles allowed per trellis stage (information and tail bits) */
	uint8_t merge;   /* BFA: consecutive trellis nodes both paths must share to merge */
};

#endif
