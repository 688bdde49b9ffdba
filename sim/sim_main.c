/*
 * fecd-sim: Monte Carlo bit and frame error rates of any code fecd decodes, over a channel model
 * of the channel table, at a range of Eb/N0 (or Es/N0), with stop rules per point, on the CPU
 * (sim_cpu.c) or the GPU (sim_gpu.c), a live table, and CSV and JSON files. The options are in
 * usage() below and the README ("Simulating codes with fecd-sim"); errors in them name the
 * option and what was expected, and exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"
#include "sim_gpu.h"
#include "sim_out.h"
#include "sim_plot.h"
#include "sim_ref.h"

#define MAX_CODES  16
#define MAX_POINTS 1000

static volatile int stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct opts {
	const char *codes[MAX_CODES];
	unsigned ncodes;
	const char *channel;
	double start, stop, step;
	bool esn0, range_set;
	struct sim_stop rules;
	uint64_t seed;
	enum { BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA } backend;
	unsigned threads;
	bool all_zero, decoder_only;
	uint32_t frame_bits;
	double scale;
	const char *csv, *json, *plot, *codes_dir;
};

/* The help text, laid out as it prints. */
/* clang-format off */
static void usage(FILE *f)
{
	fputs(
	    "usage: fecd-sim --code CODE [--code CODE...] --ebn0 START:STOP:STEP [options]\n"
	    "Monte Carlo bit and frame error rates of fecd's decoders over a simulated channel.\n"
	    "\n"
	    "  --code CODE          a preset (ccsds, dvbs2-1/2), the text form\n"
	    "                       (ccsds,mode=terminated; ldpc,code=regular,n=576,dv=3,dc=6) or a\n"
	    "                       JSON code object ({\"preset\":\"wimax-576\",\"iters\":20}), with\n"
	    "                       decoder parameters as fecd takes them; several --code: several\n"
	    "                       curves, one after the other\n"
	    "  --channel MODEL      the channel table's text form: awgn (default; BPSK, LLR\n"
	    "                       2y/sigma^2), bsid,pi=P,pd=P,ps=P (insertions, deletions and\n"
	    "                       substitutions, then awgn; for ids codes)\n"
	    "  --ebn0 START:STOP:STEP  the points, in dB of Eb/N0 (energy per information bit), or\n"
	    "                       one value; STEP > 0\n"
	    "  --esn0 START:STOP:STEP  the same in Es/N0 (energy per sent code bit)\n"
	    "  --min-fe N           stop a point at N frame errors (default 100; 0: no such rule)\n"
	    "  --max-frames N       stop a point after N frames (default: no limit)\n"
	    "  --seconds S          stop a point after S seconds (default 30; 0: no limit)\n"
	    "                       (min-fe and max-frames stop at the end of the batch of frames,\n"
	    "                       in frame order, with which they are met: the same frames for a\n"
	    "                       seed whatever the threads; seconds lets the batches under way\n"
	    "                       finish and starts no more)\n"
	    "  --seed N             the random numbers' seed (default 1): frame i of point p draws\n"
	    "                       from (N, p, i) alone\n"
	    "  --backend auto|cpu|cuda  auto (default): the GPU where one is present and its\n"
	    "                       simulator takes the code and channel, else the CPU\n"
	    "  --threads N          CPU threads (default: one per core)\n"
	    "  --all-zero           send the all-zero codeword (families that declare it valid:\n"
	    "                       viterbi, ldpc, fano, nbldpc; awgn only)\n"
	    "  --frame-bits N       information bits per frame for codes whose frames vary\n"
	    "                       (viterbi terminated or truncated; default: the longest that\n"
	    "                       fits 1024 bits); other codes keep their own\n"
	    "  --scale X            int8 input: int8 LLR = LLR * X (default: the code's llr_scale,\n"
	    "                       the scale its decoder reads int8 LLRs at; viterbi, which has\n"
	    "                       none: fecd-feed's, mean |LLR| -> 40; CPU only)\n"
	    "  --codes-dir DIR      where code files are read (else $FECD_CODES_DIR, else\n"
	    "                       /usr/share/fecd/codes)\n"
	    "  --csv FILE           write every point as CSV (a header line, a row per point)\n"
	    "  --json FILE          write every curve and point as JSON\n"
	    "  --plot FILE.png      plot the curves with gnuplot\n"
	    "  --decoder-only       before each point, time the decoder alone on the same threads\n"
	    "                       (or device) for --seconds (2 s without it) and print the\n"
	    "                       simulation's speed as a share of it\n"
	    "  -h, --help           this text\n"
	    "\n"
	    "A frame: a frame code's frame (--frame-bits where frames vary); for a stream code\n"
	    "(viterbi mode=stream), one decoder job of decode_len information bits decoded from a\n"
	    "random stream with the head (warm-up) and tail (traceback) symbols the job takes. Errors are counted on\n"
	    "information bits; a frame error is a frame with a wrong bit or a status other than\n"
	    "decoded. Intervals are 95 % Wilson score intervals (the BER's treats bits as\n"
	    "independent: too narrow where errors come in bursts). Exit status: 0 done, 1 a\n"
	    "failure while running, 2 a bad option, 130 stopped by a signal.\n",
	    f);
}
/* clang-format on */

