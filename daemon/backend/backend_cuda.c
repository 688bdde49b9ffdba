/*
 * The GPU backend: batches decoded through fecd_cuda (cuda/fecd_cuda.h), with an embedded CPU
 * backend beside it.
 *
 * Each channel gets its own lanes (CUDA streams), lanes_per_channel of them, and its batches go to
 * them round-robin, so consecutive batches of one channel overlap their copies and kernels. Batch
 * buffers come from pinned memory (host_alloc). One waiter thread per lane takes the lane's
 * batches in submission order, waits for each on the GPU and reports it through task->done; the
 * loop thread only enqueues.
 *
 * A GPU batch is its jobs' first attempt: jobs the family's kernel gave up on within that attempt's
 * budget (FEC_STATUS_RETRY, fec.h) go to the CPU backend (backend_cpu_retry), which decodes just
 * those, in place in the batch's host buffers, with the later attempts' larger budgets, before the
 * batch is reported; publishing sees only final statuses.
 *
 * The CPU backend decodes what the GPU cannot: codes the GPU does not support, every batch when no
 * device could be used at start ("auto" or "cuda" with no GPU, a driver that does not start), and
 * every batch after a CUDA error while running. On such an error the batch that failed, and every
 * one still pending on any lane, is decoded again on the CPU from its host buffers, which the
 * failed copies never overwrote with anything but the GPU's own results: no accepted frame is lost.
 * Either fallback is logged once, and backend.info says why.
 *
 * FECD_CUDA_FAULT_AT=N (tests only) makes the Nth batch submitted to the GPU fault on the device.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "backend.h"
#include "fecd_cuda.h"
#include "log.h"
#include "loops.h"

#define CUDA_ENTRIES_MAX  32  /* GPU decoders kept (one per code in use) */
#define CUDA_CHANNELS_MAX 512 /* channels with lanes at once (idle ones are reclaimed) */
/* A channel with no batch on the GPU for this long gives its lanes back when another channel
 * needs new ones: a deleted channel's streams, device buffers and threads do not stay for the
 * daemon's life, and a quiet live channel only pays for new lanes at its next batch. */
#define CUDA_CHAN_IDLE_NS (10ull * 1000000000ull)
#define CUDA_LANES_MAX    16
#define HOST_HDR          64 /* before every host buffer: how it was allocated; keeps 64-byte alignment */
#define HOST_MAGIC_PINNED 0x70696e6eu
#define HOST_MAGIC_PLAIN  0x706c616eu

/* A GPU decoder for one code, built from the CPU decoder of the first channel that used the code
 * here; the entry holds that decoder (fec_decoder_hold) for as long as the GPU decoder needs it,
 * which may be longer than the channel keeps it (entries outlive code updates and channels). */
struct cuda_entry {
	struct fec_spec spec;
	struct fec_decoder *cpu;       /* held; NULL when the GPU does not decode the code */
	struct fecd_cuda_decoder *gpu; /* NULL: the GPU does not decode this code */
	char describe[320];
	unsigned inflight; /* batches on the GPU with it: not evicted while > 0 */
	uint64_t last_use;
};

struct cuda_lane {
	struct cuda_backend *be;
	struct fecd_cuda_lane *lane;
	pthread_t tid;
	bool started, stopping;
	pthread_cond_t work;
	struct backend_task *head, *tail; /* submitted to the lane, in order */
};

struct cuda_chan {
	uint32_t channel;
	unsigned next_lane, nlanes;
	struct cuda_lane lanes[CUDA_LANES_MAX];
	const struct cuda_entry *last; /* the decoder of its latest GPU batch, for backend.info */
	uint64_t batches_gpu, batches_cpu;
	uint64_t last_submit_ns; /* CLOCK_MONOTONIC */
};

