/*
 * fecd-bench's ids sections (issue 18, item 7).
 *   - "ids": the seed's Fig. 17 setting, N = 840 symbols, q = 2..256 with n = 2 log2 q, a
 *     channel and decoder of Pi = Pd = 1e-3, Ps = 0, hard input; for global and local storage:
 *     the GPU kernel alone and with host transfers, the CPU decoder on one core and on all, and
 *     the GPU's speedup over one core. Figures are information bits (N log2 q a frame) per second.
 *   - "ids_concat": the Davey-MacKay concatenation (the dm-ldpc preset: watermark inner code
 *     q = 16, n = 6, under a (2,4) GF(16) LDPC code of 500 symbols) at two channel settings, the
 *     decoder told the channel's Pi = Pd: throughput (CPU one core and all, GPU with its single
 *     pass) and frame error rate, single pass and with passes back into the inner decoder.
 * Frames go through the BSID channel (their lengths vary); every GPU figure is checked against
 * the CPU decoder's output on the same frames ("same as cpu"). --short (CI: no GPU) runs the CPU
 * rows of q = 16 on few frames and skips the concatenation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ids_code.h"

#define IDS_P     1e-3 /* the Fig. 17 channel: Pi = Pd */
#define IDS_N     840
#define IDS_SCALE 127 /* hard input: +-127 */

/* nframes frames of text's code through the BSID channel at pi = pd = p, ps = 0, hard bits. */
static int ids_frames_build(struct bench_data *d, const char *text, uint32_t nframes, double p,
                            uint64_t seed, char *err, size_t errlen)
{
	const struct ids_chan ch = {p, p, 0.0};
	struct fec_encoder *enc = NULL;
	struct fec_prng prng;
	uint8_t *cw = NULL, *rx = NULL;
	size_t tau = 0, max_out = 0;
	int rc;

	rc = bench_frames_alloc(d, text, nframes, 0, err, errlen);
	if (rc)
		return rc;
	const uint32_t k = d->info->frame_info_bits;

	tau = fec_encoded_len(&d->spec, k);
	max_out = ids_bsid_max_out(tau);
	cw = malloc(tau);
	rx = malloc(max_out);
	rc = -FEC_ENOMEM;
	if (!cw || !rx)
		goto out_err;
	rc = fec_encoder_create(&d->spec, &enc);
	if (rc)
		goto out_err;
	fec_prng_seed(&prng, seed);
	for (uint32_t i = 0; i < nframes; i++) {
		size_t nout = 0, rho = 0;

		d->bit0[i] = (uint64_t)i * k;
		fec_prng_bits(&prng, d->bits + d->bit0[i], k);
		rc = fec_encode(enc, d->bits + d->bit0[i], k, cw, &nout);
		if (rc || nout != tau) {
			rc = rc ? rc : -FEC_EINVAL;
			goto out_err;
		}
		do
			ids_bsid_apply(&ch, &prng, cw, tau, rx, max_out, &rho);
		while (rho > d->in_stride);
		for (size_t j = 0; j < rho; j++)
			d->in[(size_t)i * d->in_stride + j] =
			    (int8_t)(rx[j] ? -IDS_SCALE : IDS_SCALE);
		d->jobs[i] = (struct fec_job){.in_len = (uint32_t)rho, .own_len = (uint32_t)rho};
	}
	fec_encoder_destroy(enc);
	free(cw);
	free(rx);
	return 0;
out_err:
	snprintf(err, errlen, "%.180s: %s", text, fec_strerror(rc));
	fec_encoder_destroy(enc);
	free(cw);
	free(rx);
	bench_data_free(d);
	return rc;
}

/* One core's rate on the first frames of d (as many as take about min_secs, at least one):
 * a pass over every frame of a slow code would take far longer than the figure needs. */
static double one_core_rate(const struct bench_data *d, const struct bench_opts *o, uint8_t *out)
{
	struct bench_data one = *d;
	double r;

	one.njobs = 1;
	one.nbits = d->info->frame_info_bits;
	r = bench_cpu_rate(&one, 1, 1, 0.0, out);
	if (r <= 0)
		return r;
	const double per_frame = (double)one.nbits / r;

	if (per_frame >= o->min_secs)
		return r; /* one frame took long enough: the figure (q = 256: seconds) */
	uint32_t n = per_frame > 0 ? (uint32_t)(o->min_secs / per_frame) : d->njobs;

	one.njobs = n < 1 ? 1 : n > d->njobs ? d->njobs : n;
	one.nbits = (uint64_t)one.njobs * d->info->frame_info_bits;
	return bench_cpu_rate(&one, 1, 1, o->min_secs, out);
}

