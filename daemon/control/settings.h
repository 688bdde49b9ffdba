/*
 * The settings tables: every configurable value of the daemon (global scope) and of a channel
 * (channel scope) described once - JSON path, type, bounds, default, where it lives in the
 * structure, whether it may change on a running channel, and one line of help. The same tables
 * drive the configuration file, channel.create / channel.update / channel.get, config.get and the
 * Markdown reference (fecd --print-settings). Adding a setting is adding one row.
 */
#ifndef FECD_SETTINGS_H
#define FECD_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <sys/socket.h>

#include "fecd.h"

struct cJSON;

enum setting_type {
	SET_U32,       /* uint32_t, an integer within [min, max] */
	SET_FLOAT,     /* float, a number within [min, max] */
	SET_BOOL,      /* bool, true or false */
	SET_STRING,    /* char[size]; check() validates the text */
	SET_ENUM,      /* an int-sized enum: one of choices' names */
	SET_ENUM_BOOL, /* a bool written as one of two names: choices[0] false, choices[1] true */
	SET_CODE,      /* struct fec_spec, through the family's parameter table (code_json.c) */
	SET_CHANNELS,  /* the configuration file's channel array; handled by config.c */
};

struct setting_choice {
	const char *name;
	int value;
};

#define SET_LIVE     0x1u /* may change while running: channel.update, or SIGHUP for globals */
#define SET_REQUIRED 0x2u /* no default: must be given */
#define SET_COMPUTED 0x4u /* default computed by code (def only describes it) */

struct setting {
	const char *path; /* dotted JSON path: "batch.deadline_ms" */
	enum setting_type type;
	size_t offset, size;                  /* the field in struct fecd_config / chan_config */
	double min, max;                      /* U32 and FLOAT bounds */
	const struct setting_choice *choices; /* ENUM, ENUM_BOOL: ends with name == NULL */
	const char *def;                      /* default as the docs show it and as it is applied */
	unsigned flags;                       /* SET_* */
	/* STRING only: 0 when text is acceptable, else writes what was expected into err. */
	int (*check)(const char *text, char *err, size_t errlen);
	const char *help;
};

extern const struct setting fecd_global_settings[]; /* ends with path == NULL */
extern const struct setting fecd_chan_settings[];

/* Sets every non-computed setting of the table to its default. */
void settings_defaults(const struct setting *tab, void *dst);

/* Reads obj (a JSON object shaped like the table's dotted paths) into dst on top of what dst
 * holds. Unknown keys, wrong types and out-of-bounds values are errors whose message starts with
 * the JSON path below prefix ("channels[0]" -> "channels[0].batch.jobs: expected ..."). Keys of
 * type SET_CHANNELS are left to the caller. Returns 0 or -EINVAL. */
int settings_from_json(const struct setting *tab, const struct cJSON *obj, void *dst,
                       const char *prefix, char *err, size_t errlen);
/* Checks that every SET_REQUIRED setting is present in obj. */
int settings_check_required(const struct setting *tab, const struct cJSON *obj, const char *prefix,
                            char *err, size_t errlen);
/* Adds src's settings to obj as nested objects (SET_CHANNELS rows are skipped). */
int settings_to_json(const struct setting *tab, const void *src, struct cJSON *obj);

/* The first setting (at or after *from) whose value differs between a and b; NULL when none.
 * Iterate with from = the returned row + 1. */
const struct setting *settings_next_diff(const struct setting *from, const void *a, const void *b);
/* The value of one setting as JSON text, for messages ("\"tcp://...\"", "64"). */
void settings_value_text(const struct setting *s, const void *src, char *buf, size_t len);

/* Writes the settings and code-parameter tables as Markdown (for the README and
 * fecd --print-settings). Returns 0 or -EIO. */
int settings_write_markdown(FILE *f);

/* Helpers shared with code_json.c and methods.c: "got 12", "got a string \"abc\"", ... */
void json_describe(const struct cJSON *v, char *buf, size_t len);
/* 0 when v is an integer number in [min, max] (max <= 2^53), storing it in *out. */
int json_get_uint(const struct cJSON *v, double min, double max, unsigned long long *out);

/* String validators used by the tables (also by config.c for cross-checks). */
int check_endpoint(const char *text, char *err, size_t errlen);
int check_channel_name(const char *text, char *err, size_t errlen);
int check_control_tcp(const char *text, char *err, size_t errlen);
/* "HOST:PORT" (numeric IPv4, or IPv6 in brackets) into a socket address; 0 or -EINVAL. */
int listen_addr_parse(const char *text, struct sockaddr_storage *sa, socklen_t *salen);

#endif
