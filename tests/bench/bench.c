/*
 * fecd-bench: one command, one run, one machine. Builds one seeded data set (CCSDS K=7 r=1/2,
 * 8-bit soft, stream mode) and measures every decoder fecd has on it, beside libfec and GNU Radio
 * where they are installed, then the running daemon over ZeroMQ against a bare ZeroMQ link, the
 * latency at a set input rate, and the sweeps over K and the batch size. Prints a table on stdout,
 * writes the same figures as JSON (--json PATH), and shows progress on stderr. A section that
 * cannot run on this machine says why in one line. --short is the CI form: small sizes, CPU only.
 *
 * This file: options, the machine's description, the report (a cJSON tree) and its table.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#ifndef FECD_VERSION
#define FECD_VERSION "unknown"
#endif

static double t_start;

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void progress(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[%7.1fs] ", bench_now() - t_start);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- Report */

/* The title of report entry `name` (BENCH_REPORT_MAP); the name itself for one not there, which
 * check_bench_json then refuses. */
static const char *report_title(const char *name)
{
#define X(section, json, title, ci) {json, title},
	static const struct {
		const char *name, *title;
	} entries[] = {BENCH_REPORT_MAP(X)};
#undef X

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(entries[i].name, name))
			return entries[i].title;
	return name;
}

cJSON *report_section(struct bench_report *r, const char *name, const char *const *columns)
{
	cJSON *sec = cJSON_CreateObject(), *cols = cJSON_AddArrayToObject(sec, "columns");
	const char *title = report_title(name);

	cJSON_AddStringToObject(sec, "name", name);
	cJSON_AddStringToObject(sec, "title", title);
	cJSON_AddNullToObject(sec, "skipped");
	for (unsigned i = 0; columns && columns[i]; i++)
		cJSON_AddItemToArray(cols, cJSON_CreateString(columns[i]));
	cJSON_AddArrayToObject(sec, "notes");
	cJSON_AddArrayToObject(sec, "rows");
	cJSON_AddItemToArray(r->sections, sec);
	return sec;
}

static void vset(cJSON *sec, bool skip, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (skip)
		cJSON_ReplaceItemInObject(sec, "skipped", cJSON_CreateString(buf));
	else
		cJSON_AddItemToArray(cJSON_GetObjectItem(sec, "notes"), cJSON_CreateString(buf));
	progress("%s: %s%s", cJSON_GetObjectItem(sec, "name")->valuestring, skip ? "skipped: " : "",
	         buf);
}

void report_skip(cJSON *sec, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(sec, true, fmt, ap);
	va_end(ap);
}

void report_note(cJSON *sec, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(sec, false, fmt, ap);
	va_end(ap);
}

cJSON *report_row(cJSON *sec, const char *label)
{
	cJSON *row = cJSON_CreateObject();

	cJSON_AddStringToObject(row, "label", label);
	cJSON_AddItemToArray(cJSON_GetObjectItem(sec, "rows"), row);
	return row;
}

void row_num(cJSON *row, const char *col, double v)
{
	cJSON_AddNumberToObject(row, col, isfinite(v) ? v : 0.0);
}

void row_str(cJSON *row, const char *col, const char *v)
{
	cJSON_AddStringToObject(row, col, v);
}

const char *const report_seed_columns[] = {"iters",   "CPU fr/s",     "GPU fr/s",
                                           "speedup", "seed speedup", NULL};

void report_seed_row(cJSON *section, const char *label, unsigned iters, double cpu, double gpu,
                     double frame_bits, double seed_speedup)
{
	cJSON *row = report_row(section, label);

	row_num(row, "iters", iters);
	if (cpu > 0)
		row_num(row, "CPU fr/s", cpu / frame_bits);
	if (gpu > 0)
		row_num(row, "GPU fr/s", gpu / frame_bits);
	if (cpu > 0 && gpu > 0)
		row_num(row, "speedup", gpu / cpu);
	row_num(row, "seed speedup", seed_speedup);
}

static void print_value(const char *col, const cJSON *v, int width)
{
	char buf[64] = "-";

	if (cJSON_IsString(v))
		snprintf(buf, sizeof(buf), "%s", v->valuestring);
	else if (cJSON_IsNumber(v) && strstr(col, "BER"))
		snprintf(buf, sizeof(buf), "%.2e", v->valuedouble);
	else if (cJSON_IsNumber(v) && fabs(v->valuedouble) >= 1000)
		snprintf(buf, sizeof(buf), "%.0f", v->valuedouble);
	else if (cJSON_IsNumber(v))
		snprintf(buf, sizeof(buf), "%.4g", v->valuedouble);
	printf(" %*s", width, buf);
}

