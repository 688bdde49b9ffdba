/*
 * fecd-bench's "sim_cpu" section: fecd-sim's CPU engine (sim.h) on one thread, on the same two
 * targets (issue 20: the simulation at least 70 % of the decoder alone): rounds of the decoder
 * alone on one batch of frames (sim_cpu_decoder_only) and of the simulation (sim_cpu_run), both
 * per second of the thread's CPU time, with the median and the best of the rounds' ratios.
 *
 * Its "sim" section: fecd-sim's GPU engine (fecd_cuda.h, fecd_cuda_sim_*) on the
 * issue's two targets, CCSDS K=7 r=1/2 (stream, 2048-bit blocks) at 4 dB and DVB-S2 r=1/2
 * layered normalized min-sum with 10 iterations (no early stop), at 1.5 dB (FER near 0.8); and
 * the same decoder with early stop at 1.8 dB (FER near 0.04), as a simulation would run it;
 * two codes of the ldpc plan encoder (cuda/ldpc/ldpc_gpu_sim_peel.cu): 5G NR BG1 z=384 and WiMAX
 * 576, offset / normalized min-sum, 10 iterations; the fano and nbldpc families' device encoders
 * under their decoders (sim_fam_rows); ids over the bsid channel: the seed's Fig. 17 setting
 * (tvb-fig17: N = 840, q = 16, n = 8, Pi = Pd = 1e-3, Ps = 0, hard bits: 20 dB puts every value
 * at +-127), and the concatenation dm-ldpc at Pi = Pd = 1e-2 (the bench's ids and ids_concat
 * sections time their decoders). Each
 * row gives the simulated information bits per second (random bits, encoding, BPSK/AWGN,
 * quantization, decoding and counting, all on the device) and, from the same simulator's buffers,
 * the decoder kernel alone on the same frames and batches (fecd_cuda_sim_decode_only), with the BER
 * and FER the run measured. Figures are information bits per second.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "cpu_timer.h"
#include "sim.h"

#define DVBS2          "DVB-S2_64800x32400.alist"
#define SIM_CPU_ROUNDS 5

/* One code's CPU row: rounds of the decoder alone and of the simulation, each about secs. */
static void sim_cpu_row(cJSON *sec, const struct bench_opts *o, const char *label, const char *text,
                        double ebn0, unsigned rounds)
{
	double dec[SIM_CPU_ROUNDS], sim[SIM_CPU_ROUNDS], ratio[SIM_CPU_ROUNDS];
	const double secs = o->min_secs > 0.2 ? o->min_secs : 0.2;
	const struct sim_stop stop = {.seconds = secs};
	struct sim_tally all = {0};
	struct sim_cpu *e = NULL;
	struct sim_code code;
	char err[512];
	cJSON *row = report_row(sec, label);

	row_str(row, "code", text);
	row_num(row, "Eb/N0", ebn0);
	if (sim_code_open(&code, text, "awgn", false, 0, err, sizeof(err))) {
		row_str(row, "note", err);
		return;
	}
	if (sim_cpu_open(&code, 1, &e, err, sizeof(err))) {
		row_str(row, "note", err);
		goto out;
	}
	progress("sim_cpu: %s at %.1f dB, %u rounds of %.1f s, one thread", text, ebn0, rounds,
	         secs);
	for (unsigned i = 0; i < rounds; i++) {
		struct sim_result res;
		double wall;

		if (sim_cpu_decoder_only(e, ebn0, 1 + i, secs, &wall, &dec[i], err, sizeof(err)) ||
		    sim_cpu_run(e, ebn0, 1 + i, 0, &stop, NULL, NULL, NULL, &res, err,
		                sizeof(err))) {
			row_str(row, "note", err);
			goto out;
		}
		sim[i] = (double)res.t.bits / (res.cpu_secs > 0 ? res.cpu_secs : 1e-9);
		ratio[i] = sim[i] / dec[i];
		sim_tally_add(&all, &res.t);
	}
	qsort(dec, rounds, sizeof(double), cpu_timer_cmp);
	qsort(sim, rounds, sizeof(double), cpu_timer_cmp);
	qsort(ratio, rounds, sizeof(double), cpu_timer_cmp);
	row_num(row, "sim Gb/s", sim[rounds / 2] / 1e9);
	row_num(row, "decoder Gb/s", dec[rounds / 2] / 1e9);
	row_num(row, "sim/decoder", ratio[rounds / 2]);
	row_num(row, "best", ratio[rounds - 1]);
	row_num(row, "frames", (double)all.frames);
	row_num(row, "BER", all.bits ? (double)all.bit_errors / (double)all.bits : 0.0);
	row_num(row, "FER", all.frames ? (double)all.frame_errors / (double)all.frames : 0.0);
out:
	sim_cpu_close(e);
	sim_code_close(&code);
}

