/*
 * What fecd-sink takes from the code (--code PRESET or the text form, as fecd-feed takes it):
 * the frame lengths, where the code's frames carry a fixed number of information bits (LDPC's
 * k), and the kind of soft output it gives; and the check of the soft values a message carries
 * in part 3 (fecd's output.soft): their count against the decoded bits, and for bit LLRs each
 * value's sign against its decoded bit (positive favours 0, PROTOCOL.md 3.2); for q-ary symbol
 * log-posteriors of an nbldpc or ids code, that each symbol's probabilities sum to 1 and its most
 * probable value is its decoded bits (in the code's bit order: nbldpc's bit_order; ids alone
 * most significant first, with an outer code the outer code's).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fec.h"
#include "fecd_proto.h"

#include "sink.h"

static int sym_layout(struct sink *s, const struct fec_spec *spec);

int sink_code_open(struct sink *s)
{
	struct fec_decoder *dec = NULL;
	struct fec_spec spec;
	char err[1280];
	int rc;

	if (!s->o.code)
		return 0;
	if (fec_spec_from_string(s->o.code, &spec, err, sizeof(err))) {
		fprintf(stderr, "fecd-sink: --code '%s': %s\n", s->o.code, err);
		return -1;
	}
	rc = fec_decoder_create(&spec, &dec);
	if (rc) {
		fprintf(stderr, "fecd-sink: --code '%s': %s\n", s->o.code, fec_strerror(rc));
		return -1;
	}
	s->code_info = *fec_decoder_info(dec);
	s->have_code = true;
	fec_decoder_destroy(dec);
	if (s->code_info.soft_kind == FEC_SOFT_SYM_LOGP && sym_layout(s, &spec))
		return -1;
	return client_opts_code_frames(&s->o.common, &s->code_info, "fecd-sink");
}

/* How the decoded bits of a code with q-ary soft output make its symbols: s->sym_bits (0 where
 * the sink cannot tell) and s->sym_order. */
static int sym_layout(struct sink *s, const struct fec_spec *spec)
{
	struct fec_spec outer;
	char err[1280];

	if (spec->family == FECD_FAMILY_NBLDPC && spec->u.nbldpc.soft == NBLDPC_SOFT_SYM) {
		/* (soft=code's symbols are every column's: only their count is checked) */
		s->sym_bits = spec->u.nbldpc.p;
		s->sym_order = spec->u.nbldpc.bit_order;
	} else if (spec->family == FECD_FAMILY_IDS) {
		while ((1u << s->sym_bits) < spec->u.ids.q)
			s->sym_bits++;
		s->sym_order = NBLDPC_MSB_FIRST;
		if (spec->u.ids.outer[0]) { /* the outer code's information symbols */
			if (fec_spec_from_string(spec->u.ids.outer, &outer, err, sizeof(err))) {
				fprintf(stderr, "fecd-sink: --code '%s': outer: %s\n", s->o.code,
				        err);
				return -1;
			}
			s->sym_order = outer.u.nbldpc.bit_order;
		}
	}
	return 0;
}

/* The soft layout of a message: kind and values per unit, as its header says (a header from a
 * sender older than those fields reads as bit LLRs: fecd_out_hdr_read). With --code, the code's
 * must be the same: false (and the message counted as a size error) where it is not. */
static bool soft_layout(struct sink *s, const struct fecd_out_hdr *h, enum fec_soft_kind *kind,
                        uint32_t *per_unit)
{
	*kind = (enum fec_soft_kind)h->soft_kind;
	*per_unit = h->soft_per_unit;
	if (s->have_code && (*kind != s->code_info.soft_kind ||
	                     (*kind != FEC_SOFT_NONE && *per_unit != s->code_info.soft_per_unit))) {
		if (s->soft_size_errors++ < 10)
			fprintf(stderr,
			        "fecd-sink: message %" PRIu64 ": soft output of kind %s, %" PRIu32
			        " values per unit; the code gives %s, %" PRIu32 "\n",
			        s->msgs, fecd_soft_name(h->soft_kind), *per_unit,
			        fecd_soft_name((int)s->code_info.soft_kind),
			        s->code_info.soft_per_unit);
		return false;
	}
	return true;
}

