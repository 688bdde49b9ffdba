/*
 * fecd-bench's LDPC sections.
 *   - "ldpc": DVB-S2 64800 rate 1/2, layered normalized min-sum, 10 iterations (no early stop:
 *     every frame runs all 10), int8: the GPU kernel alone and with host transfers (pinned,
 *     overlapped over lanes), the CPU decoder (fec_decode on threads) on one core and on all; one
 *     row with early stop for the figure a receiver sees at the data's Eb/N0. Figures are
 *     information bits per second.
 *   - "ldpc_rates": DVB-S2 64800 at the rates in the codes folder (1/2, 3/4, 9/10: rows of 7, 14
 *     and 30 edges), the same decoder: GPU kernel, CPU on one core and on all.
 *   - "ldpc_seed": the seed thesis's table 4.3 (its "Table 4.1" codes: WiMAX 2304, regular 8000
 *     and 16000, DVB-S2 64800, at 10..300 iterations) as GPU / CPU (1 core) throughput ratios
 *     beside the thesis's figures, with the thesis's algorithm: sum-product (tanh rule),
 *     flooding, fixed iterations, Eb/N0 = -1 dB.
 * Frames are seeded codewords through BPSK/AWGN, quantized to int8 LLRs (llr_scale 8). Codes come
 * from the codes folder (--codes-dir, else $FECD_CODES_DIR); a code that is not there gets a
 * row saying so. --short runs the CPU rows of "ldpc" only, on fewer frames.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "awgn.h"
#include "bench.h"
#include "prng.h"
#include "softbits.h"

#define DVBS2     "DVB-S2_64800x32400.alist"

/* Whether the codes folder holds file (relative to it). */
static bool have_code(const char *file)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fec_codes_dir(), file);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A data set of nframes frames of a frame family's code (bench.h). */
int bench_frames_build(struct bench_data *d, const char *text, uint32_t nframes, double ebn0,
                           uint64_t seed, char *err, size_t errlen)
{
	struct fec_encoder *enc = NULL;
	struct fec_prng prng;
	uint8_t *cw = NULL;
	float *llr = NULL;
	int rc;

	rc = bench_frames_alloc(d, text, nframes, 0, err, errlen);
	if (rc)
		return rc;
	const uint32_t k = d->info->frame_info_bits, n_tx = d->info->frame_syms;
	cw = malloc(n_tx);
	llr = malloc(n_tx * sizeof(float));
	rc = -FEC_ENOMEM;
	if (!cw || !llr)
		goto out_err;
	rc = fec_encoder_create(&d->spec, &enc);
	if (rc)
		goto out_err;
	fec_prng_seed(&prng, seed);
	const double sigma = fec_awgn_sigma(ebn0, fec_spec_rate(&d->spec));
	for (uint32_t i = 0; i < nframes; i++) {
		size_t nout = 0;

		d->bit0[i] = (uint64_t)i * k;
		fec_prng_bits(&prng, d->bits + d->bit0[i], k);
		rc = fec_encode(enc, d->bits + d->bit0[i], k, cw, &nout);
		if (rc || nout != n_tx) {
			rc = rc ? rc : -FEC_EINVAL;
			goto out_err;
		}
		fec_awgn_llr(&prng, cw, n_tx, sigma, 100.0f, llr);
		fec_llr_quantize(FECD_FMT_S8_LLR, llr, n_tx, false, d->spec.frame.llr_scale,
		                 d->in + (size_t)i * n_tx);
		d->jobs[i] = (struct fec_job){.in_len = n_tx, .own_len = n_tx};
	}
	fec_encoder_destroy(enc);
	free(cw);
	free(llr);
	return 0;
out_err:
	snprintf(err, errlen, "%.180s: %s", text, fec_strerror(rc));
	fec_encoder_destroy(enc);
	free(cw);
	free(llr);
	bench_data_free(d);
	return rc;
}

uint32_t bench_frame_errors(const struct bench_data *d, const uint8_t *out)
{
	uint32_t bad = 0;
	uint8_t *pk = malloc(d->out_stride);
	const uint32_t k = d->info->frame_info_bits;

	if (!pk)
		return UINT32_MAX;
	for (uint32_t j = 0; j < d->njobs; j++) {
		memset(pk, 0, d->out_stride);
		for (uint32_t b = 0; b < k; b++)
			pk[b / 8] |= (uint8_t)(d->bits[d->bit0[j] + b] << (7 - b % 8));
		bad += memcmp(out + (size_t)j * d->out_stride, pk, d->out_stride) != 0;
	}
	free(pk);
	return bad;
}

/* ---- The DVB-S2 section */

