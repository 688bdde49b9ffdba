/*
 * Helpers shared by the codec tests: a batcher that cuts an encoded stream into the overlapping
 * jobs the daemon would send (same rules: owned blocks of block_syms, up to head_syms before and
 * tail_syms after, START/END flags at the edges), a frame decoder for one frame, a channel
 * that turns code bits into int8 LLRs, and the LDPC frame-error count behind test_ldpc_fer and
 * ldpc_fer.
 */
#ifndef CODEC_UTIL_H
#define CODEC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "fec.h"
#include "prng.h"

/* Cuts nsym symbols of a stream into jobs of block_syms owned symbols (0: info->block_syms),
 * each with up to head_syms before and tail_syms after, into in at stride bytes per job (jobs
 * and in hold enough for ceil(nsym / block) jobs). Returns the number of jobs. */
size_t util_cut_stream(const struct fec_info *info, const int8_t *syms, size_t nsym,
                       uint32_t block_syms, struct fec_job *jobs, int8_t *in, size_t stride);

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

/* Union bound on the bit error rate of the CCSDS K=7 code at rate `rate`:
 * Pb <= sum_d B_d Q(sqrt(2 d R Eb/N0)), B_10..B_18 = 36, 211, 1404, 11633, 77433. */
double util_union_bound_ccsds(double ebn0_db, double rate);

/* A stream decoder under test: nsym symbols into bits (one per byte); returns the number of bits,
 * or < 0 when decoding failed or a job came back erased. */
typedef long (*util_stream_fn)(void *arg, const struct fec_decoder *dec, const int8_t *syms,
                               size_t nsym, uint8_t *bits);

/* Bit errors over nbits seeded bits of `code` through the encoder, AWGN at ebn0 and the s8
 * quantizer with llr_scale, decoded by fn; < 0 when anything failed. */
long util_stream_errors(const char *code, double ebn0, size_t nbits, uint64_t seed, float llr_scale,
                        util_stream_fn fn, void *arg);

/* fn's bit errors on nbits seeded bits of a CCSDS stream (util_stream_errors) against the union
 * bound at ebn0: at most N x bound + 3 sigma, sigma from Poisson error events of about 4 bits
 * each (B_10 / A_10 = 36 / 11). Prints the count, label first ("GPU ", or ""); 0, or -1 with why
 * (decoding failed, or too many errors). */
int util_check_union_bound_ccsds(const char *label, double ebn0, size_t nbits, uint64_t seed,
                                 float llr_scale, util_stream_fn fn, void *arg, char *why,
                                 size_t whylen);

/* What util_ldpc_frame_errors counted. */
struct util_fer {
	unsigned frames;   /* frames sent */
	unsigned errors;   /* of them, those not DECODED or with a wrong information bit */
	double mean_iters; /* iterations per frame */
	double cpu_s;      /* this thread's CPU time in fec_decode */
};

/* Sends `frames` frames of the LDPC code `text` (the ldpc family, or nbldpc with bit input:
 * seeded random information bits through the encoder, BPSK over AWGN at ebn0 dB for rate k/n_tx,
 * then int8 LLRs at the spec's llr_scale, or float32 LLRs with in=f32) and decodes them, 64 at a
 * time. An nbldpc code and the ldpc family on its binary image (whose encoder gives the same
 * codewords, test_nbldpc_image) get the same frames from the same seed. 0, or -1 when the code cannot be
 * built (with a message on stderr). The same seed gives the same frames and noise for every
 * decoder setting of one code. */
int util_ldpc_frame_errors(const char *text, double ebn0, unsigned frames, uint64_t seed,
                           struct util_fer *out);

#endif
