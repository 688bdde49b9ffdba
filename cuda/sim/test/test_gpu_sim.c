/*
 * The GPU simulator (fecd_cuda_sim_*) against the CPU, label gpu:
 *   - encoders: the device's code bits equal fec_encode's for the same information bits
 *     (viterbi: CCSDS stream, terminated and truncated frames, punctured DVB-S and 802.11
 *     rates; ldpc: every ldpc preset (the DVB-S2 form's encoder and the plan encoder), generated
 *     regular and PEG codes and an alist file by name; fano: K 3..64, n 2..4, both notations,
 *     frames of 1 to 5000 bits; nbldpc: q 2..256, files and generated codes, both bit orders,
 *     each form of the device's program), and noiseless frames reach the decoder as fecd-feed
 *     --noiseless sends them (+-40); output=codeword on a code whose information bits are not
 *     its first k is refused (-FEC_ENOTSUP, naming --all-zero) and simulated with the all-zero
 *     codeword; nbldpc's q-ary input is refused (-FEC_ENOTSUP);
 *   - noiseless frames decode with no error;
 *   - determinism: the same seed's frames split differently over runs and batches give the
 *     same tally, and runs submitted ahead (submit, wait) the tallies of run;
 *   - the tally's frames_wrong_bits (frames with a wrong bit) and bit_errors_sq (against a
 *     per-frame recount where frames err one at a time);
 *   - frame lengths where frames vary (fecd-sim's default, --frame-bits, refusals);
 *   - statistics: BER and FER against a CPU simulation of the same frames' kind (fec_prng bits,
 *     fec_encode, BPSK/AWGN at the frame's rate, fecd-feed's quantizer, fec_decode; a frame
 *     error is a wrong bit or a status other than decoded) at 2 points per code (fano and
 *     nbldpc: one): the 95% confidence intervals must overlap (FER: Wilson; BER: batch means
 *     over 20 runs).
 *   - the all-zero codeword (fano, nbldpc): all bits 0, its FER within random bits' interval.
 * Arguments (fano, nbldpc) run only those families' cases.
 * A failing comparison names the code, the frame and the first differing index. Exits 77
 * without a GPU; DVB-S2 cases are skipped, saying so, without the codes folder.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awgn.h"
#include "check.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "nbldpc.h"
#include "prng.h"
#include "sim.h"
#include "sim_agree.h"
#include "softbits.h"

#define PEEK_FRAMES 5

static struct fecd_cuda *ctx;

struct code {
	struct fec_spec spec;
	struct fec_decoder *dec;
	struct fecd_cuda_sim *sim;
	struct fecd_cuda_sim_geometry g;
	struct fec_encoder *enc;
	char text[160];
};

/* text's code and its simulator (all_zero: sending the all-zero codeword); frame_bits:
 * fecd_cuda_sim_set_frame_bits (0: the default). */
static int code_open_az(struct code *c, const char *text, uint32_t frame_bits, bool all_zero)
{
	char err[512];
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(c->text, sizeof(c->text), "%s", text);
	if (fec_spec_from_string(text, &c->spec, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", text, err);
		return -1;
	}
	rc = fec_decoder_create(&c->spec, &c->dec);
	if (!rc)
		rc = fec_encoder_create(&c->spec, &c->enc);
	if (rc) {
		fprintf(stderr, "%s: %s\n", text, fec_strerror(rc));
		return -1;
	}
	rc = fecd_cuda_sim_open(ctx, c->dec, "awgn", all_zero, &c->sim, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s: fecd_cuda_sim_open: %s\n", text, err);
		return rc;
	}
	if (frame_bits) {
		rc = fecd_cuda_sim_set_frame_bits(c->sim, frame_bits, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "%s: set_frame_bits %u: %s\n", text, frame_bits, err);
			return rc;
		}
	}
	fecd_cuda_sim_geometry(c->sim, &c->g);
	return 0;
}

static int code_open_bits(struct code *c, const char *text, uint32_t frame_bits)
{
	return code_open_az(c, text, frame_bits, false);
}

static int code_open(struct code *c, const char *text)
{
	return code_open_bits(c, text, 0);
}

static void code_close(struct code *c)
{
	fecd_cuda_sim_close(c->sim);
	if (c->enc)
		fec_encoder_destroy(c->enc);
	if (c->dec)
		fec_decoder_destroy(c->dec);
	memset(c, 0, sizeof(*c));
}

/* The CPU encoder's code bits for one frame's generated bits (the geometry's layout): a stream
 * job's bits are K-1 bits of state then the job's stages, so the stream encoder first takes pad
 * zeros and those K-1 bits (pad making them whole puncturing periods, whose symbols are dropped:
 * the state after them is the K-1 bits'); a frame's information bits are cmp_bits from
 * cmp_first. Returns the code bits written, or 0. */
