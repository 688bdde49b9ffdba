/*
 * fecd-sim's CPU engine (sim.h): threads that each take a batch of frames at a time from a
 * shared cursor, make them (information bits from the frame's own PRNG, fec_encode, the channel,
 * the quantization fecd-feed applies), decode them with fec_decode (and the further attempts the
 * CPU backend makes for jobs marked FEC_STATUS_RETRY) and count errors on the information bits.
 *
 * Stop rules are decided in frame order: batch b's tally is added only after batches 0..b-1's,
 * and the point ends at the first batch with which a rule holds, so min-fe and max-frames give
 * the same frames, and the same tally, whatever the number of threads (batches finished beyond
 * it are dropped). The time budget and a signal stop the claiming of batches: those under way
 * finish, and the prefix of batches done counts.
 *
 * The channel: over awgn into int8 input, the quantized channel's distribution is sampled
 * exactly (sim_qawgn.h); over awgn into float input, BPSK and noise are made here with the
 * ziggurat (sim_noise.h); both the channel table's awgn (LLR 2y/sigma^2) at a fraction of the
 * cost of its polar method. Any other model goes through fec_channel_apply. The decoder's input:
 * int8 LLRs as fecd-feed quantizes them (s8: round(LLR * scale), half away from zero, clamped to
 * +-127) at the scale the decoder reads them with, the code's llr_scale, where it has one (the
 * frame families: the Fano metric, offset min-sum and sum-product take int8 / llr_scale as the LLR,
 * and a sender at another scale costs them dB); else (viterbi, indifferent to scale) fecd-feed's
 * automatic scale, mean |LLR|
 * -> 40; --scale X sets another, as fecd-feed --scale. A code with float input (in=f32) gets the
 * float LLRs as fecd-feed --format f32 sends them; q-ary input (in=f32v) the symbols'
 * log-probabilities from the bit LLRs, as fecd-feed makes them.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bitpack.h"
#include "prng.h"
#include "sim.h"
#include "sim_noise.h"
#include "sim_qawgn.h"
#include "softbits.h"

#define BATCH_BITS   (1u << 17) /* information bits a batch aims at */
#define BATCH_ALIGN  64u        /* frames per batch: a multiple (the widest SIMD group) */
#define BATCH_MAX    1024u
#define SLOT_F32_MAX 1.0e6f /* the daemon's bound on a float slot (consume.c) */

struct worker {
	struct sim_cpu *e;
	pthread_t thread;
	struct fec_encoder *enc;
	void *scratch;
	uint8_t *bits, *cbits, *refs, *out; /* refs: each frame's counted bits, packed */
	uint8_t *packed; /* the frame's information bits, packed (the PRNG's words, big-endian) */
	float *noise, *llr;
	void *in; /* int8 or float slots, batch_frames of them */
	struct fec_job *jobs;
	double decode_secs, cpu_secs; /* CPU time in the decoder, and in all */
	int rc;
	char err[256];
};

/* The point being run; shared under lock. */
struct run {
	double ebn0_db;
	uint64_t seed;
	uint32_t point;
	struct fec_channel ch;
	bool fast_awgn; /* awgn: the ziggurat here, not the channel table's apply */
	bool qawgn_on;  /* awgn into int8 input: the quantized channel sampled exactly */
	struct sim_qawgn qawgn;
	float scale; /* int8 LLR per LLR */
	struct sim_stop stop;
	uint64_t next_batch, committed; /* batches claimed; batches added to tally */
	struct sim_tally *done;         /* per batch, until committed */
	uint8_t *ready;
	size_t cap;
	struct sim_tally tally;
	bool finished;
	bool draining; /* time or a signal: no more batches are claimed, those under way count */
	enum sim_stop_why why;
	double decode_only_secs;     /* the decoder-only run's length */
	double decode_only_elapsed;  /* the longest a thread took */
	uint64_t decode_only_frames; /* frames the threads decoded */
};

struct sim_cpu {
	const struct sim_code *code;
	unsigned nthreads;
	uint32_t batch_frames;
	size_t in_stride, in_elem, out_stride, ref_stride;
	struct worker *w;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct run r;
};

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The calling thread's CPU time: shares of work that other processes on the machine do not
 * blur. */
static double cpu_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* unpack8[b]: byte b's bits, MSB first, one per byte in memory order. */
static uint64_t unpack8[256];
static pthread_once_t unpack_once = PTHREAD_ONCE_INIT;

