/*
 * Internal to codec/: the base structs behind the opaque decoder and encoder handles, the table of
 * implemented families, and the helpers fec.c shares with the families. A family embeds struct
 * fec_decoder / fec_encoder as its first member and fills the vtable; fec.c dispatches through it.
 */
#ifndef FEC_IMPL_H
#define FEC_IMPL_H

#include <limits.h>
#include <stdarg.h>

#include "fec.h"

struct fec_decoder_vtbl {
	int (*decode)(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
	              uint32_t first, uint32_t count);
	void (*destroy)(struct fec_decoder *dec);
	/* Optional (NULL: the family has none): fec_decode_siso, called with its arguments
	 * checked as fec_decode's and b->soft set. */
	int (*decode_siso)(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
	                   const float *prior, size_t prior_stride, uint32_t first, uint32_t count,
	                   char *err, size_t errlen);
	/* Optional (NULL: -FEC_ENOTSUP): fec_input_polarity, with its arguments checked. */
	int (*input_polarity)(const struct fec_decoder *dec, const int8_t *in, uint32_t n,
	                      struct fec_polarity *out);
	/* Optional (NULL: no layout, fec_decoder_info_ranges gives 0): fec_decoder_info_ranges. */
	int (*info_ranges)(const struct fec_decoder *dec, struct fec_info_range *ranges, size_t max,
	                   uint32_t *unsent);
};

struct fec_decoder {
	const struct fec_decoder_vtbl *vt;
	struct fec_spec spec;
	struct fec_info info;
	/* Holders besides the creator (fec_decoder_hold), changed with __atomic builtins: a family
	 * leaves it 0, fec_decoder_create sets it. */
	unsigned extra_holders;
};

struct fec_encoder_vtbl {
	int (*encode)(struct fec_encoder *enc, const uint8_t *bits, size_t nbits, uint8_t *out,
	              size_t *nout);
	void (*reset)(struct fec_encoder *enc);
	void (*destroy)(struct fec_encoder *enc);
};

struct fec_encoder {
	const struct fec_encoder_vtbl *vt;
	struct fec_spec spec;
};

/* One named preset of a family: its public entry (name, family, description) and its parameters
 * in the text form ("k=7,polys=171:133"), applied over the family's defaults by the parser that
 * reads command lines, so that presets and user input never disagree about a parameter. */
struct fec_preset_def {
	struct fec_preset pub;
	const char *params;
};

/* What fec.c needs of a family beyond its public operations. */
struct fec_family_impl {
	const struct fec_family_ops *ops;
	/* Upper bound of fec_encode's output for nbits information bits (exact for frames). */
	size_t (*encoded_len)(const struct fec_spec *spec, size_t nbits);
	/* Same trellis, outputs and puncturing, whatever the mode and geometry (preset matching).
	 */
	bool (*same_trellis)(const struct fec_spec *a, const struct fec_spec *b);
	/* Same trellis and same kind of decoding: a stream may carry on across the change. */
	bool (*same_code)(const struct fec_spec *a, const struct fec_spec *b);
	double (*rate)(const struct fec_spec *spec);
	/* A frame family: its specs hold the common block (struct fec_frame_opts), whose
	 * parameters the codec appends to the family's table (fec_frame.c). */
	bool frame_opts;
	/* Its named presets, ended by an entry whose pub.name is NULL (or NULL for none); fec.c
	 * lists every family's in family order. Names are unique across families. */
	const struct fec_preset_def *presets;
};

/* The implemented families, once: enum suffix of FECD_FAMILY_*, then the implementation object.
 * Adding a family adds one line here and its folder of sources. */
#define FEC_FAMILY_IMPL_MAP(X)                                                                     \
	X(VITERBI, conv_family)                                                                   \
	X(LDPC, ldpc_family) X(FANO, fano_family) X(NBLDPC, nbldpc_family) X(IDS, ids_family)

#define X(fam, impl) extern const struct fec_family_impl impl;
FEC_FAMILY_IMPL_MAP(X)
#undef X

const struct fec_family_impl *fec__family_impl(int family);

/* fec_frame.c: the frame families' common block. */
extern const struct fec_param_desc fec__frame_params[]; /* ended by name NULL */
void fec__frame_default(struct fec_frame_opts *f);
/* Sets one of the block's parameters; -FEC_EPARAM (no message) when name is not one of them. */
int fec__frame_set(struct fec_frame_opts *f, const char *name, const struct fec_param_value *v,
                   char *err, size_t errlen);
/* Reads one back; -FEC_EPARAM when name is not one of them. */
int fec__frame_get(const struct fec_frame_opts *f, const char *name, struct fec_param_value *v,
                   void *buf, size_t buflen);
