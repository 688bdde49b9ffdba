/*
 * fecd-sim's engine pieces: the Wilson interval against published values, the ziggurat's
 * moments and tails against the normal distribution, codes from text and JSON, what a frame is
 * (streams, frames of varying length, --all-zero refused where the family says so), the channel
 * and quantization as an uncoded link (the all-zero codeword's int8 input, whose sign errors are
 * uncoded BPSK's at the code's Es/N0), and the CPU engine's determinism and stop rules: the same
 * tally whatever the threads, max-frames exact, min-fe at the first batch that reaches it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_simd.h"
#include "sim.h"
#include "sim_noise.h"
#include "sim_qawgn.h"

static double q_func(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}

static void test_wilson(void)
{
	double lo, hi;

	/* Brown, Cai and DasGupta (2001) / Newcombe (1998): 0 of 10 -> [0, 0.2775]; 5 of 10 ->
	 * [0.2366, 0.7634]; 1 of 29 -> [0.0061, 0.1718] */
	sim_wilson95(0, 10, &lo, &hi);
	CHECK(lo == 0.0 && fabs(hi - 0.2775) < 1e-4, "0/10: [%g, %g]", lo, hi);
	sim_wilson95(5, 10, &lo, &hi);
	CHECK(fabs(lo - 0.2366) < 1e-4 && fabs(hi - 0.7634) < 1e-4, "5/10: [%g, %g]", lo, hi);
	sim_wilson95(1, 29, &lo, &hi);
	CHECK(fabs(lo - 0.0061) < 1e-4 && fabs(hi - 0.1718) < 1e-4, "1/29: [%g, %g]", lo, hi);
	sim_wilson95(10, 10, &lo, &hi);
	CHECK(hi == 1.0 && fabs(lo - 0.7225) < 1e-4, "10/10: [%g, %g]", lo, hi);
	sim_wilson95(0, 0, &lo, &hi);
	CHECK(lo == 0.0 && hi == 1.0, "0/0: [%g, %g]", lo, hi);
}

/* The BER interval with frames as the trials, against values worked by hand; an engine's
 * tally of squares against its bit errors. */
static void test_ber_frames(void)
{
	/* 4 frames of 100 bits with 0, 2, 4, 6 bit errors: mean 0.03, variance of the frames'
	 * BER 6.667e-4, t(3) = 3.182: 0.03 +- 0.04108, clipped at 0 */
	struct sim_tally a = {.frames = 4, .bits = 400, .bit_errors = 12, .bit_errors_sq = 56};
	/* 100 frames of 100 bits, 10 of them with 50 errors: 0.05 +- 1.96 * 0.015076 */
	struct sim_tally b = {
	    .frames = 100, .bits = 10000, .bit_errors = 500, .bit_errors_sq = 25000};
	/* every frame alike: no spread, a point */
	struct sim_tally c = {.frames = 50, .bits = 5000, .bit_errors = 100, .bit_errors_sq = 200};
	struct sim_tally d = {.frames = 1, .bits = 100, .bit_errors = 3, .bit_errors_sq = 9};
	double lo, hi, wlo, whi;

	sim_ber_frames95(&a, &lo, &hi);
	CHECK(lo == 0.0 && fabs(hi - 0.07108) < 1e-4, "4 frames: [%g, %g]", lo, hi);
	sim_ber_frames95(&b, &lo, &hi);
	sim_wilson95(b.bit_errors, b.bits, &wlo, &whi);
	CHECK(fabs(lo - 0.020451) < 1e-5 && fabs(hi - 0.079549) < 1e-5, "100 frames: [%g, %g]", lo,
	      hi);
	/* the bits' Wilson interval takes the 500 errors as independent: far narrower */
	CHECK(whi - wlo < (hi - lo) / 4, "Wilson [%g, %g] against frames [%g, %g]", wlo, whi, lo,
	      hi);
	sim_ber_frames95(&c, &lo, &hi);
	CHECK(fabs(lo - 0.02) < 1e-12 && fabs(hi - 0.02) < 1e-12, "equal frames: [%g, %g]", lo, hi);
	sim_ber_frames95(&d, &lo, &hi);
	CHECK(lo == 0.0 && hi == 1.0, "1 frame: [%g, %g]", lo, hi);
}

