/*
 * Unit test of the GNU Radio PDU output: fecd_pdu_write byte-exact against bytes derived by hand
 * from the PMT format, write/parse round trips of every field and flag, the exact size bound, no
 * byte written past the buffer, the parser's tolerance (older dict cells, other integer types,
 * unknown keys) and refusals, and a seeded mutation loop. gr_interop.py checks the same bytes
 * against GNU Radio's own pmt library where it is installed.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fecd_proto.h"
#include "util.h"

static struct fecd_out_hdr small_hdr(void)
{
	struct fecd_out_hdr h = {
	    .channel = 1,
	    .family = FECD_FAMILY_VITERBI,
	    .status = FECD_STATUS_DECODED,
	    .code_gen = 1,
	    .frame_seq = 2,
	    .in_count = 16,
	    .payload_bits = 8,
	    .metric = 0.5f,
	};
	return h;
}

static void test_pdu_exact(void)
{
	/*
	 * pmt::serialize(cons(dict, u8vector)) for small_hdr() and one byte 0xa5, derived by hand:
	 * 07 opens the pair; each dict cell is 09, then 07 for its (key . value) pair, the key as a
	 * symbol (02, u16 length, name) and the value (0b + u64 for uint64, 04 + IEEE double bits
	 * for double, 00 for #t); 06 closes the dict; the vector is 0a (uniform vector), 00 (u8
	 * items), u32 count, npad 01 and one zero byte, then the items. All integers big-endian.
	 */
	static const char expect_hex[] =
	    "07"
	    "09 07 02 0007 6368616e6e656c          0b 0000000000000001"    /* channel 1 */
	    "09 07 02 0009 6672616d655f736571      0b 0000000000000002"    /* frame_seq 2 */
	    "09 07 02 0006 737461747573            02 0007 6465636f646564" /* status decoded */
	    "09 07 02 0006 66616d696c79            02 0007 76697465726269" /* family viterbi */
	    "09 07 02 0008 696e5f6669727374        0b 0000000000000000"    /* in_first 0 */
	    "09 07 02 0008 696e5f636f756e74        0b 0000000000000010"    /* in_count 16 */
	    "09 07 02 0006 696e5f736571            0b 0000000000000000"    /* in_seq 0 */
	    "09 07 02 000c 7061796c6f61645f62697473 0b 0000000000000008"   /* payload_bits 8 */
	    "09 07 02 0008 636f64655f67656e        0b 0000000000000001"    /* code_gen 1 */
	    "09 07 02 000a 697465726174696f6e73    0b 0000000000000000"    /* iterations 0 */
	    "09 07 02 0006 6d6574726963            04 3fe0000000000000"    /* metric 0.5 */
	    "09 07 02 0006 7061636b6564            00"                     /* packed #t */
	    "06"
	    "0a 00 00000001 01 00 a5";
	uint8_t expect[512], out[512];
	size_t n = hex_decode(expect_hex, expect, sizeof(expect));
	struct fecd_out_hdr h = small_hdr();
	uint8_t bits = 0xa5;

	long w = fecd_pdu_write(&h, &bits, false, out, sizeof(out));
	CHECK(w == (long)n, "PDU length %ld, want %zu", w, n);
	CHECK(w == (long)n && memcmp(out, expect, n) == 0, "PDU bytes equal the hand-derived ones");
	if (w == (long)n && memcmp(out, expect, n) != 0)
		for (size_t i = 0; i < n; i++)
			if (out[i] != expect[i]) {
				fprintf(stderr, "first difference at byte %zu: %02x vs %02x\n", i,
				        out[i], expect[i]);
				break;
			}
	CHECK(fecd_pmt_skip(out, (size_t)w) == w, "the PDU is one well-formed PMT");
}

