/*
 * fecd-bench's fano sections.
 *   - "fano": 1024-bit frames of whd-k7 (the seed's WirelessHD K=7 r=1/3 code) at 6 and 4 dB
 *     and of nasa-k32 (K=32 r=1/2) at 5 dB: the GPU kernel alone, UFA and BFA, the GPU with host
 *     transfers (pinned, over lanes) with 8- and 4-bit input beside the host link's bare
 *     copies in the same run (each transfer row's input as a share of it), the CPU decoder
 *     (fec_decode on threads) on one core and on all, and for whd-k7 the same frames through the
 * viterbi family (its terminated frames of the same code). Figures are information bits per second;
 * cycles/bit and FER are the CPU reference's on the same frames.
 *   - "fano_snr": frames and cycles per bit at 2, 3, 4, 5 and 6 dB for both codes, UFA and BFA,
 *     with the GPU kernel's and one core's speed, and viterbi's frame errors and speed beside
 *     whd-k7's.
 *   - "fano_walkers" (its own section): the GPU kernel rows of "fano" (UFA and BFA) once for
 *     each build of the kernels' walker (FECD_FANO_GPU_KERNEL, cuda/fano/FANO_GPU.md), on the
 *     same frames in the same run, so that one run compares them.
 * Frames are distinct seeded random bits through the family's encoder, BPSK/AWGN and the s8
 * quantizer at the code's llr_scale; the reference is the CPU decoder on all cores, which every
 * other row is checked against ("same as cpu": the decoded bits of every frame). A batch larger
 * than the data set repeats its frames (bench_gpu.c's tiling). --short (CI, no GPU): the CPU rows
 * of whd-k7 at 6 dB on few frames; the GPU rows say why they are missing.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awgn.h"
#include "bench.h"
#include "prng.h"
#include "softbits.h"

/* Kernel rows (UFA and BFA, whose threads take frames from a queue): frames per batch, in grids
 * of threads (FECD_BENCH_FANO_WAVES=1..16 instead, to compare) */
#define FANO_UFA_WAVES  4
#define FANO_XFER_GRIDS 4 /* transfer rows: grids' frames per batch, and lanes (main_rows) */
#define FANO_XFER_LANES 3
#define FANO_CPU_ROUNDS 5 /* one core: the best of 5 rounds, the median beside it */

/* A data set and what its reference decode found. */
struct fano_set {
	struct bench_data d;
	struct fec_job *jobs; /* the reference decode's jobs */
	struct fec_info info; /* a view's: its decoder's, counting a job's bits as the frame's */
	double ebn0;
	uint64_t cycles;
	uint32_t frame_errors, not_converged;
};

/* nframes frames of code text at ebn0 as a data set whose jobs are one frame each. */
static int set_build(struct fano_set *s, const char *text, uint32_t nframes, double ebn0,
                     uint64_t seed, char *err, size_t errlen)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->ebn0 = ebn0;
	rc = bench_frames_build(&s->d, text, nframes, ebn0, seed, err, errlen);
	if (rc)
		return rc;
	s->jobs = calloc(nframes, sizeof(*s->jobs));
	if (!s->jobs) {
		snprintf(err, errlen, "%.180s: %s", text, fec_strerror(-FEC_ENOMEM));
		bench_data_free(&s->d);
		return -FEC_ENOMEM;
	}
	return 0;
}

/* The same frames decoded by another decoder (viterbi's, or BFA's): its own decoder and
 * reference, the frames' arrays shared with src (set_free_view frees only what is its own). */
