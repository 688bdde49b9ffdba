/*
 * Reconciling the running daemon with a freshly loaded configuration (SIGHUP). The new file is
 * validated completely (fecd_config_parse, then the cross-channel checks again) before anything
 * changes; then removed channels are deleted, channels whose live settings changed are updated in
 * place (no accepted symbol lost), channels whose other settings changed (endpoints, sockets,
 * input protocol) are deleted and created again, and new channels are created. Deletions come
 * first so that a name or endpoint may move from one channel to another in one reload.
 */
#include <errno.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "settings.h"

enum plan { PLAN_KEEP, PLAN_UPDATE, PLAN_RECREATE, PLAN_DELETE };

/* Changed settings' paths, "batch.jobs, code"; *live_only tells whether all are SET_LIVE. */
static void describe_diff(const struct chan_config *a, const struct chan_config *b, bool *live_only,
                          char *buf, size_t len)
{
	size_t o = 0;

	*live_only = true;
	buf[0] = '\0';
	for (const struct setting *s = settings_next_diff(fecd_chan_settings, a, b); s;
	     s = settings_next_diff(s + 1, a, b)) {
		if (!(s->flags & SET_LIVE))
			*live_only = false;
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", s->path);
	}
}

static const struct chan_config *find_in(const struct fecd_config *cfg, uint32_t id)
{
	for (uint32_t i = 0; i < cfg->nchannels; i++)
		if (cfg->channels[i].id == id)
			return &cfg->channels[i];
	return NULL;
}

static void apply_globals(const struct fecd_config *run, const struct fecd_config *cfg)
{
	for (const struct setting *s = settings_next_diff(fecd_global_settings, run, cfg); s;
	     s = settings_next_diff(s + 1, run, cfg)) {
		if (s->flags & SET_LIVE) {
			char val[64];

			/* main.c applies it (the log level, minding a --log-level option) */
			settings_value_text(s, cfg, val, sizeof(val));
			log_notice("reload: %s changes to %s", s->path, val);
		} else {
			log_warn("reload: %s changed; it takes effect when fecd restarts", s->path);
		}
	}
}

int fecd_config_apply(struct fecd *d, const struct fecd_config *cfg, char *err, size_t errlen)
{
	const struct chan_config *ptrs[FECD_MAX_CHANNELS];
	uint32_t ids[FECD_MAX_CHANNELS];
	enum plan plan[FECD_MAX_CHANNELS];
	char what[256], msg[512];
	unsigned nrun = 0;
	int ret, first_err = 0;

	if (cfg->nchannels > FECD_MAX_CHANNELS) {
		snprintf(err, errlen, "channels: expected at most %d channels", FECD_MAX_CHANNELS);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < cfg->nchannels; i++)
		ptrs[i] = &cfg->channels[i];
	ret = chan_configs_check_unique(ptrs, cfg->nchannels, NULL, err, errlen);
	if (ret)
		return ret;

	/* Plan every change before making any. */
	for (struct channel *ch = fecd_channel_next(d, NULL); ch && nrun < FECD_MAX_CHANNELS;
	     ch = fecd_channel_next(d, ch)) {
		const struct chan_config *old = channel_config(ch), *neu = find_in(cfg, old->id);
		bool live_only;

		ids[nrun] = old->id;
		if (!neu) {
			plan[nrun++] = PLAN_DELETE;
			continue;
		}
		describe_diff(old, neu, &live_only, what, sizeof(what));
		plan[nrun++] = !*what ? PLAN_KEEP : live_only ? PLAN_UPDATE : PLAN_RECREATE;
	}

	apply_globals(fecd_running_config(d), cfg);
	for (unsigned i = 0; i < nrun; i++) {
		if (plan[i] != PLAN_DELETE && plan[i] != PLAN_RECREATE)
			continue;
		ret = fecd_channel_delete(d, ids[i], msg, sizeof(msg));
		if (ret) {
			log_err("reload: deleting channel %u failed: %s", (unsigned)ids[i], msg);
			if (!first_err)
				snprintf(err, errlen, "channel %u: %s", (unsigned)ids[i], msg);
			first_err = first_err ? first_err : ret;
			plan[i] = PLAN_KEEP; /* it still runs: do not create it again */
			continue;
		}
		log_notice("reload: channel %u %s", (unsigned)ids[i],
		           plan[i] == PLAN_DELETE ? "deleted" : "deleted, to be created again");
	}
	for (unsigned i = 0; i < nrun; i++) {
		const struct chan_config *neu = find_in(cfg, ids[i]);
		struct channel *ch = fecd_channel_find(d, ids[i]);
		bool live_only;

		if (plan[i] != PLAN_UPDATE || !ch)
			continue;
		describe_diff(channel_config(ch), neu, &live_only, what, sizeof(what));
		ret = fecd_channel_update(d, ids[i], neu, UINT64_MAX, msg, sizeof(msg));
		if (ret) {
			log_err("reload: updating channel %u failed: %s", (unsigned)ids[i], msg);
			if (!first_err)
				snprintf(err, errlen, "channel %u: %s", (unsigned)ids[i], msg);
			first_err = first_err ? first_err : ret;
			continue;
		}
		log_notice("reload: channel %u (%s) updated: %s", (unsigned)ids[i], neu->name,
		           what);
	}
	for (uint32_t i = 0; i < cfg->nchannels; i++) {
		const struct chan_config *neu = &cfg->channels[i];

		if (fecd_channel_find(d, neu->id))
			continue;
		ret = fecd_channel_create(d, neu, msg, sizeof(msg));
		if (ret) {
			log_err("reload: creating channel %u (%s) failed: %s", (unsigned)neu->id,
			        neu->name, msg);
			if (!first_err)
				snprintf(err, errlen, "channels[%u]: %s", (unsigned)i, msg);
			first_err = first_err ? first_err : ret;
			continue;
		}
		log_notice("reload: channel %u (%s) created", (unsigned)neu->id, neu->name);
	}
	return first_err;
}