struct cuda_backend {
	struct backend base;
	struct backend *cpu;
	struct fecd_cuda *ctx; /* NULL when no device could be used */
	char mode[16];
	int device;
	unsigned lanes_per_channel;
	pthread_mutex_t lock; /* everything below */
	bool failed;          /* decoding on the CPU: no device, or a CUDA error */
	char reason[512];
	struct cuda_entry *entries[CUDA_ENTRIES_MAX];
	struct cuda_chan *chans[CUDA_CHANNELS_MAX];
	unsigned nchans;
	uint64_t tick, submitted, fault_at;
	uint64_t batches_gpu, batches_cpu, batches_redone;
};

static void fall_back_locked(struct cuda_backend *be, const char *why)
{
	if (be->failed)
		return;
	be->failed = true;
	snprintf(be->reason, sizeof(be->reason), "%s", why);
	log_err("backend fallback: CUDA error while running (%s); every batch from now on, and "
	        "those still on the GPU, is decoded by the CPU backend",
	        why);
}

/* ---- Decoders per code */

static void entry_free(struct cuda_entry *e)
{
	fecd_cuda_decoder_destroy(e->gpu);
	fec_decoder_destroy(e->cpu);
	free(e);
}

/* Builds the entry for dec's code (the GPU's tables, from dec, which the entry holds): slow, so
 * done without the lock. A device error goes into devfail (the caller falls back under the lock).
 */
static struct cuda_entry *entry_make(struct cuda_backend *be, const struct fec_decoder *dec,
                                     char *devfail, size_t devfail_len)
{
	const struct fec_spec *spec = fec_decoder_spec(dec);
	struct cuda_entry *e = calloc(1, sizeof(*e));
	char err[256], code[128];
	int rc;

	if (!e)
		return NULL;
	e->spec = *spec;
	fec_spec_to_string(spec, code, sizeof(code));
	if (!fecd_cuda_supports(spec)) {
		log_info("backend: the GPU does not decode %s; the CPU backend decodes it", code);
		snprintf(e->describe, sizeof(e->describe),
		         "cpu (the GPU does not decode this code)");
		return e;
	}
	e->cpu = fec_decoder_hold(dec);
	rc = fecd_cuda_decoder_create(be->ctx, e->cpu, &e->gpu, err, sizeof(err));
	if (rc) {
		fec_decoder_destroy(e->cpu); /* no GPU decoder needs it */
		e->cpu = NULL;
	}
	if (rc == -FEC_EDEVICE) {
		snprintf(devfail, devfail_len, "%s", err);
	} else if (rc) {
		log_warn("backend: no GPU decoder for %s (%s); the CPU backend decodes it", code,
		         fec_strerror(rc));
		snprintf(e->describe, sizeof(e->describe), "cpu (no GPU decoder: %s)",
		         fec_strerror(rc));
	} else {
		snprintf(e->describe, sizeof(e->describe), "%s",
		         fecd_cuda_decoder_describe(e->gpu));
		log_info("backend: %s on the GPU: %s", code, e->describe);
	}
	return e;
}

/* The entry for spec, or NULL. */
static struct cuda_entry *entry_find_locked(struct cuda_backend *be, const struct fec_spec *spec)
{
	for (unsigned i = 0; i < CUDA_ENTRIES_MAX; i++)
		if (be->entries[i] && fec_spec_equal(&be->entries[i]->spec, spec))
			return be->entries[i];
	return NULL;
}

/* Puts a made entry in the table (an idle one may make room); NULL when it is full of busy
 * entries (then e is freed). */
static struct cuda_entry *entry_insert_locked(struct cuda_backend *be, struct cuda_entry *e)
{
	struct cuda_entry *victim = NULL;
	unsigned slot = CUDA_ENTRIES_MAX;

	for (unsigned i = 0; i < CUDA_ENTRIES_MAX && slot == CUDA_ENTRIES_MAX; i++)
		if (!be->entries[i])
			slot = i;
	if (slot == CUDA_ENTRIES_MAX) {
		for (unsigned i = 0; i < CUDA_ENTRIES_MAX; i++) {
			struct cuda_entry *v = be->entries[i];
			if (v->inflight == 0 && (!victim || v->last_use < victim->last_use)) {
				victim = v;
				slot = i;
			}
		}
		if (!victim) {
			entry_free(e);
			return NULL;
		}
		for (unsigned i = 0; i < be->nchans; i++)
			if (be->chans[i]->last == victim)
				be->chans[i]->last = NULL;
		entry_free(victim);
	}
	be->entries[slot] = e;
	return e;
}

