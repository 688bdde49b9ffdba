/*
 * The fano family's fast CPU path against its reference, frame by frame: the same noisy frames
 * decoded at the "portable" SIMD level (fano_decode.c's reference) and at every level above it
 * this CPU has (the fast path, fano_fast.c and fano_lane.c, whose stage table is built with SSE2
 * or AVX2) must give the same status, work (cycles), metric and bits. Cases: the three presets at
 * 2..6 dB, UFA and BFA, budgets that run out and budgets that do not, deltas that are powers of
 * two and deltas that are not (up to 65521), merge lengths and LLR scales, a code whose backward
 * current-input word differs from the forward one's, frames of 1, 2 and 65536 bits and of 5, 13
 * and 21 bits on a K=20 code (shorter and longer than its register), then random
 * codes over K 3..64, n 2..4 and frame lengths 1..300 at random Eb/N0 (in a quarter of them all
 * polynomials but the first need not tap either end; batches of 11..14 frames). Then batches of
 * 9 frames decoded whole, in sub-ranges and with erased jobs among them (the fast UFA decodes two
 * frames at a time). The fast path must be the one that ran (fano_decoder_fast_usable) for all of
 * them, and a budget and delta whose thresholds leave int32 must fall back to the reference. A
 * difference is reported with the case, the frame and the first field or bit that differs.
 */
#include <inttypes.h>
#include <stdio.h>

#include "check.h"
#include "cpu_simd.h"
#include "fano_code.h"
#include "fano_frames.h"

static unsigned cases, frames_total, not_converged_total, levels;

/* Whether the decoder of `text` takes the fast path: 1, 0, or -1 when it does not build. */
static int fast_usable(const char *text)
{
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	char err[256] = "";
	int rc;

	if (fec_spec_from_string(text, &spec, err, sizeof(err)) || fec_decoder_create(&spec, &dec))
		return -1;
	rc = fano_decoder_fast_usable(dec) ? 1 : 0;
	fec_decoder_destroy(dec);
	return rc;
}

/* The first difference of frame j between the reference r and the fast decode g, in why. */
static bool frame_differs(const struct frames *f, const struct result *r, const struct result *g,
                          uint32_t j, char *why, size_t len)
{
	const struct fec_job *x = &r->jobs[j], *y = &g->jobs[j];

	if (x->status != y->status || x->work != y->work || x->metric != y->metric ||
	    x->out_bits != y->out_bits || x->soft_count != y->soft_count) {
		snprintf(why, len,
		         "status %u/%u, work %u/%u, metric %g/%g, out_bits %u/%u (reference/fast)",
		         x->status, y->status, x->work, y->work, (double)x->metric,
		         (double)y->metric, x->out_bits, y->out_bits);
		return true;
	}
	for (uint32_t i = 0; i < f->nbits; i++) {
		const unsigned a = r->out[j * r->out_stride + i / 8] >> (7 - i % 8) & 1u;
		const unsigned b = g->out[j * g->out_stride + i / 8] >> (7 - i % 8) & 1u;

		if (a != b) {
			snprintf(why, len, "bit %u: %u/%u (reference/fast), status %u", i, a, b,
			         x->status);
			return true;
		}
	}
	/* the packed tail past the last bit is zero in both */
	if (f->nbits % 8 &&
	    r->out[j * r->out_stride + f->nbits / 8] != g->out[j * g->out_stride + f->nbits / 8]) {
		snprintf(why, len, "the last byte's unused bits differ");
		return true;
	}
	return false;
}

