/*
 * The one decoder interface every family implements, and the family table.
 *
 * A code is described by a struct fec_spec (family + that family's parameters). A decoder built from
 * it is immutable and may be shared by threads; each thread passes its own scratch memory. Decoding
 * works on batches of jobs laid out at fixed strides, so that a CPU thread pool or a GPU kernel can
 * take a batch as it is:
 *   - stream decoders (continuous input) decode overlapping blocks: a job owns own_len symbols and
 *     sees head_len symbols before them and the rest of in_len after them (the seed's PBVD blocks);
 *   - frame decoders decode one frame per job, of fixed or variable length (in_len per job).
 * Output is hard bits, packed MSB first, and, where the family has it, soft values per output bit or
 * symbol (float LLRs or probabilities) for an outer decoder.
 *
 * Soft input is what the decoder's fec_info says (in_kind): int8 LLRs (log(P0/P1) scaled, positive
 * favours 0, 0 is neutral: erased or depunctured, range -127..127; softbits.h converts every bit
 * format to them), float32 LLRs, or q float32 log-probabilities per q-ary symbol.
 *
 * Frame families share a block of channel-level settings that are no code's own (struct
 * fec_frame_opts: the decoder's input kind, the LLR scale, framing and the sync marker): one
 * parameter table (fec_frame.c) that the codec appends to each such family's table, so that they
 * are set and read like the family's own parameters (config files, channel.create, the text form,
 * codes.list).
 *
 * Functions return 0 or a negative FEC_E* code; fec_strerror names it. The library never prints.
 */
#ifndef FEC_H
#define FEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fecd_proto.h"
#include "conv.h"
#include "ldpc.h"
#include "fano.h"
#include "nbldpc.h"
#include "ids.h"

#define FEC_ERRNO_MAP(X)                                                                           \
	X(INVAL, "invalid argument")                                                               \
	X(RANGE, "parameter out of range")                                                         \
	X(NOMEM, "out of memory")                                                                  \
	X(NOTSUP, "not supported for this code")                                                   \
	X(FAMILY, "unknown decoder family")                                                        \
	X(PARAM, "unknown parameter")                                                              \
	X(SHORT, "input too short")                                                                \
	X(LONG, "input too long")                                                                  \
	X(DEVICE, "GPU device error")                                                              \
	X(TIME, "took longer than allowed")

enum fec_err {
	FEC_OK = 0,
#define X(name, msg) FEC_E##name,
	FEC_ERRNO_MAP(X)
#undef X
};

const char *fec_strerror(int err);

/* Building a code (reading its file, generating it, deriving its encoder) can take long for large
 * codes. A caller that must bound it sets a deadline for the calling thread: CLOCK_MONOTONIC
 * nanoseconds (uv_hrtime's clock), 0 for none. Past it, spec_finish, decoder and encoder creation
 * stop at their next check and return -FEC_ETIME. Each thread has its own; the default is none. */
void fec_build_deadline_set(uint64_t deadline_ns);
uint64_t fec_build_deadline(void);

/* Code files (codes_dir.c), for every family whose codes come from files (ldpc's matrices, and
 * its presets, are file names there). The codes folder is process-wide: fec_codes_dir_set(),
 * else $FECD_CODES_DIR, else /usr/share/fecd/codes; relative names resolve against it. Which
 * paths a spec may name is process-wide too (fec_code_paths_set): any path (the library's
 * default, for the clients and tests), or only files inside the codes folder (the daemon's, where
 * the paths come from control clients): then an absolute path, a ".." component or a name whose
 * real path (links followed) is outside the folder's real path is refused. Either way a file must
 * be a regular file (FIFOs, devices, sockets and folders are refused before anything is read) of
 * at most FEC_CODE_FILE_MAX bytes, read in chunks between which the build deadline is checked, and
 * no error message quotes a file's contents: parsers say file:line, what was expected and what
 * kind of thing was found there ("a word", "a larger number", "end of file"), never its text.
 *
 * The setters copy the text; NULL restores the default folder. All are thread-safe:
 * fec_codes_dir returns the calling thread's own copy, valid until its next call on that thread. */
