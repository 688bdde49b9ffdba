/*
 * The native fecd wire protocol: enum name tables and error messages generated from the X-macros
 * in fecd_proto.h, and pack/parse of the input (32-byte) and output (80-byte) headers. Every field
 * is stored at an explicit little-endian offset (the tables below match PROTOCOL.md); parsers
 * validate everything a hostile sender controls before the daemon trusts a single length.
 */
#include "fecd_proto.h"

#include <stdint.h>
#include <string.h>

#include "bytes.h"

/* The first 8 bytes both headers share. */
enum {
	HDR_OFF_MAGIC = 0,
	HDR_OFF_VERSION = 4,
	HDR_OFF_TYPE = 5,
	HDR_OFF_HDR_LEN = 6,
};

/* Byte offsets of the input header (PROTOCOL.md, "Input header"). */
enum {
	IN_OFF_CHANNEL = 8,
	IN_OFF_FORMAT = 12,
	IN_OFF_RESERVED = 13,
	IN_OFF_FLAGS = 14,
	IN_OFF_SEQ = 16,
	IN_OFF_SYMBOL_COUNT = 24,
	IN_OFF_FRAME_LEN = 28,
};

/* Byte offsets of the output header (PROTOCOL.md, "Output header"). */
enum {
	OUT_OFF_CHANNEL = 8,
	OUT_OFF_FAMILY = 12,
	OUT_OFF_STATUS = 13,
	OUT_OFF_FLAGS = 14,
	OUT_OFF_CODE_GEN = 16,
	OUT_OFF_WORK = 20,
	OUT_OFF_FRAME_SEQ = 24,
	OUT_OFF_IN_FIRST = 32,
	OUT_OFF_IN_SEQ = 40,
	OUT_OFF_OUT_BIT_OFFSET = 48,
	OUT_OFF_IN_COUNT = 56,
	OUT_OFF_PAYLOAD_BITS = 60,
	OUT_OFF_SOFT_COUNT = 64,
	OUT_OFF_ITERATIONS = 68,
	OUT_OFF_SOFT_PER_UNIT = 70,
	OUT_OFF_METRIC = 72,
	OUT_OFF_SOFT_KIND = 76,
	OUT_OFF_END_CAUSE = 77,
	OUT_OFF_RESERVED = 78, /* 2 bytes */
	OUT_OFF_INSTANCE = 80,
};

_Static_assert(IN_OFF_FRAME_LEN + 4 == FECD_IN_HDR_LEN, "input header layout");
_Static_assert(OUT_OFF_RESERVED + 2 == FECD_OUT_HDR_MIN_LEN, "output header layout");
_Static_assert(OUT_OFF_INSTANCE + 8 == FECD_OUT_HDR_LEN, "output header layout");
_Static_assert(FECD_IN_HDR_LEN <= FECD_HDR_MAX_LEN && FECD_OUT_HDR_LEN <= FECD_HDR_MAX_LEN,
               "header maximum");

static const char *const proto_errmsg[] = {[FECD_PROTO_OK] = "ok",
#define X(name, msg) [FECD_PROTO_E##name] = msg,
                                           FECD_PROTO_ERRNO_MAP(X)
#undef X
};

const char *fecd_proto_strerror(int err)
{
	unsigned idx = err < 0 ? (unsigned)-(long)err : (unsigned)err;

	if (idx >= sizeof(proto_errmsg) / sizeof(proto_errmsg[0]) || !proto_errmsg[idx])
		return "unknown protocol error";
	return proto_errmsg[idx];
}

struct name_entry {
	int value;
	const char *name;
};

static const struct name_entry format_names[] = {
#define X(name, val, str, bits) {val, str},
    FECD_FORMAT_MAP(X)
#undef X
};

static const struct name_entry family_names[] = {
#define X(name, val, str) {val, str},
    FECD_FAMILY_MAP(X)
#undef X
};

