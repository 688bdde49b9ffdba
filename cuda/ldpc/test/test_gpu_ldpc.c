/*
 * GPU LDPC against the CPU decoder, through the public GPU API (lanes).
 *   - Min-sum on int8 (ms, nms, oms), layered and flooding, info and codeword output, soft output
 *     on and off, early stop on and off: every job's status, iterations, out_bits, soft_count,
 *     output bytes and soft values must equal the CPU's, on DVB-S2 r1/2, r3/4 and r9/10 (rows
 *     of 14 and 30 edges: the fast kernel's long rows), MacKay N=1008, WiMAX N=576, 5G NR base
 *     graph 1 (z=16, punctured, rows of 19 edges: long rows too) and generated (3,6)-regular
 *     codes (n = 1002: input not in whole 32-bit words). Layered cases
 *     run on the fast kernel (its default walk, the layers themselves and levels of one step:
 *     FECD_LDPC_GPU_LEVEL_ROWS=0, 1024) and again on the generic one (FECD_LDPC_GPU_GENERIC=1).
 *     Batches hold an odd number of jobs (the fast kernel takes frames in pairs), jobs that must
 *     come back ERASED, and -128 inputs.
 *   - spa and float32 input: the float rules agree with the CPU's up to rounding (the GPU's tanh
 *     is not the CPU's), so on clearly decodable frames both must decode to the same bits, and
 *     at a noisier point their frame error counts must agree statistically.
 * Frames are seeded codewords through BPSK/AWGN. Exits 77 without a GPU; codes from files are
 * skipped, saying so, without the codes folder (FECD_CODES_DIR).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "awgn.h"
#include "check.h"
#include "codec_util.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "gpu_test.h"
#include "prng.h"
#include "softbits.h"

/* One batch of frames for a spec: jobs, int8 and float inputs, the sent codewords' info. */
struct frames {
	uint32_t count, n_tx, k, out_max;
	size_t stride, ostride;
	struct fec_job *jobs;
	int8_t *in;
	float *in_f;
};

static void frames_free(struct frames *f)
{
	free(f->jobs);
	free(f->in);
	free(f->in_f);
	memset(f, 0, sizeof(*f));
}

/* count frames of spec through AWGN at ebn0; odd jobs 3 (and 3 + 64 ...) are made unusable. */
static int frames_make(const struct fec_spec *spec, const struct fec_info *info, uint32_t count,
                       double ebn0, uint64_t seed, bool bad_jobs, struct frames *f)
{
	const struct ldpc_spec *ls = &spec->u.ldpc;
	struct fec_encoder *enc = NULL;
	struct fec_prng prng;
	uint8_t *bits = NULL, *cw = NULL;
	float *llr = NULL;
	size_t nout;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	f->count = count;
	f->n_tx = info->frame_syms;
	f->k = ls->k;
	f->out_max = info->max_out_bits;
	f->stride = f->n_tx + 3;
	f->ostride = (f->out_max + 7) / 8 + 1;
	f->jobs = calloc(count, sizeof(*f->jobs));
	f->in = malloc(count * f->stride);
	f->in_f = malloc(count * f->stride * sizeof(float));
	bits = malloc(f->k);
	cw = malloc(f->n_tx);
	llr = malloc(f->n_tx * sizeof(float));
	if (!f->jobs || !f->in || !f->in_f || !bits || !cw || !llr ||
	    fec_encoder_create(spec, &enc))
		goto out;
	fec_prng_seed(&prng, seed);
	const double sigma = fec_awgn_sigma(ebn0, fec_spec_rate(spec));
	for (uint32_t i = 0; i < count; i++) {
		int8_t *in = f->in + i * f->stride;

		fec_prng_bits(&prng, bits, f->k);
		if (fec_encode(enc, bits, f->k, cw, &nout) || nout != f->n_tx)
			goto out;
		fec_awgn_llr(&prng, cw, f->n_tx, sigma, 100.0f, llr);
		memcpy(f->in_f + i * f->stride, llr, f->n_tx * sizeof(float));
		fec_llr_quantize(FECD_FMT_S8_LLR, llr, f->n_tx, false, spec->frame.llr_scale, in);
		if (i % 7 == 2) /* the int8 range's extra value, clamped by both decoders */
			in[i % f->n_tx] = -128;
		f->jobs[i].in_len = f->n_tx;
		f->jobs[i].own_len = f->n_tx;
		if (bad_jobs && i % 64 == 3)
			f->jobs[i].in_len = f->n_tx - 1;
		if (bad_jobs && i % 64 == 9)
			f->jobs[i].head_len = 1;
	}
	rc = 0;
out:
	fec_encoder_destroy(enc);
	free(bits);
	free(cw);
	free(llr);
	if (rc)
		frames_free(f);
	return rc;
}

