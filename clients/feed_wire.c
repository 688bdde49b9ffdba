/*
 * The gr-zeromq pass_tags header writer, the malformed-message table and the oversized message
 * of fecd-feed (see feed_wire.h). Both wire forms come from proto/: the tag header from
 * fecd_gr_tag_header_write, the native header from fecd_in_hdr_pack.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "common.h"
#include "feed_wire.h"

size_t gr_tag_header_write(uint8_t *buf, uint64_t offset, bool with_tag, uint64_t tag_value)
{
	const struct fecd_gr_tag tag = {
	    .offset = offset, .key = "fecd_feed", .value = tag_value, .srcid = "fecd-feed"};
	long n = fecd_gr_tag_header_write(buf, GR_TAG_HEADER_MAX, offset, &tag, with_tag ? 1 : 0);

	return n > 0 ? (size_t)n : 0; /* cannot fail: fixed names, GR_TAG_HEADER_MAX fits them */
}

/* The envelope that fecd_in_hdr_pack always writes itself (PROTOCOL.md's input header table):
 * faults in it are byte edits after packing. */
enum { ENV_OFF_MAGIC = 0, ENV_OFF_VERSION = 4, ENV_OFF_TYPE = 5, ENV_OFF_HDR_LEN = 6 };

/* One malformed message: up to three parts, built from the good header and payload. A mutator
 * changes header fields (m->h) before packing, or, when m->packed, the packed bytes. */
struct bad_msg {
	struct fecd_in_hdr h;
	bool packed;
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
	if (m->packed)
		m->hdr[ENV_OFF_MAGIC] ^= 0xff;
}
static void bad_version(struct bad_msg *m)
{
	if (m->packed)
		m->hdr[ENV_OFF_VERSION] = FECD_PROTO_VERSION + 1;
}
static void bad_type(struct bad_msg *m)
{
	if (m->packed)
		m->hdr[ENV_OFF_TYPE] = FECD_MSG_DECODED;
}
static void bad_hdr_len_small(struct bad_msg *m)
{
	if (m->packed)
		m->hdr[ENV_OFF_HDR_LEN] = 16; /* little-endian 16: the high byte is already 0 */
}
static void bad_hdr_len_past_end(struct bad_msg *m)
{
	if (m->packed) {
		m->hdr[ENV_OFF_HDR_LEN] = 900 & 0xff; /* 900, little-endian */
		m->hdr[ENV_OFF_HDR_LEN + 1] = 900 >> 8;
	}
}
static void bad_format(struct bad_msg *m)
{
	if (!m->packed)
		m->h.format = 99;
}
static void bad_flags(struct bad_msg *m)
{
	if (!m->packed)
		m->h.flags |= 0x8000;
}
static void bad_length(struct bad_msg *m)
{
	if (!m->packed)
		m->payload_len--;
}
static void bad_channel(struct bad_msg *m)
{
	if (!m->packed)
		m->h.channel += 1000;
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
	if (!m->packed)
		m->h.symbol_count = 0xffffffffu;
}
static void bad_garbage(struct bad_msg *m)
{
	for (size_t i = 0; m->packed && i < sizeof(m->hdr); i++)
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
	struct bad_msg m = {.h = *h,
	                    .hdr_len = FECD_IN_HDR_LEN,
	                    .payload = payload,
	                    .payload_len = len,
	                    .parts = 2};

	if (i >= feed_bad_count() || !len)
		return -1;
	feed_bad_table[i].mutate(&m); /* field faults */
	fecd_in_hdr_pack(&m.h, m.hdr);
	m.packed = true;
	feed_bad_table[i].mutate(&m); /* byte faults */
	if (send_or_report(sock, m.hdr, m.hdr_len, m.parts > 1 ? ZMQ_SNDMORE : 0, i))
		return -1;
	if (m.parts > 1 &&
	    send_or_report(sock, m.payload, m.payload_len, m.parts > 2 ? ZMQ_SNDMORE : 0, i))
		return -1;
	if (m.parts > 2 && send_or_report(sock, extra, sizeof(extra), 0, i))
		return -1;
	return 0;
}

int feed_oversize_send(void *sock, const struct fecd_in_hdr *h)
{
	uint8_t hdr[FECD_IN_HDR_LEN], *payload = calloc(1, FEED_OVERSIZE_BYTES);
	int rc = -1;

	if (!payload) {
		fprintf(stderr, "fecd-feed: out of memory for the oversized message\n");
		return -1;
	}
	fecd_in_hdr_pack(h, hdr);
	if (zmq_send(sock, hdr, sizeof(hdr), ZMQ_SNDMORE) < 0 ||
	    zmq_send(sock, payload, FEED_OVERSIZE_BYTES, 0) < 0)
		fprintf(stderr, "fecd-feed: sending the oversized message: %s\n",
		        zmq_strerror(errno));
	else
		rc = 0;
	free(payload);
	return rc;
}