static void print_section(const cJSON *sec)
{
	const cJSON *cols = cJSON_GetObjectItem(sec, "columns"), *c, *row, *n;
	const cJSON *skipped = cJSON_GetObjectItem(sec, "skipped");

	printf("\n== %s\n", cJSON_GetObjectItem(sec, "title")->valuestring);
	cJSON_ArrayForEach(n, cJSON_GetObjectItem(sec, "notes")) printf("   %s\n", n->valuestring);
	if (cJSON_IsString(skipped)) {
		printf("   skipped: %s\n", skipped->valuestring);
		return;
	}
	printf("   %-28s", "");
	cJSON_ArrayForEach(c, cols)
	    printf(" %*s", (int)(strlen(c->valuestring) < 10 ? 10 : strlen(c->valuestring)),
	           c->valuestring);
	printf("\n");
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(sec, "rows"))
	{
		printf("   %-28s", cJSON_GetObjectItem(row, "label")->valuestring);
		cJSON_ArrayForEach(c, cols)
		{
			int w = strlen(c->valuestring) < 10 ? 10 : (int)strlen(c->valuestring);

			print_value(c->valuestring, cJSON_GetObjectItem(row, c->valuestring), w);
		}
		printf("\n");
	}
}

/* ---- Machine */

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(buf, len, "%s", colon + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

static void describe_machine(struct bench_report *r, const struct bench_opts *o,
                             struct bench_gpu *g, const struct bench_data *d)
{
	cJSON *m = cJSON_AddObjectToObject(r->root, "machine");
	char cpu[256], host[128] = "";

	cpu_model(cpu, sizeof(cpu));
	gethostname(host, sizeof(host) - 1);
	cJSON_AddStringToObject(m, "host", host);
	cJSON_AddStringToObject(m, "cpu", cpu);
	cJSON_AddNumberToObject(m, "cores", (double)sysconf(_SC_NPROCESSORS_ONLN));
	cJSON_AddStringToObject(m, "fecd_version", FECD_VERSION);
	cJSON_AddStringToObject(m, "simd", bench_simd_level());
	if (g)
		bench_gpu_machine(g, m);
	cJSON *geo = cJSON_AddObjectToObject(r->root, "geometry");
	cJSON_AddStringToObject(geo, "code", d->code_text);
	bench_data_geometry(d, geo);
	cJSON_AddNumberToObject(geo, "bits", (double)d->nbits);
	cJSON_AddNumberToObject(geo, "jobs", d->njobs);
	cJSON_AddNumberToObject(geo, "ebn0_db", o->ebn0);
	cJSON_AddNumberToObject(geo, "seed", (double)o->seed);
	cJSON_AddNumberToObject(geo, "cpu_jobs_per_batch", o->cpu_jobs);
	cJSON_AddNumberToObject(geo, "gpu_jobs_per_batch", o->gpu_jobs);
	cJSON_AddStringToObject(r->root, "mode", o->short_mode ? "short" : "full");
}

static void print_header(const cJSON *root)
{
	const cJSON *m = cJSON_GetObjectItem(root, "machine"), *geo, *it;

	printf("fecd-bench (%s)\n", cJSON_GetObjectItem(root, "mode")->valuestring);
	cJSON_ArrayForEach(it, m)
	{
		if (cJSON_IsString(it))
			printf("   %-14s %s\n", it->string, it->valuestring);
		else if (cJSON_IsNumber(it))
			printf("   %-14s %.0f\n", it->string, it->valuedouble);
	}
	geo = cJSON_GetObjectItem(root, "geometry");
	printf("   %-14s %s: D=%d L=%d M=%d, %.0f bits in %d jobs, Eb/N0 %.1f dB, 8-bit soft\n",
	       "data", cJSON_GetObjectItem(geo, "code")->valuestring,
	       cJSON_GetObjectItem(geo, "decode_len")->valueint,
	       cJSON_GetObjectItem(geo, "traceback_len")->valueint,
	       cJSON_GetObjectItem(geo, "head_len")->valueint,
	       cJSON_GetObjectItem(geo, "bits")->valuedouble,
	       cJSON_GetObjectItem(geo, "jobs")->valueint,
	       cJSON_GetObjectItem(geo, "ebn0_db")->valuedouble);
}

static void print_gpu(const cJSON *root)
{
	const cJSON *gpu = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "machine"), "gpu");
	const cJSON *it;

	if (!gpu)
		return;
	printf("   %-14s", "gpu");
	cJSON_ArrayForEach(it, gpu)
	{
		if (cJSON_IsString(it))
			printf(" %s=%s", it->string, it->valuestring);
		else if (cJSON_IsNumber(it))
			printf(" %s=%.0f", it->string, it->valuedouble);
	}
	printf("\n");
}

