/*
 * Whether the GPU simulator and a CPU simulation of the same code agree, for test_gpu_sim and
 * test_gpu_sim_ids, and whether two of the GPU's tallies are the same: each side's estimate is
 * SIM_AGREE_CHUNKS runs (points) of equal size, its FER interval Wilson's (sim_wilson95) over all
 * frames and its BER interval the batch means of the runs' BERs (the bit errors of a frame are not
 * independent, so a binomial interval on bits would be too narrow); the two agree where both
 * intervals overlap, each side having at least SIM_AGREE_MIN_FE frame errors and a frame that
 * decoded.
 */
#ifndef SIM_AGREE_H
#define SIM_AGREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fecd_cuda.h"

#define SIM_AGREE_CHUNKS 20
#define SIM_AGREE_MIN_FE 10 /* frame errors each side needs for a comparison */

struct sim_estimate {
	uint64_t frames, frame_errors, bits, bit_errors;
	unsigned chunks;                       /* runs added */
	double chunk_ber[SIM_AGREE_CHUNKS];    /* each run's BER */
	double ber_lo, ber_hi, fer_lo, fer_hi; /* 95 % intervals, after sim_estimate_finish */
};

/* Adds one run's counts (at most SIM_AGREE_CHUNKS runs; more are refused, -1). */
int sim_estimate_add(struct sim_estimate *e, uint64_t frames, uint64_t frame_errors, uint64_t bits,
                     uint64_t bit_errors);
/* The intervals, from SIM_AGREE_CHUNKS runs added: 0, else -1. */
int sim_estimate_finish(struct sim_estimate *e);

/* The GPU's estimate: SIM_AGREE_CHUNKS runs of frames / SIM_AGREE_CHUNKS frames each of seed 99
 * on sim at ebn0 dB, finished. 0, or the run's error code with its message in err. */
int sim_estimate_gpu(struct fecd_cuda_sim *sim, double ebn0, uint64_t frames,
                     struct sim_estimate *e, char *err, size_t errlen);

/* One fecd_cuda_sim_run of sim, its error printed on stderr after text (the code): 0 or its code.
 */
int sim_run_print(struct fecd_cuda_sim *sim, const char *text, double ebn0, uint64_t seed,
                  uint64_t first, uint64_t count, struct fecd_cuda_sim_tally *t);

/* Whether [alo, ahi] and [blo, bhi] share a point. */
bool sim_agree_overlap(double alo, double ahi, double blo, double bhi);

/* Whether two tallies of the GPU simulator hold the same counts, every one of them (the same
 * frames run differently: split into runs, other batches, submitted ahead). */
bool sim_tally_same(const struct fecd_cuda_sim_tally *a, const struct fecd_cuda_sim_tally *b);
/* A line of t's counts, labelled what. */
void sim_tally_print(const char *what, const struct fecd_cuda_sim_tally *t);

/* Prints both estimates (a line each, after the caller's heading) and compares them: 0 where
 * they agree; -1 where not, with every reason in why (what names the case in it). */
int sim_agree(const char *what, const struct sim_estimate *gpu, const struct sim_estimate *cpu,
              char *why, size_t whylen);

#endif