static int set_view(struct fano_set *v, const struct fano_set *src, const char *text, char *err,
                    size_t errlen)
{
	int rc;

	*v = *src;
	v->d.dec = NULL;
	v->d.ref = NULL;
	v->jobs = NULL;
	snprintf(v->d.code_text, sizeof(v->d.code_text), "%.150s", text);
	if (fec_spec_from_string(text, &v->d.spec, err, errlen))
		return -FEC_EINVAL;
	rc = fec_decoder_create(&v->d.spec, &v->d.dec);
	if (rc) {
		snprintf(err, errlen, "%.180s: %s", text, fec_strerror(rc));
		return rc;
	}
	v->d.spec = *fec_decoder_spec(v->d.dec);
	/* bench_data.c counts a job's bits as own_len / unit_syms x unit_bits: for a viterbi
	 * terminated frame that would take in the tail; here a job is one frame's bits */
	v->info = *fec_decoder_info(v->d.dec);
	v->info.unit_syms = src->d.info->unit_syms;
	v->info.unit_bits = src->d.info->unit_bits;
	v->info.frame_info_bits = src->d.info->frame_info_bits;
	v->d.info = &v->info;
	/* a viterbi frame decoder has frames of up to max_frame_syms symbols */
	if ((v->d.info->frame_syms ? v->d.info->frame_syms : v->d.info->max_frame_syms) !=
	        src->d.in_stride ||
	    (v->d.info->max_out_bits + 7) / 8 != src->d.out_stride) {
		snprintf(err, errlen, "%.180s: not the frames' geometry", text);
		fec_decoder_destroy(v->d.dec);
		return -FEC_EINVAL;
	}
	v->d.ref = calloc(v->d.njobs, v->d.out_stride);
	v->jobs = calloc(v->d.njobs, sizeof(*v->jobs));
	if (!v->d.ref || !v->jobs) {
		free(v->d.ref);
		free(v->jobs);
		fec_decoder_destroy(v->d.dec);
		return -FEC_ENOMEM;
	}
	return 0;
}

static void set_free_view(struct fano_set *v)
{
	fec_decoder_destroy(v->d.dec);
	free(v->d.ref);
	free(v->jobs);
	memset(v, 0, sizeof(*v));
}

static void set_free(struct fano_set *s)
{
	free(s->jobs);
	bench_data_free(&s->d);
}

/* The reference decode on all cores: d.ref, the jobs, and their cycles and frame errors. */
struct ref_run {
	struct fano_set *s;
	atomic_uint next;
	atomic_int rc;
};

static void *ref_worker(void *arg)
{
	struct ref_run *run = arg;
	struct bench_data *d = &run->s->d;
	void *scratch = malloc(d->info->scratch_bytes ? d->info->scratch_bytes : 1);

	if (!scratch) {
		atomic_store(&run->rc, -FEC_ENOMEM);
		return NULL;
	}
	for (uint32_t i; (i = atomic_fetch_add(&run->next, 1)) < d->njobs;) {
		struct fec_batch b = bench_batch(d, run->s->jobs, d->in, d->ref, i, 1);

		run->s->jobs[i] = d->jobs[i];
		if (fec_decode(d->dec, scratch, &b, 0, 1))
			atomic_store(&run->rc, -FEC_EINVAL);
	}
	free(scratch);
	return NULL;
}

static int set_reference(struct fano_set *s, unsigned threads)
{
	struct ref_run run = {.s = s};
	pthread_t tid[256];
	unsigned started = 0;
	const uint32_t k = s->d.info->frame_info_bits;
	uint8_t *pk = malloc(s->d.out_stride);

	if (!pk)
		return -FEC_ENOMEM;
	for (; started < threads && started < 256; started++)
		if (pthread_create(&tid[started], NULL, ref_worker, &run))
			break;
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	s->cycles = 0;
	s->frame_errors = s->not_converged = 0;
	for (uint32_t j = 0; j < s->d.njobs; j++) {
		const struct fec_job *job = &s->jobs[j];

		memset(pk, 0, s->d.out_stride);
		for (uint32_t b = 0; b < k; b++)
			pk[b / 8] |= (uint8_t)(s->d.bits[s->d.bit0[j] + b] << (7 - b % 8));
		s->cycles += job->work;
		s->not_converged += job->status == FECD_STATUS_NOT_CONVERGED;
		s->frame_errors +=
		    job->status != FECD_STATUS_DECODED ||
		    memcmp(s->d.ref + (size_t)j * s->d.out_stride, pk, s->d.out_stride) != 0;
	}
	free(pk);
	return started ? atomic_load(&run.rc) : -FEC_ENOMEM;
}

static double cycles_per_bit(const struct fano_set *s)
{
	return (double)s->cycles / (double)s->d.nbits;
}

/* Frames per batch for the GPU decoder: a whole grid's threads (two per frame for BFA) times
 * waves, from its describe() line; 0 when there is no GPU decoder (why in desc). */
static uint32_t gpu_frames(struct bench_gpu *g, const struct bench_data *d, unsigned waves,
                           char *desc, size_t len)
{
	const char *at;
	int grid = 0, threads = 0;

	if (bench_gpu_describe(g, d, desc, len))
		return 0;
	at = strstr(desc, "grid ");
	if (!at || sscanf(at, "grid %d", &grid) != 1 || grid <= 0)
		grid = 256;
	at = strstr(desc, "threads/block");
	while (at && at > desc && at[-1] == ' ')
		at--;
	while (at && at > desc && at[-1] >= '0' && at[-1] <= '9')
		at--;
	if (!at || sscanf(at, "%d", &threads) != 1 || threads <= 0)
		threads = 128;
	if (strstr(desc, "bfa") && !strstr(desc, "viterbi"))
		threads /= 2;
	return (uint32_t)grid * (uint32_t)threads * waves;
}

