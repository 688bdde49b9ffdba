/*
 * The fano family's decoders: noiseless frames decode exactly, in exactly one cycle per stage
 * (UFA), for every K in 3..64 and n in 2..4, UFA and BFA; the budget: a frame that runs out is
 * NOT_CONVERGED with the whole budget as its work, a frame decoded is decoded the same (bits,
 * work, metric) under any larger budget (what the GPU's budget ladder relies on), and no frame
 * of a K=32 code comes back DECODED with wrong bits; BFA needs fewer cycles than UFA at low SNR
 * on the same frames (the seed's and Xu's finding) for whd-k7 and wspr, whose time-reversed codes
 * are as good as the forward ones (not for nasa-k32: NOTES.md); float input decodes as its int8
 * quantization; frames of the wrong length are ERASED; UFA gives what a second, textbook UFA
 * (the whole node history kept, parities computed) gives: bits, status, cycles and metric; a frame
 * BFA decodes reports its bits' path metric as the textbook computes it, one out of budget used
 * all of it.
 */
#include <inttypes.h>
#include <math.h>
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

/* ---- A second UFA, written as the textbook gives it (a node array over the whole frame, parities
 * computed, the tightening as a loop), against which the decoder's look-up tables, context queue
 * (a move back past 8 nodes recomputes its parent) and cycle count are checked frame by frame. */

struct ref_node {
	int64_t gamma, tm[2];
	unsigned best, i;
	uint64_t state;
};

struct ref_code {
	unsigned k, n;
	uint64_t poly[4]; /* Karn's notation */
	uint32_t nbits;
	int64_t delta;
	uint64_t budget;
	int32_t met[2][256];
};

static int64_t ref_branch(const struct ref_code *c, const int8_t *in, uint32_t t, uint64_t reg)
{
	int64_t m = 0;

	for (unsigned r = 0; r < c->n; r++) {
		const unsigned bit = (unsigned)__builtin_parityll(reg & c->poly[r]);

		m += c->met[bit][in[(size_t)t * c->n + r] + 128];
	}
	return m;
}

static void ref_node_metrics(const struct ref_code *c, const int8_t *in, uint32_t t,
                             struct ref_node *np)
{
	const uint64_t kmask = c->k == 64 ? ~0ull : (1ull << c->k) - 1;
	const int64_t m0 = ref_branch(c, in, t, (np->state << 1) & kmask);
	const int64_t m1 = t < c->nbits ? ref_branch(c, in, t, (np->state << 1 | 1u) & kmask) : 0;

	np->best = t < c->nbits && m1 > m0;
	np->tm[0] = np->best ? m1 : m0;
	np->tm[1] = np->best ? m0 : m1;
}

/* Decodes one frame into job and bits (one per byte); returns 0, or -1 out of memory. */
static int ref_ufa(const struct ref_code *c, const int8_t *in, struct fec_job *job, uint8_t *bits)
{
	const uint32_t stages = c->nbits + c->k - 1;
	const uint64_t smask = (1ull << (c->k - 1)) - 1;
	struct ref_node *nodes = calloc(stages + 1, sizeof(*nodes));
	uint8_t *u = calloc(stages + 1, 1);
	uint32_t t = 0;
	uint64_t cyc;
	int64_t T = 0;
	bool done = false;

	if (!nodes || !u) {
		free(nodes);
		free(u);
		return -1;
	}
	ref_node_metrics(c, in, 0, &nodes[0]);
	for (cyc = 1; cyc <= c->budget && !done; cyc++) {
		struct ref_node *np = &nodes[t];
		const int64_t ng = np->gamma + np->tm[np->i];

		if (ng >= T) {
			if (np->gamma < T + c->delta)
				while (ng >= T + c->delta)
					T += c->delta;
			u[t] = (uint8_t)(np->best ^ np->i);
			nodes[t + 1].state = (np->state << 1 | u[t]) & smask;
			nodes[t + 1].gamma = ng;
			if (++t == stages) {
				done = true;
				break;
			}
			ref_node_metrics(c, in, t, &nodes[t]);
			nodes[t].i = 0;
			continue;
		}
		for (;;) {
			if (t == 0 || nodes[t - 1].gamma < T) {
				T -= c->delta;
				nodes[t].i = 0;
				break;
			}
			t--;
			if (t < c->nbits && nodes[t].i == 0) {
				nodes[t].i = 1;
				break;
			}
		}
	}
	job->status = done ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
	job->work = (uint32_t)(done ? cyc : c->budget);
	job->metric = (float)nodes[t].gamma / 16;
	for (uint32_t j = 0; j < c->nbits; j++)
		bits[j] = j < t ? u[j] : 0;
	free(nodes);
	free(u);
	return 0;
}