/* Jobs per batch a CPU thread takes: whole SIMD groups, as the daemon's CPU backend gives them. */
static uint32_t cpu_batch(const struct bench_data *d)
{
	return d->info->job_group > 8 ? d->info->job_group : 8;
}

static void cpu_rows(cJSON *sec, const struct bench_opts *o, struct bench_data *d, uint8_t *out)
{
	const uint32_t jobs = cpu_batch(d);
	char label[64];
	double rate;

	progress("ldpc: CPU, one core");
	rate = bench_cpu_rate(d, 1, jobs, o->min_secs, out);
	cJSON *row = report_row(sec, "CPU 1 core");
	if (rate > 0) {
		row_num(row, "Mb/s", rate / 1e6);
		row_num(row, "Mb/s/core", rate / 1e6);
	}
	row_str(row, "same as cpu", rate > 0 && !bench_data_mismatches(d, out) ? "yes" : "NO");
	/* a frame per fec_decode call, as a lightly loaded daemon gives them: the 32-frame pass
	 * would pad each to a group, so it goes through the single-frame (cyclic) pass */
	progress("ldpc: CPU, one core, one frame per call");
	rate = bench_cpu_rate(d, 1, 1, o->min_secs, out);
	row = report_row(sec, "CPU 1 core, 1 frame/call");
	if (rate > 0) {
		row_num(row, "Mb/s", rate / 1e6);
		row_num(row, "Mb/s/core", rate / 1e6);
	}
	row_str(row, "same as cpu", rate > 0 && !bench_data_mismatches(d, out) ? "yes" : "NO");
	progress("ldpc: CPU, %u cores", o->threads);
	rate = bench_cpu_rate(d, o->threads, jobs, o->min_secs, out);
	snprintf(label, sizeof(label), "CPU all cores (%u)", o->threads);
	row = report_row(sec, label);
	if (rate > 0) {
		row_num(row, "Mb/s", rate / 1e6);
		row_num(row, "Mb/s/core", rate / 1e6 / o->threads);
	}
	row_str(row, "same as cpu", rate > 0 && !bench_data_mismatches(d, out) ? "yes" : "NO");
	progress("ldpc: CPU, %u cores, one frame per call", o->threads);
	rate = bench_cpu_rate(d, o->threads, 1, o->min_secs, out);
	snprintf(label, sizeof(label), "CPU all cores, 1 frame/call");
	row = report_row(sec, label);
	if (rate > 0) {
		row_num(row, "Mb/s", rate / 1e6);
		row_num(row, "Mb/s/core", rate / 1e6 / o->threads);
	}
	row_str(row, "same as cpu", rate > 0 && !bench_data_mismatches(d, out) ? "yes" : "NO");
}

/* Frames per batch that fill the decoder's grid `waves` times (its describe() line names the
 * grid: blocks of one frame, or of two for the fast kernel); 0 when there is no GPU decoder. */
static uint32_t batch_frames(struct bench_gpu *g, const struct bench_data *d, unsigned waves,
                             char *desc, size_t len)
{
	const char *at;
	int grid = 0;

	if (bench_gpu_describe(g, d, desc, len))
		return 0;
	at = strstr(desc, "grid ");
	if (!at || sscanf(at, "grid %d", &grid) != 1 || grid <= 0)
		grid = 256;
	return (uint32_t)grid * (strstr(desc, "fast") ? 2 : 1) * waves;
}

static void gpu_rows(cJSON *sec, const struct bench_opts *o, struct bench_gpu *g,
                     struct bench_data *d, struct bench_data *de)
{
	struct bench_opts ot = *o;
	bool exact = false;
	double ber = 0, rate;
	char desc[400];
	cJSON *row;
	/* frames per batch: several rounds of frame pairs per block */
	const uint32_t jobs = batch_frames(g, d, 8, desc, sizeof(desc));

