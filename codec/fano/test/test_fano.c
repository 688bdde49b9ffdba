/*
 * The fano family's decoders: noiseless frames decode exactly, in exactly one cycle per stage
 * (UFA), for every K in 3..64 and n in 2..4, UFA and BFA; the budget: a frame that runs out is
 * NOT_CONVERGED with the whole budget as its work, a frame decoded is decoded the same (bits,
 * work, metric) under any larger budget (what the GPU's budget ladder relies on), and no frame
 * of a K=32 code comes back DECODED with wrong bits; BFA needs fewer cycles than UFA at low SNR
 * on the same frames (the seed's and Xu's finding) for whd-k7 and wspr, whose time-reversed codes
 * are as good as the forward ones (not for nasa-k32: NOTES.md); float input decodes as its int8
 * quantization; frames of the wrong length are ERASED.
 */
#include <inttypes.h>
#include <stdio.h>

#include "check.h"
#include "fano_frames.h"

/* Random polynomials of K bits tapping the current and the oldest input (Karn's notation). */
static void random_code(struct fec_prng *p, unsigned k, unsigned n, uint32_t nbits,
                        const char *algo, char *text, size_t len)
{
	const uint64_t mask = k == 64 ? ~0ull : (1ull << k) - 1;
	int used =
	    snprintf(text, len, "fano,k=%u,frame_bits=%u,algo=%s,polys_karn=", k, nbits, algo);

	for (unsigned r = 0; r < n; r++) {
		uint64_t poly = (fec_prng_next(p) & mask) | 1u | 1ull << (k - 1);

		used += snprintf(text + used, len - (size_t)used, "%s%" PRIx64, r ? ":" : "", poly);
	}
}

static void test_noiseless(void)
{
	struct fec_prng p;
	unsigned cases = 0;

	fec_prng_seed(&p, 16);
	for (unsigned k = 3; k <= 64; k++) {
		for (unsigned n = 2; n <= 4; n++) {
			for (unsigned a = 0; a < 2; a++) {
				const uint32_t nbits = 1 + (uint32_t)(fec_prng_next(&p) % 300);
				char text[256];
				struct frames f;
				struct result r;
				struct tally t;

				random_code(&p, k, n, nbits, a ? "bfa" : "ufa", text, sizeof(text));
				if (frames_make(&f, text, 3, FRAMES_NOISELESS, k * 10 + n)) {
					CHECK(0, "%s: frames", text);
					continue;
				}
				if (frames_decode(&f, text, &r)) {
					CHECK(0, "%s: decode", text);
					frames_free(&f);
					continue;
				}
				frames_tally(&f, &r, &t);
				CHECK(t.decoded == 3 && t.wrong == 0,
				      "%s: %u of 3 decoded, %u wrong", text, t.decoded, t.wrong);
				/* UFA: every cycle a forward move */
				CHECK(a || t.cycles == 3ull * (nbits + k - 1),
				      "%s: %" PRIu64 " cycles for 3 frames of %u stages", text,
				      t.cycles, nbits + k - 1);
				cases++;
				result_free(&r);
				frames_free(&f);
			}
		}
	}
	printf("noiseless: %u codes (K 3..64, n 2..4, UFA and BFA) decoded exactly\n", cases);
}

/* The budget: out of it means NOT_CONVERGED with work = budget; what a smaller budget decodes a
 * larger one decodes the same. */
static void test_budget(void)
{
	static const char *small = "nasa-k32,frame_bits=200,cycles=3";
	static const char *large = "nasa-k32,frame_bits=200,cycles=200";
	static const char *bsmall = "nasa-k32,frame_bits=200,cycles=3,algo=bfa";
	static const char *blarge = "nasa-k32,frame_bits=200,cycles=200,algo=bfa";
	const uint32_t stages = 200 + 31;
	struct frames f;
	struct result rs, rl;
	struct tally ts, tl;

	if (frames_make(&f, small, 300, 2.5, 7)) {
		CHECK(0, "frames");
		return;
	}
	for (unsigned a = 0; a < 2; a++) {
		const char *s = a ? bsmall : small, *l = a ? blarge : large;
		unsigned same = 0;

		if (frames_decode(&f, s, &rs) || frames_decode(&f, l, &rl)) {
			CHECK(0, "decode");
			break;
		}
		frames_tally(&f, &rs, &ts);
		frames_tally(&f, &rl, &tl);
		printf("budget %s: %u decoded, %u not converged, %u wrong; %s: %u, %u, %u\n", s,
		       ts.decoded, ts.not_converged, ts.wrong, l, tl.decoded, tl.not_converged,
		       tl.wrong);
		CHECK(ts.not_converged > 0 && ts.decoded > 0, "%s: some frames need more", s);
		CHECK(tl.decoded > ts.decoded, "%s decodes more than %s", l, s);
		CHECK(ts.wrong == 0 && tl.wrong == 0, "no wrong frame marked decoded");
		for (uint32_t j = 0; j < f.count; j++) {
			const struct fec_job *x = &rs.jobs[j], *y = &rl.jobs[j];

			if (x->status == FECD_STATUS_NOT_CONVERGED) {
				CHECK(x->work == 3 * stages, "frame %u: work %u, budget %u", j,
				      x->work, 3 * stages);
				continue;
			}
			CHECK(x->status == FECD_STATUS_DECODED && x->work <= 3 * stages,
			      "frame %u: status %u work %u", j, x->status, x->work);
			if (y->status == x->status && y->work == x->work &&
			    y->metric == x->metric &&
			    !memcmp(rs.out + j * rs.out_stride, rl.out + j * rl.out_stride,
			            rs.out_stride))
				same++;
		}
		CHECK(same == ts.decoded, "%s: %u of %u frames decoded the same with more budget",
		      s, same, ts.decoded);
		result_free(&rs);
		result_free(&rl);
	}
	frames_free(&f);
}