static void unpack_init(void)
{
	for (unsigned b = 0; b < 256; b++) {
		uint8_t v[8];

		for (unsigned j = 0; j < 8; j++)
			v[j] = (uint8_t)(b >> (7 - j) & 1u);
		memcpy(&unpack8[b], v, 8);
	}
}

static uint32_t batch_frames(const struct sim_code *c)
{
	uint32_t n = (BATCH_BITS + c->info_bits - 1) / c->info_bits;

	n = (n + BATCH_ALIGN - 1) / BATCH_ALIGN * BATCH_ALIGN;
	return n > BATCH_MAX ? BATCH_MAX : n;
}

static int worker_init(struct sim_cpu *e, struct worker *w, char *err, size_t errlen)
{
	const struct sim_code *c = e->code;
	size_t coded = fec_encoded_len(&c->spec, c->frame_bits) + 64;
	size_t rx = c->max_rx > coded ? c->max_rx : coded;
	int rc;

	w->e = e;
	rc = fec_encoder_create(&c->spec, &w->enc);
	if (rc) {
		snprintf(err, errlen, "code '%s': no encoder: %s", c->text, fec_strerror(rc));
		return -1;
	}
	w->scratch = c->info.scratch_bytes
	                 ? aligned_alloc(64, (c->info.scratch_bytes + 63) / 64 * 64)
	                 : NULL;
	w->bits = malloc(c->frame_bits + 64);
	w->packed = malloc(c->frame_bits / 8 + 16);
	w->cbits = malloc(coded);
	w->refs = malloc((size_t)e->batch_frames * e->ref_stride);
	w->noise = malloc(rx * sizeof(float));
	w->llr = malloc(rx * sizeof(float));
	w->in = aligned_alloc(64, (e->batch_frames * e->in_stride * e->in_elem + 63) / 64 * 64);
	w->out = malloc(e->batch_frames * e->out_stride);
	w->jobs = calloc(e->batch_frames, sizeof(*w->jobs));
	if ((c->info.scratch_bytes && !w->scratch) || !w->bits || !w->packed || !w->cbits ||
	    !w->refs || !w->noise || !w->llr || !w->in || !w->out || !w->jobs) {
		snprintf(err, errlen, "out of memory for a batch of %u frames", e->batch_frames);
		return -1;
	}
	return 0;
}

static void worker_free(struct worker *w)
{
	if (w->enc)
		fec_encoder_destroy(w->enc);
	free(w->scratch);
	free(w->bits);
	free(w->packed);
	free(w->cbits);
	free(w->refs);
	free(w->noise);
	free(w->llr);
	free(w->in);
	free(w->out);
	free(w->jobs);
}

int sim_cpu_open(const struct sim_code *code, unsigned nthreads, struct sim_cpu **out, char *err,
                 size_t errlen)
{
	struct sim_cpu *e = calloc(1, sizeof(*e));
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sim_noise_init();
	pthread_once(&unpack_once, unpack_init);
	e->code = code;
	e->nthreads = nthreads ? nthreads : (unsigned)(cores > 0 ? cores : 1);
	e->batch_frames = batch_frames(code);
	e->in_elem = code->info.in_kind == FEC_IN_S8_LLR ? 1 : sizeof(float);
	e->in_stride =
	    (size_t)(code->stream ? code->code_syms : code->info.max_frame_syms) * code->info.in_q;
	e->out_stride = (code->info.max_out_bits + 7) / 8;
	e->ref_stride = (code->info_bits + 7) / 8;
	if (!code->stream && code->max_rx > code->info.max_frame_syms)
		e->in_stride = (size_t)code->max_rx * code->info.in_q;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	e->w = calloc(e->nthreads, sizeof(*e->w));
	if (!e->w) {
		snprintf(err, errlen, "out of memory");
		sim_cpu_close(e);
		return -1;
	}
	for (unsigned i = 0; i < e->nthreads; i++) {
		if (worker_init(e, &e->w[i], err, errlen)) {
			sim_cpu_close(e);
			return -1;
		}
	}
	*out = e;
	return 0;
}

unsigned sim_cpu_threads(const struct sim_cpu *e)
{
	return e->nthreads;
}

uint32_t sim_cpu_batch_frames(const struct sim_cpu *e)
{
	return e->batch_frames;
}

void sim_cpu_close(struct sim_cpu *e)
{
	if (!e)
		return;
	for (unsigned i = 0; e->w && i < e->nthreads; i++)
		worker_free(&e->w[i]);
	free(e->w);
	free(e->r.done);
	free(e->r.ready);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->cond);
	free(e);
}

