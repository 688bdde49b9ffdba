/*
 * The Viterbi family on the GPU: the gpu_family_ops the backend core calls. create() turns the
 * CPU decoder's code into the kernels' tables (struct vgpu_code, passed by value at each launch),
 * picks the kernel for the code (a fast one-thread-per-job kernel with packed 16-bit path metrics
 * in registers for K <= 8, the multi-lane kernel for K = 9, the generic kernel otherwise) and its launch shape from
 * the device's properties and the kernel's resources (occupancy API). launch() enqueues it.
 * Results are bit-identical to codec/viterbi/viterbi.c; VITERBI_GPU.md has the design and figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viterbi_gpu_common.cuh"
#include "viterbi_gpu_fast.cuh"
#include "viterbi_gpu_lanes.cuh"

struct vgpu_impl {
	struct vgpu_code code;
	struct vgpu_lanes lanes; /* lanes.ok: the multi-lane kernel serves this code */
	struct vgpu_fast fast;   /* fast.ok (and not lanes.ok): the one-thread kernel does */
	int threads, blocks_per_sm, regs;
	size_t smem;
	char desc[256];
};

static bool vgpu_supports(const struct fec_spec *spec)
{
	const struct conv_spec *c = &spec->u.conv;

	return spec->family == FECD_FAMILY_VITERBI && c->k >= CONV_K_MIN && c->k <= CONV_K_MAX &&
	       c->n >= CONV_N_MIN && c->n <= CONV_N_MAX;
}

/* Decision rows as codec/viterbi/viterbi.c's fill_info counts them. */
static uint32_t code_rows(const struct conv_spec *cs, const struct conv_code *c)
{
	uint32_t stages;

	if (c->mode == CONV_MODE_STREAM)
		return cs->decode_len + cs->traceback_len;
	stages = cs->max_frame_bits;
	if (c->mode == CONV_MODE_TERMINATED)
		stages += c->k - 1;
	return (stages + c->period - 1) / c->period * c->period;
}

static int vgpu_create(const struct fecd_cuda_device *dev, const struct fec_decoder *cpu_dec,
                       void **impl, char *err, size_t errlen)
{
	const struct fec_spec *spec = fec_decoder_spec(cpu_dec);
	const struct fec_info *info = fec_decoder_info(cpu_dec);
	struct vgpu_impl *v;
	struct conv_code c;
	int e;

	if (!vgpu_supports(spec)) {
		snprintf(err, errlen, "viterbi_gpu: not a viterbi code with K 3..9, n 2..4");
		return -FEC_ENOTSUP;
	}
	v = (struct vgpu_impl *)calloc(1, sizeof(*v));
	if (!v)
		return -FEC_ENOMEM;
	conv_code_init(&c, &spec->u.conv);
	v->code.k = c.k;
	v->code.n = c.n;
	v->code.nstates = c.nstates;
	v->code.period = c.period;
	v->code.unit_syms = c.unit_syms;
	v->code.mode = c.mode;
	v->code.rows = code_rows(&spec->u.conv, &c);
	v->code.max_out_bits = info->max_out_bits;
	memcpy(v->code.word, c.word, sizeof(c.word));
	memcpy(v->code.sent, c.sent, sizeof(c.sent));
	memcpy(v->code.cum, c.cum, sizeof(c.cum));

	/* K = 9: 4 lanes per job (256 states do not fit one thread); K <= 8: one thread per job,
	 * measured faster than 2 or 4 lanes at K = 7 and 8 (VITERBI_GPU.md).
	 * FECD_VITERBI_GPU_LANES (0: one thread, 1..3: log2 lanes per job) overrides, for
	 * measurements. */
	{
		const char *ev = getenv("FECD_VITERBI_GPU_LANES");
		const int force = ev && *ev ? atoi(ev) : -1;

		if (force > 0 || (force < 0 && c.k >= 9)) {
			e = vgpu_lanes_prepare(&v->code, force > 0 ? force : 0, &v->lanes);
			if (e)
				goto out_cuda;
		}
	}
	if (!v->lanes.ok) {
		e = vgpu_fast_prepare(&v->code, dev, &v->fast);
		if (e)
			goto out_cuda;
	}
	if (v->lanes.ok) {
		v->threads = v->lanes.threads;
		v->blocks_per_sm = v->lanes.blocks_per_sm;
		v->regs = v->lanes.regs;
		v->smem = v->lanes.smem;
		snprintf(v->desc, sizeof(v->desc),
		         "viterbi_lanes_kernel<K=%u,%d lanes,%s> (packed 16-bit metrics in registers, "
		         "exchange through shared memory, fused traceback): %d threads/block, %d "
		         "blocks/SM, %d regs, %zu B shared",
		         c.k, 1 << v->lanes.lb, v->lanes.wide ? "n=3..4" : "n=2", v->threads,
		         v->blocks_per_sm, v->regs, v->smem);
	} else if (v->fast.ok) {
		static const char *const kinds[] = {"n=2", "n=2 symmetric", "n=3..4",
		                                           "n=2 171/133 family"};

		v->threads = v->fast.threads;
		v->blocks_per_sm = v->fast.blocks_per_sm;
		v->regs = v->fast.regs;
		v->smem = v->fast.smem;
		snprintf(v->desc, sizeof(v->desc),
		         "viterbi_fast_kernel<K=%u,%s> (one thread per job, packed 16-bit metrics in "
		         "registers, fused traceback): %d threads/block, %d blocks/SM, %d regs, %zu B "
		         "shared",
		         c.k, kinds[v->fast.kind], v->threads, v->blocks_per_sm, v->regs, v->smem);
	} else {
		e = vgpu_generic_shape(&v->code, &v->threads, &v->blocks_per_sm, &v->regs);
		if (e)
			goto out_cuda;
		snprintf(v->desc, sizeof(v->desc),
		         "viterbi_generic_kernel (one thread per job, int32 metrics in local memory): "
		         "%d threads/block, %d blocks/SM, %d regs, 0 B shared",
		         v->threads, v->blocks_per_sm, v->regs);
	}
	(void)dev;
	*impl = v;
	return 0;

out_cuda:
	free(v);
	return gpu_error((cudaError_t)e, "viterbi_gpu: kernel attributes", err, errlen);
}

