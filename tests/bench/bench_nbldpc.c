/*
 * fecd-bench's nbldpc sections.
 *   - "nbldpc": for each decoder (FFT-BP in the probability and the log domain, min-max, trellis
 *     min-sum), 10 iterations without early stop, int8 input: the GPU kernel alone and with
 *     host transfers, the CPU decoder on one core and on all, frame errors, on BeiDou B1C
 *     subframe 2 (200,100) and on generated GF(64) and GF(256) codes of the seed's GF64_5040
 *     and GF256_5040 sizes
 *     (5040 information bits: 1680 and 1260 symbols; (2,4)-regular here, the seed's codes are
 *     irregular with columns of up to 4 and 3 edges). A decoder the GPU has no kernel for says
 *     so in its GPU column. Each code's binary image rows (nb_image_rows) decode the same
 *     frames through the ldpc family on the code's binary image, in the same columns: the
 *     reason the family exists, side by side.
 *   - "nbldpc_seed": the seed thesis's table 4.6: FFT-BP (its log-domain FFT), flooding, fixed
 *     iterations (10..100), Eb/N0 = -1 dB, GPU (kernel only) over one CPU core in frames per
 *     second, for q = 2, 8, 16, 32, 64 and 256 on generated codes of the seed's 5040-bit sizes,
 *     beside the thesis's ratios.
 * Figures are information bits per second. --short (CI: no GPU) runs the CPU rows of "nbldpc" on
 * a generated GF(64) code of B1C's size only, on few frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "nbldpc.h"

#define NB_EBN0 2.0 /* the "nbldpc" section's frames: FFT-BP decodes nearly all of them */

struct nb_code {
	const char *name, *text, *file, *how;
	bool short_run; /* the one code --short runs, and only it */
};

static const struct nb_code nb_codes[] = {
    {"B1C (200,100)", "bds-b1c-sf2", "BDS_B1C_200_100_GF64.alist",
     "BeiDou B1C subframe 2, GF(64), 600 information bits"},
    {"GF64_5040", "nbldpc,code=regular,q=64,n=1680,dv=2,dc=4,seed=1", NULL,
     "generated (2,4)-regular GF(64), 1680 symbols, 5040 information bits (the seed's "
     "GF64_5040 size)"},
    {"GF256_5040", "nbldpc,code=regular,q=256,n=1260,dv=2,dc=4,seed=1", NULL,
     "generated (2,4)-regular GF(256), 1260 symbols, 5040 information bits (the seed's "
     "GF256_5040 size)"},
    {"GF64 (200,100)", "nbldpc,code=regular,q=64,n=200,dv=2,dc=4,seed=1", NULL,
     "generated (2,4)-regular GF(64) of B1C's size: --short's code, built in a moment", true},
};

static const struct {
	const char *label, *params;
} nb_decoders[] = {
    {"fft-bp prob", "algo=fft-bp,domain=prob"},
    {"fft-bp log", "algo=fft-bp,domain=log"},
    {"min-max", "algo=min-max"},
    {"tms", "algo=tms"},
    /* the cheapest dev2 whose FER stays within 0.3 dB of FFT-BP's (codec/nbldpc/NOTES.md):
     * the setting tms's speed targets are read at */
    {"tms dev2=5", "algo=tms,dev2=5"},
};

static bool have_code(const char *file)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fec_codes_dir(), file);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Seconds one frame of d takes on one core (one fec_decode of its first job); < 0 on failure. */
static double frame_secs(const struct bench_data *d)
{
	struct bench_data one = *d;
	uint8_t *out = calloc(1, d->out_stride);
	double r;

	if (!out)
		return -1.0;
	one.njobs = 1;
	one.nbits = d->info->frame_info_bits;
	r = bench_cpu_rate(&one, 1, 1, 0.0, out);
	free(out);
	return r > 0 ? d->info->frame_info_bits / r : -1.0;
}