/* count frames of `text` at ebn0 decoded by both; expect_fast: the fast path must be usable. */
static void compare(const char *text, double ebn0, uint32_t count, uint64_t seed, bool expect_fast)
{
	struct frames f;
	struct result r, g;
	unsigned nc = 0, bad = 0;
	const int usable = fast_usable(text);

	CHECK(usable == (expect_fast ? 1 : 0), "%s: fast path usable %d, expected %d", text, usable,
	      expect_fast);
	if (frames_make(&f, text, count, ebn0, seed)) {
		CHECK(0, "%s: frames", text);
		return;
	}
	fec_simd_set("portable");
	if (frames_decode(&f, text, &r)) {
		CHECK(0, "%s: reference decode", text);
		frames_free(&f);
		return;
	}
	for (uint32_t j = 0; j < f.count; j++)
		nc += r.jobs[j].status == FECD_STATUS_NOT_CONVERGED;
	for (unsigned l = FEC_SIMD_PORTABLE + 1; fec_simd_level_name(l); l++) {
		const char *level = fec_simd_level_name(l);

		if (!fec_simd_available(l))
			continue;
		fec_simd_set(level);
		if (frames_decode(&f, text, &g)) {
			CHECK(0, "%s: %s decode", text, level);
			continue;
		}
		for (uint32_t j = 0; j < f.count; j++) {
			char why[200];

			if (frame_differs(&f, &r, &g, j, why, sizeof(why)) && bad++ < 3)
				CHECK(0, "%s at %g dB, %s, frame %u: %s", text, ebn0, level, j,
				      why);
		}
		result_free(&g);
	}
	CHECK(bad == 0, "%s at %g dB: %u frames differ", text, ebn0, bad);
	cases++;
	frames_total += f.count;
	not_converged_total += nc;
	if (count >= 40)
		printf("  %s at %g dB: %u frames equal (%u not converged)\n", text, ebn0,
		       f.count - bad, nc);
	result_free(&r);
	frames_free(&f);
}

static void test_presets(void)
{
	static const char *const algos[] = {"ufa", "bfa"};

	for (unsigned a = 0; a < 2; a++) {
		char t[160];

		for (unsigned db = 2; db <= 6; db += 2) {
			snprintf(t, sizeof(t), "whd-k7,algo=%s", algos[a]);
			compare(t, db, db == 2 ? 30 : 60, 100 + db, true);
		}
		snprintf(t, sizeof(t), "whd-k7,algo=%s,frame_bits=300,cycles=2", algos[a]);
		compare(t, 3.0, 100, 7, true);
		snprintf(t, sizeof(t), "whd-k7,algo=%s,frame_bits=333,delta=8,llr_scale=3",
		         algos[a]);
		compare(t, 2.5, 60, 8, true);
		snprintf(t, sizeof(t), "nasa-k32,algo=%s,frame_bits=200,cycles=3", algos[a]);
		compare(t, 2.5, 100, 9, true);
		snprintf(t, sizeof(t), "nasa-k32,algo=%s,frame_bits=200,cycles=200,merge=1",
		         algos[a]);
		compare(t, 3.0, 60, 10, true);
		snprintf(t, sizeof(t), "nasa-k32,algo=%s,frame_bits=1024,merge=16", algos[a]);
		compare(t, 5.0, 40, 11, true);
		snprintf(t, sizeof(t), "wspr,algo=%s,delta=64", algos[a]);
		compare(t, 2.0, 200, 12, true);
		snprintf(t, sizeof(t), "wspr,algo=%s,delta=200,cycles=20", algos[a]);
		compare(t, 1.0, 200, 13, true);
		snprintf(t, sizeof(t), "wspr,algo=%s,delta=16,llr_scale=20", algos[a]);
		compare(t, 4.0, 200, 14, true);
		/* the second polynomial does not tap the oldest input: the backward code's
		 * current-input word differs from the forward code's */
		snprintf(t, sizeof(t), "fano,k=7,polys_karn=5b:3f:79,frame_bits=500,algo=%s",
		         algos[a]);
		compare(t, 3.0, 60, 18, true);
		/* deltas that are not powers of two, up to the largest (the fast path's threshold
		 * steps by a reciprocal multiply there) */
		snprintf(t, sizeof(t), "whd-k7,algo=%s,frame_bits=64,cycles=20,delta=40000",
		         algos[a]);
		compare(t, 1.0, 40, 20, true);
		snprintf(t, sizeof(t), "whd-k7,algo=%s,frame_bits=64,cycles=20,delta=65521",
		         algos[a]);
		compare(t, 0.0, 40, 21, true);
		snprintf(t, sizeof(t), "whd-k7,algo=%s,delta=24", algos[a]);
		compare(t, 3.0, 40, 22, true);
		/* the shortest frames: one information bit, the tail's rows right after the root */
		snprintf(t, sizeof(t), "fano,k=3,polys=7:5,frame_bits=1,algo=%s", algos[a]);
		compare(t, 1.0, 41, 23, true);
		snprintf(t, sizeof(t), "whd-k7,algo=%s,frame_bits=2,cycles=2", algos[a]);
		compare(t, 1.0, 41, 24, true);
		/* frames shorter than, as long as and longer than the register: the BFA's
		 * decoders meet in the other's tail, or one of them completes first (its blocks'
		 * information limits cross) */
		for (unsigned fb = 5; fb <= 21; fb += 8) {
			snprintf(t, sizeof(t),
			         "fano,k=20,polys_karn=d3a71:b5c93,frame_bits=%u,merge=%u,algo=%s",
			         fb, fb % 3 + 1, algos[a]);
			compare(t, 2.0, 41, 25 + fb, true);
		}
		/* the longest frames */
		snprintf(t, sizeof(t), "whd-k7,algo=%s,frame_bits=65536,cycles=100", algos[a]);
		compare(t, 4.0, 2, 19, true);
	}
}