static int bad(const char *opt, const char *expected, const char *got)
{
	fprintf(stderr, "fecd-sim: %s: expected %s, got '%s' (fecd-sim --help)\n", opt, expected,
	        got);
	return -1;
}

static int parse_u64(const char *opt, const char *arg, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!*arg || *arg == '-' || (*out = strtoull(arg, &end, 10), *end) || errno)
		return bad(opt, "a whole number >= 0", arg);
	return 0;
}

static int parse_double(const char *opt, const char *arg, double lo, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (!*arg || *end || errno || !isfinite(*out) || *out < lo)
		return bad(opt, lo == 0 ? "a number >= 0" : "a number", arg);
	return 0;
}

static int parse_range(const char *opt, const char *arg, struct opts *o)
{
	const char *expected = "START:STOP:STEP in dB with STOP >= START and STEP > 0 (or one "
	                       "value)";
	char *end;

	errno = 0;
	o->start = strtod(arg, &end);
	if (end == arg || errno || !isfinite(o->start))
		return bad(opt, expected, arg);
	if (!*end) {
		o->stop = o->start;
		o->step = 1.0;
		return 0;
	}
	if (*end != ':')
		return bad(opt, expected, arg);
	const char *p = end + 1;
	o->stop = strtod(p, &end);
	if (end == p || *end != ':' || !isfinite(o->stop))
		return bad(opt, expected, arg);
	p = end + 1;
	o->step = strtod(p, &end);
	if (end == p || *end || !(o->step > 0) || !isfinite(o->step) || o->stop < o->start)
		return bad(opt, expected, arg);
	if ((o->stop - o->start) / o->step + 1 > MAX_POINTS)
		return bad(opt, "at most 1000 points", arg);
	return 0;
}

enum {
	OPT_CODE = 256,
	OPT_CHANNEL,
	OPT_EBN0,
	OPT_ESN0,
	OPT_MIN_FE,
	OPT_MAX_FRAMES,
	OPT_SECONDS,
	OPT_SEED,
	OPT_BACKEND,
	OPT_THREADS,
	OPT_ALL_ZERO,
	OPT_FRAME_BITS,
	OPT_CODES_DIR,
	OPT_SCALE,
	OPT_CSV,
	OPT_JSON,
	OPT_PLOT,
	OPT_DECODER_ONLY,
};

static const struct option long_opts[] = {
    {"code", 1, 0, OPT_CODE},
    {"channel", 1, 0, OPT_CHANNEL},
    {"ebn0", 1, 0, OPT_EBN0},
    {"esn0", 1, 0, OPT_ESN0},
    {"min-fe", 1, 0, OPT_MIN_FE},
    {"max-frames", 1, 0, OPT_MAX_FRAMES},
    {"seconds", 1, 0, OPT_SECONDS},
    {"seed", 1, 0, OPT_SEED},
    {"backend", 1, 0, OPT_BACKEND},
    {"threads", 1, 0, OPT_THREADS},
    {"all-zero", 0, 0, OPT_ALL_ZERO},
    {"frame-bits", 1, 0, OPT_FRAME_BITS},
    {"codes-dir", 1, 0, OPT_CODES_DIR},
    {"scale", 1, 0, OPT_SCALE},
    {"csv", 1, 0, OPT_CSV},
    {"json", 1, 0, OPT_JSON},
    {"plot", 1, 0, OPT_PLOT},
    {"decoder-only", 0, 0, OPT_DECODER_ONLY},
    {"help", 0, 0, 'h'},
    {0, 0, 0, 0},
};

