/*
 * fecd-bench on the GPU, through fecd_cuda.h only (as the daemon uses it):
 *   - kernel only: each lane takes one batch with a full submit (copies and all, checked against
 *     the CPU reference), then decodes it again and again with FECD_CUDA_NO_COPY_IN|NO_COPY_OUT,
 *     two submits in flight per lane, several lanes at once;
 *   - with host transfers: the whole data set in batches from pinned memory, spread over the
 *     lanes, two in flight per lane, so copies in, kernels and copies out of consecutive batches
 *     overlap; 8-bit input and 4-bit packed input (FECD_CUDA_IN_S4, checked against the CPU
 *     decoding the same 4-bit values expanded as softbits.h expands them);
 *   - the host link alone: bare copies of pinned memory into the device over as many streams as
 *     there are lanes, the figure a "with transfers" row is a fraction of.
 * Figures are decoded information bits per second. Without CUDA at build time, or without a GPU,
 * the sections say so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifdef FECD_HAVE_CUDA
#include "fecd_cuda.h"
#include "fecd_proto.h"
#include "softbits.h"

#define GPU_MAX_LANES 16
#define GPU_DEPTH     2 /* submits in flight per lane */

struct bench_gpu {
	struct fecd_cuda *ctx;
	struct fecd_cuda_device dev;
};

/* Pinned copies of a data set's jobs, input (8-bit and 4-bit) and output. */
struct gpu_bufs {
	struct fec_job *jobs;
	int8_t *in, *in4;
	uint8_t *out;
};

struct fecd_cuda *bench_gpu_context(struct bench_gpu *g)
{
	return g ? g->ctx : NULL;
}

struct bench_gpu *bench_gpu_open(const struct bench_opts *o, char *why, size_t whylen)
{
	struct bench_gpu *g = calloc(1, sizeof(*g));
	char msg[256] = "";

	(void)o;
	if (!g) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if (fecd_cuda_device_count(msg, sizeof(msg)) <= 0) {
		snprintf(why, whylen, "no GPU%s%s", msg[0] ? ": " : "", msg);
		goto out_free;
	}
	if (fecd_cuda_open(0, &g->ctx, msg, sizeof(msg))) {
		snprintf(why, whylen, "CUDA did not start: %s", msg);
		goto out_free;
	}
	g->dev = *fecd_cuda_device_info(g->ctx);
	progress("gpu: %s, %d SMs", g->dev.name, g->dev.sm_count);
	return g;
out_free:
	free(g);
	return NULL;
}

void bench_gpu_close(struct bench_gpu *g)
{
	if (!g)
		return;
	fecd_cuda_close(g->ctx);
	free(g);
}

void bench_gpu_machine(struct bench_gpu *g, cJSON *machine)
{
	cJSON *j = cJSON_AddObjectToObject(machine, "gpu");
	char cc[16];

	snprintf(cc, sizeof(cc), "%d.%d", g->dev.cc_major, g->dev.cc_minor);
	cJSON_AddStringToObject(j, "name", g->dev.name);
	cJSON_AddStringToObject(j, "cc", cc);
	cJSON_AddNumberToObject(j, "sms", g->dev.sm_count);
	cJSON_AddNumberToObject(j, "clock_mhz", g->dev.clock_khz / 1000.0);
	cJSON_AddNumberToObject(j, "mem_clock_mhz", g->dev.mem_clock_khz / 1000.0);
	cJSON_AddNumberToObject(j, "mem_bus_bits", g->dev.mem_bus_bits);
	cJSON_AddNumberToObject(j, "mem_gib", (double)g->dev.mem_total / (1u << 30));
	cJSON_AddNumberToObject(j, "copy_engines", g->dev.async_engines);
	cJSON_AddNumberToObject(j, "driver", g->dev.driver_version);
	cJSON_AddNumberToObject(j, "runtime", g->dev.runtime_version);
}