enum fec_path_policy { FEC_PATHS_ANY, FEC_PATHS_CODES_DIR };
void fec_codes_dir_set(const char *dir);
const char *fec_codes_dir(void);
/* FEC_PATHS_ANY until set. */
void fec_code_paths_set(enum fec_path_policy paths);
enum fec_path_policy fec_code_paths(void);
/* Largest code file read: 20 times the largest standard one (DVB-S2 r1/2, 3.1 MB), and room for
 * an alist of 2^20 columns as dense as DVB-S2's (about 48 bytes a column, 50 MB). */
#define FEC_CODE_FILE_MAX (64u << 20)

/* What a decoder takes in per input symbol: the daemon sizes job slots and picks the wire
 * conversion from it, so that nothing outside a family reads the family's spec. */
enum fec_in_kind {
	FEC_IN_S8_LLR = 1,  /* one int8 LLR (fec_batch.in); every bit format converts to it */
	FEC_IN_F32_LLR,     /* one float32 LLR (fec_batch.in_f32) */
	FEC_IN_F32_SYMLOGP, /* in_q float32 log-probabilities of a q-ary symbol (fec_batch.in_f32) */
};

/* How a frame family's symbols reach its decoder: channel-level settings, not the code's own, in
 * every frame family's spec (fec_family_impl.frame_opts) and set through one parameter table
 * (fec_frame.c: in, llr_scale, framing, asm, asm_threshold, asm_lock_threshold, asm_flywheel).
 * All zero in the specs of other families. */
enum fec_framing {
	FEC_FRAMING_MESSAGE = 1, /* one frame per input message (or group of messages) */
	FEC_FRAMING_ASM,         /* frames found after an attached sync marker in a raw stream */
};

#define FEC_ASM_MAX_BITS 64

struct fec_frame_opts {
	/* the decoder's input: FEC_IN_S8_LLR (s8), FEC_IN_F32_LLR (f32) or, for a family of q-ary
	 * symbols (nbldpc; others refuse it), FEC_IN_F32_SYMLOGP (f32v) */
	enum fec_in_kind in;
	/* The one scale of the channel's LLRs: int8 LLR = round(LLR * llr_scale). float32 input is
	 * quantized to int8 with it, int8 input is read as LLR = value / llr_scale (float slots,
	 * sum-product, offsets, soft output). */
	float llr_scale;
	enum fec_framing framing;
	uint64_t asm_marker;      /* sync marker, first sent bit in bit asm_bits-1 */
	uint8_t asm_bits;         /* its length in bits, 8..64 */
	float asm_threshold;      /* normalised soft correlation needed to accept, 0..1 */
	float asm_lock_threshold; /* the same at the expected position after a frame, 0..1 */
	uint8_t asm_flywheel;     /* failed tests there in a row that keep the timing */
};

/* A code: its family, the frame families' common block and that family's parameters. Plain
 * data: copy it by assignment. */
struct fec_spec {
	enum fecd_family family;
	struct fec_frame_opts frame; /* frame families only; zero otherwise */
	union {
		struct conv_spec conv; /* FECD_FAMILY_VITERBI */
		struct ldpc_spec ldpc;     /* FECD_FAMILY_LDPC */
		struct fano_spec fano;     /* FECD_FAMILY_FANO */
		struct nbldpc_spec nbldpc; /* FECD_FAMILY_NBLDPC */
		struct ids_spec ids;       /* FECD_FAMILY_IDS */
	} u;
};

/* ---- Parameter schema: one table per family drives config files, channel.create and codes.list. */

/* List items (OCT_LIST, HEX_LIST) are numbers of up to 64 bits. OCT_LIST items are written in
 * octal ("171"; JSON: a string, or an integer written with octal digits up to 2^53), HEX_LIST
 * items in hexadecimal, Karn's notation for polynomials ("0xf2d05351" or "f2d05351"; JSON: a
 * string). */