static void check_round_trip(const struct fecd_out_hdr *h, const uint8_t *bits, bool unpacked,
                             const char *what)
{
	size_t cap = fecd_pdu_max_len(h->payload_bits, unpacked);
	uint8_t *buf = malloc(cap);
	long w = fecd_pdu_write(h, bits, unpacked, buf, cap);
	CHECK(w > 0 && (size_t)w <= cap, "%s: write %ld within %zu", what, w, cap);
	if (w <= 0) {
		free(buf);
		return;
	}
	uint8_t *exact = dup_exact(buf, (size_t)w);
	struct fecd_out_hdr back;
	const uint8_t *bytes;
	size_t nbytes;
	bool unp = !unpacked;
	int r = fecd_pdu_parse_ex(exact, (size_t)w, &back, &bytes, &nbytes, &unp);
	CHECK(r == 0, "%s: parse %d (%s)", what, r, fecd_proto_strerror(r));
	CHECK(unp == unpacked, "%s: packing", what);
	CHECK(back.channel == h->channel && back.frame_seq == h->frame_seq &&
	          back.status == h->status && back.family == h->family &&
	          back.in_first == h->in_first && back.in_count == h->in_count &&
	          back.in_seq == h->in_seq && back.payload_bits == h->payload_bits &&
	          back.code_gen == h->code_gen && back.iterations == h->iterations &&
	          back.metric == h->metric && back.instance == h->instance &&
	          back.end_cause == (h->flags & FECD_OUT_END_OF_STREAM ? h->end_cause : 0),
	      "%s: fields", what);
	/* work goes out beyond 65535 only; below, iterations carries it */
	CHECK(back.work == (h->work > UINT16_MAX ? h->work : h->iterations), "%s: work %u", what,
	      back.work);
	uint16_t want_flags =
	    h->flags & (FECD_OUT_STREAM | FECD_OUT_END_OF_STREAM | FECD_OUT_CODE_CHANGED);
	CHECK(back.flags == want_flags, "%s: flags %#x want %#x", what, back.flags, want_flags);
	if (h->flags & FECD_OUT_STREAM)
		CHECK(back.out_bit_offset == h->out_bit_offset, "%s: out_bit_offset", what);
	size_t want_n = unpacked ? h->payload_bits : (h->payload_bits + 7) / 8;
	CHECK(r == 0 && nbytes == want_n && bytes >= exact && bytes + nbytes == exact + w,
	      "%s: vector in place", what);
	for (uint32_t i = 0; r == 0 && i < h->payload_bits; i++) {
		int want = (bits[i / 8] >> (7 - i % 8)) & 1;
		int got = unpacked ? bytes[i] : (bytes[i / 8] >> (7 - i % 8)) & 1;
		if (got != want) {
			CHECK(got == want, "%s: bit %u", what, i);
			break;
		}
	}
	free(exact);
	free(buf);
}