struct result {
	struct fec_job *jobs;
	uint8_t *out;
	float *soft;
};

static void result_free(struct result *r)
{
	free(r->jobs);
	free(r->out);
	free(r->soft);
}

/* Decodes f on the CPU (gpu == NULL) or the GPU into r. */
static int decode(struct gpu_test *g, const struct fec_decoder *cpu, const struct frames *f, bool f32,
                  bool soft, struct result *r, const char *name)
{
	const struct fec_info *info = fec_decoder_info(cpu);
	struct fecd_cuda_decoder *dec = NULL;
	char err[256] = "";
	int rc = -1;

	r->jobs = malloc(f->count * sizeof(*r->jobs));
	r->out = malloc(f->count * f->ostride);
	r->soft = soft ? malloc(f->count * f->out_max * sizeof(float)) : NULL;
	if (!r->jobs || !r->out || (soft && !r->soft))
		return -1;
	memcpy(r->jobs, f->jobs, f->count * sizeof(*r->jobs));
	for (uint32_t i = 0; i < f->count; i++) {
		r->jobs[i].status = 0xee;
		r->jobs[i].work = 0xbeef;
		r->jobs[i].out_bits = 0xdead;
	}
	memset(r->out, 0xa5, f->count * f->ostride);
	if (soft)
		memset(r->soft, 0xa5, f->count * f->out_max * sizeof(float));
	struct fec_batch b = {.count = f->count,
	                      .jobs = r->jobs,
	                      .in = f32 ? NULL : f->in,
	                      .in_f32 = f32 ? f->in_f : NULL,
	                      .in_stride = f->stride,
	                      .out = r->out,
	                      .out_stride = f->ostride,
	                      .soft = r->soft,
	                      .soft_stride = f->out_max};
	if (!g) {
		void *scratch = malloc(info->scratch_bytes);

		rc = scratch ? fec_decode(cpu, scratch, &b, 0, f->count) : -1;
		free(scratch);
		CHECK(rc == 0, "%s: CPU decode: %d", name, rc);
		return rc;
	}
	rc = fecd_cuda_decoder_create(g->ctx, cpu, &dec, err, sizeof(err));
	CHECK(rc == 0, "%s: GPU decoder: %s", name, err);
	if (rc)
		return rc;
	rc = fecd_cuda_lane_submit(g->lane, dec, &b, 0, err, sizeof(err));
	if (!rc)
		rc = fecd_cuda_lane_wait(g->lane, err, sizeof(err));
	CHECK(rc == 0, "%s: GPU decode: %s", name, err);
	if (!rc)
		printf("  %s: %s\n", name, fecd_cuda_decoder_describe(dec));
	fecd_cuda_decoder_destroy(dec);
	return rc;
}