enum fec_param_type {
	FEC_PARAM_INT,      /* integer within [min, max] */
	FEC_PARAM_ENUM,     /* one of the names in choices (NULL-terminated) */
	FEC_PARAM_BOOL,
	FEC_PARAM_OCT_LIST, /* list of min_items..max_items octal numbers */
	FEC_PARAM_STRING,   /* free text up to max bytes (pattern strings, preset names, file paths) */
	FEC_PARAM_REAL,     /* real number within [min, max] / FEC_PARAM_REAL_UNIT */
	FEC_PARAM_HEX_LIST, /* list of min_items..max_items hexadecimal numbers */
	FEC_PARAM_CODE,     /* another family's code, a composite family's child (below) */
};

/* REAL bounds are kept in the integer min/max in millionths, so that every table stays one
 * initializer shape. */
#define FEC_PARAM_REAL_UNIT 1000000L

struct fec_param_desc {
	const char *name;
	enum fec_param_type type;
	long min, max;            /* INT: bounds; OCT_LIST, HEX_LIST: item bounds (fec_param_umin,
	                           * fec_param_umax); STRING, CODE: max length */
	unsigned max_items;       /* OCT_LIST, HEX_LIST only */
	const char *const *choices; /* ENUM: the names; CODE: the families allowed (NULL: any) */
	const char *def;          /* default as text, NULL when required or derived */
	const char *help;         /* one line: what it is and what is expected */
	unsigned min_items;       /* OCT_LIST, HEX_LIST: fewest items (0: 1; fec_param_min_items) */
};

/* List items are unsigned 64-bit: their bounds are min and max read as uint64_t, so that a table
 * whose items may take all 64 bits (a K=64 polynomial has its top bit set) gives max
 * FEC_PARAM_U64_MAX. */
#define FEC_PARAM_U64_MAX (-1L) /* 2^64 - 1 as a list item bound */
#ifndef __cplusplus
_Static_assert(sizeof(long) == sizeof(uint64_t), "list item bounds are kept in a long");
#endif

static inline uint64_t fec_param_umin(const struct fec_param_desc *d)
{
	return (uint64_t)d->min;
}

static inline uint64_t fec_param_umax(const struct fec_param_desc *d)
{
	return (uint64_t)d->max;
}

/* The fewest items a list takes (a table that says nothing: 1). */
static inline unsigned fec_param_min_items(const struct fec_param_desc *d)
{
	return d->min_items ? d->min_items : 1;
}

/* One list item in its list's notation (OCT_LIST: octal digits; HEX_LIST: hexadecimal digits
 * after an optional "0x"), as every reader of lists takes it: -FEC_EINVAL when the text is not
 * such a number, -FEC_ERANGE when it needs more than 64 bits. */
int fec_param_item_parse(enum fec_param_type type, const char *text, uint64_t *out);
/* The same number written back: "171", "0xf2d05351". */
void fec_param_item_format(enum fec_param_type type, uint64_t v, char *buf, size_t len);

/* A CODE parameter holds another family's code, so that a composite family (a turbo decoder
 * over two convolutional codes; an outer code fed by ids) names its children. Its value is the
 * child's text form ("PRESET[,key=value...]" or "FAMILY[,...]", fec_spec_from_string's), which
 * the parent keeps as text in its spec (a char array of up to FEC_CODE_TEXT_MAX bytes), so that
 * struct fec_spec stays plain data. Written in the parent's text form in parentheses where it
 * has commas: "turbo,inner=(ccsds,mode=terminated),iters=8"; in JSON a nested code object
 * ({"preset":"ccsds","mode":"terminated"}), or the text form as a string. The descriptor's max
 * is its longest text (below FEC_CODE_TEXT_MAX), choices the families it may name (NULL: any).
 * Setting it checks the text's length and parentheses only; the parent's spec_finish parses it
 * with fec_param_code_parse, whose messages name the parameter ("inner: polys: ..."), keeps the
 * canonical text it gives (so that equal codes compare equal), and its decoder_create builds the
 * child decoder from the child spec, which it owns. */