/* The entry for dec's code; one missing is made from dec with the lock released (another thread
 * may make the same meanwhile: the first in the table stays). NULL when the cache is full of busy
 * entries. */
static struct cuda_entry *entry_get(struct cuda_backend *be, const struct fec_decoder *dec)
{
	const struct fec_spec *spec = fec_decoder_spec(dec);
	struct cuda_entry *e = entry_find_locked(be, spec), *made;
	char devfail[512] = "";

	if (e)
		return e;
	pthread_mutex_unlock(&be->lock);
	made = entry_make(be, dec, devfail, sizeof(devfail));
	pthread_mutex_lock(&be->lock);
	if (devfail[0])
		fall_back_locked(be, devfail);
	e = entry_find_locked(be, spec);
	if (e) {
		if (made)
			entry_free(made);
		return e;
	}
	return made ? entry_insert_locked(be, made) : NULL;
}

/* ---- Lanes and their waiter threads */

static void redo_on_cpu(struct cuda_backend *be, struct backend_task *t)
{
	int rc = be->cpu->ops->submit(be->cpu, t);

	if (rc < 0) {
		t->status = rc;
		t->done(t);
	}
}

/* A batch back from the GPU: the jobs its kernel gave up on are decoded again on the CPU before
 * it is reported. The CPU backend refuses only while being destroyed, after every lane has
 * stopped (cuda_destroy), so the batch failing whole there is a safeguard, never expected. */
static void finish_gpu_batch(struct cuda_backend *be, struct backend_task *t)
{
	t->status = 0;
	int rc = backend_cpu_retry(be->cpu, t);

	if (rc < 0) {
		t->status = rc;
		t->done(t);
	}
}

static void *lane_main(void *arg)
{
	struct cuda_lane *l = arg;
	struct cuda_backend *be = l->be;
	char err[512];

	pthread_mutex_lock(&be->lock);
	for (;;) {
		while (!l->head && !l->stopping)
			pthread_cond_wait(&l->work, &be->lock);
		if (!l->head)
			break;
		struct backend_task *t = l->head;
		pthread_mutex_unlock(&be->lock);

		int rc = fecd_cuda_lane_wait(l->lane, err, sizeof(err));

		pthread_mutex_lock(&be->lock);
		l->head = t->next_;
		if (!l->head)
			l->tail = NULL;
		((struct cuda_entry *)t->priv_)->inflight--;
		if (rc < 0) {
			fall_back_locked(be, err);
			be->batches_redone++;
		}
		pthread_mutex_unlock(&be->lock);
		if (rc == 0)
			finish_gpu_batch(be, t);
		else
			redo_on_cpu(be, t);
		pthread_mutex_lock(&be->lock);
	}
	pthread_mutex_unlock(&be->lock);
	return NULL;
}