static void bufs_free(struct bench_gpu *g, struct gpu_bufs *b)
{
	fecd_cuda_host_free(g->ctx, b->jobs);
	fecd_cuda_host_free(g->ctx, b->in);
	fecd_cuda_host_free(g->ctx, b->in4);
	fecd_cuda_host_free(g->ctx, b->out);
	memset(b, 0, sizeof(*b));
}

/* 4-bit packing: round(v / 18) clamped to +-7, two per byte, the first in the high nibble. */
static int8_t to_s4(int8_t v)
{
	int q = v >= 0 ? (v + 9) / 18 : -((-v + 9) / 18);

	return (int8_t)(q > 7 ? 7 : q < -7 ? -7 : q);
}

/* Pinned buffers for ntotal jobs (at least the data set's): job i is data job i % njobs, so a
 * batch can be larger than the data set and fill the GPU without simulating more bits. */
static int bufs_alloc(struct bench_gpu *g, const struct bench_data *d, bool s4, uint32_t ntotal,
                      struct gpu_bufs *b)
{
	size_t in_bytes = (size_t)d->njobs * d->in_stride;

	memset(b, 0, sizeof(*b));
	b->jobs = fecd_cuda_host_alloc(g->ctx, (size_t)ntotal * sizeof(*b->jobs));
	b->in = fecd_cuda_host_alloc(g->ctx, (size_t)ntotal * d->in_stride);
	b->out = fecd_cuda_host_alloc(g->ctx, (size_t)ntotal * d->out_stride);
	if (s4)
		b->in4 = fecd_cuda_host_alloc(g->ctx, (size_t)ntotal * d->in_stride / 2);
	if (!b->jobs || !b->in || !b->out || (s4 && !b->in4)) {
		bufs_free(g, b);
		return -FEC_ENOMEM;
	}
	for (uint32_t t = 0; t < ntotal; t += d->njobs) {
		uint32_t n = ntotal - t < d->njobs ? ntotal - t : d->njobs;

		memcpy(b->jobs + t, d->jobs, n * sizeof(*b->jobs));
		memcpy(b->in + (size_t)t * d->in_stride, d->in, (size_t)n * d->in_stride);
	}
	for (size_t i = 0; s4 && i < in_bytes; i += 2)
		b->in4[i / 2] = (int8_t)((uint8_t)(to_s4(d->in[i]) << 4) |
		                         ((uint8_t)to_s4(d->in[i + 1]) & 0xf));
	for (uint32_t t = d->njobs; s4 && t < ntotal; t += d->njobs) {
		uint32_t n = ntotal - t < d->njobs ? ntotal - t : d->njobs;

		memcpy(b->in4 + (size_t)t * d->in_stride / 2, b->in4, (size_t)n * d->in_stride / 2);
	}
	return 0;
}

/* Jobs among the first ntotal of out (tiled as bufs_alloc lays them) that differ from ref. */
static uint32_t tiled_mismatches(const struct bench_data *d, const uint8_t *out, const uint8_t *ref,
                                 uint32_t ntotal)
{
	uint32_t bad = 0;

	for (uint32_t t = 0; t < ntotal; t += d->njobs) {
		uint32_t n = ntotal - t < d->njobs ? ntotal - t : d->njobs;

		bad += bench_out_mismatches(d, out + (size_t)t * d->out_stride, ref, 0, n);
	}
	return bad;
}

/* A batch of jobs [first, first + count) over the pinned buffers; 4-bit strides in bytes. */
static struct fec_batch gpu_batch(const struct bench_data *d, struct gpu_bufs *b, bool s4,
                                  uint32_t first, uint32_t count)
{
	struct fec_batch fb = bench_batch(d, b->jobs, b->in, b->out, first, count);

	if (s4) {
		fb.in_stride = d->in_stride / 2;
		fb.in = b->in4 + (size_t)first * fb.in_stride;
	}
	return fb;
}

struct gpu_run {
	struct bench_gpu *g;
	struct fecd_cuda_decoder *dec;
	struct fecd_cuda_lane *lane[GPU_MAX_LANES];
	unsigned nlanes;
	char err[256];
};

