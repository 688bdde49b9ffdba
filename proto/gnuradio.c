/*
 * GNU Radio gr-zeromq stream input: the header that the PUB/PUSH/REP sinks prepend to the item
 * bytes when pass_tags is on. Its layout (verified against gr-zeromq's tag_headers.cc; PROTOCOL.md
 * has the table) is host-order integers, which is little-endian on every platform GNU Radio ships
 * for: u16 magic 0x5FF0, u8 version 1, u64 item offset, u64 tag count, then per tag a u64 offset
 * and three serialized PMTs (key, value, source id). fecd does not use the tags; it measures the
 * header so the items after it can be taken without a copy. The writer serves senders that
 * imitate GNU Radio (fecd-feed) and the tests.
 */
#include <string.h>

#include "fecd_proto.h"

#include "bytes.h"
#include "pmt_int.h"

enum {
	GR_OFF_MAGIC = 0,
	GR_OFF_VERSION = 2,
	GR_OFF_OFFSET = 3,
	GR_OFF_NTAGS = 11,
	GR_FIXED_LEN = 19,
	GR_TAG_MIN_LEN = 8 + 3, /* offset, and three PMTs of at least one byte each */
};

int fecd_gr_tag_header_parse(const void *buf, size_t len, size_t *hdr_len, uint64_t *offset)
{
	const uint8_t *p = buf;

	if (!p || len < GR_FIXED_LEN)
		return -FECD_PROTO_EGR_TAGS;
	if (fecd__get_le16(p + GR_OFF_MAGIC) != FECD_GR_TAG_MAGIC)
		return -FECD_PROTO_EGR_TAGS;
	/* Version 2 belongs to GNU Radio's 4.0 development line, which serializes tags with
	 * another PMT library; it cannot be measured with this one. */
	if (p[GR_OFF_VERSION] != FECD_GR_TAG_VERSION)
		return -FECD_PROTO_EGR_TAGS;

	uint64_t ntags = fecd__get_le64(p + GR_OFF_NTAGS);
	size_t pos = GR_FIXED_LEN;
	if (ntags > (len - pos) / GR_TAG_MIN_LEN)
		return -FECD_PROTO_EGR_TAGS;

	for (uint64_t i = 0; i < ntags; i++) {
		if (len - pos < 8)
			return -FECD_PROTO_EGR_TAGS;
		pos += 8;
		for (int part = 0; part < 3; part++) {
			long n = fecd_pmt_skip(p + pos, len - pos);
			if (n < 0)
				return (int)n;
			pos += (size_t)n;
		}
	}
	if (hdr_len)
		*hdr_len = pos;
	if (offset)
		*offset = fecd__get_le64(p + GR_OFF_OFFSET);
	return 0;
}

long fecd_gr_tag_header_write(uint8_t *buf, size_t cap, uint64_t offset,
                              const struct fecd_gr_tag *tags, unsigned ntags)
{
	struct fecd__pmt_writer w = {.buf = buf, .cap = cap};
	uint8_t fixed[GR_FIXED_LEN], off[8];

	fecd__put_le16(fixed + GR_OFF_MAGIC, FECD_GR_TAG_MAGIC);
	fixed[GR_OFF_VERSION] = FECD_GR_TAG_VERSION;
	fecd__put_le64(fixed + GR_OFF_OFFSET, offset);
	fecd__put_le64(fixed + GR_OFF_NTAGS, ntags);
	fecd__pmt_put_raw(&w, fixed, sizeof(fixed));
	for (unsigned i = 0; i < ntags; i++) {
		if (strlen(tags[i].key) > FECD_PMT_SYMBOL_MAX ||
		    strlen(tags[i].srcid) > FECD_PMT_SYMBOL_MAX)
			return -FECD_PROTO_EPMT;
		fecd__put_le64(off, tags[i].offset);
		fecd__pmt_put_raw(&w, off, sizeof(off));
		fecd__pmt_put_symbol(&w, tags[i].key);
		fecd__pmt_put_uint64(&w, tags[i].value);
		fecd__pmt_put_symbol(&w, tags[i].srcid);
	}
	return w.overflow ? -FECD_PROTO_ENOSPACE : (long)w.len;
}