#define FEC_CODE_TEXT_MAX 512
#define FEC_CODE_DEPTH_MAX 4 /* codes nested in codes, at most (a bound on recursion) */
int fec_param_code_parse(const struct fec_param_desc *d, const char *text, struct fec_spec *child,
                         char *canon, size_t canonlen, char *err, size_t errlen);

/* A parameter value as the caller parsed it (from JSON, command line, ...). */
struct fec_param_value {
	enum fec_param_type type;
	long i;                   /* INT, BOOL, ENUM index */
	double r;                 /* REAL */
	const char *s;            /* STRING; CODE: the child's text form */
	const uint64_t *items;    /* OCT_LIST, HEX_LIST: the numbers, read from their notation */
	unsigned nitems;
};

/* ---- Decoders. */

enum fec_kind { FEC_KIND_STREAM = 1, FEC_KIND_FRAME = 2 };

/* What soft output a decoder gives per output unit (fec_batch.soft); the values are the wire's
 * (fecd_proto.h FECD_SOFT_MAP: the native output header's soft_kind). */
enum fec_soft_kind {
	FEC_SOFT_NONE = FECD_SOFT_NONE,
	FEC_SOFT_BIT_LLR = FECD_SOFT_BIT_LLR,   /* one float32 LLR per decoded bit */
	FEC_SOFT_SYM_LOGP = FECD_SOFT_SYM_LOGP, /* soft_per_unit float32 log-probabilities per
	                                         * decoded q-ary symbol */
};

struct fec_info {
	enum fecd_family family;
	enum fec_kind kind;
	/* Symbols are decoded in units: unit_syms input symbols carry unit_bits output bits (one
	 * puncturing period; for an unpunctured rate-1/n code, n symbols and 1 bit). Every job's
	 * own_len and head_len is a multiple of unit_syms. */
	uint32_t unit_syms, unit_bits;
	/* Streams: a full block owns block_syms symbols and needs head_syms before it and tail_syms
	 * after it (fewer only at the stream's start and end). */
	uint32_t block_syms, head_syms, tail_syms;
	/* Frames: frame_syms symbols per frame, or 0 when frames vary, up to max_frame_syms. A
	 * frame of varying length writes at most ceil(in_len / unit_syms) * unit_bits bits (and
	 * soft values for no more bits), so that a backend copies back only what a batch's jobs
	 * can fill (fec_batch_extent); a family whose output does not shrink with its input
	 * chooses its unit so that this still holds. */
	uint32_t frame_syms, max_frame_syms;
	/* Largest number of output bits and soft values one job can produce. */
	uint32_t max_out_bits, max_soft;
	/* Input: in_q values of in_kind per input symbol (1 but for q-ary symbol input). */
	enum fec_in_kind in_kind;
	uint32_t in_q;
	/* Soft output the family can give, and its values per output unit (1 per bit, q per
	 * q-ary symbol; 0 with FEC_SOFT_NONE). */
	enum fec_soft_kind soft_kind;
	uint32_t soft_per_unit;
	/* Frames: information bits one frame carries (what a sender puts in, what the verifier
	 * checks); 0 for streams and where frames vary. */
	uint32_t frame_info_bits;
	/* Jobs of one batch may cost very different amounts (sequential decoding): backends hand
	 * them out in small pieces rather than one share per thread. */
	bool cost_varies;
	/* Frame families: the spec's common block as the decoder was built with it (the input kind,
	 * the LLR scale, framing and the sync marker the data path needs); all zero (framing 0)
	 * for other families. Filled by the codec, not the family. */
	struct fec_frame_opts frame;
	size_t scratch_bytes; /* scratch one thread needs for fec_decode */
	/* Jobs the decoder takes together at full speed (a SIMD pass over that many frames; fewer
	 * are padded): callers that split a batch over threads give each a multiple of it. 0 or 1:
	 * any split is as fast. */
	uint32_t job_group;
	/* The all-zero codeword stands for every codeword in a simulation over a symmetric
	 * channel (a linear code, a decoder symmetric in its input): fecd-sim --all-zero. Filled
	 * by the codec from the family table (fec_family_impl.all_zero_valid). */
	bool all_zero_valid;
};

