/*
 * The service object: the loop, the ZMQ context, the decoder backend, the running configuration
 * and the channels in creation order. Channel operations from control and reloads arrive here;
 * a deleted channel leaves the list at once and finishes closing in the background (the closing
 * list), which is also what shutdown waits for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zmq.h>

#include "channel.h"
#include "log.h"
#include "service.h"

#define RELEASED_MAX     16
#define RELEASED_KEEP_NS (3ull * 1000000000ull)

struct released {
	char endpoint[FECD_ENDPOINT_MAX];
	uint64_t when;
};

struct fecd {
	uv_loop_t *loop;
	void *zctx;
	unsigned io_threads, next_io_in, next_io_out; /* sockets spread over the I/O threads */
	struct backend *be;
	struct fecd_config cfg; /* globals as running; channels mirrored from the list */
	struct channel *head, *tail;
	unsigned nchannels;
	struct channel *closing[FECD_MAX_CHANNELS * 2];
	unsigned nclosing;
	struct released released[RELEASED_MAX];
	unsigned released_next;
	bool draining;
	void (*drained)(struct fecd *d);
};

/* ---- The running configuration mirrors the channel list */

static void mirror_channels(struct fecd *d)
{
	unsigned n = 0;

	for (struct channel *ch = d->head; ch && n < FECD_MAX_CHANNELS; ch = ch->next)
		d->cfg.channels[n++] = *channel_config(ch);
	d->cfg.nchannels = n;
}

const struct fecd_config *fecd_running_config(const struct fecd *d)
{
	return &d->cfg;
}

struct backend *fecd_backend(struct fecd *d)
{
	return d->be;
}

uv_loop_t *fecd_loop(struct fecd *d)
{
	return d->loop;
}

void *fecd_zmq_ctx(struct fecd *d)
{
	return d->zctx;
}

/* Input sockets go round-robin over the I/O threads, outputs (a sixteenth of the bytes for a rate
 * 1/2 code with 8-bit input) the same from half-way round, so busy inputs do not share a thread
 * while there are enough of them; ZMQ would otherwise put every socket on the least loaded thread
 * by socket count, which can pile the inputs onto one. */
uint64_t fecd_zmq_affinity(struct fecd *d, bool input)
{
	unsigned n = d->io_threads ? d->io_threads : 1, k;

	if (n > 64)
		n = 64;
	k = input ? d->next_io_in++ % n : (d->next_io_out++ + n / 2) % n;
	return 1ull << k;
}

bool fecd_draining(const struct fecd *d)
{
	return d->draining;
}

/* ---- Channels */

struct channel *fecd_channel_find(struct fecd *d, uint32_t id)
{
	for (struct channel *ch = d->head; ch; ch = ch->next)
		if (ch->cfg.id == id)
			return ch;
	return NULL;
}

struct channel *fecd_channel_find_name(struct fecd *d, const char *name)
{
	for (struct channel *ch = d->head; ch; ch = ch->next)
		if (strcmp(ch->cfg.name, name) == 0)
			return ch;
	return NULL;
}

struct channel *fecd_channel_next(struct fecd *d, struct channel *prev)
{
	return prev ? prev->next : d->head;
}

int fecd_channel_create(struct fecd *d, const struct chan_config *cc, char *err, size_t errlen)
{
	struct channel *ch;
	int rc;

	if (d->draining) {
		snprintf(err, errlen, "fecd is shutting down");
		return -ESHUTDOWN;
	}
	if (fecd_channel_find(d, cc->id)) {
		snprintf(err, errlen, "id: channel %u already exists", cc->id);
		return -EEXIST;
	}
	if (fecd_channel_find_name(d, cc->name)) {
		snprintf(err, errlen, "name: a channel named \"%s\" already exists", cc->name);
		return -EEXIST;
	}
	if (d->nchannels >= FECD_MAX_CHANNELS ||
	    d->nchannels + d->nclosing >= sizeof(d->closing) / sizeof(d->closing[0])) {
		snprintf(err, errlen, "at most %d channels", FECD_MAX_CHANNELS);
		return -ENOSPC;
	}
	rc = channel_create(d, cc, &ch, err, errlen);
	if (rc)
		return rc;
	if (d->tail)
		d->tail->next = ch;
	else
		d->head = ch;
	d->tail = ch;
	d->nchannels++;
	mirror_channels(d);
	log_info("channel %s (id %u) created: input %s %s, output %s %s", cc->name, cc->id,
	         cc->in.bind ? "bind" : "connect", cc->in.endpoint,
	         cc->out.bind ? "bind" : "connect", cc->out.endpoint);
	return 0;
}

