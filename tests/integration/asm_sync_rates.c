/*
 * Measures the sync-marker search (daemon/datapath/asm_sync.c) with the ldpc family's default
 * thresholds over the simulated channel of the feed (BPSK, AWGN, rate 1/2, int8 LLRs at llr_scale
 * 8): how often random data passes the search threshold (a false lock), how often a true marker
 * fails either threshold, how often a slip of d symbols goes unseen at the locked test, and, end to
 * end, the frames a locked stream loses. Prints PROTOCOL.md section 5.1's table:
 *     asm-sync-rates [TRIALS_MILLIONS]   (default 1: 10^6 markers, 10^7 random positions)
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_sync.h"
#include "awgn.h"
#include "fec.h"
#include "prng.h"

#define FRAME 576 /* end to end: WiMAX-576 frames */

static struct fec_prng rng;

static int8_t quantize(float llr, float scale)
{
	float v = llr * scale;

	v = v < 0.0f ? v - 0.5f : v + 0.5f;
	if (v > 127.0f)
		return 127;
	if (v < -127.0f)
		return -127;
	return (int8_t)(int)v;
}

/* n received symbols of the given bits (NULL: random bits). */
static void channel(const uint8_t *bits, size_t n, double sigma, float scale, int8_t *out)
{
	uint8_t b[64];
	float llr[64];

	for (size_t i = 0; i < n; i += 64) {
		size_t k = n - i < 64 ? n - i : 64;
		if (bits)
			memcpy(b, bits + i, k);
		else
			fec_prng_bits(&rng, b, 64);
		fec_awgn_llr(&rng, b, k, sigma, 1.0f, llr);
		for (size_t j = 0; j < k; j++)
			out[i + j] = quantize(llr[j], scale);
	}
}

/* The locked test for a stream whose last marker was not inverted (asm_sync.h). */
static bool locked_pass(const struct fec_frame_opts *ls, float c)
{
	return c >= ls->asm_lock_threshold || fabsf(c) >= ls->asm_threshold;
}

struct rates {
	double false_lock, miss_search, miss_locked, slip_worst, random_locked, e2e_lost;
	int slip_worst_d;
	unsigned long long e2e_frames, e2e_false;
};

