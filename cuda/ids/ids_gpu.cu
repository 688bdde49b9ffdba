/*
 * The ids family on the GPU: the gpu_family_ops the backend core calls. create() builds the MAP
 * decoder's state space on the host exactly as the CPU does (ids_map_init on the spec's code),
 * uploads the codebooks and the Q table, picks the storage (global: every gamma kept; local:
 * recomputed for the posteriors; auto: local, the faster on the GPU) and the launch shape
 * (ids_gpu_kernels.cu). With an outer nbldpc code and
 * iters = 0 (Davey and MacKay's single pass) the inner posteriors stay on the device and go to
 * nbldpc's own GPU decoder; the passes back (iters > 0) run on the CPU (IDS_GPU.md says why).
 * launch() decodes the batch in chunks of the frames in flight.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ids_gpu.cuh"
#include "ids_gpu_lattice.cuh"

extern "C" {
#include "ids_coder.h"
#include "ids_map.h"
}

/* Workspace for one lane's frames in flight: this share of the device's memory at most. */
#define IDSG_WS_SHARE 16
/* Frames in flight the scans (one warp a frame) want per SM to keep the device busy. */
#define IDSG_FRAMES_PER_SM 8

struct idsg_impl {
	struct idsg_code code;
	struct idsg_shape shape;
	void *cw, *qx;
	/* the outer code: its CPU decoder (for its tables) and nbldpc's GPU decoder */
	struct fec_decoder *outer_cpu;
	void *outer;
	uint32_t outer_in_syms;
	char desc[480];
};

/* The outer code's spec as the concatenation decodes it; false without one. */
static bool outer_spec(const struct fec_spec *spec, struct fec_spec *child)
{
	return ids__has_outer(&spec->u.ids) &&
	       ids__outer_spec(&spec->u.ids, child, NULL, 0, NULL, 0) == 0;
}

/* Whether one codeword's drift change spans at most IDSG_MN_MAX values (ids_map_init's
 * codeword limits, before the seed's clamp to -n, which only narrows them). */
static bool corridor_fits(const struct fec_spec *spec)
{
	const struct ids_spec *is = &spec->u.ids;
	struct ids_map_params par;
	int lo, hi;

	ids__map_params(spec, &par);
	if (ids_drift_limits(&par.ch, is->n, par.p_excl, &lo, &hi, NULL, 0))
		return false;
	if (lo < -(int)is->n)
		lo = -(int)is->n;
	return hi - lo + 1 <= IDSG_MN_MAX;
}

static bool idsg_supports(const struct fec_spec *spec)
{
	struct fec_spec child;

	if (spec->family != FECD_FAMILY_IDS)
		return false;
	if (spec->frame.in != FEC_IN_S8_LLR && spec->frame.in != FEC_IN_F32_LLR)
		return false;
	if (!corridor_fits(spec))
		return false;
	if (!ids__has_outer(&spec->u.ids))
		return true;
	/* the passes back need FFT-BP's posteriors of every symbol: the CPU's */
	return spec->u.ids.iters == 0 && outer_spec(spec, &child) &&
	       nbldpc_gpu_family.supports(&child);
}

static void idsg_free(struct idsg_impl *g)
{
	if (g->outer)
		nbldpc_gpu_family.destroy(g->outer);
	fec_decoder_destroy(g->outer_cpu);
	cudaFree(g->cw);
	cudaFree(g->qx);
	free(g);
}

/* The kernels' view of the code, from the map the CPU builds. */
static void fill_code(struct idsg_code *c, const struct ids_map *m, const struct fec_spec *spec)
{
	c->N = m->code->N;
	c->q = m->code->q;
	c->n = m->code->n;
	c->p = ids__log2(c->q);
	c->Mtau = m->Mtau;
	c->Mn = m->Mn;
	c->tau = m->tau;
	c->rho_max = m->rho_max;
	c->fmin = m->fmin;
	c->fmax = m->fmax;
	c->cmin = m->cmin;
	c->cmax = m->cmax;
	c->hpi = m->hpi;
	c->pd = m->pd;
	c->prior = 1.0f / (float)c->q; /* ids_map.c load_prior without priors */
	c->prune = m->par.prune;
	c->in = spec->frame.in;
	c->llr_scale = spec->frame.llr_scale;
}