/* Random polynomials of K bits tapping the current and the oldest input, random settings. */
static void test_random_codes(void)
{
	struct fec_prng p;
	static const unsigned ks[] = {3, 4, 5, 7, 9, 12, 16, 17, 24, 31, 33, 40, 48, 57, 63, 64};
	static const char *const scales[] = {"1", "2.5", "8", "20"};

	fec_prng_seed(&p, 1616);
	for (unsigned c = 0; c < 96; c++) {
		const unsigned k = ks[c % 16], n = 2 + c % 3;
		const uint64_t mask = k == 64 ? ~0ull : (1ull << k) - 1;
		const uint32_t nbits = 1 + (uint32_t)(fec_prng_next(&p) % 300);
		const double ebn0 = (double)(fec_prng_next(&p) % 70) / 10.0;
		/* drawn one by one: the order of a call's arguments is unspecified */
		const char *algo = fec_prng_next(&p) & 1 ? "bfa" : "ufa";
		const unsigned delta = 1 + (unsigned)(fec_prng_next(&p) % 120);
		const unsigned cycles = 2 + (unsigned)(fec_prng_next(&p) % 40);
		const unsigned merge = 1 + (unsigned)(fec_prng_next(&p) % 16);
		const char *scale = scales[fec_prng_next(&p) % 4];
		char text[320];
		int used = snprintf(text, sizeof(text),
		                    "fano,k=%u,frame_bits=%u,algo=%s,delta=%u,cycles=%u,merge=%u,"
		                    "llr_scale=%s,polys_karn=",
		                    k, nbits, algo, delta, cycles, merge, scale);

		for (unsigned r = 0; r < n; r++) {
			/* in every fourth code the polynomials after the first (which makes
			 * the code's K) need not tap the current or the oldest input: the two
			 * directions' current-input words differ (BFA: a table per direction) */
			const uint64_t ends = c % 4 == 3 && r > 0 ? 1ull << (fec_prng_next(&p) % k)
			                                          : 1u | 1ull << (k - 1);
			const uint64_t poly = (fec_prng_next(&p) & mask) | ends;

			used += snprintf(text + used, sizeof(text) - (size_t)used, "%s%" PRIx64,
			                 r ? ":" : "", poly);
		}
		compare(text, ebn0, 11 + c % 4, 300 + c, true); /* odd and even batches */
	}
	printf("  96 random codes (K 3..64, n 2..4, 1..300 bits, 0..6.9 dB): equal\n");
}

/* The fast UFA decodes a batch two frames at a time, a frame that ends giving its place to the
 * next: batches of odd sizes, sub-ranges of a batch and erased jobs among the frames must each
 * give every frame what the reference gives it, and leave the jobs outside the range alone. */
