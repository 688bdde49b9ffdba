/*
 * What fecd-sink takes from the code (--code PRESET or the text form, as fecd-feed takes it):
 * the frame lengths, where the code's frames carry a fixed number of information bits (LDPC's
 * k), and the kind of soft output it gives; and the check of the soft values a message carries
 * in part 3 (fecd's output.soft): their count against the decoded bits, and for bit LLRs each
 * value's sign against its decoded bit (positive favours 0, PROTOCOL.md 3.2).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fec.h"
#include "fecd_proto.h"

#include "sink.h"

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
	return client_opts_code_frames(&s->o.common, &s->code_info, "fecd-sink");
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
