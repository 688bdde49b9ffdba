/*
 * By hand on the GPU machine: the ids GPU decoder's kernels timed one by one (gamma, alpha,
 * beta, posteriors, finish) on one launch of the frames in flight, for tuning; fecd-bench's
 * "ids" section has the figures with the lanes and transfers.
 *
 *   bench_gpu_ids [spec ...]   (default: the Fig. 17 code with local and with global storage)
 *
 * Frames go through the BSID channel at the spec's Pi = Pd (hard bits). Prints, per spec, the
 * decoder's describe() line, each kernel's best time of 5 in ms and the information bits per
 * second of the whole launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ids_gpu.cuh"

extern "C" {
#include "ids_code.h"
#include "prng.h"
}

#define REPS 5

static const char *const default_specs[] = {
    "ids,code=random,N=840,q=16,n=8,seed=1,pi=0.001,pd=0.001,ps=0,storage=local",
    "ids,code=random,N=840,q=16,n=8,seed=1,pi=0.001,pd=0.001,ps=0,storage=global",
};

/* count frames of dec's code through its channel, hard bits; jobs and input on the host. */
static int make_frames(const struct fec_spec *spec, const struct fec_info *info, uint32_t count,
                       struct fec_job *jobs, int8_t *in)
{
	const struct ids_chan ch = {spec->u.ids.pi, spec->u.ids.pd, 0.0};
	const uint32_t k = info->frame_info_bits;
	const size_t tau = fec_encoded_len(spec, k), max_out = ids_bsid_max_out(tau);
	struct fec_encoder *enc = NULL;
	uint8_t *bits = (uint8_t *)malloc(k), *cw = (uint8_t *)malloc(tau);
	uint8_t *rx = (uint8_t *)malloc(max_out);
	struct fec_prng p;
	int rc = -1;

	if (!bits || !cw || !rx || fec_encoder_create(spec, &enc))
		goto out;
	fec_prng_seed(&p, 1);
	for (uint32_t j = 0; j < count; j++) {
		size_t n = 0, rho = 0;

		fec_prng_bits(&p, bits, k);
		if (fec_encode(enc, bits, k, cw, &n) || n != tau)
			goto out;
		do
			ids_bsid_apply(&ch, &p, cw, tau, rx, max_out, &rho);
		while (rho > info->max_frame_syms);
		for (size_t i = 0; i < rho; i++)
			in[(size_t)j * info->max_frame_syms + i] = (int8_t)(rx[i] ? -127 : 127);
		jobs[j] = (struct fec_job){};
		jobs[j].in_len = jobs[j].own_len = (uint32_t)rho;
	}
	rc = 0;
out:
	fec_encoder_destroy(enc);
	free(bits);
	free(cw);
	free(rx);
	return rc;
}

static int bench_one(const struct fecd_cuda_device *dev, const char *text)
{
	static const char *const stage[5] = {"gamma", "scans", NULL, "post", "finish"};
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	void *impl = NULL, *d_jobs = NULL, *d_in = NULL, *d_out = NULL, *ws = NULL;
	struct fec_job *jobs = NULL;
	int8_t *in = NULL;
	char err[400] = "";
	float best[5], ms[5];
	cudaError_t e = cudaSuccess;
	int rc = 1;

	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		fprintf(stderr, "%s: %s\n", text, err);
		return 1;
	}
	spec = *fec_decoder_spec(dec);
	if (ids_gpu_family.create(dev, dec, &impl, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", text, err);
		goto out;
	}
	{
		const struct fec_info *info = fec_decoder_info(dec);
		const uint32_t count = idsg_frames_in_flight(impl);
		const size_t stride = info->max_frame_syms, ostride = (info->max_out_bits + 7) / 8;
		const size_t ws_bytes = ids_gpu_family.workspace_bytes(impl, count);
		struct gpu_batch gb = {};

		printf("%s\n  %s\n", text, ids_gpu_family.describe(impl));
		jobs = (struct fec_job *)calloc(count, sizeof(*jobs));
		in = (int8_t *)calloc(count, stride);
		if (!jobs || !in || make_frames(&spec, info, count, jobs, in)) {
			fprintf(stderr, "%s: making %u frames\n", text, count);
			goto out;
		}
		e = cudaMalloc(&d_jobs, count * sizeof(*jobs));
		if (e == cudaSuccess)
			e = cudaMalloc(&d_in, count * stride);
		if (e == cudaSuccess)
			e = cudaMalloc(&d_out, count * ostride);
		if (e == cudaSuccess)
			e = cudaMalloc(&ws, ws_bytes);
		if (e == cudaSuccess)
			e = cudaMemcpy(d_jobs, jobs, count * sizeof(*jobs), cudaMemcpyHostToDevice);
		if (e == cudaSuccess)
			e = cudaMemcpy(d_in, in, count * stride, cudaMemcpyHostToDevice);
		if (e != cudaSuccess)
			goto out;
		gb.count = count;
		gb.jobs = (struct fec_job *)d_jobs;
		gb.in = d_in;
		gb.in_stride = stride;
		gb.in_kind = GPU_IN_S8_LLR;
		gb.in_q = 1;
		gb.out = (uint8_t *)d_out;
		gb.out_stride = ostride;
		for (int r = 0; r <= REPS && e == cudaSuccess; r++) {
			e = (cudaError_t)idsg_time_stages(impl, &gb, ws, 0, ms);
			for (int k = 0; k < 5 && e == cudaSuccess; k++)
				best[k] = r <= 1 || ms[k] < best[k] ? ms[k] : best[k];
		}
		if (e != cudaSuccess)
			goto out;
		float total = 0.0f;

		for (int k = 0; k < 5; k++) {
			if (!stage[k])
				continue; /* alpha and beta run in one kernel */
			printf("  %-7s %9.3f ms\n", stage[k], best[k]);
			total += best[k];
		}
		printf("  total   %9.3f ms for %u frames: %.1f Mb/s of information bits\n", total,
		       count, (double)count * info->frame_info_bits / (total * 1e-3) / 1e6);
		rc = 0;
	}
out:
	if (e != cudaSuccess)
		fprintf(stderr, "%s: CUDA: %s\n", text, cudaGetErrorString(e));
	cudaFree(d_jobs);
	cudaFree(d_in);
	cudaFree(d_out);
	cudaFree(ws);
	if (impl)
		ids_gpu_family.destroy(impl);
	free(jobs);
	free(in);
	fec_decoder_destroy(dec);
	return rc;
}

int main(int argc, char **argv)
{
	struct fecd_cuda_device dev;
	char msg[256] = "";
	int rc = 0;

	if (fecd_cuda_device_count(msg, sizeof(msg)) <= 0) {
		printf("SKIP: no CUDA device (%s)\n", msg);
		return 77;
	}
	if (fecd_cuda_device_query(0, &dev, msg, sizeof(msg)) || cudaSetDevice(0) != cudaSuccess) {
		fprintf(stderr, "CUDA: %s\n", msg);
		return 1;
	}
	printf("device: %s, %d SMs\n", dev.name, dev.sm_count);
	if (argc > 1)
		for (int i = 1; i < argc; i++)
			rc |= bench_one(&dev, argv[i]);
	else
		for (unsigned i = 0; i < sizeof(default_specs) / sizeof(default_specs[0]); i++)
			rc |= bench_one(&dev, default_specs[i]);
	return rc;
}