static void run_close(struct gpu_run *run)
{
	for (unsigned i = 0; i < run->nlanes; i++)
		fecd_cuda_lane_destroy(run->lane[i]);
	if (run->dec)
		fecd_cuda_decoder_destroy(run->dec);
}

static int run_open(struct gpu_run *run, struct bench_gpu *g, const struct bench_data *d,
                    unsigned lanes)
{
	int rc;

	memset(run, 0, sizeof(*run));
	run->g = g;
	rc = fecd_cuda_decoder_create(g->ctx, d->dec, &run->dec, run->err, sizeof(run->err));
	for (; !rc && run->nlanes < lanes && run->nlanes < GPU_MAX_LANES; run->nlanes++)
		rc = fecd_cuda_lane_create(g->ctx, &run->lane[run->nlanes], run->err,
		                           sizeof(run->err));
	if (rc) {
		progress("gpu: %s", run->err);
		run_close(run);
	}
	return rc;
}

/* Submits on lane i, first waiting for its oldest batch when GPU_DEPTH are in flight. */
static int lane_push(struct gpu_run *run, unsigned i, struct fec_batch *fb, unsigned flags)
{
	struct fecd_cuda_lane *lane = run->lane[i];
	int rc = 0;

	if (fecd_cuda_lane_pending(lane) >= GPU_DEPTH)
		rc = fecd_cuda_lane_wait(lane, run->err, sizeof(run->err));
	if (!rc)
		rc = fecd_cuda_lane_submit(lane, run->dec, fb, flags, run->err, sizeof(run->err));
	return rc;
}

static int drain(struct gpu_run *run)
{
	int rc = 0;

	for (unsigned i = 0; i < run->nlanes; i++)
		while (fecd_cuda_lane_pending(run->lane[i]))
			if (fecd_cuda_lane_wait(run->lane[i], run->err, sizeof(run->err)))
				rc = -FEC_EDEVICE;
	return rc;
}

static unsigned lanes_for(struct bench_gpu *g, const struct bench_opts *o)
{
	unsigned n = o->gpu_lanes ? o->gpu_lanes : fecd_cuda_default_lanes(g->ctx);

	return n < 1 ? 1 : n > GPU_MAX_LANES ? GPU_MAX_LANES : n;
}

/* Kernel only, `lanes` lanes each on its own batch of `jobs` jobs. */
static double kernel_rate(struct bench_gpu *g, const struct bench_opts *o,
                          const struct bench_data *d, uint32_t jobs, unsigned lanes, bool *exact)
{
	struct gpu_bufs b;
	struct gpu_run run;
	double rate = -1.0, t0, secs;
	uint64_t rounds = 0;
	int rc;

	*exact = false;
	if (bufs_alloc(g, d, false, jobs * lanes, &b))
		return -1.0;
	if (run_open(&run, g, d, lanes))
		goto out_bufs;
	struct fec_batch fb[GPU_MAX_LANES];
	for (unsigned i = 0; i < lanes; i++)
		fb[i] = gpu_batch(d, &b, false, i * jobs, jobs);
	rc = 0;
	for (unsigned i = 0; i < lanes && !rc; i++)
		rc = lane_push(&run, i, &fb[i], 0);
	if (rc || drain(&run))
		goto out_run;
	*exact = tiled_mismatches(d, b.out, d->ref, lanes * jobs) == 0;
	t0 = bench_now();
	do {
		for (unsigned i = 0; i < lanes && !rc; i++)
			rc = lane_push(&run, i, &fb[i],
			               FECD_CUDA_NO_COPY_IN | FECD_CUDA_NO_COPY_OUT);
		rounds++;
		secs = bench_now() - t0;
	} while (!rc && (secs < o->min_secs || rounds < 4));
	if (rc || drain(&run))
		goto out_run;
	secs = bench_now() - t0;
	rate = (double)rounds * lanes * jobs * (double)d->nbits / d->njobs / secs;
out_run:
	if (rate < 0)
		progress("gpu: kernel run failed: %s", run.err);
	run_close(&run);
out_bufs:
	bufs_free(g, &b);
	return rate;
}

