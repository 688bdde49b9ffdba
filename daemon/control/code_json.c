/*
 * A code as JSON. The daemon knows nothing about any family's parameters: it reads them from the
 * family's fec_param_desc table, checks type and bounds itself (so every message has the same
 * shape and names the JSON path), and hands the values to the family's spec_set / spec_finish.
 * Writing goes the other way through spec_get, so what channel.get prints can be sent back.
 * spec_finish builds the code (LDPC: generates or reads it), under the calling thread's build
 * limit (offload.h); running out of time is -ETIME with a message saying what to do.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "code_json.h"
#include "offload.h"
#include "settings.h"

#define PATH_LEN 256
#define MAX_LIST 16

static const char *const param_type_names[] = {
    [FEC_PARAM_INT] = "integer",       [FEC_PARAM_ENUM] = "enum",
    [FEC_PARAM_BOOL] = "boolean",      [FEC_PARAM_OCT_LIST] = "octal_list",
    [FEC_PARAM_STRING] = "string",     [FEC_PARAM_REAL] = "number",
    [FEC_PARAM_HEX_LIST] = "hex_list", [FEC_PARAM_CODE] = "code",
};

/* JSON numbers are doubles: integers beyond 2^53 are not all exact, so list items that large
 * come as strings. */
#define JSON_EXACT_MAX 9007199254740992.0 /* 2^53 */

static int fail(char *err, size_t errlen, const char *path, const char *expected, const cJSON *v)
{
	char got[96];

	json_describe(v, got, sizeof(got));
	snprintf(err, errlen, "%s: expected %s, got %s", path, expected, got);
	return -EINVAL;
}

static void list_families(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < fec_family_count() && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s\"%s\"", i ? ", " : "",
		                      fec_family_at(i)->name);
}

/* Every preset's name, quoted; a name that does not fit is never cut (the buffers hold them
 * all: 1024 bytes for about 45 names). */
static void list_presets(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < fec_preset_count(); i++) {
		const char *name = fec_preset_at(i)->name;
		if (o + strlen(name) + 8 >= len) {
			snprintf(buf + o, len - o, ", ...");
			return;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s\"%s\"", i ? ", " : "", name);
	}
}

static bool preset_known(const char *name)
{
	for (unsigned i = 0; i < fec_preset_count(); i++)
		if (strcmp(fec_preset_at(i)->name, name) == 0)
			return true;
	return false;
}

static void list_params(const struct fec_family_ops *fam, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "preset, family");

	for (const struct fec_param_desc *p = fam->params; p && p->name && o < len; p++)
		if (strcmp(p->name, "preset") != 0 && strcmp(p->name, "family") != 0)
			o += (size_t)snprintf(buf + o, len - o, ", %s", p->name);
}

/* One list item: a string in the list's notation, or (octal lists) an integer written with
 * octal digits, at most 2^53. */
static int list_item(const struct fec_param_desc *d, const cJSON *v, uint64_t *out)
{
	char text[24];

	if (cJSON_IsString(v))
		return fec_param_item_parse(d->type, v->valuestring, out) ? -EINVAL : 0;
	if (d->type != FEC_PARAM_OCT_LIST || !cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    v->valuedouble < 0 || v->valuedouble > JSON_EXACT_MAX ||
	    v->valuedouble != floor(v->valuedouble))
		return -EINVAL;
	snprintf(text, sizeof(text), "%.0f", v->valuedouble);
	return fec_param_item_parse(d->type, text, out) ? -EINVAL : 0;
}

/* What a list item should have been: "an octal number in 1..777, as a string ("777") or ...". */
static void list_item_expected(const struct fec_param_desc *d, const cJSON *e, char *buf,
                               size_t len)
{
	char lo[24], hi[24];

	fec_param_item_format(d->type, fec_param_umin(d), lo, sizeof(lo));
	fec_param_item_format(d->type, fec_param_umax(d), hi, sizeof(hi));
	if (d->type == FEC_PARAM_HEX_LIST)
		snprintf(buf, len, "a hexadecimal number in %s..%s as a string (\"%s\")", lo, hi,
		         hi);
	else if (cJSON_IsNumber(e) && fabs(e->valuedouble) > JSON_EXACT_MAX)
		snprintf(buf, len,
		         "an octal number in %s..%s as a string (\"%s\"): JSON numbers above "
		         "2^53 are not exact",
		         lo, hi, hi);
	else
		snprintf(buf, len,
		         "an octal number in %s..%s, as a string (\"%s\") or an integer with octal "
		         "digits",
		         lo, hi, hi);
}