static void test_pdu_round_trips(void)
{
	uint8_t bits[300], buf0[1024], buf1[1024];
	for (size_t i = 0; i < sizeof(bits); i++)
		bits[i] = (uint8_t)(i * 73 + 11);

	struct fecd_out_hdr h = small_hdr();
	check_round_trip(&h, bits, false, "small");
	check_round_trip(&h, bits, true, "small unpacked");

	h.channel = 0xffffffffu;
	h.frame_seq = UINT64_MAX;
	h.in_first = 1ull << 40;
	h.in_seq = 0x8000000000000000ull;
	h.in_count = 0xffffffffu;
	h.payload_bits = 2041;
	h.code_gen = 0xfffffffeu;
	h.iterations = 65535;
	h.work = 0xfffffff0u; /* beyond iterations' 16 bits: the optional key work */
	h.metric = -3.25e7f;
	h.status = FECD_STATUS_NOT_CONVERGED;
	h.family = FECD_FAMILY_NBLDPC;
	h.flags = FECD_OUT_STREAM | FECD_OUT_END_OF_STREAM | FECD_OUT_CODE_CHANGED;
	h.out_bit_offset = 123456789;
	h.end_cause = FECD_END_CODE_CHANGE;
	h.instance = 0xfedcba9876543210ull; /* sent where not 0: the optional key instance */
	check_round_trip(&h, bits, false, "all fields");
	check_round_trip(&h, bits, true, "all fields unpacked");

	/* The bound is tight: longest names and every optional key reach it exactly. */
	h.family = FECD_FAMILY_VITERBI;
	size_t cap = fecd_pdu_max_len(h.payload_bits, false);
	uint8_t *buf = malloc(cap);
	CHECK(fecd_pdu_write(&h, bits, false, buf, cap) == (long)cap, "max_len is reached");
	free(buf);

	h.payload_bits = 0;
	h.flags = FECD_OUT_END_OF_STREAM;
	h.status = FECD_STATUS_ERASED;
	check_round_trip(&h, NULL, false, "empty end of stream");

	/* work within 16 bits adds nothing to iterations: the PDU is the one without it. */
	h = small_hdr();
	h.iterations = h.work = 40;
	long w0 = fecd_pdu_write(&h, bits, false, buf0, sizeof(buf0));
	h.work = 0;
	CHECK(w0 > 0 && fecd_pdu_write(&h, bits, false, buf1, sizeof(buf1)) == w0 &&
	          memcmp(buf0, buf1, (size_t)w0) == 0,
	      "no work key up to 65535");
	h.iterations = 65535;
	h.work = 65536;
	check_round_trip(&h, bits, false, "work just past 16 bits");
	CHECK(fecd_pdu_write(&h, bits, false, buf1, sizeof(buf1)) == w0 + 2 + 7 + 9,
	      "the work key: cell, pair, symbol \"work\", uint64");

	/* Unused bits of the last packed byte go out as zero. */
	h = small_hdr();
	h.payload_bits = 3;
	uint8_t one = 0xff, out[512];
	long w = fecd_pdu_write(&h, &one, false, out, sizeof(out));
	CHECK(w > 0 && out[w - 1] == 0xe0, "pad bits zeroed: %02x", w > 0 ? out[w - 1] : 0);

	/* Refusals. */
	h = small_hdr();
	h.status = 9;
	CHECK(fecd_pdu_write(&h, bits, false, out, sizeof(out)) == -FECD_PROTO_ESTATUS, "status");
	h = small_hdr();
	h.family = 0;
	CHECK(fecd_pdu_write(&h, bits, false, out, sizeof(out)) == -FECD_PROTO_EFAMILY, "family");
	h = small_hdr();
	CHECK(fecd_pdu_write(&h, NULL, false, out, sizeof(out)) == -FECD_PROTO_ELENGTH, "no bits");
}

static void test_pdu_nospace(void)
{
	struct fecd_out_hdr h = small_hdr();
	uint8_t bits[4] = {1, 2, 3, 4}, ref[512];
	h.payload_bits = 30;
	long full = fecd_pdu_write(&h, bits, true, ref, sizeof(ref));
	CHECK(full > 0, "reference PDU");

	unsigned overrun = 0, wrong = 0;
	for (long cap = 0; cap < full; cap++) {
		uint8_t *buf = malloc((size_t)cap + 16);
		memset(buf, 0xcc, (size_t)cap + 16);
		if (fecd_pdu_write(&h, bits, true, buf, (size_t)cap) != -FECD_PROTO_ENOSPACE)
			wrong++;
		for (int i = 0; i < 16; i++)
			overrun += buf[cap + i] != 0xcc;
		free(buf);
	}
	CHECK(wrong == 0, "%u short capacities not refused", wrong);
	CHECK(overrun == 0, "%u bytes written past the capacity", overrun);
	CHECK(fecd_pdu_write(&h, bits, true, NULL, 0) == -FECD_PROTO_ENOSPACE, "NULL buffer");
}

static int pdu_parse_hex(const char *hex, struct fecd_out_hdr *h)
{
	uint8_t raw[1024];
	size_t n = hex_decode(hex, raw, sizeof(raw));
	uint8_t *copy = dup_exact(raw, n);
	const uint8_t *bytes;
	size_t nbytes;
	int r = fecd_pdu_parse(copy, n, h, &bytes, &nbytes);
	free(copy);
	return r;
}

