/*
 * GNU Radio PDU output: pmt::serialize of cons(metadata dict, u8vector), byte for byte what GNU
 * Radio itself writes for a dict built with pmt::dict_add, so that gr-zeromq's SUB/PULL message
 * sources hand a flowgraph a PDU it can use directly. One table lists the metadata keys once; the
 * writer, the exact size bound and the parser (for fecd-sink and the tests) all walk it.
 *
 * GNU Radio's dict is a list whose cells serialize as tag 0x09 (dict cell), the (key . value)
 * pair as 0x07, and the end as 0x06. dict_add puts a new key in front, so our order is that of a
 * dict built by adding the keys of the table in reverse; the order only matters for byte equality.
 */
#include "fecd_proto.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "bytes.h"
#include "pmt_int.h"

enum pdu_kind {
	KIND_UINT,     /* an unsigned header field, sent as uint64 */
	KIND_STATUS,   /* status, sent as its name (symbol) */
	KIND_FAMILY,   /* family, sent as its name (symbol) */
	KIND_METRIC,   /* metric, sent as double */
	KIND_PACKED,   /* bool: #t when the vector is packed MSB first, #f for one bit per byte */
	KIND_FLAG,     /* bool: the output flag in only_if */
	KIND_WORK,     /* work, sent as uint64 only beyond 65535 (where iterations saturates) */
	KIND_INSTANCE, /* instance, sent as uint64 where it is set (not 0) */
};

struct pdu_key {
	const char *name;
	enum pdu_kind kind;
	size_t off;       /* KIND_UINT: the field's offset in struct fecd_out_hdr */
	unsigned width;   /* KIND_UINT: the field's size in bytes */
	uint16_t only_if; /* sent only when this output flag is set; 0: always */
	bool required;    /* fecd_pdu_parse refuses a PDU without it */
};

#define UINT_FIELD(f)                                                                              \
	KIND_UINT, offsetof(struct fecd_out_hdr, f), sizeof(((struct fecd_out_hdr *)0)->f)

static const struct pdu_key pdu_keys[] = {
    {"channel", UINT_FIELD(channel), 0, true},
    {"frame_seq", UINT_FIELD(frame_seq), 0, true},
    {"status", KIND_STATUS, 0, 0, 0, true},
    {"family", KIND_FAMILY, 0, 0, 0, true},
    {"in_first", UINT_FIELD(in_first), 0, false},
    {"in_count", UINT_FIELD(in_count), 0, false},
    {"in_seq", UINT_FIELD(in_seq), 0, false},
    {"payload_bits", UINT_FIELD(payload_bits), 0, true},
    {"code_gen", UINT_FIELD(code_gen), 0, false},
    {"iterations", UINT_FIELD(iterations), 0, false},
    {"metric", KIND_METRIC, 0, 0, 0, false},
    {"packed", KIND_PACKED, 0, 0, 0, false},
    {"out_bit_offset", UINT_FIELD(out_bit_offset), FECD_OUT_STREAM, false},
    {"end_of_stream", KIND_FLAG, 0, 0, FECD_OUT_END_OF_STREAM, false},
    {"code_changed", KIND_FLAG, 0, 0, FECD_OUT_CODE_CHANGED, false},
    {"work", KIND_WORK, 0, 0, 0, false},
    {"end_cause", UINT_FIELD(end_cause), FECD_OUT_END_OF_STREAM, false},
    {"instance", KIND_INSTANCE, 0, 0, 0, false},
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define NKEYS        ARRAY_LEN(pdu_keys)

static uint64_t field_get(const struct fecd_out_hdr *h, const struct pdu_key *k)
{
	const uint8_t *f = (const uint8_t *)h + k->off;

	switch (k->width) {
	case 1:
		return *f;
	case 2: {
		uint16_t v;
		memcpy(&v, f, 2);
		return v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, f, 4);
		return v;
	}
	default: {
		uint64_t v;
		memcpy(&v, f, 8);
		return v;
	}
	}
}

/* Stores v if it fits the field; GNU Radio users may send back any integer PMT. */
static int field_set(struct fecd_out_hdr *h, const struct pdu_key *k, uint64_t v)
{
	uint8_t *f = (uint8_t *)h + k->off;

	if (k->width < 8 && v >> (8 * k->width))
		return -FECD_PROTO_EPMT;
	switch (k->width) {
	case 1:
		*f = (uint8_t)v;
		break;
	case 2: {
		uint16_t x = (uint16_t)v;
		memcpy(f, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)v;
		memcpy(f, &x, 4);
		break;
	}
	default:
		memcpy(f, &v, 8);
		break;
	}
	return 0;
}

