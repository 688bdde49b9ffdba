/*
 * Specs as data: checking parameter values against a family's schema, the command-line text form
 * ("PRESET[,key=value...]" / "FAMILY[,key=value...]", lists separated by ':', a nested code in
 * parentheses), the nested codes of CODE parameters, and comparing specs.
 * Everything goes through the family's parameter table and its spec_set/spec_get, so one parser
 * and one printer serve every family, and adding a parameter to a table is all it takes to make it
 * settable from the command line, the config file and channel.create alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fec_impl.h"

#define TEXT_MAX 1024 /* longest text form accepted */
#define LIST_MAX 64   /* most items a list value holds here */

/* spec_get's backing store: lists of numbers or a string (a nested code's text the longest). */
union value_buf {
	uint64_t items[LIST_MAX];
	char s[FEC_CODE_TEXT_MAX];
};

const struct fec_param_desc *fec__param_find(const struct fec_param_desc *params, const char *name)
{
	for (const struct fec_param_desc *d = params; d && d->name; d++)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

static const char *const type_names[] = {
    [FEC_PARAM_INT] = "an integer",     [FEC_PARAM_ENUM] = "one of a set of names",
    [FEC_PARAM_BOOL] = "true or false", [FEC_PARAM_OCT_LIST] = "a list of octal numbers",
    [FEC_PARAM_STRING] = "a string",   [FEC_PARAM_REAL] = "a number",
    [FEC_PARAM_HEX_LIST] = "a list of hexadecimal numbers",
    [FEC_PARAM_CODE] = "a code (its text form)",
};

static bool is_list(enum fec_param_type t)
{
	return t == FEC_PARAM_OCT_LIST || t == FEC_PARAM_HEX_LIST;
}

/* "octal" or "hexadecimal": how a list's items are written. */
static const char *item_notation(enum fec_param_type t)
{
	return t == FEC_PARAM_HEX_LIST ? "hexadecimal" : "octal";
}

int fec_param_item_parse(enum fec_param_type type, const char *text, uint64_t *out)
{
	const unsigned shift = type == FEC_PARAM_HEX_LIST ? 4 : 3;
	uint64_t v = 0;
	const char *p = text;

	if (!text || !is_list(type))
		return -FEC_EINVAL;
	if (type == FEC_PARAM_HEX_LIST && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!*p)
		return -FEC_EINVAL;
	for (; *p; p++) {
		unsigned digit;

		if (*p >= '0' && *p <= (shift == 3 ? '7' : '9'))
			digit = (unsigned)(*p - '0');
		else if (shift == 4 && *p >= 'a' && *p <= 'f')
			digit = (unsigned)(*p - 'a' + 10);
		else if (shift == 4 && *p >= 'A' && *p <= 'F')
			digit = (unsigned)(*p - 'A' + 10);
		else
			return -FEC_EINVAL;
		if (v >> (64 - shift))
			return -FEC_ERANGE; /* more than 64 bits */
		v = v << shift | digit;
	}
	*out = v;
	return 0;
}

void fec_param_item_format(enum fec_param_type type, uint64_t v, char *buf, size_t len)
{
	if (type == FEC_PARAM_HEX_LIST)
		snprintf(buf, len, "0x%" PRIx64, v);
	else
		snprintf(buf, len, "%" PRIo64, v);
}

/* Whether every '(' has its ')' after it and no ')' comes without one: a nested code's text. */
static bool parens_balanced(const char *s)
{
	long depth = 0;

	for (; *s && depth >= 0; s++)
		depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
	return depth == 0;
}

static unsigned choice_count(const struct fec_param_desc *d)
{
	unsigned n = 0;

	while (d->choices && d->choices[n])
		n++;
	return n;
}

/* "a, b, c" into buf. */
static void join_choices(const struct fec_param_desc *d, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; d->choices && d->choices[i] && used < len; i++)
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", d->choices[i]);
}