double bench_gpu_kernel_rate(struct bench_gpu *g, const struct bench_opts *o,
                             const struct bench_data *d, uint32_t jobs, bool *exact)
{
	return kernel_rate(g, o, d, jobs, lanes_for(g, o), exact);
}

/* With transfers: every batch of the data set in turn, over `lanes` lanes, until min_secs. */
static double transfer_rate(struct bench_gpu *g, const struct bench_opts *o,
                            const struct bench_data *d, const uint8_t *ref, bool s4, unsigned lanes,
                            bool *exact, double *ber)
{
	uint32_t jobs = o->gpu_jobs;
	/* Every batch in flight has its own slice: at least the data set, at least GPU_DEPTH
	 * batches per lane. */
	uint32_t want = d->njobs > jobs * lanes * GPU_DEPTH ? d->njobs : jobs * lanes * GPU_DEPTH;
	uint32_t nbatches = (want + jobs - 1) / jobs, ntotal = nbatches * jobs;
	struct gpu_bufs b;
	struct gpu_run run;
	double rate = -1.0, t0, secs;
	uint64_t done_bits = 0, n = 0, errs;
	int rc = 0;

	*exact = false;
	if (bufs_alloc(g, d, s4, ntotal, &b))
		return -1.0;
	if (run_open(&run, g, d, lanes))
		goto out_bufs;
	t0 = bench_now();
	for (uint64_t k = 0; !rc; k++) {
		uint32_t first = (uint32_t)(k % nbatches) * jobs;
		uint32_t count = jobs;
		struct fec_batch fb = gpu_batch(d, &b, s4, first, count);

		rc = lane_push(&run, (unsigned)(k % lanes), &fb, s4 ? FECD_CUDA_IN_S4 : 0);
		done_bits += (uint64_t)count * d->nbits / d->njobs;
		if ((k + 1) % nbatches == 0 && bench_now() - t0 >= o->min_secs)
			break;
	}
	if (rc || drain(&run))
		goto out_run;
	secs = bench_now() - t0;
	rate = (double)done_bits / secs;
	*exact = tiled_mismatches(d, b.out, ref, ntotal) == 0;
	errs = bench_data_errors(d, b.out, &n);
	*ber = n ? (double)errs / (double)n : 0.0;
out_run:
	if (rate < 0)
		progress("gpu: transfer run failed: %s", run.err);
	run_close(&run);
out_bufs:
	bufs_free(g, &b);
	return rate;
}

double bench_gpu_transfer_rate(struct bench_gpu *g, const struct bench_opts *o,
                               const struct bench_data *d, bool *exact, double *ber)
{
	return transfer_rate(g, o, d, d->ref, false, lanes_for(g, o), exact, ber);
}

double bench_gpu_copy_in_rate(struct bench_gpu *g, const struct bench_opts *o, size_t bytes)
{
	void *host = fecd_cuda_host_alloc(g->ctx, bytes);
	double rate = -1.0;
	char err[256];

	if (!host)
		return -1.0;
	memset(host, 0x5a, bytes); /* touched, as a batch's input is */
	if (fecd_cuda_copy_in_rate(g->ctx, host, bytes, lanes_for(g, o), o->min_secs, &rate, err,
	                           sizeof(err))) {
		progress("gpu: %s", err);
		rate = -1.0;
	}
	fecd_cuda_host_free(g->ctx, host);
	return rate;
}

int bench_gpu_describe(struct bench_gpu *g, const struct bench_data *d, char *buf, size_t len)
{
	struct gpu_run run;

	if (!fecd_cuda_supports(&d->spec)) {
		snprintf(buf, len, "the GPU does not decode %s", d->code_text);
		return -1;
	}
	if (run_open(&run, g, d, 0)) {
		snprintf(buf, len, "%s", run.err);
		return -1;
	}
	snprintf(buf, len, "%s", fecd_cuda_decoder_describe(run.dec));
	run_close(&run);
	return 0;
}

