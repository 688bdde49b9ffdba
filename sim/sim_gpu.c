/*
 * fecd-sim's GPU engine adapter (sim_gpu.h) over cuda/fecd_cuda.h's fecd_cuda_sim: the device
 * makes, decodes and counts the frames; here a point is cut into batches of frames, in frame
 * order, with the stop rules applied between them as the CPU engine applies them between its
 * batches. The point's seed for the device is derived from (seed, point), so that points draw
 * independent numbers as they do on the CPU.
 *
 * The device never waits for the rules: AHEAD batches are submitted (fecd_cuda_sim_submit)
 * before the first is waited for, and each batch waited for is replaced by the next, so that
 * while the host reads a batch's tally and applies the rules the lanes hold the next batches'
 * work. A rule met at batch b ends the point with batches 0..b; those submitted after it are
 * waited for and dropped (the counts do not depend on them, as on the CPU). The point's seconds
 * end when its last counted batch is in.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fecd_cuda.h"
#include "sim_gpu.h"

#define GPU_BATCH_BITS (1ull << 28) /* information bits per batch: milliseconds of device work */
#define GPU_BATCH_MIN  256u
#define AHEAD          2 /* batches submitted and not yet waited for */

struct sim_gpu {
	const struct sim_code *code;
	struct fecd_cuda *ctx;
	struct fecd_cuda_sim *sim;
	uint64_t batch_frames;
};

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

bool sim_gpu_usable(const struct sim_code *code, char *why, size_t whylen)
{
	char msg[256] = "";

	if (fecd_cuda_device_count(msg, sizeof(msg)) <= 0) {
		snprintf(why, whylen, "no CUDA device%s%s", msg[0] ? ": " : "", msg);
		return false;
	}
	if (code->all_zero ? !fecd_cuda_sim_supports_all_zero(&code->spec, code->channel)
	                   : !fecd_cuda_sim_supports(&code->spec, code->channel)) {
		bool az = !code->all_zero && code->info.all_zero_valid &&
		          fecd_cuda_sim_supports_all_zero(&code->spec, code->channel);

		snprintf(
		    why, whylen, "the GPU simulator does not take this code over channel %s%s",
		    code->channel,
		    az ? " (it has no device encoder for it: --all-zero simulates the all-zero "
		         "codeword without one)"
		       : "");
		return false;
	}
	return true;
}

int sim_gpu_open(const struct sim_code *code, struct sim_gpu **out, char *err, size_t errlen)
{
	struct sim_gpu *g = calloc(1, sizeof(*g));
	struct fecd_cuda_sim_geometry geo;

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	g->code = code;
	g->batch_frames = GPU_BATCH_BITS / code->info_bits;
	if (g->batch_frames < GPU_BATCH_MIN)
		g->batch_frames = GPU_BATCH_MIN;
	/* the device's frames are the CPU engine's: where frames vary, their length is told */
	if (fecd_cuda_open(0, &g->ctx, err, errlen) ||
	    fecd_cuda_sim_open(g->ctx, code->dec, code->channel, code->all_zero, &g->sim, err,
	                       errlen) ||
	    (code->frames_vary &&
	     fecd_cuda_sim_set_frame_bits(g->sim, code->frame_bits, err, errlen))) {
		sim_gpu_close(g);
		return -1;
	}
	/* a batch gives every lane one of the engine's batches, AHEAD batches in flight two; and
	 * one frame simulated and dropped, so that the kernels' first launches (module loading)
	 * fall outside the first point's time */
	fecd_cuda_sim_geometry(g->sim, &geo);
	if (g->batch_frames < (uint64_t)geo.batch * geo.lanes)
		g->batch_frames = (uint64_t)geo.batch * geo.lanes;
	{
		struct fecd_cuda_sim_tally warm = {0};

		if (fecd_cuda_sim_run(g->sim, 0.0, 0, 0, 1, &warm, err, errlen)) {
			sim_gpu_close(g);
			return -1;
		}
	}
	*out = g;
	return 0;
}

uint64_t sim_gpu_batch_frames(const struct sim_gpu *g)
{
	return g->batch_frames;
}

const char *sim_gpu_device_name(const struct sim_gpu *g)
{
	return fecd_cuda_device_info(g->ctx)->name;
}

/* Submits the point's next batch (frames from *next, up to max-frames), where one is left. */
static int submit_next(struct sim_gpu *g, double ebn0_db, uint64_t seed,
                       const struct sim_stop *stop, uint64_t *next, char *err, size_t errlen)
{
	uint64_t count = g->batch_frames;

	if (stop->max_frames && *next >= stop->max_frames)
		return 0;
	if (stop->max_frames && *next + count > stop->max_frames)
		count = stop->max_frames - *next;
	if (fecd_cuda_sim_submit(g->sim, ebn0_db, seed, *next, count, err, errlen))
		return -1;
	*next += count;
	return 0;
}