/* ---- Sections */

static const struct {
	const char *name, *family;
	bench_section_fn *run;
	unsigned flags;
} sections[] = {
#define X(name, family, fn, flags) {#name, family, fn, flags},
    BENCH_SECTION_MAP(X)
#undef X
};
#define NSECTIONS (unsigned)(sizeof(sections) / sizeof(sections[0]))

static bool section_asked(const struct bench_opts *o, const char *name)
{
	for (unsigned i = 0; i < NSECTIONS; i++)
		if (!strcmp(sections[i].name, name))
			return o->sections & (1u << i);
	return false;
}

static int write_json(const struct bench_report *r, const char *path);

/* Prints the report entries from the first'th on; returns how many there are now. */
static int print_from(const struct bench_report *r, int first)
{
	const int n = cJSON_GetArraySize(r->sections);

	for (int k = first; k < n; k++)
		print_section(cJSON_GetArrayItem(r->sections, k));
	fflush(stdout);
	return n;
}

/* Runs the sections asked for, in the table's order; the report entries of the others say they
 * were not asked for. The GPU context closes before the first section that starts the daemon.
 * Each section's tables are printed, and the JSON written, as soon as it ends, so that a run
 * stopped early (a time limit on a lent machine) keeps what it measured. */
static void run_sections(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	int printed = 0;

	c->had_gpu = c->g != NULL;
	for (unsigned i = 0; i < NSECTIONS; i++) {
		printed = print_from(r, printed);
		if (!(o->sections & (1u << i))) {
			static const char *const none[] = {NULL};
#define X(section, json, title, ci)                                                                \
	if (!strcmp(#section, sections[i].name))                                                   \
		report_skip(report_section(r, json, none),                                         \
		            "not asked for (--only, --family, --no-...)");
			BENCH_REPORT_MAP(X)
#undef X
			continue;
		}
		if (sections[i].flags & BENCH_DAEMON && c->g) {
			bench_gpu_close(c->g); /* the daemon opens the GPU itself */
			c->g = NULL;
			c->gpu_why = "closed for the daemon's sections";
		}
		sections[i].run(r, o, c);
		if (o->json_path)
			write_json(r, o->json_path);
	}
	print_from(r, printed);
	bench_gpu_close(c->g);
	c->g = NULL;
}

/* ---- Options */

static void usage(FILE *f)
{
	fprintf(
	    f, "usage: fecd-bench [options]\n"
	       "  --short            CI form: small sizes, CPU only (about half a minute)\n"
	       "  --json PATH        also write the figures as JSON\n"
	       "  --bits N           information bits of the data set (default 2^25; short 2^20)\n"
	       "  --seed N, --ebn0 DB   data seed (1) and Eb/N0 (4 dB)\n"
	       "  --decode-len D     decoded bits per block (default 2048)\n"
	       "  --traceback L      traceback and warm-up stages (default 42 = 6K)\n"
	       "  --threads N        threads for 'all cores' (default: online cores)\n"
	       "  --min-secs S       each timed figure runs at least S seconds (1; short 0.2)\n"
	       "  --cpu-jobs N, --gpu-jobs N   jobs per batch (64; 65536: the GPU runs one\n"
	       "                               job per thread and needs tens of thousands)\n"
	       "  --gpu-lanes N      lanes for the overlapped GPU runs (default: the device's)\n"
	       "  --e2e-bits N       bits per connection through the daemon (default: sized from\n"
	       "                     the decoder's speed)\n"
	       "  --latency-rate R   input rate of the latency run, information bits/s\n"
	       "  --port P           first of the loopback TCP ports used (default 27300)\n"
	       "  --loop-threads N   fecd's loop_threads in the end-to-end runs (default: fecd's)\n"
	       "  --codes-dir DIR    LDPC matrices (default: $FECD_CODES_DIR)\n"
	       "  --only LIST        only these sections (comma-separated; e2e with latency)\n"
	       "  --family NAME      only that decoder family's sections\n"
	       "  --ldpc-only        the same as --family ldpc\n"
	       "  --no-gpu, --no-e2e, --no-anchors   leave those sections out (--no-gpu: the\n"
	       "                     GPU is not opened, so the daemon's cuda runs go too)\n");
	fprintf(f, "sections (family):");
	for (unsigned i = 0; i < NSECTIONS; i++)
		fprintf(f, " %s (%s)%s", sections[i].name,
		        sections[i].family ? sections[i].family : "fecd",
		        i + 1 < NSECTIONS ? "," : "\n");
}

/* Bit i of a section set: section i of BENCH_SECTION_MAP. --only's list of names into such a
 * set; -1 with a message for an unknown name. */
static int parse_sections(const char *list, unsigned *out)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	*out = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned i = 0;

		while (i < NSECTIONS && strcmp(sections[i].name, t))
			i++;
		if (i == NSECTIONS) {
			fprintf(stderr, "fecd-bench: --only: unknown section \"%s\" (see --help)\n",
			        t);
			return -1;
		}
		*out |= 1u << i;
	}
	return 0;
}

