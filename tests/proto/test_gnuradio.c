/*
 * Unit test of the GNU Radio input side of the protocol: the gr-zeromq pass_tags header and PMT
 * skipping (valid headers with tags of every PMT type, truncation at every byte, lying lengths,
 * nesting bombs, huge counts) and a seeded mutation loop. The PMTs here come from a writer of the
 * test's own, following GNU Radio's pmt_serialize.cc, independent of the library's writer.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fecd_proto.h"
#include "util.h"

/* ---- a small PMT writer, following GNU Radio's pmt_serialize.cc format ---- */

struct tb {
	uint8_t *b;
	size_t n, cap;
};

static void tb_init(struct tb *t, size_t cap)
{
	t->b = malloc(cap);
	if (!t->b)
		abort();
	t->n = 0;
	t->cap = cap;
}

static void tb_u8(struct tb *t, uint8_t v)
{
	if (t->n == t->cap)
		abort();
	t->b[t->n++] = v;
}

static void tb_be(struct tb *t, uint64_t v, unsigned bytes)
{
	while (bytes--)
		tb_u8(t, (uint8_t)(v >> (8 * bytes)));
}

static void tb_le(struct tb *t, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		tb_u8(t, (uint8_t)(v >> (8 * i)));
}

static void p_true(struct tb *t)
{
	tb_u8(t, 0x00);
}
static void p_false(struct tb *t)
{
	tb_u8(t, 0x01);
}
static void p_null(struct tb *t)
{
	tb_u8(t, 0x06);
}
static void p_pair(struct tb *t)
{
	tb_u8(t, 0x07);
} /* then car, then cdr */
static void p_dict_cell(struct tb *t)
{
	tb_u8(t, 0x09);
}

static void p_sym(struct tb *t, const char *s)
{
	tb_u8(t, 0x02);
	tb_be(t, strlen(s), 2);
	for (; *s; s++)
		tb_u8(t, (uint8_t)*s);
}

static void p_i32(struct tb *t, int32_t v)
{
	tb_u8(t, 0x03);
	tb_be(t, (uint32_t)v, 4);
}

static void p_f64(struct tb *t, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	tb_u8(t, 0x04);
	tb_be(t, u, 8);
}

static void p_complex(struct tb *t, double re, double im)
{
	uint64_t a, b;
	memcpy(&a, &re, 8);
	memcpy(&b, &im, 8);
	tb_u8(t, 0x05);
	tb_be(t, a, 8);
	tb_be(t, b, 8);
}

static void p_u64(struct tb *t, uint64_t v)
{
	tb_u8(t, 0x0b);
	tb_be(t, v, 8);
}

static void p_i64(struct tb *t, int64_t v)
{
	tb_u8(t, 0x0d);
	tb_be(t, (uint64_t)v, 8);
}

static void p_vector(struct tb *t, uint32_t n) /* then n objects */
{
	tb_u8(t, 0x08);
	tb_be(t, n, 4);
}

static void p_tuple(struct tb *t, uint32_t n) /* then n objects */
{
	tb_u8(t, 0x0c);
	tb_be(t, n, 4);
}

/* A uniform vector of n items of item_size bytes, with npad padding bytes. */
static void p_uvec(struct tb *t, uint8_t type, uint32_t n, unsigned item_size, uint8_t npad)
{
	tb_u8(t, 0x0a);
	tb_u8(t, type);
	tb_be(t, n, 4);
	tb_u8(t, npad);
	for (unsigned i = 0; i < npad; i++)
		tb_u8(t, 0);
	for (uint64_t i = 0; i < (uint64_t)n * item_size; i++)
		tb_u8(t, (uint8_t)(i * 37 + 1));
}

/* ---- gr-zeromq tag header ---- */

static void gr_head(struct tb *t, uint64_t offset, uint64_t ntags)
{
	tb_le(t, 0x5ff0, 2);
	tb_u8(t, 1);
	tb_le(t, offset, 8);
	tb_le(t, ntags, 8);
}

