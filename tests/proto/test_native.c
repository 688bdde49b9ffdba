/*
 * Unit test of the native fecd headers: the documented byte layout, pack/parse round trips, a
 * table of bad inputs each expecting its specific error, payload checks for every format, the
 * enum tables, and a seeded mutation fuzz loop in which the parsers may only return 0 or a
 * defined error. Every parser call gets an exact-size heap buffer so valgrind sees any over-read.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fecd_proto.h"
#include "util.h"

static struct fecd_in_hdr sample_in(void)
{
	struct fecd_in_hdr h = {
	    .channel = 0x01020304,
	    .format = FECD_FMT_S8_LLR,
	    .flags = FECD_IN_FRAME_START | FECD_IN_POLARITY_ONE,
	    .seq = 0x1122334455667788ull,
	    .symbol_count = 1000,
	    .frame_len = 2000,
	};
	return h;
}

static struct fecd_out_hdr sample_out(void)
{
	struct fecd_out_hdr h = {
	    .channel = 7,
	    .family = FECD_FAMILY_VITERBI,
	    .status = FECD_STATUS_NOT_CONVERGED,
	    .flags = FECD_OUT_STREAM | FECD_OUT_SOFT,
	    .code_gen = 3,
	    .frame_seq = 0xfedcba9876543210ull,
	    .in_first = 123456789012ull,
	    .in_seq = 42,
	    .out_bit_offset = 99999,
	    .in_count = 4096,
	    .payload_bits = 2041,
	    .soft_count = 2041,
	    .iterations = 12,
	    .metric = -1234.5f,
	};
	return h;
}

static int in_parse_exact(const uint8_t *buf, size_t len, struct fecd_in_hdr *h)
{
	uint8_t *copy = dup_exact(buf, len);
	int r = fecd_in_hdr_parse(copy, len, h);
	free(copy);
	return r;
}

static int out_parse_exact(const uint8_t *buf, size_t len, struct fecd_out_hdr *h)
{
	uint8_t *copy = dup_exact(buf, len);
	int r = fecd_out_hdr_parse(copy, len, h);
	free(copy);
	return r;
}

static void test_in_layout_and_round_trip(void)
{
	struct fecd_in_hdr h = sample_in(), back;
	uint8_t buf[FECD_IN_HDR_LEN];

	memset(buf, 0xaa, sizeof(buf));
	fecd_in_hdr_pack(&h, buf);
	/* The byte table of PROTOCOL.md, checked at its offsets. */
	CHECK(memcmp(buf, "FECD", 4) == 0, "magic bytes");
	CHECK(buf[4] == FECD_PROTO_VERSION && buf[5] == FECD_MSG_SYMBOLS, "version/type");
	CHECK(buf[6] == FECD_IN_HDR_LEN && buf[7] == 0, "hdr_len");
	CHECK(buf[8] == 4 && buf[9] == 3 && buf[10] == 2 && buf[11] == 1, "channel LE");
	CHECK(buf[12] == FECD_FMT_S8_LLR && buf[13] == 0, "format, reserved zero");
	CHECK(buf[14] == 0x09 && buf[15] == 0, "flags LE");
	CHECK(buf[16] == 0x88 && buf[23] == 0x11, "seq LE");
	CHECK(buf[24] == (1000 & 0xff) && buf[25] == 1000 >> 8, "symbol_count LE");
	CHECK(buf[28] == (2000 & 0xff) && buf[29] == 2000 >> 8, "frame_len LE");

	CHECK(in_parse_exact(buf, sizeof(buf), &back) == 0, "round trip parses");
	CHECK(back.version == FECD_PROTO_VERSION && back.type == FECD_MSG_SYMBOLS, "version");
	CHECK(back.hdr_len == FECD_IN_HDR_LEN, "hdr_len %u", back.hdr_len);
	CHECK(back.channel == h.channel && back.format == h.format && back.flags == h.flags,
	      "channel/format/flags");
	CHECK(back.seq == h.seq && back.symbol_count == h.symbol_count &&
	          back.frame_len == h.frame_len,
	      "seq/count/frame_len");

	/* The reserved byte is ignored on receive. */
	buf[13] = 0x5a;
	CHECK(in_parse_exact(buf, sizeof(buf), &back) == 0, "reserved byte ignored");

	/* A later version's longer header: accepted, the extra bytes skipped. */
	uint8_t longer[FECD_IN_HDR_LEN + 16];
	memcpy(longer, buf, FECD_IN_HDR_LEN);
	memset(longer + FECD_IN_HDR_LEN, 0xee, 16);
	longer[6] = sizeof(longer);
	CHECK(in_parse_exact(longer, sizeof(longer), &back) == 0, "longer hdr_len accepted");
	CHECK(back.hdr_len == sizeof(longer) && back.seq == h.seq, "longer header fields");

	/* End of stream with no symbols is the one empty message allowed. */
	h.symbol_count = 0;
	h.flags = FECD_IN_END_OF_STREAM;
	fecd_in_hdr_pack(&h, buf);
	CHECK(in_parse_exact(buf, sizeof(buf), &back) == 0, "empty EOS accepted");
	CHECK(fecd_in_payload_check(&back, 0) == 0, "empty EOS payload");
	CHECK(fecd_in_payload_check(&back, 1) == -FECD_PROTO_ELENGTH, "EOS with stray byte");
}