static void bench_sim_cpu(struct bench_report *r, const struct bench_opts *o)
{
	static const char *const cols[] = {"code",        "Eb/N0", "sim Gb/s", "decoder Gb/s",
	                                   "sim/decoder", "best",  "frames",   "BER",
	                                   "FER",         "note",  NULL};
	cJSON *sec = report_section(r, "sim_cpu", cols);
	const unsigned rounds = o->short_mode ? 1 : SIM_CPU_ROUNDS;
	char path[4096];
	struct stat st;

	if (o->codes_dir)
		fec_codes_dir_set(o->codes_dir);
	report_note(
	    sec,
	    "one thread, per second of its CPU time; sim: the simulation (bits, encoder, "
	    "channel, quantization, decoder, counting); decoder: the decoder alone on one "
	    "batch of the same frames; sim/decoder: the median of %u rounds, best: the best",
	    rounds);
	sim_cpu_row(sec, o, "CCSDS K=7 r1/2 stream", "ccsds", 4.0, rounds);
	snprintf(path, sizeof(path), "%s/%s", fec_codes_dir(), DVBS2);
	if (stat(path, &st) != 0) {
		report_note(sec, "%s not in the codes folder %s: the DVB-S2 row skipped", DVBS2,
		            fec_codes_dir());
		return;
	}
	sim_cpu_row(sec, o, "DVB-S2 r1/2 nms 10 it",
	            "ldpc,code=" DVBS2 ",algo=nms,schedule=layered,iters=10,early_stop=false", 1.5,
	            rounds);
}

#ifdef FECD_HAVE_CUDA
#include "fecd_cuda.h"

#define BDS_B1C "BDS_B1C_200_100_GF64.alist"

/* Runs sim (decode-only or not) in calls of `chunk` frames until min_secs have passed, after
 * one untimed call; frames per second, or < 0 (why in err). */
static double sim_rate(struct fecd_cuda_sim *sim, double ebn0, uint64_t chunk, double min_secs,
                       struct fecd_cuda_sim_tally *t, char *err, size_t errlen)
{
	struct fecd_cuda_sim_tally warm = {0};
	uint64_t first = 0, frames = 0;
	double t0, dt;

	if (fecd_cuda_sim_run(sim, ebn0, 1, first, chunk, &warm, err, errlen))
		return -1.0;
	first += chunk;
	t0 = bench_now();
	do {
		if (fecd_cuda_sim_run(sim, ebn0, 1, first, chunk, t, err, errlen))
			return -1.0;
		first += chunk;
		frames += chunk;
		dt = bench_now() - t0;
	} while (dt < min_secs);
	return (double)frames / dt;
}

/* batch: frames a lane's batch ($FECD_SIM_BATCH; 0: the engine's), for decoders slow enough
 * that the engine's batches would make a call last seconds. */