/* 0, 1 for --help, -1 after a message. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	uint64_t v;
	int c;

	*o = (struct opts){.channel = "awgn", .rules = {.min_fe = 100, .seconds = 30.0}, .seed = 1};
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		const char *arg = optarg, *name = optind > 0 ? argv[optind - 1] : "";

		switch (c) {
		case 'h':
			return 1;
		case OPT_CODE:
			if (o->ncodes == MAX_CODES)
				return bad("--code", "at most 16 codes", arg);
			o->codes[o->ncodes++] = arg;
			break;
		case OPT_CHANNEL:
			o->channel = arg;
			break;
		case OPT_EBN0:
		case OPT_ESN0:
			if (o->range_set)
				return bad(c == OPT_EBN0 ? "--ebn0" : "--esn0",
				           "one of --ebn0 and --esn0, once", arg);
			if (parse_range(c == OPT_EBN0 ? "--ebn0" : "--esn0", arg, o))
				return -1;
			o->esn0 = c == OPT_ESN0;
			o->range_set = true;
			break;
		case OPT_MIN_FE:
			if (parse_u64("--min-fe", arg, &o->rules.min_fe))
				return -1;
			break;
		case OPT_MAX_FRAMES:
			if (parse_u64("--max-frames", arg, &o->rules.max_frames))
				return -1;
			if (!o->rules.max_frames)
				return bad("--max-frames", "a number of frames >= 1", arg);
			break;
		case OPT_SECONDS:
			if (parse_double("--seconds", arg, 0, &o->rules.seconds))
				return -1;
			break;
		case OPT_SEED:
			if (parse_u64("--seed", arg, &o->seed))
				return -1;
			break;
		case OPT_BACKEND:
			if (!strcmp(arg, "auto"))
				o->backend = BACKEND_AUTO;
			else if (!strcmp(arg, "cpu"))
				o->backend = BACKEND_CPU;
			else if (!strcmp(arg, "cuda"))
				o->backend = BACKEND_CUDA;
			else
				return bad("--backend", "auto, cpu or cuda", arg);
			break;
		case OPT_THREADS:
			if (parse_u64("--threads", arg, &v))
				return -1;
			if (v < 1 || v > 1024)
				return bad("--threads", "a number of threads in 1..1024", arg);
			o->threads = (unsigned)v;
			break;
		case OPT_ALL_ZERO:
			o->all_zero = true;
			break;
		case OPT_SCALE:
			if (parse_double("--scale", arg, 0, &o->scale))
				return -1;
			if (!(o->scale > 0) || o->scale > 1e6)
				return bad("--scale", "a number > 0", arg);
			break;
		case OPT_FRAME_BITS:
			if (parse_u64("--frame-bits", arg, &v))
				return -1;
			if (v < 1 || v > (1u << 24))
				return bad("--frame-bits", "a number of bits in 1..16777216", arg);
			o->frame_bits = (uint32_t)v;
			break;
		case OPT_CODES_DIR:
			o->codes_dir = arg;
			break;
		case OPT_CSV:
			o->csv = arg;
			break;
		case OPT_JSON:
			o->json = arg;
			break;
		case OPT_PLOT:
			o->plot = arg;
			break;
		case OPT_DECODER_ONLY:
			o->decoder_only = true;
			break;
		case ':':
			fprintf(stderr, "fecd-sim: %s: expected a value (fecd-sim --help)\n", name);
			return -1;
		default:
			fprintf(stderr, "fecd-sim: unknown option '%s' (fecd-sim --help)\n", name);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fecd-sim: unexpected argument '%s' (fecd-sim --help)\n",
		        argv[optind]);
		return -1;
	}
	if (!o->ncodes) {
		fprintf(stderr, "fecd-sim: --code: expected at least one code (fecd-sim --help)\n");
		return -1;
	}
	if (!o->range_set) {
		fprintf(stderr, "fecd-sim: --ebn0: expected the points, START:STOP:STEP or one "
		                "value (or --esn0) (fecd-sim --help)\n");
		return -1;
	}
	if (!o->rules.min_fe && !o->rules.max_frames && !(o->rules.seconds > 0)) {
		fprintf(stderr, "fecd-sim: --min-fe 0 --seconds 0: expected a stop rule; give "
		                "--max-frames N, or a number of frame errors or seconds\n");
		return -1;
	}
	if (o->plot && (strlen(o->plot) < 5 || strcmp(o->plot + strlen(o->plot) - 4, ".png")))
		return bad("--plot", "a file name ending in .png", o->plot);

	return 0;
}

#ifndef FECD_SIM_GPU
/* Built without the GPU engine: the CPU runs everything, and --backend cuda says why not. */
bool sim_gpu_usable(const struct sim_code *code, char *why, size_t whylen)
{
	(void)code;
	snprintf(why, whylen,
	         "this fecd-sim was built without the GPU engine (the CUDA backend "
	         "with its simulator)");
	return false;
}
#endif