static void chan_stop(struct cuda_backend *be, struct cuda_chan *ch)
{
	pthread_mutex_lock(&be->lock);
	for (unsigned i = 0; i < ch->nlanes; i++) {
		ch->lanes[i].stopping = true;
		pthread_cond_signal(&ch->lanes[i].work);
	}
	pthread_mutex_unlock(&be->lock);
	for (unsigned i = 0; i < ch->nlanes; i++) {
		struct cuda_lane *l = &ch->lanes[i];
		if (l->started)
			pthread_join(l->tid, NULL);
		fecd_cuda_lane_destroy(l->lane);
		pthread_cond_destroy(&l->work);
	}
	free(ch);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool chan_idle_locked(const struct cuda_chan *ch)
{
	for (unsigned i = 0; i < ch->nlanes; i++)
		if (ch->lanes[i].head)
			return false;
	return true;
}

/* Frees the lanes of channels with nothing on the GPU and no batch for CUDA_CHAN_IDLE_NS, and when
 * the table is still full the least recently used idle one. A lane's waiter takes its last task off
 * the list before reporting it; chan_stop joins the thread, so that report has ended too. Dropping
 * the lock around chan_stop is safe with several loop threads submitting: the victim has left the
 * table under the lock, and only its own channel's loop could submit for it again, which then
 * finds it gone and makes a fresh entry. */
static void chan_reclaim_locked(struct cuda_backend *be, uint64_t now)
{
	for (;;) {
		struct cuda_chan *victim = NULL;
		unsigned at = 0;

		for (unsigned i = 0; i < be->nchans; i++) {
			struct cuda_chan *ch = be->chans[i];
			bool stale = now - ch->last_submit_ns >= CUDA_CHAN_IDLE_NS;
			if (!chan_idle_locked(ch))
				continue;
			if (stale || (be->nchans >= CUDA_CHANNELS_MAX &&
			              (!victim || ch->last_submit_ns < victim->last_submit_ns))) {
				victim = ch;
				at = i;
				if (stale)
					break;
			}
		}
		if (!victim)
			return;
		be->chans[at] = be->chans[--be->nchans];
		pthread_mutex_unlock(&be->lock);
		chan_stop(be, victim);
		pthread_mutex_lock(&be->lock);
	}
}

static struct cuda_chan *chan_get(struct cuda_backend *be, uint32_t channel)
{
	struct cuda_chan *ch;
	uint64_t now = now_ns();
	char err[512];
	int rc;

	for (unsigned i = 0; i < be->nchans; i++) {
		if (be->chans[i]->channel == channel) {
			be->chans[i]->last_submit_ns = now;
			return be->chans[i];
		}
	}
	chan_reclaim_locked(be, now);
	if (be->nchans >= CUDA_CHANNELS_MAX)
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	ch->channel = channel;
	ch->last_submit_ns = now;
	for (; ch->nlanes < be->lanes_per_channel; ch->nlanes++) {
		struct cuda_lane *l = &ch->lanes[ch->nlanes];
		l->be = be;
		rc = fecd_cuda_lane_create(be->ctx, &l->lane, err, sizeof(err));
		if (rc)
			goto out_stop;
		pthread_cond_init(&l->work, NULL);
		rc = -pthread_create(&l->tid, NULL, lane_main, l);
		if (rc) {
			snprintf(err, sizeof(err), "cannot start a lane thread: %s", strerror(-rc));
			ch->nlanes++; /* its lane and condition are made: chan_stop frees them */
			goto out_stop;
		}
		l->started = true;
		thread_name(l->tid, "fecd-gpu/", ch->nlanes);
	}
	be->chans[be->nchans++] = ch;
	return ch;

out_stop:
	/* chan_stop takes the lock, which the caller holds. */
	pthread_mutex_unlock(&be->lock);
	chan_stop(be, ch);
	pthread_mutex_lock(&be->lock);
	fall_back_locked(be, err);
	return NULL;
}

/* ---- Operations */

static int cuda_submit(struct backend *b, struct backend_task *t)
{
	struct cuda_backend *be = (struct cuda_backend *)b;
	struct cuda_entry *e = NULL;
	struct cuda_chan *ch = NULL;
	char err[512];
	int rc;

	if (!t->dec || !t->done)
		return -FEC_EINVAL;
	pthread_mutex_lock(&be->lock);
	if (!be->failed)
		e = entry_get(be, t->dec);
	if (e && e->gpu && !be->failed)
		ch = chan_get(be, t->channel);
	if (!ch || be->failed) {
		be->batches_cpu++;
		for (unsigned i = 0; i < be->nchans; i++)
			if (be->chans[i]->channel == t->channel)
				be->chans[i]->batches_cpu++;
		pthread_mutex_unlock(&be->lock);
		return be->cpu->ops->submit(be->cpu, t);
	}
	struct cuda_lane *l = &ch->lanes[ch->next_lane++ % ch->nlanes];
	if (be->fault_at && ++be->submitted == be->fault_at)
		fecd_cuda_lane_inject_fault(l->lane);
	t->status = 0;
	t->ran_on = BACKEND_RAN_GPU;
	t->retried = 0;
	t->batch.attempt = 0;
	rc = fecd_cuda_lane_submit(l->lane, e->gpu, &t->batch, 0, err, sizeof(err));
	if (rc < 0) {
		if (rc == -FEC_EDEVICE)
			fall_back_locked(be, err);
		else
			log_warn("backend: the GPU refused a batch (%s); the CPU decodes it", err);
		be->batches_cpu++;
		ch->batches_cpu++;
		pthread_mutex_unlock(&be->lock);
		return be->cpu->ops->submit(be->cpu, t);
	}
	t->priv_ = e;
	e->inflight++;
	e->last_use = ++be->tick;
	ch->last = e;
	ch->batches_gpu++;
	be->batches_gpu++;
	t->next_ = NULL;
	if (l->tail)
		l->tail->next_ = t;
	else
		l->head = t;
	l->tail = t;
	pthread_cond_signal(&l->work);
	pthread_mutex_unlock(&be->lock);
	return 0;
}

static void cuda_prepare(struct backend *b, uint32_t channel, const struct fec_decoder *dec,
                         const struct backend_shape *s)
{
	struct cuda_backend *be = (struct cuda_backend *)b;
	const struct fecd_cuda_shape shape = {.count = s->jobs,
	                                      .in_stride = s->in_stride,
	                                      .in_elem = s->in_elem,
	                                      .out_stride = s->out_stride,
	                                      .soft_stride = s->soft_stride};
	struct cuda_entry *e = NULL;
	struct cuda_chan *ch = NULL;
	char err[512];
	int rc;

	pthread_mutex_lock(&be->lock);
	if (!be->failed)
		e = entry_get(be, dec);
	if (e && e->gpu && !be->failed)
		ch = chan_get(be, channel);
	for (unsigned i = 0; ch && i < ch->nlanes && !be->failed; i++) {
		rc = fecd_cuda_lane_reserve(ch->lanes[i].lane, e->gpu, &shape, err, sizeof(err));
		if (rc == -FEC_EDEVICE)
			fall_back_locked(be, err);
		else if (rc)
			log_warn("backend: channel %u: no GPU buffers yet (%s); its first batch "
			         "makes them",
			         channel, err);
	}
	pthread_mutex_unlock(&be->lock);
}

static void *cuda_host_alloc(struct backend *b, size_t len)
{
	struct cuda_backend *be = (struct cuda_backend *)b;
	uint32_t magic = HOST_MAGIC_PINNED;
	uint8_t *p = NULL;
	bool pinned;

	pthread_mutex_lock(&be->lock);
	pinned = be->ctx && !be->failed;
	pthread_mutex_unlock(&be->lock);
	if (pinned)
		p = fecd_cuda_host_alloc(be->ctx, len + HOST_HDR);
	if (!p) {
		/* No device, or pinned memory ran out: pageable memory works, slower. */
		magic = HOST_MAGIC_PLAIN;
		p = aligned_alloc(HOST_HDR, (len + 2 * HOST_HDR - 1) / HOST_HDR * HOST_HDR);
		if (!p)
			return NULL;
	}
	memcpy(p, &magic, sizeof(magic));
	return p + HOST_HDR;
}

static void cuda_host_free(struct backend *b, void *ptr)
{
	struct cuda_backend *be = (struct cuda_backend *)b;
	uint8_t *p;
	uint32_t magic;

	if (!ptr)
		return;
	p = (uint8_t *)ptr - HOST_HDR;
	memcpy(&magic, p, sizeof(magic));
	if (magic == HOST_MAGIC_PINNED)
		fecd_cuda_host_free(be->ctx, p);
	else
		free(p);
}

static void device_json(const struct fecd_cuda_device *d, cJSON *o)
{
	char text[32];

	cJSON_AddNumberToObject(o, "index", d->index);
	cJSON_AddStringToObject(o, "name", d->name);
	snprintf(text, sizeof(text), "%d.%d", d->cc_major, d->cc_minor);
	cJSON_AddStringToObject(o, "compute_capability", text);
	cJSON_AddNumberToObject(o, "sms", d->sm_count);
	cJSON_AddNumberToObject(o, "clock_mhz", d->clock_khz / 1000);
	cJSON_AddNumberToObject(o, "memory_clock_mhz", d->mem_clock_khz / 1000);
	cJSON_AddNumberToObject(o, "memory_bus_bits", d->mem_bus_bits);
	cJSON_AddNumberToObject(o, "memory_total_mib", (double)(d->mem_total >> 20));
	cJSON_AddNumberToObject(o, "memory_free_mib", (double)(d->mem_free >> 20));
	cJSON_AddNumberToObject(o, "l2_kib", (double)(d->l2_bytes >> 10));
	cJSON_AddNumberToObject(o, "shared_memory_per_sm_kib", (double)(d->smem_per_sm >> 10));
	cJSON_AddNumberToObject(o, "copy_engines", d->async_engines);
	snprintf(text, sizeof(text), "%d.%d", d->driver_version / 1000,
	         d->driver_version % 1000 / 10);
	cJSON_AddStringToObject(o, "driver_version", text);
	snprintf(text, sizeof(text), "%d.%d", d->runtime_version / 1000,
	         d->runtime_version % 1000 / 10);
	cJSON_AddStringToObject(o, "runtime_version", text);
}

static void cuda_info(struct backend *b, cJSON *obj)
{
	struct cuda_backend *be = (struct cuda_backend *)b;
	struct fecd_cuda_device dev, fresh;
	bool have_dev = false, failed;
	char err[256];
	cJSON *o;

	pthread_mutex_lock(&be->lock);
	failed = be->failed;
	pthread_mutex_unlock(&be->lock);
	if (be->ctx) {
		dev = *fecd_cuda_device_info(be->ctx);
		have_dev = true;
		/* A fresh query for free memory; a failed context would only answer with errors. */
		if (!failed && fecd_cuda_device_query(dev.index, &fresh, err, sizeof(err)) == 0)
			dev = fresh;
	}
	pthread_mutex_lock(&be->lock);
	cJSON_AddStringToObject(obj, "name", be->failed ? "cpu" : "cuda");
	cJSON_AddStringToObject(obj, "active", be->failed ? "cpu" : "cuda");
	if (be->failed)
		cJSON_AddStringToObject(obj, "fallback_reason", be->reason);
	else
		cJSON_AddNullToObject(obj, "fallback_reason");
	cJSON_AddNumberToObject(obj, "gpu_device", be->device);
	if (have_dev && (o = cJSON_AddObjectToObject(obj, "device")))
		device_json(&dev, o);
	else
		cJSON_AddNullToObject(obj, "device");
	cJSON_AddNumberToObject(obj, "lanes_per_channel", be->lanes_per_channel);
	cJSON_AddNumberToObject(obj, "batches_gpu", (double)be->batches_gpu);
	cJSON_AddNumberToObject(obj, "batches_cpu", (double)be->batches_cpu);
	cJSON_AddNumberToObject(obj, "batches_redone_on_cpu", (double)be->batches_redone);
	cJSON *arr = cJSON_AddArrayToObject(obj, "gpu_channels");
	for (unsigned i = 0; arr && i < be->nchans; i++) {
		const struct cuda_chan *ch = be->chans[i];
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "channel", ch->channel);
		cJSON_AddNumberToObject(c, "lanes", ch->nlanes);
		cJSON_AddStringToObject(c, "decoder", ch->last ? ch->last->describe : "");
		cJSON_AddNumberToObject(c, "batches_gpu", (double)ch->batches_gpu);
		cJSON_AddNumberToObject(c, "batches_cpu", (double)ch->batches_cpu);
		cJSON_AddItemToArray(arr, c);
	}
	pthread_mutex_unlock(&be->lock);
	if ((o = cJSON_AddObjectToObject(obj, "cpu_backend")))
		be->cpu->ops->info(be->cpu, o);
}

