/*
 * The GPU backend as the rest of fecd sees it: plain C, no CUDA types. The daemon, fecd-bench and
 * the tests use only this header; kernels, launchers and CUDA streams stay inside cuda/.
 *
 * Model. A context (struct fecd_cuda) owns one device. A GPU decoder (struct fecd_cuda_decoder) is
 * built from a CPU decoder (codec/fec.h) and decodes the same batches with the same results, bit
 * for bit. A lane is one CUDA stream with its own device buffers: batches submitted to one lane
 * run in order (copy in, decode, copy out) while other lanes' batches overlap with them, which is
 * how consecutive batches of a channel overlap their transfers and kernels (several lanes per
 * channel: the host buffers of each in-flight batch are its own, so host memory is multi-
 * buffered). Submitting never blocks on the device; fecd_cuda_lane_wait (on any thread) waits for
 * the lane's oldest unfinished batch.
 *
 * Batches: struct fec_batch as the CPU decoders take it. For speed, host buffers (in, out, soft,
 * jobs) should come from fecd_cuda_host_alloc (pinned, page-locked memory); others work, slower.
 *
 * Errors: 0 or a negative FEC_E* code (FEC_EDEVICE for CUDA failures, FEC_ENOTSUP for a code the
 * GPU does not decode); functions that take err/errlen also write a message naming the CUDA call
 * and error. A CUDA error can leave the device unusable (sticky errors): after FEC_EDEVICE the
 * caller should stop using the context and decode on the CPU instead.
 */
#ifndef FECD_CUDA_H
#define FECD_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Devices */

struct fecd_cuda_device {
	int index;
	char name[256];
	int cc_major, cc_minor;      /* compute capability */
	int sm_count;
	int clock_khz;               /* SM clock */
	int mem_clock_khz, mem_bus_bits;
	size_t mem_total, mem_free;  /* bytes */
	size_t l2_bytes, smem_per_sm, smem_per_block_optin;
	int regs_per_sm, max_threads_per_sm, warp_size;
	int async_engines;           /* copy engines: 2 lets both directions overlap the kernels */
	int driver_version, runtime_version; /* as CUDA encodes them: 13000 = 13.0 */
};

/* Devices present; 0 when there is none or the driver cannot start (msg says why when given). */
int fecd_cuda_device_count(char *msg, size_t msglen);
int fecd_cuda_device_query(int index, struct fecd_cuda_device *out, char *err, size_t errlen);

/* ---- Context */

struct fecd_cuda;

int fecd_cuda_open(int device, struct fecd_cuda **out, char *err, size_t errlen);
/* Waits for all lanes' work, frees every lane and decoder still open, and the context. */
void fecd_cuda_close(struct fecd_cuda *ctx);
const struct fecd_cuda_device *fecd_cuda_device_info(const struct fecd_cuda *ctx);
/* Lanes per channel that keep the device busy for this device (copy engines, SMs). */
unsigned fecd_cuda_default_lanes(const struct fecd_cuda *ctx);

/* Pinned host memory (cudaHostAlloc); NULL on failure. Freed with fecd_cuda_host_free only. */
void *fecd_cuda_host_alloc(struct fecd_cuda *ctx, size_t len);
void fecd_cuda_host_free(struct fecd_cuda *ctx, void *p);

/* What the host link carries into the device: `streams` streams each copying the len pinned
 * bytes at host into a device buffer of its own, a round at a time, for at least min_secs (and 4
 * rounds); bytes per second in *bytes_per_s. 0 or an error code with err. */
#define FECD_CUDA_COPY_STREAMS_MAX 16
int fecd_cuda_copy_in_rate(struct fecd_cuda *ctx, const void *host, size_t len, unsigned streams,
                           double min_secs, double *bytes_per_s, char *err, size_t errlen);

/* ---- Decoders */

struct fecd_cuda_decoder;

