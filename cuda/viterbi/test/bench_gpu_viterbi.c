/*
 * Kernel-only timing of the GPU Viterbi decoder (not a test): CCSDS K=7 r=1/2 stream blocks with
 * traceback and head L = M (default 64) for decode lengths D = 256..2048, int8 and packed 4-bit
 * random input, then K = 3..9 at D = 1024; and the device's copy bandwidth (the bytes ceiling).
 * Launches the family directly (cuda/gpu_family.h) between CUDA events; median of 7 timings of
 * 3 launches each after a warm-up. Decoded bits per second = jobs * D / time.
 * Usage: bench_gpu_viterbi [L [MBITS [WHAT]]]; WHAT "k" runs only the K sweep, "ccsds" only CCSDS,
 * "d2048" only CCSDS D=2048 int8 and 4-bit.
 * FECD_VITERBI_GPU_LANES=0..3 picks the kernel variant (viterbi_gpu.cu) for comparisons,
 * FECD_VITERBI_GPU_OPT the fast kernel's options (viterbi_gpu_fast.cu).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fec.h"
#include "fecd_cuda.h"
#include "gpu_family.h"

#define REPS 7

static int cmp_f(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* Median milliseconds of one launch. */
static float time_launch(const struct gpu_family_ops *ops, void *impl, struct gpu_batch *b,
                         void *ws, size_t ws_bytes)
{
	cudaEvent_t e0, e1;
	float ms[REPS];
	char err[256];

	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	if (ops->launch(impl, b, ws, ws_bytes, 0, err, sizeof(err))) {
		fprintf(stderr, "launch: %s\n", err);
		exit(1);
	}
	CK(cudaDeviceSynchronize());
	for (int r = 0; r < REPS; r++) {
		CK(cudaEventRecord(e0, 0));
		for (int k = 0; k < 3; k++)
			ops->launch(impl, b, ws, ws_bytes, 0, err, sizeof(err));
		CK(cudaEventRecord(e1, 0));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms[r], e0, e1));
		ms[r] /= 3;
	}
	CK(cudaGetLastError());
	qsort(ms, REPS, sizeof(float), cmp_f);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	return ms[REPS / 2];
}

static void run(const struct fecd_cuda_device *dev, const char *code, uint32_t d, uint32_t l,
                double mbits, bool s4)
{
	const struct gpu_family_ops *ops = &viterbi_gpu_family;
	struct fec_spec spec;
	struct fec_decoder *cpu;
	void *impl = NULL;
	char text[160], err[256];

	snprintf(text, sizeof(text), "%s,decode_len=%u,traceback_len=%u,head_len=%u", code, d, l,
	         l);
	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &cpu)) {
		fprintf(stderr, "%s: %s\n", text, err);
		exit(1);
	}
	if (ops->create(dev, cpu, &impl, err, sizeof(err))) {
		fprintf(stderr, "create: %s\n", err);
		exit(1);
	}
	const struct fec_info *info = fec_decoder_info(cpu);
	const uint32_t count = (uint32_t)(mbits * 1e6 / d);
	const size_t syms = info->head_syms + info->block_syms + info->tail_syms;
	const size_t stride = s4 ? (syms + 1) / 2 : syms;
	const size_t ostride = (d + 7) / 8;
	size_t ws_bytes = ops->workspace_bytes(impl, count);
	struct fec_job *jobs = calloc(count, sizeof(*jobs));
	uint8_t *in = malloc((size_t)count * stride);
	struct gpu_batch b = {.count = count,
	                      .in_stride = stride,
	                      .in_kind = s4 ? GPU_IN_S4_LLR : GPU_IN_S8_LLR,
	                      .in_q = 1,
	                      .out_stride = ostride};
	void *ws, *din, *dout, *djobs;
	uint64_t x = 88172645463325252ull;

	for (size_t i = 0; i < (size_t)count * stride; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		in[i] = (uint8_t)(x >> 24);
	}
	for (uint32_t j = 0; j < count; j++) {
		jobs[j].in_len = (uint32_t)syms;
		jobs[j].head_len = info->head_syms;
		jobs[j].own_len = info->block_syms;
	}
	CK(cudaMalloc(&ws, ws_bytes));
	CK(cudaMalloc(&din, (size_t)count * stride));
	CK(cudaMalloc(&dout, (size_t)count * ostride));
	CK(cudaMalloc(&djobs, (size_t)count * sizeof(*jobs)));
	CK(cudaMemcpy(din, in, (size_t)count * stride, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(djobs, jobs, (size_t)count * sizeof(*jobs), cudaMemcpyHostToDevice));
	b.jobs = djobs;
	b.in = din;
	b.out = dout;

	float ms = time_launch(ops, impl, &b, ws, ws_bytes);
	double gbps = (double)count * d / (ms * 1e-3) / 1e9;
	/* Bytes one launch must move: input, output, decision rows written and read back. */
	double bytes = (double)count * (stride + ostride) + 2.0 * ws_bytes;

	CK(cudaMemcpy(jobs, djobs, sizeof(*jobs), cudaMemcpyDeviceToHost));
	printf("%-8s K=%u D=%-5u L=M=%-3u %s jobs %7u  %8.3f ms  %7.1f Gb/s  %6.0f GB/s moved  "
	       "(job0 status %u bits %u)  [%s]\n",
	       code, spec.u.conv.k, d, l, s4 ? "s4" : "s8", count, ms, gbps, bytes / (ms * 1e6),
	       jobs[0].status, jobs[0].out_bits, ops->describe(impl));
	fflush(stdout);
	cudaFree(ws);
	cudaFree(din);
	cudaFree(dout);
	cudaFree(djobs);
	free(jobs);
	free(in);
	ops->destroy(impl);
	fec_decoder_destroy(cpu);
}

