/*
 * The SIGHUP reload: reconciling the running daemon with a freshly loaded configuration. A pass
 * has two halves:
 *   - off the loop thread (offload.h): reading the file (it may be slow, or not a regular file),
 *     parsing and validating it completely, and building the code of every channel it adds or
 *     changes (fecd_epoch_build), each channel's code within control.build_timeout_ms, against the
 *     running configuration as it was when the pass began. Any failure keeps the running
 *     configuration: nothing has changed yet.
 *   - on the loop thread: the changes, planned against the channels as they are now. Removed
 *     channels are deleted, channels whose live settings changed are updated in place (no
 *     accepted symbol lost), channels whose other settings changed (endpoints, sockets, input
 *     protocol) are deleted and created again, and new channels are created, each with the epoch
 *     built for it. Deletions come first so that a name or endpoint may move from one channel to
 *     another in one reload.
 * A channel that a control request changed while the pass was being built has no epoch for what
 * the file now asks of it: it is left alone and one more pass follows. A SIGHUP that arrives while
 * a pass is being built also makes one more pass follow it (several SIGHUPs: one pass), never two
 * at once. systemd hears RELOADING=1 when a pass starts and READY=1 after the last one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "notify.h"
#include "offload.h"
#include "service.h"
#include "settings.h"

enum plan { PLAN_KEEP, PLAN_UPDATE, PLAN_RECREATE, PLAN_DELETE };

struct reload {
	struct fecd *d;
	char *path;
	bool required; /* named on the command line: its absence is an error */
	reload_done_fn done;
	void *arg;
	bool building; /* a pass is off the loop thread */
	bool again;    /* and another follows it */
};

/* One pass: the file and the epochs built for it. */
struct reload_pass {
	struct reload *r;
	bool loaded;                /* cfg holds the file and every epoch it needs is built */
	struct fecd_config running; /* the channels when the pass began */
	struct fecd_config cfg;     /* the file */
	struct epoch *ep[FECD_MAX_CHANNELS]; /* for cfg.channels[i]: new or changed; else NULL */
};

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

/* The index of channel id in cfg, or -1. */
static int find_in(const struct fecd_config *cfg, uint32_t id)
{
	for (uint32_t i = 0; i < cfg->nchannels; i++)
		if (cfg->channels[i].id == id)
			return (int)i;
	return -1;
}

static void apply_globals(const struct fecd_config *run, const struct fecd_config *cfg)
{
	for (const struct setting *s = settings_next_diff(fecd_global_settings, run, cfg); s;
	     s = settings_next_diff(s + 1, run, cfg)) {
		if (s->flags & SET_LIVE) {
			char val[64];

			/* fecd_set_globals and main.c apply them (the log level, minding a
			 * --log-level option) */
			settings_value_text(s, cfg, val, sizeof(val));
			log_notice("reload: %s changes to %s", s->path, val);
		} else {
			log_warn("reload: %s changed; it takes effect when fecd restarts", s->path);
		}
	}
}

/* ---- Off the loop thread */

static void pass_build(void *arg)
{
	struct reload_pass *p = arg;
	const char *path = p->r->path;
	char err[512];

	if (!p->r->required && access(path, F_OK) != 0 && errno == ENOENT) {
		log_notice("reload: %s does not exist; keeping the running configuration", path);
		return;
	}
	if (fecd_config_load(path, &p->cfg, err, sizeof(err)) != 0) {
		log_err("reload: %s: %s; keeping the running configuration", path, err);
		return;
	}
	for (uint32_t i = 0; i < p->cfg.nchannels; i++) {
		const struct chan_config *neu = &p->cfg.channels[i];
		int old = find_in(&p->running, neu->id);

		if (old >= 0 &&
		    !settings_next_diff(fecd_chan_settings, &p->running.channels[old], neu))
			continue;
		build_limit_restart();
		p->ep[i] = fecd_epoch_build(p->r->d, neu, err, sizeof(err));
		if (p->ep[i])
			continue;
		if (build_limit_passed())
			build_limit_message(err, sizeof(err), "code");
		log_err("reload: %s: channels[%u] (%s): %s; keeping the running configuration",
		        path, i, neu->name, err);
		return;
	}
	p->loaded = true;
}

/* ---- On the loop thread */

/* The epoch for cfg.channels[i], taken from the pass; NULL (and one more pass asked for) when
 * the channel changed after the pass began, so that none was built for it. */
static struct epoch *take_epoch(struct reload_pass *p, unsigned i)
{
	struct epoch *ep = p->ep[i];

	p->ep[i] = NULL;
	if (!ep) {
		log_warn("reload: channel %u (%s) changed while the reload was being built; "
		         "reloading once more",
		         (unsigned)p->cfg.channels[i].id, p->cfg.channels[i].name);
		p->r->again = true;
	}
	return ep;
}