/* The CPU's output for the 4-bit input, as the GPU must reproduce it. */
static uint8_t *ref_s4(const struct bench_opts *o, const struct bench_data *d)
{
	size_t in_bytes = (size_t)d->njobs * d->in_stride;
	struct bench_data d4 = *d;
	int8_t *packed = malloc(in_bytes / 2), *wide = malloc(in_bytes);
	uint8_t *ref = calloc(d->njobs, d->out_stride);

	if (!packed || !wide || !ref)
		goto out_fail;
	for (size_t i = 0; i < in_bytes; i += 2)
		packed[i / 2] = (int8_t)((uint8_t)(to_s4(d->in[i]) << 4) |
		                         ((uint8_t)to_s4(d->in[i + 1]) & 0xf));
	fec_syms_to_s8(FECD_FMT_S4_PACKED, packed, in_bytes, false, 1.0f, wide);
	d4.in = wide;
	if (bench_cpu_rate(&d4, o->threads, o->cpu_jobs, 0.0, ref) < 0)
		goto out_fail;
	free(packed);
	free(wide);
	return ref;
out_fail:
	free(packed);
	free(wide);
	free(ref);
	return NULL;
}

double bench_gpu_transfer_rate_s4(struct bench_gpu *g, const struct bench_opts *o,
                                  const struct bench_data *d, bool *exact, double *ber)
{
	uint8_t *ref4 = ref_s4(o, d);
	double rate = -1.0;

	*exact = false;
	if (ref4)
		rate = transfer_rate(g, o, d, ref4, true, lanes_for(g, o), exact, ber);
	free(ref4);
	return rate;
}

void bench_gpu_sections(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	struct bench_gpu *g = c->g;
	const char *why = c->gpu_why;
	const struct bench_data *d = c->d;
	static const char *const kcols[] = {"lanes", "jobs", "Gb/s", "same as cpu", NULL};
	static const char *const tcols[] = {"lanes",       "jobs", "Gb/s", "GB/s in",
	                                    "same as cpu", "BER",  NULL};
	cJSON *ks = report_section(r, "gpu_kernel", kcols);
	cJSON *ts = report_section(r, "gpu_transfer", tcols);
	unsigned lanes = g ? lanes_for(g, o) : 0;
	struct gpu_run probe;
	bool exact;

	if (!g) {
		report_skip(ks, "%s", why);
		report_skip(ts, "%s", why);
		return;
	}
	if (!fecd_cuda_supports(&d->spec)) {
		report_skip(ks, "the GPU does not decode %s", d->code_text);
		report_skip(ts, "the GPU does not decode %s", d->code_text);
		return;
	}
	if (run_open(&probe, g, d, 0)) {
		report_skip(ks, "no GPU decoder for %s: %s", d->code_text, probe.err);
		report_skip(ts, "no GPU decoder for %s: %s", d->code_text, probe.err);
		return;
	}
	report_note(ks, "%s", fecd_cuda_decoder_describe(probe.dec));
	run_close(&probe);
	/* One lane with a large batch, then several lanes, whose launches overlap on the device
	 * (one launch's traceback beside another's forward pass), with smaller batches too. */
	uint32_t jobs = o->gpu_jobs;
	const unsigned shape[][2] = {{1, jobs},
	                             {lanes, jobs},
	                             {lanes, jobs / 4},
	                             {2 * lanes, jobs / 4},
	                             {2 * lanes, jobs / 8}};
	for (unsigned i = 0; i < sizeof(shape) / sizeof(shape[0]); i++) {
		unsigned nl = shape[i][0] > GPU_MAX_LANES ? GPU_MAX_LANES : shape[i][0];
		uint32_t nj = shape[i][1];
		char label[48];

		if (!nj || (i > 0 && lanes < 2))
			continue;
		progress("gpu kernel: %u lanes x %u jobs", nl, nj);
		double rate = kernel_rate(g, o, d, nj, nl, &exact);
		snprintf(label, sizeof(label), "%u lane%s x %u jobs", nl, nl > 1 ? "s" : "", nj);
		cJSON *row = report_row(ks, label);
		row_num(row, "lanes", nl);
		row_num(row, "jobs", nj);
		if (rate > 0)
			row_num(row, "Gb/s", rate / 1e9);
		row_str(row, "same as cpu", rate > 0 ? (exact ? "yes" : "NO") : "failed");
	}
	uint8_t *ref4 = ref_s4(o, d);
	for (unsigned i = 0; i < 3; i++) {
		bool s4 = i == 2;
		unsigned nl = i == 0 ? 1 : lanes;
		double ber = 0;
		char label[48];

		if (s4 && !ref4)
			continue;
		progress("gpu transfers: %s, %u lanes", s4 ? "4-bit" : "8-bit", nl);
		double rate = transfer_rate(g, o, d, s4 ? ref4 : d->ref, s4, nl, &exact, &ber);
		snprintf(label, sizeof(label), "%s input, %u lane%s", s4 ? "4-bit" : "8-bit", nl,
		         nl > 1 ? "s" : "");
		cJSON *row = report_row(ts, label);
		row_num(row, "lanes", nl);
		row_num(row, "jobs", o->gpu_jobs);
		if (rate > 0) {
			row_num(row, "Gb/s", rate / 1e9);
			/* bits/s over bits per job = jobs/s; times the bytes copied in per job */
			row_num(row, "GB/s in",
			        rate / ((double)d->nbits / d->njobs) * d->in_stride / (s4 ? 2 : 1) /
			            1e9);
			row_num(row, "BER", ber);
		}
		row_str(row, "same as cpu", rate > 0 ? (exact ? "yes" : "NO") : "failed");
	}
	free(ref4);
}