static void test_batches(const char *text, double ebn0, uint64_t seed)
{
	static const uint32_t ranges[][2] = {{0, 9}, {0, 1}, {1, 3}, {4, 5}, {2, 7}, {8, 1}};
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	struct frames f;
	struct result r, g = {0};
	char err[256] = "";
	void *scratch = NULL;
	const char *best = NULL;
	unsigned bad = 0, nc = 0;

	if (frames_make(&f, text, 9, ebn0, seed)) {
		CHECK(0, "%s: frames", text);
		return;
	}
	fec_simd_set("portable");
	if (frames_decode(&f, text, &r)) {
		CHECK(0, "%s: reference decode", text);
		frames_free(&f);
		return;
	}
	for (uint32_t j = 0; j < f.count; j++)
		nc += r.jobs[j].status == FECD_STATUS_NOT_CONVERGED;
	CHECK(nc > 0 && nc < f.count, "%s at %g dB: %u of %u frames not converged, expected some",
	      text, ebn0, nc, f.count);
	for (unsigned l = FEC_SIMD_PORTABLE + 1; fec_simd_level_name(l); l++)
		if (fec_simd_available(l))
			best = fec_simd_level_name(l);
	fec_simd_set(best);
	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		CHECK(0, "%s: %s", text, err);
		goto out;
	}
	g.out_stride = r.out_stride;
	g.jobs = calloc(f.count, sizeof(*g.jobs));
	g.out = calloc(f.count, g.out_stride + 1);
	scratch = malloc(fec_decoder_info(dec)->scratch_bytes);
	if (!g.jobs || !g.out || !scratch) {
		CHECK(0, "out of memory");
		goto out;
	}
	for (unsigned c = 0; c < sizeof(ranges) / sizeof(ranges[0]); c++) {
		const uint32_t first = ranges[c][0], count = ranges[c][1];
		/* job 3 (and 6 in every other range) one symbol short: erased */
		const uint32_t short1 = 3, short2 = c % 2 ? 6 : UINT32_MAX;
		struct fec_batch b = {.count = f.count,
		                      .jobs = g.jobs,
		                      .in = f.in,
		                      .in_stride = f.nsym,
		                      .out = g.out,
		                      .out_stride = g.out_stride};

		for (uint32_t j = 0; j < f.count; j++) {
			const uint32_t len = j == short1 || j == short2 ? f.nsym - 1 : f.nsym;

			g.jobs[j] = (struct fec_job){.in_len = len, .own_len = len, .status = 0xee};
		}
		CHECK(fec_decode(dec, scratch, &b, first, count) == 0, "%s: decode", text);
		for (uint32_t j = 0; j < f.count; j++) {
			const bool in = j >= first && j < first + count;
			char why[200];

			if (!in) {
				if (g.jobs[j].status != 0xee && bad++ < 3)
					CHECK(0,
					      "%s: frames %u..%u decoded, job %u outside written",
					      text, first, first + count - 1, j);
			} else if (j == short1 || j == short2) {
				if (g.jobs[j].status != FECD_STATUS_ERASED && bad++ < 3)
					CHECK(0,
					      "%s: job %u one symbol short: status %u, not erased",
					      text, j, g.jobs[j].status);
			} else if (frame_differs(&f, &r, &g, j, why, sizeof(why)) && bad++ < 3) {
				CHECK(0, "%s, frames %u..%u, frame %u: %s", text, first,
				      first + count - 1, j, why);
			}
		}
	}
	CHECK(bad == 0, "%s: %u jobs differ in batches", text, bad);
	cases++;
	printf(
	    "  %s at %g dB (%u of 9 not converged): odd batches, sub-ranges and erased jobs: fast "
	    "= reference\n",
	    text, ebn0, nc);
out:
	free(scratch);
	result_free(&g);
	fec_decoder_destroy(dec);
	result_free(&r);
	frames_free(&f);
}

/* Thresholds that may leave int32: the reference decodes, the results stay the same. */
static void test_fallback(void)
{
	compare("whd-k7,frame_bits=64,cycles=65000,delta=65536", 3.0, 20, 15, false);
	compare("wspr,cycles=65000,delta=4096,algo=bfa", 3.0, 20, 16, false);
	compare("wspr,cycles=65000,delta=32", 3.0, 20, 17, true);
}

int main(void)
{
	for (unsigned l = FEC_SIMD_PORTABLE + 1; fec_simd_level_name(l); l++)
		levels += fec_simd_available(l) != 0;
	if (!levels) {
		printf(
		    "SKIP: this CPU has no SIMD level above portable, where the fast path runs\n");
		return 77;
	}
	printf("reference (portable) against the fast path at %u SIMD levels up to %s:\n", levels,
	       fec_simd_name());
	test_presets();
	test_random_codes();
	/* budgets that run out on some frames (cycles 3 at 2 dB), UFA and BFA, n = 2, 3, 4 */
	test_batches("whd-k7,frame_bits=200,cycles=3", 2.0, 31);
	test_batches("whd-k7,frame_bits=200,cycles=3,algo=bfa", 2.0, 32);
	test_batches("nasa-k32,frame_bits=100,cycles=2,delta=24", 3.5, 33);
	test_batches("fano,k=9,polys=561:753:711:475,frame_bits=150,cycles=2", 3.0, 34);
	test_fallback();
	printf("%u cases, %u frames, %u of them not converged: fast = reference\n", cases,
	       frames_total, not_converged_total);
	return check_done();
}