/* Frames for a data set of text: enough for every core and the GPU's batches, few enough that
 * one pass on one core takes about budget seconds (min-max on the CPU is slow). *t gets the
 * seconds one frame took on one core. A frame over the budget on its own (min-max at q = 256:
 * seconds a frame) gets one frame, or one per core where all of them take at most 4 budgets. */
static int nb_data(struct bench_data *d, const char *text, const struct bench_opts *o,
                   double budget, double ebn0, double *t, char *err, size_t errlen)
{
	const uint32_t most = o->short_mode ? 16 : 32 * (o->threads > 8 ? o->threads : 8);
	uint32_t frames = most;
	int rc = bench_frames_build(d, text, 1, ebn0, o->seed, err, errlen);

	if (rc)
		return rc;
	*t = frame_secs(d);
	bench_data_free(d);
	/* every core a frame where the budget allows it, else at least two frames */
	if (*t > 0 && *t * frames > budget)
		frames = (uint32_t)(budget / *t);
	if (frames < o->threads && *t * o->threads <= 4 * budget)
		frames = o->threads;
	if (frames < 2)
		frames = *t > budget ? 1 : 2;
	return bench_frames_build(d, text, frames, ebn0, o->seed, err, errlen);
}

static void gpu_cols(cJSON *row, cJSON *sec, const struct bench_opts *o, struct bench_gpu *g,
                     const char *gpu_why, struct bench_data *d, bool *same)
{
	char desc[400];
	bool exact = false;
	double ber = 0, rate;
	struct bench_opts ot = *o;
	const char *at;
	int grid = 0;

	if (!g) {
		row_str(row, "GPU", gpu_why);
		return;
	}
	if (bench_gpu_describe(g, d, desc, sizeof(desc))) {
		row_str(row, "GPU", "skipped: no GPU kernel");
		return;
	}
	at = strstr(desc, "grid ");
	if (!at || sscanf(at, "grid %d", &grid) != 1 || grid <= 0)
		grid = 256;
	report_note(sec, "%s, %s: %s", d->code_text, "GPU", desc);
	/* batches of whole grids; the data set tiled over them */
	rate = bench_gpu_kernel_rate(g, o, d, (uint32_t)grid * 2, &exact);
	if (rate > 0)
		row_num(row, "GPU kernel Mb/s", rate / 1e6);
	*same = *same && rate > 0 && exact;
	ot.gpu_jobs = (uint32_t)grid * 2;
	rate = bench_gpu_transfer_rate(g, &ot, d, &exact, &ber);
	if (rate > 0)
		row_num(row, "GPU transfers Mb/s", rate / 1e6);
	*same = *same && rate > 0 && exact;
	row_str(row, "GPU", "ran");
}

/* One row of the section: d's decoder on one core and on all, its frames in error, the GPU's
 * columns. t: seconds one frame took on one core (nb_data); a frame over budget on its own is
 * not decoded again on one core (t gives that figure) and the all-core figure is the pass that
 * makes the reference output, so that such a row costs two frame times, not six. */
