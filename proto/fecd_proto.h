/*
 * fecd wire protocol: the one header shared by the daemon, the clients and the tests.
 *
 * Every multi-byte field on the wire is little-endian; structures here are the parsed, host-order
 * view and are never sent with memcpy. PROTOCOL.md is the prose specification; the enums below are
 * append-only and each is listed there as a table. GNU Radio compatibility (gr-zeromq raw items
 * with the pass_tags header in, PMT PDUs out) is specified in the same document.
 */
#ifndef FECD_PROTO_H
#define FECD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FECD_PROTO_VERSION 1u
#define FECD_MAGIC 0x44434546u /* bytes 'F' 'E' 'C' 'D' in wire order */

/* Largest payload the daemon accepts in one input message (symbols * bytes per symbol). */
#define FECD_MAX_PAYLOAD_BYTES (64u << 20)
/* Largest hdr_len a receiver accepts: room for later versions to append fields. */
#define FECD_HDR_MAX_LEN 1024u

/* Message types (append-only). */
#define FECD_MSG_TYPE_MAP(X)                                                                       \
	X(SYMBOLS, 1, "symbols")                                                                   \
	X(DECODED, 2, "decoded")

enum fecd_msg_type {
#define X(name, val, str) FECD_MSG_##name = val,
	FECD_MSG_TYPE_MAP(X)
#undef X
};

/* Soft symbol formats (append-only), with the bits of one value. Polarity is a flag, not a format.
 * Bit formats carry one value (an LLR) per symbol; the vector format f32v carries q values per
 * q-ary symbol, q being the channel's code's (fec_info.in_q), which the header does not say. */
#define FECD_FORMAT_MAP(X)                                                                         \
	X(F32_LLR, 1, "f32", 32)     /* float32 LLR, log(P0/P1): positive favours 0 */                \
	X(S8_LLR, 2, "s8", 8)        /* int8 LLR, -127..127 (-128 read as -127), 0 = erased */       \
	X(U8_OFFSET, 3, "u8", 8)     /* uint8 offset binary: 0 = strong 0, 255 = strong 1 */        \
	X(S4_PACKED, 4, "s4", 4)     /* 4-bit two's complement LLR, two per byte, high nibble first */ \
	X(F32V, 5, "f32v", 32)       /* q float32 log-probabilities per q-ary symbol, value 0 first */

enum fecd_format {
#define X(name, val, str, bits) FECD_FMT_##name = val,
	FECD_FORMAT_MAP(X)
#undef X
};

/* Decoder families (append-only; also the "family" byte of a decoded message). */
#define FECD_FAMILY_MAP(X)                                                                         \
	X(VITERBI, 1, "viterbi")                                                                   \
	X(FANO, 2, "fano")                                                                         \
	X(LDPC, 3, "ldpc")                                                                         \
	X(NBLDPC, 4, "nbldpc")                                                                     \
	X(IDS, 5, "ids")

enum fecd_family {
#define X(name, val, str) FECD_FAMILY_##name = val,
	FECD_FAMILY_MAP(X)
#undef X
};

/* Soft output kinds (append-only): what part 3 of a native output message holds, the output
 * header's soft_kind. */
#define FECD_SOFT_MAP(X)                                                                           \
	X(NONE, 0, "none")         /* no soft output (and, with FECD_OUT_SOFT, bit_llr: see 3.2) */  \
	X(BIT_LLR, 1, "bit_llr")   /* one float32 LLR per decoded bit, positive favours 0 */        \
	X(SYM_LOGP, 2, "sym_logp") /* soft_per_unit float32 log-posteriors per decoded q-ary symbol */

enum fecd_soft_kind {
#define X(name, val, str) FECD_SOFT_##name = val,
	FECD_SOFT_MAP(X)
#undef X
};

/* Input flags (append-only bits). */
#define FECD_IN_FRAME_START 0x0001u   /* first message of a frame */
#define FECD_IN_FRAME_END 0x0002u     /* last message of a frame */
#define FECD_IN_END_OF_STREAM 0x0004u /* sender is done: flush and decode everything */
#define FECD_IN_POLARITY_ONE 0x0008u  /* inverted polarity: positive LLR (or low u8) favours 1 */
#define FECD_IN_FLAGS_KNOWN 0x000fu

/* Decoded-frame status (append-only). */
#define FECD_STATUS_MAP(X)                                                                         \
	X(DECODED, 0, "decoded")                                                                   \
	X(NOT_CONVERGED, 1, "not_converged")                                                       \
	X(ERASED, 2, "erased")

enum fecd_status {
#define X(name, val, str) FECD_STATUS_##name = val,
	FECD_STATUS_MAP(X)
#undef X
};