static int gr_parse_exact(const uint8_t *b, size_t len, size_t *hdr_len, uint64_t *offset)
{
	uint8_t *copy = dup_exact(b, len);
	int r = fecd_gr_tag_header_parse(copy, len, hdr_len, offset);
	free(copy);
	return r;
}

static long skip_exact(const uint8_t *b, size_t len)
{
	uint8_t *copy = dup_exact(b, len);
	long r = fecd_pmt_skip(copy, len);
	free(copy);
	return r;
}

/* Parses a header built in t followed by payload bytes; then every truncation inside it. */
static void check_header(struct tb *t, uint64_t offset, const char *what)
{
	size_t hdr = t->n, got = 0;
	uint64_t off = 0;

	for (int i = 0; i < 12; i++) /* twelve bytes of "items" after the header */
		tb_u8(t, (uint8_t)(0xf0 + i));
	int r = gr_parse_exact(t->b, t->n, &got, &off);
	CHECK(r == 0, "%s: parse %d (%s)", what, r, fecd_proto_strerror(r));
	CHECK(got == hdr, "%s: header length %zu, want %zu", what, got, hdr);
	CHECK(off == offset, "%s: offset", what);
	/* The header alone, as a separate ZMQ part, measures the same. */
	CHECK(gr_parse_exact(t->b, hdr, &got, &off) == 0 && got == hdr, "%s: header only", what);

	unsigned wrong = 0;
	for (size_t len = 0; len < hdr; len++) {
		r = gr_parse_exact(t->b, len, &got, &off);
		if (r != -FECD_PROTO_EGR_TAGS && r != -FECD_PROTO_EPMT)
			wrong++;
	}
	CHECK(wrong == 0, "%s: %u truncations not refused", what, wrong);
}

static void test_gr_valid(void)
{
	struct tb t;

	tb_init(&t, 1 << 16);
	gr_head(&t, 123456789, 0);
	check_header(&t, 123456789, "no tags");

	/* One tag as UHD sends it: rx_time = (full seconds . fraction) tuple. */
	t.n = 0;
	gr_head(&t, 1000, 1);
	tb_le(&t, 1003, 8);
	p_sym(&t, "rx_time");
	p_tuple(&t, 2);
	p_u64(&t, 1700000000);
	p_f64(&t, 0.25);
	p_sym(&t, "usrp_source1");
	check_header(&t, 1000, "one tag");

	/* Three tags: int32 with srcid #f, bool with srcid (), double with a symbol srcid. */
	t.n = 0;
	gr_head(&t, 0, 3);
	tb_le(&t, 0, 8);
	p_sym(&t, "packet_len");
	p_i32(&t, 256);
	p_false(&t);
	tb_le(&t, 4, 8);
	p_sym(&t, "burst");
	p_true(&t);
	p_null(&t);
	tb_le(&t, 7, 8);
	p_sym(&t, "rx_freq");
	p_f64(&t, 437.5e6);
	p_sym(&t, "src");
	check_header(&t, 0, "three tags");

	/* Every PMT type GNU Radio serializes, as tag values. */
	static const struct {
		uint8_t type;
		unsigned size;
	} uvi[] = {{0x00, 1}, {0x01, 1}, {0x02, 2}, {0x03, 2}, {0x04, 4}, {0x05, 4},
	           {0x06, 8}, {0x07, 8}, {0x08, 4}, {0x09, 8}, {0x0a, 8}, {0x0b, 16}};
	unsigned nvals = 9 + sizeof(uvi) / sizeof(uvi[0]);
	t.n = 0;
	gr_head(&t, 77, nvals);
	for (unsigned v = 0; v < nvals; v++) {
		tb_le(&t, 77 + v, 8);
		p_sym(&t, "k");
		size_t start = t.n;
		switch (v) {
		case 0:
			p_complex(&t, 1.5, -2.5);
			break;
		case 1:
			p_i64(&t, -5000000000ll);
			break;
		case 2:
			p_vector(&t, 0);
			break;
		case 3: /* vector of mixed objects, one of them a list */
			p_vector(&t, 3);
			p_i32(&t, -1);
			p_sym(&t, "x");
			p_pair(&t);
			p_i32(&t, 1);
			p_pair(&t);
			p_i32(&t, 2);
			p_null(&t);
			break;
		case 4: /* a dict as current GNU Radio writes it: {a: 1, b: 2.0} */
			p_dict_cell(&t);
			p_pair(&t);
			p_sym(&t, "a");
			p_u64(&t, 1);
			p_dict_cell(&t);
			p_pair(&t);
			p_sym(&t, "b");
			p_f64(&t, 2.0);
			p_null(&t);
			break;
		case 5: /* a long list: walked without recursion */
			for (int i = 0; i < 2000; i++) {
				p_pair(&t);
				p_i32(&t, i);
			}
			p_null(&t);
			break;
		case 6: /* nesting exactly at the limit */
			for (int i = 0; i < FECD_PMT_MAX_DEPTH; i++)
				p_vector(&t, 1);
			p_true(&t);
			break;
		case 7: /* uniform vector with unusual padding */
			p_uvec(&t, 0x00, 5, 1, 3);
			break;
		case 8:
			p_tuple(&t, 0);
			break;
		default:
			p_uvec(&t, uvi[v - 9].type, 3, uvi[v - 9].size, 1);
			break;
		}
		long sz = skip_exact(t.b + start, t.n - start);
		CHECK(sz == (long)(t.n - start), "value %u: skip %ld of %zu", v, sz, t.n - start);
		p_sym(&t, "src");
	}
	check_header(&t, 77, "every type");
	free(t.b);
}

