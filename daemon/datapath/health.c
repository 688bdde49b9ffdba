/*
 * Input health (health.h): a sample of each batch's first jobs, taken on the backend thread, and
 * the per-channel sums and verdicts kept on the loop thread. What the figures mean for a user, and
 * which mistakes they show, is README's "Troubleshooting soft input".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "channel.h"
#include "health.h"
#include "log.h"
#include "service.h"

#define HEALTH_LOG_INTERVAL_NS (30ull * 1000000000ull)

/* One job's symbols added to out. */
static void sample_job(const struct batch *b, uint32_t i, struct in_health *out)
{
	const struct fec_batch *fb = &b->task.batch;
	const struct slot_layout *sl = &b->ep->slot;
	const struct fec_job *j = &fb->jobs[i];
	/* A stream job's head repeats the previous job's tail: only its own symbols count. */
	uint32_t first = b->stream ? j->head_len : 0, n = b->stream ? j->own_len : j->in_len;
	uint32_t clipped = 0;
	double sum = 0;

	if (sl->kind == FEC_IN_S8_LLR) {
		const int8_t *in = fb->in + (size_t)i * fb->in_stride + first;
		struct fec_polarity pol;

		for (uint32_t t = 0; t < n; t++) {
			int v = in[t] < 0 ? -in[t] : in[t];

			sum += v;
			clipped += v >= 127;
		}
		/* Frames only: a stream job is no whole codeword. A family that cannot tell gives
		 * nothing. */
		if (!b->stream && fec_input_polarity(b->ep->dec, in, n, &pol) == 0) {
			out->checks += pol.checks;
			out->unsat += pol.unsat;
			out->unsat_negated += pol.unsat_negated;
		}
	} else {
		const float *in = fb->in_f32 + (size_t)i * fb->in_stride + first;
		const float scale = sl->llr_scale;

		for (uint32_t t = 0; t < n; t++) {
			float v = fabsf(in[t]) * scale;

			sum += v;
			clipped += v >= 127.0f;
		}
	}
	out->syms += n;
	out->clipped += clipped;
	out->abs_sum += sum;
}

void health_sample(const struct batch *b, struct in_health *out)
{
	const struct slot_layout *sl = &b->ep->slot;

	*out = (struct in_health){0};
	/* q-ary log-probabilities are no bit LLRs */
	if (sl->vals != 1 || (sl->kind != FEC_IN_S8_LLR && sl->kind != FEC_IN_F32_LLR))
		return;
	for (uint32_t i = 0; i < b->count && out->syms < HEALTH_SAMPLE_SYMS; i++)
		sample_job(b, i, out);
}

/* Which mistake a window of samples looks like, or NULL when it looks fine. */
static const char *health_verdict(const struct chan_stats_acc *st)
{
	double clipped_frac = st->health_frac, mean_abs = st->health_mean;

	if (st->hw_checks && st->hw_unsat >= HEALTH_UNSAT_FRAC * (double)st->hw_checks &&
	    2 * st->hw_unsat_negated < st->hw_unsat)
		return "inverted";
	if (clipped_frac >= HEALTH_CLIP_FRAC)
		return "clipped";
	if (mean_abs < HEALTH_SMALL_MEAN)
		return "small";
	return NULL;
}

static void health_warn(struct channel *ch, const struct chan_stats_acc *st)
{
	const char *verdict = st->health_verdict;
	double frac = st->health_frac, mean = st->health_mean;
	struct ratelimit *rl = &ch->rl_health;
	unsigned skipped;
	char buf[48];
	const char *note;

	rl->interval_ns = HEALTH_LOG_INTERVAL_NS;
	if (!ratelimit_ok(rl, now_ns(), &skipped))
		return;
	note = ratelimit_note(skipped, buf, sizeof(buf));
	if (!strcmp(verdict, "inverted"))
		log_warn("channel %s: input looks inverted: %.0f%% of the code's checks fail on "
		         "the hard decisions as received, %.0f%% with every symbol negated; send "
		         "polarity one (FECD_IN_POLARITY_ONE) or negate the LLRs at the source%s",
		         ch->cfg.name, 100.0 * st->health_unsat_frac,
		         100.0 * st->health_unsat_neg_frac, note);
	else if (!strcmp(verdict, "clipped"))
		log_warn(
		    "channel %s: input looks clipped: %.0f%% of sampled symbols at the int8 "
		    "extremes (mean |LLR| %.1f of 127): LLRs far too large, soft information is "
		    "lost; lower the sender's scale or input.llr_scale%s",
		    ch->cfg.name, 100.0 * frac, mean, note);
	else
		log_warn(
		    "channel %s: input looks far too small: mean |LLR| %.2f of 127, most symbols "
		    "round to 0; raise the sender's scale or input.llr_scale%s",
		    ch->cfg.name, mean, note);
}

void health_account(struct channel *ch, const struct in_health *s)
{
	struct chan_stats_acc *st = &ch->stats;

	if (!s->syms)
		return;
	st->health_syms += s->syms;
	st->health_clipped += s->clipped;
	st->health_abs += s->abs_sum;
	st->hw_syms += s->syms;
	st->hw_clipped += s->clipped;
	st->hw_abs += s->abs_sum;
	st->hw_checks += s->checks;
	st->hw_unsat += s->unsat;
	st->hw_unsat_negated += s->unsat_negated;
	if (st->hw_syms < HEALTH_WINDOW_SYMS)
		return;
	st->health_frac = (double)st->hw_clipped / (double)st->hw_syms;
	st->health_mean = st->hw_abs / (double)st->hw_syms;
	st->health_checks = st->hw_checks;
	st->health_unsat_frac = st->hw_checks ? (double)st->hw_unsat / (double)st->hw_checks : 0;
	st->health_unsat_neg_frac =
	    st->hw_checks ? (double)st->hw_unsat_negated / (double)st->hw_checks : 0;
	st->health_windows++;
	st->health_verdict = health_verdict(st);
	if (st->health_verdict) {
		st->health_warnings++;
		health_warn(ch, st);
	}
	st->hw_syms = st->hw_clipped = 0;
	st->hw_checks = st->hw_unsat = st->hw_unsat_negated = 0;
	st->hw_abs = 0;
}
