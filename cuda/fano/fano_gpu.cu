/*
 * The fano family on the GPU: the gpu_family_ops the backend core calls. create() turns the CPU
 * decoder's spec into the kernels' tables (the seed's code-word look-up tables from
 * codec/fano/fano_encode.c, the Fano metric table built on the host exactly as fano_decode.c
 * builds it), picks the launch shape from the device (occupancy of the rung kernel) and the
 * budget ladder's rungs from the code; launch() enqueues the ladder (fano_gpu_kernel.cu).
 * Results are bit for bit those of codec/fano/fano_decode.c; FANO_GPU.md has the design.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fano_gpu.cuh"

extern "C" {
#include "fano_code.h"
}

struct fgpu_impl {
	struct fgpu_code code;
	uint32_t rung[FGPU_RUNGS];
	unsigned nrungs;
	int threads, blocks_per_sm, regs, grid;
	bool f32;
	void *lut, *met; /* device copies, freed by destroy */
	char desc[320];
};

static bool fgpu_supports(const struct fec_spec *spec)
{
	const struct fano_spec *f = &spec->u.fano;

	return spec->family == FECD_FAMILY_FANO && f->k >= FANO_K_MIN && f->k <= FANO_K_MAX &&
	       f->n >= FANO_N_MIN && f->n <= FANO_N_MAX;
}

/* log2(1 + e^x) without overflow (fano_decode.c's, the same arithmetic). */
static double log2_1p_exp(double x)
{
	const double ln2 = 0.69314718055994530942;

	return x > 30.0 ? x / ln2 : log1p(exp(x)) / ln2;
}

/* fano_decode.c's metric_table (16 units per bit, floor -4096), packed and biased: met[0] +
 * FGPU_MET_BIAS in the low 16 bits of each entry, met[1] + FGPU_MET_BIAS in the high 16 bits
 * (both 0..4112: the device adds up to four halves without a carry between them). The device
 * never recomputes it. */
static void metric_table(uint32_t met[256], float llr_scale, unsigned n)
{
	for (int q = -128; q < 128; q++) {
		const double llr = q / (double)llr_scale;
		int32_t v[2];

		for (unsigned bit = 0; bit < 2; bit++) {
			const double m = 1.0 - log2_1p_exp(bit ? llr : -llr) - 1.0 / n;
			long r = lround(16 * m);

			v[bit] = (int32_t)(r < -4096 ? -4096 : r);
		}
		met[q + 128] = (uint32_t)(v[0] + FGPU_MET_BIAS) | (uint32_t)(v[1] + FGPU_MET_BIAS)
		                                                      << 16;
	}
}

static void fgpu_free(struct fgpu_impl *g)
{
	cudaFree(g->lut);
	cudaFree(g->met);
	free(g);
}

