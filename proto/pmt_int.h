/*
 * GNU Radio PMT serialization internals shared by the tag-header parser and the PDU writer/parser:
 * the tag values of GNU Radio's pmt/pmt_serial_tags.h (verified against its pmt_serialize.cc; see
 * PROTOCOL.md) and a small bounds-checked writer. Integers in PMT serialization are big-endian.
 */
#ifndef FECD_PROTO_PMT_INT_H
#define FECD_PROTO_PMT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Serialization tags (one byte before every object). */
#define FECD_PMT_TAG_MAP(X)                                                                        \
	X(TRUE, 0x00)                                                                              \
	X(FALSE, 0x01)                                                                             \
	X(SYMBOL, 0x02)  /* u16 length, that many bytes of name */                                 \
	X(INT32, 0x03)   /* 4 bytes */                                                             \
	X(DOUBLE, 0x04)  /* 8 bytes, IEEE-754 bits */                                              \
	X(COMPLEX, 0x05) /* two doubles: real, imaginary */                                        \
	X(NULL, 0x06)    /* the empty list */                                                      \
	X(PAIR, 0x07)    /* car, then cdr */                                                       \
	X(VECTOR, 0x08)  /* u32 count, that many objects */                                        \
	X(DICT, 0x09) /* a dict cell: car (key . value) pair, then cdr (the rest of the dict) */   \
	X(UNIFORM_VECTOR, 0x0a) /* u8 item type, u32 count, u8 npad, npad bytes, the items */      \
	X(UINT64, 0x0b)         /* 8 bytes */                                                      \
	X(TUPLE, 0x0c)          /* u32 count, that many objects */                                 \
	X(INT64, 0x0d)          /* 8 bytes */                                                      \
	X(COMMENT, 0x3b)        /* defined by the format, refused by GNU Radio's deserializer */

enum fecd__pmt_tag {
#define X(name, val) FECD_PMT_##name = val,
	FECD_PMT_TAG_MAP(X)
#undef X
};

/* Uniform vector item types and their sizes in bytes (the endianness bit 0x80 is never set by
 * GNU Radio and is refused, as GNU Radio's deserializer refuses it). */
#define FECD_PMT_UVI_MAP(X)                                                                        \
	X(U8, 0x00, 1)                                                                             \
	X(S8, 0x01, 1)                                                                             \
	X(U16, 0x02, 2)                                                                            \
	X(S16, 0x03, 2)                                                                            \
	X(U32, 0x04, 4)                                                                            \
	X(S32, 0x05, 4)                                                                            \
	X(U64, 0x06, 8)                                                                            \
	X(S64, 0x07, 8)                                                                            \
	X(F32, 0x08, 4)                                                                            \
	X(F64, 0x09, 8)                                                                            \
	X(C32, 0x0a, 8)                                                                            \
	X(C64, 0x0b, 16)

enum fecd__pmt_uvi {
#define X(name, val, size) FECD_PMT_UVI_##name = val,
	FECD_PMT_UVI_MAP(X)
#undef X
};

/* GNU Radio refuses longer symbols when it deserializes (a 1024-byte buffer); so do we. */
#define FECD_PMT_SYMBOL_MAX 1024u

/* Item size of a uniform vector type, 0 if unknown. */
unsigned fecd__pmt_uvi_size(uint8_t uvi);

/* A writer that never writes past cap; overflow is remembered and reported once at the end. */
struct fecd__pmt_writer {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool overflow;
};

void fecd__pmt_put_raw(struct fecd__pmt_writer *w, const void *src, size_t n);
void fecd__pmt_put_tag(struct fecd__pmt_writer *w, uint8_t tag);
void fecd__pmt_put_symbol(struct fecd__pmt_writer *w, const char *name);
void fecd__pmt_put_uint64(struct fecd__pmt_writer *w, uint64_t v);
void fecd__pmt_put_double(struct fecd__pmt_writer *w, double v);
void fecd__pmt_put_bool(struct fecd__pmt_writer *w, bool v);
/* The head of a u8 vector of n items (with GNU Radio's one byte of padding); the caller then
 * writes the n bytes. Returns where the items start (valid only without overflow). */
size_t fecd__pmt_put_u8vector_head(struct fecd__pmt_writer *w, uint32_t n);

/* Serialized sizes, for exact length bounds. */
static inline size_t fecd__pmt_symbol_size(size_t namelen)
{
	return 3 + namelen;
}
#define FECD_PMT_UINT64_SIZE        9u
#define FECD_PMT_DOUBLE_SIZE        9u
#define FECD_PMT_BOOL_SIZE          1u
#define FECD_PMT_U8VECTOR_HEAD_SIZE 8u

#endif