static void nb_row(cJSON *sec, const struct bench_opts *o, struct bench_gpu *g, const char *gpu_why,
                   const char *code, const char *decoder, struct bench_data *d, double t,
                   double budget)
{
	const bool slow = t > budget;
	cJSON *row = report_row(sec, code);
	uint8_t *out = calloc(d->njobs, d->out_stride);
	double one, all;
	bool same;

	row_str(row, "decoder", decoder);
	row_num(row, "frames", d->njobs);
	all = out ? bench_cpu_rate(d, o->threads, 1, 0.0, d->ref) : -1.0;
	if (all <= 0) {
		row_str(row, "same as cpu", "NO");
		free(out);
		return;
	}
	row_num(row, "FER", (double)bench_frame_errors(d, d->ref) / d->njobs);
	if (slow) {
		one = d->info->frame_info_bits / t;
		memcpy(out, d->ref, (size_t)d->njobs * d->out_stride);
	} else {
		/* one core: the best of 5 rounds beside their median where a pass is short (tms,
		 * the CPU target's decoder), else one round */
		const unsigned rounds = t * d->njobs <= 0.4 ? 5 : 1;
		double median = 0;
		int core = -1;

		one = bench_cpu_best(d, 1, rounds, o->min_secs, out, &median, &core);
		if (one > 0 && rounds > 1)
			row_num(row, "CPU 1 core median Mb/s", median / 1e6);
		all = bench_cpu_rate(d, o->threads, 1, o->min_secs, out);
	}
	if (one > 0)
		row_num(row, "CPU 1 core Mb/s", one / 1e6);
	if (all > 0)
		row_num(row, "CPU all cores Mb/s", all / 1e6);
	same = one > 0 && all > 0 && !bench_data_mismatches(d, out);
	gpu_cols(row, sec, o, g, gpu_why, d, &same);
	row_str(row, "same as cpu", same ? "yes" : "NO");
	free(out);
}

/* The binary image's rows: the same frames as the GF(q) decoders' (same seed, same channel
 * output) through the ldpc family on the code's binary image (nbldpc_binary_image_write: each
 * coefficient as its p x p binary block), at the section's 10 iterations without early stop. */
static const struct {
	const char *label, *params;
} nb_image_decoders[] = {
    {"ldpc nms, image", "algo=nms,schedule=layered"},
    {"ldpc spa, image", "algo=spa,schedule=layered"},
};

/* Makes d (the image's data set, as many frames as nb) decode nb's frames: nb's LLRs, and as
 * the bits to get back the sent codewords' bits where the ldpc decoder takes its information
 * (fec_decoder_info_ranges: its encoder need not put them where nbldpc's does, and on the
 * generated GF64_5040 and GF256_5040 codes it does not). */
static int image_frames(struct bench_data *d, const struct bench_data *nb, char *err, size_t errlen)
{
	const uint32_t k = d->info->frame_info_bits, n_tx = (uint32_t)nb->in_stride;
	struct fec_info_range *rg = malloc((size_t)(k + 1) * sizeof(*rg));
	uint8_t *cw = malloc(n_tx);
	struct fec_encoder *enc = NULL;
	uint32_t unsent = 0;
	int nr = rg ? fec_decoder_info_ranges(d->dec, rg, k, &unsent) : 0, rc = -FEC_EINVAL;

	if (!rg || !cw || nr <= 0 || (uint32_t)nr > k || unsent || d->nbits != nb->nbits ||
	    d->in_stride != nb->in_stride) {
		snprintf(err, errlen, "the image's information bits are not where expected");
		goto out;
	}
	rc = fec_encoder_create(&nb->spec, &enc);
	for (uint32_t j = 0; !rc && j < nb->njobs; j++) {
		size_t nout = 0;
		uint64_t at = d->bit0[j];

		rc = fec_encode(enc, nb->bits + nb->bit0[j], k, cw, &nout);
		if (!rc && nout != n_tx)
			rc = -FEC_EINVAL;
		for (int r = 0; !rc && r < nr; r++)
			for (uint32_t x = rg[r].first; x <= rg[r].last; x++)
				d->bits[at++] = cw[x];
		memcpy(d->in + (size_t)j * n_tx, nb->in + (size_t)j * n_tx, n_tx);
	}
	if (rc)
		snprintf(err, errlen, "nbldpc's encoder: %s", fec_strerror(rc));
out:
	fec_encoder_destroy(enc);
	free(cw);
	free(rg);
	return rc;
}