#else /* no CUDA at build time */

struct fecd_cuda *bench_gpu_context(struct bench_gpu *g)
{
	(void)g;
	return NULL;
}

struct bench_gpu *bench_gpu_open(const struct bench_opts *o, char *why, size_t whylen)
{
	(void)o;
	snprintf(why, whylen, "built without CUDA (no nvcc when fecd was configured)");
	return NULL;
}

void bench_gpu_close(struct bench_gpu *g)
{
	(void)g;
}

void bench_gpu_machine(struct bench_gpu *g, cJSON *machine)
{
	(void)g;
	(void)machine;
}

double bench_gpu_kernel_rate(struct bench_gpu *g, const struct bench_opts *o,
                             const struct bench_data *d, uint32_t jobs, bool *exact)
{
	(void)g, (void)o, (void)d, (void)jobs;
	*exact = false;
	return -1.0;
}

double bench_gpu_transfer_rate(struct bench_gpu *g, const struct bench_opts *o,
                               const struct bench_data *d, bool *exact, double *ber)
{
	(void)g, (void)o, (void)d, (void)ber;
	*exact = false;
	return -1.0;
}

double bench_gpu_transfer_rate_s4(struct bench_gpu *g, const struct bench_opts *o,
                                  const struct bench_data *d, bool *exact, double *ber)
{
	(void)g, (void)o, (void)d, (void)ber;
	*exact = false;
	return -1.0;
}

double bench_gpu_copy_in_rate(struct bench_gpu *g, const struct bench_opts *o, size_t bytes)
{
	(void)g, (void)o, (void)bytes;
	return -1.0;
}

int bench_gpu_describe(struct bench_gpu *g, const struct bench_data *d, char *buf, size_t len)
{
	(void)g, (void)d;
	snprintf(buf, len, "built without CUDA");
	return -1;
}

void bench_gpu_sections(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	static const char *const none[] = {NULL};

	(void)o;
	report_skip(report_section(r, "gpu_kernel", none), "%s", c->gpu_why);
	report_skip(report_section(r, "gpu_transfer", none), "%s", c->gpu_why);
}
#endif