static void test_out_layout_and_round_trip(void)
{
	struct fecd_out_hdr h = sample_out(), back;
	uint8_t buf[FECD_OUT_HDR_LEN];

	memset(buf, 0xaa, sizeof(buf));
	fecd_out_hdr_pack(&h, buf);
	CHECK(memcmp(buf, "FECD", 4) == 0, "magic");
	CHECK(buf[4] == FECD_PROTO_VERSION && buf[5] == FECD_MSG_DECODED, "version/type");
	CHECK(buf[6] == FECD_OUT_HDR_LEN && buf[7] == 0, "hdr_len");
	CHECK(buf[8] == 7 && buf[12] == FECD_FAMILY_VITERBI, "channel, family");
	CHECK(buf[13] == FECD_STATUS_NOT_CONVERGED, "status");
	CHECK(buf[14] == (FECD_OUT_STREAM | FECD_OUT_SOFT) && buf[15] == 0, "flags");
	CHECK(buf[16] == 3, "code_gen at 16");
	for (int i = 20; i < 24; i++)
		CHECK(buf[i] == 0, "reserved byte %d zero", i);
	CHECK(buf[24] == 0x10 && buf[31] == 0xfe, "frame_seq at 24 LE");
	CHECK(buf[40] == 42, "in_seq at 40");
	CHECK(buf[56] == 0x00 && buf[57] == 0x10, "in_count at 56");
	CHECK(buf[60] == (2041 & 0xff) && buf[61] == 2041 >> 8, "payload_bits at 60");
	CHECK(buf[68] == 12 && buf[70] == 0 && buf[71] == 0, "iterations at 68, reserved");
	uint8_t metric_le[4] = {0x00, 0x50, 0x9a, 0xc4}; /* -1234.5f = 0xc49a5000 */
	CHECK(memcmp(buf + 72, metric_le, 4) == 0, "metric float32 LE at 72");
	for (int i = 76; i < 80; i++)
		CHECK(buf[i] == 0, "reserved tail byte %d zero", i);

	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0, "output round trip");
	CHECK(back.channel == h.channel && back.family == h.family && back.status == h.status &&
	          back.flags == h.flags && back.code_gen == h.code_gen,
	      "small fields");
	CHECK(back.frame_seq == h.frame_seq && back.in_first == h.in_first &&
	          back.in_seq == h.in_seq && back.out_bit_offset == h.out_bit_offset,
	      "64-bit fields");
	CHECK(back.in_count == h.in_count && back.payload_bits == h.payload_bits &&
	          back.soft_count == h.soft_count && back.iterations == h.iterations,
	      "32/16-bit fields");
	CHECK(back.metric == h.metric, "metric %g", back.metric);

	CHECK(fecd_out_payload_check(&back, 256, 2041 * 4) == 0, "payload and soft sizes");
	CHECK(fecd_out_payload_check(&back, 255, 2041 * 4) == -FECD_PROTO_ELENGTH, "short bits");
	CHECK(fecd_out_payload_check(&back, 256, 2040 * 4) == -FECD_PROTO_ELENGTH, "short soft");
	back.flags &= (uint16_t)~FECD_OUT_SOFT;
	back.soft_count = 0;
	CHECK(fecd_out_payload_check(&back, 256, 0) == 0, "no soft part");
	CHECK(fecd_out_payload_check(&back, 256, 4) == -FECD_PROTO_EPARTS, "unexpected soft part");

	/* Reserved bytes ignored on receive (those left: 78..79; 20..23, 70..71, 76 and 77 became
	 * work, soft_per_unit, soft_kind and end_cause, test_out_soft_work, test_out_end_cause). */
	buf[78] = buf[79] = 0x77;
	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0, "reserved ignored");
}

