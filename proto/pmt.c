/*
 * GNU Radio PMT serialization: a skipper that measures one serialized object of any type GNU
 * Radio writes (used to step over the pass_tags header of gr-zeromq), and a small writer for the
 * PDUs fecd publishes. Input is hostile: every length is checked against the bytes that remain
 * before it is used, list tails are walked iteratively and all other nesting is capped at
 * FECD_PMT_MAX_DEPTH, so no input can read out of bounds, recurse without limit, or loop longer
 * than its own length.
 */
#include "fecd_proto.h"

#include <limits.h>
#include <string.h>

#include "bytes.h"
#include "pmt_int.h"

unsigned fecd__pmt_uvi_size(uint8_t uvi)
{
	switch (uvi) {
#define X(name, val, size)                                                                         \
	case val:                                                                                  \
		return size;
		FECD_PMT_UVI_MAP(X)
#undef X
	default:
		return 0;
	}
}

/* Bytes left after pos, which the callers keep <= len. */
static inline size_t avail(size_t len, size_t pos)
{
	return len - pos;
}

static int skip_object(const uint8_t *p, size_t len, size_t *pos, unsigned depth)
{
	if (depth > FECD_PMT_MAX_DEPTH)
		return -FECD_PROTO_EPMT;

	/* Each turn of this loop handles one object; pairs and dict cells continue with their cdr
	 * at the same depth, so a long list costs no stack. */
	for (;;) {
		if (avail(len, *pos) < 1)
			return -FECD_PROTO_EPMT;
		uint8_t tag = p[(*pos)++];
		size_t need;

		switch (tag) {
		case FECD_PMT_TRUE:
		case FECD_PMT_FALSE:
		case FECD_PMT_NULL:
			return 0;
		case FECD_PMT_SYMBOL:
			if (avail(len, *pos) < 2)
				return -FECD_PROTO_EPMT;
			need = fecd__get_be16(p + *pos);
			*pos += 2;
			if (need > FECD_PMT_SYMBOL_MAX)
				return -FECD_PROTO_EPMT;
			break;
		case FECD_PMT_INT32:
			need = 4;
			break;
		case FECD_PMT_DOUBLE:
		case FECD_PMT_UINT64:
		case FECD_PMT_INT64:
			need = 8;
			break;
		case FECD_PMT_COMPLEX:
			need = 16;
			break;
		case FECD_PMT_PAIR:
		case FECD_PMT_DICT: {
			int err = skip_object(p, len, pos, depth + 1);
			if (err)
				return err;
			continue;
		}
		case FECD_PMT_VECTOR:
		case FECD_PMT_TUPLE: {
			if (avail(len, *pos) < 4)
				return -FECD_PROTO_EPMT;
			uint32_t n = fecd__get_be32(p + *pos);
			*pos += 4;
			/* Every item takes at least one byte: a count beyond what is left is a lie,
			 * and refusing it here keeps the loop bounded by the input length. */
			if (n > avail(len, *pos))
				return -FECD_PROTO_EPMT;
			for (uint32_t i = 0; i < n; i++) {
				int err = skip_object(p, len, pos, depth + 1);
				if (err)
					return err;
			}
			return 0;
		}
		case FECD_PMT_UNIFORM_VECTOR: {
			if (avail(len, *pos) < 6)
				return -FECD_PROTO_EPMT;
			unsigned size = fecd__pmt_uvi_size(p[*pos]);
			uint32_t n = fecd__get_be32(p + *pos + 1);
			uint8_t npad = p[*pos + 5];
			*pos += 6;
			if (!size || avail(len, *pos) < npad)
				return -FECD_PROTO_EPMT;
			*pos += npad;
			uint64_t bytes = (uint64_t)n * size;
			if (bytes > avail(len, *pos))
				return -FECD_PROTO_EPMT;
			*pos += (size_t)bytes;
			return 0;
		}
		default: /* FECD_PMT_COMMENT (GNU Radio refuses it too) and unknown tags */
			return -FECD_PROTO_EPMT;
		}
		if (avail(len, *pos) < need)
			return -FECD_PROTO_EPMT;
		*pos += need;
		return 0;
	}
}

long fecd_pmt_skip(const void *buf, size_t len)
{
	size_t pos = 0;

	if (!buf)
		return -FECD_PROTO_EPMT;
	if (len > LONG_MAX)
		len = LONG_MAX;
	int err = skip_object(buf, len, &pos, 0);
	return err ? err : (long)pos;
}

void fecd__pmt_put_raw(struct fecd__pmt_writer *w, const void *src, size_t n)
{
	if (w->overflow || n > w->cap - w->len) {
		w->overflow = true;
		return;
	}
	if (n)
		memcpy(w->buf + w->len, src, n);
	w->len += n;
}

void fecd__pmt_put_tag(struct fecd__pmt_writer *w, uint8_t tag)
{
	fecd__pmt_put_raw(w, &tag, 1);
}

void fecd__pmt_put_symbol(struct fecd__pmt_writer *w, const char *name)
{
	size_t n = strlen(name);
	uint8_t head[3] = {FECD_PMT_SYMBOL};

	if (n > FECD_PMT_SYMBOL_MAX) {
		w->overflow = true;
		return;
	}
	fecd__put_be16(head + 1, (uint16_t)n);
	fecd__pmt_put_raw(w, head, sizeof(head));
	fecd__pmt_put_raw(w, name, n);
}

void fecd__pmt_put_uint64(struct fecd__pmt_writer *w, uint64_t v)
{
	uint8_t b[FECD_PMT_UINT64_SIZE] = {FECD_PMT_UINT64};

	fecd__put_be64(b + 1, v);
	fecd__pmt_put_raw(w, b, sizeof(b));
}

void fecd__pmt_put_double(struct fecd__pmt_writer *w, double v)
{
	uint8_t b[FECD_PMT_DOUBLE_SIZE] = {FECD_PMT_DOUBLE};

	fecd__put_be64(b + 1, fecd__f64_bits(v));
	fecd__pmt_put_raw(w, b, sizeof(b));
}

void fecd__pmt_put_bool(struct fecd__pmt_writer *w, bool v)
{
	fecd__pmt_put_tag(w, v ? FECD_PMT_TRUE : FECD_PMT_FALSE);
}

size_t fecd__pmt_put_u8vector_head(struct fecd__pmt_writer *w, uint32_t n)
{
	uint8_t b[FECD_PMT_U8VECTOR_HEAD_SIZE] = {FECD_PMT_UNIFORM_VECTOR, FECD_PMT_UVI_U8};

	fecd__put_be32(b + 2, n);
	b[6] = 1; /* npad: GNU Radio always writes one zero byte of padding */
	b[7] = 0;
	fecd__pmt_put_raw(w, b, sizeof(b));
	return w->len;
}