int fec__param_check(const struct fec_param_desc *d, const struct fec_param_value *v, char *err,
                     size_t errlen)
{
	char list[160];

	if (v->type != d->type)
		return fec__err(err, errlen, FEC_EINVAL, "%s: expected %s", d->name,
		                type_names[d->type]);
	switch (d->type) {
	case FEC_PARAM_INT:
		if (v->i < d->min || v->i > d->max)
			return fec__err(err, errlen, FEC_ERANGE,
			                "%s: expected an integer in %ld..%ld, got %ld", d->name,
			                d->min, d->max, v->i);
		break;
	case FEC_PARAM_BOOL:
		if (v->i != 0 && v->i != 1)
			return fec__err(err, errlen, FEC_EINVAL, "%s: expected true or false",
			                d->name);
		break;
	case FEC_PARAM_ENUM:
		if (v->i < 0 || v->i >= (long)choice_count(d)) {
			join_choices(d, list, sizeof(list));
			return fec__err(err, errlen, FEC_EINVAL, "%s: expected one of %s", d->name,
			                list);
		}
		break;
	case FEC_PARAM_OCT_LIST:
	case FEC_PARAM_HEX_LIST:
		if (v->nitems < fec_param_min_items(d) || v->nitems > d->max_items || !v->items)
			return fec__err(err, errlen, FEC_ERANGE,
			                "%s: expected %u..%u %s numbers, got %u", d->name,
			                fec_param_min_items(d), d->max_items,
			                item_notation(d->type), v->nitems);
		for (unsigned i = 0; i < v->nitems; i++) {
			char got[24], lo[24], hi[24];

			if (v->items[i] >= fec_param_umin(d) && v->items[i] <= fec_param_umax(d))
				continue;
			fec_param_item_format(d->type, v->items[i], got, sizeof(got));
			fec_param_item_format(d->type, fec_param_umin(d), lo, sizeof(lo));
			fec_param_item_format(d->type, fec_param_umax(d), hi, sizeof(hi));
			return fec__err(err, errlen, FEC_ERANGE,
			                "%s: %s is out of range %s..%s (%s)", d->name, got, lo, hi,
			                item_notation(d->type));
		}
		break;
	case FEC_PARAM_CODE:
		if (!v->s || !*v->s || strlen(v->s) > (size_t)d->max || !parens_balanced(v->s))
			return fec__err(err, errlen, FEC_EINVAL,
			                "%s: expected a code (\"PRESET[,key=value...]\" or "
			                "\"FAMILY[,...]\") of at most %ld bytes with balanced "
			                "parentheses",
			                d->name, d->max);
		break;
	case FEC_PARAM_STRING:
		if (!v->s)
			return fec__err(err, errlen, FEC_EINVAL, "%s: expected a string", d->name);
		if ((long)strlen(v->s) > d->max)
			return fec__err(err, errlen, FEC_ERANGE,
			                "%s: expected at most %ld characters, got %zu", d->name,
			                d->max, strlen(v->s));
		break;
	case FEC_PARAM_REAL:
		if (!isfinite(v->r) || v->r < (double)d->min / FEC_PARAM_REAL_UNIT ||
		    v->r > (double)d->max / FEC_PARAM_REAL_UNIT)
			return fec__err(err, errlen, FEC_ERANGE, "%s: expected a number in %g..%g, got %g",
			                d->name, (double)d->min / FEC_PARAM_REAL_UNIT,
			                (double)d->max / FEC_PARAM_REAL_UNIT, v->r);
		break;
	}
	return 0;
}

static char *trim(char *s);

