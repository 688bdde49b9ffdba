/*
 * fecd-bench's anchors: other decoders on the same soft data, so the figures can be read against
 * known ones.
 *
 * libfec (Phil Karn's, Debian libfec0): viterbi27, through dlopen so fecd never links it. Its
 * K=7 r=1/2 code is the "voyager" convention: the 133 output first, then 171, neither inverted;
 * symbols are offset binary, 0 = strong 0, 255 = strong 1. Our CCSDS pairs are (171, NOT 133),
 * so each pair is swapped and the first of the new pair negated before the LLRs are mapped to
 * offset binary (LLR s >= 0 -> 127 - s, s < 0 -> 128 - s, the inverse of softbits.h's u8 rule).
 * libfec decodes frames, so each of our stream jobs (warm-up, block, traceback) is one frame:
 * init (state 0, which libfec only favours), update over all its pairs, chainback from state 0,
 * and the block's bits are kept: the same work and geometry as fecd's decoder.
 *
 * GNU Radio: gr-fec's cc_decoder (K=7, polys [109, 79] = 133, 171 LSB first: the same voyager
 * convention; streaming mode, frames of D bits) in a flowgraph run by bench_gr.py with the
 * system's python3, on the same offset-binary symbols as a file (its input conversion is uchar
 * offset binary, 255 = bit 1). Only the flowgraph's run is timed.
 *
 * Both report their BER against the true bits, so a figure always belongs to a working decode.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bitpack.h"

#include "bench.h"

#ifndef FECD_BENCH_GR_SCRIPT
#define FECD_BENCH_GR_SCRIPT "bench_gr.py"
#endif

/* libfec's viterbi27 entry points, declared here as libfec's fec.h declares them. */
struct libfec_v27 {
	void *so;
	void *(*create)(int len);
	int (*init)(void *vp, int starting_state);
	int (*update_blk)(void *vp, unsigned char *syms, int npairs);
	int (*chainback)(void *vp, unsigned char *data, unsigned int nbits, unsigned int endstate);
	void (*destroy)(void *vp);
};

static uint8_t to_u8(int s)
{
	return (uint8_t)(s >= 0 ? 127 - s : 128 - s);
}

/* Our (171, NOT 133) LLR pairs -> voyager (133, 171) offset-binary pairs. */
static void to_voyager_u8(const int8_t *in, size_t nsyms, uint8_t *out)
{
	for (size_t i = 0; i + 1 < nsyms; i += 2) {
		out[i] = to_u8(-in[i + 1]);
		out[i + 1] = to_u8(in[i]);
	}
}

static int libfec_open(struct libfec_v27 *l, char *why, size_t whylen)
{
	memset(l, 0, sizeof(*l));
	l->so = dlopen("libfec.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!l->so) {
		snprintf(why, whylen, "libfec not installed (libfec.so.0: %s)", dlerror());
		return -1;
	}
	*(void **)&l->create = dlsym(l->so, "create_viterbi27");
	*(void **)&l->init = dlsym(l->so, "init_viterbi27");
	*(void **)&l->update_blk = dlsym(l->so, "update_viterbi27_blk");
	*(void **)&l->chainback = dlsym(l->so, "chainback_viterbi27");
	*(void **)&l->destroy = dlsym(l->so, "delete_viterbi27");
	if (!l->create || !l->init || !l->update_blk || !l->chainback || !l->destroy) {
		snprintf(why, whylen, "libfec.so.0 lacks the viterbi27 functions");
		dlclose(l->so);
		return -1;
	}
	return 0;
}

/* One pass over every job; out gets the blocks' bits in d's output layout. */
static int libfec_pass(struct libfec_v27 *l, void *vp, const struct bench_data *d, uint8_t *u8,
                       uint8_t *frame, uint8_t *out)
{
	for (uint32_t j = 0; j < d->njobs; j++) {
		const struct fec_job *job = &d->jobs[j];
		uint32_t pairs = job->in_len / 2, head = job->head_len / 2, own = job->own_len / 2;
		uint32_t nbits = pairs > 6 ? pairs - 6 : 0; /* libfec treats the last 6 as a tail */

		l->init(vp, 0);
		l->update_blk(vp, u8 + (size_t)j * d->in_stride, (int)pairs);
		l->chainback(vp, frame, nbits, 0);
		if (head + own > nbits)
			own = nbits > head ? nbits - head : 0;
		fec_copy_bits(out + (size_t)j * d->out_stride, 0, frame, head, own);
	}
	return 0;
}

/* The anchors decode K=7 rate-1/2 codes only: the data set's code read through its family's
 * parameter table (k, polys), as any caller outside the family reads a spec. */
static bool is_k7_r12(const struct bench_data *d)
{
	const struct fec_family_ops *ops = fec_family_by_id(d->spec.family);
	struct fec_param_value k = {0}, polys = {0};
	uint64_t buf[16];

	return ops && !ops->spec_get(&d->spec, "k", &k, buf, sizeof(buf)) && k.i == 7 &&
	       !ops->spec_get(&d->spec, "polys", &polys, buf, sizeof(buf)) && polys.nitems == 2;
}

