/*
 * The LDPC family on the GPU: the gpu_family_ops the backend core calls. create() uploads the CPU
 * decoder's code (its layered walk, matrix, output columns) and picks the kernel: the fast one
 * (ldpc_gpu_fast.cu: layered min-sum on int8, two frames per thread) where the code and the
 * parameters allow, else the generic one (ldpc_gpu_generic.cu: everything else), each with its
 * launch shape from the device's properties (occupancy API). launch() enqueues it. Min-sum on
 * int8 is bit-identical to codec/ldpc/ldpc_decode.c; LDPC_GPU.md has the design and figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldpc_gpu.cuh"
#include "ldpc_gpu_sched.h"

extern "C" {
#include "ldpc_decoder.h"
}

#define LGPU_MAX_BUFS 12

struct lgpu_impl {
	struct lgpu_code code;
	uint4 *tab; /* fast kernel's columns, NULL when it is not used */
	bool fast;
	uint32_t levels; /* fast kernel: levels of its walk */
	struct lgpu_shape shape;
	void *bufs[LGPU_MAX_BUFS]; /* device allocations, freed by destroy */
	unsigned nbufs;
	char desc[320];
};

static bool lgpu_supports(const struct fec_spec *spec)
{
	return spec->family == FECD_FAMILY_LDPC;
}

/* Copies count words of host to a new device buffer owned by g; *out gets it. */
static cudaError_t upload(struct lgpu_impl *g, const void *host, size_t bytes, const void **out)
{
	void *p = NULL;
	cudaError_t e;

	if (g->nbufs == LGPU_MAX_BUFS)
		return cudaErrorMemoryAllocation;
	e = cudaMalloc(&p, bytes ? bytes : 4);
	if (e != cudaSuccess)
		return e;
	g->bufs[g->nbufs++] = p;
	e = cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
	*out = p;
	return e;
}

#define UPLOAD(g, host, count, dst)                                                                \
	upload(g, host, (size_t)(count) * sizeof(*(host)), (const void **)&(dst))

/* The fast kernel's walk, step-major: its levels each padded to whole steps of one row per
 * thread, so that thread t's rows sit at t, t + nt, t + 2 nt, ... across levels; a padding row
 * has no columns (0xffff) and the kernel skips it. The levels: the rows regrouped into levels of
 * up to two steps, 2 nt rows (ldpc_gpu_sched.c: the same results, bit for bit; DVB-S2 r1/2 at
 * 1024 threads: 21 levels, 16.6 against 16.1 Gb/s for its 18 layers, LDPC_GPU.md), or of up to N
 * rows with FECD_LDPC_GPU_LEVEL_ROWS=N, or the decoder's layers themselves with N = 0. Its
 * table: each position's up to 8 recs columns as 16-bit indices, one step more of padding at
 * the end (the prefetch's); step_end[l]: the steps up to the end of level l. */
static cudaError_t upload_fast(struct lgpu_impl *g, const struct ldpc_decoder *d)
{
	const uint32_t m = d->m, nt = (uint32_t)g->shape.threads;
	const size_t w = (size_t)LGPU_FAST_DEG * g->shape.recs; /* table slots per row */
	const char *ev = getenv("FECD_LDPC_GPU_LEVEL_ROWS");
	const long cap = ev ? strtol(ev, NULL, 10) : 2L * nt;
	uint32_t *order = (uint32_t *)malloc((size_t)m * sizeof(uint32_t));
	uint32_t *level = (uint32_t *)malloc(((size_t)m + 1) * sizeof(uint32_t));
	uint32_t *step_end = NULL, nsteps = 0;
	uint16_t *t = NULL;
	size_t slots;
	const void *dev = NULL;
	cudaError_t e = cudaErrorMemoryAllocation;

	if (!order || !level)
		goto out;
	if (cap > 0) {
		if (lgpu_reschedule(d->sched_start, d->sched_col, m, d->code->h.n, (uint32_t)cap,
		                    order, level, &g->levels))
			goto out;
	} else {
		for (uint32_t i = 0; i < m; i++)
			order[i] = i;
		for (uint32_t l = 0; l <= d->code->nlayers; l++)
			level[l] = d->code->layer_start[l];
		g->levels = d->code->nlayers;
	}
	step_end = (uint32_t *)malloc(((size_t)g->levels + 1) * sizeof(uint32_t));
	if (!step_end)
		goto out;
	for (uint32_t l = 0; l < g->levels; l++) {
		nsteps += (level[l + 1] - level[l] + nt - 1) / nt;
		step_end[l] = nsteps;
	}
	slots = ((size_t)nsteps + 1) * nt;
	t = (uint16_t *)malloc(slots * w * sizeof(uint16_t));
	if (!t)
		goto out;
	memset(t, 0xff, slots * w * sizeof(uint16_t));
	for (uint32_t l = 0; l < g->levels; l++) {
		const size_t base = (size_t)(l ? step_end[l - 1] : 0) * nt;

		for (uint32_t i = level[l]; i < level[l + 1]; i++) {
			uint16_t *r = t + (base + i - level[l]) * w;
			const uint32_t e0 = d->sched_start[order[i]];
			const uint32_t deg = d->sched_start[order[i] + 1] - e0;

			for (uint32_t j = 0; j < deg; j++)
				r[j] = (uint16_t)d->sched_col[e0 + j];
			/* Mixed app: the row's word columns first, so that the kernel knows each
			 * edge's kind from its position (DVB-S2: 5 words, 2 packed). The order of
			 * a row's edges changes no result: tied minima get equal magnitudes
			 * (codec/ldpc/ldpc.h). */
			for (uint32_t j = 1; g->shape.layout == LGPU_APP_MIXED && j < deg; j++)
				for (uint32_t q = j; q > 0 && r[q - 1] > r[q]; q--) {
					const uint16_t x = r[q];

					r[q] = r[q - 1];
					r[q - 1] = x;
				}
			if (g->shape.layout == LGPU_APP_MIXED && g->shape.recs == 1 && deg == 7 &&
			    r[4] < g->shape.split && r[5] >= g->shape.split)
				r[7] = LGPU_ROW_5W2P;
		}
	}
	e = upload(g, t, slots * w * sizeof(uint16_t), &dev);
	g->tab = (uint4 *)dev;
	if (e == cudaSuccess)
		e = UPLOAD(g, step_end, g->levels, g->code.step_end);
	g->code.nlevels = g->levels;
	g->code.nsteps = nsteps;
	g->shape.ws_per_block = slots * lgpu_fast_rec_bytes(g->shape.recs);
out:
	free(t);
	free(order);
	free(level);
	free(step_end);
	return e;
}

