/*
 * The gr-zeromq pass_tags header writer and the malformed-message table of fecd-feed (see
 * feed_wire.h). The tag header is host order in gr-zeromq, i.e. little-endian on every machine
 * GNU Radio runs on, which is what PROTOCOL.md specifies; PMTs inside it are big-endian, as
 * pmt::serialize writes them. Byte offsets of the native input header are PROTOCOL.md's table.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <zmq.h>

#include "common.h"
#include "feed_wire.h"

/* PMT serialization type bytes (pmt_serial_tags). */
#define PST_SYMBOL 0x02
#define PST_UINT64 0x0b

/* Native input header offsets (PROTOCOL.md "Input header"). */
#define IN_OFF_MAGIC        0
#define IN_OFF_VERSION      4
#define IN_OFF_TYPE         5
#define IN_OFF_HDR_LEN      6
#define IN_OFF_CHANNEL      8
#define IN_OFF_FORMAT       12
#define IN_OFF_FLAGS        14
#define IN_OFF_SYMBOL_COUNT 24

static size_t pmt_symbol(uint8_t *p, const char *s)
{
	size_t n = strlen(s);

	p[0] = PST_SYMBOL;
	p[1] = (uint8_t)(n >> 8);
	p[2] = (uint8_t)n;
	memcpy(p + 3, s, n);
	return 3 + n;
}

static size_t pmt_u64(uint8_t *p, uint64_t v)
{
	p[0] = PST_UINT64;
	for (int i = 0; i < 8; i++)
		p[1 + i] = (uint8_t)(v >> (56 - 8 * i));
	return 9;
}

size_t gr_tag_header_write(uint8_t *buf, uint64_t offset, bool with_tag, uint64_t tag_value)
{
	size_t n = 0;

	buf[n++] = FECD_GR_TAG_MAGIC & 0xff;
	buf[n++] = FECD_GR_TAG_MAGIC >> 8;
	buf[n++] = FECD_GR_TAG_VERSION;
	put_le64(buf + n, offset);
	n += 8;
	put_le64(buf + n, with_tag ? 1 : 0);
	n += 8;
	if (with_tag) {
		put_le64(buf + n, offset);
		n += 8;
		n += pmt_symbol(buf + n, "fecd_feed");
		n += pmt_u64(buf + n, tag_value);
		n += pmt_symbol(buf + n, "fecd-feed");
	}
	return n;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One malformed message: up to three parts, built from the good header and payload. */
struct bad_msg {
	uint8_t hdr[FECD_IN_HDR_LEN];
	size_t hdr_len;
	const uint8_t *payload;
	size_t payload_len;
	unsigned parts; /* 1: header only, 2: header + payload, 3: plus an extra part */
};

typedef void (*bad_mutate_fn)(struct bad_msg *m);

static void bad_truncated_header(struct bad_msg *m)
{
	m->hdr_len = 20;
}
static void bad_magic(struct bad_msg *m)
{
	m->hdr[IN_OFF_MAGIC] ^= 0xff;
}
static void bad_version(struct bad_msg *m)
{
	m->hdr[IN_OFF_VERSION] = FECD_PROTO_VERSION + 1;
}
static void bad_type(struct bad_msg *m)
{
	m->hdr[IN_OFF_TYPE] = FECD_MSG_DECODED;
}
static void bad_hdr_len_small(struct bad_msg *m)
{
	put_le16(m->hdr + IN_OFF_HDR_LEN, 16);
}
static void bad_hdr_len_past_end(struct bad_msg *m)
{
	put_le16(m->hdr + IN_OFF_HDR_LEN, 900);
}
static void bad_format(struct bad_msg *m)
{
	m->hdr[IN_OFF_FORMAT] = 99;
}
static void bad_flags(struct bad_msg *m)
{
	m->hdr[IN_OFF_FLAGS + 1] |= 0x80;
}
static void bad_length(struct bad_msg *m)
{
	m->payload_len--;
}
static void bad_channel(struct bad_msg *m)
{
	uint32_t ch = 0;

	for (int i = 3; i >= 0; i--)
		ch = ch << 8 | m->hdr[IN_OFF_CHANNEL + i];
	put_le32(m->hdr + IN_OFF_CHANNEL, ch + 1000);
}
static void bad_three_parts(struct bad_msg *m)
{
	m->parts = 3;
}
static void bad_header_only(struct bad_msg *m)
{
	m->parts = 1;
}
static void bad_huge_count(struct bad_msg *m)
{
	put_le32(m->hdr + IN_OFF_SYMBOL_COUNT, 0xffffffffu);
}
static void bad_garbage(struct bad_msg *m)
{
	for (size_t i = 0; i < sizeof(m->hdr); i++)
		m->hdr[i] = (uint8_t)(i * 151u + 17u);
	m->parts = 1;
}
static void bad_empty(struct bad_msg *m)
{
	m->hdr_len = 0;
	m->payload_len = 0;
}

#define FEED_BAD_MAP(X)                                                                            \
	X(truncated_header)                                                                        \
	X(magic)                                                                                   \
	X(version)                                                                                 \
	X(type)                                                                                    \
	X(hdr_len_small)                                                                           \
	X(hdr_len_past_end)                                                                        \
	X(format)                                                                                  \
	X(flags)                                                                                   \
	X(length)                                                                                  \
	X(channel)                                                                                 \
	X(three_parts)                                                                             \
	X(header_only)                                                                             \
	X(huge_count)                                                                              \
	X(garbage)                                                                                 \
	X(empty)

static const struct {
	const char *name;
	bad_mutate_fn mutate;
} feed_bad_table[] = {
#define X(n) {#n, bad_##n},
    FEED_BAD_MAP(X)
#undef X
};

unsigned feed_bad_count(void)
{
	return sizeof(feed_bad_table) / sizeof(feed_bad_table[0]);
}

const char *feed_bad_name(unsigned i)
{
	return i < feed_bad_count() ? feed_bad_table[i].name : "?";
}

static int send_or_report(void *sock, const void *buf, size_t len, int flags, unsigned i)
{
	while (zmq_send(sock, buf, len, flags) < 0) {
		if (errno == EINTR)
			continue;
		fprintf(stderr, "fecd-feed: sending malformed message '%s': %s\n", feed_bad_name(i),
		        zmq_strerror(errno));
		return -1;
	}
	return 0;
}

int feed_bad_send(void *sock, const struct fecd_in_hdr *h, const uint8_t *payload, size_t len,
                  unsigned i)
{
	static const uint8_t extra[4] = {1, 2, 3, 4};
	struct bad_msg m = {
	    .hdr_len = FECD_IN_HDR_LEN, .payload = payload, .payload_len = len, .parts = 2};

	if (i >= feed_bad_count() || !len)
		return -1;
	fecd_in_hdr_pack(h, m.hdr);
	feed_bad_table[i].mutate(&m);
	if (send_or_report(sock, m.hdr, m.hdr_len, m.parts > 1 ? ZMQ_SNDMORE : 0, i))
		return -1;
	if (m.parts > 1 &&
	    send_or_report(sock, m.payload, m.payload_len, m.parts > 2 ? ZMQ_SNDMORE : 0, i))
		return -1;
	if (m.parts > 2 && send_or_report(sock, extra, sizeof(extra), 0, i))
		return -1;
	return 0;
}
