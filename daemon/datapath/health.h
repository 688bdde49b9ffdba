/*
 * Input health: whether a channel's soft input looks like what a decoder needs. The mistakes that
 * otherwise pass silently (LLRs far too large, clipped at the int8 extremes; LLRs far too small,
 * all near zero; an inverted polarity, where the family can tell: fec_input_polarity) show in
 * stats.get, the metrics and a rate-limited warning. To keep the hot path
 * cheap, a batch's first jobs (a few thousand symbols, one job of a stream) are sampled, on the
 * backend thread that finishes the batch (health_sample); the loop only adds the sample up
 * (health_account).
 */
#ifndef FECD_HEALTH_H
#define FECD_HEALTH_H

#include <stdint.h>

struct batch;
struct channel;

/* A batch's sample, in the decoder's int8 units (0..127): float32 slots count at the layout's
 * scale, so that the same input reads the same whichever kind of slot the family takes. */
struct in_health {
	uint32_t syms;    /* symbols looked at (0: nothing sampled, q-ary input) */
	uint32_t clipped; /* of those, at the int8 extremes or beyond them */
	double abs_sum;   /* sum of |LLR| */
	/* fec_input_polarity of the job (all 0 where the family cannot tell) */
	uint32_t checks, unsat, unsat_negated;
};

/* A batch's first jobs are sampled until they make this many symbols (one job of a stream) */
#define HEALTH_SAMPLE_SYMS 4096
/* Symbols sampled per verdict: the warning and stats.get's recent figures follow this window. */
#define HEALTH_WINDOW_SYMS 16384
/* A window with at least this fraction of symbols clipped is "clipped"; one whose mean |LLR| is
 * below HEALTH_SMALL_MEAN int8 units is "small" (rounded to int8, most symbols are 0 or +-1). */
#define HEALTH_CLIP_FRAC  0.25
#define HEALTH_SMALL_MEAN 2.0
/* A window is "inverted" when at least HEALTH_UNSAT_FRAC of the decided checks are unsatisfied
 * as received and fewer than half as many would be with the input negated. Right input at a BER
 * of a few percent leaves a few percent to 20 % of a check of degree 7 unsatisfied; inverted,
 * nearly every check of odd degree is. */
#define HEALTH_UNSAT_FRAC 0.25

/* Samples the batch's first jobs (a backend thread; reads only the batch). */
void health_sample(const struct batch *b, struct in_health *out);
/* Adds a sample to the channel's figures; warns (at most every 30 s) when a window looks wrong. */
void health_account(struct channel *ch, const struct in_health *s);

#endif