/* --family's sections; -1 with a message for a family that has none. */
static int family_sections(const char *family, unsigned *out)
{
	*out = 0;
	for (unsigned i = 0; i < NSECTIONS; i++)
		if (sections[i].family && !strcmp(sections[i].family, family))
			*out |= 1u << i;
	if (!*out) {
		fprintf(stderr, "fecd-bench: --family: no sections for \"%s\" (see --help)\n",
		        family);
		return -1;
	}
	return 0;
}

/* 0: run; 1: --help was printed; -1: bad arguments (said on stderr). */
static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	static const struct option opts[] = {
	    {"short", 0, 0, 's'},        {"json", 1, 0, 'j'},         {"bits", 1, 0, 'b'},
	    {"seed", 1, 0, 'S'},         {"ebn0", 1, 0, 'e'},         {"decode-len", 1, 0, 'D'},
	    {"traceback", 1, 0, 'L'},    {"threads", 1, 0, 't'},      {"min-secs", 1, 0, 'm'},
	    {"cpu-jobs", 1, 0, 'c'},     {"gpu-jobs", 1, 0, 'g'},     {"gpu-lanes", 1, 0, 'l'},
	    {"e2e-bits", 1, 0, 'E'},     {"latency-rate", 1, 0, 'r'}, {"port", 1, 0, 'p'},
	    {"no-gpu", 0, 0, 'G'},       {"no-e2e", 0, 0, 'N'},       {"no-anchors", 0, 0, 'A'},
	    {"loop-threads", 1, 0, 'T'}, {"help", 0, 0, 'h'},         {"codes-dir", 1, 0, 'C'},
	    {"ldpc-only", 0, 0, 'O'},    {"only", 1, 0, 'Y'},         {"family", 1, 0, 'F'},
	    {0, 0, 0, 0}};
	unsigned only = ~0u, family = ~0u, left_out = 0, mask;
	bool bits_set = false, secs_set = false;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int c;

	*o = (struct bench_opts){.seed = 1,
	                         .ebn0 = 4.0,
	                         .decode_len = 2048,
	                         .traceback_len = 42,
	                         .cpu_jobs = 64,
	                         .gpu_jobs = 65536,
	                         .port = 27300,
	                         .loop_threads = -1,
	                         .threads = cores > 0 ? (unsigned)cores : 1};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->short_mode = true;
			break;
		case 'j':
			o->json_path = optarg;
			break;
		case 'b':
			o->bits = strtoull(optarg, NULL, 0);
			bits_set = true;
			break;
		case 'S':
			o->seed = strtoull(optarg, NULL, 0);
			break;
		case 'e':
			o->ebn0 = atof(optarg);
			break;
		case 'D':
			o->decode_len = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'L':
			o->traceback_len = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 't':
			o->threads = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			o->min_secs = atof(optarg);
			secs_set = true;
			break;
		case 'c':
			o->cpu_jobs = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'g':
			o->gpu_jobs = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'l':
			o->gpu_lanes = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'E':
			o->e2e_bits = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			o->lat_rate = atof(optarg);
			break;
		case 'p':
			o->port = atoi(optarg);
			break;
		case 'T':
			o->loop_threads = atoi(optarg);
			break;
		case 'C':
			o->codes_dir = optarg;
			break;
		case 'O': /* kept for the scripts that use it */
			if (family_sections("ldpc", &family))
				return -1;
			break;
		case 'F':
			if (family_sections(optarg, &family))
				return -1;
			break;
		case 'Y':
			if (parse_sections(optarg, &only))
				return -1;
			break;
		case 'G':
			o->no_gpu = true;
			break;
		case 'N':
			if (parse_sections("e2e", &mask))
				return -1;
			left_out |= mask;
			break;
		case 'A':
			if (parse_sections("anchors", &mask))
				return -1;
			left_out |= mask;
			break;
		case 'h':
			usage(stdout);
			return 1; /* done: main exits 0 */
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc || !o->decode_len || !o->traceback_len || !o->threads ||
	    o->threads > 256 || !o->cpu_jobs || !o->gpu_jobs || o->port <= 0 || o->port > 65000) {
		fprintf(stderr, "fecd-bench: bad arguments (see --help)\n");
		return -1;
	}
	o->sections = only & family & ~left_out;
	if (o->short_mode)
		o->no_gpu = true;
	/* the main data set at full size only where a section measures it */
	bool main_data = false;
	for (unsigned i = 0; i < NSECTIONS; i++)
		if (o->sections & (1u << i) && sections[i].flags & BENCH_MAIN_DATA)
			main_data = true;
	if (!bits_set)
		o->bits = o->short_mode || !main_data ? (1u << 20) : (1u << 25);
	if (!secs_set)
		o->min_secs = o->short_mode ? 0.2 : 1.0;
	return 0;
}