/* Longest status and family names, for the size bound. */
static size_t longest(const size_t *lens, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		m = lens[i] > m ? lens[i] : m;
	return m;
}

static const size_t status_name_lens[] = {
#define X(name, val, str) sizeof(str) - 1,
    FECD_STATUS_MAP(X)
#undef X
};

static const size_t family_name_lens[] = {
#define X(name, val, str) sizeof(str) - 1,
    FECD_FAMILY_MAP(X)
#undef X
};

static size_t vector_bytes(uint32_t payload_bits, bool unpacked)
{
	return unpacked ? payload_bits : (payload_bits + 7u) / 8u;
}

size_t fecd_pdu_max_len(uint32_t payload_bits, bool unpacked)
{
	size_t n = 1 + 1; /* the outer pair, the dict's closing null */

	for (size_t i = 0; i < NKEYS; i++) {
		const struct pdu_key *k = &pdu_keys[i];
		n += 2 + fecd__pmt_symbol_size(strlen(k->name)); /* dict cell, pair, key */
		switch (k->kind) {
		case KIND_UINT:
		case KIND_WORK:
		case KIND_INSTANCE:
			n += FECD_PMT_UINT64_SIZE;
			break;
		case KIND_STATUS:
			n += fecd__pmt_symbol_size(
			    longest(status_name_lens, ARRAY_LEN(status_name_lens)));
			break;
		case KIND_FAMILY:
			n += fecd__pmt_symbol_size(
			    longest(family_name_lens, ARRAY_LEN(family_name_lens)));
			break;
		case KIND_METRIC:
			n += FECD_PMT_DOUBLE_SIZE;
			break;
		case KIND_PACKED:
		case KIND_FLAG:
			n += FECD_PMT_BOOL_SIZE;
			break;
		}
	}
	return n + FECD_PMT_U8VECTOR_HEAD_SIZE + vector_bytes(payload_bits, unpacked);
}

static void put_value(struct fecd__pmt_writer *w, const struct pdu_key *k,
                      const struct fecd_out_hdr *h, bool unpacked)
{
	switch (k->kind) {
	case KIND_UINT:
		fecd__pmt_put_uint64(w, field_get(h, k));
		break;
	case KIND_STATUS:
		fecd__pmt_put_symbol(w, fecd_status_name(h->status));
		break;
	case KIND_FAMILY:
		fecd__pmt_put_symbol(w, fecd_family_name(h->family));
		break;
	case KIND_METRIC:
		fecd__pmt_put_double(w, h->metric);
		break;
	case KIND_PACKED:
		fecd__pmt_put_bool(w, !unpacked);
		break;
	case KIND_FLAG:
		fecd__pmt_put_bool(w, true);
		break;
	case KIND_WORK:
		fecd__pmt_put_uint64(w, h->work);
		break;
	case KIND_INSTANCE:
		fecd__pmt_put_uint64(w, h->instance);
		break;
	}
}

long fecd_pdu_write(const struct fecd_out_hdr *h, const uint8_t *packed_bits, bool unpacked,
                    uint8_t *buf, size_t cap)
{
	struct fecd__pmt_writer w = {.buf = buf, .cap = buf ? cap : 0};

	if (!fecd_status_name(h->status))
		return -FECD_PROTO_ESTATUS;
	if (!fecd_family_name(h->family))
		return -FECD_PROTO_EFAMILY;
	if (h->payload_bits && !packed_bits)
		return -FECD_PROTO_ELENGTH;

	fecd__pmt_put_tag(&w, FECD_PMT_PAIR);
	for (size_t i = 0; i < NKEYS; i++) {
		const struct pdu_key *k = &pdu_keys[i];
		if (k->only_if && !(h->flags & k->only_if))
			continue;
		/* iterations says it all unless work went past its 16 bits: PDUs stay as they were */
		if (k->kind == KIND_WORK && h->work <= UINT16_MAX)
			continue;
		if (k->kind == KIND_INSTANCE && !h->instance)
			continue;
		fecd__pmt_put_tag(&w, FECD_PMT_DICT);
		fecd__pmt_put_tag(&w, FECD_PMT_PAIR);
		fecd__pmt_put_symbol(&w, k->name);
		put_value(&w, k, h, unpacked);
	}
	fecd__pmt_put_tag(&w, FECD_PMT_NULL);

	size_t nbytes = vector_bytes(h->payload_bits, unpacked);
	size_t start = fecd__pmt_put_u8vector_head(&w, (uint32_t)nbytes);
	if (w.overflow || nbytes > w.cap - w.len)
		return -FECD_PROTO_ENOSPACE;

	uint8_t *v = w.buf + start;
	if (unpacked) {
		for (uint32_t i = 0; i < h->payload_bits; i++)
			v[i] = (packed_bits[i / 8] >> (7 - i % 8)) & 1;
	} else if (nbytes) {
		memcpy(v, packed_bits, nbytes);
		/* The bits past payload_bits in the last byte are always zero on the wire. */
		if (h->payload_bits % 8)
			v[nbytes - 1] &= (uint8_t)(0xff00u >> (h->payload_bits % 8));
	}
	w.len += nbytes;
	return (long)w.len;
}