/* Output flags (append-only bits). */
#define FECD_OUT_STREAM 0x0001u        /* a run of a continuous stream; out_bit_offset is valid */
#define FECD_OUT_END_OF_STREAM 0x0002u /* last message for the stream the sender ended */
#define FECD_OUT_SOFT 0x0004u          /* a third part carries float32 soft values */
#define FECD_OUT_CODE_CHANGED 0x0008u  /* first message decoded with a new code generation */
#define FECD_OUT_FLAGS_KNOWN 0x000fu

/* Why a stream ended: the output header's end_cause, set with FECD_OUT_END_OF_STREAM (append-only;
 * PROTOCOL.md 3.3). Only SENDER is the end a receiver waits for; the others are ends fecd made,
 * after which the sender's data goes on in a new stream. */
#define FECD_END_MAP(X)                                                                            \
	X(UNSAID, 0, "unsaid")           /* no END_OF_STREAM here, or a fecd older than the field */ \
	X(SENDER, 1, "sender")           /* the sender's END_OF_STREAM */                            \
	X(CODE_CHANGE, 2, "code_change") /* a channel.update that changes the code took effect */    \
	X(GAP, 3, "gap")                 /* a hole in a SUB input too large to bridge */             \
	X(CLOSED, 4, "closed")           /* the channel was deleted, or fecd stopped */              \
	X(RESET, 5, "reset")             /* channel.reset: the sender starts again */

enum fecd_end_cause {
#define X(name, val, str) FECD_END_##name = val,
	FECD_END_MAP(X)
#undef X
};

/* Input header: part 1 of a native input message; part 2 is the payload. On the wire (PROTOCOL.md
 * has the byte table) it starts with FECD_MAGIC, and one reserved zero byte follows format. */
#define FECD_IN_HDR_LEN 32u
struct fecd_in_hdr {
	uint8_t version;       /* FECD_PROTO_VERSION */
	uint8_t type;          /* FECD_MSG_SYMBOLS */
	uint16_t hdr_len;      /* bytes of header on the wire, >= FECD_IN_HDR_LEN */
	uint32_t channel;      /* channel id */
	uint8_t format;        /* enum fecd_format */
	uint16_t flags;        /* FECD_IN_* */
	uint64_t seq;          /* sender sequence number, +1 per message */
	uint32_t symbol_count; /* symbols in the payload */
	uint32_t frame_len;    /* frame families: symbols in the whole frame; 0 for streams */
};

/* Output header: part 1 of a native decoded message; part 2 the packed bits, part 3 soft values.
 * On the wire it starts with FECD_MAGIC; the fields below follow in order, each naturally aligned
 * (PROTOCOL.md 3.1 has the offsets), with 2 reserved zero bytes before instance: 88 bytes. work,
 * soft_per_unit, soft_kind and end_cause took bytes that were reserved (zero) before them;
 * instance was appended (senders before it wrote 80 bytes, which receivers still take, reading
 * instance 0). */
#define FECD_OUT_HDR_LEN     88u
#define FECD_OUT_HDR_MIN_LEN 80u
struct fecd_out_hdr {
	uint8_t version;
	uint8_t type;            /* FECD_MSG_DECODED */
	uint16_t hdr_len;        /* >= FECD_OUT_HDR_LEN */
	uint32_t channel;
	uint8_t family;          /* enum fecd_family */
	uint8_t status;          /* enum fecd_status */
	uint16_t flags;          /* FECD_OUT_* */
	uint32_t code_gen;       /* code generation that decoded this: 1 at creation, +1 per update */
	uint32_t work;           /* the family's work on it: iterations, search cycles; or 0 */
	uint64_t frame_seq;      /* per channel, +1 per decoded message, from 0 */
	uint64_t in_first;       /* index of the first input symbol owned by this output, per channel */
	uint64_t in_seq;         /* sender sequence number of the message holding in_first */
	uint64_t out_bit_offset; /* streams: index of the first decoded bit in the decoded stream */
	uint32_t in_count;       /* input symbols owned by this output */
	uint32_t payload_bits;   /* decoded bits in part 2, packed MSB first */
	uint32_t soft_count;     /* float32 values in part 3 (0 without FECD_OUT_SOFT) */
	uint16_t iterations;     /* work saturated at 65535 (what version 1 had before work) */
	uint16_t soft_per_unit;  /* part 3's values per decoded unit: 1 per bit, q per q-ary symbol */
	float metric;            /* family metric: Viterbi best path metric, else 0 */
	uint8_t soft_kind;       /* enum fecd_soft_kind of part 3; FECD_SOFT_NONE without it */
	uint8_t end_cause;       /* enum fecd_end_cause with FECD_OUT_END_OF_STREAM; else 0 */
	uint64_t instance;       /* the channel's instance: random, nonzero, new at each creation */
};