#define REQ_CH "09 07 02 0007 6368616e6e656c 0b 0000000000000005"
#define REQ_FS "09 07 02 0009 6672616d655f736571 0b 0000000000000009"
#define REQ_ST "09 07 02 0006 737461747573 02 0006 657261736564" /* erased */
#define REQ_FA "09 07 02 0006 66616d696c79 02 0004 6c647063"     /* ldpc */
#define REQ_PB "09 07 02 000c 7061796c6f61645f62697473 0b 0000000000000010"
#define VEC2   "0a 00 00000002 01 00 beef"

static void test_pdu_parse_variants(void)
{
	struct fecd_out_hdr h;

	CHECK(pdu_parse_hex("07" REQ_CH REQ_FS REQ_ST REQ_FA REQ_PB "06" VEC2, &h) == 0,
	      "required keys only");
	CHECK(h.channel == 5 && h.frame_seq == 9 && h.status == FECD_STATUS_ERASED &&
	          h.family == FECD_FAMILY_LDPC && h.payload_bits == 16,
	      "values read");
	/* Older GNU Radio wrote dict cells as plain pairs; int32 values from pmt::from_long. */
	CHECK(pdu_parse_hex("07"
	                    "07 07 02 0007 6368616e6e656c 03 00000005"
	                    "07 07 02 0009 6672616d655f736571 0d 0000000000000009" REQ_ST REQ_FA
	                    "07 07 02 000c 7061796c6f61645f62697473 03 00000010"
	                    "06" VEC2,
	                    &h) == 0,
	      "plain pairs and int32/int64 values");
	CHECK(h.channel == 5 && h.frame_seq == 9 && h.payload_bits == 16, "values via int32");
	/* Unknown keys of any shape are stepped over, in any order. */
	CHECK(pdu_parse_hex(
	          "07" REQ_PB "09 07 02 0003 666f6f 08 00000002 03 00000001 02 0001 78" /* foo */
	          REQ_ST
	          "09 07 03 00000001 05 00000000000000000000000000000000" REQ_CH REQ_FA REQ_FS
	          "06" VEC2,
	          &h) == 0,
	      "unknown keys skipped");

	/* A metric beyond float's range (1e300) saturates instead of converting out of range. */
	CHECK(pdu_parse_hex("07" REQ_CH REQ_FS REQ_ST REQ_FA REQ_PB
	                    "09 07 02 0006 6d6574726963 04 7e37e43c8800759c 06" VEC2,
	                    &h) == 0 &&
	          h.metric > 3.4e38f,
	      "huge metric saturates");

	static const struct {
		const char *what;
		const char *hex;
		int err;
	} bad[] = {
	    {"not a pair", "06", FECD_PROTO_EPMT},
	    {"empty", "", FECD_PROTO_EPMT},
	    {"missing payload_bits", "07" REQ_CH REQ_FS REQ_ST REQ_FA "06" VEC2, FECD_PROTO_EPMT},
	    {"missing status", "07" REQ_CH REQ_FS REQ_FA REQ_PB "06" VEC2, FECD_PROTO_EPMT},
	    {"duplicate key", "07" REQ_CH REQ_CH REQ_FS REQ_ST REQ_FA REQ_PB "06" VEC2,
	     FECD_PROTO_EPMT},
	    {"vector too short",
	     "07" REQ_CH REQ_FS REQ_ST REQ_FA REQ_PB "06 0a 00 00000001 01 00 be",
	     FECD_PROTO_ELENGTH},
	    {"vector count past the end",
	     "07" REQ_CH REQ_FS REQ_ST REQ_FA REQ_PB "06 0a 00 00000003 01 00 beef",
	     FECD_PROTO_EPMT},
	    {"trailing byte", "07" REQ_CH REQ_FS REQ_ST REQ_FA REQ_PB "06" VEC2 "00",
	     FECD_PROTO_EPMT},
	    {"f32 vector", "07" REQ_CH REQ_FS REQ_ST REQ_FA REQ_PB "06 0a 08 00000002 01 00 beef",
	     FECD_PROTO_EPMT},
	    {"unknown status",
	     "07" REQ_CH REQ_FS "09 07 02 0006 737461747573 02 0002 6f6b" REQ_FA REQ_PB "06" VEC2,
	     FECD_PROTO_ESTATUS},
	    {"unknown family",
	     "07" REQ_CH REQ_FS REQ_ST "09 07 02 0006 66616d696c79 02 0003 726d73" REQ_PB "06" VEC2,
	     FECD_PROTO_EFAMILY},
	    {"channel as double",
	     "07 09 07 02 0007 6368616e6e656c 04 3ff0000000000000" REQ_FS REQ_ST REQ_FA REQ_PB
	     "06" VEC2,
	     FECD_PROTO_EPMT},
	    {"channel over 32 bits",
	     "07 09 07 02 0007 6368616e6e656c 0b 0000000100000000" REQ_FS REQ_ST REQ_FA REQ_PB
	     "06" VEC2,
	     FECD_PROTO_EPMT},
	    {"negative int32",
	     "07 09 07 02 0007 6368616e6e656c 03 ffffffff" REQ_FS REQ_ST REQ_FA REQ_PB "06" VEC2,
	     FECD_PROTO_EPMT},
	    {"cell is a vector", "07 08 00000000 06" VEC2, FECD_PROTO_EPMT},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = pdu_parse_hex(bad[i].hex, &h);
		CHECK(r == -bad[i].err, "%s: got %d (%s)", bad[i].what, r, fecd_proto_strerror(r));
	}

	/* Every truncation of a valid PDU is refused. */
	struct fecd_out_hdr w = small_hdr();
	uint8_t bits[2] = {0x12, 0x34}, out[512];
	w.flags = FECD_OUT_STREAM | FECD_OUT_END_OF_STREAM;
	long n = fecd_pdu_write(&w, bits, false, out, sizeof(out));
	unsigned wrong = 0;
	for (long len = 0; len < n; len++) {
		uint8_t *copy = dup_exact(out, (size_t)len);
		if (fecd_pdu_parse(copy, (size_t)len, &h, NULL, NULL) >= 0)
			wrong++;
		free(copy);
	}
	CHECK(wrong == 0, "%u truncated PDUs accepted", wrong);
}