static void measure(const struct fec_frame_opts *ls, double ebn0, double millions, struct rates *r)
{
	const unsigned bits = ls->asm_bits;
	const double sigma = fec_awgn_sigma(ebn0, 0.5);
	const long markers = (long)(1e6 * millions), positions = 10 * markers;
	const long slips = markers / 10;
	const struct asm_sync_params p = {ls->asm_marker,    bits,
	                                  ls->asm_threshold, ls->asm_lock_threshold,
	                                  ls->asm_flywheel,  FRAME};
	struct asm_sync s = {0};
	uint8_t mbits[3 * ASM_SYNC_MAX_BITS];
	int8_t x[3 * ASM_SYNC_MAX_BITS];
	long miss_t = 0, miss_l = 0, pass = 0, pass_l = 0;
	static long slip_pass[2 * ASM_SYNC_MAX_BITS];
	uint64_t dropped;

	memset(r, 0, sizeof(*r));
	memset(slip_pass, 0, sizeof(slip_pass));
	asm_sync_config(&s, &p, &dropped);
	/* A marker between random data: its own test, and the tests a slip of d would make. */
	for (long t = 0; t < markers; t++) {
		fec_prng_bits(&rng, mbits, bits);
		for (unsigned j = 0; j < bits; j++)
			mbits[bits + j] = (uint8_t)((ls->asm_marker >> (bits - 1 - j)) & 1u);
		fec_prng_bits(&rng, mbits + 2 * bits, bits);
		channel(mbits, 3 * bits, sigma, ls->llr_scale, x);
		float c = asm_sync_corr(&s, x + bits);
		miss_t += !(fabsf(c) >= ls->asm_threshold);
		miss_l += !locked_pass(ls, c);
		if (t >= slips)
			continue;
		for (int d = 1; d < (int)bits; d++) {
			slip_pass[d] += locked_pass(ls, asm_sync_corr(&s, x + bits + d));
			slip_pass[bits + d] += locked_pass(ls, asm_sync_corr(&s, x + bits - d));
		}
	}
	/* Random data, every position. */
	int8_t *data = malloc(65536 + bits);
	for (long done = 0; done < positions; done += 65536) {
		channel(NULL, 65536 + bits, sigma, ls->llr_scale, data);
		for (long i = 0; i < 65536 && done + i < positions; i++) {
			float c = asm_sync_corr(&s, data + i);
			pass += fabsf(c) >= ls->asm_threshold;
			pass_l += locked_pass(ls, c);
		}
	}
	free(data);
	r->miss_search = (double)miss_t / markers;
	r->miss_locked = (double)miss_l / markers;
	r->false_lock = (double)pass / positions;
	r->random_locked = (double)pass_l / positions;
	for (int d = 1; d < 2 * (int)bits; d++)
		if (d != (int)bits && (double)slip_pass[d] / slips > r->slip_worst) {
			r->slip_worst = (double)slip_pass[d] / slips;
			r->slip_worst_d = d < (int)bits ? d : -(d - (int)bits);
		}
	/* End to end: a continuous stream of markers and frames, locked from its start; frames
	 * lost (not found where they are) and false frames (found anywhere else). */
	const long frames = markers / 20;
	const size_t len = bits + FRAME;
	uint8_t *sb = malloc(len);
	int8_t *sx = malloc(len * (size_t)frames);
	long aligned = 0;

	for (unsigned j = 0; j < bits; j++)
		sb[j] = (uint8_t)((ls->asm_marker >> (bits - 1 - j)) & 1u);
	for (long f = 0; f < frames; f++) {
		fec_prng_bits(&rng, sb + bits, FRAME);
		channel(sb, len, sigma, ls->llr_scale, sx + (size_t)f * len);
	}
	asm_sync_reset(&s);
	asm_sync_expect(&s);
	for (size_t i = 0, n = len * (size_t)frames; i < n;) {
		struct asm_scan res;

		i += asm_sync_scan(&s, sx + i, n - i, &res);
		if (!res.found)
			continue;
		if (i % len == bits)
			aligned++;
		else
			r->e2e_false++;
		i += FRAME;
		asm_sync_expect(&s);
	}
	free(sb);
	free(sx);
	r->e2e_frames = (unsigned long long)frames;
	r->e2e_lost = (double)(frames - aligned) / (double)frames;
}

int main(int argc, char **argv)
{
	const double dbs[] = {1, 2, 6};
	double millions = argc > 1 ? atof(argv[1]) : 1.0;
	struct fec_spec spec;
	const struct fec_family_ops *ops = fec_family_by_id(FECD_FAMILY_LDPC);

	if (!ops || millions <= 0) {
		fprintf(stderr, "usage: asm-sync-rates [TRIALS_MILLIONS]\n");
		return 2;
	}
	ops->spec_default(&spec);
	const struct fec_frame_opts *ls = &spec.frame;
	fec_prng_seed(&rng, 20261122);
	printf("marker %0*llX (%u bits), asm_threshold %g, asm_lock_threshold %g, asm_flywheel %u; "
	       "%g x 10^6 markers, 10x as many random positions\n\n",
	       (int)(ls->asm_bits + 3) / 4, (unsigned long long)ls->asm_marker, ls->asm_bits,
	       (double)ls->asm_threshold, (double)ls->asm_lock_threshold, ls->asm_flywheel,
	       millions);
	printf("| Eb/N0 (r=1/2) | random data passes the search | marker missed searching | "
	       "marker missed locked | slip unseen at the locked test (worst d) | random data "
	       "passes the locked test | locked stream: frames lost |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (unsigned i = 0; i < sizeof(dbs) / sizeof(dbs[0]); i++) {
		struct rates r;
		measure(ls, dbs[i], millions, &r);
		printf(
		    "| %g dB | %.1e | %.1e | %.1e | %.1e (%+d) | %.1e | %.1e of %llu, %llu false "
		    "|\n",
		    dbs[i], r.false_lock, r.miss_search, r.miss_locked, r.slip_worst,
		    r.slip_worst_d, r.random_locked, r.e2e_lost, r.e2e_frames, r.e2e_false);
	}
	return 0;
}