/* Reads one value of the text form. items backs list values (max_items entries). */
static int parse_value(const struct fec_param_desc *d, char *text, struct fec_param_value *v,
                       uint64_t *items, char *err, size_t errlen)
{
	char list[160];
	char *end;

	memset(v, 0, sizeof(*v));
	v->type = d->type;
	switch (d->type) {
	case FEC_PARAM_INT:
		errno = 0;
		v->i = strtol(text, &end, 10);
		if (!*text || *end || errno)
			return fec__err(err, errlen, FEC_EINVAL,
			                "%s: expected an integer in %ld..%ld, got '%s'", d->name,
			                d->min, d->max, text);
		break;
	case FEC_PARAM_BOOL:
		if (!strcmp(text, "true") || !strcmp(text, "1") || !strcmp(text, "yes"))
			v->i = 1;
		else if (!strcmp(text, "false") || !strcmp(text, "0") || !strcmp(text, "no"))
			v->i = 0;
		else
			return fec__err(err, errlen, FEC_EINVAL,
			                "%s: expected true or false, got '%s'", d->name, text);
		break;
	case FEC_PARAM_ENUM:
		v->i = -1;
		for (unsigned i = 0; d->choices && d->choices[i]; i++)
			if (!strcmp(text, d->choices[i]))
				v->i = i;
		if (v->i < 0) {
			join_choices(d, list, sizeof(list));
			return fec__err(err, errlen, FEC_EINVAL, "%s: expected one of %s, got '%s'",
			                d->name, list, text);
		}
		break;
	case FEC_PARAM_OCT_LIST:
	case FEC_PARAM_HEX_LIST:
		v->items = items;
		for (char *save = NULL, *tok = strtok_r(text, ":", &save); tok;
		     tok = strtok_r(NULL, ":", &save)) {
			if (v->nitems == d->max_items || v->nitems == LIST_MAX)
				return fec__err(err, errlen, FEC_ERANGE,
				                "%s: expected at most %u %s numbers", d->name,
				                d->max_items, item_notation(d->type));
			if (fec_param_item_parse(d->type, tok, &items[v->nitems++]))
				return fec__err(
				    err, errlen, FEC_EINVAL,
				    "%s: '%s' is not %s number of at most 64 bits", d->name, tok,
				    d->type == FEC_PARAM_HEX_LIST ? "a hexadecimal" : "an octal");
		}
		break;
	case FEC_PARAM_STRING:
		v->s = text;
		break;
	case FEC_PARAM_CODE: /* "(text)", or text without commas */
		if (text[0] == '(' && text[strlen(text) - 1] == ')') {
			text[strlen(text) - 1] = '\0';
			text++;
		}
		v->s = trim(text);
		break;
	case FEC_PARAM_REAL:
		errno = 0;
		v->r = strtod(text, &end);
		if (!*text || *end || errno)
			return fec__err(err, errlen, FEC_EINVAL,
			                "%s: expected a number in %g..%g, got '%s'", d->name,
			                (double)d->min / FEC_PARAM_REAL_UNIT,
			                (double)d->max / FEC_PARAM_REAL_UNIT, text);
		break;
	}
	return fec__param_check(d, v, err, errlen);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static void list_params(const struct fec_family_ops *ops, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct fec_param_desc *d = ops->params; d->name && used < len; d++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		                         d == ops->params ? "" : ", ", d->name);
}

/* The next "key=value" of a text form at *cursor, cut at the first comma outside parentheses
 * (a nested code's commas are its own); NULL at the end. */
static char *next_item(char **cursor)
{
	char *start = *cursor, *p = start;
	long depth = 0;

	if (!start)
		return NULL;
	for (; *p && !(*p == ',' && depth == 0); p++)
		depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
	*cursor = *p ? p + 1 : NULL;
	*p = '\0';
	return start;
}

