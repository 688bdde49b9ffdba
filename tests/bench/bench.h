/*
 * fecd-bench's parts, shared by its files: the options, the data set (one code's seeded stream
 * cut into the daemon's overlapping jobs, with the CPU decoder's output as the reference every
 * other decoder is checked against), the report (sections of rows, kept as one cJSON tree that
 * is both the printed table and the --json file) and progress lines on stderr.
 *
 * bench.c: main, options, machine, table and JSON. bench_data.c: the data set. bench_cpu.c: the
 * CPU backend. bench_gpu.c: the GPU backend (fecd_cuda.h). bench_anchor.c: libfec and GNU Radio.
 * bench_e2e.c: the running daemon, bare ZeroMQ and latency. bench_ldpc.c: the LDPC sections.
 * sections.h: the tables of sections and report entries that bench.c runs and check_bench_json
 * checks.
 */
#ifndef FECD_BENCH_H
#define FECD_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "fec.h"
#include "sections.h"

/* The daemon's defaults the end-to-end runs rely on (daemon/backend/backend.h BACKEND_GPU_JOBS and
 * the CPU's 16 jobs per thread within 64..1024, the batch.deadline_ms setting): they size the
 * latency runs. */
#define BENCH_FECD_GPU_JOBS    1024
#define BENCH_FECD_CPU_JOBS(threads)                                                               \
	((threads) * 16 < 64 ? 64 : (threads) * 16 > 1024 ? 1024 : (threads) * 16)
#define BENCH_FECD_DEADLINE_MS 20

struct bench_opts {
	bool short_mode, no_gpu;
	unsigned sections; /* bit i: the i-th section of BENCH_SECTION_MAP runs */
	const char *json_path;
	const char *bindir; /* where fecd, fecd-feed and fecd-sink are (beside fecd-bench) */
	uint64_t bits;      /* information bits of the main data set */
	uint64_t seed;
	double ebn0;
	uint32_t decode_len, traceback_len; /* D and L = M of the main code */
	unsigned threads;                   /* "all cores" */
	double min_secs;                    /* each timed figure runs at least this long */
	uint32_t cpu_jobs, gpu_jobs;        /* jobs per batch */
	unsigned gpu_lanes;                 /* 0: the device's default */
	int port;                           /* first TCP port of the end-to-end runs */
	double lat_rate;                    /* latency run: information bits per second */
	uint64_t e2e_bits;                  /* information bits per connection */
	int loop_threads;                   /* fecd's loop_threads; -1: fecd's default */
	const char *codes_dir;              /* LDPC matrices; NULL: $FECD_CODES_DIR or default */
};

/* One code's data: information bits, the stream of int8 LLRs and its jobs. */
struct bench_data {
	struct fec_spec spec;
	char code_text[160];
	struct fec_decoder *dec;
	const struct fec_info *info;
	uint64_t nbits; /* information bits */
	uint8_t *bits;  /* true bits, one per byte */
	int8_t *syms;   /* the stream's LLRs */
	size_t nsyms;
	uint32_t njobs;
	struct fec_job *jobs;
	int8_t *in; /* job j's symbols at in + j * in_stride */
	size_t in_stride;
	uint64_t *bit0; /* first information bit job j owns */
	uint8_t *ref;   /* the CPU decoder's output (all cores), job j at ref + j * out_stride */
	size_t out_stride;
};

/* Builds the data for a code ("ccsds,decode_len=...") from seeded bits through AWGN at ebn0. */
int bench_data_build(struct bench_data *d, const char *code, uint64_t nbits, uint64_t seed,
                     double ebn0, char *err, size_t errlen);
/* For the family sections that make frames of their own: the decoder of code `text` and room
 * for nframes frames of one job each (true bits, jobs, inputs of in_stride symbols (0: the
 * code's frame_syms, or its longest frame where lengths vary), first bits, reference outputs); njobs, nbits and the strides set. On
 * failure d is freed and err names the code. */
int bench_frames_alloc(struct bench_data *d, const char *text, uint32_t nframes,
                       size_t in_stride, char *err, size_t errlen);
void bench_data_free(struct bench_data *d);
/* Bit errors of decoded outputs (job j at out + j * out_stride) against the true bits; *nbits
 * gets the bits compared. */
uint64_t bench_data_errors(const struct bench_data *d, const uint8_t *out, uint64_t *nbits);
/* Jobs whose decoded bits differ from the reference d->ref, or from ref for jobs
 * [first, first + count). */
uint32_t bench_data_mismatches(const struct bench_data *d, const uint8_t *out);
uint32_t bench_out_mismatches(const struct bench_data *d, const uint8_t *out, const uint8_t *ref,
                              uint32_t first, uint32_t count);
/* A data set of nframes frames of a frame family's code (text: its text form) for the CPU and
 * GPU runners: each job is one frame, its output the frame's information bits
 * (fec_info.frame_info_bits), its input the frame's int8 LLRs (at the code's llr_scale) of seeded bits
 * through the encoder and BPSK over AWGN at ebn0. 0, or a negative FEC_E* code (why in err). */
int bench_frames_build(struct bench_data *d, const char *text, uint32_t nframes, double ebn0,
                       uint64_t seed, char *err, size_t errlen);