/* The decoder's UFA against ref_ufa on noisy frames of `text`. */
static void check_against_ref(const char *text, double ebn0, uint32_t count)
{
	struct frames f;
	struct result r;
	struct ref_code c = {0};
	unsigned same = 0, nc = 0;
	uint8_t *bits = NULL;

	if (frames_make(&f, text, count, ebn0, 77) || frames_decode(&f, text, &r)) {
		CHECK(0, "%s: frames", text);
		return;
	}
	const struct fano_spec *s = &f.spec.u.fano;

	c.k = s->k;
	c.n = s->n;
	c.nbits = s->frame_bits;
	c.delta = s->delta;
	c.budget = (uint64_t)s->cycles * (s->frame_bits + s->k - 1);
	for (unsigned j = 0; j < c.n; j++)
		c.poly[j] = s->polys_karn[j];
	for (int q = -128; q < 128; q++)
		for (unsigned b = 0; b < 2; b++) {
			const double x = (b ? 1.0 : -1.0) * q / f.spec.frame.llr_scale;
			const double l2 = x > 30.0 ? x / 0.69314718055994530942
			                           : log1p(exp(x)) / 0.69314718055994530942;
			const long v = lround(16.0 * (1.0 - l2 - 1.0 / c.n));

			c.met[b][q + 128] = (int32_t)(v < -4096 ? -4096 : v);
		}
	bits = malloc(c.nbits);
	for (uint32_t j = 0; bits && j < f.count; j++) {
		struct fec_job ref = {0};
		const struct fec_job *got = &r.jobs[j];
		bool eq;

		if (ref_ufa(&c, f.in + (size_t)j * f.nsym, &ref, bits))
			break;
		eq = ref.status == got->status && ref.work == got->work &&
		     ref.metric == got->metric && got->out_bits == c.nbits;
		for (uint32_t i = 0; eq && i < c.nbits; i++)
			eq = bits[i] == (r.out[j * r.out_stride + i / 8] >> (7 - i % 8) & 1u);
		CHECK(eq, "%s, frame %u: status %u/%u work %u/%u metric %g/%g", text, j,
		      got->status, ref.status, got->work, ref.work, (double)got->metric,
		      (double)ref.metric);
		same += eq;
		nc += ref.status == FECD_STATUS_NOT_CONVERGED;
	}
	printf("%s at %g dB: %u of %u frames as the textbook UFA (%u not converged)\n", text, ebn0,
	       same, f.count, nc);
	/* BFA on the same frames: a frame decoded reports the metric of its bits' path, computed
	 * here with parities, one out of budget used all of it */
	char btext[256];
	struct result rb;
	unsigned joined = 0, decoded = 0;

	snprintf(btext, sizeof(btext), "%s,algo=bfa", text);
	if (bits && !frames_decode(&f, btext, &rb)) {
		const uint64_t kmask = c.k == 64 ? ~0ull : (1ull << c.k) - 1;

		for (uint32_t j = 0; j < f.count; j++) {
			const struct fec_job *got = &rb.jobs[j];
			uint64_t reg = 0;
			int64_t g = 0;

			if (got->status != FECD_STATUS_DECODED) {
				CHECK(got->status == FECD_STATUS_NOT_CONVERGED &&
				          got->work == c.budget,
				      "%s, frame %u: status %u, work %u", btext, j, got->status,
				      got->work);
				continue;
			}
			decoded++;
			for (uint32_t t = 0; t < c.nbits + c.k - 1; t++) {
				const unsigned b =
				    t < c.nbits
				        ? rb.out[j * rb.out_stride + t / 8] >> (7 - t % 8) & 1u
				        : 0;

				reg = (reg << 1 | b) & kmask;
				g += ref_branch(&c, f.in + (size_t)j * f.nsym, t, reg);
			}
			joined += (float)g / 16 == got->metric;
		}
		CHECK(joined == decoded, "%s: %u of %u decoded frames have their path's metric",
		      btext, joined, decoded);
		result_free(&rb);
	}
	free(bits);
	result_free(&r);
	frames_free(&f);
}

static void test_reference(void)
{
	check_against_ref("whd-k7,frame_bits=200,cycles=50", 1.0, 100);
	check_against_ref("whd-k7,frame_bits=200,delta=8,llr_scale=3", 3.0, 100);
	check_against_ref("nasa-k32,frame_bits=120,cycles=40", 1.5, 60);
	check_against_ref("wspr,cycles=300,delta=64", 2.0, 100);
	check_against_ref("fano,k=64,polys_karn=c5f0e2b3a1d49687:9b3d2c7e8f016a55:e1c2b3a4d5f60719,"
	                  "frame_bits=100,cycles=30",
	                  2.5, 40);
	check_against_ref("fano,k=3,polys=7:5,frame_bits=1,cycles=2", 0.0, 50);
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
	test_reference();
	test_bfa_cycles();
	test_input();
	return check_done();
}