/* Min-sum on int8: everything equal, job by job. */
static void exact_case(struct gpu_test *g, const char *text, uint32_t count, double ebn0, bool soft,
                       bool generic, const char *level_rows)
{
	struct fec_spec spec;
	struct fec_decoder *cpu = NULL;
	struct frames f;
	struct result rc = {0}, rg = {0};
	char err[256], name[400];
	unsigned bad = 0, decoded = 0, erased = 0, iters = 0;

	snprintf(name, sizeof(name), "%s%s%s%s%s", text, soft ? " +soft" : "",
	         generic ? " [generic kernel]" : "", level_rows ? " [level rows " : "",
	         level_rows ? level_rows : "");
	if (level_rows)
		strncat(name, "]", sizeof(name) - strlen(name) - 1);
	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &cpu)) {
		CHECK(0, "%s: spec or CPU decoder: %s", name, err);
		return;
	}
	spec = *fec_decoder_spec(cpu);
	if (frames_make(&spec, fec_decoder_info(cpu), count, ebn0, 7 + count, true, &f)) {
		CHECK(0, "%s: making frames", name);
		goto out_cpu;
	}
	setenv("FECD_LDPC_GPU_GENERIC", generic ? "1" : "0", 1);
	if (level_rows)
		setenv("FECD_LDPC_GPU_LEVEL_ROWS", level_rows, 1);
	else
		unsetenv("FECD_LDPC_GPU_LEVEL_ROWS");
	if (decode(NULL, cpu, &f, false, soft, &rc, name) ||
	    decode(g, cpu, &f, false, soft, &rg, name))
		goto out_frames;
	for (uint32_t i = 0; i < count; i++) {
		const struct fec_job *a = &rc.jobs[i], *b = &rg.jobs[i];
		const size_t nb = (a->out_bits + 7) / 8;
		bool same = a->status == b->status && a->work == b->work &&
		            a->out_bits == b->out_bits && a->soft_count == b->soft_count &&
		            memcmp(rc.out + i * f.ostride, rg.out + i * f.ostride, nb) == 0;

		if (soft && same)
			same =
			    memcmp(rc.soft + (size_t)i * f.out_max, rg.soft + (size_t)i * f.out_max,
			           a->soft_count * sizeof(float)) == 0;
		if (!same && bad < 3) {
			uint32_t byte = 0, sj = 0;

			while (byte < nb &&
			       rc.out[i * f.ostride + byte] == rg.out[i * f.ostride + byte])
				byte++;
			while (soft && sj < a->soft_count &&
			       rc.soft[(size_t)i * f.out_max + sj] ==
			           rg.soft[(size_t)i * f.out_max + sj])
				sj++;
			fprintf(
			    stderr,
			    "  %s job %u: cpu status %u it %u bits %u, gpu status %u it %u bits "
			    "%u; first byte differing %u of %zu, soft %u of %u (cpu %g gpu %g)\n",
			    name, i, a->status, a->work, a->out_bits, b->status,
			    b->work, b->out_bits, byte, nb, sj, soft ? a->soft_count : 0,
			    soft && sj < a->soft_count ? rc.soft[(size_t)i * f.out_max + sj] : 0.0,
			    soft && sj < a->soft_count ? rg.soft[(size_t)i * f.out_max + sj] : 0.0);
		}
		bad += !same;
		decoded += a->status == FECD_STATUS_DECODED;
		erased += a->status == FECD_STATUS_ERASED;
		iters += a->work;
	}
	CHECK(bad == 0, "%s: %u of %u jobs differ", name, bad, count);
	/* Both outcomes make the comparison stronger; the Eb/N0 points are chosen for a mix. */
	printf("  %s: %u jobs, %u decoded, %u erased, %.1f iterations per job, %s%s\n", name, count,
	       decoded, erased, (double)iters / count, bad ? "DIFFERENT" : "identical",
	       decoded == 0 || decoded + erased == count ? " (no mix of outcomes)" : "");
out_frames:
	result_free(&rc);
	result_free(&rg);
	frames_free(&f);
out_cpu:
	fec_decoder_destroy(cpu);
}

/* Float rules: same decoded bits on clean frames, frame error counts within noise at ebn0. */
static void float_case(struct gpu_test *g, const char *text, uint32_t count, double clean_ebn0,
                       double ebn0, bool f32)
{
	struct fec_spec spec;
	struct fec_decoder *cpu = NULL;
	char err[256], name[400];

	snprintf(name, sizeof(name), "%s%s", text, f32 ? " (float32 input)" : "");
	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &cpu)) {
		CHECK(0, "%s: spec or CPU decoder: %s", name, err);
		return;
	}
	spec = *fec_decoder_spec(cpu);
	setenv("FECD_LDPC_GPU_GENERIC", "0", 1);
	for (int pass = 0; pass < 2; pass++) {
		const double eb = pass ? ebn0 : clean_ebn0;
		struct frames f;
		struct result rc = {0}, rg = {0};
		unsigned fer_c = 0, fer_g = 0, differ = 0;

		if (frames_make(&spec, fec_decoder_info(cpu), count, eb, 99 + pass, false, &f)) {
			CHECK(0, "%s: making frames", name);
			break;
		}
		if (!decode(NULL, cpu, &f, f32, false, &rc, name) &&
		    !decode(g, cpu, &f, f32, false, &rg, name)) {
			for (uint32_t i = 0; i < count; i++) {
				const bool dc = rc.jobs[i].status == FECD_STATUS_DECODED;
				const bool dg = rg.jobs[i].status == FECD_STATUS_DECODED;

				fer_c += !dc;
				fer_g += !dg;
				if (dc && dg &&
				    memcmp(rc.out + i * f.ostride, rg.out + i * f.ostride,
				           (rc.jobs[i].out_bits + 7) / 8))
					differ++;
				CHECK(rg.jobs[i].out_bits == rc.jobs[i].out_bits,
				      "%s: job %u out_bits", name, i);
			}
			if (pass == 0) {
				CHECK(differ == 0 && fer_g <= count / 50 + 1 &&
				          fer_c <= count / 50 + 1,
				      "%s at %.1f dB: %u frames decode to different bits, FER cpu "
				      "%u gpu %u of %u",
				      name, eb, differ, fer_c, fer_g, count);
			} else {
				const double tol = 3.0 * sqrt((double)fer_c + fer_g) + 3.0;

				CHECK(fabs((double)fer_c - fer_g) <= tol && fer_c > 0,
				      "%s at %.1f dB: frame errors cpu %u gpu %u of %u", name, eb,
				      fer_c, fer_g, count);
			}
			printf("  %s at %.1f dB: frame errors cpu %u gpu %u of %u, %u decoded "
			       "differently\n",
			       name, eb, fer_c, fer_g, count, differ);
		}
		result_free(&rc);
		result_free(&rg);
		frames_free(&f);
	}
	fec_decoder_destroy(cpu);
}

