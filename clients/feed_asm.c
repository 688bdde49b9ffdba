/*
 * fecd-feed --asm: frames of a frame code sent behind its attached sync marker (its asm
 * parameter, which every frame family's decoder reports in fec_info.frame) as one raw stream,
 * [junk] marker frame, [junk] marker frame, ..., cut into messages of --msg-syms symbols that
 * carry no frame flags (or GNU Radio items), as a radio's framer hands them on. --invert negates
 * chosen frames with their markers (a phase ambiguity the marker resolves); --junk puts random
 * symbols that look like data, but hold no marker, before chosen frames.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awgn.h"
#include "fec.h"
#include "fecd_proto.h"
#include "prng.h"
#include "softbits.h"

#include "feed.h"
#include "feed_wire.h"

/* The seed of the junk between frames is the data seed xor this (independent of data and noise). */
#define FEED_JUNK_SEED_XOR 0x6a756e6bull

struct asm_tx {
	float *pend; /* LLRs not yet sent */
	size_t npend, cap, per;
	uint8_t *wire, *bits;
	float *llr;
	struct fec_prng junk;
};

/* Sends every whole message the pending LLRs hold; with last, the rest too, ending the stream. */
static int asm_flush(struct feed *f, struct asm_tx *t, bool last)
{
	size_t at = 0;

	while (t->npend - at >= t->per || (last && (t->npend > at || !f->o.no_eos))) {
		size_t n = t->npend - at < t->per ? t->npend - at : t->per;
		bool end = last && at + n == t->npend;
		uint16_t flags = end && !f->o.no_eos && !f->o.gnuradio ? FECD_IN_END_OF_STREAM : 0;

		if (!n && !flags)
			break;
		fec_llr_quantize(f->o.format, t->pend + at, n, f->o.polarity_one, f->code.scale,
		                 t->wire);
		if (feed_send_wire(f, t->wire, n, flags, 0))
			return -1;
		at += n;
		if (end)
			break;
	}
	memmove(t->pend, t->pend + at, (t->npend - at) * sizeof(float));
	t->npend -= at;
	return 0;
}

static int asm_push(struct feed *f, struct asm_tx *t, const float *llr, size_t n, bool negate)
{
	for (size_t i = 0; i < n; i++)
		t->pend[t->npend + i] = negate ? -llr[i] : llr[i];
	t->npend += n;
	return asm_flush(f, t, false);
}

/* n symbols that look like data (random bits through the same channel) but carry no marker. */
static int asm_junk(struct feed *f, struct asm_tx *t, size_t n)
{
	fec_prng_bits(&t->junk, t->bits, n);
	fec_awgn_llr(&f->noise, t->bits, n, f->code.sigma, 1.0f, t->llr);
	f->junk_sent += n;
	return asm_push(f, t, t->llr, n, false);
}

static int asm_marker(struct feed *f, struct asm_tx *t, bool negate)
{
	const struct fec_frame_opts *fo = &f->code.info.frame;

	for (unsigned j = 0; j < fo->asm_bits; j++)
		t->bits[j] = (uint8_t)((fo->asm_marker >> (fo->asm_bits - 1 - j)) & 1u);
	fec_awgn_llr(&f->noise, t->bits, fo->asm_bits, f->code.sigma, 1.0f, t->llr);
	return asm_push(f, t, t->llr, fo->asm_bits, negate);
}

int feed_run_asm(struct feed *f)
{
	struct asm_tx t = {0};
	size_t piece = f->code.info.frame_syms + FEC_ASM_MAX_BITS + f->o.junk;
	int rc = -1;

	/* every frame family's decoder reports its marker in fec_info.frame; others report none */
	if (f->code.info.kind != FEC_KIND_FRAME || !f->code.info.frame_syms ||
	    f->code.info.frame.asm_bits < 8 || f->code.info.frame.asm_bits > FEC_ASM_MAX_BITS) {
		fprintf(stderr, "fecd-feed: --asm is for frame codes with a sync marker (their "
		                "framing=asm marker)\n");
		return -1;
	}
	t.per = f->o.msg_syms;
	if (f->o.format == FECD_FMT_S4_PACKED)
		t.per = t.per > 1 ? t.per & ~(size_t)1 : 2; /* messages of whole bytes */
	t.cap = t.per + piece;
	t.pend = malloc(t.cap * sizeof(float));
	t.wire = malloc(t.per * sizeof(float));
	t.bits = malloc(f->o.junk + FEC_ASM_MAX_BITS);
	t.llr = malloc((f->o.junk + FEC_ASM_MAX_BITS) * sizeof(float));
	if (f->o.gnuradio) { /* its messages hold per symbols, more than one frame */
		uint8_t *g = realloc(f->grmsg, GR_TAG_HEADER_MAX + t.per * sizeof(float));
		if (!g) {
			fprintf(stderr, "fecd-feed: out of memory\n");
			goto out;
		}
		f->grmsg = g;
	}
	if (!t.pend || !t.wire || !t.bits || !t.llr) {
		fprintf(stderr, "fecd-feed: out of memory\n");
		goto out;
	}
	fec_prng_seed(&t.junk, f->o.seed ^ FEED_JUNK_SEED_XOR);
	for (uint64_t fr = 0; fr < f->o.frames && !feed_stop; fr++) {
		bool negate = fr >= f->o.invert_from && fr < f->o.invert_to;
		uint64_t first_bit;
		uint32_t nbits;

		if (f->o.junk && fr % f->o.junk_every == 0 && asm_junk(f, &t, f->o.junk))
			goto out;
		if (frame_table_get(&f->frames, fr, &first_bit, &nbits) ||
		    info_source_read(&f->src, first_bit, nbits, f->bits)) {
			fprintf(stderr, "fecd-feed: no bits for frame %" PRIu64 "\n", fr);
			goto out;
		}
		size_t nsyms = feed_modulate_llr(f, nbits);
		if (!nsyms || asm_marker(f, &t, negate) || asm_push(f, &t, f->llr, nsyms, negate))
			goto out;
		f->info_bits += nbits;
		f->frames_sent++;
	}
	rc = asm_flush(f, &t, true);
out:
	free(t.pend);
	free(t.wire);
	free(t.bits);
	free(t.llr);
	return rc;
}