/* fecd, fecd-feed and fecd-sink are installed beside fecd-bench (build/bin, /usr/bin). */
static char *exe_dir(void)
{
	static char dir[4096];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

	if (n <= 0)
		return ".";
	dir[n] = '\0';
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return dir;
}

static int write_json(const struct bench_report *r, const char *path)
{
	char *text = cJSON_Print(r->root);
	FILE *f = text ? fopen(path, "w") : NULL;
	int rc = -1;

	if (f && fputs(text, f) >= 0 && fputc('\n', f) != EOF)
		rc = 0;
	if (f && fclose(f))
		rc = -1;
	if (rc)
		fprintf(stderr, "fecd-bench: cannot write %s\n", path);
	cJSON_free(text);
	return rc;
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	struct bench_report r;
	struct bench_data d;
	struct bench_gpu *g = NULL;
	char code[160], err[256], gpu_why[256] = "disabled (--no-gpu or --short)";
	int rc = 1;

	t_start = bench_now();
	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 2;
	rc = 1;
	o.bindir = exe_dir();
	r.root = cJSON_CreateObject();
	r.sections = cJSON_AddArrayToObject(r.root, "sections");
	snprintf(code, sizeof(code), "ccsds,mode=stream,decode_len=%u,traceback_len=%u,head_len=%u",
	         o.decode_len, o.traceback_len, o.traceback_len);
	progress("data: %s, %llu bits at Eb/N0 %.1f dB", code, (unsigned long long)o.bits, o.ebn0);
	if (bench_data_build(&d, code, o.bits, o.seed, o.ebn0, err, sizeof(err))) {
		fprintf(stderr, "fecd-bench: %s\n", err);
		goto out_json;
	}
	/* Sections compare their output with the CPU decoder's (d.ref), which the cpu section makes
	 * as it measures; without that section, one untimed decode on all cores makes it. */
	if (!section_asked(&o, "cpu") && bench_cpu_rate(&d, o.threads, o.cpu_jobs, 0.0, d.ref) < 0) {
		fprintf(stderr, "fecd-bench: the CPU reference decode failed\n");
		goto out_data;
	}
	if (!o.no_gpu)
		g = bench_gpu_open(&o, gpu_why, sizeof(gpu_why));
	describe_machine(&r, &o, g, &d);
	print_header(r.root);
	print_gpu(r.root);
	run_sections(&r, &o, &(struct bench_ctx){.d = &d, .g = g, .gpu_why = gpu_why});
	progress("done");
	rc = 0;
out_data:
	bench_data_free(&d);
out_json:
	if (o.json_path && write_json(&r, o.json_path))
		rc = 1;
	cJSON_Delete(r.root);
	return rc;
}
