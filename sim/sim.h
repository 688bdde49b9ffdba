/*
 * fecd-sim's engines and what they share: a code under simulation (its decoder, the channel text
 * and what one simulated frame is), the tally of one Eb/N0 point, and the CPU engine that fills
 * it. The GPU engine (sim_gpu.c, over cuda/fecd_cuda.h's fecd_cuda_sim) fills the same tally for
 * the same frames.
 *
 * A frame, the unit frames and frame errors count:
 *   - a frame code (ldpc, nbldpc, fano, ids, viterbi terminated or truncated): one frame of the
 *     code, its information bits from the PRNG (where frames vary, --frame-bits of them: by
 *     default the longest frame of at most 1024 bits that the code takes);
 *   - a stream code (viterbi mode=stream): one decoder job, decode_len information bits decoded
 *     from a random stream with the head (warm-up) and tail (traceback) symbols the job takes,
 *     the encoder in a random state where the head starts, as a job in the middle of a stream.
 * Bits and bit errors count information bits only; a frame error is a frame with a wrong bit or
 * with a status other than decoded (not_converged, erased), as fecd-sink counts them.
 *
 * Frame i of point p for seed s draws everything random (information bits, then noise) from one
 * PRNG seeded from (s, p, i) (sim_frame_seed), so that a point's tally depends on the seed and the
 * frames simulated alone, never on threads or batch sizes.
 */
#ifndef FECD_SIM_H
#define FECD_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "channel_model.h"
#include "fec.h"

/* Counts of one point; integer sums, so that they add up in any order. wrong_frames: frames
 * with a wrong information bit, the literature's frame errors (frame_errors adds those whose
 * status says the decoder failed, as fecd-sink counts them); bit_errors_sq: the sum over frames
 * of their bit errors squared, for the frame-level BER interval (sim_ber_frames95). */
struct sim_tally {
	uint64_t frames, frame_errors, bits, bit_errors, unconverged, wrong_frames;
	uint64_t bit_errors_sq;
};

static inline void sim_tally_add(struct sim_tally *t, const struct sim_tally *a)
{
	t->frames += a->frames;
	t->frame_errors += a->frame_errors;
	t->bits += a->bits;
	t->bit_errors += a->bit_errors;
	t->unconverged += a->unconverged;
	t->wrong_frames += a->wrong_frames;
	t->bit_errors_sq += a->bit_errors_sq;
}

/* A code under simulation: built once, shared read-only by the engine's threads. */
struct sim_code {
	char text[FEC_CODE_TEXT_MAX]; /* its canonical text form */
	char describe[160];
	struct fec_spec spec;
	struct fec_decoder *dec;
	struct fec_info info;
	double rate;        /* information bits per sent code bit */
	char channel[256];  /* the channel table's text form */
	bool all_zero;      /* send the all-zero codeword */
	float scale;        /* int8 input: int8 LLR per LLR; 0: the code's llr_scale, or for a code
	                     * without one fecd-feed's automatic 40 / mean |LLR| (sim_cpu.c) */
	bool stream;        /* a stream code: a frame is one job (above) */
	bool frames_vary;   /* a frame code whose frames vary: the longest is simulated */
	uint32_t info_bits; /* information bits per frame */
	uint32_t
	    frame_bits; /* bits given to the encoder per frame (streams: pre + head + own + tail) */
	uint32_t skip_syms; /* streams: code symbols of the random prefix, dropped */
	uint32_t head_bits; /* streams: information bits of the head, before the counted ones */
	uint32_t info_at;   /* where the counted bits start among the frame_bits */
	uint32_t code_syms; /* code symbols per frame, after skip_syms (streams: the job's input) */
	uint32_t max_rx;    /* most received values per frame (channels that change the length) */
};

/* The code's text form from text (copied) or a JSON code object (text starting with '{'):
 * {"preset": P, KEY: VALUE...} or {"family": F, ...} -> "P,KEY=VALUE,...", a list joined by
 * ':', a nested code object or a string with commas in parentheses. A key or name that is not
 * one word of the text form, or a string with unbalanced parentheses, is refused, so that the
 * text has exactly the object's parameters. 0, or -1 with a message. */
int sim_code_text(const char *text, char *buf, size_t len, char *err, size_t errlen);

