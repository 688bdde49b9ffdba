/*
 * Fuzz harness: native fecd messages and soft-symbol conversion, as a channel takes them in. The
 * input is one message's two parts back to back: the header (fecd_in_hdr_parse; its hdr_len says
 * where the payload starts), then the payload, checked against the header
 * (fecd_in_payload_check) and converted to int8 LLRs (fec_syms_to_s8) in the format and polarity
 * the header names. The converted symbols then go through the sync-marker search the daemon runs
 * on raw LDPC streams (asm_sync, pure code), with marker and rules taken from header fields. q-ary
 * symbols (f32v) are checked for a q taken from the header (2..16, as a channel's code would give
 * it) and converted into float slots (fec_syms_to_f32v). The same bytes are also read as an
 * output header (fecd-sink parses those off the network).
 *
 * Properties: a parsed header packs and parses back to the same fields; conversion never fails
 * on a checked payload and gives values in -127..127 (q-ary: finite, within FEC_SYMLOGP_MAX);
 * the marker search consumes no more than it is given and its correlations stay in -1..1.
 */
#include <math.h>

#include "asm_sync.h"
#include "fecd_proto.h"
#include "fuzz.h"
#include "softbits.h"

/* llr_scale values a channel may have (input.llr_scale is 0.001..1000). */
static const float scales[] = {0.001f, 1.0f, 8.0f, 127.5f, 1000.0f};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_in_round_trip(const struct fecd_in_hdr *h)
{
	uint8_t buf[FECD_IN_HDR_LEN];
	struct fecd_in_hdr back;

	fecd_in_hdr_pack(h, buf);
	FUZZ_CHECK(fecd_in_hdr_parse(buf, sizeof(buf), &back) == 0, "packed header refused");
	FUZZ_CHECK(back.channel == h->channel && back.format == h->format &&
	               back.flags == h->flags && back.seq == h->seq &&
	               back.symbol_count == h->symbol_count && back.frame_len == h->frame_len,
	           "input header fields changed in a round trip");
}

/* The marker search over syms, fed in pieces as messages arrive. */
static void scan_markers(const struct fecd_in_hdr *h, const int8_t *syms, size_t n)
{
	struct asm_sync s = {0};
	struct asm_sync_params p = {
	    .marker = h->seq,
	    .bits = 8 + h->channel % (ASM_SYNC_MAX_BITS - 7),
	    .threshold = (float)(h->frame_len & 0xff) / 255.0f,
	    .lock_threshold = (float)((h->frame_len >> 8) & 0xff) / 255.0f,
	    .flywheel = (h->channel >> 8) % 17,
	    .frame_syms = (h->frame_len >> 16) % 2048,
	};
	uint64_t dropped;
	size_t piece = 1 + (h->channel >> 16) % 97, at = 0;

	FUZZ_CHECK(asm_sync_config(&s, &p, &dropped) == 0 && dropped == 0, "marker config refused");
	while (at < n) {
		size_t k = n - at < piece ? n - at : piece;
		struct asm_scan res;
		size_t used = asm_sync_scan(&s, syms + at, k, &res);

		FUZZ_CHECK(used <= k, "scan consumed %zu of %zu symbols", used, k);
		FUZZ_CHECK(asm_sync_held(&s) <= p.bits, "ring holds %u of %u", asm_sync_held(&s),
		           p.bits);
		if (res.found) {
			FUZZ_CHECK(res.corr >= -1.0f && res.corr <= 1.0f, "correlation %g",
			           (double)res.corr);
			/* the frame after the marker is taken, then the next marker expected */
			size_t frame = n - at - used < p.frame_syms ? n - at - used : p.frame_syms;
			used += frame;
			asm_sync_expect(&s);
		} else {
			FUZZ_CHECK(used == k, "scan stopped early without a marker");
		}
		at += used;
	}
	FUZZ_CHECK(asm_sync_reset(&s) <= p.bits, "reset gave up more than a ring");
}