static bool have_dir(const char *p)
{
	struct stat st;

	return p && *p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL; /* run only the cases naming this */
	struct gpu_test g = {0};
	char text[512];
	int rc;
	const char *dir = getenv("FECD_CODES_DIR");
	const bool files = have_dir(dir);
	static const char *const algos[] = {"ms", "nms", "oms"};

	rc = gpu_test_open(&g);
	if (rc)
		return rc;
	if (files)
		fec_codes_dir_set(dir);
	else
		printf("codes folder absent (FECD_CODES_DIR=%s): file codes skipped, generated "
		       "codes only\n",
		       dir ? dir : "unset");

	/* code, frames, Eb/N0 at which some frames fail within the iterations */
	static const struct {
		const char *code;
		bool file, flooding;
		uint32_t count;
		double ebn0;
	} codes[] = {
	    {"code=regular,n=2000,dv=3,dc=6,seed=5", false, true, 151, 2.0},
	    /* n not a multiple of 4: the fast kernel loads its input byte by byte */
	    {"code=regular,n=1002,dv=3,dc=6,seed=3", false, false, 101, 2.0},
	    {"code=MACKAY_504_1008.alist", true, true, 201, 2.0},
	    {"code=WIMAX_288_576.alist", true, true, 201, 2.2},
	    {"code=nr-bg1,z=16", true, true, 101, 1.3},
	    {"code=DVB-S2_64800x32400.alist", true, false, 33, 2.2},
	    /* rows of 14 and of 30 edges: the fast kernel's long rows (2 and 4 records) */
	    {"code=DVB-S2_64800x16200.alist", true, false, 33, 2.5},
	    {"code=DVB-S2_64800x6480.alist", true, false, 33, 3.7},
	};
	for (unsigned c = 0; c < sizeof(codes) / sizeof(codes[0]); c++) {
		if ((codes[c].file && !files) || (only && !strstr(codes[c].code, only)))
			continue;
		for (unsigned a = 0; a < 3; a++) {
			const bool early = a != 1, cw = a == 2;
			const char *out = cw ? "codeword" : "info";

			snprintf(
			    text, sizeof(text),
			    "ldpc,%s,algo=%s,schedule=layered,iters=12,early_stop=%s,output=%s",
			    codes[c].code, algos[a], early ? "true" : "false", out);
			exact_case(&g, text, codes[c].count, codes[c].ebn0, a == 1, false, NULL);
			exact_case(&g, text, codes[c].count, codes[c].ebn0, a == 0, true, NULL);
			/* the fast kernel's walk over the layers themselves, and in levels of
			 * one step (its default: two) */
			exact_case(&g, text, codes[c].count, codes[c].ebn0, a == 2, false, "0");
			exact_case(&g, text, codes[c].count, codes[c].ebn0, a == 1, false, "1024");
			if (!codes[c].flooding && a != 1)
				continue;
			snprintf(
			    text, sizeof(text),
			    "ldpc,%s,algo=%s,schedule=flooding,iters=12,early_stop=%s,output=%s",
			    codes[c].code, algos[a], early ? "true" : "false", out);
			exact_case(&g, text, codes[c].count, codes[c].ebn0, a == 2, false, NULL);
		}
	}
	static const struct {
		const char *text;
		bool file, f32;
	} floats[] = {
	    {"ldpc,code=regular,n=2000,dv=3,dc=6,seed=5,algo=spa,schedule=flooding,iters=30", false,
	     false},
	    {"ldpc,code=regular,n=2000,dv=3,dc=6,seed=5,algo=nms,schedule=layered,iters=20,in=f32",
	     false, true},
	    {"ldpc,code=MACKAY_504_1008.alist,algo=spa,schedule=layered,iters=30", true, false},
	    {"ldpc,code=WIMAX_288_576.alist,algo=spa,schedule=flooding,iters=30,in=f32", true,
	     true},
	    {"ldpc,code=MACKAY_504_1008.alist,algo=oms,schedule=flooding,iters=30,in=f32", true,
	     true},
	};
	for (unsigned i = 0; i < sizeof(floats) / sizeof(floats[0]); i++)
		if ((!floats[i].file || files) && (!only || strstr(floats[i].text, only)))
			float_case(&g, floats[i].text, 400, 3.5, 1.6, floats[i].f32);

	gpu_test_close(&g);
	return check_done();
}