/* Reads an integer PMT that is not negative: uint64, or int32/int64 as GNU Radio's from_long
 * writes them when a flowgraph re-serializes our dict. */
static int read_uint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
	if (len - *pos < 1)
		return -FECD_PROTO_EPMT;
	uint8_t tag = p[*pos];
	size_t n = tag == FECD_PMT_INT32 ? 4 : 8;

	if (tag != FECD_PMT_UINT64 && tag != FECD_PMT_INT64 && tag != FECD_PMT_INT32)
		return -FECD_PROTO_EPMT;
	if (len - *pos - 1 < n)
		return -FECD_PROTO_EPMT;
	if (tag == FECD_PMT_INT32) {
		int32_t s = (int32_t)fecd__get_be32(p + *pos + 1);
		if (s < 0)
			return -FECD_PROTO_EPMT;
		*v = (uint64_t)s;
	} else {
		*v = fecd__get_be64(p + *pos + 1);
		if (tag == FECD_PMT_INT64 && (*v >> 63))
			return -FECD_PROTO_EPMT;
	}
	*pos += 1 + n;
	return 0;
}

static int read_bool(const uint8_t *p, size_t len, size_t *pos, bool *v)
{
	if (len - *pos < 1 || (p[*pos] != FECD_PMT_TRUE && p[*pos] != FECD_PMT_FALSE))
		return -FECD_PROTO_EPMT;
	*v = p[(*pos)++] == FECD_PMT_TRUE;
	return 0;
}

/* A symbol, copied NUL-terminated into name (cap bytes); longer ones are refused. */
static int read_symbol(const uint8_t *p, size_t len, size_t *pos, char *name, size_t cap)
{
	if (len - *pos < 3 || p[*pos] != FECD_PMT_SYMBOL)
		return -FECD_PROTO_EPMT;
	size_t n = fecd__get_be16(p + *pos + 1);
	if (n >= cap || len - *pos - 3 < n)
		return -FECD_PROTO_EPMT;
	memcpy(name, p + *pos + 3, n);
	name[n] = '\0';
	*pos += 3 + n;
	return 0;
}

struct pdu_state {
	struct fecd_out_hdr *h;
	bool seen[NKEYS];
	bool unpacked;
};

static int read_value(const uint8_t *p, size_t len, size_t *pos, const struct pdu_key *k,
                      struct pdu_state *st)
{
	char name[64];
	uint64_t u;
	bool b;
	int v, err;

	switch (k->kind) {
	case KIND_UINT:
		err = read_uint(p, len, pos, &u);
		return err ? err : field_set(st->h, k, u);
	case KIND_STATUS:
	case KIND_FAMILY:
		err = read_symbol(p, len, pos, name, sizeof(name));
		if (err)
			return err;
		if (k->kind == KIND_FAMILY) {
			v = fecd_family_from_name(name);
			if (v < 0)
				return -FECD_PROTO_EFAMILY;
			st->h->family = (uint8_t)v;
		} else {
			v = fecd_status_from_name(name);
			if (v < 0)
				return -FECD_PROTO_ESTATUS;
			st->h->status = (uint8_t)v;
		}
		return 0;
	case KIND_METRIC: {
		if (len - *pos < FECD_PMT_DOUBLE_SIZE || p[*pos] != FECD_PMT_DOUBLE)
			return -FECD_PROTO_EPMT;
		double d = fecd__f64_from_bits(fecd__get_be64(p + *pos + 1));
		/* Converting a double beyond float's range is undefined: saturate it first. */
		if (d > FLT_MAX)
			d = HUGE_VAL;
		else if (d < -FLT_MAX)
			d = -HUGE_VAL;
		st->h->metric = (float)d;
		*pos += FECD_PMT_DOUBLE_SIZE;
		return 0;
	}
	case KIND_PACKED:
		err = read_bool(p, len, pos, &b);
		if (err)
			return err;
		st->unpacked = !b;
		return 0;
	case KIND_FLAG:
		err = read_bool(p, len, pos, &b);
		if (err)
			return err;
		if (b)
			st->h->flags |= k->only_if;
		return 0;
	case KIND_WORK:
		err = read_uint(p, len, pos, &u);
		if (err)
			return err;
		if (u > UINT32_MAX)
			return -FECD_PROTO_EPMT;
		st->h->work = (uint32_t)u;
		return 0;
	case KIND_INSTANCE:
		return read_uint(p, len, pos, &st->h->instance);
	}
	return -FECD_PROTO_EPMT;
}