static void nb_image_rows(cJSON *sec, const struct bench_opts *o, struct bench_gpu *g,
                          const char *gpu_why, const char *name, const char *code_text)
{
	const uint32_t frames = o->short_mode ? 16 : 32 * (o->threads > 8 ? o->threads : 8);
	const char *tmp = getenv("TMPDIR");
	char path[4096], text[4400], err[256];
	struct bench_data nb;
	int fd;

	snprintf(text, sizeof(text), "%s,algo=tms,iters=10,early_stop=false", code_text);
	if (bench_frames_build(&nb, text, frames, NB_EBN0, o->seed, err, sizeof(err))) {
		report_note(sec, "%s, binary image: %s", name, err);
		return;
	}
	snprintf(path, sizeof(path), "%s/fecd-bench-image-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 ||
	    (close(fd), nbldpc_binary_image_write(&nb.spec.u.nbldpc, path, err, sizeof(err)))) {
		report_note(sec, "%s, binary image: %s", name, fd < 0 ? "no temporary file" : err);
		if (fd >= 0)
			unlink(path);
		bench_data_free(&nb);
		return;
	}
	for (unsigned k = 0; k < sizeof(nb_image_decoders) / sizeof(nb_image_decoders[0]); k++) {
		struct bench_data d;

		snprintf(text, sizeof(text), "ldpc,code=%s,%s,iters=10,early_stop=false", path,
		         nb_image_decoders[k].params);
		progress("nbldpc: %s, %s", name, nb_image_decoders[k].label);
		if (bench_frames_build(&d, text, frames, NB_EBN0, o->seed, err, sizeof(err))) {
			report_note(sec, "%s, %s: %s", name, nb_image_decoders[k].label, err);
			continue;
		}
		if (image_frames(&d, &nb, err, sizeof(err))) {
			report_note(sec, "%s, %s: not measured: %s", name,
			            nb_image_decoders[k].label, err);
			bench_data_free(&d);
			continue;
		}
		nb_row(sec, o, g, gpu_why, name, nb_image_decoders[k].label, &d, 0.0, 1.0);
		bench_data_free(&d);
	}
	unlink(path);
	bench_data_free(&nb);
}

static void nbldpc_main(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                        const char *gpu_why)
{
	static const char *const cols[] = {"decoder",
	                                   "frames",
	                                   "GPU kernel Mb/s",
	                                   "GPU transfers Mb/s",
	                                   "CPU 1 core Mb/s",
	                                   "CPU 1 core median Mb/s",
	                                   "CPU all cores Mb/s",
	                                   "FER",
	                                   "same as cpu",
	                                   "GPU",
	                                   NULL};
	cJSON *sec = report_section(r, "nbldpc", cols);
	char text[400], err[256];

	report_note(sec,
	            "10 iterations, no early stop, int8 LLRs (llr_scale 8) at Eb/N0 %.1f dB; "
	            "same as cpu: the GPU's bits equal the CPU decoder's on every frame (FFT-BP "
	            "is float: a frame on the edge can round the other way); frames: those "
	            "decoded (the same seed: rows with as many frames decode the same frames); a "
	            "row whose frame takes longer than its budget alone (min-max at q = 256) is "
	            "timed on that one frame on one core and on one pass over all cores; CPU 1 "
	            "core: one thread pinned to one core, the best of 5 rounds where a pass "
	            "takes at most 0.4 s (the median beside it), else one round",
	            NB_EBN0);
	report_note(sec, "tms dev2=5: two-deviation candidates cut from 8 to 5, the fewest whose "
	                 "FER on B1C stays within 0.3 dB of FFT-BP's both at 10 iterations and at "
	                 "50 (codec/nbldpc/NOTES.md): the setting for tms's speed targets");
	report_note(sec,
	            "image rows (ldpc nms, image; ldpc spa, image): the tms row's frames (the "
	            "same channel output) through the ldpc family on the code's binary image "
	            "(each GF(q) coefficient as its p x p binary matrix), layered, 10 "
	            "iterations, no early stop; a frame is wrong where the decoded bits are not "
	            "the sent codeword's at the ldpc decoder's information columns");
	for (unsigned c = 0; c < sizeof(nb_codes) / sizeof(nb_codes[0]); c++) {
		if (o->short_mode != nb_codes[c].short_run)
			continue;
		if (nb_codes[c].file && !have_code(nb_codes[c].file)) {
			report_note(sec, "%s: skipped, %s not in the codes folder %s",
			            nb_codes[c].name, nb_codes[c].file, fec_codes_dir());
			continue;
		}
		report_note(sec, "%s: %s", nb_codes[c].name, nb_codes[c].how);
		for (unsigned k = 0; k < sizeof(nb_decoders) / sizeof(nb_decoders[0]); k++) {
			const double budget = o->short_mode ? 0.5 : 2.0;
			struct bench_data d;
			double t;

			snprintf(text, sizeof(text), "%s,%s,iters=10,early_stop=false",
			         nb_codes[c].text, nb_decoders[k].params);
			progress("nbldpc: %s", text);
			if (nb_data(&d, text, o, budget, NB_EBN0, &t, err, sizeof(err))) {
				report_note(sec, "%s: %s", text, err);
				continue;
			}
			nb_row(sec, o, g, gpu_why, nb_codes[c].name, nb_decoders[k].label, &d, t,
			       budget);
			bench_data_free(&d);
		}
		nb_image_rows(sec, o, g, gpu_why, nb_codes[c].name, nb_codes[c].text);
	}
}