static size_t cpu_encode(struct code *c, const uint8_t *bits, uint8_t *out)
{
	const struct fec_info *info = fec_decoder_info(c->dec);
	size_t n = 0;

	if (info->kind == FEC_KIND_STREAM) {
		const struct conv_spec *cs = &fec_decoder_spec(c->dec)->u.conv;
		unsigned kk = cs->k - 1, per = cs->punct_period, pad = (per - kk % per) % per;
		size_t nin = pad + c->g.gen_bits, skip;
		uint8_t *in = calloc(nin, 1), *all = malloc(fec_encoded_len(&c->spec, nin) + 1);

		if (!in || !all) {
			free(in);
			free(all);
			return 0;
		}
		memcpy(in + pad, bits, c->g.gen_bits);
		fec_encoder_reset(c->enc);
		if (fec_encode(c->enc, in, nin, all, &n) == 0) {
			skip = fec_encoded_len(&c->spec, pad + kk);
			n -= skip;
			memcpy(out, all + skip, n);
		} else {
			n = 0;
		}
		free(in);
		free(all);
		return n;
	}
	if (fec_encode(c->enc, bits + c->g.cmp_first, c->g.cmp_bits, out, &n))
		return 0;
	return n;
}

/* ---- Encoders */

static void check_encoder(const char *text, uint32_t frame_bits)
{
	struct code c;
	char err[512];

	if (code_open_bits(&c, text, frame_bits)) {
		CHECK(0, "%s: cannot open", text);
		code_close(&c);
		return;
	}
	const struct fecd_cuda_sim_geometry *g = &c.g;
	uint8_t *bits = malloc((size_t)PEEK_FRAMES * g->gen_bits);
	uint8_t *code = malloc((size_t)PEEK_FRAMES * g->code_syms);
	uint8_t *ref = malloc((size_t)g->code_syms + 64);
	int8_t *in = malloc((size_t)PEEK_FRAMES * g->in_stride * (g->in_f32 ? 4 : 1));
	unsigned bad = 0, badq = 0;

	CHECK(bits && code && ref && in, "out of memory");
	/* frames 1000.. of seed 7: any frame, not only the first */
	int rc = fecd_cuda_sim_peek(c.sim, INFINITY, 7, 1000, PEEK_FRAMES, bits, code, in, err,
	                            sizeof(err));
	CHECK(rc == 0, "%s: peek: %s", text, err);
	for (unsigned f = 0; !rc && f < PEEK_FRAMES; f++) {
		const uint8_t *fb = bits + (size_t)f * g->gen_bits;
		const uint8_t *fc = code + (size_t)f * g->code_syms;
		size_t n = cpu_encode(&c, fb, ref);
		const uint32_t free_bits = g->gen_bits - g->zero_head - g->zero_tail;
		unsigned ones = 0;

		for (uint32_t j = 0; j < g->gen_bits; j++) {
			if ((j < g->zero_head || j >= g->gen_bits - g->zero_tail) && fb[j])
				bad++;
			else
				ones += fb[j];
		}
		/* a test of randomness where the frame has bits enough for one */
		CHECK(free_bits < 32 || (ones > free_bits / 4 && ones < free_bits * 3 / 4),
		      "%s frame %u: %u ones in %u random bits: not random", text, f, ones,
		      free_bits);
		CHECK(n == g->code_syms, "%s frame %u: CPU encoder gave %zu code bits, device %u",
		      text, f, n, g->code_syms);
		for (uint32_t j = 0; j < g->code_syms && n == g->code_syms; j++)
			if (fc[j] != ref[j]) {
				if (!bad++)
					fprintf(
					    stderr,
					    "%s frame %u: code bit %u: device %u, fec_encode %u\n",
					    text, f, j, fc[j], ref[j]);
			}
		for (uint32_t j = 0; j < g->code_syms && !g->in_f32; j++) {
			int8_t want = fc[j] ? -40 : 40, got = in[(size_t)f * g->in_stride + j];

			if (got != want && !badq++)
				fprintf(stderr, "%s frame %u: noiseless input %u: %d, want %d\n",
				        text, f, j, got, want);
		}
	}
	CHECK(bad == 0, "%s: %u code bits (or forced-zero bits) differ", text, bad);
	CHECK(badq == 0, "%s: %u noiseless input values differ", text, badq);
	printf("encoder %-44s %u frames of %u bits, %u code bits: %s\n", text, PEEK_FRAMES,
	       g->cmp_bits, g->code_syms, bad || badq ? "DIFFER" : "same as fec_encode");
	free(bits);
	free(code);
	free(ref);
	free(in);
	code_close(&c);
}

/* Frame lengths where frames vary: fecd-sim's default (the longest of at most 1024 bits that
 * fills whole periods, tail included), a length set, and lengths refused (the default kept). */
static void check_frame_bits(void)
{
	static const struct {
		const char *text;
		uint32_t set, want; /* set 0: the default; want 0: refused */
	} cases[] = {
	    {"ccsds,mode=terminated", 0, 1024},
	    {"dvbs-3/4,mode=terminated", 0, 1023},
	    {"dvbs-7/8,mode=truncated", 0, 1022},
	    {"ccsds,mode=terminated,max_frame_bits=700", 0, 700},
	    {"ccsds,mode=terminated", 5000, 5000},
	    {"ccsds,mode=terminated", 9000, 0},
	    {"dvbs-3/4,mode=terminated", 1001, 0},
	    {"ccsds", 100, 0},
	};
	char err[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct code c;
		int rc;

		if (code_open(&c, cases[i].text)) {
			CHECK(0, "%s: cannot open", cases[i].text);
			code_close(&c);
			continue;
		}
		uint32_t def = c.g.cmp_bits;

		rc = cases[i].set
		         ? fecd_cuda_sim_set_frame_bits(c.sim, cases[i].set, err, sizeof(err))
		         : 0;
		fecd_cuda_sim_geometry(c.sim, &c.g);
		if (cases[i].want) {
			CHECK(rc == 0 && c.g.cmp_bits == cases[i].want, "%s frame_bits %u: %u bits",
			      cases[i].text, cases[i].set, c.g.cmp_bits);
		} else {
			CHECK(rc == -FEC_EINVAL && c.g.cmp_bits == def,
			      "%s frame_bits %u: rc %d, %u bits", cases[i].text, cases[i].set, rc,
			      c.g.cmp_bits);
			printf("frame_bits %u refused: %s\n", cases[i].set, err);
		}
		code_close(&c);
	}
}

