/*
 * Internal glue between the LDPC code files (ldpc_code.c, ldpc_parse.c, ldpc_gen.c,
 * ldpc_encode.c): building a code from an edge list, finishing it (layers, degrees, rank and
 * information set), the encoder plan and the generators. Not for the decoders or the daemon:
 * they use ldpc.h.
 */
#ifndef LDPC_CODE_IMPL_H
#define LDPC_CODE_IMPL_H

#include <limits.h>
#include <stdarg.h>

#include "ldpc.h"

/* Formats "fmt" into err and returns -FEC_EINVAL (the code every malformed-input path returns). */
int ldpc__err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A new code (zeroed, name set) holding the n x m matrix built from nnz edges (erow[i], ecol[i]),
 * 0-based; edges may come in any order. Out-of-range and duplicate edges, and sizes or degrees
 * past LDPC_N_MAX / LDPC_DEG_MAX, are errors naming `name` (and no value: the edges may come
 * from a file). */
int ldpc__code_from_edges(const char *name, uint32_t n, uint32_t m, const uint32_t *erow,
                          const uint32_t *ecol, size_t nnz, struct ldpc_code **out, char *err,
                          size_t errlen);

/* Derives layers (block rows when code->z, else greedy first fit), maximum degrees, and through
 * the encoder plan k and info_cols. parity_pref lists all n columns, the one most wanted as a
 * parity column first (NULL: from the rightmost column down). */
int ldpc__code_finish(struct ldpc_code *code, const uint32_t *parity_pref, char *err,
                      size_t errlen);

/* Finds code->cyc and builds the layers (ldpc.h's rule); ldpc_layers.c. */
int ldpc__layers_build(struct ldpc_code *code);
void ldpc__cyclic_free(struct ldpc_cyclic *cy);

/* Builds code->enc, code->k and code->info_cols. */
int ldpc__enc_plan_build(struct ldpc_code *code, const uint32_t *parity_pref, char *err,
                         size_t errlen);
void ldpc__enc_plan_free(struct ldpc_enc_plan *plan);

/* Generated codes; the result is finished. */
int ldpc__gen_regular(uint32_t n, unsigned dv, unsigned dc, uint32_t seed, struct ldpc_code **out,
                      char *err, size_t errlen);
int ldpc__gen_peg(uint32_t n, unsigned dv, unsigned dc, uint32_t seed, struct ldpc_code **out,
                  char *err, size_t errlen);

/* Lines of numbers in a text, for the parsers' messages "name:line: expected ..., found ...",
 * which describe what was found without quoting it. */
struct ldpc__reader {
	const char *name;
	const char *p;   /* start of the next line */
	unsigned line;   /* 1-based number of the line last returned */
	const char *cur; /* within the line last returned */
	const char *end;
	char *err;
	size_t errlen;
};

void ldpc__reader_init(struct ldpc__reader *rd, const char *text, const char *name, char *err,
                       size_t errlen);
bool ldpc__is_blank(char ch);
/* The next line holding something other than blanks and not starting with '#'; at the end,
 * false with rd->line one past the last line (where the missing one was expected). */
bool ldpc__next_line(struct ldpc__reader *rd);
/* Exactly want numbers on the next line, each in lo..hi. Messages say what the line should hold
 * (what: "2 sizes 'N M' (columns rows)") and each number (each: "a size in 1..1048576"). */
int ldpc__line_nums(struct ldpc__reader *rd, long *vals, unsigned want, long lo, long hi,
                    const char *what, const char *each);
/* The kind of token [s, e) that is not a number: "a word", "a malformed number", ... */
const char *ldpc__token_kind(const char *s, const char *e);
/* v outside lo..something, said without v: "a larger number", "a negative number", ... */
const char *ldpc__range_miss(long v, long lo);

/* A code file a spec names, as the path policy finds it (ldpc_file.c). */
struct ldpc__code_file {
	char dir[1024];                            /* the codes folder at the time */
	char shown[1024 + LDPC_CODE_TEXT_MAX + 2]; /* the path as messages name it */
	char path[PATH_MAX];                       /* what is opened: shown, or its real path */
	bool confined;                             /* LDPC_PATHS_CODES_DIR was in force */
};

/* Where the file `name` (a spec's code text, or a file of the folder such as "5G_bg1.csv") is
 * under the path policy; -FEC_EINVAL with a message when the policy refuses it or the name does
 * not resolve. Looks nothing up outside the folder when confined. */
int ldpc__code_path(const char *name, struct ldpc__code_file *f, char *err, size_t errlen);

/* Reads the file `name` names (ldpc__code_path) whole into *text, NUL-terminated: a regular
 * file of at most LDPC_FILE_MAX bytes holding no NUL byte. -FEC_ETIME past the build deadline. */
int ldpc__read_code_file(const char *name, char **text, char *err, size_t errlen);

#endif
