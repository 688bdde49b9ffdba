/*
 * bench_ids: times the ids MAP decoder on one thread (run it under taskset) on the seed's Fig. 17
 * setting or another: bench_ids [N q n [p [FRAMES [ROUNDS [PRUNE]]]]], default 840 16 8 1e-3 20 5
 * 1e-15. Random seeded codebooks (n = 8 for q = 16 as the seed), frames through the BSID channel
 * with Pi = Pd = p, Ps = 0, hard input; prints, for the exact decoder (no pruning) and pruned at
 * PRUNE (ids_map_params.prune; the family's default prune=15 is 1e-15), each with global and
 * local storage, the information bits (N log2 q per frame) decoded per second, best and median of
 * the rounds, the floating-point operations per decoded bit without pruning (ids_map_flops), the
 * start drifts kept per symbol (of M_tau) and the symbol errors seen. Times are the thread's CPU
 * time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_timer.h"
#include "fec.h"
#include "ids_map.h"

/* The thread's CPU time: on a shared machine (the 2-core development VM) wall time counts other
 * processes' turns; on a core of its own the two agree. */
static double now(void)
{
	return cpu_timer_secs(CLOCK_THREAD_CPUTIME_ID);
}

int main(int argc, char **argv)
{
	const unsigned N = argc > 1 ? (unsigned)atoi(argv[1]) : 840;
	const unsigned q = argc > 2 ? (unsigned)atoi(argv[2]) : 16;
	const unsigned n = argc > 3 ? (unsigned)atoi(argv[3]) : 8;
	const double pch = argc > 4 ? atof(argv[4]) : 1e-3;
	const unsigned frames = argc > 5 ? (unsigned)atoi(argv[5]) : 20;
	const unsigned rounds = argc > 6 ? (unsigned)atoi(argv[6]) : 5;
	const double prune = argc > 7 ? atof(argv[7]) : 1e-15;
	const struct ids_chan ch = {pch, pch, 0.0};
	struct ids_code *code = NULL;
	struct fec_prng p;
	unsigned bits_per_sym = 0;
	char err[256];
	const size_t tau = (size_t)N * n;
	uint8_t *sym, *bits, *rxb, *got;
	int8_t **rx;
	size_t *rho;

	while ((1u << bits_per_sym) < q)
		bits_per_sym++;
	if (ids_code_random(N, q, n, 1, &code, err, sizeof(err))) {
		fprintf(stderr, "bench_ids: %s\n", err);
		return 1;
	}
	sym = malloc((size_t)frames * N);
	got = malloc(N);
	bits = malloc(tau);
	rxb = malloc(ids_bsid_max_out(tau));
	rx = calloc(frames, sizeof(*rx));
	rho = calloc(frames, sizeof(*rho));
	fec_prng_seed(&p, 5);
	for (unsigned f = 0; f < frames; f++) {
		for (unsigned i = 0; i < N; i++)
			sym[(size_t)f * N + i] = (uint8_t)(fec_prng_next(&p) % q);
		ids_code_encode(code, sym + (size_t)f * N, bits);
		ids_bsid_apply(&ch, &p, bits, tau, rxb, ids_bsid_max_out(tau), &rho[f]);
		rx[f] = malloc(rho[f] ? rho[f] : 1);
		for (size_t j = 0; j < rho[f]; j++)
			rx[f][j] = (int8_t)(rxb[j] ? -127 : 127);
	}
	printf("N=%u q=%u n=%u Pi=Pd=%g Ps=0, %u frames a round, one thread\n", N, q, n, pch,
	       frames);
	for (int run = 0; run < 4; run++) {
		const int mode = run % 2 ? IDS_STORAGE_LOCAL : IDS_STORAGE_GLOBAL;
		const double pr = run < 2 ? 0.0 : prune;
		const struct ids_map_params par = {
		    .ch = ch, .p_excl = 1e-10, .llr_scale = 8.0f, .storage = mode, .prune = pr};
		double kept = 0.0;
		struct ids_map m;
		double t[64];
		unsigned wrong = 0, erased = 0;
		void *scratch;

		if (ids_map_init(&m, code, &par, err, sizeof(err))) {
			fprintf(stderr, "bench_ids: %s\n", err);
			return 1;
		}
		scratch = aligned_alloc(64, (m.scratch_bytes + 63) & ~(size_t)63);
		for (unsigned r = 0; r < rounds && r < 64; r++) {
			const double t0 = now();

			for (unsigned f = 0; f < frames; f++) {
				const int st = ids_map_decode(&m, scratch, rx[f], (uint32_t)rho[f],
				                              NULL, NULL, got);

				erased += st != FECD_STATUS_DECODED;
				if (r == 0)
					kept += (double)ids_map_states_kept(&m, scratch);
				for (unsigned i = 0; r == 0 && i < N; i++)
					wrong += got[i] != sym[(size_t)f * N + i];
			}
			t[r] = now() - t0;
		}
		qsort(t, rounds, sizeof(double), cpu_timer_cmp);
		const double info = (double)frames * N * bits_per_sym;
		printf("%s, prune %g: M_tau=%u (drift %d..%d) M_n=%u (%d..%d), %.1f MiB scratch: "
		       "best %.1f kbit/s, median %.1f kbit/s; %.0f flops per decoded bit unpruned, "
		       "%.1f start drifts kept per symbol; %u symbols wrong, %u frames erased "
		       "(round 1)\n",
		       mode == IDS_STORAGE_GLOBAL ? "global" : "local", pr, m.Mtau, m.fmin, m.fmax,
		       m.Mn, m.cmin, m.cmax, m.scratch_bytes / 1048576.0, info / t[0] / 1e3,
		       info / t[rounds / 2] / 1e3, ids_map_flops(&m) / ((double)N * bits_per_sym),
		       kept / ((double)frames * N), wrong, erased / rounds);
		free(scratch);
	}
	for (unsigned f = 0; f < frames; f++)
		free(rx[f]);
	free(rx);
	free(rho);
	free(sym);
	free(got);
	free(bits);
	free(rxb);
	ids_code_free(code);
	return 0;
}