static const struct name_entry status_names[] = {
#define X(name, val, str) {val, str},
    FECD_STATUS_MAP(X)
#undef X
};

static const struct name_entry soft_names[] = {
#define X(name, val, str) {val, str},
    FECD_SOFT_MAP(X)
#undef X
};

#define NAMES_LEN(t) (sizeof(t) / sizeof((t)[0]))

static const char *name_of(const struct name_entry *t, size_t n, int value)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].value == value)
			return t[i].name;
	return NULL;
}

static int value_of(const struct name_entry *t, size_t n, const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return t[i].value;
	return -1;
}

const char *fecd_format_name(int fmt)
{
	return name_of(format_names, NAMES_LEN(format_names), fmt);
}

int fecd_format_from_name(const char *name)
{
	return value_of(format_names, NAMES_LEN(format_names), name);
}

const char *fecd_family_name(int family)
{
	return name_of(family_names, NAMES_LEN(family_names), family);
}

int fecd_family_from_name(const char *name)
{
	return value_of(family_names, NAMES_LEN(family_names), name);
}

const char *fecd_status_name(int status)
{
	return name_of(status_names, NAMES_LEN(status_names), status);
}

int fecd_status_from_name(const char *name)
{
	return value_of(status_names, NAMES_LEN(status_names), name);
}

const char *fecd_soft_name(int soft_kind)
{
	return name_of(soft_names, NAMES_LEN(soft_names), soft_kind);
}

int fecd_soft_from_name(const char *name)
{
	return value_of(soft_names, NAMES_LEN(soft_names), name);
}

static const struct name_entry end_names[] = {
#define X(name, val, str) {val, str},
    FECD_END_MAP(X)
#undef X
};

const char *fecd_end_name(int end_cause)
{
	return name_of(end_names, NAMES_LEN(end_names), end_cause);
}

bool fecd_out_sender_ended(const struct fecd_out_hdr *h)
{
	return (h->flags & FECD_OUT_END_OF_STREAM) && h->end_cause == FECD_END_SENDER;
}

static unsigned format_bits(int fmt)
{
	switch (fmt) {
#define X(name, val, str, bits)                                                                    \
	case val:                                                                                  \
		return bits;
		FECD_FORMAT_MAP(X)
#undef X
	default:
		return 0;
	}
}

bool fecd_format_is_vector(int fmt)
{
	return fmt == FECD_FMT_F32V;
}

size_t fecd_format_bytes_q(int fmt, size_t nsyms, uint32_t q)
{
	unsigned bits = format_bits(fmt);

	if (!bits)
		return 0;
	if (fecd_format_is_vector(fmt) && q > 1) {
		if (nsyms > SIZE_MAX / q)
			return SIZE_MAX;
		nsyms *= q; /* values */
	}
	/* Saturate rather than wrap, so an absurd count can only ever look too large. */
	if (nsyms > (SIZE_MAX - 7) / bits)
		return SIZE_MAX;
	return (nsyms * bits + 7) / 8;
}

size_t fecd_format_bytes(int fmt, size_t nsyms)
{
	return fecd_format_bytes_q(fmt, nsyms, 1);
}

/* The checks both headers share: length, magic, version, type and hdr_len, in that order, so a
 * given bad input always gets the same error. */
static int common_hdr_check(const uint8_t *p, size_t len, size_t fixed_len, uint8_t type)
{
	if (!p || len < fixed_len)
		return -FECD_PROTO_ETRUNCATED;
	if (fecd__get_le32(p + HDR_OFF_MAGIC) != FECD_MAGIC)
		return -FECD_PROTO_EMAGIC;
	if (p[HDR_OFF_VERSION] != FECD_PROTO_VERSION)
		return -FECD_PROTO_EVERSION;
	if (p[HDR_OFF_TYPE] != type)
		return -FECD_PROTO_ETYPE;

	uint16_t hdr_len = fecd__get_le16(p + HDR_OFF_HDR_LEN);
	if (hdr_len < fixed_len || hdr_len > FECD_HDR_MAX_LEN)
		return -FECD_PROTO_EHDRLEN;
	if (hdr_len > len)
		return -FECD_PROTO_ETRUNCATED;
	return 0;
}