/* A timed row: rate in bits/s, or <= 0 (failed). */
static cJSON *rate_row(cJSON *sec, const char *label, double rate, bool exact, bool gb)
{
	cJSON *row = report_row(sec, label);

	if (rate > 0) {
		if (gb)
			row_num(row, "Gb/s", rate / 1e9);
		row_num(row, "Mb/s", rate / 1e6);
	}
	row_str(row, "same as cpu", rate > 0 ? (exact ? "yes" : "NO") : "failed");
	return row;
}

static uint32_t set_mismatches(const struct fano_set *s, const uint8_t *out)
{
	return bench_out_mismatches(&s->d, out, s->d.ref, 0, s->d.njobs);
}

/* CPU rows of one data set: one core and all cores. */
static void cpu_rows(cJSON *sec, const struct bench_opts *o, const struct fano_set *s,
                     const char *what)
{
	uint8_t *out = calloc(s->d.njobs, s->d.out_stride);
	char label[160];
	double rate;

	if (!out)
		return;
	double median = 0;
	int core = -1;

	progress("fano: %s, CPU one core, best of %u rounds", what, FANO_CPU_ROUNDS);
	rate = bench_cpu_best(&s->d, 8, FANO_CPU_ROUNDS, o->min_secs, out, &median, &core);
	snprintf(label, sizeof(label), "%s: CPU 1 core (core %d), best of %u rounds", what, core,
	         FANO_CPU_ROUNDS);
	cJSON *row = rate_row(sec, label, rate, !set_mismatches(s, out), false);
	if (rate > 0)
		row_num(row, "median Mb/s", median / 1e6);
	progress("fano: %s, CPU %u cores", what, o->threads);
	memset(out, 0, (size_t)s->d.njobs * s->d.out_stride);
	rate = bench_cpu_rate(&s->d, o->threads, 8, o->min_secs, out);
	snprintf(label, sizeof(label), "%s: CPU all cores (%u)", what, o->threads);
	rate_row(sec, label, rate, !set_mismatches(s, out), false);
	free(out);
}

/* GPU kernel row of one data set (sec NULL: no row, no note); returns the rate, < 0 when it
 * failed or its output differs from the reference. */
static double kernel_row(cJSON *sec, const struct bench_opts *o, struct bench_gpu *g,
                         const struct fano_set *s, const char *label)
{
	struct bench_opts ot = *o;
	char desc[400];
	uint32_t jobs = gpu_frames(g, &s->d, 1, desc, sizeof(desc));
	bool exact = false;
	double rate;

	if (!jobs) {
		if (sec)
			report_note(sec, "%s: %s", label, desc);
		return -1.0;
	}
	/* The fano kernels' threads take their frames from a queue: a batch of several grids'
	 * frames lets a thread decode several in turn, so that its warp does not wait for its
	 * slowest frame; two lanes of such batches keep the device busy. */
	if (strstr(desc, "fgpu_ufa") || strstr(desc, "fgpu_bfa")) {
		const char *ev = getenv("FECD_BENCH_FANO_WAVES");
		const int waves = ev ? atoi(ev) : FANO_UFA_WAVES;

		jobs *= waves >= 1 && waves <= 16 ? (uint32_t)waves : FANO_UFA_WAVES;
		if (!ot.gpu_lanes)
			ot.gpu_lanes = 2;
	}
	if (sec)
		report_note(sec, "%s: %s; %u frames per batch, %u lanes", label, desc, jobs,
		            ot.gpu_lanes ? ot.gpu_lanes : 0);
	progress("fano: %s", label);
	rate = bench_gpu_kernel_rate(g, &ot, &s->d, jobs, &exact);
	if (sec)
		rate_row(sec, label, rate, exact, true);
	return rate > 0 && exact ? rate : -1.0;
}

