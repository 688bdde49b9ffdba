/*
 * Input health (health.h): a sample of one job per batch, taken on the backend thread, and the
 * per-channel sums and verdicts kept on the loop thread. What the figures mean for a user, and
 * which mistakes they show, is README's "Troubleshooting soft input".
 */
#include <math.h>
#include <stdio.h>

#include "channel.h"
#include "health.h"
#include "log.h"
#include "service.h"

#define HEALTH_LOG_INTERVAL_NS (30ull * 1000000000ull)

void health_sample(const struct batch *b, struct in_health *out)
{
	const struct fec_batch *fb = &b->task.batch;
	const struct slot_layout *sl = &b->ep->slot;
	const struct fec_job *j;
	uint32_t first, n, clipped = 0;
	double sum = 0;

	*out = (struct in_health){0};
	if (!b->count || sl->vals != 1)
		return; /* nothing decoded, or q-ary log-probabilities: not bit LLRs */
	j = &fb->jobs[0];
	/* A stream job's head repeats the previous job's tail: only its own symbols count. */
	first = b->stream ? j->head_len : 0;
	n = b->stream ? j->own_len : j->in_len;
	if (sl->kind == FEC_IN_S8_LLR) {
		const int8_t *in = fb->in + first;

		for (uint32_t i = 0; i < n; i++) {
			int v = in[i] < 0 ? -in[i] : in[i];

			sum += v;
			clipped += v >= 127;
		}
	} else if (sl->kind == FEC_IN_F32_LLR) {
		const float *in = fb->in_f32 + first;
		const float scale = sl->llr_scale;

		for (uint32_t i = 0; i < n; i++) {
			float v = fabsf(in[i]) * scale;

			sum += v;
			clipped += v >= 127.0f;
		}
	} else {
		return;
	}
	out->syms = n;
	out->clipped = clipped;
	out->abs_sum = sum;
}

/* Which mistake a window of samples looks like, or NULL when it looks fine. */
static const char *health_verdict(double clipped_frac, double mean_abs)
{
	if (clipped_frac >= HEALTH_CLIP_FRAC)
		return "clipped";
	if (mean_abs < HEALTH_SMALL_MEAN)
		return "small";
	return NULL;
}

static void health_warn(struct channel *ch, const char *verdict, double frac, double mean)
{
	struct ratelimit *rl = &ch->rl_health;
	unsigned skipped;
	char buf[48];
	const char *note;

	rl->interval_ns = HEALTH_LOG_INTERVAL_NS;
	if (!ratelimit_ok(rl, now_ns(), &skipped))
		return;
	note = ratelimit_note(skipped, buf, sizeof(buf));
	if (verdict[0] == 'c')
		log_warn("channel %s: input looks clipped: %.0f%% of sampled symbols at the int8 "
		         "extremes (mean |LLR| %.1f of 127): LLRs far too large, soft information is "
		         "lost; lower the sender's scale or input.llr_scale%s",
		         ch->cfg.name, 100.0 * frac, mean, note);
	else
		log_warn("channel %s: input looks far too small: mean |LLR| %.2f of 127, most symbols "
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
	if (st->hw_syms < HEALTH_WINDOW_SYMS)
		return;
	st->health_frac = (double)st->hw_clipped / (double)st->hw_syms;
	st->health_mean = st->hw_abs / (double)st->hw_syms;
	st->health_windows++;
	st->health_verdict = health_verdict(st->health_frac, st->health_mean);
	if (st->health_verdict) {
		st->health_warnings++;
		health_warn(ch, st->health_verdict, st->health_frac, st->health_mean);
	}
	st->hw_syms = st->hw_clipped = 0;
	st->hw_abs = 0;
}