/* The frame's information bits as fec_prng_bits draws them (64 a word, MSB first): packed as
 * the words' big-endian bytes, and one per byte for the encoder, without a branch per bit. */
static void draw_bits(struct worker *w, struct fec_prng *p, uint32_t n)
{
	uint32_t words = (n + 63) / 64;

	for (uint32_t k = 0; k < words; k++) {
		uint64_t v = fec_prng_next(p);

		for (unsigned j = 0; j < 8; j++) {
			uint8_t byte = (uint8_t)(v >> (56 - 8 * j));

			w->packed[8 * k + j] = byte;
			memcpy(w->bits + 64 * k + 8 * j, &unpack8[byte], 8);
		}
	}
}

/* Frame i into job slot j: bits, code bits, channel, decoder input. */
static int make_frame(struct worker *w, uint64_t i, uint32_t j)
{
	struct sim_cpu *e = w->e;
	const struct sim_code *c = e->code;
	const struct run *r = &e->r;
	struct fec_job *job = &w->jobs[j];
	struct fec_prng p;
	size_t ncode = 0, nrx = 0;
	const uint8_t *sent;
	int rc;

	fec_prng_seed(&p, sim_frame_seed(r->seed, r->point, i));
	if (c->all_zero) {
		memset(w->cbits, 0, c->skip_syms + c->code_syms);
		memset(w->packed, 0, c->frame_bits / 8 + 16);
		ncode = c->skip_syms + c->code_syms;
	} else {
		draw_bits(w, &p, c->frame_bits);
		fec_encoder_reset(w->enc);
		rc = fec_encode(w->enc, w->bits, c->frame_bits, w->cbits, &ncode);
		if (rc) {
			snprintf(w->err, sizeof(w->err), "encoding a frame of %u bits: %s",
			         c->frame_bits, fec_strerror(rc));
			return -1;
		}
	}
	sent = w->cbits + c->skip_syms;
	ncode -= c->skip_syms;
	if (r->qawgn_on) {
		sim_qawgn_apply(&r->qawgn, &p, sent, ncode, (int8_t *)w->in + j * e->in_stride);
		nrx = ncode;
		goto job;
	}
	if (r->fast_awgn) {
		const float gain = (float)(2.0 / (r->ch.sigma * r->ch.sigma));
		const float gs = gain * (float)r->ch.sigma;

		sim_noise_gauss(&p, w->noise, ncode);
		nrx = ncode;
		for (size_t k = 0; k < ncode; k++)
			w->llr[k] = (sent[k] ? -gain : gain) + gs * w->noise[k];
	} else {
		rc = fec_channel_apply(&r->ch, &p, sent, ncode, w->llr, &nrx);
		if (rc) {
			snprintf(w->err, sizeof(w->err), "channel %s: %s", r->ch.model->name,
			         fec_strerror(rc));
			return -1;
		}
	}
	/* a received frame longer than the decoder takes (insertions): the daemon drops such a
	 * frame as too long; here its first values are decoded, which fails alike (bit values:
	 * q-ary input has p of them to a symbol) */
	const uint32_t per = c->info.in_kind == FEC_IN_F32_SYMLOGP ? c->spec.u.nbldpc.p : 1;
	if (!c->stream && c->info.max_frame_syms && nrx > (size_t)c->info.max_frame_syms * per)
		nrx = (size_t)c->info.max_frame_syms * per;
	switch (c->info.in_kind) {
	case FEC_IN_S8_LLR:
		fec_llr_quantize(FECD_FMT_S8_LLR, w->llr, nrx, false, r->scale,
		                 (int8_t *)w->in + j * e->in_stride);
		break;
	case FEC_IN_F32_LLR: {
		float *dst = (float *)w->in + j * e->in_stride;

		for (size_t k = 0; k < nrx; k++) {
			float v = w->llr[k];

			dst[k] = isnan(v) ? 0.0f : fminf(fmaxf(v, -SLOT_F32_MAX), SLOT_F32_MAX);
		}
		break;
	}
	case FEC_IN_F32_SYMLOGP: /* q-ary input: nbldpc alone, p bits to a symbol */
		nrx /= per;
		nbldpc_llr_to_symlogp(w->llr, nrx, per, c->spec.u.nbldpc.bit_order,
		                      (float *)w->in + j * e->in_stride);
		break;
	}
job:
	memset(job, 0, sizeof(*job));
	job->in_len = (uint32_t)nrx;
	job->head_len = c->stream ? c->info.head_syms : 0;
	job->own_len = c->stream ? c->info.block_syms : (uint32_t)nrx;
	/* the information bits counted, packed as the decoder writes them */
	if (c->info_at % 8 == 0)
		memcpy(w->refs + j * e->ref_stride, w->packed + c->info_at / 8, e->ref_stride);
	else
		fec_copy_bits(w->refs + j * e->ref_stride, 0, w->packed, c->info_at, c->info_bits);
	return 0;
}

