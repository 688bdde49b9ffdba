/*
 * What a job slot holds for a code, from its decoder's fec_info alone (the daemon reads no
 * family's spec): the input kind, the values and bytes per symbol, the frames' sync-marker
 * framing and the scale int8 values are read at; which wire formats can fill such slots; and the
 * bytes one job of a batch takes (input, packed output, soft output), which the batch memory limit
 * counts. Pure code: a unit test (tests/integration/test_jobslot.c) drives it with made-up fec_info
 * values, such as q-ary input, that no family has yet.
 */
#ifndef FECD_JOBSLOT_H
#define FECD_JOBSLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fec.h"

/* Largest q of q-ary symbol input a slot takes (the protocol's soft_per_unit is 16 bits). */
#define SLOT_Q_MAX 65535u

struct slot_layout {
	enum fec_in_kind kind;
	uint32_t vals;    /* values per symbol: 1, or q for q-ary symbols */
	size_t elem;      /* bytes per symbol in a slot: 1 (int8), 4 (float32) or 4 q */
	bool asm_framing; /* frames are found after a sync marker in a raw stream */
	/* The scale at which int8 wire values are read into float32 LLR slots (value / llr_scale):
	 * a frame family's own (its common block), else the channel's input.llr_scale. float32
	 * wire values become int8 at input.llr_scale, as they always have. */
	float llr_scale;
};

/* The layout for a decoder's info on a channel whose input.llr_scale is channel_scale and whose
 * input is GNU Radio items (gnuradio true) or native messages. -1 with a message naming what
 * does not fit (a stream of anything but int8 LLRs; q-ary symbols with sync-marker framing or
 * GNU Radio input, which carry bit LLRs; a q out of range). */
int slot_layout_of(const struct fec_info *in, float channel_scale, bool gnuradio,
                   struct slot_layout *out, char *err, size_t errlen);

/* 0 when messages in wire format fmt can fill such slots: bit formats for bit LLR input, f32v
 * for q-ary input; -1 with a message otherwise. */
int slot_format_check(const struct slot_layout *l, int fmt, char *err, size_t errlen);

/* Bytes one job takes in a batch: in_stride symbols of elem bytes, out_stride bytes of packed
 * output and soft_stride float32 soft values. */
uint64_t slot_job_bytes(size_t in_stride, size_t elem, size_t out_stride, size_t soft_stride);

#endif