static void test_pdu_fuzz(void)
{
	struct fecd_out_hdr h = small_hdr();
	uint8_t bits[8] = {9, 8, 7, 6, 5, 4, 3, 2}, good[512], buf[600];
	unsigned bad = 0, ok = 0;

	h.payload_bits = 60;
	h.flags = FECD_OUT_STREAM;
	long n = fecd_pdu_write(&h, bits, false, good, sizeof(good));
	CHECK(n > 0, "fuzz seed PDU");
	test_rng_seed(4242);
	for (int it = 0; it < 30000 && n > 0; it++) {
		size_t len = (size_t)n;
		memcpy(buf, good, len);
		len = mutate(buf, len, sizeof(buf));
		uint8_t *copy = dup_exact(buf, len);
		struct fecd_out_hdr back;
		const uint8_t *bytes = NULL;
		size_t nbytes = 0;
		int r = fecd_pdu_parse(copy, len, &back, &bytes, &nbytes);
		if (!is_defined_result(r))
			bad++;
		if (r == 0) {
			ok++;
			if (bytes < copy || bytes + nbytes != copy + len)
				bad++;
		}
		free(copy);
	}
	CHECK(bad == 0, "%u PDU fuzz results out of the defined set", bad);
	CHECK(ok > 0, "some mutated PDUs still parse");
}

int main(void)
{
	test_pdu_exact();
	test_pdu_round_trips();
	test_pdu_nospace();
	test_pdu_parse_variants();
	test_pdu_fuzz();
	return check_done();
}