/* How deep the calling thread is in nested code objects (FEC_CODE_DEPTH_MAX). */
static _Thread_local int code_depth;

/* A CODE parameter's value: a nested code object, read as a channel's code is, or its text form
 * as a string; either way the child's canonical text form into text (FEC_CODE_TEXT_MAX bytes),
 * the family checked against the parameter's. */
static int code_value(const struct fec_param_desc *d, const cJSON *v, const char *path, char *text,
                      char *err, size_t errlen)
{
	struct fec_spec child;
	char msg[512];
	size_t nl = strlen(d->name);
	int ret;

	if (cJSON_IsString(v)) {
		msg[0] = '\0';
		ret = fec_param_code_parse(d, v->valuestring, &child, text, FEC_CODE_TEXT_MAX, msg,
		                           sizeof(msg));
		if (ret == -FEC_ETIME) {
			build_limit_message(err, errlen, path);
			return -ETIME;
		}
		/* its message starts with the parameter's name, which path ends with */
		if (ret) {
			snprintf(err, errlen, "%s: %s", path,
			         strncmp(msg, d->name, nl) == 0 && msg[nl] == ':' ? msg + nl + 2
			                                                          : msg);
			return -EINVAL;
		}
		return 0;
	}
	if (!cJSON_IsObject(v))
		return fail(err, errlen, path,
		            "a code: an object such as {\"preset\":\"ccsds\"} or its text form "
		            "as a string",
		            v);
	if (code_depth >= FEC_CODE_DEPTH_MAX) {
		snprintf(err, errlen, "%s: codes nested deeper than %d", path, FEC_CODE_DEPTH_MAX);
		return -EINVAL;
	}
	code_depth++;
	ret = code_from_json(v, NULL, &child, path, err, errlen);
	code_depth--;
	if (ret)
		return ret;
	/* the family check and the canonical text, as the text form would have them */
	fec_spec_to_string(&child, msg, sizeof(msg));
	ret = fec_param_code_parse(d, msg, &child, text, FEC_CODE_TEXT_MAX, err, errlen);
	if (ret) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path,
		         strncmp(why, d->name, nl) == 0 && why[nl] == ':' ? why + nl + 2 : why);
		return ret == -FEC_ETIME ? -ETIME : -EINVAL;
	}
	return 0;
}

/* Checks v against the parameter's description and converts it; items backs list values, text
 * a code's text form (FEC_CODE_TEXT_MAX bytes). */