	if (!jobs) {
		report_note(sec, "GPU: no decoder: %s", desc);
		return;
	}
	report_note(sec, "GPU: %s; %u frames per batch", desc, jobs);
	progress("ldpc: GPU kernel only, %u frames per batch", jobs);
	rate = bench_gpu_kernel_rate(g, o, d, jobs, &exact);
	row = report_row(sec, "GPU kernel only");
	if (rate > 0) {
		row_num(row, "Gb/s", rate / 1e9);
		row_num(row, "Mb/s", rate / 1e6);
	}
	row_str(row, "same as cpu", rate > 0 ? (exact ? "yes" : "NO") : "failed");
	ot.gpu_jobs = jobs;
	progress("ldpc: GPU with transfers");
	rate = bench_gpu_transfer_rate(g, &ot, d, &exact, &ber);
	row = report_row(sec, "GPU with host transfers");
	if (rate > 0) {
		row_num(row, "Gb/s", rate / 1e9);
		row_num(row, "Mb/s", rate / 1e6);
		row_num(row, "GB/s in", rate / d->info->frame_info_bits * d->in_stride / 1e9);
	}
	row_str(row, "same as cpu", rate > 0 ? (exact ? "yes" : "NO") : "failed");
	if (de) {
		progress("ldpc: GPU kernel only, early stop");
		rate = bench_gpu_kernel_rate(g, o, de, jobs, &exact);
		row = report_row(sec, "GPU kernel, early stop");
		if (rate > 0) {
			row_num(row, "Gb/s", rate / 1e9);
			row_num(row, "Mb/s", rate / 1e6);
		}
		row_str(row, "same as cpu", rate > 0 ? (exact ? "yes" : "NO") : "failed");
	}
}

static void ldpc_main(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                      const char *gpu_why)
{
	static const char *const cols[] = {"Gb/s",        "Mb/s", "Mb/s/core", "GB/s in",
	                                   "same as cpu", "FER",  NULL};
	const double ebn0 = 2.5;
	cJSON *sec = report_section(r, "ldpc", cols);
	struct bench_data d, de;
	bool have_de = false;
	char text[256], err[256];
	uint8_t *out = NULL;

	if (!have_code(DVBS2)) {
		report_skip(sec, "%s not in the codes folder %s (--codes-dir or FECD_CODES_DIR)",
		            DVBS2, fec_codes_dir());
		return;
	}
	snprintf(text, sizeof(text),
	         "ldpc,code=%s,algo=nms,schedule=layered,iters=10,early_stop=false", DVBS2);
	progress("ldpc: data, %s", text);
	if (bench_frames_build(&d, text, o->short_mode ? 64 : 32 * (o->threads > 8 ? o->threads : 8),
	                    ebn0, o->seed, err, sizeof(err))) {
		report_skip(sec, "%s", err);
		return;
	}
	report_note(sec,
	            "%u distinct frames at Eb/N0 %.1f dB, llr_scale %.0f; every frame runs 10 "
	            "iterations (early_stop=false) unless the row says otherwise",
	            d.njobs, ebn0, d.spec.frame.llr_scale);
	out = calloc(d.njobs, d.out_stride);
	if (!out) {
		report_skip(sec, "out of memory");
		goto out_data;
	}
	/* The reference: one pass on all cores; every other row is checked against it. */
	if (bench_cpu_rate(&d, o->threads, cpu_batch(&d), 0.0, d.ref) <= 0) {
		report_skip(sec, "CPU decode failed");
		goto out_out;
	}
	report_note(sec, "frame error rate of the reference decode: %.3f",
	            (double)bench_frame_errors(&d, d.ref) / d.njobs);
	cpu_rows(sec, o, &d, out);
	if (!g) {
		report_note(sec, "GPU rows skipped: %s", gpu_why);
		goto out_out;
	}
	snprintf(text, sizeof(text),
	         "ldpc,code=%s,algo=nms,schedule=layered,iters=10,early_stop=true", DVBS2);
	if (!bench_frames_build(&de, text, d.njobs, ebn0, o->seed, err, sizeof(err))) {
		have_de = bench_cpu_rate(&de, o->threads, cpu_batch(&de), 0.0, de.ref) > 0;
		if (!have_de)
			bench_data_free(&de);
	}
	gpu_rows(sec, o, g, &d, have_de ? &de : NULL);
	if (have_de)
		bench_data_free(&de);
out_out:
	free(out);
out_data:
	bench_data_free(&d);
}

/* ---- DVB-S2 at other rates */