/* end_cause (byte 77): why a stream ended. Only the sender's own END_OF_STREAM is its end; the
 * ends fecd makes (a code change, a gap, a close) and a header that does not say are not. */
static void test_out_end_cause(void)
{
	struct fecd_out_hdr h = sample_out(), back;
	uint8_t buf[FECD_OUT_HDR_LEN];

	h.flags = FECD_OUT_STREAM | FECD_OUT_END_OF_STREAM;
	h.soft_count = 0;
	h.end_cause = FECD_END_CODE_CHANGE;
	fecd_out_hdr_pack(&h, buf);
	CHECK(buf[77] == FECD_END_CODE_CHANGE, "end_cause at 77: %u", buf[77]);
	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0 && back.end_cause == h.end_cause,
	      "end_cause round trip");
	CHECK(!fecd_out_sender_ended(&back), "a code change is not the sender's end");
	buf[77] = FECD_END_SENDER;
	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0 && fecd_out_sender_ended(&back),
	      "the sender's end");
	buf[77] = FECD_END_UNSAID;
	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0 && !fecd_out_sender_ended(&back),
	      "an end that does not say why is not the sender's");
	buf[77] = 200;
	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0 && !fecd_out_sender_ended(&back),
	      "an unknown cause parses and is not the sender's");
	back.flags = FECD_OUT_STREAM;
	back.end_cause = FECD_END_SENDER;
	CHECK(!fecd_out_sender_ended(&back), "no END_OF_STREAM, no end");
	CHECK(strcmp(fecd_end_name(FECD_END_GAP), "gap") == 0 && !fecd_end_name(200), "names");
}

/* instance (bytes 80..87, appended): written and read back; a header of 80 bytes, as senders
 * wrote before the field, still parses, with instance 0. */
static void test_out_instance(void)
{
	struct fecd_out_hdr h = sample_out(), back;
	uint8_t buf[FECD_OUT_HDR_LEN];

	h.instance = 0x0123456789abcdefull;
	fecd_out_hdr_pack(&h, buf);
	CHECK(buf[6] == 88 && buf[80] == 0xef && buf[87] == 0x01, "instance at 80, little-endian");
	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0 && back.instance == h.instance,
	      "instance round trip");
	buf[6] = FECD_OUT_HDR_MIN_LEN;
	CHECK(out_parse_exact(buf, FECD_OUT_HDR_MIN_LEN, &back) == 0 && back.instance == 0,
	      "an 80-byte header from before instance: instance 0");
	buf[6] = FECD_OUT_HDR_MIN_LEN - 1;
	CHECK(out_parse_exact(buf, FECD_OUT_HDR_MIN_LEN, &back) == -FECD_PROTO_EHDRLEN,
	      "hdr_len 79 refused");
}

/* One row of the bad-input table: a mutation of a valid header and the error it must get. */
struct bad_in {
	const char *what;
	size_t off; /* byte to overwrite, or SIZE_MAX for none */
	unsigned width;
	uint64_t value;
	size_t len; /* bytes handed to the parser; 0 means the full header */
	int err;
};