/* What the progress callback redraws. */
struct live {
	struct sim_row row;
	bool tty;
};

static void on_progress(void *arg, const struct sim_tally *t, double secs)
{
	struct live *l = arg;

	if (!l->tty)
		return;
	l->row.res.t = *t;
	l->row.res.secs = secs;
	sim_row_finish(&l->row);
	sim_table_progress(stdout, &l->row);
}

/* One code's curve, on the backend chosen; 0, or 1 after a message (a failure while running). */
static int run_curve(const struct opts *o, struct sim_code *code, struct sim_curve *curve)
{
	struct sim_cpu *cpu = NULL;
#ifdef FECD_SIM_GPU
	struct sim_gpu *gpu = NULL;
#endif
	char err[512], why[256] = "";
	unsigned npoints = (unsigned)floor((o->stop - o->start) / o->step + 1e-9) + 1;
	int rc = 0;

	code->scale = (float)o->scale;
	bool on_gpu =
	    o->backend != BACKEND_CPU && !(o->scale > 0) && sim_gpu_usable(code, why, sizeof(why));
	if (o->backend == BACKEND_CUDA && o->scale > 0) {
		fprintf(stderr,
		        "fecd-sim: --scale: the GPU engine takes fecd-feed's automatic scale "
		        "alone (--backend cpu, or no --scale)\n");
		return 2;
	}
	if (o->backend == BACKEND_CUDA && !on_gpu) {
		fprintf(stderr, "fecd-sim: --backend cuda: %s\n", why);
		return 2;
	}
#ifdef FECD_SIM_GPU
	if (on_gpu && sim_gpu_open(code, &gpu, err, sizeof(err))) {
		if (o->backend == BACKEND_CUDA) {
			fprintf(stderr, "fecd-sim: --backend cuda: %s\n", err);
			return 1;
		}
		snprintf(why, sizeof(why), "the GPU did not start (%.200s)", err);
		on_gpu = false;
	}
#endif
	if (!on_gpu && sim_cpu_open(code, o->threads, &cpu, err, sizeof(err))) {
		fprintf(stderr, "fecd-sim: %s\n", err);
		return 1;
	}
	curve->code = code;
	curve->backend = on_gpu ? "cuda" : "cpu";
	curve->threads = on_gpu ? 0 : sim_cpu_threads(cpu);
	curve->batch = on_gpu ? 0 : sim_cpu_batch_frames(cpu);
	curve->rows = calloc(npoints, sizeof(*curve->rows));
	if (!curve->rows) {
		fprintf(stderr, "fecd-sim: out of memory\n");
		rc = 1;
		goto out;
	}
#ifdef FECD_SIM_GPU
	if (on_gpu) {
		snprintf(why, sizeof(why), "device %s", sim_gpu_device_name(gpu));
		curve->batch = (uint32_t)sim_gpu_batch_frames(gpu);
	}
#endif
	sim_table_heading(stdout, curve, o->seed,
	                  o->backend == BACKEND_AUTO || on_gpu ? why : NULL);
	for (unsigned p = 0; p < npoints && !stop_flag; p++) {
		double db = o->start + p * o->step;
		struct live l = {.tty = isatty(STDOUT_FILENO)};
		struct sim_row *row = &curve->rows[p];

		row->ebn0_db = o->esn0 ? sim_esn0_to_ebn0(db, code->rate) : db;
		row->esn0_db = o->esn0 ? db : row->ebn0_db + 10.0 * log10(code->rate);
		l.row = *row;
		double alone = 0.0, alone_cpu = 0.0;
#ifdef FECD_SIM_GPU
		if (o->decoder_only && on_gpu &&
		    sim_gpu_decoder_only(gpu, row->ebn0_db, o->seed,
		                         o->rules.seconds > 0 ? o->rules.seconds : 2.0, &alone, err,
		                         sizeof(err))) {
			fprintf(stderr, "fecd-sim: %s\n", err);
			rc = 1;
			break;
		}
#endif
		if (o->decoder_only && !on_gpu &&
		    sim_cpu_decoder_only(cpu, row->ebn0_db, o->seed,
		                         o->rules.seconds > 0 ? o->rules.seconds : 2.0, &alone,
		                         &alone_cpu, err, sizeof(err))) {
			fprintf(stderr, "fecd-sim: %s\n", err);
			rc = 1;
			break;
		}
#ifdef FECD_SIM_GPU
		if (on_gpu)
			rc = sim_gpu_run(gpu, row->ebn0_db, o->seed, p, &o->rules, &stop_flag,
			                 on_progress, &l, &row->res, err, sizeof(err));
		else
#endif
			rc = sim_cpu_run(cpu, row->ebn0_db, o->seed, p, &o->rules, &stop_flag,
			                 on_progress, &l, &row->res, err, sizeof(err));
		if (rc) {
			if (l.tty)
				fputc('\n', stdout);
			fprintf(stderr, "fecd-sim: %s at Eb/N0 %.2f dB: %s\n", code->text,
			        row->ebn0_db, err);
			rc = 1;
			break;
		}
		sim_row_finish(row);
		curve->nrows = p + 1;
		sim_table_row(stdout, row, l.tty);
		if (o->decoder_only && on_gpu)
			printf(
			    "# decoder alone on the device: %.3f Gb/s; the simulation: %.3f Gb/s, "
			    "%.0f %% of it\n",
			    alone * 1e-9, row->info_gbps, 100.0 * row->info_gbps / (alone * 1e-9));
		if (o->decoder_only && !on_gpu) {
			double sim_cpu = (double)row->res.t.bits / fmax(row->res.cpu_secs, 1e-9);

			printf(
			    "# decoder alone: %.4f Gb/s on %u threads, %.4f Gb/s per CPU-second; "
			    "the simulation: %.4f Gb/s, %.4f per CPU-second: %.0f %% of the "
			    "decoder alone (decoding %.0f %% of its CPU time)\n",
			    alone * 1e-9, curve->threads, alone_cpu * 1e-9, row->info_gbps,
			    sim_cpu * 1e-9, 100.0 * sim_cpu / alone_cpu,
			    100.0 * row->res.decode_secs / fmax(row->res.cpu_secs, 1e-9));
		}
	}
out:
	if (cpu)
		sim_cpu_close(cpu);
#ifdef FECD_SIM_GPU
	if (gpu)
		sim_gpu_close(gpu);
#endif
	return rc;
}

