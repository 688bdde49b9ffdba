/*
 * The service object: the loop, the ZMQ context, the decoder backend, the running configuration
 * and the channels in creation order. Channel operations from control and reloads arrive here;
 * a deleted channel leaves the list at once and finishes closing in the background (the closing
 * list), which is also what shutdown waits for.
 *
 * With loop_threads > 1 the channels live on data-path loop threads (loops.h) and every channel
 * operation runs there through loop_call; the running list stays the main thread's own, while
 * what the loop threads also touch (the closing list, released endpoints, socket affinity) is
 * under d->lock, never held across a loop_call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zmq.h>

#include "channel.h"
#include "curve.h"
#include "log.h"
#include "loops.h"
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
	/* Data-path loop threads (none: channels on the main loop). */
	struct data_loop *loops;
	unsigned nloops;
	pthread_mutex_t lock;    /* closing, nclosing, released, next_io_*, zap */
	struct zap *zap;         /* the CURVE key check, from the first CURVE server socket on */
	uv_async_t closed_async; /* a loop thread freed a closing channel */
	bool closed_async_open;
};

static void check_drained(struct fecd *d);

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

struct zap *fecd_zap(struct fecd *d, bool start, char *err, size_t errlen)
{
	struct zap *z;

	pthread_mutex_lock(&d->lock);
	if (!d->zap && start && zap_start(d->zctx, &d->zap, err, errlen) != 0)
		d->zap = NULL;
	z = d->zap;
	pthread_mutex_unlock(&d->lock);
	return z;
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
	pthread_mutex_lock(&d->lock);
	k = input ? d->next_io_in++ % n : (d->next_io_out++ + n / 2) % n;
	pthread_mutex_unlock(&d->lock);
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

/* The prepare phase of a channel create or update: everything slow, off the loop thread. A
 * backend that sets up per-code state ahead (the GPU backend's decoder and lanes) hooks in here. */
struct epoch *fecd_epoch_build(struct fecd *d, const struct chan_config *cc, char *err,
                               size_t errlen)
{
	return epoch_create(cc, d->be, err, errlen);
}

void fecd_epoch_free(struct epoch *ep)
{
	epoch_put(ep);
}

struct create_call {
	struct fecd *d;
	struct data_loop *dl;
	const struct chan_config *cc;
	struct epoch *ep;
	struct channel *ch;
	char *err;
	size_t errlen;
	int rc;
};

static void create_here(void *arg)
{
	struct create_call *c = arg;
	uv_loop_t *loop = c->dl ? data_loop_uv(c->dl) : c->d->loop;

	c->rc = channel_create(c->d, c->dl, loop, c->cc, c->ep, &c->ch, c->err, c->errlen);
}

/* The data loop with the fewest channels. */
static struct data_loop *pick_loop(struct fecd *d)
{
	struct data_loop *best = NULL;