static void put_le(uint8_t *p, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void test_in_bad_table(void)
{
	static const struct bad_in rows[] = {
	    {"wrong magic", 0, 4, 0x44434547, 0, FECD_PROTO_EMAGIC},
	    {"magic byte-swapped", 0, 4, 0x46454344, 0, FECD_PROTO_EMAGIC},
	    {"version 0", 4, 1, 0, 0, FECD_PROTO_EVERSION},
	    {"version 2", 4, 1, 2, 0, FECD_PROTO_EVERSION},
	    {"version 255", 4, 1, 255, 0, FECD_PROTO_EVERSION},
	    {"type decoded", 5, 1, FECD_MSG_DECODED, 0, FECD_PROTO_ETYPE},
	    {"type 0", 5, 1, 0, 0, FECD_PROTO_ETYPE},
	    {"hdr_len 0", 6, 2, 0, 0, FECD_PROTO_EHDRLEN},
	    {"hdr_len 31", 6, 2, 31, 0, FECD_PROTO_EHDRLEN},
	    {"hdr_len 1025", 6, 2, 1025, 0, FECD_PROTO_EHDRLEN},
	    {"hdr_len 65535", 6, 2, 65535, 0, FECD_PROTO_EHDRLEN},
	    {"hdr_len past the buffer", 6, 2, 33, 0, FECD_PROTO_ETRUNCATED},
	    {"hdr_len 1024 past the buffer", 6, 2, 1024, 0, FECD_PROTO_ETRUNCATED},
	    {"format 0", 12, 1, 0, 0, FECD_PROTO_EFORMAT},
	    {"format 6", 12, 1, 6, 0, FECD_PROTO_EFORMAT},
	    {"format 255", 12, 1, 255, 0, FECD_PROTO_EFORMAT},
	    {"unknown flag 0x10", 14, 2, 0x0010, 0, FECD_PROTO_EFLAGS},
	    {"unknown flag 0x8000", 14, 2, 0x8001, 0, FECD_PROTO_EFLAGS},
	    {"zero symbols without EOS", 24, 4, 0, 0, FECD_PROTO_ELENGTH},
	    {"symbol_count 0xFFFFFFFF", 24, 4, 0xffffffffu, 0, FECD_PROTO_ETOO_LARGE},
	    {"payload just over the max (s8)", 24, 4, FECD_MAX_PAYLOAD_BYTES + 1, 0,
	     FECD_PROTO_ETOO_LARGE},
	};
	struct fecd_in_hdr base = sample_in(), out;
	uint8_t good[FECD_IN_HDR_LEN], buf[FECD_IN_HDR_LEN];

	fecd_in_hdr_pack(&base, good);

	/* Truncated at every length below the fixed header. */
	for (size_t len = 0; len < FECD_IN_HDR_LEN; len++) {
		int r = in_parse_exact(good, len, &out);
		CHECK(r == -FECD_PROTO_ETRUNCATED, "truncated to %zu: got %d", len, r);
		CHECK(strlen(fecd_proto_strerror(r)) > 0, "message for truncation");
	}
	CHECK(fecd_in_hdr_parse(NULL, 32, &out) == -FECD_PROTO_ETRUNCATED, "NULL buffer");

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct bad_in *row = &rows[i];
		memcpy(buf, good, sizeof(buf));
		put_le(buf + row->off, row->width, row->value);
		int r = in_parse_exact(buf, row->len ? row->len : sizeof(buf), &out);
		CHECK(r == -row->err, "%s: got %d (%s), want %d", row->what, r,
		      fecd_proto_strerror(r), -row->err);
		const char *msg = fecd_proto_strerror(r);
		CHECK(msg && *msg && strcmp(msg, "ok") != 0, "%s: message", row->what);
	}

	/* f32 at the exact maximum is fine, one more symbol is not. */
	memcpy(buf, good, sizeof(buf));
	buf[12] = FECD_FMT_F32_LLR;
	put_le(buf + 24, 4, FECD_MAX_PAYLOAD_BYTES / 4);
	CHECK(in_parse_exact(buf, sizeof(buf), &out) == 0, "f32 at the max");
	put_le(buf + 24, 4, FECD_MAX_PAYLOAD_BYTES / 4 + 1);
	CHECK(in_parse_exact(buf, sizeof(buf), &out) == -FECD_PROTO_ETOO_LARGE, "f32 over");
	buf[12] = FECD_FMT_S4_PACKED;
	put_le(buf + 24, 4, FECD_MAX_PAYLOAD_BYTES * 2u);
	CHECK(in_parse_exact(buf, sizeof(buf), &out) == 0, "s4 at the max");
	put_le(buf + 24, 4, FECD_MAX_PAYLOAD_BYTES * 2u + 1);
	CHECK(in_parse_exact(buf, sizeof(buf), &out) == -FECD_PROTO_ETOO_LARGE, "s4 over");
}

