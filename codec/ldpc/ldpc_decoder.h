/*
 * Internal to codec/ldpc/: the LDPC decoder object that ldpc_coder.c builds, the portable decoder
 * (ldpc_decode.c, the reference for every combination of algorithm, schedule and input type) and
 * the SIMD passes (ldpc_decode_avx2.c) share. The arithmetic is the one codec/ldpc/ldpc.h writes
 * down.
 *
 * Layered decoding walks the rows layer by layer; the decoder keeps that walk flattened
 * ("schedule"): position p is the p-th row processed in an iteration, its edges' columns are
 * sched_col[sched_start[p] .. sched_start[p+1]-1], and layered check-to-variable messages are
 * stored in that order, so that an iteration reads and writes them front to back.
 */
#ifndef LDPC_DECODER_H
#define LDPC_DECODER_H

#include <stdbool.h>
#include <stdint.h>

#include "fec_impl.h"
#include "ldpc.h"

/* Frames per SIMD group: one int8 lane each in a 256-bit register. */
#define LDPC_GROUP 32

/* The single-frame pass over a cyclic structure (ldpc_cyc.c, ldpc_cyc_avx2.c, ldpc_cyc_avx512.c):
 * chunks of w rows of a group (32 with AVX2, 64 with AVX-512 and VBMI: at creation); per layer,
 * tasks (a group and the lanes of its rows in the layer, a mask per chunk) and short rows. */
struct ldpc_cyc_plan {
	uint32_t w, level;        /* rows per chunk, and the SIMD level the pass needs */
	uint32_t nchunks, zpad;   /* chunks per group; zpad = nchunks * w */
	uint32_t block_len;       /* a-posteriori values per block: z + 3 w, to a multiple of 32 */
	uint32_t max_slots;
	uint32_t nlayers;
	uint32_t *layer_task;     /* nlayers + 1, into task_group */
	uint32_t *task_group;
	uint64_t *task_mask;      /* nchunks per task */
	uint8_t *task_whole;      /* nchunks per task: stored whole (ldpc_cyc.c's plan_whole) */
	uint32_t *layer_short;    /* nlayers + 1, into short_row */
	uint32_t *short_row;
	uint64_t *syn_mask;       /* nchunks per group: lanes the vector syndrome checks */
	uint32_t *col_index;      /* n: column v's index in the a-posteriori array, with a flag */
	int32_t *chunk_at;        /* per group, chunk and slot: where its values start ... */
	int16_t *chunk_mirror;    /* ... and where their copy is (0: none), ldpc_cyc.c */
	uint32_t *block_col;      /* per block: column of its position 0 ... */
	uint32_t *block_step;     /* ... and the step to the next position's */
	uint32_t *block_run;      /* per block: blocks of a run it starts, loaded together (0: none) */
	bool emit_blocks;         /* the output bits are whole blocks of step 1 (ldpc_cyc.c) */
	uint8_t norm[128];        /* the check rule's normalised magnitude of 0..127 */
};

/* One frame's arrays in the cyclic pass. */
struct ldpc_cyc_work {
	int16_t *app;
	uint8_t *c2v;
	void *xbuf;     /* a chunk's incoming values past the unrolled degrees */
};

struct ldpc_decoder {
	struct fec_decoder base;
	struct ldpc_code *code;
	bool int8;                /* min-sum on int8 (ms/nms/oms with in=s8); else float */
	int alpha16;              /* nms: round(16 * alpha) */
	int offset8;              /* oms: round(offset * llr_scale), 0..127 */
	float inv_scale;          /* 1 / llr_scale */
	uint32_t out_n;           /* output bits per frame: k or n */
	const uint32_t *out_cols; /* column of output bit j (info_cols), NULL: column j (also where
	                           * the information columns are the first k) */
	uint32_t m;               /* rows, = schedule positions */
	uint32_t *sched_start;    /* m + 1 */
	uint32_t *sched_col;      /* nnz */
	uint32_t *sched_off; /* nnz: sched_col * 2 * LDPC_GROUP, byte offsets (SIMD int16 app) */
	uint32_t max_deg, max_col_deg;
	/* int8 layered min-sum on a code with a cyclic structure of z >= 2 w, at AVX2 or above,
	 * unless $FECD_LDPC_CYC is 0 at creation (to compare the SIMD passes) */
	struct ldpc_cyc_plan *cyc;
};

/* The family's spec_finish (ldpc.c) and object constructors (ldpc_coder.c). */
int ldpc__spec_finish(struct fec_spec *spec, char *err, size_t errlen);
int ldpc__decoder_create(const struct fec_spec *spec, struct fec_decoder **out);
int ldpc__encoder_create(const struct fec_spec *spec, struct fec_encoder **out);

/* fec_decode for the family: SIMD groups where the level and the arithmetic have them, else
 * the portable decoder one frame at a time. */