static void cuda_counters(struct backend *b, struct backend_counters *out)
{
	struct cuda_backend *be = (struct cuda_backend *)b;

	pthread_mutex_lock(&be->lock);
	out->gpu_active = be->ctx && !be->failed;
	out->batches_to_cpu = be->batches_cpu;
	out->batches_redone = be->batches_redone;
	pthread_mutex_unlock(&be->lock);
}

static void cuda_destroy(struct backend *b)
{
	struct cuda_backend *be = (struct cuda_backend *)b;

	/* The lanes' threads finish their batches (to the CPU backend after an error) first. */
	for (unsigned i = 0; i < be->nchans; i++)
		chan_stop(be, be->chans[i]);
	for (unsigned i = 0; i < CUDA_ENTRIES_MAX; i++)
		if (be->entries[i])
			entry_free(be->entries[i]);
	fecd_cuda_close(be->ctx);
	be->cpu->ops->destroy(be->cpu);
	pthread_mutex_destroy(&be->lock);
	free(be);
}

static void cuda_batch_defaults(struct backend *b, const struct fec_spec *spec, uint32_t *jobs,
                                uint32_t *inflight)
{
	struct cuda_backend *be = (struct cuda_backend *)b;
	bool gpu;

	pthread_mutex_lock(&be->lock);
	gpu = be->ctx && !be->failed && fecd_cuda_supports(spec);
	pthread_mutex_unlock(&be->lock);
	if (!gpu) {
		backend_cpu_batch_defaults(be->cpu, jobs, inflight);
		return;
	}
	*jobs = BACKEND_GPU_JOBS;
	*inflight = BACKEND_GPU_INFLIGHT;
}