void fecd_in_hdr_pack(const struct fecd_in_hdr *h, uint8_t buf[FECD_IN_HDR_LEN])
{
	memset(buf, 0, FECD_IN_HDR_LEN);
	fecd__put_le32(buf + HDR_OFF_MAGIC, FECD_MAGIC);
	buf[HDR_OFF_VERSION] = FECD_PROTO_VERSION;
	buf[HDR_OFF_TYPE] = FECD_MSG_SYMBOLS;
	fecd__put_le16(buf + HDR_OFF_HDR_LEN, FECD_IN_HDR_LEN);
	fecd__put_le32(buf + IN_OFF_CHANNEL, h->channel);
	buf[IN_OFF_FORMAT] = h->format;
	buf[IN_OFF_RESERVED] = 0;
	fecd__put_le16(buf + IN_OFF_FLAGS, h->flags);
	fecd__put_le64(buf + IN_OFF_SEQ, h->seq);
	fecd__put_le32(buf + IN_OFF_SYMBOL_COUNT, h->symbol_count);
	fecd__put_le32(buf + IN_OFF_FRAME_LEN, h->frame_len);
}

int fecd_in_hdr_parse(const void *buf, size_t len, struct fecd_in_hdr *out)
{
	const uint8_t *p = buf;
	struct fecd_in_hdr h;
	int err = common_hdr_check(p, len, FECD_IN_HDR_LEN, FECD_MSG_SYMBOLS);

	if (err)
		return err;
	h.version = p[HDR_OFF_VERSION];
	h.type = p[HDR_OFF_TYPE];
	h.hdr_len = fecd__get_le16(p + HDR_OFF_HDR_LEN);
	h.channel = fecd__get_le32(p + IN_OFF_CHANNEL);
	h.format = p[IN_OFF_FORMAT];
	h.flags = fecd__get_le16(p + IN_OFF_FLAGS);
	h.seq = fecd__get_le64(p + IN_OFF_SEQ);
	h.symbol_count = fecd__get_le32(p + IN_OFF_SYMBOL_COUNT);
	h.frame_len = fecd__get_le32(p + IN_OFF_FRAME_LEN);

	if (!format_bits(h.format))
		return -FECD_PROTO_EFORMAT;
	if (h.flags & ~FECD_IN_FLAGS_KNOWN)
		return -FECD_PROTO_EFLAGS;
	/* An empty message only makes sense as the sender's last word. */
	if (h.symbol_count == 0 && !(h.flags & FECD_IN_END_OF_STREAM))
		return -FECD_PROTO_ELENGTH;
	if (fecd_format_bytes(h.format, h.symbol_count) > FECD_MAX_PAYLOAD_BYTES)
		return -FECD_PROTO_ETOO_LARGE;
	if (out)
		*out = h;
	return 0;
}

int fecd_in_payload_check_q(const struct fecd_in_hdr *h, size_t payload_len, uint32_t q)
{
	if (payload_len > FECD_MAX_PAYLOAD_BYTES)
		return -FECD_PROTO_ETOO_LARGE;
	size_t want = fecd_format_bytes_q(h->format, h->symbol_count, q);
	if (!want && h->symbol_count)
		return -FECD_PROTO_EFORMAT;
	if (want > FECD_MAX_PAYLOAD_BYTES)
		return -FECD_PROTO_ETOO_LARGE;
	if (payload_len != want)
		return -FECD_PROTO_ELENGTH;
	return 0;
}

int fecd_in_payload_check(const struct fecd_in_hdr *h, size_t payload_len)
{
	return fecd_in_payload_check_q(h, payload_len, 1);
}

