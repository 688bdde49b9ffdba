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
	enum fec_in_kind in; /* the decoder's input: FEC_IN_S8_LLR (s8) or FEC_IN_F32_LLR (f32) */
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
		struct ldpc_spec ldpc; /* FECD_FAMILY_LDPC */
	} u;
};

/* ---- Parameter schema: one table per family drives config files, channel.create and codes.list. */

enum fec_param_type {
	FEC_PARAM_INT,      /* integer within [min, max] */
	FEC_PARAM_ENUM,     /* one of the names in choices (NULL-terminated) */
	FEC_PARAM_BOOL,
	FEC_PARAM_OCT_LIST, /* list of 1..max_items octal numbers, given as strings "171" or integers */
	FEC_PARAM_STRING,   /* free text up to max bytes (pattern strings, preset names, file paths) */
	FEC_PARAM_REAL,     /* real number within [min, max] / FEC_PARAM_REAL_UNIT */
};

/* REAL bounds are kept in the integer min/max in millionths, so that every table stays one
 * initializer shape. */
#define FEC_PARAM_REAL_UNIT 1000000L

struct fec_param_desc {
	const char *name;
	enum fec_param_type type;
	long min, max;            /* INT: bounds; OCT_LIST: value bounds; STRING: max length */
	unsigned max_items;       /* OCT_LIST only */
	const char *const *choices; /* ENUM only */
	const char *def;          /* default as text, NULL when required or derived */
	const char *help;         /* one line: what it is and what is expected */
};

/* A parameter value as the caller parsed it (from JSON, command line, ...). */
struct fec_param_value {
	enum fec_param_type type;
	long i;                   /* INT, BOOL, ENUM index */
	double r;                 /* REAL */
	const char *s;            /* STRING */
	const uint32_t *items;    /* OCT_LIST, already converted from octal */
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
	/* Frames: frame_syms symbols per frame, or 0 when frames vary, up to max_frame_syms. */
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
	uint8_t status;      /* enum fecd_status */
	uint32_t work;       /* the family's measure of the effort: iterations, search cycles; or 0 */
	float metric;
};

struct fec_batch {
	uint32_t count;      /* jobs */
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
void fec_decoder_destroy(struct fec_decoder *dec);
const struct fec_info *fec_decoder_info(const struct fec_decoder *dec);
const struct fec_spec *fec_decoder_spec(const struct fec_decoder *dec);

/* Decodes jobs [first, first + count) of the batch; scratch holds info->scratch_bytes bytes owned by
 * the calling thread. Thread-safe for disjoint job ranges. */
int fec_decode(const struct fec_decoder *dec, void *scratch, struct fec_batch *b, uint32_t first,
	       uint32_t count);

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

bool fec_spec_equal(const struct fec_spec *a, const struct fec_spec *b);
/* True when two specs describe the same code (same trellis, outputs and puncturing), so a stream
 * can carry on across a change between them (e.g. only the block geometry differs). */
bool fec_spec_same_code(const struct fec_spec *a, const struct fec_spec *b);

/* Text form for command lines: "PRESET[,key=value...]" or "FAMILY[,key=value...]"; list values are
 * separated by ':' ("polys=171:133"). Starts from the preset's or family's defaults. */
int fec_spec_from_string(const char *text, struct fec_spec *out, char *err, size_t errlen);
void fec_spec_to_string(const struct fec_spec *spec, char *buf, size_t len);
/* Code rate (information bits per sent symbol) after puncturing. */
double fec_spec_rate(const struct fec_spec *spec);

#endif