int fec__apply_params(const struct fec_family_ops *ops, struct fec_spec *spec, char *text,
                      char *err, size_t errlen)
{
	char *cursor = text;

	if (!parens_balanced(text))
		return fec__err(err, errlen, FEC_EINVAL,
		                "unbalanced parentheses in '%s': a nested code is written "
		                "name=(PRESET,key=value...)",
		                text);
	for (char *tok = next_item(&cursor); tok; tok = next_item(&cursor)) {
		const struct fec_param_desc *d;
		struct fec_param_value v;
		uint64_t items[LIST_MAX];
		char *eq, *key, *val, list[200];
		int ret;

		key = trim(tok);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq)
			return fec__err(err, errlen, FEC_EINVAL, "expected key=value, got '%s'",
			                key);
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		d = fec__param_find(ops->params, key);
		if (!d) {
			list_params(ops, list, sizeof(list));
			return fec__err(err, errlen, FEC_EPARAM,
			                "unknown parameter '%s' for %s (expected one of %s)", key,
			                ops->name, list);
		}
		ret = parse_value(d, val, &v, items, err, errlen);
		if (ret)
			return ret;
		ret = ops->spec_set(spec, d->name, &v, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* Appends word to buf (used bytes so far) whole, or "..." once where it does not fit: a list
 * is never cut in the middle of a name. */
static size_t list_add(char *buf, size_t len, size_t used, const char *sep, const char *word)
{
	size_t need = strlen(sep) + strlen(word);

	if (used + need + 4 < len)
		return used + (size_t)snprintf(buf + used, len - used, "%s%s", sep, word);
	if (used + 4 < len && (used < 3 || strcmp(buf + used - 3, "...") != 0))
		used += (size_t)snprintf(buf + used, len - used, "...");
	return used;
}

static void list_codes(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < fec_preset_count(); i++)
		used = list_add(buf, len, used, i ? ", " : "", fec_preset_at(i)->name);
	used = list_add(buf, len, used, "", "; families:");
	for (unsigned i = 0; i < fec_family_count(); i++)
		used = list_add(buf, len, used, " ", fec_family_at(i)->name);
}

int fec_spec_from_string(const char *text, struct fec_spec *out, char *err, size_t errlen)
{
	const struct fec_family_ops *ops;
	const struct fec_preset *preset;
	struct fec_spec spec;
	char buf[TEXT_MAX], list[1024], *name, *rest;
	int ret;

	if (!text || !out)
		return fec__err(err, errlen, FEC_EINVAL, "no code given");
	if (strlen(text) >= sizeof(buf))
		return fec__err(err, errlen, FEC_ELONG, "code text longer than %zu characters",
		                sizeof(buf) - 1);
	strcpy(buf, text);
	rest = strchr(buf, ',');
	if (rest)
		*rest++ = '\0';
	name = trim(buf);

	preset = NULL;
	for (unsigned i = 0; i < fec_preset_count(); i++)
		if (!strcmp(fec_preset_at(i)->name, name))
			preset = fec_preset_at(i);
	if (preset) {
		ret = fec__preset_start(name, &spec, err, errlen);
		if (ret)
			return ret;
	} else {
		ops = fec_family_by_name(name);
		if (!ops) {
			const char *near = fec_code_name_nearest(name);

			list_codes(list, sizeof(list));
			return fec__err(
			    err, errlen, FEC_EFAMILY,
			    "unknown code '%s'%s%s%s: expected a preset or a family (%s)", name,
			    near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
			    list);
		}
		memset(&spec, 0, sizeof(spec));
		spec.family = ops->family;
		ops->spec_default(&spec);
	}
	ops = fec_family_by_id(spec.family);
	if (rest) {
		ret = fec__apply_params(ops, &spec, rest, err, errlen);
		if (ret)
			return ret;
	}
	ret = ops->spec_finish(&spec, err, errlen);
	if (ret)
		return ret;
	*out = spec;
	return 0;
}

/* How deep the calling thread is in nested codes: a parent's spec_finish parses its child,
 * whose spec_finish may parse its own. */
static _Thread_local int code_depth;

int fec_param_code_parse(const struct fec_param_desc *d, const char *text, struct fec_spec *child,
                         char *canon, size_t canonlen, char *err, size_t errlen)
{
	const struct fec_family_ops *ops;
	struct fec_spec spec;
	char msg[512], list[160];
	unsigned i;
	int ret;

	if (!d || d->type != FEC_PARAM_CODE || !child)
		return fec__err(err, errlen, FEC_EINVAL, "%s: not a code parameter",
		                d ? d->name : "?");
	if (!text || !*text)
		return fec__err(err, errlen, FEC_EINVAL,
		                "%s: no code given (expected \"PRESET[,key=value...]\" or "
		                "\"FAMILY[,...]\")",
		                d->name);
	if (code_depth >= FEC_CODE_DEPTH_MAX)
		return fec__err(err, errlen, FEC_ERANGE, "%s: codes nested deeper than %d", d->name,
		                FEC_CODE_DEPTH_MAX);
	msg[0] = '\0';
	code_depth++;
	ret = fec_spec_from_string(text, &spec, msg, sizeof(msg));
	code_depth--;
	if (ret)
		return fec__err(err, errlen, -ret, "%s: %s", d->name,
		                *msg ? msg : fec_strerror(ret));
	ops = fec_family_by_id(spec.family);
	for (i = 0; d->choices && d->choices[i]; i++)
		if (!strcmp(d->choices[i], ops->name))
			break;
	if (d->choices && !d->choices[i]) {
		join_choices(d, list, sizeof(list));
		return fec__err(err, errlen, FEC_EINVAL, "%s: a %s code, expected one of: %s",
		                d->name, ops->name, list);
	}
	if (canon && canonlen) {
		fec_spec_to_string(&spec, canon, canonlen);
		if (strlen(canon) + 1 >= canonlen || strlen(canon) > (size_t)d->max)
			return fec__err(err, errlen, FEC_ELONG,
			                "%s: the code's text form is longer than %ld bytes",
			                d->name, d->max);
	}
	*child = spec;
	return 0;
}

static bool values_equal(const struct fec_param_value *a, const struct fec_param_value *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case FEC_PARAM_INT:
	case FEC_PARAM_BOOL:
	case FEC_PARAM_ENUM:
		return a->i == b->i;
	case FEC_PARAM_OCT_LIST:
	case FEC_PARAM_HEX_LIST:
		return a->nitems == b->nitems &&
		       !memcmp(a->items, b->items, a->nitems * sizeof(a->items[0]));
	case FEC_PARAM_STRING:
	case FEC_PARAM_CODE:
		return a->s && b->s && !strcmp(a->s, b->s);
	case FEC_PARAM_REAL:
		return a->r == b->r;
	}
	return false;
}