int fecd_channel_update(struct fecd *d, uint32_t id, const struct chan_config *cc, uint64_t at_seq,
                        char *err, size_t errlen)
{
	struct channel *ch = fecd_channel_find(d, id);
	int rc;

	if (!ch) {
		snprintf(err, errlen, "no channel with id %u", id);
		return -ENOENT;
	}
	rc = channel_update(ch, cc, at_seq, err, errlen);
	if (rc == 0)
		mirror_channels(d);
	return rc;
}

static void unlink_channel(struct fecd *d, struct channel *ch)
{
	struct channel **pp = &d->head, *prev = NULL;

	while (*pp && *pp != ch) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if (!*pp)
		return;
	*pp = ch->next;
	if (d->tail == ch)
		d->tail = prev;
	ch->next = NULL;
	d->nchannels--;
}

int fecd_channel_delete(struct fecd *d, uint32_t id, char *err, size_t errlen)
{
	struct channel *ch = fecd_channel_find(d, id);

	if (!ch) {
		snprintf(err, errlen, "no channel with id %u", id);
		return -ENOENT;
	}
	unlink_channel(d, ch);
	mirror_channels(d);
	d->closing[d->nclosing++] = ch;
	log_info("channel %s (id %u) deleted: publishing what it accepted", ch->cfg.name, id);
	channel_close(ch, d->cfg.linger_ms, NULL, NULL);
	return 0;
}

void fecd_channel_closed(struct fecd *d, struct channel *ch)
{
	for (unsigned i = 0; i < d->nclosing; i++) {
		if (d->closing[i] == ch) {
			d->closing[i] = d->closing[--d->nclosing];
			break;
		}
	}
	if (d->draining && d->nclosing == 0 && !d->head && d->drained) {
		void (*done)(struct fecd *) = d->drained;
		d->drained = NULL;
		done(d);
	}
}

/* ---- Endpoints held by closing channels */

bool fecd_endpoint_releasing(struct fecd *d, const char *endpoint)
{
	uint64_t now = uv_hrtime();

	for (unsigned i = 0; i < d->nclosing; i++) {
		const struct chan_config *cc = channel_config(d->closing[i]);
		if ((cc->in.bind && strcmp(cc->in.endpoint, endpoint) == 0) ||
		    (cc->out.bind && strcmp(cc->out.endpoint, endpoint) == 0))
			return true;
	}
	for (unsigned i = 0; i < RELEASED_MAX; i++)
		if (d->released[i].when && now - d->released[i].when < RELEASED_KEEP_NS &&
		    strcmp(d->released[i].endpoint, endpoint) == 0)
			return true;
	return false;
}

void fecd_endpoint_released(struct fecd *d, const char *endpoint)
{
	struct released *r = &d->released[d->released_next++ % RELEASED_MAX];

	snprintf(r->endpoint, sizeof(r->endpoint), "%s", endpoint);
	r->when = uv_hrtime();
}

/* ---- Service life */

