/*
 * The conformance cases every family must pass, built from the codec's own tables so that a new
 * family or preset is covered without a line here: each family's defaults (where they name a
 * code by themselves) and every preset. A case is one code with two batches of jobs laid out
 * as the daemon lays them out (a stream cut into overlapping blocks, or one frame per job): the
 * sent codewords without noise, and the same codewords through AWGN. test_conformance (CPU:
 * round trip, SIMD levels against portable, bad parameters) and test_gpu_conformance (GPU
 * against CPU) run them.
 */
#ifndef CONFORMANCE_H
#define CONFORMANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fec.h"

/* One batch's inputs: pristine jobs (copied before each decode) and their symbols. */
struct conf_batch {
	uint32_t count;
	struct fec_job *jobs;
	int8_t *in;  /* FEC_IN_S8_LLR */
	float *in_f; /* FEC_IN_F32_LLR */
	size_t in_stride;
};

struct conf_case {
	char name[64];  /* the preset's or family's name */
	char text[128]; /* the code's text form it was built from */
	struct fec_spec spec;
	struct fec_decoder *dec;
	const struct fec_info *info;
	uint8_t *bits; /* information bits sent, one per byte, in job order */
	size_t nbits;
	struct conf_batch clean, noisy;
	size_t out_stride, soft_stride; /* soft_stride 0: the code has no soft output */
};

/* One decode's outputs. */
struct conf_result {
	struct fec_job *jobs;
	uint8_t *out;
	float *soft;
};

/* Case i (0 .. conf_case_count() - 1): families first, then presets. */
unsigned conf_case_count(void);
/* Builds case i. 0; 1 when it is skipped (why says so: a family whose defaults name no code, a
 * code file absent from the codes folder); < 0 on failure (why says what failed). */
int conf_case_open(unsigned i, struct conf_case *c, char *why, size_t whylen);
void conf_case_close(struct conf_case *c);

/* Output buffers for a batch of c, filled with a pattern no decoder writes by chance. */
int conf_result_alloc(const struct conf_case *c, const struct conf_batch *b, struct conf_result *r);
void conf_result_free(struct conf_result *r);
/* The fec_batch that decodes b into r (r's jobs reset from b's). */
struct fec_batch conf_batch_view(const struct conf_case *c, const struct conf_batch *b,
                                 struct conf_result *r);
/* Decodes b on the CPU into r, in two calls over disjoint ranges as two threads would. */
int conf_decode_cpu(const struct conf_case *c, const struct conf_batch *b, struct conf_result *r);

/* Whether r carries exactly the bits sent (every job DECODED): 0, or -1 with why. */
int conf_check_round_trip(const struct conf_case *c, const struct conf_batch *b,
                          const struct conf_result *r, char *why, size_t whylen);
/* Compares two decodes of b job by job: status, out_bits, soft_count and work equal, the output
 * bytes equal, and metric and soft values equal (tol 0: bit for bit), within tol relatively
 * (tol > 0), or, with tol CONF_SIGNS_ONLY, the metric within 1e-3 and soft values of the same
 * sign (float rules whose device functions round differently, as spa's tanh: the magnitudes part
 * over the iterations while every decision agrees).
 * 0, or -1 with the first difference in why. */
#define CONF_SIGNS_ONLY (-1.0f)
int conf_compare(const struct conf_case *c, const struct conf_batch *b, const struct conf_result *a,
                 const struct conf_result *r, float tol, char *why, size_t whylen);

#endif