#define MAX_REFS 24
/* --plot: the curves with the reference lines of each code (uncoded BPSK, a convolutional
 * code's union bound, the Shannon limit for its rate; over awgn only), through gnuplot. */
static int plot(const struct opts *o, const struct sim_curve *curves, unsigned n, char *err,
                size_t errlen)
{
	struct sim_plot_curve pc[MAX_CODES] = {0};
	struct sim_plot_point *pts[MAX_CODES] = {0};
	static struct sim_ref_line refs[MAX_REFS];
	unsigned nrefs = 0;
	double lo = INFINITY, hi = -INFINITY;
	bool awgn;
	int rc = 0;

	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < curves[i].nrows; j++) {
			lo = fmin(lo, curves[i].rows[j].ebn0_db);
			hi = fmax(hi, curves[i].rows[j].ebn0_db);
		}
	if (!(lo <= hi)) {
		snprintf(err, errlen, "--plot %s: no point was simulated", o->plot);
		return -1;
	}
	awgn = !o->channel ||
	       (!strncmp(o->channel, "awgn", 4) && (o->channel[4] == '\0' || o->channel[4] == ','));
	for (unsigned i = 0; i < n && !rc; i++) {
		const struct sim_curve *c = &curves[i];
		unsigned got = 0;

		pts[i] = calloc(c->nrows ? c->nrows : 1, sizeof(*pts[i]));
		if (!pts[i]) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
			break;
		}
		for (unsigned j = 0; j < c->nrows; j++) {
			const struct sim_row *r = &c->rows[j];

			pts[i][j] = (struct sim_plot_point){
			    r->ebn0_db, r->ber, r->ber_lo, r->ber_hi, r->fer, r->fer_lo, r->fer_hi};
		}
		pc[i] = (struct sim_plot_curve){c->code->text, pts[i], c->nrows};
		/* BPSK once, then each code's own lines; they are BPSK over AWGN's, so another
		 * channel (bsid) gets none */
		if (nrefs < MAX_REFS && awgn &&
		    sim_ref_for_spec(&c->code->spec, c->code->text,
		                     (i ? 0 : SIM_REF_BPSK) | SIM_REF_UNION | SIM_REF_SHANNON,
		                     lo - 1, hi + 1, refs + nrefs, MAX_REFS - nrefs, &got, err,
		                     errlen))
			rc = -1;
		nrefs += got;
	}
	if (!rc) {
		char msg[512], title[160];
		/* the title says what the legend does not: the channel and the seed */
		const struct sim_plot p = {
		    .title = title, .curves = pc, .ncurves = n, .refs = refs, .nrefs = nrefs};

		snprintf(title, sizeof(title), "fecd-sim: %s, seed %llu",
		         o->channel ? o->channel : "awgn", (unsigned long long)o->seed);

		if (sim_plot_render(&p, o->plot, msg, sizeof(msg))) {
			snprintf(err, errlen, "--plot %s: %s", o->plot, msg);
			rc = -1;
		}
	}
	for (unsigned i = 0; i < n; i++)
		free(pts[i]);
	return rc;
}