/* ---- The seed's table 4.6 */

/* The table's iteration counts up to 100: its 200 and 300 rows (ratios within 8% of the 100
 * row's, 4% for q >= 64) would take minutes of one-core decoding more. */
static const unsigned seed_iters[] = {10, 20, 40, 60, 100};
static const struct {
	const char *name, *text;
	double elim; /* m^2 n: the encoder's build cost */
	double seed[5];
} seed_codes[] = {
    {"GF2_5040",
     "code=regular,q=2,n=10080,dv=3,dc=6,seed=1",
     5040.0 * 5040 * 10080,
     {35.5, 43.0, 49.4, 51.8, 54.1}},
    {"GF8_5040",
     "code=regular,q=8,n=3360,dv=3,dc=6,seed=1",
     1680.0 * 1680 * 3360,
     {122.7, 166.4, 195.2, 220.4, 234.4}},
    {"GF16_5040",
     "code=regular,q=16,n=2520,dv=3,dc=6,seed=1",
     1260.0 * 1260 * 2520,
     {192.9, 243.4, 278.4, 307.4, 329.6}},
    {"GF32_5040",
     "code=regular,q=32,n=2016,dv=2,dc=4,seed=1",
     1008.0 * 1008 * 2016,
     {280.5, 320.5, 369.8, 396.6, 407.7}},
    {"GF64_5040",
     "code=regular,q=64,n=1680,dv=2,dc=4,seed=1",
     840.0 * 840 * 1680,
     {403.0, 483.5, 537.0, 557.6, 578.8}},
    {"GF256_5040",
     "code=regular,q=256,n=1260,dv=2,dc=4,seed=1",
     630.0 * 630 * 1260,
     {620.4, 670.2, 698.3, 707.5, 714.2}},
};

/* The encoder's dense elimination (codec/nbldpc NOTES.md) costs about m^2 n steps: GF2_5040's
 * (m = 5040, n = 10080) takes minutes, the others seconds. Codes above this are skipped, saying
 * why, until the encoder is built faster. */
#define SEED_ELIM_MAX 5e10

/* One row of the table: d's code at iters iterations, d's decoder swapped for one with them. */
static void seed_row(cJSON *sec, const struct bench_opts *o, struct bench_gpu *g,
                     struct bench_data *d, unsigned c, unsigned i)
{
	struct bench_data di = *d;
	struct fec_decoder *dec = NULL;
	char desc[400] = "";
	const char *at;
	int grid = 0;
	bool exact;
	double cpu = -1.0, gpu = -1.0;
	uint8_t *out = calloc(1, d->out_stride);