static int param_value(const struct fec_param_desc *d, const cJSON *v, const char *path,
                       uint64_t *items, char *text, struct fec_param_value *out, char *err,
                       size_t errlen)
{
	char what[256], ipath[PATH_LEN + 16];
	unsigned n = 0;

	memset(out, 0, sizeof(*out));
	out->type = d->type;
	switch (d->type) {
	case FEC_PARAM_INT:
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
		    v->valuedouble != floor(v->valuedouble) || v->valuedouble < (double)d->min ||
		    v->valuedouble > (double)d->max) {
			snprintf(what, sizeof(what), "an integer in %ld..%ld", d->min, d->max);
			return fail(err, errlen, path, what, v);
		}
		out->i = (long)v->valuedouble;
		return 0;
	case FEC_PARAM_BOOL:
		if (!cJSON_IsBool(v))
			return fail(err, errlen, path, "true or false", v);
		out->i = cJSON_IsTrue(v);
		return 0;
	case FEC_PARAM_ENUM: {
		size_t o = (size_t)snprintf(what, sizeof(what), "one of");

		for (long i = 0; d->choices && d->choices[i]; i++) {
			if (cJSON_IsString(v) && strcmp(d->choices[i], v->valuestring) == 0) {
				out->i = i;
				return 0;
			}
			if (o < sizeof(what))
				o += (size_t)snprintf(what + o, sizeof(what) - o, "%s \"%s\"",
				                      i ? "," : "", d->choices[i]);
		}
		return fail(err, errlen, path, what, v);
	}
	case FEC_PARAM_STRING:
		if (!cJSON_IsString(v) || strlen(v->valuestring) > (size_t)d->max) {
			snprintf(what, sizeof(what), "a string of at most %ld bytes", d->max);
			return fail(err, errlen, path, what, v);
		}
		out->s = v->valuestring;
		return 0;
	case FEC_PARAM_CODE:
		out->s = text;
		return code_value(d, v, path, text, err, errlen);
	case FEC_PARAM_OCT_LIST:
	case FEC_PARAM_HEX_LIST: {
		unsigned max_items = d->max_items < MAX_LIST ? d->max_items : MAX_LIST;

		if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < (int)fec_param_min_items(d) ||
		    cJSON_GetArraySize(v) > (int)max_items) {
			snprintf(what, sizeof(what), "an array of %u..%u %s numbers",
			         fec_param_min_items(d), max_items,
			         d->type == FEC_PARAM_HEX_LIST ? "hexadecimal" : "octal");
			return fail(err, errlen, path, what, v);
		}
		for (const cJSON *e = v->child; e; e = e->next, n++) {
			if (list_item(d, e, &items[n]) != 0 || items[n] < fec_param_umin(d) ||
			    items[n] > fec_param_umax(d)) {
				snprintf(ipath, sizeof(ipath), "%s[%u]", path, n);
				list_item_expected(d, e, what, sizeof(what));
				return fail(err, errlen, ipath, what, e);
			}
		}
		out->items = items;
		out->nitems = n;
		return 0;
	}
	case FEC_PARAM_REAL:
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
		    v->valuedouble < (double)d->min / FEC_PARAM_REAL_UNIT ||
		    v->valuedouble > (double)d->max / FEC_PARAM_REAL_UNIT) {
			snprintf(what, sizeof(what), "a number in %g..%g",
			         (double)d->min / FEC_PARAM_REAL_UNIT,
			         (double)d->max / FEC_PARAM_REAL_UNIT);
			return fail(err, errlen, path, what, v);
		}
		out->r = v->valuedouble;
		return 0;
	}
	return fail(err, errlen, path, "a known parameter type", v);
}

/* The family's message, placed after the JSON path: "...code.k: ..." when it names the
 * parameter first, "...code.k: message" otherwise. */
static void family_error(char *err, size_t errlen, const char *path,
                         const struct fec_family_ops *fam, const char *name, const char *msg)
{
	size_t nl;

	/* spec_finish names no parameter, but its message may start with one. */
	for (const struct fec_param_desc *p = fam->params; !name && p && p->name; p++)
		if (strncmp(msg, p->name, strlen(p->name)) == 0 && msg[strlen(p->name)] == ':')
			name = p->name;
	nl = name ? strlen(name) : 0;

	if (name && strncmp(msg, name, nl) == 0 && (msg[nl] == ':' || msg[nl] == ' '))
		snprintf(err, errlen, "%s.%s", path, msg);
	else if (name)
		snprintf(err, errlen, "%s.%s: %s", path, name, msg);
	else
		snprintf(err, errlen, "%s: %s", path, msg);
}