/* Rows of one code at one Eb/N0 for the "fano" section. */
static void main_rows(cJSON *sec, const struct bench_opts *o, struct bench_gpu *g,
                      const char *gpu_why, const char *code, double ebn0, const char *viterbi)
{
	const uint32_t nframes = o->short_mode ? 64 : 8192;
	struct fano_set s, b, v;
	char what[64], text[200], label[160], err[256];
	cJSON *row;

	snprintf(what, sizeof(what), "%s %.0f dB", code, ebn0);
	progress("fano: data, %s, %u frames", what, nframes);
	if (set_build(&s, code, nframes, ebn0, o->seed, err, sizeof(err)) ||
	    set_reference(&s, o->threads)) {
		report_note(sec, "%s: %s", what, err);
		return;
	}
	report_note(
	    sec, "%s: %u distinct frames, UFA: %.3f cycles/bit, FER %.4f (%u not converged)", what,
	    nframes, cycles_per_bit(&s), (double)s.frame_errors / nframes, s.not_converged);
	cpu_rows(sec, o, &s, what);
	if (viterbi && !set_view(&v, &s, viterbi, err, sizeof(err))) {
		if (!set_reference(&v, o->threads)) {
			report_note(sec, "%s: viterbi (%s) on the same frames: FER %.4f", what,
			            viterbi, (double)v.frame_errors / nframes);
			snprintf(label, sizeof(label), "%s: viterbi", what);
			cpu_rows(sec, o, &v, label);
			snprintf(label, sizeof(label), "%s: viterbi GPU kernel", what);
			if (g)
				kernel_row(sec, o, g, &v, label);
		}
		set_free_view(&v);
	}
	if (!g) {
		report_note(sec, "%s: GPU rows skipped: %s", what, gpu_why);
		goto out;
	}
	snprintf(label, sizeof(label), "%s: GPU kernel UFA", what);
	kernel_row(sec, o, g, &s, label);
	snprintf(text, sizeof(text), "%s,algo=bfa", code);
	if (!set_view(&b, &s, text, err, sizeof(err))) {
		if (!set_reference(&b, o->threads)) {
			report_note(sec, "%s: BFA: %.3f cycles/bit, FER %.4f", what,
			            cycles_per_bit(&b), (double)b.frame_errors / nframes);
			snprintf(label, sizeof(label), "%s: GPU kernel BFA", what);
			kernel_row(sec, o, g, &b, label);
		}
		set_free_view(&b);
	}
	/* Transfer batches of FANO_XFER_GRIDS grids' frames (FECD_BENCH_FANO_XFER_GRIDS=1..8 to
	 * compare) over FANO_XFER_LANES lanes (--gpu-lanes): a lane runs its batches' copy in,
	 * kernel and copy out in turn, so the link stays busy only while other lanes' copies fill
	 * one lane's kernel, whose budget ladder's last rungs (the hard frames) take longer than
	 * the frames' share; a batch smaller than the persistent kernel's grid leaves threads idle.
	 * Measured on the H100 (FANO_GPU.md): 1 grid x 2 lanes gave 4-bit input 78 % of the link
	 * at whd-k7 6 dB, 4 x 2 96 % but 61 % at 4 dB, 4 x 3 92 % and 84 %, 4 x 4 88 %. The pinned
	 * buffers hold lanes x 2 batches: 2.4 GB of 8-bit input for whd-k7 at 4 x 3. The link's
	 * bare copies of one 8-bit batch over as many lanes in this run: the figure the transfer
	 * rows are a fraction of. */
	struct bench_opts ot = *o;
	const char *ev = getenv("FECD_BENCH_FANO_XFER_GRIDS");
	const int grids = ev && atoi(ev) >= 1 && atoi(ev) <= 8 ? atoi(ev) : FANO_XFER_GRIDS;
	ot.gpu_jobs = gpu_frames(g, &s.d, (unsigned)grids, err, sizeof(err));
	ot.gpu_jobs = ot.gpu_jobs > (1u << 20) ? 1u << 20 : ot.gpu_jobs < 64 ? 64 : ot.gpu_jobs;
	if (!ot.gpu_lanes)
		ot.gpu_lanes = FANO_XFER_LANES;
	progress("fano: %s, host link, bare copies in", what);
	const double link = bench_gpu_copy_in_rate(g, &ot, (size_t)ot.gpu_jobs * s.d.in_stride);
	snprintf(label, sizeof(label),
	         "%s: host link, bare copies in (%u frames' 8-bit input, %u lanes)", what,
	         ot.gpu_jobs, ot.gpu_lanes);
	row = report_row(sec, label);
	if (link > 0)
		row_num(row, "GB/s in", link / 1e9);
	else
		row_str(row, "same as cpu", "failed");
	for (unsigned s4 = 0; s4 < 2; s4++) {
		bool exact = false;
		double ber = 0;

		progress("fano: %s, GPU with transfers, %s input", what, s4 ? "4-bit" : "8-bit");
		const double rate = s4 ? bench_gpu_transfer_rate_s4(g, &ot, &s.d, &exact, &ber)
		                       : bench_gpu_transfer_rate(g, &ot, &s.d, &exact, &ber);

		snprintf(label, sizeof(label), "%s: GPU UFA with transfers, %s input", what,
		         s4 ? "4-bit" : "8-bit");
		row = rate_row(sec, label, rate, exact, true);
		if (rate <= 0)
			continue;
		const double in = rate / s.d.info->frame_info_bits * s.d.in_stride / (s4 ? 2 : 1);

		row_num(row, "GB/s in", in / 1e9);
		if (link > 0)
			row_num(row, "% of link", 100.0 * in / link);
	}
out:
	set_free(&s);
}