static float get_f32le(const uint8_t *p)
{
	uint32_t u =
	    (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	float v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* Soft values of a message whose count does not fit its decoded bits: counted, the first few
 * said. */
static void size_error(struct sink *s, const struct fecd_out_hdr *h, const char *why)
{
	if (s->soft_size_errors++ < 10)
		fprintf(stderr,
		        "fecd-sink: message %" PRIu64 ": %" PRIu32 " soft values for %" PRIu32
		        " decoded bits: %s\n",
		        s->msgs, h->soft_count, h->payload_bits, why);
}

/* nbldpc's and ids's symbols: sym_bits decoded bits each; the most probable of q values is their
 * value, and the probabilities sum to 1 (log-posteriors, normalised). */
static void sym_check(struct sink *s, const struct fecd_out_hdr *h, const uint8_t *bits,
                      const uint8_t *soft)
{
	const uint32_t q = h->soft_per_unit, units = h->soft_count / q, p = s->sym_bits;
	uint64_t wrong = 0;

	if ((uint64_t)units * p != h->payload_bits) {
		size_error(s, h, "expected q values per symbol of log2(q) decoded bits");
		return;
	}
	for (uint32_t u = 0; u < units; u++) {
		const uint8_t *v = soft + 4 * (size_t)u * q;
		uint32_t best = 0, dec = 0;
		double sum = 0.0;

		for (uint32_t a = 0; a < q; a++) {
			const float x = get_f32le(v + 4 * (size_t)a);

			sum += exp((double)x);
			if (x > get_f32le(v + 4 * (size_t)best))
				best = a;
		}
		for (uint32_t j = 0; j < p; j++) {
			const uint32_t i = u * p + j;

			if ((bits[i / 8] >> (7 - i % 8)) & 1)
				dec |= 1u << nbldpc_symbol_bit(p, j, s->sym_order);
		}
		wrong += best != dec || !(fabs(sum - 1.0) < 1e-3);
	}
	if (wrong && s->soft_sign_msgs++ < 10)
		fprintf(stderr,
		        "fecd-sink: message %" PRIu64 ": %" PRIu64 " of %" PRIu32
		        " soft symbols disagree with their decoded bits or do not sum to 1\n",
		        s->msgs, wrong, units);
	s->soft_sign_errors += wrong;
}

void sink_soft_check(struct sink *s, const struct fecd_out_hdr *h, const uint8_t *bits,
                     const uint8_t *soft)
{
	enum fec_soft_kind kind;
	uint32_t per_unit;
	uint64_t wrong = 0;

	if (!(h->flags & FECD_OUT_SOFT) || !soft)
		return; /* none, or a PDU (which carries none) */
	s->soft_msgs++;
	s->soft_values += h->soft_count;
	if (!soft_layout(s, h, &kind, &per_unit))
		return;
	switch (kind) {
	case FEC_SOFT_NONE:
		size_error(s, h, "the code gives no soft output");
		return;
	case FEC_SOFT_SYM_LOGP:
		/* q values per symbol; how symbols map to the decoded bits is the family's */
		if (!per_unit || h->soft_count % per_unit)
			size_error(s, h, "not a whole number of symbols");
		else if (s->sym_bits)
			sym_check(s, h, bits, soft);
		return;
	case FEC_SOFT_BIT_LLR:
		break;
	}
	if (h->soft_count != h->payload_bits) {
		size_error(s, h, "expected one LLR per decoded bit");
		return;
	}
	for (uint32_t i = 0; i < h->payload_bits; i++) {
		const float llr = get_f32le(soft + 4 * (size_t)i);
		const int bit = (bits[i / 8] >> (7 - i % 8)) & 1;

		if (llr == 0.0f)
			s->soft_zero++; /* no preference: either decision agrees */
		else if (!(bit ? llr < 0.0f : llr > 0.0f))
			wrong++; /* the wrong sign, or not a number */
	}
	if (wrong && s->soft_sign_msgs++ < 10)
		fprintf(stderr,
		        "fecd-sink: message %" PRIu64 ": %" PRIu64 " of %" PRIu32
		        " soft values disagree in sign with their decoded bits\n",
		        s->msgs, wrong, h->payload_bits);
	s->soft_sign_errors += wrong;
}