static void ldpc_rates(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                       const char *gpu_why)
{
	static const char *const cols[] = {
	    "rate",        "row edges", "GPU Gb/s", "CPU 1 core Mb/s", "CPU all cores Mb/s",
	    "same as cpu", NULL};
	static const struct {
		const char *file, *rate;
		unsigned edges;
		double ebn0;
	} rates[] = {
	    {"DVB-S2_64800x32400.alist", "1/2", 7, 2.5},
	    {"DVB-S2_64800x16200.alist", "3/4", 14, 3.2},
	    {"DVB-S2_64800x6480.alist", "9/10", 30, 4.4},
	};
	cJSON *sec = report_section(r, "ldpc_rates", cols);
	char text[256], err[256], desc[400];

	if (o->short_mode) {
		report_skip(sec, "--short: the \"ldpc\" section's CPU rows only");
		return;
	}
	if (!g)
		report_note(sec, "GPU rows skipped: %s", gpu_why);
	for (unsigned c = 0; c < sizeof(rates) / sizeof(rates[0]); c++) {
		struct bench_data d;
		bool exact = true, ok = true;

		if (!have_code(rates[c].file)) {
			report_note(sec, "%s not in the codes folder %s", rates[c].file,
			            fec_codes_dir());
			continue;
		}
		snprintf(text, sizeof(text),
		         "ldpc,code=%s,algo=nms,schedule=layered,iters=10,early_stop=false",
		         rates[c].file);
		progress("ldpc_rates: %s", text);
		if (bench_frames_build(&d, text, 16 * (o->threads > 8 ? o->threads : 8), rates[c].ebn0,
		                    o->seed, err, sizeof(err))) {
			report_note(sec, "%s: %s", rates[c].file, err);
			continue;
		}
		uint8_t *out = calloc(d.njobs, d.out_stride);
		cJSON *row = report_row(sec, rates[c].file);

		row_str(row, "rate", rates[c].rate);
		row_num(row, "row edges", rates[c].edges);
		if (out && bench_cpu_rate(&d, o->threads, cpu_batch(&d), 0.0, d.ref) > 0) {
			const double one = bench_cpu_rate(&d, 1, cpu_batch(&d), o->min_secs, out);
			const double all =
			    bench_cpu_rate(&d, o->threads, cpu_batch(&d), o->min_secs, out);

			if (one > 0)
				row_num(row, "CPU 1 core Mb/s", one / 1e6);
			if (all > 0)
				row_num(row, "CPU all cores Mb/s", all / 1e6);
			ok = one > 0 && all > 0 && !bench_data_mismatches(&d, out);
			const uint32_t jobs = g ? batch_frames(g, &d, 8, desc, sizeof(desc)) : 0;
			const double rate =
			    jobs ? bench_gpu_kernel_rate(g, o, &d, jobs, &exact) : -1.0;

			if (jobs)
				report_note(sec, "%s GPU: %s", rates[c].rate, desc);
			if (rate > 0)
				row_num(row, "GPU Gb/s", rate / 1e9);
			ok = ok && (!jobs || (rate > 0 && exact));
		} else {
			ok = false;
		}
		row_str(row, "same as cpu", ok ? "yes" : "NO");
		free(out);
		bench_data_free(&d);
	}
}

/* ---- The seed's table */

/* The seed thesis's GPU/CPU speedups (its table 4.3), by code then iterations. */
static const unsigned seed_iters[] = {10, 20, 40, 60, 100, 200, 300};
static const struct {
	const char *name, *text, *file, *how;
	double seed[7];
} seed_codes[] = {
    {"WiMAX_2304",
     NULL,
     NULL,
     "802.16e rate-1/2 base graph lifted to z=96 with the N=576 matrix's shifts x4 (the "
     "standard's own z=96 shifts are not in ../shared/codes): same degrees, not the standard's "
     "matrix",
     {5.5, 8.1, 10.5, 12.2, 13.6, 15.2, 15.9}},
    {"Regular_8000",
     "code=MACKAY_4000_8000.alist",
     "MACKAY_4000_8000.alist",
     "MacKay (3,6) N=8000",
     {6.1, 9.6, 15.4, 19.4, 24.5, 31.4, 33.0}},
    {"Regular_16000",
     "code=regular,n=16000,dv=3,dc=6,seed=1",
     NULL,
     "generated (3,6)-regular N=16000 without 4-cycles",
     {7.0, 10.9, 18.5, 24.2, 32.6, 42.5, 49.5}},
    {"DVB-S2_64800",
     "code=" DVBS2,
     DVBS2,
     "DVB-S2 normal frame r1/2",
     {13.6, 20.9, 37.0, 43.1, 55.1, 76.6, 86.8}},
};

/* The WiMAX rate-1/2 base matrix read back from the N=576 (z=24) alist, written as a .qc file
 * lifted to z=96 with shifts x4. Returns 0 and the path, or -1 (why in err). */
