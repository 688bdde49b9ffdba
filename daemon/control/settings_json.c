/*
 * The settings tables' JSON side: reading a JSON object into a structure through a table (every
 * key checked: unknown keys, duplicates, types and bounds are errors naming the JSON path and
 * what was expected), writing a structure back as JSON, and comparing two structures setting by
 * setting (what channel.update and reloads use to tell live changes from the others).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "settings.h"
#include "code_json.h"

_Static_assert(sizeof(enum sock_kind) == sizeof(int) && sizeof(enum in_proto) == sizeof(int) &&
                   sizeof(enum fecd_format) == sizeof(int) &&
                   sizeof(enum gr_tags_mode) == sizeof(int) &&
                   sizeof(enum fec_path_policy) == sizeof(int),
               "SET_ENUM fields are stored through an int");

#define PATH_LEN 256

void json_describe(const cJSON *v, char *buf, size_t len)
{
	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;

		if (!isfinite(d))
			snprintf(buf, len, "a number too large to represent");
		else if (d == floor(d) && fabs(d) < 1e15)
			snprintf(buf, len, "%.0f", d);
		else
			snprintf(buf, len, "%.17g", d);
	} else if (cJSON_IsString(v)) {
		/* Quoted, shortened, with anything unprintable replaced: messages stay one clean
		 * line. */
		const unsigned char *s = (const unsigned char *)v->valuestring;
		size_t o = 0, i;

		if (len < 8) {
			snprintf(buf, len, "\"\"");
			return;
		}
		buf[o++] = '"';
		for (i = 0; s[i] && i < 40 && o + 5 < len; i++)
			buf[o++] = (s[i] >= ' ' && s[i] < 0x7f && s[i] != '"' && s[i] != '\\')
			               ? (char)s[i]
			               : '?';
		if (s[i] && o + 5 < len) {
			memcpy(buf + o, "...", 3);
			o += 3;
		}
		buf[o++] = '"';
		buf[o] = '\0';
	} else if (cJSON_IsBool(v)) {
		snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsNull(v)) {
		snprintf(buf, len, "null");
	} else if (cJSON_IsArray(v)) {
		snprintf(buf, len, "an array");
	} else if (cJSON_IsObject(v)) {
		snprintf(buf, len, "an object");
	} else {
		snprintf(buf, len, "an invalid value");
	}
}

int json_get_uint(const cJSON *v, double min, double max, unsigned long long *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return -EINVAL;
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d) || d < min || d > max || d > 9007199254740992.0)
		return -ERANGE;
	*out = (unsigned long long)d;
	return 0;
}

static void join(char *buf, const char *prefix, const char *key)
{
	snprintf(buf, PATH_LEN, "%s%s%s", prefix, *prefix ? "." : "", key);
}

static int fail(char *err, size_t errlen, const char *path, const char *expected, const cJSON *v)
{
	char got[96];

	json_describe(v, got, sizeof(got));
	snprintf(err, errlen, "%s: expected %s, got %s", path, expected, got);
	return -EINVAL;
}

static void choices_text(const struct setting_choice *c, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "one of");

	for (const struct setting_choice *p = c; p->name && o < len; p++)
		o += (size_t)snprintf(buf + o, len - o, "%s \"%s\"", p == c ? "" : ",", p->name);
}