static void sim_row(cJSON *sec, struct fecd_cuda *ctx, const struct bench_opts *o,
                    const char *label, const char *text, const char *channel, double ebn0,
                    uint32_t batch)
{
	struct fecd_cuda_sim_tally t = {0}, none = {0};
	struct fecd_cuda_sim_geometry g;
	struct fecd_cuda_sim *sim = NULL;
	struct fec_decoder *dec = NULL;
	struct fec_spec spec;
	char err[512];
	cJSON *row = report_row(sec, label);

	row_str(row, "code", text);
	if (strcmp(channel, "awgn"))
		row_str(row, "channel", channel);
	row_num(row, "Eb/N0", ebn0);
	if (fec_spec_from_string(text, &spec, err, sizeof(err))) {
		row_str(row, "note", err);
		return;
	}
	if (fec_decoder_create(&spec, &dec)) {
		row_str(row, "note", "no decoder");
		return;
	}
	if (batch) {
		char b[16];

		snprintf(b, sizeof(b), "%u", batch);
		setenv("FECD_SIM_BATCH", b, 1);
	}
	int rc = fecd_cuda_sim_open(ctx, dec, channel, false, &sim, err, sizeof(err));
	if (batch)
		unsetenv("FECD_SIM_BATCH");
	if (rc) {
		row_str(row, "note", err);
		goto out;
	}
	fecd_cuda_sim_geometry(sim, &g);
	const uint64_t chunk = (uint64_t)g.batch * g.lanes * 2;
	const double secs = o->min_secs > 0.3 ? o->min_secs : 0.3;

	progress("sim: %s at %.1f dB, %u frames a batch, %u lanes", text, ebn0, g.batch, g.lanes);
	double fps = sim_rate(sim, ebn0, chunk, secs, &t, err, sizeof(err));
	if (fps < 0) {
		row_str(row, "note", err);
		goto out;
	}
	fecd_cuda_sim_mode(sim, FECD_CUDA_SIM_DECODE_ONLY);
	double dps = sim_rate(sim, ebn0, chunk, secs, &none, err, sizeof(err));
	fecd_cuda_sim_mode(sim, FECD_CUDA_SIM_MAKE_ONLY);
	double mps = dps < 0 ? -1.0 : sim_rate(sim, ebn0, chunk, secs, &none, err, sizeof(err));
	fecd_cuda_sim_mode(sim, FECD_CUDA_SIM_FULL);
	if (dps < 0 || mps < 0) {
		row_str(row, "note", err);
		goto out;
	}
	row_num(row, "sim Gb/s", fps * g.cmp_bits / 1e9);
	row_num(row, "decoder Gb/s", dps * g.cmp_bits / 1e9);
	row_num(row, "sim/decoder", fps / dps);
	row_num(row, "make Gb/s", mps * g.cmp_bits / 1e9);
	row_num(row, "frames", (double)t.frames);
	row_num(row, "BER", t.bits ? (double)t.bit_errors / (double)t.bits : 0.0);
	row_num(row, "FER", t.frames ? (double)t.frame_errors / (double)t.frames : 0.0);
out:
	fecd_cuda_sim_close(sim);
	fec_decoder_destroy(dec);
}

/* The fano and nbldpc rows: 1024-bit Fano frames (UFA) at two points of whd-k7 and one of
 * nasa-k32; BeiDou B1C subframe 2 with tms and FFT-BP and the seed's GF64_5040 size (generated)
 * with tms, 20 iterations and early stop, near FER 1e-2 .. 1e-1. */