static int wimax_2304_qc(char *path, size_t len, char *err, size_t errlen)
{
	struct ldpc_spec ls = {0};
	struct ldpc_code *c = NULL;
	FILE *f;
	const uint32_t z = 24;

	snprintf(ls.code, sizeof(ls.code), "WIMAX_288_576.alist");
	if (ldpc_code_load(&ls, &c, err, errlen))
		return -1;
	if (c->h.n != 576 || c->h.m != 288) {
		snprintf(err, errlen, "WIMAX_288_576.alist is not 576 x 288");
		ldpc_code_free(c);
		return -1;
	}
	snprintf(path, len, "/tmp/fecd-bench-wimax2304-%d.qc", (int)getpid());
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		ldpc_code_free(c);
		return -1;
	}
	fprintf(f, "%u %u %u\n", c->h.n / z, c->h.m / z, 96u);
	for (uint32_t br = 0; br < c->h.m / z; br++) {
		const uint32_t r = br * z; /* the block row's first row: its shift per block */

		for (uint32_t bc = 0; bc < c->h.n / z; bc++) {
			int shift = -1;

			for (uint32_t e = c->h.row_start[r]; e < c->h.row_start[r + 1]; e++)
				if (c->h.row_col[e] / z == bc)
					shift = (int)(c->h.row_col[e] % z);
			fprintf(f, "%d%c", shift < 0 ? -1 : shift * 4,
			        bc + 1 < c->h.n / z ? ' ' : '\n');
		}
	}
	fclose(f);
	ldpc_code_free(c);
	return 0;
}

static void ldpc_seed(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                      const char *gpu_why)
{
	cJSON *sec = report_section(r, "ldpc_seed", report_seed_columns);
	struct bench_opts oq = *o;
	char wimax[256] = "", err[256];

	if (o->short_mode || !g) {
		report_skip(sec, "%s",
		            o->short_mode ? "--short: the table needs the GPU" : gpu_why);
		return;
	}
	report_note(sec, "the thesis's algorithm: sum-product (tanh rule, float32), flooding, "
	                 "fixed iterations (early_stop=false), int8 input; speedup = frames/s of "
	                 "the GPU (batches of frames, kernel only) / frames/s of fec_decode on one "
	                 "core; the seed's figures: GTX 275 vs Core 2 Q6600 (its table 4.3)");
	oq.min_secs = o->min_secs / 2;
	if (have_code("WIMAX_288_576.alist") &&
	    wimax_2304_qc(wimax, sizeof(wimax), err, sizeof(err)))
		report_note(sec, "WiMAX_2304: %s", err);
	for (unsigned c = 0; c < sizeof(seed_codes) / sizeof(seed_codes[0]); c++) {
		char code[320], text[400];

		if (c == 0 && !wimax[0]) {
			report_note(sec, "%s: skipped, WIMAX_288_576.alist not in the codes folder",
			            seed_codes[c].name);
			continue;
		}
		if (seed_codes[c].file && !have_code(seed_codes[c].file)) {
			report_note(sec, "%s: skipped, %s not in the codes folder %s",
			            seed_codes[c].name, seed_codes[c].file, fec_codes_dir());
			continue;
		}
		if (c == 0)
			snprintf(code, sizeof(code), "code=%s", wimax);
		else
			snprintf(code, sizeof(code), "%s", seed_codes[c].text);
		report_note(sec, "%s: %s", seed_codes[c].name, seed_codes[c].how);
		for (unsigned i = 0; i < sizeof(seed_iters) / sizeof(seed_iters[0]); i++) {
			struct bench_data d;
			uint8_t *out;
			bool exact;

			snprintf(text, sizeof(text),
			         "ldpc,%s,algo=spa,schedule=flooding,iters=%u,early_stop=false",
			         code, seed_iters[i]);
			progress("ldpc seed: %s, %u iterations", seed_codes[c].name, seed_iters[i]);
			/* Few distinct frames: at -1 dB none converges, every frame costs the same.
			 */
			if (bench_frames_build(&d, text, 1, -1.0, o->seed, err, sizeof(err))) {
				report_note(sec, "%s: %s", seed_codes[c].name, err);
				break;
			}
			out = calloc(d.njobs, d.out_stride);
			double cpu = out ? bench_cpu_rate(&d, 1, 1, oq.min_secs, out) : -1.0;
			char desc[400];
			const uint32_t jobs = batch_frames(g, &d, 1, desc, sizeof(desc));
			double gpu = jobs ? bench_gpu_kernel_rate(g, &oq, &d, jobs, &exact) : -1.0;

			if (i == 0)
				report_note(sec, "%s GPU: %s", seed_codes[c].name, desc);
			report_seed_row(sec, seed_codes[c].name, seed_iters[i], cpu, gpu,
			                (double)d.info->frame_info_bits, seed_codes[c].seed[i]);
			free(out);
			bench_data_free(&d);
		}
	}
	if (wimax[0])
		unlink(wimax);
}

void bench_ldpc(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	if (o->codes_dir)
		fec_codes_dir_set(o->codes_dir);
	ldpc_main(r, o, c->g, c->gpu_why);
	ldpc_rates(r, o, c->g, c->gpu_why);
	ldpc_seed(r, o, c->g, c->gpu_why);
}
