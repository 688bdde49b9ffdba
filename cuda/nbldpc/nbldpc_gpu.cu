/*
 * The nbldpc family on the GPU: the gpu_family_ops the backend core calls. create() uploads the
 * CPU decoder's code (H both ways with its coefficients, the information columns; the field's
 * exponent and logarithm tables travel in the launch's parameters, from which the kernels form the
 * coefficient permutations the transforms need) and picks the decoder's kernel and launch shape:
 * FFT-BP (nbldpc_gpu_fftbp.cu), trellis min-sum (nbldpc_gpu_tms.cu) or min-max
 * (nbldpc_gpu_minmax.cu, its own launcher; supported once that kernel exists). launch() checks
 * the batch's input kind and enqueues the kernel.
 * NBLDPC_GPU.md has the design and figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbldpc_gpu.cuh"
#include "nbldpc_gpu_minmax.h"
#include "nbldpc_gpu_tms.h"

extern "C" {
#include "nbldpc_decoder.h"
}

#define NBGPU_MAX_BUFS 24

struct nbgpu_impl {
	struct nbgpu_code code;
	struct nbgpu_shape shape;
	void *bufs[NBGPU_MAX_BUFS]; /* device allocations, freed by destroy */
	unsigned nbufs;
	uint32_t chip_remote; /* fft-bp on chip: slots in another block than their variable's */
	char desc[480];
};

static bool nbgpu_supports(const struct fec_spec *spec)
{
	if (spec->family != FECD_FAMILY_NBLDPC)
		return false;
	if (spec->u.nbldpc.soft == NBLDPC_SOFT_CODE)
		return false; /* the kernels write information symbols' soft output only */
	if (spec->u.nbldpc.algo == NBLDPC_ALGO_MINMAX)
		return nbgpu_minmax_supports(spec);
	if (spec->u.nbldpc.algo == NBLDPC_ALGO_TMS)
		return nbgpu_tms_supports(spec);
	return spec->u.nbldpc.algo == NBLDPC_ALGO_FFTBP;
}