/* q-ary symbols into float slots, from an exact-size copy as ZMQ hands it over. */
static void native_symbols(const struct fecd_in_hdr *h, const uint8_t *data, size_t plen,
                           uint32_t q)
{
	uint8_t *payload = malloc(plen);
	float *vals = malloc((size_t)h->symbol_count * q * sizeof(float));

	if (!payload || !vals)
		abort();
	memcpy(payload, data, plen);
	int rc = fec_syms_to_f32v(h->format, payload, h->symbol_count, q, vals);
	FUZZ_CHECK(rc == 0, "conversion of a checked f32v payload failed: %d", rc);
	for (size_t i = 0; i < (size_t)h->symbol_count * q; i++)
		FUZZ_CHECK(isfinite(vals[i]) && fabsf(vals[i]) <= FEC_SYMLOGP_MAX,
		           "value %zu is %g", i, vals[i]);
	free(payload);
	free(vals);
}

static void native_input(const uint8_t *data, size_t size)
{
	struct fecd_in_hdr h;

	if (fecd_in_hdr_parse(data, size, &h) != 0)
		return;
	FUZZ_CHECK(h.hdr_len >= FECD_IN_HDR_LEN && h.hdr_len <= size, "hdr_len %u of %zu bytes",
	           h.hdr_len, size);
	check_in_round_trip(&h);

	size_t plen = size - h.hdr_len;
	const uint32_t q = fecd_format_is_vector(h.format) ? 2 + (uint32_t)(h.seq % 15) : 1;
	if (fecd_in_payload_check_q(&h, plen, q) != 0 || !h.symbol_count)
		return;
	FUZZ_CHECK(plen == fecd_format_bytes_q(h.format, h.symbol_count, q), "payload size");
	if (q > 1) {
		native_symbols(&h, data + h.hdr_len, plen, q);
		return;
	}

	/* An exact-size copy of the payload, as ZMQ hands it over, and an exact-size output. */
	uint8_t *payload = malloc(plen);
	int8_t *syms = malloc(h.symbol_count);
	if (!payload || !syms)
		abort();
	memcpy(payload, data + h.hdr_len, plen);
	float scale = scales[h.seq % (sizeof(scales) / sizeof(scales[0]))];
	int rc = fec_syms_to_s8(h.format, payload, h.symbol_count,
	                        (h.flags & FECD_IN_POLARITY_ONE) != 0, scale, syms);
	FUZZ_CHECK(rc == 0, "conversion of a checked payload failed: %d", rc);
	for (uint32_t i = 0; i < h.symbol_count; i++)
		FUZZ_CHECK(syms[i] >= -127 && syms[i] <= 127, "symbol %u is %d", i, syms[i]);
	scan_markers(&h, syms, h.symbol_count);
	free(payload);
	free(syms);
}

static void output_header(const uint8_t *data, size_t size)
{
	struct fecd_out_hdr h, back;
	uint8_t buf[FECD_OUT_HDR_LEN];

	if (fecd_out_hdr_parse(data, size, &h) != 0)
		return;
	FUZZ_CHECK(h.hdr_len >= FECD_OUT_HDR_MIN_LEN && h.hdr_len <= size, "hdr_len");
	fecd_out_hdr_pack(&h, buf);
	FUZZ_CHECK(fecd_out_hdr_parse(buf, sizeof(buf), &back) == 0, "packed header refused");
	FUZZ_CHECK(back.channel == h.channel && back.family == h.family &&
	               back.status == h.status && back.flags == h.flags &&
	               back.code_gen == h.code_gen && back.frame_seq == h.frame_seq &&
	               back.in_first == h.in_first && back.in_seq == h.in_seq &&
	               back.out_bit_offset == h.out_bit_offset && back.in_count == h.in_count &&
	               back.payload_bits == h.payload_bits && back.soft_count == h.soft_count &&
	               back.iterations == h.iterations && back.work == h.work &&
	               back.soft_kind == h.soft_kind && back.soft_per_unit == h.soft_per_unit &&
	               back.end_cause == h.end_cause && back.instance == h.instance &&
	               (back.metric == h.metric || (isnan(back.metric) && isnan(h.metric))),
	           "output header fields changed in a round trip");
	/* the rest as parts 2 and 3, split where the header says part 2 ends */
	size_t rest = size - h.hdr_len, p2 = (h.payload_bits + 7ull) / 8;
	if (p2 <= rest)
		(void)fecd_out_payload_check(&h, p2, rest - p2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	native_input(data, size);
	output_header(data, size);
	return 0;
}
