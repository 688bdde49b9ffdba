/*
 * Helpers shared by the codec tests: a batcher that cuts an encoded stream into the overlapping
 * jobs the daemon would send (same rules: owned blocks of block_syms, up to head_syms before and
 * tail_syms after, START/END flags at the edges), a frame decoder for one frame, and a channel
 * that turns code bits into int8 LLRs.
 */
#ifndef CODEC_UTIL_H
#define CODEC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "fec.h"
#include "prng.h"

/* Decodes nsym symbols of a stream (whole puncturing periods) into bits (one per byte), with
 * owned blocks of block_syms (0: the decoder's info->block_syms). Returns the number of bits
 * decoded, or a negative FEC_E* code; *erased counts jobs that came back erased. */
long util_decode_stream(const struct fec_decoder *dec, const int8_t *syms, size_t nsym,
                        uint32_t block_syms, uint8_t *bits, unsigned *erased);

/* Decodes one frame of nsym symbols; returns bits decoded (or -1 when the job was erased). */
long util_decode_frame(const struct fec_decoder *dec, const int8_t *syms, size_t nsym,
                       uint8_t *bits, float *metric);

/* Code bits -> BPSK over AWGN at ebn0_db (sigma 0 when ebn0_db is huge) -> int8 LLRs through the
 * s8 quantizer with llr_scale. */
void util_channel_s8(struct fec_prng *p, const uint8_t *code, size_t n, double ebn0_db, double rate,
                     float llr_scale, int8_t *out);

#endif
