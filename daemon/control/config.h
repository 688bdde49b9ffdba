/*
 * Configuration helpers beyond the declarations in fecd.h (config.c, reload.c): the whole
 * configuration as JSON (config.get, --print-config), and the channel-level parsing and
 * cross-checks shared by the file loader and the control methods.
 */
#ifndef FECD_CONFIG_H
#define FECD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "fecd.h"

struct cJSON;

/* The configuration as a JSON object shaped like the file (fecd_config_parse reads it back). */
struct cJSON *fecd_config_to_json(const struct fecd_config *cfg);

/* Reads one channel object. base NULL: a new channel (defaults, "id" required, "name" defaults to
 * "ch<id>"); else obj applies on top of base. prefix is obj's JSON path for messages. */
int chan_config_parse(const struct cJSON *obj, const struct chan_config *base,
                      struct chan_config *out, const char *prefix, char *err, size_t errlen);

/* Checks that no two of n channels share an id, a name or a bound endpoint, and that a channel
 * does not bind the same endpoint for input and output. names[i] (optional) is channel i's JSON
 * path for messages; NULL uses "channels[i]". */
int chan_configs_check_unique(const struct chan_config *const *chans, unsigned n,
                              const char *const *names, char *err, size_t errlen);

/* The SIGHUP reload (reload.c): reads path, builds the codes of the channels it adds or changes
 * off the loop thread, then reconciles the running channels with it on the loop thread (creates
 * new channels, updates changed ones, deletes removed ones) and calls done with the configuration
 * applied. A file that is absent (unless required), does not parse, or has a code that cannot be
 * built in time keeps the running configuration, and done is not called. */
typedef void (*reload_done_fn)(const struct fecd_config *cfg, void *arg);
struct reload;
struct reload *reload_new(struct fecd *d, const char *path, bool required, reload_done_fn done,
                          void *arg);
/* On SIGHUP: starts a reload, or, while one is being built, asks for one more after it. */
void reload_request(struct reload *r);
/* After the loop has ended (nothing is in flight then). */
void reload_free(struct reload *r);

/* The default control-socket path (ctlpath.h). config_default_socket_why gives the rule that
 * chose path when path is that default (for the log), else NULL. */
void config_default_socket(char *buf, size_t len);
/* What JSON text that does not parse has where the parser stopped (pos, within [pos, end)):
 * "the end of the text", a character ("','"), a word or a string cut to 16 characters, or a byte
 * in hex; for messages such as "invalid JSON at line 3, column 14: found '}'". */
void config_json_found(const char *pos, const char *end, char *buf, size_t len);
const char *config_default_socket_why(const char *path);

#endif