/* Decodes jobs [0, n) of the worker's batch, with the further attempts of jobs marked RETRY. */
static int decode_batch(struct worker *w, uint32_t n)
{
	struct sim_cpu *e = w->e;
	const struct sim_code *c = e->code;
	struct fec_batch b = {.count = n,
	                      .jobs = w->jobs,
	                      .in_stride = e->in_stride,
	                      .out = w->out,
	                      .out_stride = e->out_stride};
	double t0 = cpu_secs();
	int rc;

	if (c->info.in_kind == FEC_IN_S8_LLR)
		b.in = w->in;
	else
		b.in_f32 = w->in;
	rc = fec_decode(c->dec, w->scratch, &b, 0, n);
	for (uint32_t attempt = 1; rc == 0 && attempt < FEC_ATTEMPTS; attempt++) {
		b.attempt = attempt;
		for (uint32_t j = 0; rc == 0 && j < n;) {
			uint32_t k = j;

			while (k < n && w->jobs[k].status == FEC_STATUS_RETRY)
				k++;
			if (k > j)
				rc = fec_decode(c->dec, w->scratch, &b, j, k - j);
			j = k > j ? k : j + 1;
		}
	}
	w->decode_secs += cpu_secs() - t0;
	if (rc)
		snprintf(w->err, sizeof(w->err), "decoding: %s", fec_strerror(rc));
	return rc;
}

/* Batch number bi: frames [bi * B, ...) up to the max-frames limit, made, decoded, counted. */
static int run_batch(struct worker *w, uint64_t bi, struct sim_tally *t)
{
	struct sim_cpu *e = w->e;
	const struct sim_code *c = e->code;
	uint64_t first = bi * e->batch_frames;
	uint32_t n = e->batch_frames;

	if (e->r.stop.max_frames && first + n > e->r.stop.max_frames)
		n = (uint32_t)(e->r.stop.max_frames - first);
	memset(t, 0, sizeof(*t));
	for (uint32_t j = 0; j < n; j++)
		if (make_frame(w, first + j, j))
			return -1;
	memset(w->out, 0, (size_t)n * e->out_stride);
	if (decode_batch(w, n))
		return -1;
	for (uint32_t j = 0; j < n; j++) {
		const struct fec_job *job = &w->jobs[j];
		size_t errs = fec_count_bit_errors(w->out + j * e->out_stride,
		                                   w->refs + j * e->ref_stride, c->info_bits);

		t->frames++;
		t->bits += c->info_bits;
		t->bit_errors += errs;
		if (errs || job->status != FECD_STATUS_DECODED)
			t->frame_errors++;
		if (errs)
			t->wrong_frames++;
		t->bit_errors_sq += (uint64_t)errs * errs;
		if (job->status == FECD_STATUS_NOT_CONVERGED)
			t->unconverged++;
	}
	return 0;
}

/* Adds finished batches in order and applies the stop rules; under lock. */
static void commit(struct sim_cpu *e)
{
	struct run *r = &e->r;

	while (!r->finished && r->committed < r->next_batch && r->ready[r->committed]) {
		sim_tally_add(&r->tally, &r->done[r->committed]);
		r->committed++;
		if (r->stop.min_fe && r->tally.frame_errors >= r->stop.min_fe) {
			r->finished = true;
			r->why = SIM_STOP_MIN_FE;
		} else if (r->stop.max_frames && r->tally.frames >= r->stop.max_frames) {
			r->finished = true;
			r->why = SIM_STOP_MAX_FRAMES;
		}
	}
}

