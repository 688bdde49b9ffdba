/*
 * fecd-bench's sweeps: throughput against the constraint length (K = 3..9, rate 1/2, each K with
 * a good known code of that length and traceback 6K) and against the batch size (jobs per
 * batch), for the CPU decoder and, where a GPU is present, the GPU kernel on the same data. The
 * GPU's output is checked against the CPU's for every code of the K sweep.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

/* Rate-1/2 codes of each constraint length with the largest free distance (octal). */
static const struct {
	unsigned k;
	const char *polys;
} sweep_codes[] = {
    {3, "7:5"},     {4, "17:15"},   {5, "35:23"},   {6, "75:53"},
    {7, "171:133"}, {8, "371:247"}, {9, "753:561"},
};

static void sweep_k(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g)
{
	static const char *const cols[] = {
	    "D", "L", "cpu 1 core Mb/s", "cpu all Mb/s", "gpu kernel Gb/s", "gpu = cpu", NULL};
	cJSON *sec = report_section(r, "sweep_k", cols);
	uint64_t bits = o->bits / 4;

	for (unsigned i = 0; i < sizeof(sweep_codes) / sizeof(sweep_codes[0]); i++) {
		unsigned k = sweep_codes[i].k, l = 6 * k;
		struct bench_data d;
		char code[160], err[256], label[32];

		snprintf(code, sizeof(code),
		         "viterbi,k=%u,polys=%s,invert=none,decode_len=%u,traceback_len=%u,"
		         "head_len=%u",
		         k, sweep_codes[i].polys, o->decode_len, l, l);
		progress("sweep K=%u", k);
		if (bench_data_build(&d, code, bits, o->seed + k, o->ebn0, err, sizeof(err))) {
			report_note(sec, "K=%u: %s", k, err);
			continue;
		}
		snprintf(label, sizeof(label), "K=%u %s", k, sweep_codes[i].polys);
		cJSON *row = report_row(sec, label);
		uint8_t *out = calloc(d.njobs, d.out_stride);

		row_num(row, "D", o->decode_len);
		row_num(row, "L", l);
		double all = bench_cpu_rate(&d, o->threads, o->cpu_jobs, o->min_secs / 2, d.ref);
		double one = out ? bench_cpu_rate(&d, 1, o->cpu_jobs, o->min_secs / 2, out) : -1;
		if (one > 0)
			row_num(row, "cpu 1 core Mb/s", one / 1e6);
		if (all > 0)
			row_num(row, "cpu all Mb/s", all / 1e6);
		if (g) {
			bool exact = false;
			double gr = bench_gpu_kernel_rate(g, o, &d, o->gpu_jobs, &exact);

			if (gr > 0)
				row_num(row, "gpu kernel Gb/s", gr / 1e9);
			row_str(row, "gpu = cpu", gr > 0 ? (exact ? "yes" : "NO") : "failed");
		}
		free(out);
		bench_data_free(&d);
	}
}

static void sweep_batch(struct bench_report *r, const struct bench_opts *o, struct bench_gpu *g,
                        struct bench_data *d)
{
	static const char *const cols[] = {"cpu all Mb/s", "gpu kernel Gb/s", NULL};
	static const uint32_t sizes[] = {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144};
	cJSON *sec = report_section(r, "sweep_batch", cols);
	uint8_t *out = calloc(d->njobs, d->out_stride);

	if (!out) {
		report_skip(sec, "out of memory");
		return;
	}
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t n = sizes[i];
		bool cpu = n <= 1024, gpu = g && n >= 64;
		char label[32];

		/* The GPU tiles the data set to fill larger batches; the CPU takes it as it is. */
		cpu = cpu && n <= d->njobs;
		if (!cpu && !gpu)
			continue;
		snprintf(label, sizeof(label), "jobs=%u", n);
		progress("sweep batch %u jobs", n);
		cJSON *row = report_row(sec, label);
		if (cpu) {
			double rate = bench_cpu_rate(d, o->threads, n, o->min_secs / 2, out);
			if (rate > 0)
				row_num(row, "cpu all Mb/s", rate / 1e6);
		}
		if (gpu) {
			bool exact = false;
			double rate = bench_gpu_kernel_rate(g, o, d, n, &exact);
			if (rate > 0)
				row_num(row, "gpu kernel Gb/s", rate / 1e9);
		}
	}
	free(out);
}

void bench_sweeps(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	sweep_k(r, o, c->g);
	sweep_batch(r, o, c->g, c->d);
}