static const struct backend_ops cuda_ops = {
    .name = "cuda",
    .submit = cuda_submit,
    .prepare = cuda_prepare,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .batch_defaults = cuda_batch_defaults,
    .info = cuda_info,
    .counters = cuda_counters,
    .destroy = cuda_destroy,
};

int backend_cuda_create(const struct backend_cuda_config *c, struct backend **out)
{
	struct cuda_backend *be = calloc(1, sizeof(*be));
	const char *fault = getenv("FECD_CUDA_FAULT_AT");
	char why[512];
	int rc;

	if (!be)
		return -ENOMEM;
	be->base.ops = &cuda_ops;
	snprintf(be->mode, sizeof(be->mode), "%s", c->mode);
	be->device = c->device;
	pthread_mutex_init(&be->lock, NULL);
	rc = backend_cpu_create(c->workers, &be->cpu);
	if (rc)
		goto out_free;
	if (fault && *fault)
		be->fault_at = strtoull(fault, NULL, 10);
	rc = fecd_cuda_open(c->device, &be->ctx, why, sizeof(why));
	if (rc) {
		be->ctx = NULL;
		be->failed = true;
		snprintf(be->reason, sizeof(be->reason), "%s", why);
		log_warn(
		    "backend fallback: backend \"%s\" configured but CUDA cannot be used (%s); "
		    "decoding on the CPU backend",
		    c->mode, why);
	} else {
		const struct fecd_cuda_device *d = fecd_cuda_device_info(be->ctx);
		be->lanes_per_channel = c->lanes ? c->lanes : fecd_cuda_default_lanes(be->ctx);
		if (be->lanes_per_channel > CUDA_LANES_MAX)
			be->lanes_per_channel = CUDA_LANES_MAX;
		log_notice(
		    "backend: CUDA device %d, %s (compute capability %d.%d, %d SMs, %zu MiB), "
		    "%u lanes per channel",
		    d->index, d->name, d->cc_major, d->cc_minor, d->sm_count, d->mem_total >> 20,
		    be->lanes_per_channel);
		if (be->fault_at)
			log_notice("backend: FECD_CUDA_FAULT_AT=%llu: batch %llu will fault on the "
			           "device (a test of the fallback)",
			           (unsigned long long)be->fault_at,
			           (unsigned long long)be->fault_at);
	}
	*out = &be->base;
	return 0;

out_free:
	pthread_mutex_destroy(&be->lock);
	free(be);
	return rc;
}
