/*
 * Channel models: what the link between an encoder and fecd does to the code bits, as the
 * receiver hands them on: received soft values (float LLRs, log(P0/P1): positive favours 0), for
 * the feed, the tests and the benchmarks.
 *
 * A model is one entry of the table in channel_model.c: its name, its parameters (real numbers with
 * bounds and defaults, set in the text form "NAME[,KEY=VALUE...]"), the most values it gives for
 * n code bits (a model with insertions gives more, one with deletions fewer: callers size their
 * buffers by it) and the function that applies it. A channel is a model with its parameters and
 * the link it runs on (Eb/N0 and the code's rate): plain data, copied by assignment, the same
 * output for the same PRNG state on every machine.
 *
 *   awgn   BPSK (bit 0 -> +1, bit 1 -> -1) over white Gaussian noise at the link's Eb/N0
 *          (awgn.h), one LLR per code bit: what fecd-feed has always sent
 *   bsid   the ids family's channel (codec/ids/ids_code.h): insertions (pi), deletions (pd) and
 *          substitutions (ps) on the code bits, then awgn on what is received; the length
 *          changes, up to 3n + 128 values
 *
 * Functions return 0 or a negative FEC_E* code with a message in err.
 */
#ifndef FEC_CHANNEL_MODEL_H
#define FEC_CHANNEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prng.h"

/* The link a channel runs on. */
struct fec_channel_link {
	double ebn0_db; /* energy per information bit over the noise density, dB */
	double rate;    /* the code's rate: information bits per code bit sent, > 0 */
	bool noiseless; /* no noise: each value is what the model gives without it */
};

/* One parameter of a model: a real number in [min, max]. */
struct fec_channel_param {
	const char *name;
	double min, max, def;
	const char *help;
};

#define FEC_CHANNEL_MAX_PARAMS 8

struct fec_channel;

struct fec_channel_model {
	const char *name;
	const char *help;                       /* one line: what it does */
	const struct fec_channel_param *params; /* terminated by a NULL name */
	/* Most values apply gives for n code bits. */
	size_t (*max_out_len)(const struct fec_channel *ch, size_t n);
	/* Mean LLR of a received 0 bit: what a quantizer scales to its range. */
	double (*llr_mean)(const struct fec_channel *ch);
	/* n code bits (one per byte, 0 or 1) -> *nout received values (at most max_out_len(n)),
	 * drawing what is random from p. */
	int (*apply)(const struct fec_channel *ch, struct fec_prng *p, const uint8_t *bits,
	             size_t n, float *out, size_t *nout);
};

struct fec_channel {
	const struct fec_channel_model *model;
	struct fec_channel_link link;
	double sigma; /* BPSK noise per real dimension for the link (0: noiseless) */
	double param[FEC_CHANNEL_MAX_PARAMS]; /* the model's parameters, in its table's order */
};

/* The models, and lookups. */
unsigned fec_channel_model_count(void);
const struct fec_channel_model *fec_channel_model_at(unsigned i);
const struct fec_channel_model *fec_channel_model_by_name(const char *name);

/* A channel from its text form ("awgn", "NAME,KEY=VALUE,...": parameters not given keep their
 * defaults) on a link; the message names the model or parameter that was wrong and what was
 * expected. */
int fec_channel_open(const char *text, const struct fec_channel_link *link, struct fec_channel *out,
                     char *err, size_t errlen);
size_t fec_channel_max_out_len(const struct fec_channel *ch, size_t n);
double fec_channel_llr_mean(const struct fec_channel *ch);
int fec_channel_apply(const struct fec_channel *ch, struct fec_prng *p, const uint8_t *bits,
                      size_t n, float *out, size_t *nout);

#endif