/* A header with one tag whose value is the given raw bytes; returns the parse result. */
static int parse_with_value(const uint8_t *value, size_t n)
{
	struct tb t;
	tb_init(&t, n + 64);
	gr_head(&t, 0, 1);
	tb_le(&t, 0, 8);
	p_sym(&t, "k");
	for (size_t i = 0; i < n; i++)
		tb_u8(&t, value[i]);
	p_null(&t);
	size_t hl;
	int r = gr_parse_exact(t.b, t.n, &hl, NULL);
	free(t.b);
	return r;
}

static void test_gr_bad(void)
{
	struct tb t;
	size_t hl;
	uint64_t off;

	tb_init(&t, 1 << 20);
	gr_head(&t, 0, 0);
	t.b[0] = 0x5f; /* magic written big-endian */
	t.b[1] = 0xf0;
	CHECK(gr_parse_exact(t.b, t.n, &hl, &off) == -FECD_PROTO_EGR_TAGS, "byte-swapped magic");
	t.b[0] = 0xf0;
	t.b[1] = 0x5f;
	t.b[2] = 0;
	CHECK(gr_parse_exact(t.b, t.n, &hl, &off) == -FECD_PROTO_EGR_TAGS, "version 0");
	t.b[2] = 2;
	CHECK(gr_parse_exact(t.b, t.n, &hl, &off) == -FECD_PROTO_EGR_TAGS, "version 2 (GR 4.0)");
	CHECK(fecd_gr_tag_header_parse(NULL, 100, &hl, &off) == -FECD_PROTO_EGR_TAGS, "NULL");

	/* Huge and lying tag counts. */
	static const uint64_t counts[] = {1, 2, 0xffffffffull, 0x100000000ull, UINT64_MAX};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		t.n = 0;
		gr_head(&t, 0, counts[i]);
		for (int k = 0; k < 16; k++)
			tb_u8(&t, 0xee); /* items, not PMTs */
		int r = gr_parse_exact(t.b, t.n, &hl, &off);
		CHECK(r == -FECD_PROTO_EGR_TAGS || r == -FECD_PROTO_EPMT,
		      "tag count %llu over %zu bytes: %d", (unsigned long long)counts[i], t.n, r);
	}

	/* Values whose lengths lie, unknown tags, and what GNU Radio refuses. */
	static const struct {
		const char *what;
		const char *hex;
	} values[] = {
	    {"symbol length 0xffff", "02 ffff 41 42"},
	    {"vector count 0xffffffff", "08 ffffffff 06 06"},
	    {"tuple count 0x7fffffff", "0c 7fffffff 00"},
	    {"u8vector count 0xffffffff", "0a 00 ffffffff 01 00 01 02"},
	    {"c64 vector 0x20000000 items", "0a 0b 20000000 01 00 0000"},
	    {"npad past the end", "0a 00 00000001 ff 00"},
	    {"uniform type 0x0c", "0a 0c 00000001 01 00 00"},
	    {"uniform type big-endian bit", "0a 80 00000001 01 00 00"},
	    {"unknown tag 0x0e", "0e"},
	    {"unknown tag 0xff", "ff 00 00"},
	    {"comment", "3b 68 69 0a"},
	    {"int64 cut short", "0d 0003"},
	    {"double cut short", "04 00 00 00"},
	    {"complex cut short", "05 0000000000000000 00"},
	    {"pair without cdr", "07 01"},
	    {"dict cell without cdr", "09 07 02 0001 61 00"},
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint8_t raw[64];
		size_t n = hex_decode(values[i].hex, raw, sizeof(raw));
		/* Alone (so nothing follows the lie) and inside a tag header. */
		long s = skip_exact(raw, n);
		CHECK(s == -FECD_PROTO_EPMT, "%s: skip %ld", values[i].what, s);
		int r = parse_with_value(raw, n);
		CHECK(r == -FECD_PROTO_EPMT, "%s: header %d", values[i].what, r);
	}

	/* A symbol longer than GNU Radio's 1024-byte limit, complete in the buffer. */
	t.n = 0;
	tb_u8(&t, 0x02);
	tb_be(&t, 1025, 2);
	for (int i = 0; i < 1025; i++)
		tb_u8(&t, 'a');
	CHECK(skip_exact(t.b, t.n) == -FECD_PROTO_EPMT, "symbol of 1025 bytes");
	t.b[2] = 0x00; /* 1024 bytes: allowed */
	CHECK(skip_exact(t.b, t.n - 1) == (long)(t.n - 1), "symbol of 1024 bytes");

	/* Nesting bombs: each must be refused quickly, without exhausting the stack. */
	static const uint8_t bomb_units[][5] = {
	    {0x07},             /* (((((...  through car */
	    {0x09},             /* dict cells through car */
	    {0x08, 0, 0, 0, 1}, /* vectors of one vector */
	    {0x0c, 0, 0, 0, 1}, /* tuples of one tuple */
	};
	static const unsigned unit_len[] = {1, 1, 5, 5};
	for (size_t u = 0; u < 4; u++) {
		t.n = 0;
		while (t.n + unit_len[u] <= 200000)
			for (unsigned k = 0; k < unit_len[u]; k++)
				tb_u8(&t, bomb_units[u][k]);
		CHECK(skip_exact(t.b, t.n) == -FECD_PROTO_EPMT, "bomb %zu refused", u);
		CHECK(parse_with_value(t.b, t.n) == -FECD_PROTO_EPMT, "bomb %zu in a header", u);
	}
	/* One level past the limit is refused; at the limit (test_gr_valid) it is fine. */
	t.n = 0;
	for (int i = 0; i < FECD_PMT_MAX_DEPTH + 1; i++)
		p_vector(&t, 1);
	p_true(&t);
	CHECK(skip_exact(t.b, t.n) == -FECD_PROTO_EPMT, "depth limit + 1");
	/* Alternating pairs and vectors count the same depth. */
	t.n = 0;
	for (int i = 0; i < 40; i++) {
		if (i & 1) {
			p_vector(&t, 1);
		} else {
			p_pair(&t);
		}
	}
	p_true(&t);
	for (int i = 0; i < 20; i++)
		p_null(&t);
	CHECK(skip_exact(t.b, t.n) == -FECD_PROTO_EPMT, "mixed nesting over the limit");
	free(t.b);
}

