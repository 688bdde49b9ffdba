/*
 * Input health: whether a channel's soft input looks like what a decoder needs. The mistakes that
 * otherwise pass silently (LLRs far too large, clipped at the int8 extremes; LLRs far too small,
 * all near zero) show in stats.get, the metrics and a rate-limited warning. To keep the hot path
 * cheap, one job per batch is sampled, on the backend thread that finishes the batch
 * (health_sample); the loop only adds the sample up (health_account).
 */
#ifndef FECD_HEALTH_H
#define FECD_HEALTH_H

#include <stdint.h>

struct batch;
struct channel;

/* One sampled job, in the decoder's int8 units (0..127): float32 slots count at the layout's
 * scale, so that the same input reads the same whichever kind of slot the family takes. */
struct in_health {
	uint32_t syms;    /* symbols looked at (0: nothing sampled, q-ary input) */
	uint32_t clipped; /* of those, at the int8 extremes or beyond them */
	double abs_sum;   /* sum of |LLR| */
};

/* Symbols sampled per verdict: the warning and stats.get's recent figures follow this window. */
#define HEALTH_WINDOW_SYMS 16384
/* A window with at least this fraction of symbols clipped is "clipped"; one whose mean |LLR| is
 * below HEALTH_SMALL_MEAN int8 units is "small" (rounded to int8, most symbols are 0 or +-1). */
#define HEALTH_CLIP_FRAC  0.25
#define HEALTH_SMALL_MEAN 2.0

/* Samples the batch's first job (a backend thread; reads only the batch). */
void health_sample(const struct batch *b, struct in_health *out);
/* Adds a sample to the channel's figures; warns (at most every 30 s) when a window looks wrong. */
void health_account(struct channel *ch, const struct in_health *s);

#endif
