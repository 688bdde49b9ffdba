/*
 * Lines of numbers in a text, with messages "name:line: expected ..., found ..." (textfile.h): the
 * reader every family's parser of code files uses.
 */
#include <string.h>

#include "fec_impl.h"
#include "textfile.h"

void fec__text_init(struct fec__text_reader *rd, const char *text, const char *name, char *err,
                    size_t errlen)
{
	memset(rd, 0, sizeof(*rd));
	rd->name = name;
	rd->p = text;
	rd->err = err;
	rd->errlen = errlen;
}

bool fec__text_is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

bool fec__text_next_line(struct fec__text_reader *rd)
{
	while (*rd->p) {
		const char *s = rd->p, *e = strchr(s, '\n');

		if (!e)
			e = s + strlen(s);
		rd->p = *e ? e + 1 : e;
		rd->line++;
		while (s < e && fec__text_is_blank(*s))
			s++;
		if (s == e || *s == '#')
			continue;
		rd->cur = s;
		rd->end = e;
		return true;
	}
	rd->line++; /* "the line after the last": where the missing one was expected */
	return false;
}

/* Parsed by hand: the DVB-S2 files hold half a million numbers. */
int fec__text_next_num(struct fec__text_reader *rd, long *v)
{
	const char *s = rd->cur, *t;
	long x = 0;
	bool neg;

	while (s < rd->end && fec__text_is_blank(*s))
		s++;
	if (s == rd->end) {
		rd->cur = s;
		return 0;
	}
	t = s;
	neg = *t == '-' || *t == '+' ? *t++ == '-' : false;
	if (t == rd->end || *t < '0' || *t > '9')
		goto out_bad;
	while (t < rd->end && *t >= '0' && *t <= '9') {
		if (x > 100000000L)
			goto out_bad;
		x = x * 10 + (*t++ - '0');
	}
	if (t < rd->end && !fec__text_is_blank(*t))
		goto out_bad;
	rd->cur = t;
	*v = neg ? -x : x;
	return 1;

out_bad:
	t = s;
	while (t < rd->end && !fec__text_is_blank(*t))
		t++;
	return fec__err(rd->err, rd->errlen, FEC_EINVAL, "%s:%u: expected a number, found %s",
	                rd->name, rd->line, fec__text_token_kind(s, t));
}

const char *fec__text_token_kind(const char *s, const char *e)
{
	const char *t = s + (s < e && (*s == '-' || *s == '+'));

	if (t < e && *t >= '0' && *t <= '9') {
		while (t < e && *t >= '0' && *t <= '9')
			t++;
		return t == e ? "a number too large" : "a malformed number";
	}
	if (s < e && ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return "a word";
	return "something other than a number";
}

const char *fec__text_range_miss(long v, long lo)
{
	if (v >= lo)
		return "a larger number";
	return v < 0 && lo >= 0 ? "a negative number" : "a smaller number";
}

int fec__text_line_nums(struct fec__text_reader *rd, long *vals, unsigned want, long lo, long hi,
                        const char *what, const char *each)
{
	unsigned got = 0;
	long v;
	int r;

	if (!fec__text_next_line(rd))
		return fec__err(rd->err, rd->errlen, FEC_EINVAL,
		                "%s:%u: expected %s, found end of file", rd->name, rd->line, what);
	while ((r = fec__text_next_num(rd, &v)) == 1) {
		if (got < want) {
			if (v < lo || v > hi)
				return fec__err(rd->err, rd->errlen, FEC_EINVAL,
				                "%s:%u: number %u: expected %s, found %s", rd->name,
				                rd->line, got + 1, each,
				                fec__text_range_miss(v, lo));
			vals[got] = v;
		}
		got++;
	}
	if (r < 0)
		return r;
	if (got != want)
		return fec__err(rd->err, rd->errlen, FEC_EINVAL,
		                "%s:%u: expected %s, found %u number%s", rd->name, rd->line, what,
		                got, got == 1 ? "" : "s");
	return 0;
}