static void lgpu_free(struct lgpu_impl *g)
{
	for (unsigned i = 0; i < g->nbufs; i++)
		cudaFree(g->bufs[i]);
	free(g);
}

static int lgpu_create(const struct fecd_cuda_device *dev, const struct fec_decoder *cpu_dec,
                       void **impl, char *err, size_t errlen)
{
	const struct fec_spec *spec = fec_decoder_spec(cpu_dec);
	const struct ldpc_code *code = ldpc_decoder_code(cpu_dec);
	const struct ldpc_decoder *d = (const struct ldpc_decoder *)cpu_dec;
	const struct ldpc_spec *ls = &spec->u.ldpc;
	struct lgpu_impl *g;
	struct lgpu_code *c;
	cudaError_t e;
	int rc;

	if (!lgpu_supports(spec) || !code) {
		snprintf(err, errlen, "ldpc_gpu: not an ldpc decoder");
		return -FEC_ENOTSUP;
	}
	g = (struct lgpu_impl *)calloc(1, sizeof(*g));
	if (!g)
		return -FEC_ENOMEM;
	c = &g->code;
	c->n = code->h.n;
	c->m = code->h.m;
	c->nnz = code->h.nnz;
	c->punct = code->punct;
	c->n_tx = code->n_tx;
	c->out_n = d->out_n;
	c->nlayers = code->nlayers;
	c->algo = ls->algo;
	c->layered = ls->schedule == LDPC_SCHED_LAYERED;
	c->early_stop = ls->early_stop;
	c->in_f32 = spec->frame.in == FEC_IN_F32_LLR;
	c->alpha16 = d->alpha16;
	c->offset8 = d->offset8;
	c->inv_scale = d->inv_scale;
	c->alpha = ls->alpha;
	c->offset = ls->offset;
	c->max_iters = ls->max_iters;
	c->four = 4;
	c->minus1 = UINT32_MAX;
	c->two = 2;
	c->one = 1;
	c->m65536 = 0xffff0000u;
	e = UPLOAD(g, d->sched_start, c->m + 1, c->sched_start);
	if (e == cudaSuccess)
		e = UPLOAD(g, d->sched_col, c->nnz, c->sched_col);
	if (e == cudaSuccess)
		e = UPLOAD(g, code->layer_start, c->nlayers + 1, c->layer_start);
	if (e == cudaSuccess && !c->layered) {
		e = UPLOAD(g, code->h.row_start, c->m + 1, c->row_start);
		if (e == cudaSuccess)
			e = UPLOAD(g, code->h.row_col, c->nnz, c->row_col);
		if (e == cudaSuccess)
			e = UPLOAD(g, code->h.col_start, c->n + 1, c->col_start);
		if (e == cudaSuccess)
			e = UPLOAD(g, code->h.col_edge, c->nnz, c->col_edge);
	}
	if (e == cudaSuccess && d->out_cols)
		e = UPLOAD(g, d->out_cols, d->out_n, c->out_cols);
	if (e != cudaSuccess)
		goto out_cuda;

	/* FECD_LDPC_GPU_GENERIC=1 keeps the generic kernel (for measurements and the tests). */
	{
		const char *ev = getenv("FECD_LDPC_GPU_GENERIC");
		bool ok = false;

		if (!(ev && *ev == '1')) {
			e = (cudaError_t)lgpu_fast_prepare(c, dev, code->h.col_start, d->max_deg,
			                                   &g->shape, &ok);
			if (e != cudaSuccess)
				goto out_cuda;
		}
		if (ok) {
			e = upload_fast(g, d);
			if (e != cudaSuccess)
				goto out_cuda;
			g->fast = true;
		}
	}
	if (g->fast) {
		snprintf(
		    g->desc, sizeof(g->desc),
		    "ldpc_fast_kernel<%s%s> (layered min-sum int8, 2 frames per thread in 16-bit "
		    "halves, exact app in shared memory, compressed messages): %d threads/block, "
		    "%d blocks/SM, grid %d, %d regs, %zu B shared, rows of up to %u edges, "
		    "%u layers walked as %u levels",
		    ls->algo == LDPC_ALGO_NMS   ? "nms"
		    : ls->algo == LDPC_ALGO_OMS ? "oms"
		                                : "ms",
		    g->shape.layout == LGPU_APP_PACKED  ? ",app 12-bit packed"
		    : g->shape.layout == LGPU_APP_MIXED ? ",app words+12-bit packed"
		                                        : "",
		    g->shape.threads, g->shape.blocks_per_sm, g->shape.grid, g->shape.regs,
		    g->shape.smem, 8 * g->shape.recs, code->nlayers, g->levels);
	} else {
		e = (cudaError_t)lgpu_generic_prepare(c, dev, &g->shape);
		if (e != cudaSuccess)
			goto out_cuda;
		snprintf(g->desc, sizeof(g->desc),
		         "ldpc_generic_kernel<%s> (%s %s, one block per frame, arrays in global "
		         "memory): %d threads/block, %d blocks/SM, grid %d, %d regs",
		         c->algo == LDPC_ALGO_SPA || c->in_f32 ? "float" : "int8",
		         c->layered ? "layered" : "flooding",
		         c->algo == LDPC_ALGO_SPA   ? "spa"
		         : c->algo == LDPC_ALGO_NMS ? "nms"
		         : c->algo == LDPC_ALGO_OMS ? "oms"
		                                    : "ms",
		         g->shape.threads, g->shape.blocks_per_sm, g->shape.grid, g->shape.regs);
	}
	*impl = g;
	return 0;

out_cuda:
	rc = gpu_error(e, "ldpc_gpu: uploading the code", err, errlen);
	lgpu_free(g);
	return rc;
}