/* Errors returned (negated) by the parsers; one table gives the enum and the messages. */
#define FECD_PROTO_ERRNO_MAP(X)                                                                    \
	X(TRUNCATED, "message shorter than its header says")                                       \
	X(MAGIC, "bad magic: not a fecd message")                                                  \
	X(VERSION, "unsupported protocol version")                                                 \
	X(TYPE, "unexpected message type")                                                         \
	X(HDRLEN, "header length out of range")                                                    \
	X(FORMAT, "unknown symbol format")                                                         \
	X(FLAGS, "unknown flag bits set")                                                          \
	X(LENGTH, "payload length does not match symbol count and format")                         \
	X(TOO_LARGE, "payload larger than the daemon accepts")                                     \
	X(PARTS, "wrong number of message parts")                                                  \
	X(GR_TAGS, "malformed GNU Radio tag header")                                               \
	X(PMT, "malformed or unsupported PMT")                                                     \
	X(NOSPACE, "output buffer too small")                                                      \
	X(FAMILY, "unknown decoder family")                                                        \
	X(STATUS, "unknown frame status")                                                          \
	X(SOFT, "unknown soft output kind, or a soft layout that does not fit it")

enum fecd_proto_err {
	FECD_PROTO_OK = 0,
#define X(name, msg) FECD_PROTO_E##name,
	FECD_PROTO_ERRNO_MAP(X)
#undef X
};

/* Message for a (negative or positive) parser error code. */
const char *fecd_proto_strerror(int err);

/* Enum names <-> values (the lowercase strings of the tables above); NULL or -1 if unknown. */
const char *fecd_format_name(int fmt);
int fecd_format_from_name(const char *name);
const char *fecd_family_name(int family);
int fecd_family_from_name(const char *name);
const char *fecd_status_name(int status);
int fecd_status_from_name(const char *name);
const char *fecd_soft_name(int soft_kind);
int fecd_soft_from_name(const char *name);
const char *fecd_end_name(int end_cause);
/* True for the output that ends a stream because its sender said END_OF_STREAM (not for an end
 * fecd made at a code change, a gap or a close, nor for one that does not say why). */
bool fecd_out_sender_ended(const struct fecd_out_hdr *h);

/* Bytes that nsyms symbols of a format occupy (4-bit: rounded up), 0 for an unknown format;
 * SIZE_MAX when the product would overflow. The vector format's symbols are q values each:
 * fecd_format_bytes_q takes q (1 for bit formats, whatever is passed; 0 is read as 1), and
 * fecd_format_bytes is fecd_format_bytes_q with q = 1 (the least an f32v symbol takes). */
size_t fecd_format_bytes(int fmt, size_t nsyms);
size_t fecd_format_bytes_q(int fmt, size_t nsyms, uint32_t q);
/* True for a format of q values per symbol (f32v), false for bit formats and unknown ones. */
bool fecd_format_is_vector(int fmt);

/* Native input. parse checks (in this order, PROTOCOL.md 2.4) length, magic, version, type,
 * hdr_len (FECD_IN_HDR_LEN..FECD_HDR_MAX_LEN and within len), format, flags, a symbol_count of 0
 * only with END_OF_STREAM, and the payload size limit (f32v: at q = 1); payload_check then checks
 * that part 2 is exactly symbol_count symbols in that format, of q values each for f32v
 * (payload_check_q; payload_check takes q = 1). pack writes magic, version, type and hdr_len
 * itself and zeroes the reserved byte. Each returns 0 or a negative FECD_PROTO_E* code. */
int fecd_in_hdr_parse(const void *buf, size_t len, struct fecd_in_hdr *out);
int fecd_in_payload_check(const struct fecd_in_hdr *h, size_t payload_len);
int fecd_in_payload_check_q(const struct fecd_in_hdr *h, size_t payload_len, uint32_t q);
void fecd_in_hdr_pack(const struct fecd_in_hdr *h, uint8_t buf[FECD_IN_HDR_LEN]);

/* Native output: as the input header, plus known family, status and flags, no soft_count without
 * FECD_OUT_SOFT, and a soft layout that fits (PROTOCOL.md 3.2: a known soft_kind; bit_llr with
 * one value per unit, sym_logp with 2 or more; soft_count a multiple of soft_per_unit; none of it
 * without FECD_OUT_SOFT). A message with FECD_OUT_SOFT and soft_kind 0, as senders wrote before
 * the field, is read as bit_llr with soft_per_unit 1: what part 3 meant then; work 0 with
 * iterations set (a sender from before work) is read as work = iterations. pack writes magic,
 * version, type, hdr_len and zero reserved bytes. */