/* Every value within its bounds; the message names the parameter. */
int fec__frame_check(const struct fec_frame_opts *f, char *err, size_t errlen);
/* The same framing and sync marker: a stream or a marker search may carry on across a change. */
bool fec__frame_same_framing(const struct fec_frame_opts *a, const struct fec_frame_opts *b);
/* Family i (FEC_FAMILY_IMPL_MAP order) as everything outside the family sees it: a frame
 * family with the block joined (its operations and parameter table), others as they are; NULL
 * past the last. fec__family_total is their number. */
const struct fec_family_impl *fec__family_joined(unsigned i);
unsigned fec__family_total(void);
/* Adds a family that only the tests build to the end of the table (NULL takes it out): one
 * with a parameter type no built family uses yet (tests/lib/pair_family.c, a composite whose
 * parameters are codes). Set before any other call, from one thread; fecd never calls it. */
void fec__family_add_for_test(const struct fec_family_impl *impl);

/* Formats an error message into err (if any); returns -code so callers can `return fec__err(...)`.
 */
int fec__err(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* True once the calling thread's build deadline (fec_build_deadline_set) has passed; long loops
 * that build codes call it every so often and return -FEC_ETIME. */
bool fec__build_expired(void);

/* A code file a spec names, as the path policy (fec.h) finds it (codes_dir.c). */
#define FEC__CODES_DIR_MAX 1024 /* longest codes folder, with its NUL */
#define FEC__CODE_NAME_MAX 256  /* longest name a spec gives, with its NUL */
struct fec__code_file {
	char dir[FEC__CODES_DIR_MAX];                            /* the codes folder at the time */
	char shown[FEC__CODES_DIR_MAX + FEC__CODE_NAME_MAX + 2]; /* the path as messages name it */
	char path[PATH_MAX]; /* what is opened: shown, or its real path */
	bool confined;       /* FEC_PATHS_CODES_DIR was in force */
};

/* Where the file `name` (a spec's code text, or a file of the folder such as "5G_bg1.csv") is
 * under the path policy; -FEC_EINVAL with a message when the policy refuses it or the name does
 * not resolve. Looks nothing up outside the folder when confined. */
int fec__code_path(const char *name, struct fec__code_file *f, char *err, size_t errlen);

/* Reads the file `name` names (fec__code_path) whole into *text, NUL-terminated: a regular file
 * of at most FEC_CODE_FILE_MAX bytes holding no NUL byte. -FEC_EINVAL with a message naming the
 * file when it is refused, missing or unreadable; -FEC_ETIME past the build deadline. */
int fec__code_file_read(const char *name, char **text, char *err, size_t errlen);

/* The memory of finished codes (spec_memo.c): a family that builds its code to finish a spec
 * keeps the numbers it derived under a key naming the code and the version of its source, and
 * finds them there the next time. A key starts with the family's name. */
#define FEC__MEMO_KEY (PATH_MAX + 1024) /* a key's room, with its NUL */
#define FEC__MEMO_VAL 32                /* the most bytes a value holds */
/* Formats a key into key (FEC__MEMO_KEY bytes); false when it does not fit. */
bool fec__memo_key(char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "PREFIX PATH SIZE MTIME" for the code file `name` as fec__code_path finds it; false when the
 * policy refuses it or it is not a regular file (then the load reports it, and nothing is kept). */
bool fec__memo_file_key(char *key, const char *prefix, const char *name);
/* Copies the value kept under key (of exactly len bytes) into val; false when none is. */
bool fec__memo_find(const char *key, void *val, size_t len);
void fec__memo_add(const char *key, const void *val, size_t len);

const struct fec_param_desc *fec__param_find(const struct fec_param_desc *params, const char *name);
/* Checks a value against its descriptor's type and bounds; the message names the parameter. */
int fec__param_check(const struct fec_param_desc *d, const struct fec_param_value *v, char *err,
                     size_t errlen);

/* Applies "key=value,key=value" (text is modified) over spec without finishing it. */
int fec__apply_params(const struct fec_family_ops *ops, struct fec_spec *spec, char *text,
                      char *err, size_t errlen);
/* Family defaults with the named preset's parameters set, not yet finished; -FEC_EINVAL if no
 * preset has that name. */
int fec__preset_start(const char *name, struct fec_spec *spec, char *err, size_t errlen);

/* The first preset whose trellis (same_trellis) matches spec, and how many match; NULL if
 * none does. */
const struct fec_preset *fec__preset_for_code(const struct fec_spec *spec, unsigned *matches);

#endif