/* Steps over one PMT of any type. */
static int skip_any(const uint8_t *p, size_t len, size_t *pos)
{
	long n = fecd_pmt_skip(p + *pos, len - *pos);

	if (n < 0)
		return (int)n;
	*pos += (size_t)n;
	return 0;
}

/* One dict cell's (key . value) pair, at pos just past the cell tag. Keys that are not ours, or
 * not symbols at all, are stepped over with their values. */
static int read_entry(const uint8_t *p, size_t len, size_t *pos, struct pdu_state *st)
{
	char key[64];
	int err;

	if (len - *pos < 1 || p[(*pos)++] != FECD_PMT_PAIR)
		return -FECD_PROTO_EPMT;
	if (read_symbol(p, len, pos, key, sizeof(key)) != 0) {
		err = skip_any(p, len, pos);
		return err ? err : skip_any(p, len, pos);
	}
	for (size_t i = 0; i < NKEYS; i++) {
		if (strcmp(pdu_keys[i].name, key) != 0)
			continue;
		if (st->seen[i])
			return -FECD_PROTO_EPMT;
		st->seen[i] = true;
		if (pdu_keys[i].kind == KIND_UINT && pdu_keys[i].only_if)
			st->h->flags |= pdu_keys[i].only_if;
		return read_value(p, len, pos, &pdu_keys[i], st);
	}
	return skip_any(p, len, pos);
}

int fecd_pdu_parse_ex(const void *buf, size_t len, struct fecd_out_hdr *h, const uint8_t **bytes,
                      size_t *nbytes, bool *unpacked)
{
	const uint8_t *p = buf;
	struct fecd_out_hdr tmp;
	struct pdu_state st = {.h = h ? h : &tmp};
	size_t pos = 0;

	if (!p)
		return -FECD_PROTO_EPMT;
	memset(st.h, 0, sizeof(*st.h));
	st.h->version = FECD_PROTO_VERSION;
	st.h->type = FECD_MSG_DECODED;

	if (len < 1 || p[pos++] != FECD_PMT_PAIR)
		return -FECD_PROTO_EPMT;
	/* Dict cells are 0x09 from current GNU Radio; older releases wrote plain pairs (0x07). */
	for (;;) {
		if (len - pos < 1)
			return -FECD_PROTO_EPMT;
		uint8_t tag = p[pos++];
		if (tag == FECD_PMT_NULL)
			break;
		if (tag != FECD_PMT_DICT && tag != FECD_PMT_PAIR)
			return -FECD_PROTO_EPMT;
		int err = read_entry(p, len, &pos, &st);
		if (err)
			return err;
	}
	for (size_t i = 0; i < NKEYS; i++) {
		if (pdu_keys[i].required && !st.seen[i])
			return -FECD_PROTO_EPMT;
		if (pdu_keys[i].kind == KIND_WORK && !st.seen[i])
			st.h->work = st.h->iterations; /* sent only where they differ */
	}

	if (len - pos < FECD_PMT_U8VECTOR_HEAD_SIZE - 1 || p[pos] != FECD_PMT_UNIFORM_VECTOR ||
	    p[pos + 1] != FECD_PMT_UVI_U8)
		return -FECD_PROTO_EPMT;
	uint32_t n = fecd__get_be32(p + pos + 2);
	uint8_t npad = p[pos + 6];
	pos += 7;
	if (len - pos < npad)
		return -FECD_PROTO_EPMT;
	pos += npad;
	if (len - pos != n) /* one PMT per message: nothing may follow the vector */
		return -FECD_PROTO_EPMT;
	if (n != vector_bytes(st.h->payload_bits, st.unpacked))
		return -FECD_PROTO_ELENGTH;
	if (bytes)
		*bytes = p + pos;
	if (nbytes)
		*nbytes = n;
	if (unpacked)
		*unpacked = st.unpacked;
	return 0;
}

int fecd_pdu_parse(const void *buf, size_t len, struct fecd_out_hdr *h, const uint8_t **bytes,
                   size_t *nbytes)
{
	return fecd_pdu_parse_ex(buf, len, h, bytes, nbytes, NULL);
}