static void test_payload_lengths(void)
{
	static const struct {
		int fmt;
		uint32_t count;
		size_t ok_len;
	} rows[] = {
	    {FECD_FMT_F32_LLR, 1, 4},   {FECD_FMT_F32_LLR, 3, 12},   {FECD_FMT_S8_LLR, 1, 1},
	    {FECD_FMT_S8_LLR, 77, 77},  {FECD_FMT_U8_OFFSET, 1, 1},  {FECD_FMT_U8_OFFSET, 300, 300},
	    {FECD_FMT_S4_PACKED, 1, 1}, {FECD_FMT_S4_PACKED, 2, 1},  {FECD_FMT_S4_PACKED, 3, 2},
	    {FECD_FMT_S4_PACKED, 9, 5}, {FECD_FMT_S4_PACKED, 10, 5},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fecd_in_hdr h = sample_in();
		h.format = (uint8_t)rows[i].fmt;
		h.symbol_count = rows[i].count;
		size_t n = rows[i].ok_len;
		CHECK(fecd_format_bytes(rows[i].fmt, rows[i].count) == n, "bytes row %zu", i);
		CHECK(fecd_in_payload_check(&h, n) == 0, "row %zu exact", i);
		CHECK(fecd_in_payload_check(&h, n - 1) == -FECD_PROTO_ELENGTH, "row %zu short", i);
		CHECK(fecd_in_payload_check(&h, n + 1) == -FECD_PROTO_ELENGTH, "row %zu long", i);
		CHECK(fecd_in_payload_check(&h, 0) == -FECD_PROTO_ELENGTH, "row %zu empty", i);
	}
	struct fecd_in_hdr h = sample_in();
	CHECK(fecd_in_payload_check(&h, (size_t)FECD_MAX_PAYLOAD_BYTES + 1) ==
	          -FECD_PROTO_ETOO_LARGE,
	      "oversized payload");
	h.format = 9;
	CHECK(fecd_in_payload_check(&h, 1000) == -FECD_PROTO_EFORMAT, "unknown format payload");

	CHECK(fecd_format_bytes(0, 10) == 0 && fecd_format_bytes(6, 10) == 0, "unknown format 0");
	CHECK(fecd_format_bytes(FECD_FMT_F32_LLR, SIZE_MAX / 2) == SIZE_MAX, "saturates");
	CHECK(fecd_format_bytes(FECD_FMT_S4_PACKED, 0) == 0, "zero symbols");
}

static void test_out_bad_table(void)
{
	static const struct bad_in rows[] = {
	    {"wrong magic", 0, 4, 0, 0, FECD_PROTO_EMAGIC},
	    {"version 0", 4, 1, 0, 0, FECD_PROTO_EVERSION},
	    {"version 2", 4, 1, 2, 0, FECD_PROTO_EVERSION},
	    {"type symbols", 5, 1, FECD_MSG_SYMBOLS, 0, FECD_PROTO_ETYPE},
	    {"hdr_len 79", 6, 2, 79, 0, FECD_PROTO_EHDRLEN},
	    {"hdr_len 2000", 6, 2, 2000, 0, FECD_PROTO_EHDRLEN},
	    {"hdr_len past the buffer", 6, 2, FECD_OUT_HDR_LEN + 1, 0, FECD_PROTO_ETRUNCATED},
	    {"family 0", 12, 1, 0, 0, FECD_PROTO_EFAMILY},
	    {"family 6", 12, 1, 6, 0, FECD_PROTO_EFAMILY},
	    {"status 3", 13, 1, 3, 0, FECD_PROTO_ESTATUS},
	    {"status 255", 13, 1, 255, 0, FECD_PROTO_ESTATUS},
	    {"unknown flag", 14, 2, 0x0010, 0, FECD_PROTO_EFLAGS},
	    {"soft values without the flag", 14, 2, FECD_OUT_STREAM, 0, FECD_PROTO_ELENGTH},
	    {"soft_count huge", 64, 4, 0xffffffffu, 0, FECD_PROTO_ETOO_LARGE},
	};
	struct fecd_out_hdr base = sample_out(), out;
	uint8_t good[FECD_OUT_HDR_LEN], buf[FECD_OUT_HDR_LEN];

	fecd_out_hdr_pack(&base, good);
	for (size_t len = 0; len < FECD_OUT_HDR_LEN; len++)
		CHECK(out_parse_exact(good, len, &out) == -FECD_PROTO_ETRUNCATED,
		      "output truncated to %zu", len);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memcpy(buf, good, sizeof(buf));
		put_le(buf + rows[i].off, rows[i].width, rows[i].value);
		int r = out_parse_exact(buf, sizeof(buf), &out);
		CHECK(r == -rows[i].err, "%s: got %d (%s)", rows[i].what, r,
		      fecd_proto_strerror(r));
	}
}