static void test_gr_fuzz(void)
{
	struct tb t;
	uint8_t buf[512];
	unsigned bad = 0, ok = 0;

	tb_init(&t, 512);
	gr_head(&t, 5, 2);
	tb_le(&t, 5, 8);
	p_sym(&t, "rx_time");
	p_tuple(&t, 2);
	p_u64(&t, 17);
	p_f64(&t, 0.5);
	p_sym(&t, "src");
	tb_le(&t, 6, 8);
	p_sym(&t, "meta");
	p_dict_cell(&t);
	p_pair(&t);
	p_sym(&t, "a");
	p_uvec(&t, 0x08, 2, 4, 1);
	p_null(&t);
	p_false(&t);
	for (int i = 0; i < 8; i++)
		tb_u8(&t, 0x3f);

	test_rng_seed(77);
	for (int it = 0; it < 30000; it++) {
		size_t len = t.n;
		memcpy(buf, t.b, len);
		len = mutate(buf, len, sizeof(buf));
		uint8_t *copy = dup_exact(buf, len);
		size_t hl = SIZE_MAX;
		int r = fecd_gr_tag_header_parse(copy, len, &hl, NULL);
		if (!is_defined_result(r) || (r == 0 && hl > len))
			bad++;
		ok += r == 0;
		size_t from = len ? test_rng_below((uint32_t)len) : 0;
		long s = fecd_pmt_skip(copy + from, len - from);
		if (!is_defined_result(s < 0 ? s : 0) || (s >= 0 && (size_t)s > len - from))
			bad++;
		free(copy);
	}
	CHECK(bad == 0, "%u tag-header fuzz results out of the defined set", bad);
	CHECK(ok > 0, "some mutations still parse");
	free(t.b);
}