/* |count - expected| within 5 standard deviations of a binomial count. */
static bool near_count(double count, double n, double p)
{
	return fabs(count - n * p) <= 5.0 * sqrt(n * p * (1 - p)) + 1;
}

static void test_noise(void)
{
	const size_t n = 1u << 22;
	float *z = malloc(n * sizeof(float)), *z2 = malloc(n * sizeof(float));
	struct fec_prng p;
	double sum = 0, sum2 = 0, sum4 = 0;
	size_t over1 = 0, over3 = 0, over4 = 0, neg = 0;

	fec_prng_seed(&p, 7);
	sim_noise_gauss(&p, z, n);
	for (size_t i = 0; i < n; i++) {
		double v = z[i], a = fabs(v);

		sum += v;
		sum2 += v * v;
		sum4 += v * v * v * v;
		over1 += a > 1.0;
		over3 += a > 3.0;
		over4 += a > 4.0;
		neg += v < 0;
	}
	double mean = sum / n, var = sum2 / n - mean * mean;
	printf("ziggurat over %zu samples: mean %.5f, variance %.5f, kurtosis %.4f, P(|z|>1) "
	       "%.5f, P(|z|>3) %.3e, P(|z|>4) %.3e\n",
	       n, mean, var, sum4 / n, (double)over1 / n, (double)over3 / n, (double)over4 / n);
	CHECK(fabs(mean) < 5.0 / sqrt((double)n), "mean %g", mean);
	CHECK(fabs(var - 1.0) < 5.0 * sqrt(2.0 / n), "variance %g", var);
	CHECK(fabs(sum4 / n - 3.0) < 0.03, "fourth moment %g, normal 3", sum4 / n);
	CHECK(near_count((double)over1, (double)n, 2 * q_func(1.0)), "P(|z|>1): %zu", over1);
	CHECK(near_count((double)over3, (double)n, 2 * q_func(3.0)), "P(|z|>3): %zu", over3);
	CHECK(near_count((double)over4, (double)n, 2 * q_func(4.0)), "P(|z|>4): %zu", over4);
	CHECK(near_count((double)neg, (double)n, 0.5), "P(z<0): %zu", neg);
	/* the same seed, the same samples */
	fec_prng_seed(&p, 7);
	sim_noise_gauss(&p, z2, n);
	CHECK(!memcmp(z, z2, n * sizeof(float)), "the ziggurat is not reproducible");
	free(z);
	free(z2);
}

/* The quantized channel's alias sampler: its probabilities sum to 1 and are the normal CDF's,
 * the counts of 2^22 draws match them value by value, and a sent 1 gives the negated values. */
static void test_qawgn(void)
{
	const double sigma = 0.7, scale = 40.0 / (2.0 / (sigma * sigma));
	const size_t n = 1u << 22;
	static struct sim_qawgn t;
	uint8_t *zeros = calloc(n, 1), *ones = malloc(n);
	int8_t *a = malloc(n), *b = malloc(n);
	size_t count[256] = {0};
	double sum = 0;
	struct fec_prng p;
	unsigned off = 0;

	memset(ones, 1, n);
	for (int v = -127; v <= 127; v++)
		sum += sim_qawgn_prob(sigma, scale, v);
	CHECK(fabs(sum - 1.0) < 1e-12, "probabilities sum to %.15f", sum);
	/* P(value <= 0) is P(A + B z < 1/2), a tail of the normal */
	double neg = 0;
	for (int v = -127; v <= 0; v++)
		neg += sim_qawgn_prob(sigma, scale, v);
	double mean = scale * 2 / (sigma * sigma), spread = scale * 2 / sigma;
	CHECK(fabs(neg - 0.5 * erfc((mean - 0.5) / spread / sqrt(2.0))) < 1e-12, "P(v <= 0) %.6e",
	      neg);
	sim_qawgn_build(&t, sigma, scale);
	fec_prng_seed(&p, 5);
	sim_qawgn_apply(&t, &p, zeros, n, a);
	fec_prng_seed(&p, 5);
	sim_qawgn_apply(&t, &p, ones, n, b);
	for (size_t i = 0; i < n; i++) {
		count[a[i] + 127]++;
		off += b[i] != -a[i];
	}
	CHECK(off == 0, "a sent 1 is not the negated 0 in %u draws", off);
	unsigned checked = 0, bad = 0;
	for (int v = -127; v <= 127; v++) {
		double pv = sim_qawgn_prob(sigma, scale, v);

		if (pv * n < 20)
			continue;
		checked++;
		if (!near_count((double)count[v + 127], (double)n, pv)) {
			bad++;
			fprintf(stderr, "value %d: %zu draws, expected %.1f\n", v, count[v + 127],
			        pv * n);
		}
	}
	printf("alias sampler: %u values checked against the normal CDF, %u off\n", checked, bad);
	CHECK(checked > 50 && bad == 0, "%u of %u values off", bad, checked);
	free(zeros);
	free(ones);
	free(a);
	free(b);
}

