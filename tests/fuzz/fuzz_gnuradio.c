/*
 * Fuzz harness: the GNU Radio side of the wire protocol. The input is read three ways, as the
 * daemon and fecd-sink meet such bytes: as the start of a gr-zeromq stream message (the pass_tags
 * header, fecd_gr_tag_header_parse), as one serialized PMT (fecd_pmt_skip), and as a PDU from a
 * message sink (fecd_pdu_parse_ex).
 *
 * Properties: a measured header or PMT lies within the input; a parsed PDU's vector lies within
 * it and matches payload_bits; written again (fecd_pdu_write, within fecd_pdu_max_len) it parses
 * back to the same header and the same bits.
 */
#include <math.h>

#include "fecd_proto.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static bool same_pdu_header(const struct fecd_out_hdr *a, const struct fecd_out_hdr *b)
{
	return a->channel == b->channel && a->frame_seq == b->frame_seq && a->status == b->status &&
	       a->family == b->family && a->in_first == b->in_first && a->in_count == b->in_count &&
	       a->in_seq == b->in_seq && a->payload_bits == b->payload_bits &&
	       a->code_gen == b->code_gen && a->iterations == b->iterations &&
	       (a->work <= UINT16_MAX || a->work == b->work) && /* the key work, beyond 16 bits */
	       a->flags == b->flags && a->out_bit_offset == b->out_bit_offset &&
	       (a->metric == b->metric || (isnan(a->metric) && isnan(b->metric)));
}

/* The PDU's bits packed MSB first (an unpacked vector holds one bit per byte; nonzero is 1). */
static uint8_t *packed_bits(const uint8_t *v, size_t n, uint32_t bits, bool unpacked)
{
	size_t nbytes = (bits + 7u) / 8u;
	uint8_t *p = calloc(nbytes ? nbytes : 1, 1);

	if (!p)
		abort();
	if (!unpacked) {
		if (nbytes)
			memcpy(p, v, nbytes);
		return p;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i])
			p[i / 8] |= (uint8_t)(0x80u >> (i % 8));
	return p;
}

static void pdu(const uint8_t *data, size_t size)
{
	struct fecd_out_hdr h, back;
	const uint8_t *vec, *vec2;
	size_t n, n2;
	bool unpacked, unpacked2;

	if (fecd_pdu_parse_ex(data, size, &h, &vec, &n, &unpacked) != 0)
		return;
	FUZZ_CHECK(vec >= data && vec + n <= data + size, "vector outside the input");
	FUZZ_CHECK(n == (unpacked ? h.payload_bits : (h.payload_bits + 7ull) / 8), "vector length");

	uint8_t *bits = packed_bits(vec, n, h.payload_bits, unpacked);
	size_t cap = fecd_pdu_max_len(h.payload_bits, unpacked);
	uint8_t *buf = malloc(cap);
	if (!buf)
		abort();
	long len = fecd_pdu_write(&h, bits, unpacked, buf, cap);
	FUZZ_CHECK(len > 0 && (size_t)len <= cap, "rewrite: %ld bytes, bound %zu", len, cap);
	FUZZ_CHECK(fecd_pdu_parse_ex(buf, (size_t)len, &back, &vec2, &n2, &unpacked2) == 0,
	           "rewritten PDU refused");
	FUZZ_CHECK(same_pdu_header(&h, &back), "header changed in a rewrite");
	FUZZ_CHECK(unpacked2 == unpacked && n2 == n, "vector shape changed in a rewrite");
	uint8_t *bits2 = packed_bits(vec2, n2, back.payload_bits, unpacked2);
	/* Equal up to payload_bits: the bits past it in the last byte are zero on the wire. */
	size_t full = h.payload_bits / 8;
	uint8_t mask = (uint8_t)(0xff00u >> (h.payload_bits % 8));
	FUZZ_CHECK(memcmp(bits, bits2, full) == 0 &&
	               (h.payload_bits % 8 == 0 || ((bits[full] ^ bits2[full]) & mask) == 0),
	           "bits changed in a rewrite");
	free(bits2);
	free(buf);
	free(bits);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t hdr_len;
	uint64_t offset;

	if (fecd_gr_tag_header_parse(data, size, &hdr_len, &offset) == 0)
		FUZZ_CHECK(hdr_len >= 19 && hdr_len <= size, "tag header of %zu bytes in %zu",
		           hdr_len, size);
	long n = fecd_pmt_skip(data, size);
	FUZZ_CHECK(n < 0 || (n > 0 && (size_t)n <= size), "PMT of %ld bytes in %zu", n, size);
	pdu(data, size);
	return 0;
}