/* Frames in flight for a frame's workspace of bytes, within the budget (at least 1). */
static uint32_t frames_for(const struct fecd_cuda_device *dev, size_t bytes)
{
	const size_t budget = dev->mem_total / IDSG_WS_SHARE;
	const size_t want = (size_t)IDSG_FRAMES_PER_SM * (dev->sm_count > 0 ? dev->sm_count : 1);
	size_t f = budget / (bytes ? bytes : 1);

	f = f < want ? f : want;
	return f < 1 ? 1 : f > 65535 ? 65535 : (uint32_t)f;
}

/* Storage and frames in flight: forced, or auto: local. Measured on an H200 (IDS_GPU.md),
 * recomputing the lattices beats keeping the gammas at every q = 2..256 (global storage moves
 * every gamma through device memory twice: 25.6 MB a frame at Fig. 17), and local storage keeps
 * 8 times the frames in flight in the same memory. */
static void choose_storage(struct idsg_code *c, const struct fecd_cuda_device *dev,
                           enum ids_storage st, uint32_t *frames)
{
	struct idsg_frame_ws w;

	c->global = st == IDS_STORAGE_GLOBAL;
	idsg_frame_layout(c, &w);
	*frames = frames_for(dev, w.total);
}

static int create_outer(struct idsg_impl *g, const struct fecd_cuda_device *dev,
                        const struct fec_spec *spec, char *err, size_t errlen)
{
	struct fec_spec child;
	int rc;

	if (!outer_spec(spec, &child)) {
		snprintf(err, errlen, "ids_gpu: the outer code's spec");
		return -FEC_EINVAL;
	}
	rc = fec_decoder_create(&child, &g->outer_cpu);
	if (rc) {
		snprintf(err, errlen, "ids_gpu: the outer code's CPU decoder (%d)", rc);
		return rc;
	}
	rc = nbldpc_gpu_family.create(dev, g->outer_cpu, &g->outer, err, errlen);
	if (rc)
		return rc;
	g->outer_in_syms = fec_decoder_info(g->outer_cpu)->frame_syms;
	return 0;
}

