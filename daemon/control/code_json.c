/*
 * A code as JSON. The daemon knows nothing about any family's parameters: it reads them from the
 * family's fec_param_desc table, checks type and bounds itself (so every message has the same
 * shape and names the JSON path), and hands the values to the family's spec_set / spec_finish.
 * Writing goes the other way through spec_get, so what channel.get prints can be sent back.
 * spec_finish builds the code (LDPC: generates or reads it), under the calling thread's build
 * limit (offload.h); running out of time is -ETIME with a message saying what to do.
 */
#include <errno.h>
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
    [FEC_PARAM_INT] = "integer",   [FEC_PARAM_ENUM] = "enum",
    [FEC_PARAM_BOOL] = "boolean",  [FEC_PARAM_OCT_LIST] = "octal_list",
    [FEC_PARAM_STRING] = "string", [FEC_PARAM_REAL] = "number",
};

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

static void list_presets(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < fec_preset_count() && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s\"%s\"", i ? ", " : "",
		                      fec_preset_at(i)->name);
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

/* An octal number given as a string of octal digits or as an integer written with octal digits. */
static int octal_value(const cJSON *v, uint32_t *out)
{
	char text[24];
	const char *s;
	unsigned long val = 0;

	if (cJSON_IsString(v)) {
		s = v->valuestring;
	} else if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0 &&
	           v->valuedouble < 1e11 && v->valuedouble == floor(v->valuedouble)) {
		snprintf(text, sizeof(text), "%.0f", v->valuedouble);
		s = text;
	} else {
		return -EINVAL;
	}
	if (!*s || strlen(s) > 11 || strspn(s, "01234567") != strlen(s))
		return -EINVAL;
	for (; *s; s++)
		val = val * 8 + (unsigned long)(*s - '0');
	*out = (uint32_t)val;
	return 0;
}

/* Checks v against the parameter's description and converts it; items backs OCT_LIST values. */
static int param_value(const struct fec_param_desc *d, const cJSON *v, const char *path,
                       uint32_t *items, struct fec_param_value *out, char *err, size_t errlen)
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
	case FEC_PARAM_OCT_LIST: {
		unsigned max_items = d->max_items < MAX_LIST ? d->max_items : MAX_LIST;

		if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 ||
		    cJSON_GetArraySize(v) > (int)max_items) {
			snprintf(what, sizeof(what), "an array of 1..%u octal numbers", max_items);
			return fail(err, errlen, path, what, v);
		}
		for (const cJSON *e = v->child; e; e = e->next, n++) {
			if (octal_value(e, &items[n]) != 0 || items[n] < (unsigned long)d->min ||
			    items[n] > (unsigned long)d->max) {
				snprintf(ipath, sizeof(ipath), "%s[%u]", path, n);
				snprintf(what, sizeof(what),
				         "an octal number in %lo..%lo, as a string (\"%lo\") or an "
				         "integer with octal digits",
				         d->min, d->max, d->max);
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
	char what[300], p[PATH_LEN];

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
			list_presets(what + 7, sizeof(what) - 7);
			memcpy(what, "one of ", 7);
			return fail(err, errlen, p, what, preset);
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
	uint32_t items[MAX_LIST];
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
		ret = param_value(d, c, ppath, items, &val, err, errlen);
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
	char text[16];
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
	case FEC_PARAM_OCT_LIST:
		arr = cJSON_CreateArray();
		for (unsigned i = 0; arr && i < v->nitems; i++) {
			snprintf(text, sizeof(text), "%o", (unsigned)v->items[i]);
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
	uint32_t buf[256];

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

	cJSON_AddStringToObject(o, "name", d->name);
	cJSON_AddStringToObject(o, "type", param_type_names[d->type]);
	if (d->type == FEC_PARAM_INT || d->type == FEC_PARAM_OCT_LIST) {
		cJSON_AddNumberToObject(o, "min", (double)d->min);
		cJSON_AddNumberToObject(o, "max", (double)d->max);
	}
	if (d->type == FEC_PARAM_REAL) {
		cJSON_AddNumberToObject(o, "min", (double)d->min / FEC_PARAM_REAL_UNIT);
		cJSON_AddNumberToObject(o, "max", (double)d->max / FEC_PARAM_REAL_UNIT);
	}
	if (d->type == FEC_PARAM_OCT_LIST)
		cJSON_AddNumberToObject(o, "max_items", d->max_items);
	if (d->type == FEC_PARAM_STRING)
		cJSON_AddNumberToObject(o, "max_len", (double)d->max);
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