/* Frames in flight the GPU decoder keeps ("N frames in flight" in its describe line). */
static uint32_t gpu_frames(const char *desc)
{
	const char *at = strstr(desc, " frames in flight");
	unsigned f = 0;

	while (at && at > desc && at[-1] >= '0' && at[-1] <= '9')
		at--;
	if (!at || sscanf(at, "%u", &f) != 1 || f == 0)
		f = 256;
	return f;
}

/* The GPU's columns of a row: kernel alone and with transfers, batches of the frames in flight;
 * *same stays true while the GPU's bits equal the CPU's reference. Returns the kernel rate. */
static double gpu_cols(cJSON *row, cJSON *sec, const struct bench_opts *o, struct bench_gpu *g,
                       const char *gpu_why, const struct bench_data *d, bool note, bool *same)
{
	char desc[600];
	struct bench_opts ot = *o;
	bool exact = false;
	double ber = 0, kernel, transfer;
	uint32_t frames;

	if (!g) {
		row_str(row, "GPU", gpu_why);
		return -1.0;
	}
	if (bench_gpu_describe(g, d, desc, sizeof(desc))) {
		row_str(row, "GPU", "skipped: the GPU does not decode it");
		return -1.0;
	}
	if (note)
		report_note(sec, "%s: %s", d->code_text, desc);
	/* batches of the frames in flight; fewer for large q, whose frames take longer (a frame's
	 * work grows about as q log2 q), so that the timed rounds stay short */
	frames = gpu_frames(desc);
	if (d->spec.u.ids.q > 16) {
		const uint32_t less = frames * 16 / d->spec.u.ids.q;

		frames = less > 32 ? less : 32 < frames ? 32 : frames;
	}
	kernel = bench_gpu_kernel_rate(g, o, d, frames, &exact);
	if (kernel > 0)
		row_num(row, "GPU kernel Mb/s", kernel / 1e6);
	*same = *same && kernel > 0 && exact;
	ot.gpu_jobs = frames;
	transfer = bench_gpu_transfer_rate(g, &ot, d, &exact, &ber);
	if (transfer > 0)
		row_num(row, "GPU transfers Mb/s", transfer / 1e6);
	*same = *same && transfer > 0 && exact;
	row_str(row, "GPU", "ran");
	return kernel;
}

/* One row's measurements on the data set d, which it frees: the reference output, FER, the CPU on
 * one core and on all, the GPU columns (the kernel's own ones where show_kernel) and whether
 * every output equals the reference. Returns the one-core rate (<= 0: none); *kernel gets the
 * GPU kernel's (-1 without). */
static double measure_row(cJSON *row, cJSON *sec, const struct bench_opts *o, struct bench_gpu *g,
                          const char *gpu_why, struct bench_data *d, bool show_kernel,
                          double *kernel)
{
	uint8_t *out = calloc(d->njobs, d->out_stride);
	double one, all;
	bool same = true;

	*kernel = -1.0;
	if (!out || bench_cpu_rate(d, o->threads, 1, 0.0, d->ref) <= 0) {
		row_str(row, "same as cpu", "NO");
		free(out);
		bench_data_free(d);
		return -1.0;
	}
	row_num(row, "FER", (double)bench_frame_errors(d, d->ref) / d->njobs);
	one = one_core_rate(d, o, out);
	all = bench_cpu_rate(d, o->threads, 1, o->min_secs, out);
	if (one > 0)
		row_num(row, "CPU 1 core kb/s", one / 1e3);
	if (all > 0)
		row_num(row, "CPU all cores kb/s", all / 1e3);
	same = one > 0 && all > 0 && !bench_data_mismatches(d, out);
	*kernel = gpu_cols(row, sec, o, g, gpu_why, d, show_kernel, &same);
	row_str(row, "same as cpu", same ? "yes" : "NO");
	free(out);
	bench_data_free(d);
	return one;
}

/* Frames of a data set: one a core, at least 2 (the GPU tiles them over its batches). */
static uint32_t frames_for(const struct bench_opts *o)
{
	return o->short_mode || o->threads < 2 ? 2 : o->threads;
}