/* Where the parameters start: a preset, a family's defaults, or base. */
static int code_start(const cJSON *obj, const struct fec_spec *base, struct fec_spec *spec,
                      const char *path, char *err, size_t errlen)
{
	const cJSON *preset = cJSON_GetObjectItemCaseSensitive(obj, "preset");
	const cJSON *family = cJSON_GetObjectItemCaseSensitive(obj, "family");
	const struct fec_family_ops *fam = NULL;
	char what[1024], p[PATH_LEN];

	if (family) {
		snprintf(p, sizeof(p), "%s.family", path);
		fam = cJSON_IsString(family) ? fec_family_by_name(family->valuestring) : NULL;
		if (!fam) {
			list_families(what + 7, sizeof(what) - 7);
			memcpy(what, "one of ", 7);
			return fail(err, errlen, p, what, family);
		}
	}
	if (preset) {
		int ret = cJSON_IsString(preset) ? fec_preset_apply(preset->valuestring, spec) : 1;

		snprintf(p, sizeof(p), "%s.preset", path);
		if (ret == -FEC_ETIME) {
			build_limit_message(err, errlen, path);
			return -ETIME;
		}
		if (ret != 0) {
			char why[256] = "";
			/* A known preset that does not build (an LDPC matrix file that cannot be
			 * read): the text parser of the same name says why. */
			if (cJSON_IsString(preset) && preset_known(preset->valuestring) &&
			    fec_spec_from_string(preset->valuestring, spec, why, sizeof(why))) {
				snprintf(err, errlen, "%s: \"%s\": %s", p, preset->valuestring,
				         why);
				return -EINVAL;
			}
			const char *near = cJSON_IsString(preset)
			                       ? fec_code_name_nearest(preset->valuestring)
			                       : NULL;
			char got[96];

			if (!near || !preset_known(near))
				near = NULL;
			json_describe(preset, got, sizeof(got));
			list_presets(what, sizeof(what));
			/* The suggestion before the list, so that a short buffer keeps it. */
			snprintf(err, errlen, "%s: unknown preset %s%s%s%s; expected one of %s", p,
			         got, near ? " (did you mean \"" : "", near ? near : "",
			         near ? "\"?)" : "", what);
			return -EINVAL;
		}
		if (fam && fam->family != spec->family) {
			snprintf(err, errlen, "%s.family: preset \"%s\" is a %s code, not %s", path,
			         preset->valuestring, fecd_family_name(spec->family), fam->name);
			return -EINVAL;
		}
	} else if (fam) {
		memset(spec, 0, sizeof(*spec));
		fam->spec_default(spec);
		spec->family = fam->family;
	} else if (base) {
		*spec = *base;
	} else {
		snprintf(err, errlen, "%s: expected \"preset\" or \"family\"", path);
		return -EINVAL;
	}
	return 0;
}

int code_from_json(const cJSON *obj, const struct fec_spec *base, struct fec_spec *out,
                   const char *path, char *err, size_t errlen)
{
	const struct fec_family_ops *fam;
	struct fec_spec spec;
	char msg[256], ppath[PATH_LEN];
	uint64_t items[MAX_LIST];
	char text[FEC_CODE_TEXT_MAX];
	int ret;

	if (!cJSON_IsObject(obj))
		return fail(
		    err, errlen, path,
		    "an object such as {\"preset\":\"ccsds\"} or {\"family\":\"viterbi\",...}",
		    obj);
	ret = code_start(obj, base, &spec, path, err, errlen);
	if (ret)
		return ret;
	fam = fec_family_by_id(spec.family);
	if (!fam) {
		snprintf(err, errlen, "%s: family %d is not built into this fecd", path,
		         spec.family);
		return -EINVAL;
	}
	for (const cJSON *c = obj->child; c; c = c->next) {
		const struct fec_param_desc *d = NULL;
		struct fec_param_value val;

		if (strcmp(c->string, "preset") == 0 || strcmp(c->string, "family") == 0) {
			if (cJSON_GetObjectItemCaseSensitive(obj, c->string) == c)
				continue;
			snprintf(err, errlen, "%s.%s: key given twice", path, c->string);
			return -EINVAL;
		}
		for (const struct fec_param_desc *p = fam->params; p && p->name && !d; p++)
			if (strcmp(p->name, c->string) == 0)
				d = p;
		if (!d) {
			list_params(fam, msg, sizeof(msg));
			json_describe(&(cJSON){.type = cJSON_String, .valuestring = c->string},
			              ppath, sizeof(ppath));
			snprintf(err, errlen, "%s: unknown %s parameter %s (valid keys: %s)", path,
			         fam->name, ppath, msg);
			return -EINVAL;
		}
		snprintf(ppath, sizeof(ppath), "%s.%s", path, c->string);
		for (const cJSON *e = obj->child; e != c; e = e->next) {
			if (strcmp(e->string, c->string) == 0) {
				snprintf(err, errlen, "%s: key given twice", ppath);
				return -EINVAL;
			}
		}
		ret = param_value(d, c, ppath, items, text, &val, err, errlen);
		if (ret)
			return ret;
		msg[0] = '\0';
		ret = fam->spec_set(&spec, d->name, &val, msg, sizeof(msg));
		if (ret) {
			family_error(err, errlen, path, fam, d->name,
			             *msg ? msg : fec_strerror(ret));
			return -EINVAL;
		}
	}
	msg[0] = '\0';
	ret = fam->spec_finish(&spec, msg, sizeof(msg));
	if (ret == -FEC_ETIME) {
		build_limit_message(err, errlen, path);
		return -ETIME;
	}
	if (ret) {
		family_error(err, errlen, path, fam, NULL, *msg ? msg : fec_strerror(ret));
		return -EINVAL;
	}
	*out = spec;
	return 0;
}