/* ---- Runs */

static void check_noiseless(const char *text, uint64_t frames)
{
	struct fecd_cuda_sim_tally t = {0};
	struct code c;

	if (code_open(&c, text)) {
		CHECK(0, "%s: cannot open", text);
		code_close(&c);
		return;
	}
	CHECK(sim_run_print(c.sim, c.text, INFINITY, 3, 0, frames, &t) == 0, "%s: run", text);
	CHECK(t.frames == frames && t.bits == frames * c.g.cmp_bits, "%s: %llu frames %llu bits",
	      text, (unsigned long long)t.frames, (unsigned long long)t.bits);
	CHECK(t.bit_errors == 0 && t.frame_errors == 0 && t.unconverged == 0,
	      "%s noiseless: %llu bit errors, %llu frame errors, %llu unconverged", text,
	      (unsigned long long)t.bit_errors, (unsigned long long)t.frame_errors,
	      (unsigned long long)t.unconverged);
	printf("noiseless %-42s %llu frames, %llu bits: %llu errors\n", text,
	       (unsigned long long)t.frames, (unsigned long long)t.bits,
	       (unsigned long long)t.bit_errors);
	code_close(&c);
}

/* One run of count frames against three runs over the same frames, and against a simulator
 * whose batches are small (batch boundaries elsewhere). */
static void check_split(const char *text, double ebn0, uint64_t count)
{
	struct fecd_cuda_sim_tally one = {0}, three = {0}, small = {0};
	struct code c, d;
	uint64_t a = count / 3, b = count / 2;

	if (code_open(&c, text)) {
		CHECK(0, "%s: cannot open", text);
		code_close(&c);
		return;
	}
	CHECK(sim_run_print(c.sim, c.text, ebn0, 11, 500, count, &one) == 0, "run");
	CHECK(sim_run_print(c.sim, c.text, ebn0, 11, 500, a, &three) == 0, "run");
	CHECK(sim_run_print(c.sim, c.text, ebn0, 11, 500 + a, b, &three) == 0, "run");
	CHECK(sim_run_print(c.sim, c.text, ebn0, 11, 500 + a + b, count - a - b, &three) == 0,
	      "run");
	{
		/* the same three runs submitted ahead, waited for one by one */
		struct fecd_cuda_sim_tally ahead = {0};
		char err[512];
		int rc = fecd_cuda_sim_submit(c.sim, ebn0, 11, 500, a, err, sizeof(err));

		if (!rc)
			rc = fecd_cuda_sim_submit(c.sim, ebn0, 11, 500 + a, b, err, sizeof(err));
		if (!rc)
			rc = fecd_cuda_sim_submit(c.sim, ebn0, 11, 500 + a + b, count - a - b, err,
			                          sizeof(err));
		CHECK(rc == 0 && fecd_cuda_sim_pending(c.sim) == 3, "%s: submit: %s", text, err);
		CHECK(fecd_cuda_sim_run(c.sim, ebn0, 11, 0, 1, &ahead, err, sizeof(err)) ==
		          -FEC_EINVAL,
		      "%s: run with runs pending", text);
		while (rc == 0 && fecd_cuda_sim_pending(c.sim))
			rc = fecd_cuda_sim_wait(c.sim, &ahead, err, sizeof(err));
		CHECK(rc == 0, "%s: wait: %s", text, err);
		sim_tally_print("three runs submitted ahead", &ahead);
		CHECK(sim_tally_same(&one, &ahead), "%s: runs submitted ahead differ", text);
	}
	CHECK(one.frames_wrong_bits <= one.frame_errors &&
	          one.frame_errors - one.frames_wrong_bits <= one.unconverged &&
	          (one.bit_errors == 0) == (one.frames_wrong_bits == 0) &&
	          one.bit_errors_sq >= one.bit_errors,
	      "%s: wrong-bit frames %llu, frame errors %llu, unconverged %llu, bit errors %llu, "
	      "squares %llu: inconsistent",
	      text, (unsigned long long)one.frames_wrong_bits, (unsigned long long)one.frame_errors,
	      (unsigned long long)one.unconverged, (unsigned long long)one.bit_errors,
	      (unsigned long long)one.bit_errors_sq);
	setenv("FECD_SIM_BATCH", "37", 1);
	int rc = code_open(&d, text);
	unsetenv("FECD_SIM_BATCH");
	CHECK(rc == 0 && d.g.batch == 37, "%s: small batches: %u", text, d.g.batch);
	if (rc == 0)
		CHECK(sim_run_print(d.sim, d.text, ebn0, 11, 500, count, &small) == 0, "run");
	printf("split %s at %.2f dB, batches of %u and 37:\n", text, ebn0, c.g.batch);
	sim_tally_print("one run", &one);
	sim_tally_print("three runs", &three);
	sim_tally_print("batches of 37", &small);
	CHECK(one.frame_errors > 0, "%s: no frame errors at %.2f dB: the split test sees nothing",
	      text, ebn0);
	CHECK(sim_tally_same(&one, &three), "%s: one run and three runs differ", text);
	CHECK(sim_tally_same(&one, &small), "%s: batches of %u and of 37 differ", text, c.g.batch);
	code_close(&d);
	code_close(&c);
}