static void sim_fam_rows(cJSON *sec, struct fecd_cuda *ctx, const struct bench_opts *o)
{
	char path[4096];
	struct stat st;

	sim_row(sec, ctx, o, "fano whd-k7 UFA", "whd-k7", "awgn", 4.0, 0);
	sim_row(sec, ctx, o, "fano whd-k7 UFA", "whd-k7", "awgn", 6.0, 0);
	sim_row(sec, ctx, o, "fano nasa-k32 UFA", "nasa-k32", "awgn", 5.0, 0);
	sim_row(sec, ctx, o, "nbldpc GF64_5040 tms", "gf64-5040,algo=tms", "awgn", 1.6, 8192);
	snprintf(path, sizeof(path), "%s/%s", fec_codes_dir(), BDS_B1C);
	if (stat(path, &st) != 0) {
		report_note(sec, "%s not in the codes folder %s: B1C rows skipped", BDS_B1C,
		            fec_codes_dir());
		return;
	}
	sim_row(sec, ctx, o, "nbldpc B1C sf2 tms", "bds-b1c-sf2,algo=tms", "awgn", 2.0, 32768);
	sim_row(sec, ctx, o, "nbldpc B1C sf2 fft-bp", "bds-b1c-sf2", "awgn", 2.0, 32768);
}

void bench_sim(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	static const char *const cols[] = {"code",         "channel",   "Eb/N0",       "sim Gb/s",
	                                   "decoder Gb/s", "make Gb/s", "sim/decoder", "frames",
	                                   "BER",          "FER",       "note",        NULL};
	cJSON *sec;
	struct fecd_cuda *ctx = bench_gpu_context(c->g);
	char path[4096];
	struct stat st;

	bench_sim_cpu(r, o);
	sec = report_section(r, "sim", cols);
	if (!ctx) {
		report_skip(sec, "%s", c->gpu_why ? c->gpu_why : "no GPU");
		return;
	}
	if (o->codes_dir)
		fec_codes_dir_set(o->codes_dir);
	report_note(sec, "sim: information bits simulated per second, everything on the device; "
	                 "decoder: the decoder kernel alone on the same frames and batches");
	sim_row(sec, ctx, o, "CCSDS K=7 r1/2 stream", "ccsds", "awgn", 4.0, 0);
	sim_fam_rows(sec, ctx, o);
	sim_row(sec, ctx, o, "ids Fig. 17 (hard bits)", "tvb-fig17", "bsid,pi=0.001,pd=0.001,ps=0",
	        20.0, 0);
	sim_row(sec, ctx, o, "ids dm-ldpc, Pi = Pd = 0.01", "dm-ldpc", "bsid,pi=0.01,pd=0.01,ps=0",
	        20.0, 0);
	snprintf(path, sizeof(path), "%s/%s", fec_codes_dir(), DVBS2);
	if (stat(path, &st) != 0) {
		report_note(sec, "%s not in the codes folder %s: DVB-S2 rows skipped", DVBS2,
		            fec_codes_dir());
		return;
	}
	sim_row(sec, ctx, o, "DVB-S2 r1/2 nms 10 it",
	        "ldpc,code=" DVBS2 ",algo=nms,schedule=layered,iters=10,early_stop=false", "awgn",
	        1.5, 0);
	sim_row(sec, ctx, o, "DVB-S2 r1/2 nms 10 it, early stop",
	        "ldpc,code=" DVBS2 ",algo=nms,schedule=layered,iters=10,early_stop=true", "awgn",
	        1.8, 0);
	sim_row(sec, ctx, o, "5G NR BG1 z=384 oms 10 it (plan encoder)",
	        "ldpc,code=nr-bg1,z=384,algo=oms,offset=0.5,iters=10,early_stop=false", "awgn", 1.0,
	        0);
	sim_row(sec, ctx, o, "WiMAX 576 nms 10 it (plan encoder)",
	        "ldpc,code=WIMAX_288_576.alist,algo=nms,iters=10,early_stop=false", "awgn", 2.0, 0);
}

#else

void bench_sim(struct bench_report *r, const struct bench_opts *o, struct bench_ctx *c)
{
	(void)c;
	bench_sim_cpu(r, o);
	report_skip(report_section(r, "sim", (const char *const[]){"sim Gb/s", NULL}),
	            "built without CUDA (no nvcc when fecd was configured)");
}

#endif
