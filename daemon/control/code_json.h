/*
 * Codes as JSON (code_json.c): a channel's "code" object read and written through the family's
 * parameter table, and the codes.list description of every family and preset.
 */
#ifndef FECD_CODE_JSON_H
#define FECD_CODE_JSON_H

#include <stddef.h>

#include "fecd.h"

struct cJSON;

/* Like fec_spec_from_json, with the JSON path of obj for messages ("channels[0].code"). Without
 * "preset" or "family" the parameters apply on top of base; with one, on top of that preset's or
 * family's defaults. */
int code_from_json(const struct cJSON *obj, const struct fec_spec *base, struct fec_spec *out,
                   const char *path, char *err, size_t errlen);

/* {"families":[{name, params:[...]}], "presets":[{name, family, description, code}]} */
struct cJSON *codes_list_json(void);

#endif