static int idsg_create(const struct fecd_cuda_device *dev, const struct fec_decoder *cpu_dec,
                       void **impl, char *err, size_t errlen)
{
	const struct fec_spec *spec = fec_decoder_spec(cpu_dec);
	struct ids_map_params par;
	struct ids_code *code = NULL;
	struct ids_map map;
	struct idsg_impl *g;
	float qx[512];
	cudaError_t e;
	int rc;

	if (!idsg_supports(spec)) {
		snprintf(err, errlen, "ids_gpu: not an ids decoder the GPU takes");
		return -FEC_ENOTSUP;
	}
	g = (struct idsg_impl *)calloc(1, sizeof(*g));
	if (!g)
		return -FEC_ENOMEM;
	rc = ids__code_build(&spec->u.ids, &code, err, errlen);
	if (!rc) {
		ids__map_params(spec, &par);
		rc = ids_map_init(&map, code, &par, err, errlen);
	}
	if (rc)
		goto out_free;
	if (map.Mn > IDSG_MN_MAX) {
		snprintf(err, errlen, "ids_gpu: a codeword's drift spans %u values, the kernels %d",
		         map.Mn, IDSG_MN_MAX);
		rc = -FEC_ENOTSUP;
		goto out_free;
	}
	fill_code(&g->code, &map, spec);
	g->code.outer = ids__has_outer(&spec->u.ids);
	choose_storage(&g->code, dev, spec->u.ids.storage, &g->shape.frames);
	idsg_q_table(&map, qx);
	e = cudaMalloc(&g->cw, (size_t)code->N * code->q * sizeof(uint16_t));
	if (e == cudaSuccess)
		e = cudaMemcpy(g->cw, code->cw, (size_t)code->N * code->q * sizeof(uint16_t),
		               cudaMemcpyHostToDevice);
	if (e == cudaSuccess)
		e = cudaMalloc(&g->qx, sizeof(qx));
	if (e == cudaSuccess)
		e = cudaMemcpy(g->qx, qx, sizeof(qx), cudaMemcpyHostToDevice);
	if (e == cudaSuccess)
		e = (cudaError_t)idsg_prepare(&g->code, dev, &g->shape);
	if (e != cudaSuccess) {
		rc = gpu_error(e, "ids_gpu: uploading the code", err, errlen);
		goto out_free;
	}
	g->code.cw = (const uint16_t *)g->cw;
	g->code.qx = (const float *)g->qx;
	if (g->code.outer) {
		rc = create_outer(g, dev, spec, err, errlen);
		if (rc)
			goto out_free;
	}
	snprintf(g->desc, sizeof(g->desc),
	         "ids (N %u, q %u, n %u, M_tau %u, M_n %u): %s storage%s, %u frames in flight "
	         "(%.1f MiB each); idsg_gamma_kernel<Mn<=%d> %d threads/block (%u symbols), %d "
	         "regs, %d blocks/SM; alpha then beta a warp a frame, %d frames/block; "
	         "idsg_post_kernel<Mn<=%d> %d threads/block (%u symbols), %d regs, %d blocks/SM%s",
	         g->code.N, g->code.q, g->code.n, g->code.Mtau, g->code.Mn,
	         g->code.global ? "global" : "local",
	         spec->u.ids.storage == IDS_STORAGE_AUTO ? " (auto)" : "", g->shape.frames,
	         g->shape.ws.total / 1048576.0, g->shape.mn_t, g->shape.gamma_threads,
	         g->shape.gamma_syms, g->shape.gamma_regs, g->shape.gamma_blocks_per_sm,
	         g->shape.scan_warps, g->shape.mn_t, g->shape.post_threads, g->shape.post_syms,
	         g->shape.post_regs, g->shape.post_blocks_per_sm,
	         g->outer ? "; outer: nbldpc on the GPU" : "");
	ids_code_free(code);
	*impl = g;
	return 0;

out_free:
	ids_code_free(code);
	idsg_free(g);
	return rc;
}

static size_t round256(size_t v)
{
	return (v + 255) & ~(size_t)255;
}

static size_t idsg_workspace_bytes(const void *impl, uint32_t count)
{
	const struct idsg_impl *g = (const struct idsg_impl *)impl;
	const uint32_t frames = count < g->shape.frames ? count : g->shape.frames;
	size_t bytes = (size_t)frames * g->shape.ws.total;

	if (g->outer)
		bytes += round256((size_t)frames * sizeof(struct fec_job)) +
		         nbldpc_gpu_family.workspace_bytes(g->outer, frames);
	return bytes;
}

/* The outer decoder on the chunk's inner posteriors (in the workspace). */
static int launch_outer(const struct idsg_impl *g, const struct gpu_batch *b, uint32_t first,
                        uint32_t count, char *ws, size_t ws_bytes, cudaStream_t s, char *err,
                        size_t errlen)
{
	const size_t inner = (size_t)count * g->shape.ws.total;
	struct fec_job *ojobs = (struct fec_job *)(ws + inner);
	char *ows = ws + inner + round256((size_t)count * sizeof(struct fec_job));
	struct gpu_batch ob = {};
	int e;

	e = idsg_launch_outer_jobs(&g->code, b, first, count, ws, &g->shape.ws, ojobs,
	                           g->outer_in_syms, s);
	if (e)
		return gpu_error((cudaError_t)e, "ids_gpu: outer jobs", err, errlen);
	ob.count = count;
	ob.jobs = ojobs;
	ob.in = ws + g->shape.ws.post;
	ob.in_stride = g->shape.ws.total;
	ob.in_kind = GPU_IN_F32_SYMLOGP;
	ob.in_q = g->code.q;
	ob.out = b->out + (size_t)first * b->out_stride;
	ob.out_stride = b->out_stride;
	ob.soft = b->soft ? b->soft + (size_t)first * b->soft_stride : NULL;
	ob.soft_stride = b->soft_stride;
	e = nbldpc_gpu_family.launch(g->outer, &ob, ows, ws_bytes - (size_t)(ows - ws), s, err,
	                             errlen);
	if (e)
		return e;
	e = idsg_launch_outer_done(b, first, count, ojobs, s);
	if (e)
		return gpu_error((cudaError_t)e, "ids_gpu: outer results", err, errlen);
	return 0;
}