static size_t lgpu_workspace_bytes(const void *impl, uint32_t count)
{
	const struct lgpu_impl *g = (const struct lgpu_impl *)impl;
	uint32_t blocks = g->fast ? (count + 1) / 2 : count;

	if (blocks > (uint32_t)g->shape.grid)
		blocks = (uint32_t)g->shape.grid;
	return (size_t)blocks * g->shape.ws_per_block;
}

static int lgpu_launch(const void *impl, const struct gpu_batch *b, void *ws, size_t ws_bytes,
                       cudaStream_t s, char *err, size_t errlen)
{
	const struct lgpu_impl *g = (const struct lgpu_impl *)impl;
	int e;

	if (b->in_kind != (g->code.in_f32 ? GPU_IN_F32_LLR : GPU_IN_S8_LLR)) {
		snprintf(err, errlen, "ldpc_gpu: the decoder takes %s input, not %s",
		         gpu_in_kind_name(g->code.in_f32 ? GPU_IN_F32_LLR : GPU_IN_S8_LLR),
		         gpu_in_kind_name(b->in_kind));
		return b->in_kind == GPU_IN_S4_LLR || b->in_kind == GPU_IN_F32_SYMLOGP
		           ? -FEC_ENOTSUP
		           : -FEC_EINVAL;
	}
	if (ws_bytes < lgpu_workspace_bytes(impl, b->count)) {
		snprintf(err, errlen, "ldpc_gpu: workspace of %zu bytes, %zu needed", ws_bytes,
		         lgpu_workspace_bytes(impl, b->count));
		return -FEC_EINVAL;
	}
	if (g->fast)
		e = lgpu_fast_launch(&g->code, g->tab, &g->shape, b, ws, s);
	else
		e = lgpu_generic_launch(&g->code, &g->shape, b, ws, s);
	if (e)
		return gpu_error((cudaError_t)e, "ldpc_gpu: kernel launch", err, errlen);
	return 0;
}

static const char *lgpu_describe(const void *impl)
{
	return ((const struct lgpu_impl *)impl)->desc;
}

static void lgpu_destroy(void *impl)
{
	lgpu_free((struct lgpu_impl *)impl);
}

extern "C" const struct gpu_family_ops ldpc_gpu_family = {
    FECD_FAMILY_LDPC, lgpu_supports, lgpu_create,  lgpu_workspace_bytes,
    lgpu_launch,      lgpu_describe, lgpu_destroy, &ldpc_gpu_sim_encoder,
};