/* True when the GPU decodes this code (family and parameters); false: decode it on the CPU. */
bool fecd_cuda_supports(const struct fec_spec *spec);
/* Builds the GPU decoder for cpu_dec's code (uploads its tables). cpu_dec must outlive it. */
int fecd_cuda_decoder_create(struct fecd_cuda *ctx, const struct fec_decoder *cpu_dec,
			     struct fecd_cuda_decoder **out, char *err, size_t errlen);
void fecd_cuda_decoder_destroy(struct fecd_cuda_decoder *dec);
/* How the decoder launches on this device (kernel names, threads per block, blocks per SM, shared
 * memory): one line for logs and backend.info. */
const char *fecd_cuda_decoder_describe(const struct fecd_cuda_decoder *dec);

/* ---- Lanes */

struct fecd_cuda_lane;

int fecd_cuda_lane_create(struct fecd_cuda *ctx, struct fecd_cuda_lane **out, char *err,
			  size_t errlen);
/* Waits for the lane's work, then frees it. */
void fecd_cuda_lane_destroy(struct fecd_cuda_lane *lane);

/* Submit options. IN_S4: b->in holds two symbols per byte (4-bit two's complement, the first
 * symbol in the high nibble), expanded on the device exactly as softbits.h expands FECD_FORMAT_S4;
 * in_stride is then in bytes of packed input. NO_COPY_IN / NO_COPY_OUT: the input (and jobs)
 * already on the device from this lane's previous submit are decoded again / the results stay on
 * the device (fecd-bench's kernel-only figures). */
#define FECD_CUDA_IN_S4       0x1u
#define FECD_CUDA_NO_COPY_IN  0x2u
#define FECD_CUDA_NO_COPY_OUT 0x4u

/* Enqueues one batch on the lane: jobs and input to the device, decode, output and jobs back.
 * Returns at once; the batch's buffers must stay untouched until fecd_cuda_lane_wait has returned
 * for it. Grows the lane's device buffers when the batch is larger than any before (that first
 * time it synchronises the lane). The copies move what the batch's jobs use (fec_batch_extent):
 * for frames of varying length, only the part of each slot the longest frame needs, so bytes of
 * a slot past it (input on the device, output on the host) keep what they held. The GPU makes a
 * batch's first attempt only (b->attempt 0, else -FEC_EINVAL): jobs it gives up on come back
 * marked FEC_STATUS_RETRY for the CPU to decode again. */
int fecd_cuda_lane_submit(struct fecd_cuda_lane *lane, const struct fecd_cuda_decoder *dec,
			  struct fec_batch *b, unsigned flags, char *err, size_t errlen);
/* A batch's geometry: jobs, and per job the input (in_stride elements of in_elem bytes: symbols of
 * 1 byte for int8, 4 for float32 LLRs, 4 q for q-ary symbols; or values of 1 or 4 bytes), packed
 * output bytes and soft values (0: none). */
struct fecd_cuda_shape {
	uint32_t count;
	size_t in_stride, in_elem, out_stride, soft_stride;
};
/* Grows the lane's device buffers for batches of that shape decoded by dec, so that the first
 * such submit need not; the same thread rules as submit. */
int fecd_cuda_lane_reserve(struct fecd_cuda_lane *lane, const struct fecd_cuda_decoder *dec,
			   const struct fecd_cuda_shape *shape, char *err, size_t errlen);
/* Waits for the oldest batch submitted on the lane and not yet waited for; 0 when it completed
 * (its jobs and outputs are in the host buffers), FEC_EDEVICE with the CUDA error otherwise,
 * -FEC_EINVAL when nothing is pending. Thread-safe against submit on another thread. */
int fecd_cuda_lane_wait(struct fecd_cuda_lane *lane, char *err, size_t errlen);
/* Batches submitted and not yet waited for. */
unsigned fecd_cuda_lane_pending(const struct fecd_cuda_lane *lane);