/* The sampler at one SIMD level against the portable code: the same values, in frames of every
 * length up to a few blocks and in one long run whose ties (16 comparison bits equal to the
 * threshold's, 2^-16 of the values) are counted, at a sigma with wide spread (every bucket in
 * use) and narrower ones. */
static void qawgn_level(const uint8_t *bits, size_t n, int8_t *a, int8_t *b)
{
	const double sigmas[] = {0.7, 1.2, 0.35};
	static struct sim_qawgn t;
	struct fec_prng p, q;
	size_t first_diff = SIZE_MAX;
	unsigned ties = 0, frames_off = 0;

	for (unsigned si = 0; si < 3; si++) {
		const double sigma = sigmas[si], scale = 40.0 / (2.0 / (sigma * sigma));

		sim_qawgn_build(&t, sigma, scale);
		for (size_t len = 0; len <= 3 * SIM_QAWGN_BLOCK + 1; len++) {
			fec_prng_seed(&p, 100 + len);
			fec_prng_seed(&q, 100 + len);
			sim_qawgn_apply(&t, &p, bits + len, len, a);
			sim_qawgn_apply_portable(&t, &q, bits + len, len, b);
			frames_off += memcmp(a, b, len) != 0 || memcmp(p.s, q.s, sizeof(p.s)) != 0;
		}
		fec_prng_seed(&p, 7 + si);
		fec_prng_seed(&q, 7 + si);
		sim_qawgn_apply(&t, &p, bits, n, a);
		sim_qawgn_apply_portable(&t, &q, bits, n, b);
		for (size_t i = 0; i < n && first_diff == SIZE_MAX; i++)
			if (a[i] != b[i])
				first_diff = i;
		/* the lanes' seed took one word of the frame's PRNG, and each tie one more */
		struct fec_prng r;
		unsigned words = 0;

		fec_prng_seed(&r, 7 + si);
		while (memcmp(r.s, q.s, sizeof(q.s)) && words < 100000) {
			fec_prng_next(&r);
			words++;
		}
		ties += words - 1;
	}
	printf("alias sampler at SIMD level %s: %u ties in %zu values\n", fec_simd_name(), ties,
	       3 * n);
	CHECK(frames_off == 0, "%s: %u short frames differ from the portable sampler",
	      fec_simd_name(), frames_off);
	CHECK(first_diff == SIZE_MAX, "%s: value %zu differs from the portable sampler: %d, not %d",
	      fec_simd_name(), first_diff, first_diff == SIZE_MAX ? 0 : a[first_diff],
	      first_diff == SIZE_MAX ? 0 : b[first_diff]);
	CHECK(ties > 3 * n / 65536 / 2 && ties < 3 * n / 65536 * 2, "%u ties in %zu values", ties,
	      3 * n);
}