/* bit_errors_sq against frames run one at a time (each run's bit errors squared, summed), with
 * frames_wrong_bits against the runs with a wrong bit. */
static void check_squares(const char *text, double ebn0, uint64_t frames)
{
	struct fecd_cuda_sim_tally all = {0};
	uint64_t sq = 0, wrong = 0, be = 0;
	struct code c;

	if (code_open(&c, text)) {
		CHECK(0, "%s: cannot open", text);
		code_close(&c);
		return;
	}
	CHECK(sim_run_print(c.sim, c.text, ebn0, 5, 0, frames, &all) == 0, "%s: run", text);
	for (uint64_t f = 0; f < frames; f++) {
		struct fecd_cuda_sim_tally one = {0};

		if (sim_run_print(c.sim, c.text, ebn0, 5, f, 1, &one))
			break;
		sq += one.bit_errors * one.bit_errors;
		be += one.bit_errors;
		wrong += one.bit_errors > 0;
		CHECK(one.bit_errors_sq == one.bit_errors * one.bit_errors &&
		          one.frames_wrong_bits == (one.bit_errors > 0),
		      "%s frame %llu: %llu bit errors, squares %llu, wrong-bit frames %llu", text,
		      (unsigned long long)f, (unsigned long long)one.bit_errors,
		      (unsigned long long)one.bit_errors_sq,
		      (unsigned long long)one.frames_wrong_bits);
	}
	printf("squares %s at %.2f dB: %llu frames, %llu with wrong bits (run: %llu), sum of "
	       "squares %llu (run: %llu), frame errors %llu\n",
	       text, ebn0, (unsigned long long)frames, (unsigned long long)wrong,
	       (unsigned long long)all.frames_wrong_bits, (unsigned long long)sq,
	       (unsigned long long)all.bit_errors_sq, (unsigned long long)all.frame_errors);
	CHECK(wrong > 0 && wrong < frames, "%s at %.2f dB: %llu of %llu frames wrong: no test",
	      text, ebn0, (unsigned long long)wrong, (unsigned long long)frames);
	CHECK(all.bit_errors == be && all.bit_errors_sq == sq && all.frames_wrong_bits == wrong,
	      "%s: one run and frames one at a time differ", text);
	code_close(&c);
}

/* output=codeword on a code whose information bits are not the first k columns: refused with
 * the reason and --all-zero named; with the all-zero codeword simulated without an encoder. */
static void check_all_zero_only(const char *text)
{
	struct fecd_cuda_sim_tally quiet = {0}, noisy = {0};
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	struct fecd_cuda_sim *sim = NULL;
	char err[512] = "";
	int rc;

	CHECK(fec_spec_from_string(text, &spec, err, sizeof(err)) == 0 &&
	          fec_decoder_create(&spec, &dec) == 0,
	      "%s: %s", text, err);
	if (!dec)
		return;
	rc = fecd_cuda_sim_open(ctx, dec, "awgn", false, &sim, err, sizeof(err));
	CHECK(rc == -FEC_ENOTSUP && strstr(err, "--all-zero"), "%s: open returned %d: %s", text, rc,
	      err);
	printf("refused %s: %s\n", text, err);
	fecd_cuda_sim_close(sim);
	sim = NULL;
	CHECK(!fecd_cuda_sim_supports(fec_decoder_spec(dec), "awgn"), "%s: supported", text);
	CHECK(fecd_cuda_sim_supports_all_zero(fec_decoder_spec(dec), "awgn"),
	      "%s: not supported with the all-zero codeword", text);
	rc = fecd_cuda_sim_open(ctx, dec, "awgn", true, &sim, err, sizeof(err));
	CHECK(rc == 0, "%s all-zero: open: %s", text, err);
	if (rc == 0) {
		CHECK(fecd_cuda_sim_run(sim, INFINITY, 1, 0, 500, &quiet, err, sizeof(err)) == 0 &&
		          fecd_cuda_sim_run(sim, 1.5, 1, 0, 500, &noisy, err, sizeof(err)) == 0,
		      "%s all-zero: run: %s", text, err);
		CHECK(quiet.frames == 500 && quiet.frame_errors == 0,
		      "%s all-zero noiseless: %llu frame errors", text,
		      (unsigned long long)quiet.frame_errors);
		CHECK(noisy.frame_errors > 0 && noisy.frame_errors < noisy.frames,
		      "%s all-zero at 1.5 dB: %llu of %llu frames wrong", text,
		      (unsigned long long)noisy.frame_errors, (unsigned long long)noisy.frames);
		printf("all-zero %s: noiseless %llu/%llu, 1.5 dB %llu/%llu frame errors\n", text,
		       (unsigned long long)quiet.frame_errors, (unsigned long long)quiet.frames,
		       (unsigned long long)noisy.frame_errors, (unsigned long long)noisy.frames);
	}
	fecd_cuda_sim_close(sim);
	fec_decoder_destroy(dec);
}