static void test_tables(void)
{
	CHECK(strcmp(fecd_proto_strerror(0), "ok") == 0, "ok message");
	for (int e = 1; e <= proto_nerr; e++) {
		const char *m = fecd_proto_strerror(-e);
		CHECK(m && *m && strcmp(m, "unknown protocol error") != 0, "message for %d", e);
		CHECK(fecd_proto_strerror(e) == m, "positive code %d", e);
		for (int f = 1; f < e; f++)
			CHECK(strcmp(m, fecd_proto_strerror(-f)) != 0, "messages %d/%d differ", e,
			      f);
	}
	CHECK(strcmp(fecd_proto_strerror(-proto_nerr - 1), "unknown protocol error") == 0,
	      "beyond");
	CHECK(strcmp(fecd_proto_strerror(-2147483647 - 1), "unknown protocol error") == 0,
	      "INT_MIN");

#define X(name, val, str, bits)                                                                    \
	CHECK(strcmp(fecd_format_name(val), str) == 0 && fecd_format_from_name(str) == val,        \
	      "format %s", str);
	FECD_FORMAT_MAP(X)
#undef X
#define X(name, val, str)                                                                          \
	CHECK(strcmp(fecd_family_name(val), str) == 0 && fecd_family_from_name(str) == val,        \
	      "family %s", str);
	FECD_FAMILY_MAP(X)
#undef X
#define X(name, val, str)                                                                          \
	CHECK(strcmp(fecd_status_name(val), str) == 0 && fecd_status_from_name(str) == val,        \
	      "status %s", str);
	FECD_STATUS_MAP(X)
#undef X
	CHECK(fecd_format_name(0) == NULL && fecd_format_from_name("f64") == -1, "unknown format");
	CHECK(fecd_family_name(99) == NULL && fecd_family_from_name(NULL) == -1, "unknown family");
	CHECK(fecd_status_name(-1) == NULL && fecd_status_from_name("") == -1, "unknown status");
	CHECK(fecd_format_from_name("F32") == -1, "names are case-sensitive");
}

/* Mutations of valid headers: only 0 or a defined error, and a success must be self-consistent. */
static void test_fuzz(void)
{
	uint8_t in_good[FECD_IN_HDR_LEN], out_good[FECD_OUT_HDR_LEN], buf[256];
	struct fecd_in_hdr ih = sample_in(), iout;
	struct fecd_out_hdr oh = sample_out(), oout;
	unsigned in_ok = 0, out_ok = 0, bad = 0;

	fecd_in_hdr_pack(&ih, in_good);
	fecd_out_hdr_pack(&oh, out_good);
	test_rng_seed(20240601);
	for (int it = 0; it < 20000; it++) {
		bool input = it & 1;
		size_t len = input ? sizeof(in_good) : sizeof(out_good);
		memcpy(buf, input ? in_good : out_good, len);
		len = mutate(buf, len, sizeof(buf));
		uint8_t *copy = dup_exact(buf, len);
		if (input) {
			int r = fecd_in_hdr_parse(copy, len, &iout);
			if (!is_defined_result(r))
				bad++;
			if (r == 0) {
				in_ok++;
				if (iout.hdr_len > len || iout.hdr_len < FECD_IN_HDR_LEN ||
				    fecd_in_payload_check(
				        &iout, fecd_format_bytes(iout.format, iout.symbol_count)))
					bad++;
			}
		} else {
			int r = fecd_out_hdr_parse(copy, len, &oout);
			if (!is_defined_result(r))
				bad++;
			if (r == 0) {
				out_ok++;
				if (oout.hdr_len > len || !fecd_status_name(oout.status))
					bad++;
			}
		}
		free(copy);
	}
	CHECK(bad == 0, "%u fuzz results outside the defined set", bad);
	CHECK(in_ok > 0 && out_ok > 0, "some mutations still parse (%u, %u)", in_ok, out_ok);
}

