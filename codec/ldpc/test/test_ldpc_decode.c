/*
 * The LDPC decoders: known codewords decode unchanged through every algorithm x schedule x input
 * type (converged, in one iteration where no column is punctured); early stop on and off;
 * information or codeword output and the soft output's signs; the AVX2 pass against the portable
 * decoder, bit for bit (bits, soft values, status, iterations) on noisy frames, over a job range
 * that starts past 0 and is no multiple of 32; float and int8 input agreeing on clean frames; and
 * the spec's text form (presets, round trip, errors). Needs ../shared/codes (FECD_CODES_DIR).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "codec_util.h"
#include "cpu_simd.h"
#include "bitpack.h"
#include "fec.h"
#include "prng.h"

#define FRAMES   3
#define CLEAN_S8 40   /* int8 LLR of a noise-free bit (5.0 at llr_scale 8) */
#define CLEAN_F  5.0f /* the same as a float LLR */

/* A decoder of `text` and what a batch for it needs. */
struct rig {
	struct fec_spec spec;
	struct fec_decoder *dec;
	const struct fec_info *info;
	struct fec_batch b;
	void *scratch;
};

static int rig_open(struct rig *r, const char *text, uint32_t count)
{
	char err[256];

	memset(r, 0, sizeof(*r));
	if (fec_spec_from_string(text, &r->spec, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", text, err);
		return -1;
	}
	if (fec_decoder_create(&r->spec, &r->dec))
		return -1;
	r->info = fec_decoder_info(r->dec);
	r->b.count = count;
	r->b.in_stride = r->info->frame_syms;
	r->b.out_stride = (r->info->max_out_bits + 7) / 8;
	r->b.soft_stride = r->info->max_soft;
	r->b.jobs = calloc(count, sizeof(*r->b.jobs));
	r->b.in = calloc(count, r->b.in_stride);
	r->b.in_f32 = calloc(count, r->b.in_stride * sizeof(float));
	r->b.out = calloc(count, r->b.out_stride);
	r->b.soft = calloc(count, r->b.soft_stride * sizeof(float));
	r->scratch = malloc(r->info->scratch_bytes + 64);
	if (!r->b.jobs || !r->b.in || !r->b.in_f32 || !r->b.out || !r->b.soft || !r->scratch)
		abort();
	return 0;
}

static void rig_close(struct rig *r)
{
	fec_decoder_destroy(r->dec);
	free(r->b.jobs);
	free((void *)r->b.in);
	free((void *)r->b.in_f32);
	free(r->b.out);
	free(r->b.soft);
	free(r->scratch);
}

/* Jobs [first, first + count) filled for a full frame each; the others marked untouched. */
static int rig_decode(struct rig *r, uint32_t first, uint32_t count)
{
	for (uint32_t i = 0; i < r->b.count; i++)
		r->b.jobs[i] = (struct fec_job){
		    .in_len = r->info->frame_syms, .own_len = r->info->frame_syms, .status = 0xEE};
	memset(r->b.out, 0xA5, (size_t)r->b.count * r->b.out_stride);
	return fec_decode(r->dec, r->scratch, &r->b, first, count);
}

/* FRAMES random codewords of the code behind r: info bits (k each) and whole codewords (n each,
 * punctured columns included), the sent part written to the batch as clean int8 and float LLRs. */
static void clean_frames(struct rig *r, struct fec_prng *p, uint8_t *info, uint8_t *cw)
{
	const struct ldpc_spec *l = &r->spec.u.ldpc;
	struct ldpc_code *code;

	if (ldpc_code_load(l, &code, NULL, 0))
		abort();
	for (unsigned f = 0; f < FRAMES; f++) {
		uint8_t *in = info + (size_t)f * l->k, *c = cw + (size_t)f * l->n;
		int8_t *s8 = (int8_t *)r->b.in + (size_t)f * r->b.in_stride;
		float *f32 = (float *)r->b.in_f32 + (size_t)f * r->b.in_stride;

		fec_prng_bits(p, in, l->k);
		if (ldpc_encode(code, in, c))
			abort();
		for (uint32_t t = 0; t < l->n_tx; t++) {
			s8[t] = c[l->n - l->n_tx + t] ? -CLEAN_S8 : CLEAN_S8;
			f32[t] = c[l->n - l->n_tx + t] ? -CLEAN_F : CLEAN_F;
		}
	}
	ldpc_code_free(code);
}

static bool bits_equal(const uint8_t *packed, const uint8_t *bits, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((packed[i / 8] >> (7 - i % 8) & 1u) != bits[i])
			return false;
	return true;
}

static const char *const algos[] = {"spa", "ms", "nms", "oms"};
static const char *const schedules[] = {"flooding", "layered"};
static const char *const inputs[] = {"s8", "f32"};

/* Every variant on clean codewords of one code, info and codeword output, early stop on/off. */
static void test_clean(const char *code, bool punctured)
{
	struct fec_prng p;
	struct rig r;
	uint8_t *info, *cw;
	char text[256];

	if (rig_open(&r, code, FRAMES)) {
		CHECK(0, "cannot open %s", code);
		return;
	}
	info = malloc((size_t)FRAMES * r.spec.u.ldpc.k);
	cw = malloc((size_t)FRAMES * r.spec.u.ldpc.n);
	fec_prng_seed(&p, 7);
	clean_frames(&r, &p, info, cw);
	for (unsigned a = 0; a < 4; a++)
		for (unsigned s = 0; s < 2; s++)
			for (unsigned i = 0; i < 2; i++)
				for (unsigned o = 0; o < 2; o++) {
					const bool word = o == 1, stop = o == 0;
					struct rig v;

					snprintf(text, sizeof(text),
					         "%s,algo=%s,schedule=%s,in=%s,output=%s,iters=6,"
					         "early_stop=%s",
					         code, algos[a], schedules[s], inputs[i],
					         word ? "codeword" : "info",
					         stop ? "true" : "false");
					if (rig_open(&v, text, FRAMES)) {
						CHECK(0, "cannot open %s", text);
						continue;
					}
					memcpy((void *)v.b.in, r.b.in,
					       (size_t)FRAMES * r.b.in_stride);
					memcpy((void *)v.b.in_f32, r.b.in_f32,
					       (size_t)FRAMES * r.b.in_stride * sizeof(float));
					CHECK(rig_decode(&v, 0, FRAMES) == 0, "%s", text);
					for (unsigned f = 0; f < FRAMES; f++) {
						const struct fec_job *j = &v.b.jobs[f];
						const uint8_t *out =
						    v.b.out + (size_t)f * v.b.out_stride;
						const float *soft =
						    v.b.soft + (size_t)f * v.b.soft_stride;
						const uint32_t nb =
						    word ? v.spec.u.ldpc.n : v.spec.u.ldpc.k;
						const uint8_t *want =
						    word ? cw + (size_t)f * v.spec.u.ldpc.n
						         : info + (size_t)f * nb;
						bool signs = true;

						CHECK(j->status == FECD_STATUS_DECODED,
						      "%s frame %u: %u", text, f, j->status);
						if (!stop)
							CHECK(j->work == 6,
							      "%s: %u iterations", text,
							      j->work);
						else if (!punctured)
							CHECK(j->work == 1,
							      "%s: %u iterations", text,
							      j->work);
						else
							CHECK(j->work >= 1 &&
							          j->work <= 3,
							      "%s: %u iterations", text,
							      j->work);
						CHECK(j->out_bits == nb && j->soft_count == nb,
						      "%s: %u bits %u soft", text, j->out_bits,
						      j->soft_count);
						CHECK(bits_equal(out, want, nb),
						      "%s frame %u: bits differ", text, f);
						for (uint32_t b = 0; b < nb; b++)
							signs &= (soft[b] < 0) == (want[b] != 0) &&
							         soft[b] != 0.0f;
						CHECK(signs, "%s frame %u: soft output signs", text,
						      f);
					}
					rig_close(&v);
				}
	free(info);
	free(cw);
	rig_close(&r);
}

/* The same noisy frames through the portable decoder and the SIMD passes of level (the decoder
 * built at that level): groups of 32 frames, and for codes with a cyclic structure the frames
 * left over from the groups, one by one. */
static void test_simd_at(const char *code, double ebn0, uint32_t total, uint32_t first,
                         uint32_t count, const char *level)
{
	struct fec_encoder *enc;
	struct fec_prng p;
	struct rig r;
	uint8_t *bits, *sent, *ref_out;
	float *ref_soft;
	struct fec_job *ref_jobs;
	size_t n;

	fec_simd_set(level);
	if (rig_open(&r, code, total)) {
		CHECK(0, "cannot open %s", code);
		return;
	}
	if (fec_encoder_create(&r.spec, &enc))
		abort();
	bits = malloc(r.spec.u.ldpc.k);
	sent = malloc(r.spec.u.ldpc.n_tx);
	ref_out = malloc((size_t)total * r.b.out_stride);
	ref_soft = malloc((size_t)total * r.b.soft_stride * sizeof(float));
	ref_jobs = malloc(total * sizeof(*ref_jobs));
	fec_prng_seed(&p, 11);
	for (uint32_t f = 0; f < total; f++) {
		fec_prng_bits(&p, bits, r.spec.u.ldpc.k);
		fec_encode(enc, bits, r.spec.u.ldpc.k, sent, &n);
		util_channel_s8(&p, sent, n, ebn0, fec_spec_rate(&r.spec), r.spec.frame.llr_scale,
		                (int8_t *)r.b.in + (size_t)f * r.b.in_stride);
	}
	fec_simd_set("portable");
	rig_decode(&r, first, count);
	memcpy(ref_out, r.b.out, (size_t)total * r.b.out_stride);
	memcpy(ref_soft, r.b.soft, (size_t)total * r.b.soft_stride * sizeof(float));
	memcpy(ref_jobs, r.b.jobs, total * sizeof(*ref_jobs));
	fec_simd_set(level);
	rig_decode(&r, first, count);
	{
		unsigned decoded = 0, differ = 0, iters_seen = 0;
		uint32_t last_it = 0;

		for (uint32_t f = 0; f < total; f++) {
			const struct fec_job *a = &ref_jobs[f], *b = &r.b.jobs[f];

			if (f < first || f >= first + count) {
				differ += b->status != 0xEE;
				continue;
			}
			differ +=
			    a->status != b->status || a->work != b->work ||
			    a->out_bits != b->out_bits || a->soft_count != b->soft_count ||
			    memcmp(ref_out + f * r.b.out_stride, r.b.out + f * r.b.out_stride,
			           (a->out_bits + 7) / 8) ||
			    memcmp(ref_soft + f * r.b.soft_stride, r.b.soft + f * r.b.soft_stride,
			           a->soft_count * sizeof(float));
			decoded += a->status == FECD_STATUS_DECODED;
			iters_seen += a->work != last_it;
			last_it = a->work;
		}
		CHECK(differ == 0, "%s: %u of %u jobs differ between portable and %s", code,
		      differ, count, level);
		/* the point is to compare frames that stop at different iterations */
		printf("%s, %s%s at %.2f dB: %u/%u decoded, iterations varied %u times\n", code,
		       level, getenv("FECD_LDPC_CYC") ? " (FECD_LDPC_CYC=0)" : "", ebn0, decoded, count,
		       iters_seen);
	}
	free(ref_jobs);
	free(ref_soft);
	free(ref_out);
	free(sent);
	free(bits);
	fec_encoder_destroy(enc);
	rig_close(&r);
}

static void test_simd(const char *code, double ebn0, uint32_t total, uint32_t first, uint32_t count)
{
	for (unsigned level = FEC_SIMD_AVX2; level < FEC_SIMD_LEVELS; level++)
		if (fec_simd_available(level))
			test_simd_at(code, ebn0, total, first, count, fec_simd_level_name(level));
}

/* A job with the wrong length is erased and its neighbours decode as ever. */
static void test_erased(void)
{
	struct rig r;

	if (rig_open(&r, "mackay-1008", 40)) {
		CHECK(0, "cannot open mackay-1008");
		return;
	}
	for (int level = 0; level < 2; level++) {
		if (level && fec_simd_set("avx2"))
			break;
		if (!level)
			fec_simd_set("portable");
		memset((void *)r.b.in, CLEAN_S8, (size_t)40 * r.b.in_stride); /* all-zero word */
		for (uint32_t i = 0; i < 40; i++)
			r.b.jobs[i] = (struct fec_job){.in_len = r.info->frame_syms,
			                               .own_len = r.info->frame_syms};
		r.b.jobs[5].in_len = r.info->frame_syms - 1;
		CHECK(fec_decode(r.dec, r.scratch, &r.b, 0, 40) == 0, "decode");
		CHECK(r.b.jobs[5].status == FECD_STATUS_ERASED && r.b.jobs[5].out_bits == 0,
		      "level %d: short job: status %u", level, r.b.jobs[5].status);
		CHECK(r.b.jobs[4].status == FECD_STATUS_DECODED &&
		          r.b.jobs[39].status == FECD_STATUS_DECODED,
		      "level %d: neighbours %u %u", level, r.b.jobs[4].status, r.b.jobs[39].status);
	}
	rig_close(&r);
}

static void test_spec(void)
{
	struct fec_spec a, b;
	char err[256], text[512], desc[256];

	CHECK(fec_spec_from_string("ldpc,code=MACKAY_504_1008.alist,algo=spa", &a, err,
	                           sizeof(err)) == 0,
	      "%s", err);
	CHECK(a.u.ldpc.n == 1008 && a.u.ldpc.k == 504 && a.u.ldpc.n_tx == 1008, "n k n_tx");
	fec_spec_to_string(&a, text, sizeof(text));
	CHECK(!strcmp(text, "mackay-1008,algo=spa"), "text form: %s", text);
	CHECK(fec_spec_from_string(text, &b, err, sizeof(err)) == 0 && fec_spec_equal(&a, &b),
	      "round trip of %s", text);

	CHECK(fec_spec_from_string("dvbs2-1/2,alpha=0.8,offset=0.25,llr_scale=4.5,in=f32,"
	                           "framing=asm,asm=0xFAF320,asm_threshold=0.7,iters=50,"
	                           "early_stop=false,output=codeword",
	                           &a, err, sizeof(err)) == 0,
	      "%s", err);
	CHECK(a.frame.asm_bits == 24 && a.frame.asm_marker == 0xFAF320, "asm");
	CHECK(fabs(fec_spec_rate(&a) - 0.5) < 1e-12, "rate %g", fec_spec_rate(&a));
	CHECK(fec_encoded_len(&a, 32400) == 64800, "encoded_len");
	fec_spec_to_string(&a, text, sizeof(text));
	CHECK(!strncmp(text, "dvbs2-1/2,", 10), "text form: %s", text);
	CHECK(fec_spec_from_string(text, &b, err, sizeof(err)) == 0 && fec_spec_equal(&a, &b),
	      "round trip of %s", text);
	fec_family_by_id(FECD_FAMILY_LDPC)->spec_describe(&a, desc, sizeof(desc));
	CHECK(strstr(desc, "dvbs2-1/2") && strstr(desc, "(64800,32400)"), "describe: %s", desc);

	CHECK(fec_spec_from_string("nr-bg2,z=16", &a, err, sizeof(err)) == 0, "%s", err);
	CHECK(a.u.ldpc.n_tx == a.u.ldpc.n - 32, "nr-bg2 z=16: %u of %u sent", a.u.ldpc.n_tx,
	      a.u.ldpc.n);

	err[0] = '\0';
	CHECK(fec_spec_from_string("ldpc,code=no-such-file.alist", &a, err, sizeof(err)) < 0 &&
	          strstr(err, "no-such-file.alist"),
	      "missing file: %s", err);
	CHECK(fec_spec_from_string("ldpc", &a, err, sizeof(err)) < 0 && strstr(err, "code"),
	      "no code: %s", err);
	CHECK(fec_spec_from_string("mackay-1008,alpha=2", &a, err, sizeof(err)) < 0 &&
	          strstr(err, "alpha"),
	      "alpha range: %s", err);
	CHECK(fec_spec_from_string("mackay-1008,asm=XYZ", &a, err, sizeof(err)) < 0 &&
	          strstr(err, "asm"),
	      "asm: %s", err);
	CHECK(fec_spec_from_string("mackay-1008,algo=bp", &a, err, sizeof(err)) < 0 &&
	          strstr(err, "spa"),
	      "algo: %s", err);
}

int main(void)
{
	const char *dir = getenv("FECD_CODES_DIR");
	struct stat st;

	if (!dir || stat(dir, &st) || !S_ISDIR(st.st_mode))
		check_skip("the LDPC matrices (../shared/codes, FECD_CODES_DIR) are not here");
	test_spec();
	test_clean("mackay-1008", false);
	test_clean("wimax-576", false);
	test_clean("ccsds-128", false);
	test_clean("nr-bg2,z=16", true);
	test_clean("ar4ja-4096", true);
	test_erased();
	if (fec_simd_available(FEC_SIMD_AVX2)) {
		test_simd("mackay-1008,algo=nms", 1.6, 45, 3, 40);
		test_simd("mackay-1008,algo=ms,early_stop=false,iters=7", 1.6, 45, 3, 40);
		test_simd("mackay-1008,algo=nms,schedule=flooding", 1.8, 45, 2, 41);
		test_simd("nr-bg2,z=16,algo=oms,schedule=flooding,output=codeword", 1.5, 40, 0, 33);
		test_simd("wimax-576,algo=oms,output=codeword", 2.0, 70, 1, 65);
		test_simd("nr-bg2,z=16,algo=nms,llr_scale=4", 1.5, 40, 0, 37);
		/* a group of 32, and one left over for the single-frame (cyclic) pass */
		test_simd("dvbs2-1/2,algo=nms,iters=10,alpha=0.875", 1.6, 34, 1, 33);
		/* fewer than 16: all through the cyclic pass */
		test_simd("dvbs2-1/2,algo=nms,iters=12", 1.7, 20, 5, 15);
		test_simd("dvbs2-3/4,algo=oms,output=codeword", 2.6, 14, 1, 12);
		test_simd("nr-bg1,z=384,algo=nms,iters=6,early_stop=false", 2.2, 12, 1, 10);
		/* a group size that is no multiple of 32: a part-filled chunk in every group */
		test_simd("nr-bg2,z=72,algo=oms,output=codeword", 2.0, 14, 0, 13);
		/* without the cyclic pass: the last frame in a padded group */
		setenv("FECD_LDPC_CYC", "0", 1);
		test_simd("dvbs2-1/2,algo=nms,iters=10,alpha=0.875", 1.6, 34, 1, 33);
		unsetenv("FECD_LDPC_CYC");
		/* 648 symbols: the input transpose's last columns, past whole blocks of 16 */
		test_simd("wifi-648-5/6,algo=nms,early_stop=false,iters=8", 3.0, 40, 5, 33);
	} else {
		printf("no AVX2 here: the SIMD comparison is left out\n");
	}
	return check_done();
}