/* ---- Statistics */

/* The CPU simulation: frames of the same layout from fec_prng, fec_encode, BPSK/AWGN
 * (fec_awgn_llr), fecd-feed's s8 quantizer at the code's llr_scale (else fecd-feed's 40 / mean
 * LLR), as the GPU engine and fecd-sim's CPU engine take it, fec_decode in batches of
 * CPU_BATCH; SIM_AGREE_CHUNKS runs of frames / SIM_AGREE_CHUNKS frames each (rounded down to
 * whole batches). */
#define CPU_BATCH 32
static int cpu_estimate(struct code *c, double ebn0, uint64_t frames, struct sim_estimate *e)
{
	const struct fecd_cuda_sim_geometry *g = &c->g;
	const struct fec_info *info = fec_decoder_info(c->dec);
	const double sigma = fec_awgn_sigma(ebn0, g->rate);
	const float scale = info->frame.llr_scale > 0 ? info->frame.llr_scale
	                                              : (float)(40.0 / (2.0 / (sigma * sigma)));
	const size_t ostride = (info->max_out_bits + 7) / 8;
	uint8_t *bits = malloc((size_t)CPU_BATCH * g->gen_bits);
	uint8_t *code = malloc((size_t)g->code_syms + 64);
	float *llr = malloc((size_t)g->code_syms * sizeof(float));
	int8_t *in = malloc((size_t)CPU_BATCH * g->code_syms);
	uint8_t *out = malloc((size_t)CPU_BATCH * ostride);
	void *scratch = malloc(info->scratch_bytes ? info->scratch_bytes : 1);
	struct fec_job jobs[CPU_BATCH];
	uint64_t per = frames / SIM_AGREE_CHUNKS / CPU_BATCH * CPU_BATCH;
	uint64_t cfe = 0, cbe = 0; /* the run's frame and bit errors */
	struct fec_prng p;
	int rc = -1;

	memset(e, 0, sizeof(*e));
	if (!bits || !code || !llr || !in || !out || !scratch || per == 0)
		goto out;
	fec_prng_seed(&p, 4242);
	for (uint64_t f0 = 0; f0 < per * SIM_AGREE_CHUNKS; f0 += CPU_BATCH) {
		struct fec_batch b = {.count = CPU_BATCH,
		                      .jobs = jobs,
		                      .in = in,
		                      .in_stride = g->code_syms,
		                      .out = out,
		                      .out_stride = ostride};

		for (unsigned i = 0; i < CPU_BATCH; i++) {
			uint8_t *fb = bits + (size_t)i * g->gen_bits;

			fec_prng_bits(&p, fb, g->gen_bits);
			for (uint32_t j = 0; j < g->gen_bits; j++)
				if (j < g->zero_head || j >= g->gen_bits - g->zero_tail)
					fb[j] = 0;
			if (cpu_encode(c, fb, code) != g->code_syms)
				goto out;
			fec_awgn_llr(&p, code, g->code_syms, sigma, 1.0f, llr);
			fec_llr_quantize(FECD_FMT_S8_LLR, llr, g->code_syms, false, scale,
			                 in + (size_t)i * g->code_syms);
			jobs[i] = g->job;
		}
		if (fec_decode(c->dec, scratch, &b, 0, CPU_BATCH))
			goto out;
		for (unsigned i = 0; i < CPU_BATCH; i++) {
			const uint8_t *fb = bits + (size_t)i * g->gen_bits, *o = out + i * ostride;
			uint32_t got =
			    jobs[i].out_bits < g->cmp_bits ? jobs[i].out_bits : g->cmp_bits;
			uint64_t errs = g->cmp_bits - got;

			for (uint32_t j = 0; j < got; j++)
				errs += (o[j / 8] >> (7 - j % 8) & 1u) != fb[g->cmp_first + j];
			cbe += errs;
			cfe += errs != 0 || jobs[i].status != FECD_STATUS_DECODED;
		}
		if ((f0 + CPU_BATCH) % per == 0) {
			sim_estimate_add(e, per, cfe, per * g->cmp_bits, cbe);
			cfe = cbe = 0;
		}
	}
	rc = sim_estimate_finish(e);
out:
	free(bits);
	free(code);
	free(llr);
	free(in);
	free(out);
	free(scratch);
	return rc;
}

static void check_stats(const char *text, double ebn0, uint64_t gpu_frames, uint64_t cpu_frames)
{
	struct sim_estimate ge, ce;
	struct code c;
	char err[512] = "", what[256], why[1024];

	if (code_open(&c, text)) {
		CHECK(0, "%s: cannot open", text);
		code_close(&c);
		return;
	}
	int rg = sim_estimate_gpu(c.sim, ebn0, gpu_frames, &ge, err, sizeof(err));
	int rcpu = cpu_estimate(&c, ebn0, cpu_frames, &ce);

	CHECK(rg == 0 && rcpu == 0, "%s: simulation failed: %s", text, err);
	if (!rg && !rcpu) {
		printf("stats %s at %.2f dB\n", text, ebn0);
		snprintf(what, sizeof(what), "%s at %.2f dB", text, ebn0);
		CHECK(sim_agree(what, &ge, &ce, why, sizeof(why)) == 0, "%s", why);
	}
	code_close(&c);
}