int ldpc__decode(const struct fec_decoder *dec, void *scratch, struct fec_batch *b, uint32_t first,
                 uint32_t count);
/* fec_decode_siso for the family: the portable decoder with priors added to the channel values
 * of the output bits' columns. */
int ldpc__decode_siso(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                      const float *prior, size_t prior_stride, uint32_t first, uint32_t count,
                      char *err, size_t errlen);
/* Scratch one thread needs for ldpc__decode (and ldpc__decode_siso). */
size_t ldpc__scratch_bytes(const struct ldpc_decoder *d);
/* Frames ldpc__decode takes together at the SIMD level current at creation (fec_info.job_group). */
uint32_t ldpc__job_group(const struct ldpc_decoder *d);

/* Whether a job's input is usable (in_len = n_tx); otherwise it is returned ERASED. */
bool ldpc__job_ok(const struct ldpc_decoder *d, struct fec_job *job);

/* Packs the hard decisions of the output columns of a frame whose int16 values (one per column)
 * are read at val[v * stride] (bit = value < 0), and their soft values (value / llr_scale) when
 * soft is set; fills the job's out_bits and soft_count. */
void ldpc__emit_i16(const struct ldpc_decoder *d, const int16_t *val, size_t stride, uint8_t *out,
                    float *soft, struct fec_job *job);

#if defined(FECD_SIMD_X86)
/* Min-sum on int8, either schedule, LDPC_GROUP frames at once (AVX2): the jobs idx[0 .. count-1] of
 * b, count <= LDPC_GROUP, all usable; lanes past count are padding. Bit-exact with the portable
 * decoder. Scratch: ldpc__avx2_scratch bytes. */
void ldpc__decode_group_avx2(const struct ldpc_decoder *d, void *scratch, struct fec_batch *b,
                             const uint32_t *idx, unsigned count);
size_t ldpc__avx2_scratch(const struct ldpc_decoder *d);

/* The cyclic pass: the plan (none, returning 0, where it does not apply: see
 * ldpc_cyc_plan), its scratch, one usable job of b (bit-exact with the portable decoder), and
 * the vector kernels its walk calls. */
int ldpc__cyc_plan_build(struct ldpc_decoder *d);
void ldpc__cyc_plan_free(struct ldpc_cyc_plan *p);
size_t ldpc__cyc_scratch(const struct ldpc_decoder *d);
void ldpc__decode_frame_cyc(const struct ldpc_decoder *d, void *scratch, struct fec_batch *b,
                            uint32_t i);
/* One chunk of rows (lanes of mask; all: UINT32_MAX for w = 32, UINT64_MAX for 64) of a group of
 * deg slots: slot i's values at app + at[i] (and mirror[i] further where non-zero), its messages
 * at c + i zpad; whole: the lanes outside mask are padding rows past z, stored back unchanged
 * (plan_whole), so that the chunk is stored as a full one. Parity: whether a lane of mask has odd
 * parity over the slots' hard decisions. */
void ldpc__cyc_chunk_avx2(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk,
                          const int32_t *at, const int16_t *mirror, uint32_t deg, uint64_t mask,
                          bool whole, uint8_t *c);
bool ldpc__cyc_parity_avx2(const int16_t *app, const int32_t *at, uint32_t deg, uint64_t mask);
/* Input values run j + i (j < z, i < run; run, z >= 16) as channel values (ldpc.h: -128 is
 * -127) to dst[i block_len + j]: a run of blocks (ldpc_cyc.c's load_run). */
void ldpc__cyc_load_run_avx2(const int8_t *src, int16_t *dst, uint32_t run, uint32_t z,
                             size_t block_len);
/* n >= 16 input values as channel values to dst. */
void ldpc__cyc_load_avx2(const int8_t *src, int16_t *dst, uint32_t n);
/* The hard decisions of n values (a multiple of 8) as n / 8 bytes, the first value in the top
 * bit of the first byte. */
void ldpc__cyc_emit_avx2(const int16_t *v, uint32_t n, uint8_t *out);
void ldpc__cyc_chunk_avx512(const struct ldpc_decoder *d, struct ldpc_cyc_work *wk,
                            const int32_t *at, const int16_t *mirror, uint32_t deg, uint64_t mask,
                            bool whole, uint8_t *c);
bool ldpc__cyc_parity_avx512(const int16_t *app, const int32_t *at, uint32_t deg, uint64_t mask);
#endif

/* The int8 check rule's normalisation (ldpc.h) of a magnitude m, 0..127. */
int ldpc__norm8(const struct ldpc_decoder *d, int m);

/* The portable int8 check rule (ldpc.h): x's deg incoming values to the messages c. */
void ldpc__check_ms8(const struct ldpc_decoder *d, const int8_t *x, int8_t *c, uint32_t deg);

#endif