/* One job of a batch. The caller fills the input fields, the decoder the output ones. */
#define FEC_JOB_STREAM_START 0x1u /* stream job whose head is the stream's start (encoder state 0) */
#define FEC_JOB_STREAM_END 0x2u   /* stream job ending at the stream's end: no tail follows */
/* A stream job's tail may be shorter than tail_syms, or empty, with or without STREAM_END: the
 * decoders trace back from the best state at the end of whatever tail the job has (the daemon
 * cuts such a job, without the flag, when a stream goes idle and carries on afterwards). */
struct fec_job {
	uint32_t in_len;   /* symbols present in this job's input slot */
	uint32_t head_len; /* streams: symbols before the owned part; frames: 0 */
	uint32_t own_len;  /* streams: owned symbols; frames: = in_len */
	uint32_t flags;    /* FEC_JOB_* */
	/* outputs */
	uint32_t out_bits;   /* decoded bits written */
	uint32_t soft_count; /* soft values written */
	uint8_t status;      /* enum fecd_status, or FEC_STATUS_RETRY */
	uint32_t work;       /* the family's measure of the effort: iterations, search cycles; or 0 */
	float metric;
};

/* A job status that is never published (outside the wire's enum fecd_status): the decoder gave up
 * on the job because this attempt's budget (search cycles, iterations) ran out. The backend decodes
 * such jobs again, with fec_batch.attempt one higher (a family gives later attempts larger
 * budgets), before the batch is published: the CPU backend in place, the GPU backend by handing
 * them to its CPU backend. A job may take FEC_ATTEMPTS attempts: on the last (attempt + 1 ==
 * FEC_ATTEMPTS) a decoder gives a final status instead (not_converged with its best guess); a job
 * still marked after that attempt is published erased, with zero bits (a stream job keeps its
 * length in zero bits). */
#define FEC_STATUS_RETRY 0xffu
#define FEC_ATTEMPTS     3

struct fec_batch {
	uint32_t count;      /* jobs */
	/* Which attempt at these jobs this is: 0 the first; later ones decode only the jobs whose
	 * status is FEC_STATUS_RETRY (fec_decode is given runs of them). */
	uint32_t attempt;
	struct fec_job *jobs;
	const int8_t *in;    /* FEC_IN_S8_LLR: job i's symbols start at in + i * in_stride */
	/* FEC_IN_F32_LLR and FEC_IN_F32_SYMLOGP (in_q values per symbol) read job i at in_f32 +
	 * i * in_stride instead; in_stride counts values (int8 or float32) either way. */
	const float *in_f32;
	size_t in_stride;
	uint8_t *out;        /* job i's packed bits start at out + i * out_stride bytes */
	size_t out_stride;
	float *soft;         /* NULL: no soft output wanted; else soft + i * soft_stride */
	size_t soft_stride;
};

struct fec_decoder;

int fec_decoder_create(const struct fec_spec *spec, struct fec_decoder **out);
/* A decoder may have several holders (the GPU backend keeps a channel's decoder for as long as it
 * keeps the GPU decoder built from it): fec_decoder_hold adds one and returns dec; each holder,
 * the creator included, calls fec_decoder_destroy, and the last frees it. Thread-safe. */