static void fano_main(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                      const char *gpu_why)
{
	static const char *const cols[] = {"Gb/s",      "Mb/s",        "median Mb/s", "GB/s in",
	                                   "% of link", "same as cpu", NULL};
	static const char *const vit = "viterbi,k=7,polys=133:171:165,mode=terminated,"
	                               "max_frame_bits=1024";
	cJSON *sec = report_section(r, "fano", cols);

	report_note(sec, "BFA is slower than UFA on nasa-k32: the time-reversed Massey-Costello "
	                 "code has a poor column distance profile, so its backward decoder slows "
	                 "the pair down (codec/fano/NOTES.md)");
	main_rows(sec, o, g, gpu_why, "whd-k7", 6.0, o->short_mode ? NULL : vit);
	if (o->short_mode) {
		report_note(sec, "--short: whd-k7 at 6 dB on the CPU only");
		return;
	}
	main_rows(sec, o, g, gpu_why, "whd-k7", 4.0, vit);
	main_rows(sec, o, g, gpu_why, "nasa-k32", 5.0, NULL);
}

/* ---- Frames and cycles per bit against Eb/N0 */

static void fano_snr(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                     const char *gpu_why)
{
	static const char *const cols[] = {"Eb/N0",
	                                   "frames",
	                                   "UFA cycles/bit",
	                                   "BFA cycles/bit",
	                                   "UFA FER",
	                                   "BFA FER",
	                                   "viterbi FER",
	                                   "UFA GPU Gb/s",
	                                   "BFA GPU Gb/s",
	                                   "viterbi GPU Gb/s",
	                                   "UFA CPU 1 core Mb/s",
	                                   "same as cpu",
	                                   NULL};
	static const char *const codes[][2] = {
	    {"whd-k7", "viterbi,k=7,polys=133:171:165,mode=terminated,max_frame_bits=1024"},
	    {"nasa-k32", NULL}};
	cJSON *sec = report_section(r, "fano_snr", cols);
	const uint32_t nframes = 2048;
	char err[256], text[200];

	if (o->short_mode) {
		report_skip(sec, "--short: the \"fano\" section's CPU rows only");
		return;
	}
	if (!g)
		report_note(sec, "GPU columns skipped: %s", gpu_why);
	report_note(sec,
	            "%u distinct 1024-bit frames per point; cycles/bit and FER from the CPU "
	            "reference (budget: the preset's 1000 cycles per stage); BFA is slower "
	            "than UFA on nasa-k32 (codec/fano/NOTES.md)",
	            nframes);
	for (unsigned c = 0; c < 2; c++)
		for (unsigned e = 2; e <= 6; e++) {
			struct fano_set s, b, v;
			char label[64];
			bool same = true;
			double rate;

			progress("fano_snr: %s at %u dB", codes[c][0], e);
			if (set_build(&s, codes[c][0], nframes, e, o->seed + e, err, sizeof(err)) ||
			    set_reference(&s, o->threads)) {
				report_note(sec, "%s at %u dB: %s", codes[c][0], e, err);
				continue;
			}
			snprintf(label, sizeof(label), "%s %u dB", codes[c][0], e);
			cJSON *row = report_row(sec, label);
			row_num(row, "Eb/N0", e);
			row_num(row, "frames", nframes);
			row_num(row, "UFA cycles/bit", cycles_per_bit(&s));
			row_num(row, "UFA FER", (double)s.frame_errors / nframes);
			uint8_t *out = calloc(nframes, s.d.out_stride);
			rate = out ? bench_cpu_rate(&s.d, 1, 8, o->min_secs / 4, out) : -1.0;
			if (rate > 0)
				row_num(row, "UFA CPU 1 core Mb/s", rate / 1e6);
			same = rate > 0 && !set_mismatches(&s, out);
			free(out);
			if (g && (rate = kernel_row(NULL, o, g, &s, label)) > 0)
				row_num(row, "UFA GPU Gb/s", rate / 1e9);
			same = same && (!g || rate > 0);
			snprintf(text, sizeof(text), "%s,algo=bfa", codes[c][0]);
			if (!set_view(&b, &s, text, err, sizeof(err))) {
				if (!set_reference(&b, o->threads)) {
					row_num(row, "BFA cycles/bit", cycles_per_bit(&b));
					row_num(row, "BFA FER", (double)b.frame_errors / nframes);
					if (g && (rate = kernel_row(NULL, o, g, &b, label)) > 0)
						row_num(row, "BFA GPU Gb/s", rate / 1e9);
					same = same && (!g || rate > 0);
				}
				set_free_view(&b);
			}
			if (codes[c][1] && !set_view(&v, &s, codes[c][1], err, sizeof(err))) {
				if (!set_reference(&v, o->threads)) {
					row_num(row, "viterbi FER",
					        (double)v.frame_errors / nframes);
					if (g && (rate = kernel_row(NULL, o, g, &v, label)) > 0)
						row_num(row, "viterbi GPU Gb/s", rate / 1e9);
					same = same && (!g || rate > 0);
				}
				set_free_view(&v);
			}
			row_str(row, "same as cpu", same ? "yes" : "NO");
			set_free(&s);
		}
}