/* Copies bytes of host to a new device buffer owned by g; *out gets it. */
static cudaError_t upload(struct nbgpu_impl *g, const void *host, size_t bytes, const void **out)
{
	void *p = NULL;
	cudaError_t e;

	if (g->nbufs == NBGPU_MAX_BUFS)
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

static void nbgpu_free(struct nbgpu_impl *g)
{
	for (unsigned i = 0; i < g->nbufs; i++)
		cudaFree(g->bufs[i]);
	free(g);
}

/* The other edges of each edge's column (nbgpu_code.oth_start, oth_edge). */
static cudaError_t upload_others(struct nbgpu_impl *g, const struct nbldpc_code *code)
{
	uint32_t *start = (uint32_t *)malloc(((size_t)code->nnz + 1) * sizeof(uint32_t));
	uint32_t *oth =
	    (uint32_t *)malloc(((size_t)code->nnz * code->max_col_deg + 1) * sizeof(uint32_t));
	uint32_t n = 0;
	cudaError_t e = cudaErrorMemoryAllocation;

	if (!start || !oth)
		goto out;
	for (uint32_t ed = 0; ed < code->nnz; ed++) {
		const uint32_t x = code->row_col[ed];

		start[ed] = n;
		for (uint32_t j = code->col_start[x]; j < code->col_start[x + 1]; j++)
			if (code->col_edge[j] != ed)
				oth[n++] = code->col_edge[j];
	}
	start[code->nnz] = n;
	e = UPLOAD(g, start, code->nnz + 1, g->code.oth_start);
	if (e == cudaSuccess)
		e = UPLOAD(g, oth, n, g->code.oth_edge);
out:
	free(start);
	free(oth);
	return e;
}

/* tms's stages of checks (nbgpu_code.sched_row, stage_start, nstage) and edge_turn. */
static cudaError_t upload_stages(struct nbgpu_impl *g, const struct nbldpc_code *code)
{
	const uint32_t m = code->m;
	uint32_t *stage = (uint32_t *)malloc((m + 1) * sizeof(uint32_t));
	uint32_t *last = (uint32_t *)calloc(code->n + 1, sizeof(uint32_t));
	uint32_t *order = (uint32_t *)malloc((m + 1) * sizeof(uint32_t));
	uint32_t *start = (uint32_t *)calloc(m + 2, sizeof(uint32_t)), *turn = NULL;
	uint32_t ns = 0;
	cudaError_t e = cudaErrorMemoryAllocation;

	if (!stage || !last || !order || !start)
		goto out;
	/* last[x]: 1 + the stage of the latest check on x so far, 0 for none */
	for (uint32_t r = 0; r < m; r++) {
		uint32_t st = 0;

		for (uint32_t j = code->row_start[r]; j < code->row_start[r + 1]; j++)
			st = last[code->row_col[j]] > st ? last[code->row_col[j]] : st;
		stage[r] = st;
		for (uint32_t j = code->row_start[r]; j < code->row_start[r + 1]; j++)
			last[code->row_col[j]] = st + 1;
		ns = st + 1 > ns ? st + 1 : ns;
	}
	/* the rows by stage, in row order within one */
	for (uint32_t r = 0; r < m; r++)
		start[stage[r] + 1]++;
	for (uint32_t st = 0; st < ns; st++)
		start[st + 1] += start[st];
	for (uint32_t r = 0; r < m; r++)
		order[start[stage[r]]++] = r;
	for (uint32_t st = ns; st > 0; st--)
		start[st] = start[st - 1];
	start[0] = 0;
	g->code.nstage = ns;
	e = UPLOAD(g, order, m, g->code.sched_row);
	if (e == cudaSuccess)
		e = UPLOAD(g, start, ns + 1, g->code.stage_start);
	if (e != cudaSuccess)
		goto out;
	/* edge_turn: the column's edges are col_edge[col_start[x] ..] in row order */
	turn = (uint32_t *)malloc(((size_t)code->nnz + 1) * sizeof(uint32_t));
	e = cudaErrorMemoryAllocation;
	if (!turn)
		goto out;
	for (uint32_t x = 0; x < code->n; x++)
		for (uint32_t i = code->col_start[x]; i < code->col_start[x + 1]; i++)
			turn[code->col_edge[i]] =
			    (i - code->col_start[x]) | (code->col_start[x + 1] - code->col_start[x])
			                                   << 16;
	e = UPLOAD(g, turn, code->nnz, g->code.edge_turn);
out:
	free(stage);
	free(last);
	free(order);
	free(start);
	free(turn);
	return e;
}

/* FFT-BP's kernel and shape: the messages on chip (nbldpc_gpu_fftbp_chip.cu) where the code
 * suits it and the smallest cluster (1, 2, 4, 8 or 16 blocks) whose shared memory holds a frame
 * runs on the device, else in device memory (nbldpc_gpu_fftbp.cu). FECD_FFTBP_KERNEL in the
 * environment compares them on one card: "dram" forces the latter; "chip" followed by options
 * ",v2" / ",v8" (values a lane, q = 64), ",c<N>" (blocks a cluster, 1 to 16, not only the
 * powers of 2 tried without it), ",t<N>" (threads a block),
 * ",p0" (rows split in order, not partitioned), ",s0" (the code's tables read from device
 * memory, not staged in shared memory), ",b0" (cluster barriers where a cluster is one block,
 * not block barriers), ",d0" (per-edge degree tests in every check), ",old" (all three: the
 * kernel before them), ",split" (the split cluster barrier where C > 1), ",al" (.aligned
 * cluster barriers) and ",e0" (the group form's check phase, not the edge form's: a lane an
 * edge, the default there) tune the former; those seven exist for q = 64 with 4 values a lane
 * and rows of at most 4 (GF64_5040, BeiDou B1C), elsewhere the kernel in device memory runs
 * under the first six. */
static cudaError_t fftbp_setup(struct nbgpu_impl *g, const struct nbldpc_code *code,
                               const struct fecd_cuda_device *dev, bool *ok)
{
	struct nbgpu_code *c = &g->code;
	const char *env = getenv("FECD_FFTBP_KERNEL");
	const char *opt = env && !strncmp(env, "chip", 4) ? env + 4 : "";
	const char *cv = strstr(opt, ",v"), *cc = strstr(opt, ",c");
	const int v = cv ? atoi(cv + 2) : nbgpu_chip_default_v(c->q);
	const unsigned force_c = cc ? (unsigned)atoi(cc + 2) : 0;
	const int flags = nbgpu_chip_flags(c, v, opt);
	const size_t smem_max =
	    dev->smem_per_block_optin ? dev->smem_per_block_optin : (size_t)48 << 10;
	cudaError_t e = cudaSuccess;

	*ok = false;
	if (!(env && !strcmp(env, "dram")) && nbgpu_chip_takes(c))
		for (unsigned cs = force_c ? force_c : 1; cs <= 16 && !*ok;
		     cs = force_c ? 17 : cs * 2) {
			struct nbgpu_chip_plan plan;

			if ((size_t)(c->nnz + c->n) * c->q * 4 > cs * smem_max)
				continue; /* the slots and priors cannot fit */
			if (nbgpu_chip_plan_make(code, c->q, cs, !strstr(opt, ",p0"), flags,
			                         &plan))
				continue;
			e = (cudaError_t)nbgpu_fftbp_chip_prepare(c, dev, &plan, v, flags,
			                                          &g->shape, ok);
			if (e == cudaSuccess && *ok) {
				c->chip_vmax = plan.vmax;
				c->chip_rmax = plan.rmax;
				c->chip_emax = plan.emax;
				e = UPLOAD(g, plan.var, c->n, c->chip_var);
				if (e == cudaSuccess)
					e = UPLOAD(g, plan.var_start, cs + 1, c->chip_var_start);
				if (e == cudaSuccess)
					e = UPLOAD(g, plan.slot, 2 * c->n, c->chip_slot);
				if (e == cudaSuccess)
					e = UPLOAD(g, plan.pos, c->n, c->chip_pos);
				if (e == cudaSuccess)
					e = UPLOAD(g, plan.row, c->m, c->chip_row);
				if (e == cudaSuccess)
					e = UPLOAD(g, plan.row_start, cs + 1, c->chip_row_start);
				if (e == cudaSuccess)
					e = UPLOAD(g, plan.row_slot, c->m, c->chip_row_slot);
				if (e == cudaSuccess)
					e = UPLOAD(g, plan.row_nint, cs, c->chip_row_nint);
				if (e == cudaSuccess)
					e = UPLOAD(g, plan.var_nloc, cs, c->chip_var_nloc);
				if (e == cudaSuccess && plan.row_slots)
					e = UPLOAD(g, plan.row_slots, plan.row_words * c->m,
					           c->chip_row_slots);
				if (e == cudaSuccess && plan.pair)
					e = UPLOAD(g, plan.pair, c->n, c->chip_pair);
				g->chip_remote = plan.remote;
			}
			nbgpu_chip_plan_free(&plan);
			if (e != cudaSuccess)
				return e;
		}
	if (*ok)
		return cudaSuccess;
	g->shape.chip_c = 0;
	return (cudaError_t)nbgpu_fftbp_prepare(c, dev, &g->shape, ok);
}

static void fill_code(struct nbgpu_code *c, const struct nbldpc_decoder *d)
{
	const struct fec_spec *spec = &d->base.spec;
	const struct nbldpc_spec *s = &spec->u.nbldpc;
	const struct nbldpc_code *code = d->code;

	c->n = code->n;
	c->m = code->m;
	c->nnz = code->nnz;
	c->k = code->k;
	c->q = d->q;
	c->p = d->p;
	c->max_row_deg = code->max_row_deg;
	c->max_col_deg = code->max_col_deg;
	c->algo = s->algo;
	c->log = s->domain == NBLDPC_DOMAIN_LOG;
	c->early_stop = s->early_stop;
	c->max_iters = s->max_iters;
	c->dev2 = s->dev2;
	c->offset = s->offset;
	c->in = spec->frame.in;
	c->llr_scale = spec->frame.llr_scale;
	c->in_syms = d->base.info.frame_syms;
	c->soft_bit = s->soft == NBLDPC_SOFT_BIT;
	memcpy(c->bit_shift, d->bit_shift, sizeof(c->bit_shift));
	memcpy(c->gf_exp, code->gf.exp, sizeof(c->gf_exp));
	memcpy(c->gf_log, code->gf.log, sizeof(c->gf_log));
}

static int nbgpu_create(const struct fecd_cuda_device *dev, const struct fec_decoder *cpu_dec,
                        void **impl, char *err, size_t errlen)
{
	const struct fec_spec *spec = fec_decoder_spec(cpu_dec);
	const struct nbldpc_code *code = nbldpc_decoder_code(cpu_dec);
	const struct nbldpc_decoder *d = (const struct nbldpc_decoder *)cpu_dec;
	struct nbgpu_impl *g;
	struct nbgpu_code *c;
	cudaError_t e;
	bool ok = false;
	int rc;

	if (!nbgpu_supports(spec) || !code) {
		snprintf(err, errlen, "nbldpc_gpu: not an nbldpc decoder the GPU takes");
		return -FEC_ENOTSUP;
	}
	g = (struct nbgpu_impl *)calloc(1, sizeof(*g));
	if (!g)
		return -FEC_ENOMEM;
	c = &g->code;
	fill_code(c, d);
	e = UPLOAD(g, code->row_start, c->m + 1, c->row_start);
	if (e == cudaSuccess)
		e = UPLOAD(g, code->row_col, c->nnz, c->row_col);
	if (e == cudaSuccess)
		e = UPLOAD(g, code->row_val, c->nnz, c->row_val);
	if (e == cudaSuccess)
		e = UPLOAD(g, code->col_start, c->n + 1, c->col_start);
	if (e == cudaSuccess)
		e = UPLOAD(g, code->col_edge, c->nnz, c->col_edge);
	if (e == cudaSuccess)
		e = UPLOAD(g, code->info_cols, c->k, c->info_cols);
	if (e == cudaSuccess)
		e = upload_others(g, code);
	if (e == cudaSuccess && c->algo == NBLDPC_ALGO_TMS)
		e = upload_stages(g, code);
	if (e != cudaSuccess)
		goto out_cuda;

	if (c->algo == NBLDPC_ALGO_MINMAX)
		e = (cudaError_t)nbgpu_minmax_prepare(c, dev, &g->shape, &ok);
	else if (c->algo == NBLDPC_ALGO_TMS)
		e = (cudaError_t)nbgpu_tms_prepare(c, dev, &g->shape, &ok);
	else
		e = fftbp_setup(g, code, dev, &ok);
	if (e != cudaSuccess)
		goto out_cuda;
	if (!ok) {
		snprintf(err, errlen,
		         "nbldpc_gpu: rows of %u edges over GF(%u) need more shared memory than a "
		         "block of this device has",
		         c->max_row_deg, c->q);
		nbgpu_free(g);
		return -FEC_ENOTSUP;
	}
	if (c->algo == NBLDPC_ALGO_TMS)
		snprintf(
		    g->desc, sizeof(g->desc),
		    "nbldpc_tms_%s<q=%u> (layered, dev2 %u, offset %u, %s, the check in %s%s%s): "
		    "%d "
		    "threads/block, %d blocks/SM, %d frames in flight, %d regs, %zu B shared, %zu "
		    "B "
		    "workspace a frame",
		    g->shape.tms_chip ? "chip_kernel" : "kernel", c->q, c->dev2, c->offset,
		    g->shape.tms_chip
		        ? "the frame in shared memory, a block a frame, the checks of "
		          "a stage on its warps"
		        : "a warp a frame",
		    g->shape.tms_d ? "registers" : "shared memory",
		    !g->shape.tms_d          ? ""
		    : g->shape.tms_form == 1 ? ", form 1"
		    : g->shape.tms_form == 3 ? ", form 3"
		                             : ", form 2",
		    !g->shape.tms_d                        ? ""
		    : g->shape.tms_ns && g->shape.tms_flow ? ", dev2 unrolled, flow"
		    : g->shape.tms_ns                      ? ", dev2 unrolled"
		    : g->shape.tms_flow                    ? ", flow"
		                                           : "",
		    g->shape.threads, g->shape.blocks_per_sm, g->shape.grid, g->shape.regs,
		    g->shape.smem, g->shape.ws_per_frame);
	else if (g->shape.chip_c)
		snprintf(
		    g->desc, sizeof(g->desc),
		    "nbldpc_fftbp_chip_kernel<q=%u,V=%d,D=%d%s> (prob, flooding, a frame's "
		    "messages (one copy: columns of degree 2) and priors in the shared memory of "
		    "a cluster of %d blocks, %u of %u %s): %d threads/block (%d groups of %u "
		    "lanes), grid %d (%d frames in "
		    "flight), %d regs, %zu B shared a block",
		    c->q, g->shape.chip_v, g->shape.chip_d,
		    g->shape.chip_f == 0     ? ",old"
		    : g->shape.chip_f == 6   ? ",tables in device memory"
		    : g->shape.chip_f == 5   ? ",cluster barriers at C = 1"
		    : g->shape.chip_f == 3   ? ",degree tests"
		    : g->shape.chip_f == 15  ? ",split cluster barrier"
		    : g->shape.chip_f == 23  ? ",aligned cluster barriers"
		    : g->shape.chip_f == 39  ? ",edge form"
		    : g->shape.chip_f == 103 ? ",fused form"
		                             : "",
		    g->shape.chip_c, g->chip_remote, c->nnz,
		    g->shape.chip_f == 103 ? "edges guests in another block's slots"
		                           : "slots in another block than their variable's",
		    g->shape.threads, g->shape.groups, c->q / (unsigned)g->shape.chip_v,
		    g->shape.grid, g->shape.grid / g->shape.chip_c, g->shape.regs, g->shape.smem);
	else
		snprintf(g->desc, sizeof(g->desc),
		         "nbldpc_%s_kernel<q=%u%s> (flooding, one group of %u lanes per check, "
		         "frames across blocks): %d threads/block (%d groups), %d blocks/SM, grid "
		         "%d, %d regs, %zu B shared, %zu B workspace a frame",
		         c->algo == NBLDPC_ALGO_MINMAX ? "minmax" : "fftbp", c->q,
		         c->algo == NBLDPC_ALGO_MINMAX ? ""
		         : c->log                      ? ",log"
		                                       : ",prob",
		         c->q < 32 ? c->q : 32, g->shape.threads, g->shape.groups,
		         g->shape.blocks_per_sm, g->shape.grid, g->shape.regs, g->shape.smem,
		         g->shape.ws_per_frame);
	*impl = g;
	return 0;

out_cuda:
	rc = gpu_error(e, "nbldpc_gpu: uploading the code", err, errlen);
	nbgpu_free(g);
	return rc;
}

static size_t nbgpu_workspace_bytes(const void *impl, uint32_t count)
{
	const struct nbgpu_impl *g = (const struct nbgpu_impl *)impl;
	uint32_t frames = count < (uint32_t)g->shape.grid ? count : (uint32_t)g->shape.grid;

	return (size_t)frames * g->shape.ws_per_frame;
}

/* The input kind a decoder of this code takes on the device. */
static enum gpu_in_kind want_kind(const struct nbgpu_code *c)
{
	return c->in == FEC_IN_F32_SYMLOGP ? GPU_IN_F32_SYMLOGP
	       : c->in == FEC_IN_F32_LLR   ? GPU_IN_F32_LLR
	                                   : GPU_IN_S8_LLR;
}

static int nbgpu_launch(const void *impl, const struct gpu_batch *b, void *ws, size_t ws_bytes,
                        cudaStream_t s, char *err, size_t errlen)
{
	const struct nbgpu_impl *g = (const struct nbgpu_impl *)impl;
	const enum gpu_in_kind want = want_kind(&g->code);
	int e;

	if (b->in_kind != want || (want == GPU_IN_F32_SYMLOGP && b->in_q != g->code.q)) {
		snprintf(err, errlen,
		         "nbldpc_gpu: the decoder takes %s input (q = %u), not %s (%u)",
		         gpu_in_kind_name(want), want == GPU_IN_F32_SYMLOGP ? g->code.q : 1,
		         gpu_in_kind_name(b->in_kind), b->in_q);
		return b->in_kind == GPU_IN_S4_LLR ? -FEC_ENOTSUP : -FEC_EINVAL;
	}
	if (ws_bytes < nbgpu_workspace_bytes(impl, b->count)) {
		snprintf(err, errlen, "nbldpc_gpu: workspace of %zu bytes, %zu needed", ws_bytes,
		         nbgpu_workspace_bytes(impl, b->count));
		return -FEC_EINVAL;
	}
	if (g->code.algo == NBLDPC_ALGO_MINMAX)
		e = nbgpu_minmax_launch(&g->code, &g->shape, b, ws, s);
	else if (g->code.algo == NBLDPC_ALGO_TMS)
		e = nbgpu_tms_launch(&g->code, &g->shape, b, ws, s);
	else if (g->shape.chip_c)
		e = nbgpu_fftbp_chip_launch(&g->code, &g->shape, b, s);
	else
		e = nbgpu_fftbp_launch(&g->code, &g->shape, b, ws, s);
	if (e)
		return gpu_error((cudaError_t)e, "nbldpc_gpu: kernel launch", err, errlen);
	return 0;
}

static const char *nbgpu_describe(const void *impl)
{
	return ((const struct nbgpu_impl *)impl)->desc;
}

static void nbgpu_destroy(void *impl)
{
	nbgpu_free((struct nbgpu_impl *)impl);
}

extern "C" const struct gpu_family_ops nbldpc_gpu_family = {
    FECD_FAMILY_NBLDPC, nbgpu_supports, nbgpu_create,  nbgpu_workspace_bytes,
    nbgpu_launch,       nbgpu_describe, nbgpu_destroy, &nbldpc_gpu_sim_encoder,
};