static void anchor_libfec(cJSON *sec, const struct bench_opts *o, const struct bench_data *d)
{
	struct libfec_v27 l;
	char why[256];
	size_t in_bytes = (size_t)d->njobs * d->in_stride;
	uint8_t *u8 = malloc(in_bytes), *frame = malloc(d->in_stride / 2 / 8 + 16);
	uint8_t *out = calloc(d->njobs, d->out_stride);
	void *vp = NULL;
	uint64_t passes = 0, n = 0, errs;
	double t0, secs;

	if (!u8 || !frame || !out)
		goto out_free;
	if (libfec_open(&l, why, sizeof(why))) {
		report_note(sec, "libfec viterbi27: skipped: %s", why);
		goto out_free;
	}
	if (!is_k7_r12(d) ||
	    !(vp = l.create((int)(d->in_stride / 2)))) {
		report_note(sec,
		            "libfec viterbi27: skipped: not a K=7 r=1/2 code, or create failed");
		goto out_close;
	}
	for (uint32_t j = 0; j < d->njobs; j++)
		to_voyager_u8(d->in + (size_t)j * d->in_stride, d->jobs[j].in_len,
		              u8 + (size_t)j * d->in_stride);
	if (!dlsym(l.so, "update_viterbi27_blk_sse2") && !dlsym(l.so, "update_viterbi27_blk_mmx"))
		report_note(sec,
		            "this libfec.so.0 has only the portable C viterbi27 (no SSE2 build, "
		            "as Debian ships it)");
	progress("anchor: libfec viterbi27, one core");
	t0 = bench_now();
	do {
		libfec_pass(&l, vp, d, u8, frame, out);
		passes++;
		secs = bench_now() - t0;
	} while (secs < o->min_secs);
	errs = bench_data_errors(d, out, &n);
	cJSON *row = report_row(sec, "libfec viterbi27, 1 core");
	row_num(row, "Mb/s", (double)d->nbits * (double)passes / secs / 1e6);
	row_num(row, "bits", (double)n);
	row_num(row, "BER", n ? (double)errs / (double)n : 1.0);
	l.destroy(vp);
out_close:
	dlclose(l.so);
out_free:
	free(u8);
	free(frame);
	free(out);
}

static const char *gr_script(void)
{
	const char *env = getenv("FECD_BENCH_GR_SCRIPT");

	if (env)
		return env;
#ifdef FECD_BENCH_GR_INSTALLED
	if (!access(FECD_BENCH_GR_INSTALLED, R_OK))
		return FECD_BENCH_GR_INSTALLED;
#endif
	return FECD_BENCH_GR_SCRIPT;
}

static void anchor_gnuradio(cJSON *sec, const struct bench_opts *o, const struct bench_data *d)
{
	char dir[] = "/tmp/fecd-bench-gr.XXXXXX", in[64], out[64], cmd[1024], line[256] = "";
	uint64_t nbits = d->nbits > (1u << 23) ? (1u << 23) : d->nbits, got = 0, errs = 0;
	size_t nsyms = fec_encoded_len(&d->spec, (size_t)nbits);
	uint8_t *u8 = malloc(nsyms), *bits = malloc(nbits);
	double secs = 0;
	FILE *f, *p;

	if (!u8 || !bits || !mkdtemp(dir))
		goto out_free;
	if (access("/usr/bin/python3", X_OK) ||
	    system("/usr/bin/python3 -c 'from gnuradio import fec' >/dev/null 2>&1")) {
		report_note(sec, "GNU Radio cc_decoder: skipped: /usr/bin/python3 cannot import "
		                 "gnuradio.fec");
		goto out_dir;
	}
	snprintf(in, sizeof(in), "%s/in.u8", dir);
	snprintf(out, sizeof(out), "%s/out.u8", dir);
	to_voyager_u8(d->syms, nsyms, u8);
	f = fopen(in, "wb");
	if (!f || fwrite(u8, 1, nsyms, f) != nsyms || fclose(f)) {
		report_note(sec, "GNU Radio cc_decoder: skipped: cannot write %s", in);
		goto out_dir;
	}
	/* decoded bits per block, from the decoder's units */
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s %s %s %u", gr_script(), in, out,
	         d->info->block_syms / d->info->unit_syms * d->info->unit_bits);
	progress("anchor: GNU Radio cc_decoder (%llu bits)", (unsigned long long)nbits);
	p = popen(cmd, "r");
	if (p) {
		if (!fgets(line, sizeof(line), p))
			line[0] = '\0';
		pclose(p);
	}
	if (sscanf(line, "seconds=%lf", &secs) != 1 || secs <= 0) {
		report_note(sec, "GNU Radio cc_decoder: skipped: %s failed", gr_script());
		goto out_files;
	}
	f = fopen(out, "rb");
	got = f ? fread(bits, 1, nbits, f) : 0;
	if (f)
		fclose(f);
	for (uint64_t i = 0; i < got; i++)
		errs += (bits[i] & 1) != d->bits[i];
	cJSON *row = report_row(sec, "GNU Radio cc_decoder");
	row_num(row, "Mb/s", (double)got / secs / 1e6);
	row_num(row, "bits", (double)got);
	row_num(row, "BER", got ? (double)errs / (double)got : 1.0);
	(void)o;
out_files:
	unlink(out);
	unlink(in);
out_dir:
	rmdir(dir);
out_free:
	free(u8);
	free(bits);
}

void bench_anchors(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	const struct bench_data *d = c->d;
	static const char *const cols[] = {"Mb/s", "bits", "BER", NULL};
	cJSON *sec = report_section(r, "anchors", cols);

	anchor_libfec(sec, o, d);
	anchor_gnuradio(sec, o, d);
	if (!cJSON_GetArraySize(cJSON_GetObjectItem(sec, "rows")))
		report_skip(sec, "neither libfec nor GNU Radio is installed");
}