struct fec_decoder *fec_decoder_hold(const struct fec_decoder *dec);
void fec_decoder_destroy(struct fec_decoder *dec);
const struct fec_info *fec_decoder_info(const struct fec_decoder *dec);
const struct fec_spec *fec_decoder_spec(const struct fec_decoder *dec);
/* Where a frame's information bits sit (channel.get): for a systematic frame code, the input
 * symbols of a sent frame that carry them, in order, as ranges [first, last] of symbol indices
 * (a symbol is what fec_info.frame_syms counts: a code bit, or a q-ary symbol of p bits for
 * q-ary input); *unsent gets the information bits the frame does not send (punctured
 * information columns: 5G NR's first 2z), which sit before those of the ranges. Writes up to max
 * ranges and returns how many there are (max + 1 where more do not fit), or 0 where the
 * family's information bits are no subset of its code bits (convolutional codes: the decoder's
 * output only) or its frames have no fixed layout. */
struct fec_info_range {
	uint32_t first, last;
};
int fec_decoder_info_ranges(const struct fec_decoder *dec, struct fec_info_range *ranges,
                            size_t max, uint32_t *unsent);
/* Adds symbol pos to the ranges fec_decoder_info_ranges builds (*n so far; max + 1 once they do
 * not fit): for the families' hooks, which visit their information symbols in increasing order. */
void fec_info_ranges_add(struct fec_info_range *ranges, size_t max, size_t *n, uint32_t pos);

/* Decodes jobs [first, first + count) of the batch; scratch holds info->scratch_bytes bytes owned by
 * the calling thread. Thread-safe for disjoint job ranges. */
int fec_decode(const struct fec_decoder *dec, void *scratch, struct fec_batch *b, uint32_t first,
	       uint32_t count);

/* Soft in, soft out, for composite decoders: a decoder that owns child decoders and passes
 * beliefs between them (a turbo decoder and its two SISO decoders) calls a child with priors and
 * reads back its posteriors. Decodes jobs [first, first + count) as fec_decode does, the channel
 * input of each job combined with its priors: job i's at prior + i * prior_stride, one float LLR
 * (log(P0/P1), positive favours 0, finite) per soft output value, in the units and order of the
 * decoder's soft output (info->max_soft per job); prior NULL: all 0. The posteriors go to b->soft,
 * which is required; hard bits, status and work as fec_decode. An extrinsic value, what a child
 * hands on, is its posterior less its prior. With zero priors the result is fec_decode's, bit
 * for bit. A family without it (fec_decoder_has_siso false) returns -FEC_ENOTSUP, and err (if
 * any) says which; other errors are -FEC_EINVAL with a message. Thread-safe as fec_decode. */
int fec_decode_siso(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                    const float *prior, size_t prior_stride, uint32_t first, uint32_t count,
                    char *err, size_t errlen);
bool fec_decoder_has_siso(const struct fec_decoder *dec);

/* A polarity hint for one job's int8 input, where the family can tell: of the code's parity
 * checks that the input decides (none of their symbols punctured or 0), how many the input's hard
 * decisions leave unsatisfied, as received (unsat) and with every symbol negated (unsat_negated).
 * Right input leaves few unsatisfied; inverted input leaves few only when negated. -FEC_ENOTSUP
 * for a family that cannot tell (a convolutional code, whose codewords' complements are
 * codewords too, or one that has no entry); -FEC_EINVAL for an input that is not one whole frame
 * of the code. Reads only the code: thread-safe. */
struct fec_polarity {
	uint32_t checks, unsat, unsat_negated;
};
int fec_input_polarity(const struct fec_decoder *dec, const int8_t *in, uint32_t n,
                       struct fec_polarity *out);

/* What a batch's jobs use of their slots, for copying no more than that (a GPU backend's
 * transfers). in_elems: input elements of the longest job (in_len symbols times in_q); out_bytes,
 * soft_vals: the most packed output bytes and soft values any job can write. Streams and frames of
 * fixed length use whole slots (in_stride, out_stride, soft_stride); frames of varying length only
 * what their longest input asks for (fec_info's bound), never more than the slots. */
struct fec_batch_extent {
	size_t in_elems, out_bytes, soft_vals;
};
void fec_batch_extent(const struct fec_info *info, const struct fec_batch *b,
                      struct fec_batch_extent *out);

/* ---- Encoders, for the feed, the sink and the tests. Stateful: one per stream. */