int main(int argc, char **argv)
{
	struct fecd_cuda_device dev;
	char msg[256] = "";
	uint32_t l = argc > 1 ? (uint32_t)atoi(argv[1]) : 64;
	double mbits = argc > 2 ? atof(argv[2]) : 256;
	const char *what = argc > 3 ? argv[3] : "all";
	const bool all = strcmp(what, "all") == 0;

	if (fecd_cuda_device_count(msg, sizeof(msg)) <= 0 ||
	    fecd_cuda_device_query(0, &dev, msg, sizeof(msg))) {
		printf("no CUDA device: %s\n", msg);
		return 77;
	}
	CK(cudaSetDevice(0));
	printf("device: %s, %d SMs, %d MHz, mem %d MHz x %d bits\n", dev.name, dev.sm_count,
	       dev.clock_khz / 1000, dev.mem_clock_khz / 1000, dev.mem_bus_bits);
	{
		/* The bytes ceiling: a large device-to-device copy (read + write counted). */
		size_t len = (size_t)1 << 30;
		void *a, *c;
		cudaEvent_t e0, e1;
		float ms = 0;

		CK(cudaMalloc(&a, len));
		CK(cudaMalloc(&c, len));
		CK(cudaMemset(a, 1, len));
		CK(cudaEventCreate(&e0));
		CK(cudaEventCreate(&e1));
		CK(cudaMemcpy(c, a, len, cudaMemcpyDeviceToDevice));
		CK(cudaEventRecord(e0, 0));
		for (int i = 0; i < 5; i++)
			CK(cudaMemcpy(c, a, len, cudaMemcpyDeviceToDevice));
		CK(cudaEventRecord(e1, 0));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1));
		printf("device copy: %.0f GB/s (read + write)\n", 2.0 * 5 * len / (ms * 1e6));
		cudaFree(a);
		cudaFree(c);
	}
	if (all || strcmp(what, "ccsds") == 0) {
		for (uint32_t d = 256; d <= 2048; d *= 2)
			run(&dev, "ccsds", d, l, mbits, false);
		run(&dev, "ccsds", 2048, l, mbits, true);
		run(&dev, "ccsds", 1024, 35, mbits, false);
		run(&dev, "dvbs-3/4", 1024, l, mbits, false);
	}
	if (strcmp(what, "d2048") == 0) {
		run(&dev, "ccsds", 2048, l, mbits, false);
		run(&dev, "ccsds", 2048, l, mbits, true);
	}
	for (unsigned k = 3; k <= 9 && (all || strcmp(what, "k") == 0); k++) {
		char code[96];

		snprintf(code, sizeof(code), "viterbi,k=%u,polys=%o:%o,invert=01", k,
		         (1u << (k - 1)) | 1u, (1u << k) - 1);
		run(&dev, code, 1024, l, mbits, false);
	}
	return 0;
}