/* Every SIMD level this CPU has (portable, the AVX2 and the AVX-512 VBMI samplers) against the
 * portable code; code bits of 0 and 1, and other non-zero bytes (a 1 as the encoders' bytes may
 * carry it, whose bit 0 decides: 2 is a 0). */
static void test_qawgn_levels(void)
{
	const size_t n = 1u << 22;
	uint8_t *bits = malloc(n);
	int8_t *a = malloc(n), *b = malloc(n);
	char was[32];
	const char *level;
	struct fec_prng p;

	fec_prng_seed(&p, 11);
	for (size_t i = 0; i < n; i++)
		bits[i] = (uint8_t)(fec_prng_next(&p) & 3);
	snprintf(was, sizeof(was), "%s", fec_simd_name());
	for (unsigned i = 0; (level = fec_simd_level_name(i)) != NULL; i++)
		if (fec_simd_available(i) && fec_simd_set(level) == 0)
			qawgn_level(bits, n, a, b);
	fec_simd_set(was);
	free(bits);
	free(a);
	free(b);
}

static void test_codes(void)
{
	struct sim_code a, b;
	char err[512];

	/* text and JSON give the same code */
	CHECK(!sim_code_open(&a, "ldpc,code=regular,n=576,dv=3,dc=6,iters=12", "awgn", false, 0,
	                     err, sizeof(err)),
	      "%s", err);
	CHECK(!sim_code_open(&b,
	                     "{\"family\": \"ldpc\", \"code\": \"regular\", \"n\": 576, \"dv\": 3, "
	                     "\"dc\": 6, \"iters\": 12}",
	                     "awgn", false, 0, err, sizeof(err)),
	      "%s", err);
	CHECK(!strcmp(a.text, b.text), "text '%s', JSON '%s'", a.text, b.text);
	CHECK(a.info_bits == 288 && !a.stream && a.code_syms == 576, "ldpc frame: %u bits, %u syms",
	      a.info_bits, a.code_syms);
	sim_code_close(&a);
	sim_code_close(&b);
	CHECK(!sim_code_open(&a,
	                     "{\"preset\": \"ccsds\", \"mode\": \"terminated\", \"polys\": "
	                     "[\"171\", \"133\"]}",
	                     "awgn", false, 0, err, sizeof(err)),
	      "%s", err);
	CHECK(a.info_bits == 1024 && a.code_syms == 2 * 1030 && a.frames_vary,
	      "ccsds terminated: %u bits, %u syms", a.info_bits, a.code_syms);
	sim_code_close(&a);
	/* where frames vary, the longest of at most 1024 bits: a punctured frame fills whole
	 * periods (dvbs-3/4: 3 stages a period of 4 symbols; 1024 + 6 tail bits are not, 1023 + 6
	 * are), and --frame-bits asks for a length the code must take (1000 + 6: no) */
	CHECK(!sim_code_open(&a, "dvbs-3/4,mode=terminated", "awgn", false, 0, err, sizeof(err)),
	      "%s", err);
	CHECK(a.info_bits == 1023, "dvbs-3/4 terminated: %u bits", a.info_bits);
	CHECK(fabs(a.rate - 1023.0 / 1372.0) < 1e-12, "rate %.6f with the tail, expected %.6f",
	      a.rate, 1023.0 / 1372.0);
	sim_code_close(&a);
	CHECK(
	    sim_code_open(&a, "dvbs-3/4,mode=terminated", "awgn", false, 1000, err, sizeof(err)) &&
	        strstr(err, "--frame-bits 1000"),
	    "dvbs-3/4 terminated with 1000 bits: %s", err);
	CHECK(
	    !sim_code_open(&a, "dvbs-3/4,mode=terminated", "awgn", false, 999, err, sizeof(err)) &&
	        a.info_bits == 999,
	    "dvbs-3/4 terminated with 999 bits: %s", err);
	sim_code_close(&a);
	/* frame bits are for codes whose frames vary; others keep theirs */
	CHECK(!sim_code_open(&a, "ccsds", "awgn", false, 64, err, sizeof(err)) &&
	          a.info_bits == 2048 && !a.frames_vary,
	      "frame bits on a stream: %s", err);
	sim_code_close(&a);
	/* a stream: one job of decode_len bits with its head and tail */
	CHECK(!sim_code_open(&a, "ccsds,decode_len=512", "awgn", true, 0, err, sizeof(err)), "%s",
	      err);
	CHECK(a.stream && a.info_bits == 512 && a.code_syms == 2 * (512 + 64 + 64) &&
	          a.info_at == 64 + 64,
	      "ccsds stream: %u bits, %u syms, counted from %u", a.info_bits, a.code_syms,
	      a.info_at);
	sim_code_close(&a);
	/* what is refused, and said so */
	CHECK(sim_code_open(&a, "tvb-fig17", "bsid", true, 0, err, sizeof(err)) &&
	          strstr(err, "--all-zero") && strstr(err, "ids"),
	      "all-zero on ids: %s", err);
	CHECK(sim_code_open(&a, "ccsds", "bsid", true, 0, err, sizeof(err)) &&
	          strstr(err, "--all-zero"),
	      "all-zero over bsid: %s", err);
	CHECK(sim_code_open(&a, "ccsds", "rayleigh", false, 0, err, sizeof(err)) &&
	          strstr(err, "--channel") && strstr(err, "rayleigh"),
	      "channel: %s", err);
	CHECK(sim_code_open(&a, "{\"iters\": 3}", "awgn", false, 0, err, sizeof(err)) &&
	          strstr(err, "preset"),
	      "JSON without preset: %s", err);
}