/* Frames of such a data set whose output differs from the bits sent (UINT32_MAX: no memory). */
uint32_t bench_frame_errors(const struct bench_data *d, const uint8_t *out);
/* A batch view of jobs [first, first + count) over given buffers laid out like d's. */
struct fec_batch bench_batch(const struct bench_data *d, struct fec_job *jobs, const int8_t *in,
                             uint8_t *out, uint32_t first, uint32_t count);

/* ---- Report */

struct bench_report {
	cJSON *root, *sections;
};

/* The report entry `name` (BENCH_REPORT_MAP, which gives its title) with its column names
 * (NULL-terminated; the row label comes first, unnamed). */
cJSON *report_section(struct bench_report *r, const char *name, const char *const *columns);
void report_skip(cJSON *section, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void report_note(cJSON *section, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
cJSON *report_row(cJSON *section, const char *label);
void row_num(cJSON *row, const char *col, double v);
void row_str(cJSON *row, const char *col, const char *v);
/* The seed comparisons' columns (ldpc_seed, nbldpc_seed), and one row of them: iters iterations,
 * the CPU's one core and the GPU in frames a second (rates in information bits a second, frames
 * of frame_bits; a rate not measured, <= 0, is left out), their ratio and the seed's. */
extern const char *const report_seed_columns[];
void report_seed_row(cJSON *section, const char *label, unsigned iters, double cpu, double gpu,
                     double frame_bits, double seed_speedup);

/* Progress on stderr, with the time since the start. */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double bench_now(void); /* CLOCK_MONOTONIC seconds */

/* ---- Sections (sections.h). Each fills its report entries, or marks them skipped with the
 * reason. */

/* What a section gets besides the options: the main data set (a CCSDS stream; built small when
 * no section that runs measures it) and the GPU, NULL when there is none (gpu_why says why; the
 * daemon's sections see NULL and had_gpu). */
struct bench_ctx {
	struct bench_data *d;
	struct bench_gpu *g;
	const char *gpu_why;
	bool had_gpu;
};
typedef void bench_section_fn(struct bench_report *r, const struct bench_opts *o,
                              struct bench_ctx *c);
#define X(name, family, fn, flags) bench_section_fn fn;
BENCH_SECTION_MAP(X)
#undef X

/* The main data set's geometry (decode_len, traceback_len, head_len: bits per block, after it
 * and before it) from its decoder's fec_info, into the report's geometry object. */
void bench_data_geometry(const struct bench_data *d, cJSON *geo);

/* CPU: decodes d with `threads` threads in batches of `jobs` jobs, repeated until min_secs have
 * passed; out gets the output (job layout of d). Returns information bits per second, or < 0. */
double bench_cpu_rate(const struct bench_data *d, unsigned threads, uint32_t jobs, double min_secs,
                      uint8_t *out);
/* CPU, the figure a one-core target is judged on: `rounds` rounds (at most 16) of at least
 * min_secs each, batches of `jobs` jobs on one thread pinned to one core (the last the process
 * may run on, or FECD_BENCH_CORE); returns the best round's information bits per second (< 0
 * on failure), *median the median round's, *core the core it ran on (-1: not pinned). */
double bench_cpu_best(const struct bench_data *d, uint32_t jobs, unsigned rounds, double min_secs,
                      uint8_t *out, double *median, int *core);
/* The CPU decoder's SIMD level in use (or "portable" where there is one code path). */
const char *bench_simd_level(void);

/* GPU: opens device 0 when present; otherwise says why not in `why`. */
struct bench_gpu;
struct bench_gpu *bench_gpu_open(const struct bench_opts *o, char *why, size_t whylen);
void bench_gpu_close(struct bench_gpu *g);
void bench_gpu_machine(struct bench_gpu *g, cJSON *machine);
/* The GPU context (fecd_cuda.h) behind g, for sections that use it directly (sim); NULL without
 * CUDA. */
struct fecd_cuda;
struct fecd_cuda *bench_gpu_context(struct bench_gpu *g);
/* Kernel-only rate of d (information bits per second) with `jobs` per batch; < 0 on failure,
 * with *exact telling whether the output matched d->ref. */
double bench_gpu_kernel_rate(struct bench_gpu *g, const struct bench_opts *o,
                             const struct bench_data *d, uint32_t jobs, bool *exact);

/* With transfers: the whole data set in batches of o->gpu_jobs from pinned memory over the
 * device's lanes; information bits per second, or < 0. */
double bench_gpu_transfer_rate(struct bench_gpu *g, const struct bench_opts *o,
                               const struct bench_data *d, bool *exact, double *ber);
/* The same with packed 4-bit input (two symbols per byte, round(v / 18)), checked against the
 * CPU's decode of that input as the device expands it. */
double bench_gpu_transfer_rate_s4(struct bench_gpu *g, const struct bench_opts *o,
                                  const struct bench_data *d, bool *exact, double *ber);
/* Bytes per second that bare copies of `bytes` of pinned memory move into the device, over as
 * many streams as the transfer rows have lanes; < 0 on failure. */
double bench_gpu_copy_in_rate(struct bench_gpu *g, const struct bench_opts *o, size_t bytes);
/* The GPU decoder's describe() line for d's code, into buf; nonzero (and why in buf) when the
 * GPU has no decoder for it. */
int bench_gpu_describe(struct bench_gpu *g, const struct bench_data *d, char *buf, size_t len);

#endif
