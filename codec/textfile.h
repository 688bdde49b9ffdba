/*
 * Internal to codec/: a reader of text files made of lines of numbers, for the families' parsers
 * of code files (ldpc's alist, .qc and 5G NR tables; nbldpc's alists next). Every complaint names
 * the file and the 1-based line and says what was expected there; what was found is described by
 * its kind ("a word", "a larger number", "end of file"), never quoted, since a path may name a
 * file that is no code (fec.h: code files).
 */
#ifndef TEXTFILE_H
#define TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>

struct fec__text_reader {
	const char *name;
	const char *p;   /* start of the next line */
	unsigned line;   /* 1-based number of the line last returned */
	const char *cur; /* within the line last returned */
	const char *end;
	char *err;
	size_t errlen;
};

/* Reads text (NUL-terminated), naming it `name` in messages written into err. */
void fec__text_init(struct fec__text_reader *rd, const char *text, const char *name, char *err,
                    size_t errlen);
bool fec__text_is_blank(char ch);
/* The next line holding something other than blanks and not starting with '#'; at the end,
 * false with rd->line one past the last line (where the missing one was expected). */
bool fec__text_next_line(struct fec__text_reader *rd);
/* The next number on the current line: 1 found, 0 at the end of the line, or -FEC_EINVAL with
 * "name:line: expected a number, found ..." when something else is there. */
int fec__text_next_num(struct fec__text_reader *rd, long *v);
/* Exactly want numbers on the next line, each in lo..hi. Messages say what the line should hold
 * (what: "2 sizes 'N M' (columns rows)") and each number (each: "a size in 1..1048576"). */
int fec__text_line_nums(struct fec__text_reader *rd, long *vals, unsigned want, long lo, long hi,
                        const char *what, const char *each);
/* The kind of token [s, e) that is not a number: "a word", "a malformed number", ... */
const char *fec__text_token_kind(const char *s, const char *e);
/* v outside lo..something, said without v: "a larger number", "a negative number", ... */
const char *fec__text_range_miss(long v, long lo);

#endif