/* The all-zero codeword's int8 input: its sign errors (0 counts half) are uncoded BPSK's at
 * the code's Es/N0, Q(sqrt(2 R Eb/N0)), and its mean the feed's scale, 40. */
static void test_uncoded(void)
{
	struct sim_code c;
	struct sim_cpu *e;
	char err[512];
	const double ebn0 = 2.0;

	CHECK(!sim_code_open(&c, "ccsds", "awgn", true, 0, err, sizeof(err)), "%s", err);
	CHECK(!sim_cpu_open(&c, 1, &e, err, sizeof(err)), "%s", err);
	double wrong = 0, n = 0, sum = 0;
	for (uint64_t first = 0; first < 4 * 64; first += 64) {
		const void *in;
		size_t stride;
		const struct fec_job *jobs;

		CHECK(!sim_cpu_make_batch(e, ebn0, 3, 0, first, 64, &in, &stride, &jobs, err,
		                          sizeof(err)),
		      "%s", err);
		for (uint32_t j = 0; j < 64; j++) {
			const int8_t *s = (const int8_t *)in + j * stride;

			for (uint32_t k = 0; k < jobs[j].in_len; k++) {
				wrong += s[k] < 0 ? 1.0 : s[k] == 0 ? 0.5 : 0.0;
				sum += s[k];
			}
			n += jobs[j].in_len;
		}
	}
	double p = q_func(sqrt(2 * 0.5 * pow(10, ebn0 / 10)));
	printf("uncoded at Eb/N0 %.1f dB, rate 1/2: %.0f of %.0f symbols wrong (%.4e; Q gives "
	       "%.4e), mean int8 %.2f\n",
	       ebn0, wrong, n, wrong / n, p, sum / n);
	CHECK(near_count(wrong, n, p), "sign errors %.0f of %.0f, expected %.4e", wrong, n, p);
	CHECK(fabs(sum / n - 40.0) < 0.5, "mean int8 %.2f, fecd-feed's scale puts it at 40",
	      sum / n);
	sim_cpu_close(e);
	sim_code_close(&c);
}

static int run(const struct sim_code *c, unsigned threads, double ebn0, const struct sim_stop *st,
               struct sim_result *r, uint32_t *batch)
{
	struct sim_cpu *e;
	char err[512];
	int rc;