void fecd_out_hdr_pack(const struct fecd_out_hdr *h, uint8_t buf[FECD_OUT_HDR_LEN])
{
	memset(buf, 0, FECD_OUT_HDR_LEN);
	fecd__put_le32(buf + HDR_OFF_MAGIC, FECD_MAGIC);
	buf[HDR_OFF_VERSION] = FECD_PROTO_VERSION;
	buf[HDR_OFF_TYPE] = FECD_MSG_DECODED;
	fecd__put_le16(buf + HDR_OFF_HDR_LEN, FECD_OUT_HDR_LEN);
	fecd__put_le32(buf + OUT_OFF_CHANNEL, h->channel);
	buf[OUT_OFF_FAMILY] = h->family;
	buf[OUT_OFF_STATUS] = h->status;
	fecd__put_le16(buf + OUT_OFF_FLAGS, h->flags);
	fecd__put_le32(buf + OUT_OFF_CODE_GEN, h->code_gen);
	fecd__put_le32(buf + OUT_OFF_WORK, h->work);
	fecd__put_le64(buf + OUT_OFF_FRAME_SEQ, h->frame_seq);
	fecd__put_le64(buf + OUT_OFF_IN_FIRST, h->in_first);
	fecd__put_le64(buf + OUT_OFF_IN_SEQ, h->in_seq);
	fecd__put_le64(buf + OUT_OFF_OUT_BIT_OFFSET, h->out_bit_offset);
	fecd__put_le32(buf + OUT_OFF_IN_COUNT, h->in_count);
	fecd__put_le32(buf + OUT_OFF_PAYLOAD_BITS, h->payload_bits);
	fecd__put_le32(buf + OUT_OFF_SOFT_COUNT, h->soft_count);
	fecd__put_le16(buf + OUT_OFF_ITERATIONS, h->iterations);
	fecd__put_le16(buf + OUT_OFF_SOFT_PER_UNIT, h->soft_per_unit);
	fecd__put_le32(buf + OUT_OFF_METRIC, fecd__f32_bits(h->metric));
	buf[OUT_OFF_SOFT_KIND] = h->soft_kind;
	buf[OUT_OFF_END_CAUSE] = h->end_cause;
	fecd__put_le64(buf + OUT_OFF_INSTANCE, h->instance);
}

/* The soft layout rules of PROTOCOL.md 3.2; h's layout is normalised first (a sender from before
 * the soft fields wrote FECD_OUT_SOFT with soft_kind 0: bit LLRs, one per bit). */
static int soft_layout_check(struct fecd_out_hdr *h)
{
	if (!(h->flags & FECD_OUT_SOFT))
		return h->soft_kind || h->soft_per_unit ? -FECD_PROTO_ESOFT : 0;
	if (h->soft_kind == FECD_SOFT_NONE && h->soft_per_unit == 0) {
		h->soft_kind = FECD_SOFT_BIT_LLR;
		h->soft_per_unit = 1;
	}
	switch (h->soft_kind) {
	case FECD_SOFT_BIT_LLR:
		if (h->soft_per_unit != 1)
			return -FECD_PROTO_ESOFT;
		break;
	case FECD_SOFT_SYM_LOGP:
		if (h->soft_per_unit < 2)
			return -FECD_PROTO_ESOFT;
		break;
	default:
		return -FECD_PROTO_ESOFT;
	}
	return h->soft_count % h->soft_per_unit ? -FECD_PROTO_ELENGTH : 0;
}