	for (unsigned i = 0; i < d->nloops; i++) {
		struct data_loop *l = data_loop_at(d->loops, i);
		if (!best || *data_loop_load(l) < *data_loop_load(best))
			best = l;
	}
	return best;
}

int fecd_channel_create(struct fecd *d, const struct chan_config *cc, struct epoch *ep, char *err,
                        size_t errlen)
{
	struct create_call c = {.d = d, .cc = cc, .ep = ep, .err = err, .errlen = errlen};
	struct channel *ch;
	int rc;

	if (d->draining) {
		snprintf(err, errlen, "fecd is shutting down");
		rc = -ESHUTDOWN;
		goto out_put;
	}
	rc = -EEXIST;
	if (fecd_channel_find(d, cc->id)) {
		snprintf(err, errlen, "id: channel %u already exists", cc->id);
		goto out_put;
	}
	if (fecd_channel_find_name(d, cc->name)) {
		snprintf(err, errlen, "name: a channel named \"%s\" already exists", cc->name);
		goto out_put;
	}
	pthread_mutex_lock(&d->lock);
	rc = d->nchannels >= FECD_MAX_CHANNELS ||
	     d->nchannels + d->nclosing >= sizeof(d->closing) / sizeof(d->closing[0]);
	pthread_mutex_unlock(&d->lock);
	if (rc) {
		snprintf(err, errlen, "at most %d channels", FECD_MAX_CHANNELS);
		rc = -ENOSPC;
		goto out_put;
	}
	c.dl = pick_loop(d);
	loop_call(c.dl, create_here, &c);
	if (c.rc)
		return c.rc;
	ch = c.ch;
	if (c.dl)
		(*data_loop_load(c.dl))++;
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
out_put:
	epoch_put(ep);
	return rc;
}

struct update_call {
	struct channel *ch;
	const struct chan_config *cc;
	struct epoch *ep;
	uint64_t at_seq;
	char *err;
	size_t errlen;
	int rc;
};

static void update_here(void *arg)
{
	struct update_call *c = arg;

	c->rc = channel_update(c->ch, c->cc, c->ep, c->at_seq, c->err, c->errlen);
}

int fecd_channel_update(struct fecd *d, uint32_t id, const struct chan_config *cc, struct epoch *ep,
                        uint64_t at_seq, char *err, size_t errlen)
{
	struct channel *ch = fecd_channel_find(d, id);
	struct update_call c = {ch, cc, ep, at_seq, err, errlen, 0};

	if (!ch) {
		snprintf(err, errlen, "no channel with id %u", id);
		epoch_put(ep);
		return -ENOENT;
	}
	loop_call(ch->dl, update_here, &c);
	if (c.rc == 0)
		mirror_channels(d);
	return c.rc;
}

struct close_call {
	struct channel *ch;
	uint32_t linger_ms;
};

static void close_here(void *arg)
{
	struct close_call *c = arg;

	channel_close(c->ch, c->linger_ms, NULL, NULL);
}

/* Moves a channel from the running list to the closing list and starts closing it; the pointer
 * may be freed on its loop thread as soon as this returns. */
static void close_channel(struct fecd *d, struct channel *ch)
{
	struct close_call c = {ch, d->cfg.linger_ms};

	if (ch->dl)
		(*data_loop_load(ch->dl))--;
	pthread_mutex_lock(&d->lock);
	d->closing[d->nclosing++] = ch;
	pthread_mutex_unlock(&d->lock);
	loop_call(ch->dl, close_here, &c);
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
	log_info("channel %s (id %u) deleted: publishing what it accepted", ch->cfg.name, id);
	close_channel(d, ch);
	return 0;
}

static void reset_here(void *arg)
{
	channel_reset(arg);
}

int fecd_channel_reset(struct fecd *d, uint32_t id, char *err, size_t errlen)
{
	struct channel *ch = fecd_channel_find(d, id);

	if (!ch) {
		snprintf(err, errlen, "no channel with id %u", id);
		return -ENOENT;
	}
	loop_call(ch->dl, reset_here, ch);
	return 0;
}

/* On the channel's loop thread, as it frees the channel. */
void fecd_channel_closed(struct fecd *d, struct channel *ch)
{
	bool here = !ch->dl;

	pthread_mutex_lock(&d->lock);
	for (unsigned i = 0; i < d->nclosing; i++) {
		if (d->closing[i] == ch) {
			d->closing[i] = d->closing[--d->nclosing];
			break;
		}
	}
	/* Under the lock: the main thread closes the handle under it once the drain is over. */
	if (!here && d->closed_async_open)
		uv_async_send(&d->closed_async);
	pthread_mutex_unlock(&d->lock);
	if (here)
		check_drained(d);
}

/* On the main thread: once draining and every channel has closed, the loop threads are idle and
 * the drain is done. */
static void check_drained(struct fecd *d)
{
	unsigned nclosing;

	if (!d->draining || d->head)
		return;
	pthread_mutex_lock(&d->lock);
	nclosing = d->nclosing;
	if (!nclosing && d->closed_async_open) {
		d->closed_async_open = false;
		uv_close((uv_handle_t *)&d->closed_async, NULL);
	}
	pthread_mutex_unlock(&d->lock);
	if (nclosing)
		return;
	if (d->drained) {
		void (*done)(struct fecd *) = d->drained;
		d->drained = NULL;
		done(d);
	}
}

static void on_closed_async(uv_async_t *a)
{
	check_drained(a->data);
}

/* ---- Endpoints held by closing channels */

bool fecd_endpoint_releasing(struct fecd *d, const char *endpoint)
{
	uint64_t now = uv_hrtime();
	bool held = false;

	/* A closing channel's configuration no longer changes, and it stays allocated while it
	 * is on the list (it leaves the list under the lock before it is freed). */
	pthread_mutex_lock(&d->lock);
	for (unsigned i = 0; i < d->nclosing && !held; i++) {
		const struct chan_config *cc = channel_config(d->closing[i]);
		held = (cc->in.bind && strcmp(cc->in.endpoint, endpoint) == 0) ||
		       (cc->out.bind && strcmp(cc->out.endpoint, endpoint) == 0);
	}
	for (unsigned i = 0; i < RELEASED_MAX && !held; i++)
		held = d->released[i].when && now - d->released[i].when < RELEASED_KEEP_NS &&
		       strcmp(d->released[i].endpoint, endpoint) == 0;
	pthread_mutex_unlock(&d->lock);
	return held;
}

void fecd_endpoint_released(struct fecd *d, const char *endpoint)
{
	pthread_mutex_lock(&d->lock);
	struct released *r = &d->released[d->released_next++ % RELEASED_MAX];
	snprintf(r->endpoint, sizeof(r->endpoint), "%s", endpoint);
	r->when = uv_hrtime();
	pthread_mutex_unlock(&d->lock);
}

/* ---- Service life */

/* loop_threads 0 (auto): a loop per four cores (ZMQ's I/O threads and the decoders need the
 * rest), 1..8; channels come and go at run time, and an idle loop costs only a sleeping thread.
 * 1 keeps every channel on the main loop. */
static unsigned loops_wanted(const struct fecd_config *cfg)
{
	unsigned n = cfg->loop_threads;

	if (!n) {
		n = uv_available_parallelism() / 4;
		if (n > 8)
			n = 8;
		if (n < 1)
			n = 1;
	}
	return n;
}

static int start_loops(struct fecd *d, const struct fecd_config *cfg, char *err, size_t errlen)
{
	unsigned n = loops_wanted(cfg);
	int rc;

	if (n <= 1)
		return 0;
	rc = uv_async_init(d->loop, &d->closed_async, on_closed_async);
	if (rc) {
		snprintf(err, errlen, "cannot create the loop threads' handle: %s",
		         uv_strerror(rc));
		return rc;
	}
	d->closed_async.data = d;
	d->closed_async_open = true;
	rc = data_loops_start(n, &d->loops);
	if (rc) {
		snprintf(err, errlen, "cannot start %u data-path loop threads: %s", n,
		         strerror(-rc));
		d->closed_async_open = false;
		uv_close((uv_handle_t *)&d->closed_async, NULL);
		return rc;
	}
	d->nloops = n;
	log_info("data path: %u loop threads", n);
	return 0;
}

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
	pthread_mutex_init(&d->lock, NULL);
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
	rc = start_loops(d, cfg, err, errlen);
	if (rc)
		goto out_backend;
	*out = d;
	return 0;

out_backend:
	d->be->ops->destroy(d->be);
out_ctx:
	zmq_ctx_term(d->zctx);
out_free:
	pthread_mutex_destroy(&d->lock);
	free(d);
	return rc;
}

