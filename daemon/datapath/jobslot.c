/*
 * Job slots from fec_info: the layout a code's input needs, which wire formats fill it, and the
 * bytes a job takes (jobslot.h).
 */
#include <stdio.h>

#include "fecd_proto.h"
#include "jobslot.h"

int slot_layout_of(const struct fec_info *in, float channel_scale, bool gnuradio,
                   struct slot_layout *out, char *err, size_t errlen)
{
	struct slot_layout l = {.kind = in->in_kind, .vals = 1};

	switch (in->in_kind) {
	case FEC_IN_S8_LLR:
		l.elem = 1;
		break;
	case FEC_IN_F32_LLR:
		l.elem = sizeof(float);
		break;
	case FEC_IN_F32_SYMLOGP:
		if (in->in_q < 2 || in->in_q > SLOT_Q_MAX) {
			snprintf(
			    err, errlen,
			    "code: the decoder takes q-ary symbols with q = %u; expected 2..%u",
			    in->in_q, SLOT_Q_MAX);
			return -1;
		}
		l.vals = in->in_q;
		l.elem = sizeof(float) * (size_t)in->in_q;
		break;
	default:
		snprintf(err, errlen, "code: the decoder reports no input kind it can be fed");
		return -1;
	}
	if (in->kind == FEC_KIND_STREAM && l.kind != FEC_IN_S8_LLR) {
		snprintf(err, errlen, "code: a stream decoder must take int8 LLRs");
		return -1;
	}
	l.asm_framing = in->frame.framing == FEC_FRAMING_ASM;
	if (l.kind == FEC_IN_F32_SYMLOGP && l.asm_framing) {
		snprintf(err, errlen,
		         "code.framing: asm finds sync markers in bit LLRs; this code takes q-ary "
		         "symbols: expected message");
		return -1;
	}
	if (l.kind == FEC_IN_F32_SYMLOGP && gnuradio) {
		snprintf(err, errlen,
		         "input.protocol: GNU Radio items are bit LLRs; this code takes q-ary "
		         "symbols: expected native (format f32v, %u values per symbol)",
		         l.vals);
		return -1;
	}
	l.llr_scale = in->frame.llr_scale > 0 ? in->frame.llr_scale : channel_scale;
	*out = l;
	return 0;
}

int slot_format_check(const struct slot_layout *l, int fmt, char *err, size_t errlen)
{
	const char *name = fecd_format_name(fmt);

	if (fecd_format_is_vector(fmt) && l->kind != FEC_IN_F32_SYMLOGP) {
		snprintf(
		    err, errlen,
		    "format %s carries q-ary symbol log-probabilities; this channel's code takes "
		    "bit LLRs (formats f32, s8, u8, s4)",
		    name ? name : "?");
		return -1;
	}
	if (!fecd_format_is_vector(fmt) && l->kind == FEC_IN_F32_SYMLOGP) {
		snprintf(err, errlen,
		         "format %s carries bit LLRs; this channel's code takes q-ary symbols "
		         "(format f32v, %u float32 log-probabilities per symbol)",
		         name ? name : "?", l->vals);
		return -1;
	}
	return 0;
}

uint64_t slot_job_bytes(size_t in_stride, size_t elem, size_t out_stride, size_t soft_stride)
{
	return (uint64_t)in_stride * elem + out_stride + (uint64_t)soft_stride * sizeof(float);
}