/* Appends ",name=value" in the text form; returns the new length used. */
static size_t append_value(char *buf, size_t len, size_t used, const struct fec_param_desc *d,
                           const struct fec_param_value *v)
{
	char item[24];

	if (used >= len)
		return used;
	used += (size_t)snprintf(buf + used, len - used, ",%s=", d->name);
	for (unsigned i = 0; used < len; i++) {
		switch (v->type) {
		case FEC_PARAM_INT:
			return used + (size_t)snprintf(buf + used, len - used, "%ld", v->i);
		case FEC_PARAM_BOOL:
			return used + (size_t)snprintf(buf + used, len - used, "%s",
			                               v->i ? "true" : "false");
		case FEC_PARAM_ENUM:
			return used +
			       (size_t)snprintf(buf + used, len - used, "%s", d->choices[v->i]);
		case FEC_PARAM_STRING:
			return used + (size_t)snprintf(buf + used, len - used, "%s", v->s);
		case FEC_PARAM_CODE:
			return used + (size_t)snprintf(buf + used, len - used, "(%s)", v->s);
		case FEC_PARAM_REAL: /* enough digits to read back the same float */
			return used + (size_t)snprintf(buf + used, len - used, "%.9g", v->r);
		case FEC_PARAM_OCT_LIST:
		case FEC_PARAM_HEX_LIST:
			if (i == v->nitems)
				return used;
			fec_param_item_format(v->type, v->items[i], item, sizeof(item));
			used +=
			    (size_t)snprintf(buf + used, len - used, "%s%s", i ? ":" : "", item);
			break;
		}
	}
	return used;
}

void fec_spec_to_string(const struct fec_spec *spec, char *buf, size_t len)
{
	const struct fec_family_impl *impl;
	const struct fec_preset *preset;
	const struct fec_param_desc *d;
	struct fec_spec base;
	const char *name;
	unsigned matches;
	size_t used;

	if (!buf || !len)
		return;
	impl = spec ? fec__family_impl(spec->family) : NULL;
	if (!impl) {
		snprintf(buf, len, "unknown");
		return;
	}
	/* Print the differences from the one preset with this code, else from the family's
	 * defaults: short, and fec_spec_from_string reads it back to an equal spec. */
	preset = fec__preset_for_code(spec, &matches);
	if (preset && matches == 1 && fec_preset_apply(preset->name, &base) == 0) {
		name = preset->name;
	} else {
		memset(&base, 0, sizeof(base));
		base.family = spec->family;
		impl->ops->spec_default(&base);
		impl->ops->spec_finish(&base, NULL, 0);
		name = impl->ops->name;
	}
	used = (size_t)snprintf(buf, len, "%s", name);
	for (d = impl->ops->params; d->name; d++) {
		union value_buf ba, bb;
		struct fec_param_value va, vb;

		if (impl->ops->spec_get(spec, d->name, &va, &ba, sizeof(ba)) ||
		    impl->ops->spec_get(&base, d->name, &vb, &bb, sizeof(bb)))
			continue;
		if (!values_equal(&va, &vb))
			used = append_value(buf, len, used, d, &va);
	}
}

bool fec_spec_equal(const struct fec_spec *a, const struct fec_spec *b)
{
	const struct fec_family_impl *impl;

	if (!a || !b || a->family != b->family)
		return false;
	impl = fec__family_impl(a->family);
	if (!impl)
		return false;
	for (const struct fec_param_desc *d = impl->ops->params; d->name; d++) {
		union value_buf ba, bb;
		struct fec_param_value va, vb;

		if (impl->ops->spec_get(a, d->name, &va, &ba, sizeof(ba)) ||
		    impl->ops->spec_get(b, d->name, &vb, &bb, sizeof(bb)) ||
		    !values_equal(&va, &vb))
			return false;
	}
	return true;
}