/* The fields that took reserved bytes (work at 20, soft_per_unit at 70, soft_kind at 76), what
 * a header from before them reads as, and the soft layouts refused. */
static void test_out_soft_work(void)
{
	struct fecd_out_hdr h = sample_out(), back;
	uint8_t buf[FECD_OUT_HDR_LEN];

	h.family = FECD_FAMILY_NBLDPC;
	h.flags = FECD_OUT_SOFT;
	h.work = 70000;
	h.iterations = 65535;
	h.soft_kind = FECD_SOFT_SYM_LOGP;
	h.soft_per_unit = 16;
	h.soft_count = 16 * 10;
	fecd_out_hdr_pack(&h, buf);
	CHECK(buf[20] == (70000 & 0xff) && buf[21] == ((70000 >> 8) & 0xff) && buf[22] == 1 &&
	          buf[23] == 0,
	      "work LE at 20");
	CHECK(buf[70] == 16 && buf[71] == 0, "soft_per_unit at 70");
	CHECK(buf[76] == FECD_SOFT_SYM_LOGP, "soft_kind at 76");
	for (int i = 77; i < 80; i++)
		CHECK(buf[i] == 0, "reserved byte %d zero", i);
	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0, "sym_logp parses");
	CHECK(back.work == 70000 && back.iterations == 65535 && back.soft_kind == FECD_SOFT_SYM_LOGP &&
	          back.soft_per_unit == 16 && back.soft_count == 160,
	      "round trip: work %u kind %u per %u", back.work, back.soft_kind, back.soft_per_unit);
	CHECK(fecd_out_soft_units(&back) == 10, "10 symbols of soft output");
	CHECK(fecd_out_payload_check(&back, (back.payload_bits + 7) / 8, 160 * 4) == 0, "sizes");

	/* A header from before the fields: soft output as bit LLRs, work from iterations. */
	h = sample_out();
	fecd_out_hdr_pack(&h, buf);
	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0, "old header parses");
	CHECK(back.soft_kind == FECD_SOFT_BIT_LLR && back.soft_per_unit == 1,
	      "FECD_OUT_SOFT with soft_kind 0 reads as bit_llr, got %u/%u", back.soft_kind,
	      back.soft_per_unit);
	CHECK(back.work == 12 && back.iterations == 12, "work 0 reads as iterations, got %u",
	      back.work);
	CHECK(fecd_out_soft_units(&back) == 2041, "one unit per bit");
	h.flags &= (uint16_t)~FECD_OUT_SOFT;
	h.soft_count = 0;
	h.iterations = 0;
	fecd_out_hdr_pack(&h, buf);
	CHECK(out_parse_exact(buf, sizeof(buf), &back) == 0 && back.soft_kind == FECD_SOFT_NONE &&
	          back.soft_per_unit == 0 && back.work == 0 && fecd_out_soft_units(&back) == 0,
	      "no soft output, no work");

	static const struct {
		const char *what;
		uint16_t flags;
		uint8_t kind;
		uint16_t per;
		uint32_t count;
		int err;
	} rows[] = {
	    {"bit_llr", FECD_OUT_SOFT, FECD_SOFT_BIT_LLR, 1, 100, 0},
	    {"sym_logp q=2", FECD_OUT_SOFT, FECD_SOFT_SYM_LOGP, 2, 100, 0},
	    {"unknown soft_kind", FECD_OUT_SOFT, 3, 1, 100, FECD_PROTO_ESOFT},
	    {"bit_llr with 2 per unit", FECD_OUT_SOFT, FECD_SOFT_BIT_LLR, 2, 100, FECD_PROTO_ESOFT},
	    {"sym_logp with 1 per unit", FECD_OUT_SOFT, FECD_SOFT_SYM_LOGP, 1, 100,
	     FECD_PROTO_ESOFT},
	    {"soft_per_unit without a kind", FECD_OUT_SOFT, 0, 4, 100, FECD_PROTO_ESOFT},
	    {"soft_kind without FECD_OUT_SOFT", 0, FECD_SOFT_BIT_LLR, 1, 0, FECD_PROTO_ESOFT},
	    {"soft_per_unit without FECD_OUT_SOFT", 0, 0, 1, 0, FECD_PROTO_ESOFT},
	    {"soft_count not whole units", FECD_OUT_SOFT, FECD_SOFT_SYM_LOGP, 16, 161,
	     FECD_PROTO_ELENGTH},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		h = sample_out();
		h.flags = rows[i].flags;
		h.soft_kind = rows[i].kind;
		h.soft_per_unit = rows[i].per;
		h.soft_count = rows[i].count;
		fecd_out_hdr_pack(&h, buf);
		int r = out_parse_exact(buf, sizeof(buf), &back);
		CHECK(r == -rows[i].err, "%s: got %d (%s)", rows[i].what, r, fecd_proto_strerror(r));
	}

	/* Soft values read from part 3 at any alignment, little-endian; 0 past its end. */
	uint8_t part3[1 + 8] = {0xee, 0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x20, 0xc1};
	CHECK(fecd_out_soft_value(part3 + 1, 8, 0) == 1.5f, "value 0");
	CHECK(fecd_out_soft_value(part3 + 1, 8, 1) == -10.0f, "value 1");
	CHECK(fecd_out_soft_value(part3 + 1, 8, 2) == 0.0f && fecd_out_soft_value(NULL, 8, 0) == 0,
	      "past the end");