/* ---- Simulation (fecd-sim's GPU engine, cuda/sim/SIM_GPU.md)
 *
 * Monte Carlo frames of a code made, sent and decoded on the device: random information bits
 * (cuRAND Philox, counter-based: frame i of a seed is the same whatever the runs' splits), the
 * family's encoder on the device, the channel (awgn: BPSK over AWGN at Eb/N0 for the code's
 * rate; bsid: insertions, deletions and substitutions first, for decoders of frames of varying
 * length), quantization to the decoder's input as fecd-feed does it (int8: mean |LLR| -> 40, or
 * the code's llr_scale), the family's GPU decoder,
 * and error counting; only the tally comes back. A frame is one decoder job: a frame code's
 * frame (max_frame_bits bits where frames vary), or one block of a stream code (decode_len bits)
 * decoded from a random stream with the head and tail symbols the job takes. bits and
 * bit_errors count information bits; a frame error is a frame with a wrong bit or a status other
 * than decoded; unconverged counts the latter. Eb/N0 is per information bit at the frame's rate
 * (its bits over its code bits, tail included; a stream's: the code's), as fecd-sim's CPU engine
 * has it. */

struct fecd_cuda_sim;
/* frames_wrong_bits: frames with a wrong bit (the literature's frame errors), of frame_errors;
 * bit_errors_sq: the sum over frames of their bit errors squared (the frame-level BER
 * interval's variance). */
struct fecd_cuda_sim_tally {
	uint64_t frames, frame_errors, bits, bit_errors, unconverged;
	uint64_t frames_wrong_bits, bit_errors_sq;
};
/* True when the family has a GPU encoder and decoder for the spec's code (ldpc: every code but
 * output=codeword where the information bits are not the first k columns; this loads such a code
 * to look) and the channel is one the engine has ("awgn"; "bsid" for a decoder of frames of
 * varying length: this builds the decoder to look); false: the caller simulates on the CPU. open
 * refuses what this refuses (-FEC_ENOTSUP, with the reason). */
bool fecd_cuda_sim_supports(const struct fec_spec *spec, const char *channel);
/* The same for the all-zero codeword (open's all_zero; awgn only): where the family's device
 * encoder does not take the code, the engine sends all-zero code bits without one (a frame code
 * of fixed frames whose family declares the all-zero codeword valid; open refuses others). */
bool fecd_cuda_sim_supports_all_zero(const struct fec_spec *spec, const char *channel);
/* channel: the channel table's text form ("awgn", "bsid,pi=..."); all_zero: send the all-zero
 * codeword (the information bits all 0, through the encoder; awgn only). cpu_dec must outlive
 * the simulator. */
int fecd_cuda_sim_open(struct fecd_cuda *ctx, const struct fec_decoder *cpu_dec,
                       const char *channel, bool all_zero, struct fecd_cuda_sim **out,
                       char *err, size_t errlen);
/* Simulates frames [first, first + count) of the point's random sequence (seeded), adding to *t.
 * ebn0_db INFINITY: noiseless (LLRs +-1, as fecd-feed --noiseless; bsid: hard bits, +-127). */
int fecd_cuda_sim_run(struct fecd_cuda_sim *sim, double ebn0_db, uint64_t seed, uint64_t first,
                      uint64_t count, struct fecd_cuda_sim_tally *t, char *err, size_t errlen);
/* run in two halves, so that a caller keeps the device busy while it reads tallies: submit
 * enqueues frames [first, first + count) and returns at once; wait waits for the oldest run
 * submitted and not yet waited for and adds its tally to *t. At most FECD_CUDA_SIM_RUNS_MAX runs
 * are pending (submit refuses more, -FEC_EINVAL); run refuses while any is. A run's frames are
 * the same whatever was submitted before or after it. */
#define FECD_CUDA_SIM_RUNS_MAX 4
int fecd_cuda_sim_submit(struct fecd_cuda_sim *sim, double ebn0_db, uint64_t seed, uint64_t first,
                         uint64_t count, char *err, size_t errlen);