int fec_spec_from_json(const cJSON *obj, const struct fec_spec *base, struct fec_spec *out,
                       char *err, size_t errlen)
{
	return code_from_json(obj, base, out, "code", err, errlen);
}

static cJSON *value_json(const struct fec_param_desc *d, const struct fec_param_value *v)
{
	struct fec_spec child;
	char text[24];
	cJSON *arr;

	switch (d->type) {
	case FEC_PARAM_INT:
		return cJSON_CreateNumber((double)v->i);
	case FEC_PARAM_BOOL:
		return cJSON_CreateBool(v->i != 0);
	case FEC_PARAM_ENUM:
		for (long i = 0; d->choices && d->choices[i]; i++)
			if (i == v->i)
				return cJSON_CreateString(d->choices[i]);
		return NULL;
	case FEC_PARAM_STRING:
		return v->s && *v->s ? cJSON_CreateString(v->s) : NULL;
	case FEC_PARAM_CODE: /* the nested object it was given as; the text if it no longer reads */
		if (!v->s || !*v->s)
			return NULL;
		if (fec_param_code_parse(d, v->s, &child, NULL, 0, NULL, 0) == 0)
			return fec_spec_to_json(&child);
		return cJSON_CreateString(v->s);
	case FEC_PARAM_OCT_LIST:
	case FEC_PARAM_HEX_LIST: /* strings, exact whatever the size */
		arr = cJSON_CreateArray();
		for (unsigned i = 0; arr && i < v->nitems; i++) {
			fec_param_item_format(d->type, v->items[i], text, sizeof(text));
			cJSON_AddItemToArray(arr, cJSON_CreateString(text));
		}
		return arr;
	case FEC_PARAM_REAL:
		/* Specs hold these as float: 7 significant digits give back what was set (0.6, not
		 * 0.600000023841858). */
		snprintf(text, sizeof(text), "%.7g", v->r);
		return cJSON_CreateNumber(strtod(text, NULL));
	}
	return NULL;
}

cJSON *fec_spec_to_json(const struct fec_spec *spec)
{
	const struct fec_family_ops *fam = fec_family_by_id(spec->family);
	cJSON *obj = cJSON_CreateObject();
	uint64_t buf[128];

	if (!obj)
		return NULL;
	if (!fam) {
		cJSON_AddNumberToObject(obj, "family", spec->family);
		return obj;
	}
	cJSON_AddStringToObject(obj, "family", fam->name);
	for (const struct fec_param_desc *d = fam->params; d && d->name; d++) {
		struct fec_param_value v = {.type = d->type};
		cJSON *item;

		if (strcmp(d->name, "preset") == 0 || strcmp(d->name, "family") == 0)
			continue;
		if (fam->spec_get(spec, d->name, &v, buf, sizeof(buf)) != 0)
			continue; /* not meaningful for this spec (e.g. a frame parameter of a
			             stream) */
		item = value_json(d, &v);
		if (item)
			cJSON_AddItemToObject(obj, d->name, item);
	}
	return obj;
}