/* The library's writer against the test's own: byte-identical, parsed back, bounded by cap. */
static void test_gr_write(void)
{
	const struct fecd_gr_tag tags[2] = {
	    {.offset = 4096, .key = "rx_time", .value = 123456789, .srcid = "usrp"},
	    {.offset = 4100, .key = "burst", .value = 0, .srcid = ""},
	};
	uint8_t buf[256];
	struct tb t;
	size_t hl;
	uint64_t off;

	for (unsigned n = 0; n <= 2; n++) {
		tb_init(&t, 256);
		gr_head(&t, 4096, n);
		for (unsigned i = 0; i < n; i++) {
			tb_le(&t, tags[i].offset, 8);
			p_sym(&t, tags[i].key);
			p_u64(&t, tags[i].value);
			p_sym(&t, tags[i].srcid);
		}
		long w = fecd_gr_tag_header_write(buf, sizeof(buf), 4096, tags, n);
		CHECK(w == (long)t.n && !memcmp(buf, t.b, t.n), "%u tags: wrote %ld bytes, want %zu",
		      n, w, t.n);
		CHECK(gr_parse_exact(buf, t.n, &hl, &off) == 0 && hl == t.n && off == 4096,
		      "%u tags: parse back", n);
		CHECK(fecd_gr_tag_header_write(buf, t.n - 1, 4096, tags, n) == -FECD_PROTO_ENOSPACE,
		      "%u tags: one byte short of room", n);
		free(t.b);
	}
}

int main(void)
{
	test_gr_write();
	test_gr_valid();
	test_gr_bad();
	test_gr_fuzz();
	return check_done();
}