struct fec_encoder;

int fec_encoder_create(const struct fec_spec *spec, struct fec_encoder **out);
void fec_encoder_destroy(struct fec_encoder *enc);
/* Encodes nbits information bits (one per byte, 0 or 1) into code bits (one per byte, before
 * BPSK; punctured positions already removed). Stream codes keep their state between calls; frame
 * codes encode one whole frame per call (terminated: tail appended). *nout gets the count written;
 * out must hold fec_encoded_len(spec, nbits) bytes. */
int fec_encode(struct fec_encoder *enc, const uint8_t *bits, size_t nbits, uint8_t *out, size_t *nout);
size_t fec_encoded_len(const struct fec_spec *spec, size_t nbits);
/* Resets a stream encoder to its initial state (and puncturing phase). */
void fec_encoder_reset(struct fec_encoder *enc);

/* ---- The family table: one entry per implemented family. */

struct fec_family_ops {
	enum fecd_family family;
	const char *name;
	const struct fec_param_desc *params; /* terminated by an entry with name == NULL */
	void (*spec_default)(struct fec_spec *spec);
	/* Sets one parameter; on error writes a message naming the parameter and what was expected. */
	int (*spec_set)(struct fec_spec *spec, const char *name, const struct fec_param_value *v,
			char *err, size_t errlen);
	/* Checks the whole spec after all parameters are set (cross-field rules), deriving what is
	 * derived (e.g. a preset's polynomials). */
	int (*spec_finish)(struct fec_spec *spec, char *err, size_t errlen);
	/* Reads one parameter back as a value (for channel.get); *buf backs strings and lists. */
	int (*spec_get)(const struct fec_spec *spec, const char *name, struct fec_param_value *v,
			void *buf, size_t buflen);
	/* A short human-readable description: "CCSDS K=7 r=1/2 stream D=2048 L=42". */
	void (*spec_describe)(const struct fec_spec *spec, char *buf, size_t len);
	int (*decoder_create)(const struct fec_spec *spec, struct fec_decoder **out);
	int (*encoder_create)(const struct fec_spec *spec, struct fec_encoder **out);
};

/* Implemented families, and lookups. */
const struct fec_family_ops *fec_family_by_id(int family);
const struct fec_family_ops *fec_family_by_name(const char *name);
unsigned fec_family_count(void);
const struct fec_family_ops *fec_family_at(unsigned i);
/* Named code presets across families ("ccsds", "voyager", ...): spec defaults of the family with
 * the preset's parameters applied. */
struct fec_preset {
	const char *name;
	enum fecd_family family;
	const char *description;
};
unsigned fec_preset_count(void);
const struct fec_preset *fec_preset_at(unsigned i);
int fec_preset_apply(const char *name, struct fec_spec *spec);
/* The preset or family name nearest to a misspelt one (fewest single-character insertions,
 * deletions, substitutions or swaps of neighbours, letters compared without case), for "did you
 * mean": NULL when the nearest is more than a third of the name's length away (at least 1). */
const char *fec_code_name_nearest(const char *name);

bool fec_spec_equal(const struct fec_spec *a, const struct fec_spec *b);
/* True when two specs describe the same code (same trellis, outputs and puncturing), so a stream
 * can carry on across a change between them (e.g. only the block geometry differs). */
bool fec_spec_same_code(const struct fec_spec *a, const struct fec_spec *b);

/* Text form for command lines: "PRESET[,key=value...]" or "FAMILY[,key=value...]"; list values are
 * separated by ':' ("polys=171:133"), a code value with commas is in parentheses
 * ("inner=(ccsds,mode=terminated)"). Starts from the preset's or family's defaults. */
int fec_spec_from_string(const char *text, struct fec_spec *out, char *err, size_t errlen);
void fec_spec_to_string(const struct fec_spec *spec, char *buf, size_t len);
/* Code rate (information bits per sent symbol) after puncturing. */
double fec_spec_rate(const struct fec_spec *spec);

#endif