static cJSON *param_desc_json(const struct fec_param_desc *d)
{
	cJSON *o = cJSON_CreateObject(), *ch;
	char text[24];

	cJSON_AddStringToObject(o, "name", d->name);
	cJSON_AddStringToObject(o, "type", param_type_names[d->type]);
	if (d->type == FEC_PARAM_INT) {
		cJSON_AddNumberToObject(o, "min", (double)d->min);
		cJSON_AddNumberToObject(o, "max", (double)d->max);
	}
	if (d->type == FEC_PARAM_OCT_LIST || d->type == FEC_PARAM_HEX_LIST) {
		/* in the items' notation, as the values are written (exact up to 2^64 - 1) */
		fec_param_item_format(d->type, fec_param_umin(d), text, sizeof(text));
		cJSON_AddStringToObject(o, "min", text);
		fec_param_item_format(d->type, fec_param_umax(d), text, sizeof(text));
		cJSON_AddStringToObject(o, "max", text);
		cJSON_AddNumberToObject(o, "max_items", d->max_items);
		cJSON_AddNumberToObject(o, "min_items", fec_param_min_items(d));
	}
	if (d->type == FEC_PARAM_REAL) {
		cJSON_AddNumberToObject(o, "min", (double)d->min / FEC_PARAM_REAL_UNIT);
		cJSON_AddNumberToObject(o, "max", (double)d->max / FEC_PARAM_REAL_UNIT);
	}
	if (d->type == FEC_PARAM_STRING || d->type == FEC_PARAM_CODE)
		cJSON_AddNumberToObject(o, "max_len", (double)d->max);
	if (d->type == FEC_PARAM_CODE && d->choices) {
		ch = cJSON_AddArrayToObject(o, "families");
		for (const char *const *c = d->choices; ch && *c; c++)
			cJSON_AddItemToArray(ch, cJSON_CreateString(*c));
	}
	if (d->type == FEC_PARAM_ENUM) {
		ch = cJSON_AddArrayToObject(o, "choices");
		for (const char *const *c = d->choices; ch && c && *c; c++)
			cJSON_AddItemToArray(ch, cJSON_CreateString(*c));
	}
	if (d->def)
		cJSON_AddStringToObject(o, "default", d->def);
	else
		cJSON_AddNullToObject(o, "default");
	cJSON_AddStringToObject(o, "help", d->help ? d->help : "");
	return o;
}

cJSON *codes_list_json(void)
{
	cJSON *res = cJSON_CreateObject(), *fams, *presets;

	fams = cJSON_AddArrayToObject(res, "families");
	for (unsigned i = 0; fams && i < fec_family_count(); i++) {
		const struct fec_family_ops *fam = fec_family_at(i);
		cJSON *f = cJSON_CreateObject(), *params;
		struct fec_spec def = {0};

		cJSON_AddStringToObject(f, "name", fam->name);
		cJSON_AddNumberToObject(f, "id", fam->family);
		params = cJSON_AddArrayToObject(f, "params");
		for (const struct fec_param_desc *d = fam->params; params && d && d->name; d++)
			cJSON_AddItemToArray(params, param_desc_json(d));
		fam->spec_default(&def);
		def.family = fam->family;
		cJSON_AddItemToObject(f, "default", fec_spec_to_json(&def));
		cJSON_AddItemToArray(fams, f);
	}
	presets = cJSON_AddArrayToObject(res, "presets");
	for (unsigned i = 0; presets && i < fec_preset_count(); i++) {
		const struct fec_preset *p = fec_preset_at(i);
		cJSON *o = cJSON_CreateObject();
		struct fec_spec spec = {0};

		cJSON_AddStringToObject(o, "name", p->name);
		cJSON_AddStringToObject(o, "family", fecd_family_name(p->family));
		cJSON_AddStringToObject(o, "description", p->description);
		if (fec_preset_apply(p->name, &spec) == 0) {
			cJSON_AddNumberToObject(o, "rate", fec_spec_rate(&spec));
			cJSON_AddItemToObject(o, "code", fec_spec_to_json(&spec));
		}
		cJSON_AddItemToArray(presets, o);
	}
	return res;
}