int fecd_create_channels(struct fecd *d, const struct fecd_config *cfg, char *err, size_t errlen)
{
	char msg[512];

	for (uint32_t i = 0; i < cfg->nchannels; i++) {
		struct epoch *ep = fecd_epoch_build(d, &cfg->channels[i], msg, sizeof(msg));
		int rc =
		    ep ? fecd_channel_create(d, &cfg->channels[i], ep, msg, sizeof(msg)) : -EINVAL;
		if (rc) {
			snprintf(err, errlen, "channels[%u] (%s): %s", i, cfg->channels[i].name,
			         msg);
			return rc;
		}
	}
	return 0;
}

struct abandon_call {
	struct fecd *d;
	struct channel *ch;
};

/* On the channel's loop thread, where it is freed: if it is still on the closing list it is
 * still allocated until this returns. */
static void abandon_here(void *arg)
{
	struct abandon_call *c = arg;
	bool found = false;

	pthread_mutex_lock(&c->d->lock);
	for (unsigned i = 0; i < c->d->nclosing && !found; i++)
		found = c->d->closing[i] == c->ch;
	pthread_mutex_unlock(&c->d->lock);
	if (found)
		publish_abandon(c->ch);
}

static void abandon_all(struct fecd *d)
{
	struct channel *chs[FECD_MAX_CHANNELS * 2];
	struct data_loop *dls[FECD_MAX_CHANNELS * 2];
	unsigned n;

	pthread_mutex_lock(&d->lock);
	n = d->nclosing;
	for (unsigned i = 0; i < n; i++) {
		chs[i] = d->closing[i];
		dls[i] = chs[i]->dl;
	}
	pthread_mutex_unlock(&d->lock);
	for (unsigned i = 0; i < n; i++) {
		struct abandon_call c = {d, chs[i]};
		loop_call(dls[i], abandon_here, &c);
	}
}