static int set_value(const struct setting *s, const cJSON *v, void *dst, const char *path,
                     char *err, size_t errlen)
{
	char *p = (char *)dst + s->offset;
	char what[200];
	unsigned long long u;

	switch (s->type) {
	case SET_U32:
		if (json_get_uint(v, s->min, s->max, &u) != 0) {
			snprintf(what, sizeof(what), "an integer in %.0f..%.0f", s->min, s->max);
			return fail(err, errlen, path, what, v);
		}
		*(uint32_t *)p = (uint32_t)u;
		return 0;
	case SET_FLOAT:
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < s->min ||
		    v->valuedouble > s->max) {
			snprintf(what, sizeof(what), "a number in %g..%g", s->min, s->max);
			return fail(err, errlen, path, what, v);
		}
		*(float *)p = (float)v->valuedouble;
		return 0;
	case SET_BOOL:
		if (!cJSON_IsBool(v))
			return fail(err, errlen, path, "true or false", v);
		*(bool *)p = cJSON_IsTrue(v);
		return 0;
	case SET_STRING:
		if (!cJSON_IsString(v) || strlen(v->valuestring) >= s->size) {
			snprintf(what, sizeof(what), "a string of at most %zu bytes", s->size - 1);
			return fail(err, errlen, path, what, v);
		}
		if (s->check && s->check(v->valuestring, what, sizeof(what)) != 0)
			return fail(err, errlen, path, what, v);
		memcpy(p, v->valuestring, strlen(v->valuestring) + 1);
		return 0;
	case SET_ENUM:
	case SET_ENUM_BOOL:
		for (const struct setting_choice *c = s->choices; cJSON_IsString(v) && c->name;
		     c++) {
			if (strcmp(c->name, v->valuestring) != 0)
				continue;
			if (s->type == SET_ENUM)
				*(int *)p = c->value;
			else
				*(bool *)p = c->value != 0;
			return 0;
		}
		choices_text(s->choices, what, sizeof(what));
		return fail(err, errlen, path, what, v);
	case SET_CODE:
		return code_from_json(v, (const struct fec_spec *)p, (struct fec_spec *)p, path,
		                      err, errlen);
	case SET_CHANNELS:
		break;
	}
	return 0;
}

/* Valid keys at one level of the table (below tpath), for "unknown key" messages. */
static void level_keys(const struct setting *tab, const char *tpath, char *buf, size_t len)
{
	size_t tl = strlen(tpath), o = 0;

	buf[0] = '\0';
	for (const struct setting *s = tab; s->path; s++) {
		const char *rest;
		size_t kl;
		bool seen = false;

		if (strncmp(s->path, tpath, tl) != 0)
			continue;
		rest = s->path + tl;
		kl = strcspn(rest, ".");
		for (const struct setting *q = tab; q < s && !seen; q++)
			seen = strncmp(q->path, tpath, tl) == 0 &&
			       strncmp(q->path + tl, rest, kl) == 0 &&
			       (q->path[tl + kl] == '.' || q->path[tl + kl] == '\0');
		if (!seen && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%.*s", o ? ", " : "", (int)kl,
			                      rest);
	}
}

