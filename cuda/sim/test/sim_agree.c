/*
 * The GPU simulator's statistics against a CPU simulation's (sim_agree.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "sim_agree.h"

int sim_estimate_add(struct sim_estimate *e, uint64_t frames, uint64_t frame_errors, uint64_t bits,
                     uint64_t bit_errors)
{
	if (e->chunks >= SIM_AGREE_CHUNKS)
		return -1;
	e->frames += frames;
	e->frame_errors += frame_errors;
	e->bits += bits;
	e->bit_errors += bit_errors;
	e->chunk_ber[e->chunks++] = bits ? (double)bit_errors / (double)bits : 0.0;
	return 0;
}

int sim_estimate_finish(struct sim_estimate *e)
{
	double mean = 0.0, var = 0.0, se;

	if (e->chunks != SIM_AGREE_CHUNKS)
		return -1;
	for (int i = 0; i < SIM_AGREE_CHUNKS; i++)
		mean += e->chunk_ber[i] / SIM_AGREE_CHUNKS;
	for (int i = 0; i < SIM_AGREE_CHUNKS; i++)
		var += (e->chunk_ber[i] - mean) * (e->chunk_ber[i] - mean) / (SIM_AGREE_CHUNKS - 1);
	se = sqrt(var / SIM_AGREE_CHUNKS);
	e->ber_lo = mean - 1.96 * se;
	e->ber_hi = mean + 1.96 * se;
	sim_wilson95(e->frame_errors, e->frames, &e->fer_lo, &e->fer_hi);
	return 0;
}

int sim_estimate_gpu(struct fecd_cuda_sim *sim, double ebn0, uint64_t frames,
                     struct sim_estimate *e, char *err, size_t errlen)
{
	const uint64_t per = frames / SIM_AGREE_CHUNKS;

	memset(e, 0, sizeof(*e));
	for (int i = 0; i < SIM_AGREE_CHUNKS; i++) {
		struct fecd_cuda_sim_tally t = {0};
		int rc = fecd_cuda_sim_run(sim, ebn0, 99, (uint64_t)i * per, per, &t, err, errlen);

		if (rc)
			return rc;
		sim_estimate_add(e, t.frames, t.frame_errors, t.bits, t.bit_errors);
	}
	return sim_estimate_finish(e);
}

bool sim_agree_overlap(double alo, double ahi, double blo, double bhi)
{
	return alo <= bhi && blo <= ahi;
}

bool sim_tally_same(const struct fecd_cuda_sim_tally *a, const struct fecd_cuda_sim_tally *b)
{
	return a->frames == b->frames && a->frame_errors == b->frame_errors && a->bits == b->bits &&
	       a->bit_errors == b->bit_errors && a->unconverged == b->unconverged &&
	       a->frames_wrong_bits == b->frames_wrong_bits && a->bit_errors_sq == b->bit_errors_sq;
}

void sim_tally_print(const char *what, const struct fecd_cuda_sim_tally *t)
{
	printf("  %-28s frames %llu fe %llu bits %llu be %llu unconverged %llu wrong %llu "
	       "be_sq %llu\n",
	       what, (unsigned long long)t->frames, (unsigned long long)t->frame_errors,
	       (unsigned long long)t->bits, (unsigned long long)t->bit_errors,
	       (unsigned long long)t->unconverged, (unsigned long long)t->frames_wrong_bits,
	       (unsigned long long)t->bit_errors_sq);
}

static void print_estimate(const char *side, const struct sim_estimate *e)
{
	printf("  %s %8llu frames: FER %.4g [%.4g, %.4g]  BER %.4g [%.4g, %.4g]\n", side,
	       (unsigned long long)e->frames, (double)e->frame_errors / (double)e->frames,
	       e->fer_lo, e->fer_hi, (double)e->bit_errors / (double)e->bits, e->ber_lo, e->ber_hi);
}

/* Appends "; "-separated reasons to why. */
static void why_add(char *why, size_t whylen, const char *fmt, ...)
{
	size_t used = strlen(why);
	va_list ap;

	if (used + 3 >= whylen)
		return;
	if (used) {
		strcpy(why + used, "; ");
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + used, whylen - used, fmt, ap);
	va_end(ap);
}

int sim_agree(const char *what, const struct sim_estimate *gpu, const struct sim_estimate *cpu,
              char *why, size_t whylen)
{
	why[0] = '\0';
	print_estimate("GPU", gpu);
	print_estimate("CPU", cpu);
	if (cpu->frame_errors < SIM_AGREE_MIN_FE || gpu->frame_errors < SIM_AGREE_MIN_FE)
		why_add(why, whylen, "%s: too few frame errors to compare (CPU %llu, GPU %llu)",
		        what, (unsigned long long)cpu->frame_errors,
		        (unsigned long long)gpu->frame_errors);
	if (cpu->frame_errors >= cpu->frames || gpu->frame_errors >= gpu->frames)
		why_add(why, whylen, "%s: every frame wrong: nothing to compare", what);
	if (!sim_agree_overlap(gpu->fer_lo, gpu->fer_hi, cpu->fer_lo, cpu->fer_hi))
		why_add(why, whylen, "%s: FER intervals apart", what);
	if (!sim_agree_overlap(gpu->ber_lo, gpu->ber_hi, cpu->ber_lo, cpu->ber_hi))
		why_add(why, whylen, "%s: BER intervals apart", what);
	return why[0] ? -1 : 0;
}

int sim_run_print(struct fecd_cuda_sim *sim, const char *text, double ebn0, uint64_t seed,
                  uint64_t first, uint64_t count, struct fecd_cuda_sim_tally *t)
{
	char err[512];
	int rc = fecd_cuda_sim_run(sim, ebn0, seed, first, count, t, err, sizeof(err));

	if (rc)
		fprintf(stderr, "%s: fecd_cuda_sim_run: %s\n", text, err);
	return rc;
}