int fecd_out_hdr_parse(const void *buf, size_t len, struct fecd_out_hdr *out)
{
	const uint8_t *p = buf;
	struct fecd_out_hdr h;
	int err = common_hdr_check(p, len, FECD_OUT_HDR_MIN_LEN, FECD_MSG_DECODED);

	if (err)
		return err;
	h.version = p[HDR_OFF_VERSION];
	h.type = p[HDR_OFF_TYPE];
	h.hdr_len = fecd__get_le16(p + HDR_OFF_HDR_LEN);
	h.channel = fecd__get_le32(p + OUT_OFF_CHANNEL);
	h.family = p[OUT_OFF_FAMILY];
	h.status = p[OUT_OFF_STATUS];
	h.flags = fecd__get_le16(p + OUT_OFF_FLAGS);
	h.code_gen = fecd__get_le32(p + OUT_OFF_CODE_GEN);
	h.work = fecd__get_le32(p + OUT_OFF_WORK);
	h.frame_seq = fecd__get_le64(p + OUT_OFF_FRAME_SEQ);
	h.in_first = fecd__get_le64(p + OUT_OFF_IN_FIRST);
	h.in_seq = fecd__get_le64(p + OUT_OFF_IN_SEQ);
	h.out_bit_offset = fecd__get_le64(p + OUT_OFF_OUT_BIT_OFFSET);
	h.in_count = fecd__get_le32(p + OUT_OFF_IN_COUNT);
	h.payload_bits = fecd__get_le32(p + OUT_OFF_PAYLOAD_BITS);
	h.soft_count = fecd__get_le32(p + OUT_OFF_SOFT_COUNT);
	h.iterations = fecd__get_le16(p + OUT_OFF_ITERATIONS);
	h.soft_per_unit = fecd__get_le16(p + OUT_OFF_SOFT_PER_UNIT);
	h.metric = fecd__f32_from_bits(fecd__get_le32(p + OUT_OFF_METRIC));
	h.soft_kind = p[OUT_OFF_SOFT_KIND];
	h.end_cause = p[OUT_OFF_END_CAUSE];
	/* A sender from before instance wrote 80 bytes: instance 0, "not said". */
	h.instance = h.hdr_len >= FECD_OUT_HDR_LEN ? fecd__get_le64(p + OUT_OFF_INSTANCE) : 0;

	if (!fecd_family_name(h.family))
		return -FECD_PROTO_EFAMILY;
	if (!fecd_status_name(h.status))
		return -FECD_PROTO_ESTATUS;
	if (h.flags & ~FECD_OUT_FLAGS_KNOWN)
		return -FECD_PROTO_EFLAGS;
	if (!(h.flags & FECD_OUT_SOFT) && h.soft_count)
		return -FECD_PROTO_ELENGTH;
	err = soft_layout_check(&h);
	if (err)
		return err;
	/* A sender from before work wrote the count in iterations alone (work's bytes zero). */
	if (!h.work && h.iterations)
		h.work = h.iterations;
	if ((h.payload_bits + 7ull) / 8 > FECD_MAX_PAYLOAD_BYTES ||
	    (uint64_t)h.soft_count * 4 > FECD_MAX_PAYLOAD_BYTES)
		return -FECD_PROTO_ETOO_LARGE;
	if (out)
		*out = h;
	return 0;
}

int fecd_out_payload_check(const struct fecd_out_hdr *h, size_t payload_len, size_t soft_len)
{
	if ((h->payload_bits + 7ull) / 8 != payload_len)
		return -FECD_PROTO_ELENGTH;
	if (!(h->flags & FECD_OUT_SOFT))
		return soft_len ? -FECD_PROTO_EPARTS : 0;
	if ((uint64_t)h->soft_count * 4 != soft_len)
		return -FECD_PROTO_ELENGTH;
	return 0;
}

uint32_t fecd_out_soft_units(const struct fecd_out_hdr *h)
{
	if (!(h->flags & FECD_OUT_SOFT))
		return 0;
	return h->soft_per_unit ? h->soft_count / h->soft_per_unit : h->soft_count;
}

float fecd_out_soft_value(const void *part3, size_t soft_len, uint32_t i)
{
	if (!part3 || (uint64_t)i * 4 + 4 > soft_len)
		return 0.0f;
	return fecd__f32_from_bits(fecd__get_le32((const uint8_t *)part3 + (size_t)i * 4));
}