int fecd_cuda_sim_wait(struct fecd_cuda_sim *sim, struct fecd_cuda_sim_tally *t, char *err,
                       size_t errlen);
unsigned fecd_cuda_sim_pending(const struct fecd_cuda_sim *sim);
void fecd_cuda_sim_close(struct fecd_cuda_sim *sim);
/* Where the code's frames vary (a terminated or truncated viterbi code): frames of frame_bits
 * information bits from now on (fecd-sim --frame-bits). open's default is the longest of at most
 * 1024 bits (and max_frame_bits) that fills whole puncturing periods, tail included, as
 * fecd-sim's CPU engine picks it. Other codes take 0 or their frame's bits. -FEC_EINVAL (why in
 * err) for a length the code's frames cannot have; the simulator keeps its default then. */
int fecd_cuda_sim_set_frame_bits(struct fecd_cuda_sim *sim, uint32_t frame_bits, char *err,
                                 size_t errlen);

/* For the tests and fecd-bench: a frame's layout (gpu_family.h's gpu_sim_code): gen_bits random
 * bits per frame, the first zero_head and last zero_tail forced to 0, code_syms code bits sent,
 * the decoder's output bits 0..cmp_bits-1 compared with bits cmp_first..; the job each frame is;
 * the input slots (in_stride int8 or float values); frames per batch and lanes. */
struct fecd_cuda_sim_geometry {
	uint32_t gen_bits, zero_head, zero_tail, cmp_first, cmp_bits, code_syms;
	struct fec_job job;
	bool in_f32;
	size_t in_stride;
	uint32_t batch, lanes;
	double rate; /* Eb/N0's rate: cmp_bits / code_syms for frames, the code's for streams */
	uint32_t max_rx; /* received values a frame at most: code_syms, or a channel's bound that
	                  * changes the length (bsid), cut at the decoder's input bound */
};
void fecd_cuda_sim_geometry(const struct fecd_cuda_sim *sim, struct fecd_cuda_sim_geometry *g);
/* Frames [first, first + count) (count <= batch) made as run makes them, copied back: the
 * generated bits (gen_bits per frame, one per byte), the code bits (code_syms per frame, one per
 * byte) and the decoder's input (count slots of in_stride values); any may be NULL. */
int fecd_cuda_sim_peek(struct fecd_cuda_sim *sim, double ebn0_db, uint64_t seed, uint64_t first,
                       uint32_t count, uint8_t *bits, uint8_t *code, void *in, char *err,
                       size_t errlen);
/* The channel's side of frames [first, first + count) made as run makes them: each frame's
 * received length (rx_len[f]: code_syms where the channel keeps it) and the edits the channel
 * drew (edits[3 f ..]: insertions, deletions, substitutions; 0 where it makes none). */
int fecd_cuda_sim_peek_channel(struct fecd_cuda_sim *sim, double ebn0_db, uint64_t seed,
                               uint64_t first, uint32_t count, uint32_t *rx_len, uint32_t *edits,
                               char *err, size_t errlen);
/* What run does (fecd-bench's comparisons; counting nothing but in FULL): FULL, everything;
 * DECODE_ONLY, the decoder again on what the lanes hold from an earlier run (the decoder kernel
 * alone on the same frames and batches); MAKE_ONLY, the frames made (bits, encoder, channel)
 * and not decoded. */
enum fecd_cuda_sim_mode {
	FECD_CUDA_SIM_FULL = 0,
	FECD_CUDA_SIM_DECODE_ONLY,
	FECD_CUDA_SIM_MAKE_ONLY,
};
void fecd_cuda_sim_mode(struct fecd_cuda_sim *sim, enum fecd_cuda_sim_mode mode);

/* ---- Testing the failure path */

/* Makes the lane's next submit launch a kernel that traps, as a real device fault would (a sticky
 * error: the context is unusable afterwards). For the fallback tests only. */
void fecd_cuda_lane_inject_fault(struct fecd_cuda_lane *lane);

#ifdef __cplusplus
}
#endif

#endif
