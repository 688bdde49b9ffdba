/*
 * fecd-sim's GPU engine as the CLI sees it: an adapter over cuda/fecd_cuda.h's fecd_cuda_sim
 * (bits, encoding, noise, quantization, decoding and counting on the device; only the tally comes
 * back), with the stop rules of the CPU engine (sim.h). Built only where the CUDA backend and its
 * simulator are (FECD_SIM_GPU); without them fecd-sim runs the CPU engine alone.
 *
 * Frames are the CPU engine's (sim.h) but not its random numbers: the device draws with cuRAND's
 * Philox from the point's seed, so the two engines agree within their confidence intervals, not
 * bit for bit. A point runs in batches of sim_gpu_batch_frames, in frame order, and stops at the
 * end of the first batch with which a rule holds: the same frames for the same seed every run.
 */
#ifndef FECD_SIM_GPU_H
#define FECD_SIM_GPU_H

#include "sim.h"

struct sim_gpu;

/* Whether the GPU engine can take this code over this channel on a device present; why (if not)
 * says why, for the table's heading and for --backend cuda's error. */
bool sim_gpu_usable(const struct sim_code *code, char *why, size_t whylen);
int sim_gpu_open(const struct sim_code *code, struct sim_gpu **out, char *err, size_t errlen);
const char *sim_gpu_device_name(const struct sim_gpu *g);
/* Frames per batch, the stop rules' step (every lane's batch of the engine's geometry). */
uint64_t sim_gpu_batch_frames(const struct sim_gpu *g);
int sim_gpu_run(struct sim_gpu *g, double ebn0_db, uint64_t seed, uint32_t point,
                const struct sim_stop *stop, volatile int *stop_flag, sim_progress_fn progress,
                void *arg, struct sim_result *res, char *err, size_t errlen);
/* The decoder alone on the device: one batch made at ebn0_db, then decoded again and again for
 * about secs seconds (fecd_cuda_sim_decode_only); *bits_per_sec: information bits per second. */
int sim_gpu_decoder_only(struct sim_gpu *g, double ebn0_db, uint64_t seed, double secs,
                         double *bits_per_sec, char *err, size_t errlen);
void sim_gpu_close(struct sim_gpu *g);

#endif