/* ---- fano and nbldpc */

/* The all-zero codeword (--all-zero): generated and code bits all 0, and its FER at ebn0 within
 * the interval of random information bits' (the code is linear, the decoder symmetric). */
static void check_all_zero(const char *text, double ebn0, uint64_t frames)
{
	struct fecd_cuda_sim_tally tr = {0}, tz = {0};
	struct code r, z;
	char err[512];

	if (code_open(&r, text) || code_open_az(&z, text, 0, true)) {
		CHECK(0, "%s: cannot open", text);
		code_close(&r);
		code_close(&z);
		return;
	}
	uint8_t *bits = malloc((size_t)PEEK_FRAMES * z.g.gen_bits);
	uint8_t *code = malloc((size_t)PEEK_FRAMES * z.g.code_syms);
	unsigned ones = 0;

	CHECK(bits && code, "out of memory");
	CHECK(fecd_cuda_sim_peek(z.sim, INFINITY, 7, 0, PEEK_FRAMES, bits, code, NULL, err,
	                         sizeof(err)) == 0,
	      "%s: peek: %s", text, err);
	for (size_t i = 0; i < (size_t)PEEK_FRAMES * z.g.gen_bits; i++)
		ones += bits[i];
	for (size_t i = 0; i < (size_t)PEEK_FRAMES * z.g.code_syms; i++)
		ones += code[i];
	CHECK(ones == 0, "%s all-zero: %u ones among the bits and code bits", text, ones);
	CHECK(sim_run_print(r.sim, r.text, ebn0, 5, 0, frames, &tr) == 0 &&
	          sim_run_print(z.sim, z.text, ebn0, 5, 0, frames, &tz) == 0,
	      "%s: runs", text);
	double rlo, rhi, zlo, zhi;
	sim_wilson95(tr.frame_errors, tr.frames, &rlo, &rhi);
	sim_wilson95(tz.frame_errors, tz.frames, &zlo, &zhi);
	printf("all-zero %s at %.2f dB: FER %.4g [%.4g, %.4g], random bits %.4g [%.4g, %.4g]\n",
	       text, ebn0, (double)tz.frame_errors / tz.frames, zlo, zhi,
	       (double)tr.frame_errors / tr.frames, rlo, rhi);
	CHECK(tz.frame_errors >= 10 && tr.frame_errors >= 10,
	      "%s at %.2f dB: too few frame errors to compare (%llu, %llu)", text, ebn0,
	      (unsigned long long)tz.frame_errors, (unsigned long long)tr.frame_errors);
	CHECK(sim_agree_overlap(rlo, rhi, zlo, zhi), "%s at %.2f dB: all-zero FER interval apart",
	      text, ebn0);
	free(bits);
	free(code);
	code_close(&r);
	code_close(&z);
}

/* fano: codes of every K the GPU decoder takes, both notations, n = 2..4, short and long frames;
 * the statistics at one point. */
static void check_fano(void)
{
	static const char *const codes[] = {
	    "whd-k7",
	    "nasa-k32",
	    "wspr",
	    "nasa-k32,frame_bits=5000",
	    "fano,k=3,polys=7:5,frame_bits=1",
	    "fano,k=64,polys_karn=f2d05351e4613c47:b1a2c3d4e5f60789,frame_bits=300",
	    "fano,k=64,polys_karn=8000000000000001:ffffffffffffffff:c3a5f00f12345679,"
	    "frame_bits=777",
	    "fano,k=40,polys=17654321076543:12345670123457:13572461357247:11111111111111,"
	    "frame_bits=1000",
	    "fano,k=33,polys_karn=1deadbeef:1f0f0f0f1:12468ace1,frame_bits=64,algo=bfa",
	};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		check_encoder(codes[i], 0);
	check_noiseless("whd-k7", 3000);
	check_noiseless("nasa-k32,algo=bfa", 2000);
	check_noiseless("whd-k7,in=f32", 1000);
	check_noiseless("fano,k=64,polys_karn=8000000000000001:ffffffffffffffff:c3a5f00f12345679,"
	                "frame_bits=777",
	                1000);
	check_split("whd-k7", 3.0, 3000);
	check_stats("whd-k7", 3.0, 20000, 4000);
	check_all_zero("whd-k7", 3.0, 20000);
}

enum nb_form { NB_DENSE, NB_PEEL, NB_GAP_MAP, NB_GAP_TWICE, NB_FORMS };

/* The device program's form for the code (nbldpc_gpu_sim.cu's choice, from how codec/nbldpc
 * encodes it): the dense rows, the peeling, or with a gap, its dense map where g k <= nnz, else
 * two peelings. */
static enum nb_form nb_form(const struct code *c, char *buf, size_t len)
{
	const struct nbldpc_code *nc = nbldpc_decoder_code(c->dec);
	struct nbldpc_enc_plan_view v;