int fecd_create(uv_loop_t *loop, const struct fecd_config *cfg, struct fecd **out, char *err,
                size_t errlen)
{
	struct fecd *d = calloc(1, sizeof(*d));
	int rc;

	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->loop = loop;
	d->cfg = *cfg;
	d->cfg.nchannels = 0;
	d->zctx = zmq_ctx_new();
	if (!d->zctx) {
		snprintf(err, errlen, "cannot create the ZMQ context: %s", zmq_strerror(errno));
		rc = -errno;
		goto out_free;
	}
	d->io_threads = cfg->io_threads;
	if (!d->io_threads) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		d->io_threads = cores >= 4 ? (unsigned)(cores / 2) : 1;
		if (d->io_threads > 8)
			d->io_threads = 8;
	}
	if (zmq_ctx_set(d->zctx, ZMQ_IO_THREADS, (int)d->io_threads)) {
		snprintf(err, errlen, "cannot set %u ZMQ I/O threads: %s", d->io_threads,
		         zmq_strerror(errno));
		rc = -errno;
		goto out_ctx;
	}
	log_info("ZMQ: %u I/O thread%s", d->io_threads, d->io_threads > 1 ? "s" : "");
	if (strcmp(cfg->backend, "cpu") == 0) {
		rc = backend_cpu_create(cfg->workers, &d->be);
	} else {
		/* "auto" and "cuda": the GPU where CUDA works, else the CPU with one log line. */
		struct backend_cuda_config bc = {
		    .mode = cfg->backend[0] ? cfg->backend : "auto",
		    .device = (int)cfg->gpu_device,
		    .lanes = cfg->gpu_lanes,
		    .workers = cfg->workers,
		};
		rc = backend_cuda_create(&bc, &d->be);
	}
	if (rc) {
		snprintf(err, errlen, "cannot start the CPU backend: %s", strerror(-rc));
		goto out_ctx;
	}
	*out = d;
	return 0;

out_ctx:
	zmq_ctx_term(d->zctx);
out_free:
	free(d);
	return rc;
}

int fecd_create_channels(struct fecd *d, const struct fecd_config *cfg, char *err, size_t errlen)
{
	char msg[512];

	for (uint32_t i = 0; i < cfg->nchannels; i++) {
		int rc = fecd_channel_create(d, &cfg->channels[i], msg, sizeof(msg));
		if (rc) {
			snprintf(err, errlen, "channels[%u] (%s): %s", i, cfg->channels[i].name,
			         msg);
			return rc;
		}
	}
	return 0;
}

void fecd_drain(struct fecd *d, void (*done)(struct fecd *d))
{
	if (d->draining) {
		/* Asked twice: stop waiting for readers. */
		for (unsigned i = 0; i < d->nclosing; i++)
			publish_abandon(d->closing[i]);
		return;
	}
	d->draining = true;
	d->drained = done;
	while (d->head) {
		struct channel *ch = d->head;
		unlink_channel(d, ch);
		d->closing[d->nclosing++] = ch;
		channel_close(ch, d->cfg.linger_ms, NULL, NULL);
	}
	mirror_channels(d);
	if (d->nclosing == 0 && d->drained) {
		d->drained = NULL;
		done(d);
	}
}

void fecd_destroy(struct fecd *d)
{
	/* Waits until every socket's queued output has left or its linger has run out. */
	zmq_ctx_term(d->zctx);
	d->be->ops->destroy(d->be);
	free(d);
}

void fecd_totals(struct fecd *d, struct fecd_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (struct channel *ch = d->head; ch; ch = ch->next) {
		struct chan_stats st;
		channel_get_stats(ch, &st);
		t->channels++;
		t->in_syms_per_s += st.in_syms_per_s;
		t->out_bits_per_s += st.out_bits_per_s;
		t->bad_msgs += st.bad_msgs;
		t->failures += st.failures;
	}
}

void fecd_stats_tick(struct fecd *d)
{
	uint64_t now = uv_hrtime();

	for (struct channel *ch = d->head; ch; ch = ch->next)
		stats_tick(&ch->stats, now);
}

void fecd_set_globals(struct fecd *d, const struct fecd_config *cfg)
{
	/* Only the log level changes live (reload.c says so of the others); keeping the rest as
	 * they run makes config.get tell the truth. */
	snprintf(d->cfg.log_level, sizeof(d->cfg.log_level), "%s", cfg->log_level);
}