static int walk(const struct setting *tab, const cJSON *obj, void *dst, const char *prefix,
                const char *tpath, char *err, size_t errlen)
{
	char full[PATH_LEN], path[PATH_LEN], valid[300];
	size_t fl;

	if (!cJSON_IsObject(obj))
		return fail(err, errlen, *prefix ? prefix : "(top level)", "an object", obj);
	for (const cJSON *c = obj->child; c; c = c->next) {
		const struct setting *s = NULL;
		bool group = false;
		int ret;

		snprintf(full, sizeof(full), "%s%s", tpath, c->string);
		fl = strlen(full);
		for (const struct setting *q = tab; q->path && !strchr(c->string, '.'); q++) {
			if (strcmp(q->path, full) == 0)
				s = q;
			else if (strncmp(q->path, full, fl) == 0 && q->path[fl] == '.')
				group = true;
		}
		join(path, prefix, c->string);
		if (!s && !group) {
			level_keys(tab, tpath, valid, sizeof(valid));
			json_describe(&(cJSON){.type = cJSON_String, .valuestring = c->string},
			              full, sizeof(full));
			snprintf(err, errlen, "%s: unknown key %s (valid keys: %s)",
			         *prefix ? prefix : "(top level)", full, valid);
			return -EINVAL;
		}
		/* Earlier siblings are all valid keys, so this scan stays short. */
		for (const cJSON *e = obj->child; e != c; e = e->next) {
			if (strcmp(e->string, c->string) == 0) {
				snprintf(err, errlen, "%s: key given twice", path);
				return -EINVAL;
			}
		}
		if (s) {
			ret = s->type == SET_CHANNELS ? 0 : set_value(s, c, dst, path, err, errlen);
		} else {
			snprintf(full + fl, sizeof(full) - fl, ".");
			ret = walk(tab, c, dst, path, full, err, errlen);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int settings_from_json(const struct setting *tab, const cJSON *obj, void *dst, const char *prefix,
                       char *err, size_t errlen)
{
	return walk(tab, obj, dst, prefix ? prefix : "", "", err, errlen);
}

static const cJSON *lookup(const cJSON *obj, const char *path)
{
	char key[PATH_LEN];

	while (obj && *path) {
		size_t kl = strcspn(path, ".");

		if (kl >= sizeof(key))
			return NULL;
		memcpy(key, path, kl);
		key[kl] = '\0';
		obj = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
		path += kl + (path[kl] == '.');
	}
	return obj;
}

int settings_check_required(const struct setting *tab, const cJSON *obj, const char *prefix,
                            char *err, size_t errlen)
{
	for (const struct setting *s = tab; s->path; s++) {
		if (!(s->flags & SET_REQUIRED) || lookup(obj, s->path))
			continue;
		if (s->type == SET_U32)
			snprintf(err, errlen,
			         "%s: missing required key \"%s\" (an integer in %.0f..%.0f)",
			         *prefix ? prefix : "(top level)", s->path, s->min, s->max);
		else
			snprintf(err, errlen, "%s: missing required key \"%s\"",
			         *prefix ? prefix : "(top level)", s->path);
		return -EINVAL;
	}
	return 0;
}

/* The shortest decimal that reads back as the same float: 8 rather than 8.0000000000000000. */
static double float_to_double(float f)
{
	char buf[32];

	for (int prec = 6; prec < 9; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, (double)f);
		if (strtof(buf, NULL) == f)
			return strtod(buf, NULL);
	}
	return (double)f;
}

static cJSON *value_to_json(const struct setting *s, const void *src)
{
	const char *p = (const char *)src + s->offset;

	switch (s->type) {
	case SET_U32:
		return cJSON_CreateNumber(*(const uint32_t *)p);
	case SET_FLOAT:
		return cJSON_CreateNumber(float_to_double(*(const float *)p));
	case SET_BOOL:
		return cJSON_CreateBool(*(const bool *)p);
	case SET_STRING:
		return cJSON_CreateString(p);
	case SET_ENUM:
	case SET_ENUM_BOOL: {
		int val = s->type == SET_ENUM ? *(const int *)p : *(const bool *)p;

		for (const struct setting_choice *c = s->choices; c->name; c++)
			if (c->value == val)
				return cJSON_CreateString(c->name);
		return cJSON_CreateNumber(val); /* not reachable through the parser */
	}
	case SET_CODE:
		return fec_spec_to_json((const struct fec_spec *)p);
	case SET_CHANNELS:
		break;
	}
	return NULL;
}

int settings_to_json(const struct setting *tab, const void *src, cJSON *obj)
{
	char key[PATH_LEN];

	for (const struct setting *s = tab; s->path; s++) {
		const char *path = s->path;
		cJSON *parent = obj, *v;

		if (s->type == SET_CHANNELS)
			continue;
		while (strchr(path, '.')) {
			size_t kl = strcspn(path, ".");
			cJSON *next;

			snprintf(key, sizeof(key), "%.*s", (int)kl, path);
			path += kl + 1;
			next = cJSON_GetObjectItemCaseSensitive(parent, key);
			if (!next)
				next = cJSON_AddObjectToObject(parent, key);
			if (!next)
				return -ENOMEM;
			parent = next;
		}
		v = value_to_json(s, src);
		if (!v || !cJSON_AddItemToObject(parent, path, v)) {
			cJSON_Delete(v);
			return -ENOMEM;
		}
	}
	return 0;
}

const struct setting *settings_next_diff(const struct setting *from, const void *a, const void *b)
{
	for (const struct setting *s = from; s->path; s++) {
		const char *pa = (const char *)a + s->offset, *pb = (const char *)b + s->offset;

		switch (s->type) {
		case SET_STRING:
			if (strcmp(pa, pb) != 0)
				return s;
			break;
		case SET_CODE:
			if (!fec_spec_equal((const struct fec_spec *)pa,
			                    (const struct fec_spec *)pb))
				return s;
			break;
		case SET_CHANNELS:
			break;
		default:
			if (memcmp(pa, pb, s->size) != 0)
				return s;
			break;
		}
	}
	return NULL;
}

void settings_value_text(const struct setting *s, const void *src, char *buf, size_t len)
{
	cJSON *v = value_to_json(s, src);
	char *text = v ? cJSON_PrintUnformatted(v) : NULL;

	snprintf(buf, len, "%s", text ? text : "?");
	cJSON_free(text);
	cJSON_Delete(v);
}