static size_t vgpu_workspace_bytes(const void *impl, uint32_t count)
{
	const struct vgpu_impl *v = (const struct vgpu_impl *)impl;

	if (v->lanes.ok)
		return vgpu_lanes_ws_bytes(&v->code, count);
	if (v->fast.ok)
		return vgpu_fast_ws_bytes(&v->code, &v->fast, count);
	return vgpu_generic_ws_bytes(&v->code, count);
}

static int vgpu_launch(const void *impl, const struct gpu_batch *b, void *ws, size_t ws_bytes,
                       cudaStream_t s, char *err, size_t errlen)
{
	const struct vgpu_impl *v = (const struct vgpu_impl *)impl;
	int e;

	if (b->in_kind != GPU_IN_S8_LLR && b->in_kind != GPU_IN_S4_LLR) {
		snprintf(err, errlen, "viterbi_gpu: the decoder takes int8 or packed 4-bit LLRs, "
		         "not %s", gpu_in_kind_name(b->in_kind));
		return -FEC_ENOTSUP;
	}
	if (ws_bytes < vgpu_workspace_bytes(impl, b->count)) {
		snprintf(err, errlen, "viterbi_gpu: workspace of %zu bytes, %zu needed", ws_bytes,
		         vgpu_workspace_bytes(impl, b->count));
		return -FEC_EINVAL;
	}
	if (v->lanes.ok)
		e = vgpu_lanes_launch(&v->code, &v->lanes, b, ws, s);
	else if (v->fast.ok)
		e = vgpu_fast_launch(&v->code, &v->fast, b, ws, s);
	else
		e = vgpu_generic_launch(&v->code, b, ws, v->threads, s);
	if (e)
		return gpu_error((cudaError_t)e, "viterbi_gpu: kernel launch", err, errlen);
	return 0;
}

static const char *vgpu_describe(const void *impl)
{
	return ((const struct vgpu_impl *)impl)->desc;
}

static void vgpu_destroy(void *impl)
{
	free(impl);
}

extern "C" const struct gpu_family_ops viterbi_gpu_family = {
    FECD_FAMILY_VITERBI, vgpu_supports, vgpu_create, vgpu_workspace_bytes,
    vgpu_launch,         vgpu_describe, vgpu_destroy, &viterbi_gpu_sim_encoder,
};