/* Builds code and channel: text is a preset, the text form or a JSON code object; frame_bits is
 * the frame length for codes whose frames vary (0: the longest that fits 1024 bits; other codes
 * ignore it). The message says what was wrong. */
int sim_code_open(struct sim_code *c, const char *text, const char *channel, bool all_zero,
                  uint32_t frame_bits, char *err, size_t errlen);
void sim_code_close(struct sim_code *c);

/* The PRNG seed of frame i of point p. */
uint64_t sim_frame_seed(uint64_t seed, uint32_t point, uint64_t i);

/* The Eb/N0 of a point given as Es/N0 (per sent code bit) for the code. */
double sim_esn0_to_ebn0(double esn0_db, double rate);

/* ---- Stop rules and the run of one point. */

struct sim_stop {
	uint64_t min_fe;     /* stop once this many frame errors are counted (0: no such rule) */
	uint64_t max_frames; /* stop after this many frames (0: no limit) */
	double seconds;      /* stop after this long (0: no limit) */
};

enum sim_stop_why { SIM_STOP_MIN_FE = 1, SIM_STOP_MAX_FRAMES, SIM_STOP_SECONDS, SIM_STOP_SIGNAL };
const char *sim_stop_name(enum sim_stop_why why);

/* Called from the caller's thread about twice a second while a point runs, with what is counted
 * so far (a prefix of the point's frames) and the seconds since it started. */
typedef void (*sim_progress_fn)(void *arg, const struct sim_tally *t, double secs);

/* The point's result. cpu_secs: the engine's CPU time (CPU engine; 0 on the GPU), decode_secs
 * the part of it in the decoder (the rest went to bits, encoding, noise and counting). */
struct sim_result {
	struct sim_tally t;
	double secs, cpu_secs, decode_secs;
	enum sim_stop_why why;
};

struct sim_cpu;

/* A CPU engine of nthreads threads (0: one per core) for code. */
int sim_cpu_open(const struct sim_code *code, unsigned nthreads, struct sim_cpu **out, char *err,
                 size_t errlen);
unsigned sim_cpu_threads(const struct sim_cpu *e);
/* Frames per batch, the granularity of the stop rules: a point stops at the end of the first
 * batch (in frame order) with which a rule is met, so that min-fe and max-frames stop at the
 * same frame whatever the threads (max-frames exactly at its count). */
uint32_t sim_cpu_batch_frames(const struct sim_cpu *e);
/* Simulates point p at ebn0_db until a stop rule holds or *stop_flag becomes nonzero. */
int sim_cpu_run(struct sim_cpu *e, double ebn0_db, uint64_t seed, uint32_t point,
                const struct sim_stop *stop, volatile int *stop_flag, sim_progress_fn progress,
                void *arg, struct sim_result *res, char *err, size_t errlen);
/* The decoder alone on the same threads: one batch of inputs per thread made at ebn0_db, decoded
 * over and over for about secs seconds; *bits_per_sec gets the information bits decoded per
 * second, *bits_per_cpu_sec per second of the threads' CPU time. */
int sim_cpu_decoder_only(struct sim_cpu *e, double ebn0_db, uint64_t seed, double secs,
                         double *bits_per_sec, double *bits_per_cpu_sec, char *err, size_t errlen);
/* For the tests: frames [first, first + n) of point p made into the first thread's batch as a
 * run makes them (n <= sim_cpu_batch_frames), not decoded: the decoder input (int8 or float
 * slots, in_stride values apart) and the jobs. */
int sim_cpu_make_batch(struct sim_cpu *e, double ebn0_db, uint64_t seed, uint32_t point,
                       uint64_t first, uint32_t n, const void **in, size_t *in_stride,
                       const struct fec_job **jobs, char *err, size_t errlen);
void sim_cpu_close(struct sim_cpu *e);

/* ---- Confidence intervals. */

/* The Wilson score interval at 95 % for k successes in n trials; [0, 1] for n = 0. */
void sim_wilson95(uint64_t k, uint64_t n, double *lo, double *hi);
/* The BER's 95 % interval with frames as the trials (bit errors come a frame at a time, so
 * bits are no independent trials): each frame's bit errors over its bits, their mean (the BER)
 * and its normal interval from their variance over the frames (the Student t quantile below
 * 30 frames), clipped to [0, 1]; [0, 1] for fewer than 2 frames. */
void sim_ber_frames95(const struct sim_tally *t, double *lo, double *hi);

#endif
