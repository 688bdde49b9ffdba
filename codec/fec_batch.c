/*
 * What a batch's jobs use of their fixed-stride slots (fec_batch_extent), so that a backend that
 * copies batches (the GPU's host-to-device and back) moves no more than that. Frames of varying
 * length (fano, ids) leave most of a slot unused when most frames are short; streams and fixed
 * frames fill their slots, and keep whole-slot copies.
 */
#include "fec.h"

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

void fec_batch_extent(const struct fec_info *info, const struct fec_batch *b,
                      struct fec_batch_extent *out)
{
	uint64_t longest = 0, bits;

	out->in_elems = b->in_stride;
	out->out_bytes = b->out_stride;
	out->soft_vals = b->soft ? b->soft_stride : 0;
	if (info->kind != FEC_KIND_FRAME || info->frame_syms)
		return;
	for (uint32_t i = 0; i < b->count; i++)
		if (b->jobs[i].in_len > longest)
			longest = b->jobs[i].in_len;
	out->in_elems = (size_t)min_size(b->in_stride, longest * (info->in_q ? info->in_q : 1));
	if (!info->unit_syms || !info->unit_bits)
		return;
	/* fec_info's bound: ceil(in_len / unit_syms) * unit_bits bits, at most max_out_bits */
	bits = (longest + info->unit_syms - 1) / info->unit_syms * info->unit_bits;
	if (info->max_out_bits && bits > info->max_out_bits)
		bits = info->max_out_bits;
	out->out_bytes = min_size(b->out_stride, (size_t)((bits + 7) / 8));
	if (info->soft_kind == FEC_SOFT_BIT_LLR)
		out->soft_vals = min_size(out->soft_vals, (size_t)bits);
}