static int idsg_launch(const void *impl, const struct gpu_batch *b, void *ws, size_t ws_bytes,
                       cudaStream_t s, char *err, size_t errlen)
{
	const struct idsg_impl *g = (const struct idsg_impl *)impl;
	const enum gpu_in_kind want = g->code.in == FEC_IN_F32_LLR ? GPU_IN_F32_LLR : GPU_IN_S8_LLR;

	if (b->in_kind != want) {
		snprintf(err, errlen, "ids_gpu: the decoder takes %s input, not %s",
		         gpu_in_kind_name(want), gpu_in_kind_name(b->in_kind));
		return b->in_kind == GPU_IN_S4_LLR ? -FEC_ENOTSUP : -FEC_EINVAL;
	}
	if (ws_bytes < idsg_workspace_bytes(impl, b->count)) {
		snprintf(err, errlen, "ids_gpu: workspace of %zu bytes, %zu needed", ws_bytes,
		         idsg_workspace_bytes(impl, b->count));
		return -FEC_EINVAL;
	}
	for (uint32_t first = 0; first < b->count; first += g->shape.frames) {
		const uint32_t left = b->count - first;
		const uint32_t count = left < g->shape.frames ? left : g->shape.frames;
		int e =
		    idsg_launch_inner(&g->code, &g->shape, b, first, count, (char *)ws, s, NULL);

		if (e)
			return gpu_error((cudaError_t)e, "ids_gpu: kernel launch", err, errlen);
		if (g->outer) {
			e = launch_outer(g, b, first, count, (char *)ws, ws_bytes, s, err, errlen);
			if (e)
				return e;
		}
	}
	return 0;
}

int idsg_time_stages(const void *impl, const struct gpu_batch *b, void *ws, cudaStream_t s,
                     float ms[5])
{
	const struct idsg_impl *g = (const struct idsg_impl *)impl;
	const uint32_t count = b->count < g->shape.frames ? b->count : g->shape.frames;
	cudaEvent_t ev[6] = {};
	cudaError_t e = cudaSuccess;
	unsigned made = 0;

	for (; made < 6 && e == cudaSuccess; made++)
		e = cudaEventCreate(&ev[made]);
	if (e == cudaSuccess)
		e = (cudaError_t)idsg_launch_inner(&g->code, &g->shape, b, 0, count, (char *)ws, s,
		                                   ev);
	if (e == cudaSuccess)
		e = cudaEventSynchronize(ev[5]);
	for (unsigned k = 0; k < 5 && e == cudaSuccess; k++)
		e = cudaEventElapsedTime(&ms[k], ev[k], ev[k + 1]);
	for (unsigned k = 0; k < made; k++)
		if (ev[k])
			cudaEventDestroy(ev[k]);
	return (int)e;
}

uint32_t idsg_frames_in_flight(const void *impl)
{
	return ((const struct idsg_impl *)impl)->shape.frames;
}

static const char *idsg_describe(const void *impl)
{
	return ((const struct idsg_impl *)impl)->desc;
}

static void idsg_destroy(void *impl)
{
	idsg_free((struct idsg_impl *)impl);
}

extern "C" const struct gpu_family_ops ids_gpu_family = {
    FECD_FAMILY_IDS, idsg_supports, idsg_create,  idsg_workspace_bytes,
    idsg_launch,     idsg_describe, idsg_destroy, &ids_gpu_sim_encoder,
};