static int grow(struct run *r, uint64_t need)
{
	size_t cap = r->cap ? r->cap : 256;

	while (cap <= need)
		cap *= 2;
	if (cap == r->cap)
		return 0;
	struct sim_tally *d = realloc(r->done, cap * sizeof(*d));
	if (!d)
		return -1;
	r->done = d;
	uint8_t *rd = realloc(r->ready, cap);
	if (!rd)
		return -1;
	memset(rd + r->cap, 0, cap - r->cap);
	r->ready = rd;
	r->cap = cap;
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sim_cpu *e = w->e;
	struct run *r = &e->r;
	struct sim_tally t;
	double c0 = cpu_secs();

	pthread_mutex_lock(&e->lock);
	while (!r->finished && !r->draining) {
		uint64_t bi = r->next_batch;

		if (r->stop.max_frames && bi * e->batch_frames >= r->stop.max_frames) {
			/* nothing left to claim: wait for the others to commit */
			pthread_cond_wait(&e->cond, &e->lock);
			continue;
		}
		if (grow(r, bi)) {
			snprintf(w->err, sizeof(w->err), "out of memory");
			w->rc = -1;
			break;
		}
		r->next_batch++;
		pthread_mutex_unlock(&e->lock);
		w->rc = run_batch(w, bi, &t);
		pthread_mutex_lock(&e->lock);
		if (w->rc)
			break;
		r->done[bi] = t;
		r->ready[bi] = 1;
		commit(e);
		pthread_cond_broadcast(&e->cond);
	}
	if (w->rc)
		r->finished = true;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	w->cpu_secs = cpu_secs() - c0;
	return NULL;
}

/* The decoder alone: one batch made, then decoded until the run is finished. */
static void *worker_decode_only(void *arg)
{
	struct worker *w = arg;
	struct sim_cpu *e = w->e;
	struct run *r = &e->r;
	uint64_t frames = 0;
	double t0, c0;
	bool finished;

	for (uint32_t j = 0; j < e->batch_frames && !w->rc; j++)
		w->rc = make_frame(w, (uint64_t)(w - e->w) * e->batch_frames + j, j);
	t0 = now_secs();
	c0 = cpu_secs();
	do {
		if (!w->rc)
			w->rc = decode_batch(w, e->batch_frames);
		frames += e->batch_frames;
		pthread_mutex_lock(&e->lock);
		finished =
		    r->finished || r->draining || w->rc || now_secs() - t0 >= r->decode_only_secs;
		if (finished) {
			r->decode_only_frames += frames;
			r->decode_only_elapsed = fmax(r->decode_only_elapsed, now_secs() - t0);
		}
		pthread_mutex_unlock(&e->lock);
	} while (!finished);
	w->cpu_secs = cpu_secs() - c0;
	return NULL;
}

static int start_point(struct sim_cpu *e, double ebn0_db, uint64_t seed, uint32_t point, char *err,
                       size_t errlen)
{
	struct run *r = &e->r;
	const struct fec_channel_link link = {.ebn0_db = ebn0_db, .rate = e->code->rate};
	char msg[512];

	r->ebn0_db = ebn0_db;
	r->seed = seed;
	r->point = point;
	if (fec_channel_open(e->code->channel, &link, &r->ch, msg, sizeof(msg))) {
		snprintf(err, errlen, "--channel: %s", msg);
		return -1;
	}
	r->fast_awgn = !strcmp(r->ch.model->name, "awgn") && r->ch.sigma > 0.0;
	if (e->code->scale > 0)
		r->scale = e->code->scale;
	else if (e->code->info.frame.llr_scale > 0)
		r->scale = e->code->info.frame.llr_scale;
	else
		r->scale = (float)(40.0 / fec_channel_llr_mean(&r->ch));
	r->qawgn_on = r->fast_awgn && e->code->info.in_kind == FEC_IN_S8_LLR;
	if (r->qawgn_on)
		sim_qawgn_build(&r->qawgn, r->ch.sigma, r->scale);
	r->next_batch = r->committed = 0;
	memset(&r->tally, 0, sizeof(r->tally));
	if (r->ready)
		memset(r->ready, 0, r->cap);
	r->finished = r->draining = false;
	r->why = 0;
	for (unsigned i = 0; i < e->nthreads; i++) {
		e->w[i].decode_secs = e->w[i].cpu_secs = 0;
		e->w[i].rc = 0;
		e->w[i].err[0] = '\0';
	}
	return 0;
}