static int pass_apply(struct reload_pass *p, char *err, size_t errlen)
{
	struct fecd *d = p->r->d;
	const struct fecd_config *cfg = &p->cfg;
	uint32_t ids[FECD_MAX_CHANNELS];
	enum plan plan[FECD_MAX_CHANNELS];
	char what[256], msg[512];
	unsigned nrun = 0;
	int ret, first_err = 0;

	/* Plan every change before making any. */
	for (struct channel *ch = fecd_channel_next(d, NULL); ch && nrun < FECD_MAX_CHANNELS;
	     ch = fecd_channel_next(d, ch)) {
		const struct chan_config *old = channel_config(ch);
		int i = find_in(cfg, old->id);
		bool live_only;

		ids[nrun] = old->id;
		if (i < 0) {
			plan[nrun++] = PLAN_DELETE;
			continue;
		}
		describe_diff(old, &cfg->channels[i], &live_only, what, sizeof(what));
		plan[nrun] = !*what ? PLAN_KEEP : live_only ? PLAN_UPDATE : PLAN_RECREATE;
		if (plan[nrun] != PLAN_KEEP && !p->ep[i]) {
			take_epoch(p, (unsigned)i);
			plan[nrun] = PLAN_KEEP;
		}
		nrun++;
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
		int k = find_in(cfg, ids[i]);
		const struct chan_config *neu;
		struct channel *ch = fecd_channel_find(d, ids[i]);
		bool live_only;

		if (plan[i] != PLAN_UPDATE || !ch)
			continue;
		neu = &cfg->channels[k];
		describe_diff(channel_config(ch), neu, &live_only, what, sizeof(what));
		ret = fecd_channel_update(d, ids[i], neu, take_epoch(p, (unsigned)k), UINT64_MAX,
		                          msg, sizeof(msg));
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
		struct epoch *ep;

		if (fecd_channel_find(d, neu->id))
			continue;
		ep = take_epoch(p, i);
		if (!ep)
			continue;
		ret = fecd_channel_create(d, neu, ep, msg, sizeof(msg));
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

static void pass_free(struct reload_pass *p)
{
	for (unsigned i = 0; i < FECD_MAX_CHANNELS; i++)
		fecd_epoch_free(p->ep[i]);
	free(p);
}

static void pass_start(struct reload *r);

static void pass_done(void *arg)
{
	struct reload_pass *p = arg;
	struct reload *r = p->r;
	struct fecd *d = r->d;
	char err[600]; /* "channels[N]: " and a channel's message */
	int rc;

	r->building = false;
	if (fecd_draining(d)) {
		log_notice("reload: fecd is shutting down; the reload is not applied");
		pass_free(p);
		return;
	}
	if (p->loaded) {
		rc = pass_apply(p, err, sizeof(err));
		fecd_set_globals(d, &p->cfg);
		if (r->done)
			r->done(&p->cfg, r->arg);
		if (rc)
			log_err("reload: applied in part: %s", err);
		else
			log_notice("reload: done; %u channels running",
			           fecd_running_config(d)->nchannels);
	}
	pass_free(p);
	if (r->again)
		pass_start(r);
	else
		notify_send("READY=1");
}

static void pass_start(struct reload *r)
{
	struct reload_pass *p = calloc(1, sizeof(*p));
	struct timespec mono;
	int rc;

	r->again = false;
	if (!p) {
		log_err("reload: out of memory");
		notify_send("READY=1");
		return;
	}
	p->r = r;
	p->running = *fecd_running_config(r->d);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	/* MONOTONIC_USEC lets Type=notify-reload units match this reload to the signal. */
	notify_sendf("RELOADING=1\nMONOTONIC_USEC=%llu",
	             (unsigned long long)mono.tv_sec * 1000000ull +
	                 (unsigned long long)mono.tv_nsec / 1000u);
	rc = offload_run(fecd_loop(r->d), fecd_running_config(r->d)->control_build_timeout_ms,
	                 pass_build, pass_done, p);
	if (rc) {
		log_err("reload: cannot start it off the loop thread: %s", uv_strerror(rc));
		free(p);
		notify_send("READY=1");
		return;
	}
	r->building = true;
}

struct reload *reload_new(struct fecd *d, const char *path, bool required, reload_done_fn done,
                          void *arg)
{
	struct reload *r = calloc(1, sizeof(*r));

	if (!r || !(r->path = strdup(path))) {
		free(r);
		return NULL;
	}
	r->d = d;
	r->required = required;
	r->done = done;
	r->arg = arg;
	return r;
}

void reload_request(struct reload *r)
{
	if (fecd_draining(r->d))
		return;
	if (r->building) {
		if (!r->again)
			log_notice("reload: one is being built; reading %s again when it is done",
			           r->path);
		r->again = true;
		return;
	}
	pass_start(r);
}

void reload_free(struct reload *r)
{
	if (!r)
		return;
	free(r->path);
	free(r);
}