	if (!nc->plan) {
		snprintf(buf, len, "the dense rows, k=%u rank=%u", nc->k, nc->rank);
		return NB_DENSE;
	}
	nbldpc__enc_plan_view(nc->plan, &v);
	snprintf(buf, len, "the peeling, g=%u k=%u nnz=%u", v.g, nc->k, nc->nnz);
	return !v.g ? NB_PEEL : (uint64_t)v.g * nc->k <= nc->nnz ? NB_GAP_MAP : NB_GAP_TWICE;
}

/* nbldpc: q = 2..256, files and generated codes, both bit orders, float input, each of the
 * encoder's forms; q-ary input refused; the statistics at one point. */
static void check_nbldpc(bool files)
{
	static const struct {
		const char *text;
		bool file;
	} codes[] = {
	    {"nb60-gf64", true},
	    {"bds-b1c-sf2", true},
	    {"bds-b2a,bit_order=lsb", true},
	    {"gf64-5040", false},
	    {"gf256-5040", false},
	    {"gf8-5040,bit_order=lsb", false},
	    {"gf16-5040,in=f32", false},
	    {"nbldpc,code=regular,q=2,n=1000,dv=3,dc=6", false},
	    {"nbldpc,code=regular,q=2,n=96,dv=2,dc=4", false},
	    {"nbldpc,code=regular,q=16,n=120,dv=3,dc=6", false},
	    {"nbldpc,code=regular,q=64,n=200,dv=2,dc=4", false},
	    {"nbldpc,code=regular,q=128,n=96,dv=2,dc=3", false},
	    {"nbldpc,code=regular,q=4,n=600,dv=3,dc=6,seed=3", false},
	};
	unsigned forms[NB_FORMS] = {0};
	char err[512], form[128];

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct code c;

		if (codes[i].file && !files)
			continue;
		check_encoder(codes[i].text, 0);
		if (code_open(&c, codes[i].text) == 0) {
			forms[nb_form(&c, form, sizeof(form))]++;
			printf("  %s: codec/nbldpc encodes by %s\n", codes[i].text, form);
		}
		code_close(&c);
	}
	CHECK(forms[NB_DENSE] && forms[NB_GAP_MAP] && forms[NB_GAP_TWICE],
	      "nbldpc: the cases cover %u codes of dense rows, %u of a gap's map, %u of two "
	      "peelings: each form must be checked",
	      forms[NB_DENSE], forms[NB_GAP_MAP], forms[NB_GAP_TWICE]);
	{
		/* q-ary input: the GPU simulator sends bit LLRs */
		struct fec_spec spec;
		struct fec_decoder *dec = NULL;
		struct fecd_cuda_sim *sim = NULL;

		CHECK(fec_spec_from_string("nbldpc,code=regular,q=16,n=120,dv=3,dc=6,in=f32v",
		                           &spec, err, sizeof(err)) == 0 &&
		          fec_decoder_create(&spec, &dec) == 0,
		      "f32v code: %s", err);
		if (dec) {
			int rc =
			    fecd_cuda_sim_open(ctx, dec, "awgn", false, &sim, err, sizeof(err));

			CHECK(rc == -FEC_ENOTSUP, "f32v: open returned %d", rc);
			CHECK(!fecd_cuda_sim_supports(fec_decoder_spec(dec), "awgn"),
			      "f32v: supported");
			printf("in=f32v: %s\n", err);
			fecd_cuda_sim_close(sim);
			fec_decoder_destroy(dec);
		}
	}
	check_noiseless("gf64-5040", 2000);
	check_noiseless("gf64-5040,algo=tms", 2000);
	check_noiseless("gf256-5040", 500);
	check_noiseless("gf16-5040,in=f32", 500);
	check_noiseless("nbldpc,code=regular,q=16,n=120,dv=3,dc=6", 2000);
	if (files)
		check_noiseless("bds-b1c-sf2,algo=tms", 5000);
	const char *small = "nbldpc,code=regular,q=64,n=200,dv=2,dc=4,algo=tms";
	check_split(small, 1.5, 3000);
	check_stats(small, 1.5, 20000, 1280);
	check_all_zero(small, 1.5, 20000);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("FECD_CODES_DIR");
	bool files = false;
	char msg[256], err[512];

	if (fecd_cuda_device_count(msg, sizeof(msg)) <= 0)
		check_skip(msg);
	if (fecd_cuda_open(0, &ctx, err, sizeof(err))) {
		fprintf(stderr, "fecd_cuda_open: %s\n", err);
		return 1;
	}
	if (dir && *dir) {
		char path[4096];
		FILE *f;

		fec_codes_dir_set(dir);
		snprintf(path, sizeof(path), "%s/DVB-S2_64800x32400.alist", dir);
		f = fopen(path, "r");
		files = f != NULL;
		if (f)
			fclose(f);
	}
	if (!files)
		printf("codes folder absent (FECD_CODES_DIR=%s): DVB-S2 cases skipped\n",
		       dir ? dir : "");
	if (argc > 1) {
		/* only the families named */
		for (int i = 1; i < argc; i++)
			if (!strcmp(argv[i], "fano"))
				check_fano();
			else if (!strcmp(argv[i], "nbldpc"))
				check_nbldpc(files);
			else
				CHECK(0, "usage: test_gpu_sim [fano|nbldpc ...]: no %s", argv[i]);
		fecd_cuda_close(ctx);
		return check_done();
	}

	static const char *const viterbi_codes[] = {
	    "ccsds",
	    "ccsds,decode_len=1000,traceback_len=40,head_len=30",
	    "ccsds,mode=terminated,max_frame_bits=1018",
	    "ccsds,mode=truncated,max_frame_bits=777",
	    "dvbs-3/4,decode_len=999",
	    "dvbs-7/8",
	    "dvbs-5/6,mode=terminated,max_frame_bits=994",
	    "wifi-2/3,mode=terminated,max_frame_bits=1000",
	    "lte",
	    "is95-fwd,mode=terminated,max_frame_bits=500",
	    "gsm,decode_len=512",
	};
	/* every ldpc preset (from the codec's table) and codes no preset names */
	static const char *const ldpc_more[] = {
	    "ldpc,code=DVB-S2_64800x6480.alist,output=codeword",
	    "ldpc,code=WIMAX_288_576.alist,output=codeword",
	    "ldpc,code=AR4JA_4096_8192.qc",
	    "ldpc,code=nr-bg1,z=16",
	    "ldpc,code=nr-bg2,z=52",
	};
	static const char *const ldpc_generated[] = {
	    "ldpc,code=regular,n=576,dv=3,dc=6",
	    "ldpc,code=regular,n=1000,dv=3,dc=6,seed=7",
	    "ldpc,code=peg,n=2000,dv=3",
	    "ldpc,code=peg,n=1200,dv=3,dc=4",
	};
	const char *dvb = "dvbs2-1/2,algo=nms,schedule=layered,iters=10,early_stop=false";

	for (size_t i = 0; i < sizeof(viterbi_codes) / sizeof(viterbi_codes[0]); i++)
		check_encoder(viterbi_codes[i], 0);
	check_encoder("ccsds,mode=terminated", 2000);
	check_encoder("dvbs-3/4,mode=terminated", 300);
	check_frame_bits();
	for (unsigned i = 0; files && i < fec_preset_count(); i++)
		if (fec_preset_at(i)->family == FECD_FAMILY_LDPC)
			check_encoder(fec_preset_at(i)->name, 0);
	for (size_t i = 0; files && i < sizeof(ldpc_more) / sizeof(ldpc_more[0]); i++)
		check_encoder(ldpc_more[i], 0);
	for (size_t i = 0; i < sizeof(ldpc_generated) / sizeof(ldpc_generated[0]); i++)
		check_encoder(ldpc_generated[i], 0);
	check_all_zero_only("ldpc,code=regular,n=576,dv=3,dc=6,output=codeword");
	if (files)
		check_all_zero_only("ldpc,code=MACKAY_504_1008.alist,output=codeword");
	{
		struct fec_spec spec;

		CHECK(fec_spec_from_string("ccsds", &spec, err, sizeof(err)) == 0, "%s", err);
		CHECK(fecd_cuda_sim_supports(&spec, "awgn"), "ccsds over awgn");
		CHECK(!fecd_cuda_sim_supports(&spec, "bsid"),
		      "bsid (lengths vary) with a decoder of fixed frames");
		if (files) {
			CHECK(fec_spec_from_string("dvbs2-1/2", &spec, err, sizeof(err)) == 0, "%s",
			      err);
			CHECK(fecd_cuda_sim_supports(&spec, "awgn"), "DVB-S2 r1/2 over awgn");
			CHECK(fec_spec_from_string("wimax-576", &spec, err, sizeof(err)) == 0, "%s",
			      err);
			CHECK(fecd_cuda_sim_supports(&spec, "awgn"), "WiMAX 576 over awgn");
		}
	}

	check_noiseless("ccsds", 20000);
	check_noiseless("dvbs-7/8,mode=terminated,max_frame_bits=1002", 5000);
	check_noiseless("ldpc,code=peg,n=2000,dv=3", 3000);
	if (files) {
		check_noiseless(dvb, 300);
		check_noiseless("wimax-576", 3000);
		check_noiseless("ar4ja-4096,iters=20", 1000);
		check_noiseless("ldpc,code=nr-bg1,z=32,algo=oms,offset=0.5,iters=20", 1000);
		check_noiseless("mackay-8000", 1000);
	}

	check_split("ccsds", 2.5, 3000);
	check_split("dvbs-3/4,mode=terminated,max_frame_bits=1002", 4.0, 3000);
	check_split("ldpc,code=peg,n=2000,dv=3", 1.6, 3000);
	if (files) {
		check_split(dvb, 1.6, 300);
		check_split("wimax-576", 1.5, 3000);
	}
	check_squares("ccsds", 3.0, 300);
	if (files)
		check_squares("wimax-576", 1.5, 300);

	check_stats("ccsds", 2.5, 20000, 4000);
	check_stats("ccsds", 3.0, 20000, 4000);
	check_stats("dvbs-3/4,mode=terminated,max_frame_bits=1002", 4.0, 20000, 4000);
	check_stats("ldpc,code=peg,n=2000,dv=3", 1.6, 20000, 4000);
	if (files) {
		check_stats(dvb, 1.55, 4000, 1280);
		check_stats(dvb, 1.7, 4000, 1280);
		check_stats("wimax-576", 2.0, 20000, 4000);
	}
	check_fano();
	check_nbldpc(files);
	fecd_cuda_close(ctx);
	return check_done();
}