/* Starts the threads on fn, waits for them, and gathers their errors. */
static int run_threads(struct sim_cpu *e, void *(*fn)(void *), volatile int *stop_flag,
                       sim_progress_fn progress, void *arg, double *secs, char *err, size_t errlen)
{
	struct run *r = &e->r;
	unsigned started = 0;
	double t0 = now_secs(), last = t0;
	int rc = 0;

	for (; started < e->nthreads; started++)
		if (pthread_create(&e->w[started].thread, NULL, fn, &e->w[started]))
			break;
	pthread_mutex_lock(&e->lock);
	if (started < e->nthreads) {
		r->finished = true;
		snprintf(err, errlen, "could not start thread %u", started);
		rc = -1;
	}
	while (!r->finished) {
		struct timespec ts;
		double t = now_secs();

		if ((stop_flag && *stop_flag) ||
		    (r->stop.seconds > 0 && t - t0 >= r->stop.seconds)) {
			/* the batches under way finish and count (a slow decoder's first ones
			 * may outlast the budget); no more start */
			r->draining = true;
			r->why = stop_flag && *stop_flag ? SIM_STOP_SIGNAL : SIM_STOP_SECONDS;
			break;
		}
		if (progress && t - last >= 0.5) {
			struct sim_tally snap = r->tally;

			pthread_mutex_unlock(&e->lock);
			progress(arg, &snap, t - t0);
			pthread_mutex_lock(&e->lock);
			last = t;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&e->cond, &e->lock, &ts);
	}
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(e->w[i].thread, NULL);
	r->finished = true;
	*secs = now_secs() - t0;
	for (unsigned i = 0; i < started && !rc; i++) {
		if (e->w[i].rc) {
			snprintf(err, errlen, "%s", e->w[i].err);
			rc = -1;
		}
	}
	return rc;
}

int sim_cpu_run(struct sim_cpu *e, double ebn0_db, uint64_t seed, uint32_t point,
                const struct sim_stop *stop, volatile int *stop_flag, sim_progress_fn progress,
                void *arg, struct sim_result *res, char *err, size_t errlen)
{
	struct run *r = &e->r;

	r->stop = *stop;
	if (start_point(e, ebn0_db, seed, point, err, errlen))
		return -1;
	if (run_threads(e, worker_main, stop_flag, progress, arg, &res->secs, err, errlen))
		return -1;
	res->t = r->tally;
	res->why = r->why;
	res->decode_secs = res->cpu_secs = 0;
	for (unsigned i = 0; i < e->nthreads; i++) {
		res->decode_secs += e->w[i].decode_secs;
		res->cpu_secs += e->w[i].cpu_secs;
	}
	return 0;
}

int sim_cpu_decoder_only(struct sim_cpu *e, double ebn0_db, uint64_t seed, double secs,
                         double *bits_per_sec, double *bits_per_cpu_sec, char *err, size_t errlen)
{
	struct run *r = &e->r;
	double wall, cpu = 0;

	memset(&r->stop, 0, sizeof(r->stop));
	r->stop.seconds = secs; /* the threads stop themselves then; this is the backstop */
	r->decode_only_secs = secs;
	r->decode_only_elapsed = 0;
	r->decode_only_frames = 0;
	if (start_point(e, ebn0_db, seed, 0, err, errlen))
		return -1;
	if (run_threads(e, worker_decode_only, NULL, NULL, NULL, &wall, err, errlen))
		return -1;
	for (unsigned i = 0; i < e->nthreads; i++)
		cpu += e->w[i].cpu_secs;
	*bits_per_sec =
	    (double)r->decode_only_frames * e->code->info_bits / fmax(r->decode_only_elapsed, 1e-9);
	*bits_per_cpu_sec = (double)r->decode_only_frames * e->code->info_bits / fmax(cpu, 1e-9);
	return 0;
}

int sim_cpu_make_batch(struct sim_cpu *e, double ebn0_db, uint64_t seed, uint32_t point,
                       uint64_t first, uint32_t n, const void **in, size_t *in_stride,
                       const struct fec_job **jobs, char *err, size_t errlen)
{
	struct worker *w = &e->w[0];

	if (n > e->batch_frames) {
		snprintf(err, errlen, "at most %u frames", e->batch_frames);
		return -1;
	}
	memset(&e->r.stop, 0, sizeof(e->r.stop));
	if (start_point(e, ebn0_db, seed, point, err, errlen))
		return -1;
	for (uint32_t j = 0; j < n; j++) {
		if (make_frame(w, first + j, j)) {
			snprintf(err, errlen, "%s", w->err);
			return -1;
		}
	}
	*in = w->in;
	*in_stride = e->in_stride;
	*jobs = w->jobs;
	return 0;
}