int main(int argc, char **argv)
{
	struct sim_code codes[MAX_CODES];
	struct sim_curve curves[MAX_CODES] = {0};
	struct opts o;
	char err[1536];
	unsigned opened = 0, ran = 0;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc) {
		if (rc > 0)
			usage(stdout);
		return rc > 0 ? 0 : 2;
	}
	if (o.codes_dir)
		fec_codes_dir_set(o.codes_dir);
	/* every code is built before anything runs, so that a bad one fails at once */
	for (; opened < o.ncodes; opened++) {
		if (sim_code_open(&codes[opened], o.codes[opened], o.channel, o.all_zero,
		                  o.frame_bits, err, sizeof(err))) {
			fprintf(stderr, "fecd-sim: --code: %s\n", err);
			rc = 2;
			goto out;
		}
	}
	bool varying = false;
	for (unsigned i = 0; i < opened; i++)
		varying |= codes[i].frames_vary;
	if (o.frame_bits && !varying) {
		fprintf(stderr, "fecd-sim: --frame-bits: none of the codes has frames that vary (a "
		                "stream code's frame is one decoder job of decode_len bits; other "
		                "frame codes have their own length)\n");
		rc = 2;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (; ran < o.ncodes && !stop_flag && !rc; ran++) {
		rc = run_curve(&o, &codes[ran], &curves[ran]);
		if (ran + 1 < o.ncodes)
			putchar('\n');
	}
	if (o.csv && sim_write_csv(o.csv, curves, ran, o.seed, err, sizeof(err))) {
		fprintf(stderr, "fecd-sim: %s\n", err);
		rc = rc ? rc : 1;
	}
	if (o.json && sim_write_json(o.json, curves, ran, o.seed, err, sizeof(err))) {
		fprintf(stderr, "fecd-sim: %s\n", err);
		rc = rc ? rc : 1;
	}
	if (o.plot && ran && plot(&o, curves, ran, err, sizeof(err))) {
		fprintf(stderr, "fecd-sim: %s\n", err);
		rc = rc ? rc : 1;
	}
	if (!rc && stop_flag)
		rc = 130;
out:
	for (unsigned i = 0; i < o.ncodes; i++)
		free(curves[i].rows);
	for (unsigned i = 0; i < opened; i++)
		sim_code_close(&codes[i]);
	return rc;
}