	di.spec.u.nbldpc.max_iters = (uint16_t)seed_iters[i];
	if (!out || fec_decoder_create(&di.spec, &dec)) {
		report_note(sec, "%s, %u iterations: no decoder", seed_codes[c].name,
		            seed_iters[i]);
		free(out);
		return;
	}
	di.dec = dec;
	di.info = fec_decoder_info(dec);
	progress("nbldpc seed: %s, %u iterations", seed_codes[c].name, seed_iters[i]);
	cpu = bench_cpu_rate(&di, 1, 1, o->min_secs, out);
	if (!bench_gpu_describe(g, &di, desc, sizeof(desc))) {
		at = strstr(desc, "grid ");
		if (!at || sscanf(at, "grid %d", &grid) != 1 || grid <= 0)
			grid = 256;
		gpu = bench_gpu_kernel_rate(g, o, &di, (uint32_t)grid, &exact);
	}
	if (i == 0)
		report_note(sec, "%s GPU: %s", seed_codes[c].name, desc);
	report_seed_row(sec, seed_codes[c].name, seed_iters[i], cpu, gpu,
	                (double)di.info->frame_info_bits, seed_codes[c].seed[i]);
	fec_decoder_destroy(dec);
	free(out);
}

static void nbldpc_seed(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                        const char *gpu_why)
{
	cJSON *sec = report_section(r, "nbldpc_seed", report_seed_columns);
	struct bench_opts oq = *o;
	char text[400], err[256];

	if (o->short_mode || !g) {
		report_skip(sec, "%s",
		            o->short_mode ? "--short: the table needs the GPU" : gpu_why);
		return;
	}
	report_note(sec,
	            "the thesis's algorithm: FFT-BP in the log domain, flooding, fixed iterations "
	            "(early_stop=false), int8 input at Eb/N0 -1 dB; codes: generated regular codes "
	            "of its 5040-bit sizes (columns of 3 for q <= 16, 2 above; its own are "
	            "irregular); speedup = frames/s of the GPU (kernel only, one lane, batches of "
	            "one grid) / frames/s of fec_decode on one core; the seed's figures: its table "
	            "4.6 (GTX 275 vs one core of a Core 2 Q6600)");
	oq.min_secs = o->min_secs / 2;
	oq.gpu_lanes = 1; /* one grid of frames a round: the log domain at 100 iterations is slow */
	for (unsigned c = 0; c < sizeof(seed_codes) / sizeof(seed_codes[0]); c++) {
		struct bench_data d;

		if (seed_codes[c].elim > SEED_ELIM_MAX) {
			report_note(sec,
			            "%s: skipped, its systematic encoder (dense elimination, about "
			            "%.0e steps) takes minutes to build",
			            seed_codes[c].name, seed_codes[c].elim);
			continue;
		}
		snprintf(text, sizeof(text),
		         "nbldpc,%s,algo=fft-bp,domain=log,iters=10,early_stop=false",
		         seed_codes[c].text);
		progress("nbldpc seed: %s", text);
		/* one distinct frame: at -1 dB none converges, every frame costs the same */
		if (bench_frames_build(&d, text, 1, -1.0, o->seed, err, sizeof(err))) {
			report_note(sec, "%s: %s", seed_codes[c].name, err);
			continue;
		}
		for (unsigned i = 0; i < sizeof(seed_iters) / sizeof(seed_iters[0]); i++)
			seed_row(sec, &oq, g, &d, c, i);
		bench_data_free(&d);
	}
}

void bench_nbldpc(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	if (o->codes_dir)
		fec_codes_dir_set(o->codes_dir);
	nbldpc_main(r, o, c->g, c->gpu_why);
}

void bench_nbldpc_seed(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	nbldpc_seed(r, o, c->g, c->gpu_why);
}