static int fgpu_create(const struct fecd_cuda_device *dev, const struct fec_decoder *cpu_dec,
                       void **impl, char *err, size_t errlen)
{
	const struct fec_spec *spec = fec_decoder_spec(cpu_dec);
	const struct fano_spec *fs = &spec->u.fano;
	struct fano_code code;
	uint32_t met[256];
	struct fgpu_impl *g;
	struct fgpu_code *c;
	cudaError_t e;
	int rc;

	if (!fgpu_supports(spec)) {
		snprintf(err, errlen, "fano_gpu: not a fano code with K 3..64, n 2..4");
		return -FEC_ENOTSUP;
	}
	g = (struct fgpu_impl *)calloc(1, sizeof(*g));
	if (!g)
		return -FEC_ENOMEM;
	fano_code_init(&code, fs);
	metric_table(met, spec->frame.llr_scale, fs->n);
	c = &g->code;
	c->k = code.k;
	c->n = code.n;
	c->info_bits = code.info_bits;
	c->stages = code.stages;
	c->lut_bytes = code.lut_bytes;
	for (unsigned dir = 0; dir < 2; dir++)
		for (unsigned r = 0; r < code.n; r++)
			c->poly[dir][r] = code.poly[dir][r];
	c->frame_syms = code.stages * code.n;
	c->words = (code.stages + 63) / 64;
	c->merge_len = fs->k - 2 + fs->merge;
	c->smask = (1ull << (code.k - 1)) - 1;
	c->budget = (uint32_t)((uint64_t)fs->cycles * code.stages);
	c->delta = (int32_t)fs->delta;
	c->delta_inv = 1.0f / (float)fs->delta;
	c->delta_lowmask = (fs->delta & (fs->delta - 1)) == 0 ? fs->delta - 1 : 0;
	c->llr_scale = spec->frame.llr_scale;
	c->bfa = fs->algo == FANO_ALGO_BFA;
	{
		/* FECD_FANO_GPU_KERNEL: 0 last session's walker, 1 the new one, 2 (the default,
		 * the fastest on the H100) the new one run a step of a cycle per loop iteration
		 * (UFA; BFA's is 1's) (FANO_GPU.md) */
		const char *ev = getenv("FECD_FANO_GPU_KERNEL");

		c->kernel = ev && (*ev == '0' || *ev == '1') && !ev[1] ? (unsigned)(*ev - '0') : 2;
		/* FECD_FANO_GPU_EARLY: the window's bytes used after which a lane reloads it
		 * with another lane of its warp (16; 33 never; measurements) */
		ev = getenv("FECD_FANO_GPU_EARLY");
		c->early = 16;
		if (ev && atoi(ev) >= 4 && atoi(ev) <= 33)
			c->early = (uint32_t)atoi(ev);
	}
	g->f32 = spec->frame.in == FEC_IN_F32_LLR;

	e = cudaMalloc(&g->lut, sizeof(code.lut));
	if (e == cudaSuccess)
		e = cudaMemcpy(g->lut, code.lut, sizeof(code.lut), cudaMemcpyHostToDevice);
	if (e == cudaSuccess)
		e = cudaMalloc(&g->met, sizeof(met));
	if (e == cudaSuccess)
		e = cudaMemcpy(g->met, met, sizeof(met), cudaMemcpyHostToDevice);
	if (e != cudaSuccess)
		goto out_cuda;
	c->lut = (const uint8_t *)g->lut;
	c->met = (const uint32_t *)g->met;

	e = (cudaError_t)fgpu_shape(c, &g->threads, &g->blocks_per_sm, &g->regs);
	if (e != cudaSuccess)
		goto out_cuda;
	g->grid = dev->sm_count * (g->blocks_per_sm > 0 ? g->blocks_per_sm : 1);
	/* FECD_FANO_GPU_LADDER=0: one rung with the channel's budget (measurements, tests) */
	{
		const char *ev = getenv("FECD_FANO_GPU_LADDER");

		g->nrungs = fgpu_rungs(c, !(ev && *ev == '0'), g->rung);
	}
	snprintf(g->desc, sizeof(g->desc),
	         "fgpu_%s_kernel<n=%s,%s state,walker %u> (%s, persistent threads taking frames "
	         "from a queue, budget ladder of %u rungs from %u cycles, context queue of %d in "
	         "shared memory, walker in registers, input window %s): %d threads/block, "
	         "%d blocks/SM, grid %d, %d regs",
	         c->bfa ? "bfa" : "ufa",
	         c->bfa && !c->kernel ? "any"
	         : c->n == 2          ? "2"
	         : c->n == 3          ? "3"
	                              : "4",
	         c->bfa && !c->kernel           ? "64-bit"
	         : c->lut_bytes == 1 && !c->bfa ? "8-bit"
	         : c->k <= 32                   ? "32-bit"
	                                        : "64-bit",
	         c->kernel, c->bfa ? "two threads per frame" : "one thread per frame", g->nrungs,
	         g->rung[0], FGPU_QUEUE,
	         c->kernel ? "of 32 bytes in shared memory" : "in registers", g->threads,
	         g->blocks_per_sm, g->grid, g->regs);
	*impl = g;
	return 0;

out_cuda:
	rc = gpu_error(e, "fano_gpu: uploading the tables", err, errlen);
	fgpu_free(g);
	return rc;
}

static size_t fgpu_workspace_bytes(const void *impl, uint32_t count)
{
	return fgpu_ws_layout(&((const struct fgpu_impl *)impl)->code, count, NULL, NULL);
}

static int fgpu_launch_ops(const void *impl, const struct gpu_batch *b, void *ws, size_t ws_bytes,
                           cudaStream_t s, char *err, size_t errlen)
{
	const struct fgpu_impl *g = (const struct fgpu_impl *)impl;
	const bool ok = g->f32 ? b->in_kind == GPU_IN_F32_LLR
	                       : b->in_kind == GPU_IN_S8_LLR || b->in_kind == GPU_IN_S4_LLR;
	int e;

	if (!ok) {
		snprintf(err, errlen, "fano_gpu: the decoder takes %s, not %s",
		         g->f32 ? "float32 LLRs" : "int8 or packed 4-bit LLRs",
		         gpu_in_kind_name(b->in_kind));
		return -FEC_ENOTSUP;
	}
	if (ws_bytes < fgpu_workspace_bytes(impl, b->count)) {
		snprintf(err, errlen, "fano_gpu: workspace of %zu bytes, %zu needed", ws_bytes,
		         fgpu_workspace_bytes(impl, b->count));
		return -FEC_EINVAL;
	}
	e = fgpu_launch(&g->code, b, ws, g->threads, g->grid, g->rung, g->nrungs, s);
	if (e)
		return gpu_error((cudaError_t)e, "fano_gpu: kernel launch", err, errlen);
	return 0;
}

static const char *fgpu_describe(const void *impl)
{
	return ((const struct fgpu_impl *)impl)->desc;
}

static void fgpu_destroy(void *impl)
{
	fgpu_free((struct fgpu_impl *)impl);
}

extern "C" const struct gpu_family_ops fano_gpu_family = {
    FECD_FAMILY_FANO, fgpu_supports, fgpu_create,  fgpu_workspace_bytes,
    fgpu_launch_ops,  fgpu_describe, fgpu_destroy, &fano_gpu_sim_encoder,
};