/* BFA needs fewer cycles than UFA on the same frames at low SNR. */
static void test_bfa_cycles(void)
{
	static const char *codes[][2] = {
	    {"whd-k7,frame_bits=200,cycles=2000", "whd-k7,frame_bits=200,cycles=2000,algo=bfa"},
	    {"wspr,frame_bits=200,cycles=2000", "wspr,frame_bits=200,cycles=2000,algo=bfa"},
	};

	for (unsigned c = 0; c < 2; c++) {
		struct frames f;
		struct result ru, rb;
		struct tally tu, tb;

		if (frames_make(&f, codes[c][0], 200, 2.0, 11 + c)) {
			CHECK(0, "frames");
			continue;
		}
		if (frames_decode(&f, codes[c][0], &ru) || frames_decode(&f, codes[c][1], &rb)) {
			CHECK(0, "decode");
			frames_free(&f);
			continue;
		}
		frames_tally(&f, &ru, &tu);
		frames_tally(&f, &rb, &tb);
		printf("2 dB, %u frames: %s %.1f cycles/bit, %u errors; %s %.1f cycles/bit, %u "
		       "errors\n",
		       f.count, codes[c][0], (double)tu.cycles / (f.count * 200.0), tu.frame_errors,
		       codes[c][1], (double)tb.cycles / (f.count * 200.0), tb.frame_errors);
		CHECK(tb.cycles < tu.cycles, "%s: BFA %" PRIu64 " cycles, UFA %" PRIu64,
		      codes[c][0], tb.cycles, tu.cycles);
		result_free(&ru);
		result_free(&rb);
		frames_free(&f);
	}
}

/* Float input decodes as its int8 quantization; wrong lengths are erased. */
static void test_input(void)
{
	static const char *text = "wspr,in=f32", *s8 = "wspr";
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	struct frames f;
	struct result r;
	char err[256];

	if (frames_make(&f, s8, 20, 3.0, 5) || frames_decode(&f, s8, &r)) {
		CHECK(0, "frames");
		return;
	}
	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		CHECK(0, "%s", text);
		goto out;
	}
	const struct fec_info *info = fec_decoder_info(dec);
	float *in = malloc((size_t)f.count * f.nsym * sizeof(float));
	struct fec_job *jobs = calloc(f.count + 1, sizeof(*jobs));
	uint8_t *out = calloc(f.count + 1, r.out_stride);
	void *scratch = malloc(info->scratch_bytes);

	CHECK(info->in_kind == FEC_IN_F32_LLR && info->cost_varies, "f32 info");
	for (size_t i = 0; in && i < (size_t)f.count * f.nsym; i++)
		in[i] = f.in[i] / spec.frame.llr_scale;
	for (uint32_t j = 0; jobs && j <= f.count; j++)
		jobs[j] = (struct fec_job){.in_len = j < f.count ? f.nsym : f.nsym - 2,
		                           .own_len = j < f.count ? f.nsym : f.nsym - 2};
	if (in && jobs && out && scratch) {
		struct fec_batch b = {.count = f.count + 1,
		                      .jobs = jobs,
		                      .in_f32 = in,
		                      .in_stride = f.nsym,
		                      .out = out,
		                      .out_stride = r.out_stride};

		CHECK(fec_decode(dec, scratch, &b, 0, f.count + 1) == 0, "decode");
		for (uint32_t j = 0; j < f.count; j++)
			CHECK(jobs[j].status == r.jobs[j].status &&
			          jobs[j].work == r.jobs[j].work &&
			          !memcmp(out + j * r.out_stride, r.out + j * r.out_stride,
			                  r.out_stride),
			      "frame %u: f32 and s8 differ", j);
		CHECK(jobs[f.count].status == FECD_STATUS_ERASED && jobs[f.count].out_bits == 0,
		      "a short frame is erased");
	}
	free(in);
	free(jobs);
	free(out);
	free(scratch);
out:
	fec_decoder_destroy(dec);
	result_free(&r);
	frames_free(&f);
}

int main(void)
{
	test_noiseless();
	test_budget();
	test_bfa_cycles();
	test_input();
	return check_done();
}