int sim_gpu_run(struct sim_gpu *g, double ebn0_db, uint64_t seed, uint32_t point,
                const struct sim_stop *stop, volatile int *stop_flag, sim_progress_fn progress,
                void *arg, struct sim_result *res, char *err, size_t errlen)
{
	const uint64_t point_seed = sim_frame_seed(seed, point, UINT64_MAX);
	double t0 = now_secs(), last = t0;
	uint64_t next = 0;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	for (unsigned i = 0; i < AHEAD && !rc; i++)
		rc = submit_next(g, ebn0_db, point_seed, stop, &next, err, errlen);
	while (!rc && fecd_cuda_sim_pending(g->sim)) {
		struct fecd_cuda_sim_tally t = {0};
		double now;

		if (fecd_cuda_sim_wait(g->sim, &t, err, errlen)) {
			rc = -1;
			break;
		}
		res->t.frames += t.frames;
		res->t.frame_errors += t.frame_errors;
		res->t.bits += t.bits;
		res->t.bit_errors += t.bit_errors;
		res->t.unconverged += t.unconverged;
		res->t.wrong_frames += t.frames_wrong_bits;
		res->t.bit_errors_sq += t.bit_errors_sq;
		now = now_secs();
		res->secs = now - t0;
		if (stop->min_fe && res->t.frame_errors >= stop->min_fe)
			res->why = SIM_STOP_MIN_FE;
		else if (stop->max_frames && res->t.frames >= stop->max_frames)
			res->why = SIM_STOP_MAX_FRAMES;
		else if (stop->seconds > 0 && res->secs >= stop->seconds)
			res->why = SIM_STOP_SECONDS;
		else if (*stop_flag)
			res->why = SIM_STOP_SIGNAL;
		if (res->why)
			break;
		if (progress && now - last >= 0.5) {
			progress(arg, &res->t, res->secs);
			last = now;
		}
		rc = submit_next(g, ebn0_db, point_seed, stop, &next, err, errlen);
	}
	/* batches submitted past the one that ended the point: waited for, not counted */
	while (fecd_cuda_sim_pending(g->sim)) {
		struct fecd_cuda_sim_tally drop = {0};
		char why[256];

		if (fecd_cuda_sim_wait(g->sim, &drop, why, sizeof(why))) {
			if (!rc)
				snprintf(err, errlen, "%s", why);
			rc = -1;
			break;
		}
	}
	return rc ? -1 : 0;
}

int sim_gpu_decoder_only(struct sim_gpu *g, double ebn0_db, uint64_t seed, double secs,
                         double *bits_per_sec, char *err, size_t errlen)
{
	struct fecd_cuda_sim_tally t = {0};
	uint64_t frames = 0;
	double t0;
	int rc;

	/* one batch made, so that the lanes hold frames; then decoded again and again, AHEAD
	 * batches in flight as in a run */
	rc = fecd_cuda_sim_run(g->sim, ebn0_db, seed, 0, g->batch_frames, &t, err, errlen);
	if (rc)
		return -1;
	fecd_cuda_sim_mode(g->sim, FECD_CUDA_SIM_DECODE_ONLY);
	t0 = now_secs();
	for (unsigned i = 0; i < AHEAD && !rc; i++)
		rc = fecd_cuda_sim_submit(g->sim, ebn0_db, seed, 0, g->batch_frames, err, errlen);
	while (!rc) {
		rc = fecd_cuda_sim_wait(g->sim, &t, err, errlen);
		frames += g->batch_frames;
		if (rc || now_secs() - t0 >= secs)
			break;
		rc = fecd_cuda_sim_submit(g->sim, ebn0_db, seed, 0, g->batch_frames, err, errlen);
	}
	double dt = now_secs() - t0;
	while (fecd_cuda_sim_pending(g->sim)) {
		char why[256];

		if (fecd_cuda_sim_wait(g->sim, &t, why, sizeof(why)))
			break;
	}
	fecd_cuda_sim_mode(g->sim, FECD_CUDA_SIM_FULL);
	if (rc)
		return -1;
	*bits_per_sec = (double)frames * g->code->info_bits / dt;
	return 0;
}

void sim_gpu_close(struct sim_gpu *g)
{
	if (!g)
		return;
	if (g->sim)
		fecd_cuda_sim_close(g->sim);
	if (g->ctx)
		fecd_cuda_close(g->ctx);
	free(g);
}