int fecd_out_hdr_parse(const void *buf, size_t len, struct fecd_out_hdr *out);
void fecd_out_hdr_pack(const struct fecd_out_hdr *h, uint8_t buf[FECD_OUT_HDR_LEN]);
/* Checks part 2 (payload_len bytes: payload_bits packed MSB first, rounded up to whole bytes) and
 * part 3 (soft_len bytes: soft_count float32, only with FECD_OUT_SOFT; 0 when it is absent). */
int fecd_out_payload_check(const struct fecd_out_hdr *h, size_t payload_len, size_t soft_len);
/* A parsed header's soft layout: the units part 3 covers (bits for bit_llr, q-ary symbols for
 * sym_logp; soft_count / soft_per_unit), 0 without FECD_OUT_SOFT. */
uint32_t fecd_out_soft_units(const struct fecd_out_hdr *h);
/* Soft value i of part 3 (soft_len bytes, little-endian float32 as received, no alignment
 * needed); 0 past the end. */
float fecd_out_soft_value(const void *part3, size_t soft_len, uint32_t i);

/* GNU Radio gr-zeromq pass_tags header (magic 0x5FF0, version 1, u64 offset, u64 tag count, tags of
 * u64 offset + three serialized PMTs): on success *hdr_len is the bytes to skip and *offset the
 * item offset it carries; the items follow in the same ZMQ frame (PROTOCOL.md 8.1). Returns 0,
 * or -FECD_PROTO_EGR_TAGS / -FECD_PROTO_EPMT if buf does not start with a complete, well-formed
 * header. */
#define FECD_GR_TAG_MAGIC 0x5FF0u
#define FECD_GR_TAG_VERSION 1u
int fecd_gr_tag_header_parse(const void *buf, size_t len, size_t *hdr_len, uint64_t *offset);

/* One stream tag for fecd_gr_tag_header_write: symbol key and srcid, uint64 value. */
struct fecd_gr_tag {
	uint64_t offset;
	const char *key;
	uint64_t value;
	const char *srcid;
};

/* Writes the pass_tags header gr-zeromq would put before items starting at item offset, with the
 * given tags (for senders that imitate GNU Radio, and for tests). Returns the bytes written, or
 * -FECD_PROTO_ENOSPACE when cap is too small, -FECD_PROTO_EPMT for a symbol over 1024 bytes. */
long fecd_gr_tag_header_write(uint8_t *buf, size_t cap, uint64_t offset,
			      const struct fecd_gr_tag *tags, unsigned ntags);

/* Bytes one serialized PMT at buf occupies (any type GNU Radio serializes), or a negative error.
 * Nesting deeper than FECD_PMT_MAX_DEPTH containers is refused. */
#define FECD_PMT_MAX_DEPTH 32
long fecd_pmt_skip(const void *buf, size_t len);

/* GNU Radio PDU out: pmt::serialize(cons(dict, u8vector)) as gr-zeromq's message sources expect.
 * The dict holds the output header's fields (channel, frame_seq, status, in_first, in_count,
 * payload_bits, ...); the vector holds the decoded bits packed MSB first, or one bit per byte when
 * unpacked is set. packed_bits holds payload_bits bits packed MSB first either way. Returns bytes
 * written or a negative error (-FECD_PROTO_ENOSPACE when cap is too small, -FECD_PROTO_ESTATUS /
 * -FECD_PROTO_EFAMILY for a value without a name). */
long fecd_pdu_write(const struct fecd_out_hdr *h, const uint8_t *packed_bits, bool unpacked,
		    uint8_t *buf, size_t cap);
/* Upper bound on fecd_pdu_write's output for payload_bits decoded bits (reached with every
 * optional key and the longest names). */
size_t fecd_pdu_max_len(uint32_t payload_bits, bool unpacked);

/* Parse a PDU back (for sinks and tests): fills the header fields found in the dict (version and
 * type as for a native message, hdr_len 0, absent optional keys 0, an absent work equal to
 * iterations, as the writer leaves it out then) and points *bytes / *nbytes at
 * the vector inside buf. Unknown keys are skipped; see PROTOCOL.md 8.3 for what is refused. */
int fecd_pdu_parse(const void *buf, size_t len, struct fecd_out_hdr *h, const uint8_t **bytes,
		   size_t *nbytes);
/* The same, also saying whether the vector holds one bit per byte (*unpacked may be NULL). */
int fecd_pdu_parse_ex(const void *buf, size_t len, struct fecd_out_hdr *h, const uint8_t **bytes,
		      size_t *nbytes, bool *unpacked);

#endif