#define X(name, val, str)                                                                          \
	CHECK(strcmp(fecd_soft_name(val), str) == 0 && fecd_soft_from_name(str) == val,            \
	      "soft kind %s", str);
	FECD_SOFT_MAP(X)
#undef X
	CHECK(fecd_soft_name(3) == NULL && fecd_soft_from_name("llr") == -1, "unknown soft kind");
}

/* The vector format f32v: q float32 values per symbol, q from the channel's code. */
static void test_f32v(void)
{
	struct fecd_in_hdr h = sample_in(), back;
	uint8_t buf[FECD_IN_HDR_LEN];

	CHECK(fecd_format_is_vector(FECD_FMT_F32V) && !fecd_format_is_vector(FECD_FMT_F32_LLR) &&
	          !fecd_format_is_vector(0),
	      "f32v is the vector format");
	CHECK(fecd_format_bytes_q(FECD_FMT_F32V, 10, 16) == 640, "10 symbols of q=16");
	CHECK(fecd_format_bytes(FECD_FMT_F32V, 10) == 40 &&
	          fecd_format_bytes_q(FECD_FMT_F32V, 10, 0) == 40,
	      "q 1 (or 0, read as 1)");
	CHECK(fecd_format_bytes_q(FECD_FMT_S8_LLR, 10, 16) == 10 &&
	          fecd_format_bytes_q(FECD_FMT_S4_PACKED, 3, 16) == 2,
	      "bit formats ignore q");
	CHECK(fecd_format_bytes_q(FECD_FMT_F32V, SIZE_MAX / 8, 256) == SIZE_MAX, "saturates");
	CHECK(fecd_format_bytes_q(9, 10, 4) == 0, "unknown format");

	h.format = FECD_FMT_F32V;
	h.symbol_count = 100;
	fecd_in_hdr_pack(&h, buf);
	CHECK(in_parse_exact(buf, sizeof(buf), &back) == 0 && back.format == FECD_FMT_F32V,
	      "an f32v header parses");
	CHECK(fecd_in_payload_check_q(&back, 100 * 4 * 64, 64) == 0, "exact q=64 payload");
	CHECK(fecd_in_payload_check_q(&back, 100 * 4 * 64 - 4, 64) == -FECD_PROTO_ELENGTH,
	      "a value short");
	CHECK(fecd_in_payload_check_q(&back, 100 * 4 * 64 + 1, 64) == -FECD_PROTO_ELENGTH,
	      "a byte long");
	CHECK(fecd_in_payload_check(&back, 400) == 0, "payload_check is q = 1");
	back.symbol_count = FECD_MAX_PAYLOAD_BYTES / 4 / 256 + 1;
	CHECK(fecd_in_payload_check_q(&back, 4096, 256) == -FECD_PROTO_ETOO_LARGE,
	      "q makes it too large");
}

int main(void)
{
	test_in_layout_and_round_trip();
	test_out_layout_and_round_trip();
	test_out_end_cause();
	test_out_instance();
	test_in_bad_table();
	test_payload_lengths();
	test_out_bad_table();
	test_tables();
	test_out_soft_work();
	test_f32v();
	test_fuzz();
	return check_done();
}