	if (sim_cpu_open(c, threads, &e, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	rc = sim_cpu_run(e, ebn0, 11, 2, st, NULL, NULL, NULL, r, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s\n", err);
	if (batch)
		*batch = sim_cpu_batch_frames(e);
	sim_cpu_close(e);
	return rc;
}

static bool same_tally(const struct sim_tally *a, const struct sim_tally *b)
{
	return a->frames == b->frames && a->frame_errors == b->frame_errors && a->bits == b->bits &&
	       a->bit_errors == b->bit_errors && a->unconverged == b->unconverged &&
	       a->wrong_frames == b->wrong_frames && a->bit_errors_sq == b->bit_errors_sq;
}

static void test_engine(void)
{
	struct sim_code c;
	struct sim_result r1, r2, r3;
	char err[512];
	uint32_t batch = 0;

	CHECK(!sim_code_open(&c, "ccsds,decode_len=512", "awgn", false, 0, err, sizeof(err)), "%s",
	      err);
	/* min-fe: the same frames whatever the threads */
	const struct sim_stop fe = {.min_fe = 40};
	CHECK(!run(&c, 1, 2.5, &fe, &r1, &batch) && !run(&c, 2, 2.5, &fe, &r2, NULL) &&
	          !run(&c, 3, 2.5, &fe, &r3, NULL),
	      "runs");
	printf("min-fe 40 at 2.5 dB: %llu frames, %llu frame errors, %llu bit errors (batches of "
	       "%u)\n",
	       (unsigned long long)r1.t.frames, (unsigned long long)r1.t.frame_errors,
	       (unsigned long long)r1.t.bit_errors, batch);
	CHECK(same_tally(&r1.t, &r2.t) && same_tally(&r1.t, &r3.t),
	      "threads 1/2/3: frames %llu/%llu/%llu, bit errors %llu/%llu/%llu",
	      (unsigned long long)r1.t.frames, (unsigned long long)r2.t.frames,
	      (unsigned long long)r3.t.frames, (unsigned long long)r1.t.bit_errors,
	      (unsigned long long)r2.t.bit_errors, (unsigned long long)r3.t.bit_errors);
	CHECK(r1.why == SIM_STOP_MIN_FE && r1.t.frame_errors >= 40 && r1.t.frames % batch == 0,
	      "min-fe: %llu errors in %llu frames, stopped by %s",
	      (unsigned long long)r1.t.frame_errors, (unsigned long long)r1.t.frames,
	      sim_stop_name(r1.why));
	/* each wrong frame has 1 .. 512 wrong bits: their squares lie between */
	CHECK(r1.t.wrong_frames > 0 && r1.t.bit_errors_sq >= r1.t.bit_errors &&
	          r1.t.bit_errors_sq <= 512 * r1.t.bit_errors &&
	          r1.t.bit_errors_sq * r1.t.wrong_frames >= r1.t.bit_errors * r1.t.bit_errors,
	      "squares %llu for %llu bit errors in %llu wrong frames",
	      (unsigned long long)r1.t.bit_errors_sq, (unsigned long long)r1.t.bit_errors,
	      (unsigned long long)r1.t.wrong_frames);
	CHECK(r1.t.bits == r1.t.frames * 512, "bits %llu for %llu frames of 512",
	      (unsigned long long)r1.t.bits, (unsigned long long)r1.t.frames);
	/* it stopped at the first batch that reached 40: one batch fewer has fewer */
	const struct sim_stop fewer = {.max_frames = r1.t.frames - batch};
	if (r1.t.frames > batch) {
		CHECK(!run(&c, 2, 2.5, &fewer, &r2, NULL), "run");
		CHECK(r2.t.frame_errors < 40 && r2.why == SIM_STOP_MAX_FRAMES,
		      "%llu frames: %llu errors, expected < 40", (unsigned long long)r2.t.frames,
		      (unsigned long long)r2.t.frame_errors);
	}
	/* max-frames exactly, and the same frames as a prefix: 100 of them */
	const struct sim_stop mf = {.max_frames = 100};
	CHECK(!run(&c, 1, 2.5, &mf, &r1, NULL) && !run(&c, 3, 2.5, &mf, &r2, NULL), "runs");
	CHECK(r1.t.frames == 100 && same_tally(&r1.t, &r2.t) && r1.why == SIM_STOP_MAX_FRAMES,
	      "max-frames 100: %llu and %llu frames, %llu and %llu bit errors",
	      (unsigned long long)r1.t.frames, (unsigned long long)r2.t.frames,
	      (unsigned long long)r1.t.bit_errors, (unsigned long long)r2.t.bit_errors);
	/* seconds: a point at 8 dB (no errors) stops on time */
	const struct sim_stop sec = {.min_fe = 1, .seconds = 0.5};
	CHECK(!run(&c, 2, 8.0, &sec, &r1, NULL), "run");
	CHECK(r1.why == SIM_STOP_SECONDS && r1.secs >= 0.5 && r1.secs < 5.0 && r1.t.frames > 0,
	      "seconds 0.5: %s after %.2f s, %llu frames", sim_stop_name(r1.why), r1.secs,
	      (unsigned long long)r1.t.frames);
	sim_code_close(&c);
}

/* Every way a frame is made: int8 and float input, q-ary input, the channel table's bsid (ids:
 * frames of varying received length), terminated frames, a stream: no error at a high Eb/N0,
 * errors at a low one (so that counting is seen to work both ways). */
static void test_paths(void)
{
	static const struct {
		const char *code, *channel;
		double good, bad;
		bool needs_codes;
	} cases[] = {
	    {"ldpc,code=regular,n=576,dv=3,dc=6", "awgn", 6, -2, false},
	    {"ldpc,code=regular,n=576,dv=3,dc=6,in=f32,algo=spa", "awgn", 6, -2, false},
	    {"ccsds,mode=terminated,max_frame_bits=256", "awgn", 8, -2, false},
	    {"whd-k7,frame_bits=128", "awgn", 8, -1, false},
	    {"tvb-fig17", "bsid,pi=0,pd=0", 16, -4, false},
	    {"nb60-gf64,in=f32v", "awgn", 8, -3, true},
	};
	const char *dir = getenv("FECD_CODES_DIR");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sim_stop st = {.max_frames = 64};
		struct sim_code c;
		struct sim_cpu *e;
		struct sim_result good, bad;
		char err[512];

		if (cases[i].needs_codes && !dir) {
			printf("skipped %s: no FECD_CODES_DIR\n", cases[i].code);
			continue;
		}
		if (sim_code_open(&c, cases[i].code, cases[i].channel, false, 0, err,
		                  sizeof(err)) ||
		    sim_cpu_open(&c, 2, &e, err, sizeof(err))) {
			CHECK(0, "%s: %s", cases[i].code, err);
			continue;
		}
		CHECK(!sim_cpu_run(e, cases[i].good, 4, 0, &st, NULL, NULL, NULL, &good, err,
		                   sizeof(err)) &&
		          !sim_cpu_run(e, cases[i].bad, 4, 1, &st, NULL, NULL, NULL, &bad, err,
		                       sizeof(err)),
		      "%s: %s", cases[i].code, err);
		printf("%s over %s: %llu/%llu frames wrong at %.0f dB, %llu/%llu at %.0f dB\n",
		       cases[i].code, cases[i].channel, (unsigned long long)good.t.frame_errors,
		       (unsigned long long)good.t.frames, cases[i].good,
		       (unsigned long long)bad.t.frame_errors, (unsigned long long)bad.t.frames,
		       cases[i].bad);
		CHECK(good.t.frames == 64 && good.t.frame_errors == 0 && good.t.bit_errors == 0,
		      "%s at %.0f dB: %llu frame errors", cases[i].code, cases[i].good,
		      (unsigned long long)good.t.frame_errors);
		CHECK(bad.t.frame_errors > 32 && bad.t.bit_errors > 0, "%s at %.0f dB: %llu of 64",
		      cases[i].code, cases[i].bad, (unsigned long long)bad.t.frame_errors);
		sim_cpu_close(e);
		sim_code_close(&c);
	}
}

int main(void)
{
	test_wilson();
	test_ber_frames();
	test_noise();
	test_qawgn();
	test_qawgn_levels();
	test_codes();
	test_uncoded();
	test_engine();
	test_paths();
	return check_done();
}