void fecd_drain(struct fecd *d, void (*done)(struct fecd *d))
{
	if (d->draining) {
		/* Asked twice: stop waiting for readers. */
		abandon_all(d);
		return;
	}
	d->draining = true;
	d->drained = done;
	while (d->head) {
		struct channel *ch = d->head;
		unlink_channel(d, ch);
		close_channel(d, ch);
	}
	mirror_channels(d);
	check_drained(d);
}

void fecd_destroy(struct fecd *d)
{
	/* Waits until every socket's queued output has left or its linger has run out. */
	if (d->nloops)
		data_loops_stop(d->loops, d->nloops);
	zap_stop(d->zap); /* every channel, and so every CURVE server socket, has closed */
	zmq_ctx_term(d->zctx);
	d->be->ops->destroy(d->be);
	pthread_mutex_destroy(&d->lock);
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

struct tick_call {
	struct channel *ch;
	uint64_t now;
};

static void tick_here(void *arg)
{
	struct tick_call *c = arg;

	stats_tick(&c->ch->stats, c->now);
}

void fecd_stats_tick(struct fecd *d)
{
	uint64_t now = uv_hrtime();

	for (struct channel *ch = d->head; ch; ch = ch->next) {
		struct tick_call c = {ch, now};
		loop_call(ch->dl, tick_here, &c);
	}
}

void fecd_set_globals(struct fecd *d, const struct fecd_config *cfg)
{
	/* Only the log level, the codes folder and its path policy, and the build limit change live
	 * (reload.c says so of the others); keeping the rest as they run makes config.get tell the
	 * truth. The folder and the policy were put in force when the file was parsed (config.c),
	 * before its channels' codes were read. */
	snprintf(d->cfg.log_level, sizeof(d->cfg.log_level), "%s", cfg->log_level);
	snprintf(d->cfg.codes_dir, sizeof(d->cfg.codes_dir), "%s", cfg->codes_dir);
	d->cfg.codes_paths = cfg->codes_paths;
	d->cfg.control_build_timeout_ms = cfg->control_build_timeout_ms;
}