/* ---- The walker's builds side by side */

static void fano_walkers(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                         const char *gpu_why)
{
	static const char *const cols[] = {"Gb/s", "Mb/s", "same as cpu", NULL};
	static const char *const walkers[] = {"2", "1", "0"};
	static const struct {
		const char *code;
		double ebn0;
	} sets[] = {{"whd-k7", 6.0}, {"whd-k7", 4.0}, {"nasa-k32", 5.0}};
	cJSON *sec = report_section(r, "fano_walkers", cols);
	const char *was = getenv("FECD_FANO_GPU_KERNEL");
	char saved[16], err[256], text[200], label[160];

	if (o->short_mode || !g) {
		report_skip(sec, "%s", o->short_mode ? "--short: GPU rows only" : gpu_why);
		return;
	}
	snprintf(saved, sizeof(saved), "%s", was ? was : "");
	report_note(sec, "8192 distinct 1024-bit frames per code; each row's decoder built with "
	                 "FECD_FANO_GPU_KERNEL set to its walker (cuda/fano/FANO_GPU.md)");
	for (unsigned i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct fano_set s, b;

		progress("fano_walkers: %s at %.0f dB", sets[i].code, sets[i].ebn0);
		if (set_build(&s, sets[i].code, 8192, sets[i].ebn0, o->seed, err, sizeof(err)) ||
		    set_reference(&s, o->threads)) {
			report_note(sec, "%s at %.0f dB: %s", sets[i].code, sets[i].ebn0, err);
			continue;
		}
		snprintf(text, sizeof(text), "%s,algo=bfa", sets[i].code);
		const bool bfa = !set_view(&b, &s, text, err, sizeof(err));
		const bool bfa_ref = bfa && !set_reference(&b, o->threads);

		for (unsigned w = 0; w < sizeof(walkers) / sizeof(walkers[0]); w++) {
			setenv("FECD_FANO_GPU_KERNEL", walkers[w], 1);
			snprintf(label, sizeof(label), "%s %.0f dB: GPU kernel UFA, walker %s",
			         sets[i].code, sets[i].ebn0, walkers[w]);
			kernel_row(sec, o, g, &s, label);
			if (!bfa_ref)
				continue;
			snprintf(label, sizeof(label), "%s %.0f dB: GPU kernel BFA, walker %s",
			         sets[i].code, sets[i].ebn0, walkers[w]);
			kernel_row(sec, o, g, &b, label);
		}
		if (bfa)
			set_free_view(&b);
		set_free(&s);
	}
	if (was)
		setenv("FECD_FANO_GPU_KERNEL", saved, 1);
	else
		unsetenv("FECD_FANO_GPU_KERNEL");
}

void bench_fano_walkers(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	fano_walkers(r, o, c->g, c->gpu_why);
}

void bench_fano(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	fano_main(r, o, c->g, c->gpu_why);
	fano_snr(r, o, c->g, c->gpu_why);
}