/* The rows of one code: global and local storage. */
static void ids_code_rows(cJSON *sec, const struct bench_opts *o, struct bench_gpu *g,
                          const char *gpu_why, unsigned q, unsigned n)
{
	static const char *const storage[] = {"global", "local"};
	char text[200], err[256], label[64];
	uint32_t frames;

	frames = frames_for(o);
	for (unsigned s = 0; s < 2; s++) {
		struct bench_data d;
		double one, kernel;

		if (o->short_mode && s == 1)
			break;
		snprintf(text, sizeof(text),
		         "ids,code=random,N=%u,q=%u,n=%u,seed=1,pi=%g,pd=%g,ps=0,storage=%s", IDS_N,
		         q, n, IDS_P, IDS_P, storage[s]);
		progress("ids: q=%u n=%u %s storage, %u frames", q, n, storage[s], frames);
		if (ids_frames_build(&d, text, frames, IDS_P, o->seed, err, sizeof(err))) {
			report_note(sec, "%s: %s", text, err);
			continue;
		}
		snprintf(label, sizeof(label), "q=%u n=%u", q, n);
		cJSON *row = report_row(sec, label);

		row_num(row, "q", q);
		row_str(row, "storage", storage[s]);
		one = measure_row(row, sec, o, g, gpu_why, &d, q == 16, &kernel);
		if (kernel > 0 && one > 0)
			row_num(row, "speedup", kernel / one);
	}
}

static void ids_main(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                     const char *gpu_why)
{
	static const char *const cols[] = {"q",
	                                   "storage",
	                                   "GPU kernel Mb/s",
	                                   "GPU transfers Mb/s",
	                                   "CPU 1 core kb/s",
	                                   "CPU all cores kb/s",
	                                   "speedup",
	                                   "FER",
	                                   "same as cpu",
	                                   "GPU",
	                                   NULL};
	cJSON *sec = report_section(r, "ids", cols);

	report_note(sec,
	            "the seed's Fig. 17 setting: N = %u symbols, seeded random codebooks, "
	            "n = 2 log2 q, channel and decoder Pi = Pd = %g, Ps = 0, hard input; "
	            "information bits (N log2 q a frame) per second; speedup = GPU kernel over "
	            "CPU 1 core (the seed's ratio); same as cpu: the GPU's bits equal the CPU "
	            "decoder's on every frame",
	            IDS_N, IDS_P);
	for (unsigned p = 1; p <= 8; p++) {
		if (o->short_mode && p != 4)
			continue;
		ids_code_rows(sec, o, g, gpu_why, 1u << p, 2 * p);
	}
}

/* ---- The concatenation */

static const double concat_p[] = {0.01, 0.05};
static const unsigned concat_iters[] = {0, 3};

static void ids_concat(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                       const char *gpu_why)
{
	static const char *const cols[] = {"Pi = Pd",
	                                   "iters",
	                                   "frames",
	                                   "FER",
	                                   "CPU 1 core kb/s",
	                                   "CPU all cores kb/s",
	                                   "GPU kernel Mb/s",
	                                   "GPU transfers Mb/s",
	                                   "same as cpu",
	                                   "GPU",
	                                   NULL};
	cJSON *sec = report_section(r, "ids_concat", cols);
	char text[400], err[256];

	if (o->short_mode) {
		report_skip(sec, "--short: the concatenation's frame error rates need frames");
		return;
	}
	report_note(sec, "dm-ldpc: watermark inner code q = 16, n = 6, N = 500 under a (2,4) "
	                 "GF(16) LDPC code of 500 symbols (FFT-BP, 50 iterations), 1000 "
	                 "information bits; channel Pi = Pd as given, Ps = 0, the decoder told "
	                 "them; iters: passes back into the inner decoder (0: Davey and MacKay's "
	                 "single pass, the one the GPU decodes)");
	for (unsigned c = 0; c < sizeof(concat_p) / sizeof(concat_p[0]); c++)
		for (unsigned k = 0; k < sizeof(concat_iters) / sizeof(concat_iters[0]); k++) {
			const uint32_t frames = 4 * frames_for(o);
			struct bench_data d;
			double kernel;

			snprintf(text, sizeof(text),
			         "ids,code=watermark,N=500,q=16,n=6,seed=1,pi=%g,pd=%g,ps=0,"
			         "outer=(nbldpc,code=regular,q=16,n=500,dv=2,dc=4,seed=1,iters=50),"
			         "iters=%u",
			         concat_p[c], concat_p[c], concat_iters[k]);
			progress("ids concat: Pi = Pd = %g, iters %u", concat_p[c],
			         concat_iters[k]);
			if (ids_frames_build(&d, text, frames, concat_p[c], o->seed, err,
			                     sizeof(err))) {
				report_note(sec, "%s: %s", text, err);
				continue;
			}
			cJSON *row = report_row(sec, "dm-ldpc");

			row_num(row, "Pi = Pd", concat_p[c]);
			row_num(row, "iters", concat_iters[k]);
			row_num(row, "frames", frames);
			measure_row(row, sec, o, g, gpu_why, &d, c == 0 && k == 0, &kernel);
		}
}

void bench_ids(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	ids_main(r, o, c->g, c->gpu_why);
	ids_concat(r, o, c->g, c->gpu_why);
}
