/*
 * The clients' reader of fecd's configuration file (client_config.h): a few keys, with fecd's
 * defaults, and JSON syntax errors that say where and what was found.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client_config.h"

#define CONFIG_MAX_BYTES (16u << 20) /* as fecd's own reader */

void client_json_error(const char *text, const char *stop, char *buf, unsigned long len)
{
	unsigned line = 1, col = 1;
	char found[40];

	if (!stop)
		stop = text + strlen(text);
	for (const char *p = text; p < stop && *p; p++) {
		if (*p == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (!*stop) {
		snprintf(found, sizeof(found), "the end of the text");
	} else if (isalnum((unsigned char)*stop) || *stop == '_' || *stop == '-') {
		size_t n = 0;
		while (n < 16 && (isalnum((unsigned char)stop[n]) || stop[n] == '_' ||
		                  stop[n] == '-' || stop[n] == '.'))
			n++;
		snprintf(found, sizeof(found), "'%.*s'", (int)n, stop);
	} else if (*stop == '"') {
		size_t n = 1;
		while (n < 17 && stop[n] && stop[n] != '"' && stop[n] != '\n')
			n++;
		snprintf(found, sizeof(found), "'%.*s%s", (int)n, stop,
		         stop[n] == '"' ? "\"'" : "...'");
	} else if (isprint((unsigned char)*stop)) {
		snprintf(found, sizeof(found), "'%c'", *stop);
	} else {
		snprintf(found, sizeof(found), "byte 0x%02x", (unsigned char)*stop);
	}
	snprintf(buf, len, "%u:%u: not valid JSON: found %s", line, col, found);
}

/* Reads the whole file into a NUL-terminated buffer. Returns it, or NULL after printing why. */
static char *read_text(const char *path, const char *who)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t n = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return NULL;
	}
	text = malloc(CONFIG_MAX_BYTES + 1);
	if (text)
		n = fread(text, 1, CONFIG_MAX_BYTES + 1, f);
	if (!text || ferror(f) || n > CONFIG_MAX_BYTES) {
		fprintf(stderr, "%s: %s: %s\n", who, path,
		        !text       ? "out of memory"
		        : ferror(f) ? strerror(errno)
		                    : "larger than 16 MiB");
		free(text);
		text = NULL;
	} else {
		text[n] = '\0';
	}
	fclose(f);
	return text;
}

/* A string member: copied into out (left as it is where absent). Returns 0, or -1 after printing
 * a member of another type or too long. */
static int get_string(const cJSON *obj, const char *key, const char *where, char *out,
                      const char *path, const char *who)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!v)
		return 0;
	if (!cJSON_IsString(v) || strlen(v->valuestring) >= CLIENT_CONFIG_TEXT_MAX) {
		fprintf(stderr, "%s: %s: %s%s: expected a string of at most %d characters\n", who,
		        path, where, key, CLIENT_CONFIG_TEXT_MAX - 1);
		return -1;
	}
	strcpy(out, v->valuestring);
	return 0;
}

/* Where a client reaches an endpoint fecd binds: its wildcard host becomes loopback. */
static void client_endpoint(char *ep)
{
	static const struct {
		const char *wild, *local;
	} hosts[] = {{"tcp://*:", "tcp://127.0.0.1:"},
	             {"tcp://0.0.0.0:", "tcp://127.0.0.1:"},
	             {"tcp://[::]:", "tcp://[::1]:"}};
	char rest[CLIENT_CONFIG_TEXT_MAX];

	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		size_t n = strlen(hosts[i].wild);
		if (strncmp(ep, hosts[i].wild, n) == 0) {
			snprintf(rest, sizeof(rest), "%s", ep + n);
			snprintf(ep, CLIENT_CONFIG_TEXT_MAX, "%s%.*s", hosts[i].local,
			         (int)(CLIENT_CONFIG_TEXT_MAX - 20), rest);
			return;
		}
	}
}

/* One side of a channel ("input" or "output"), with fecd's defaults. */
static int read_side(const cJSON *ch, const char *name, const char *def_endpoint,
                     const char *pubsub_name, struct client_config_side *side, const char *path,
                     const char *who)
{
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(ch, name), *bind;
	char where[32], kind[CLIENT_CONFIG_TEXT_MAX] = "";

	snprintf(side->endpoint, sizeof(side->endpoint), "%s", def_endpoint);
	side->fecd_binds = true;
	side->pubsub = false;
	if (!obj)
		return 0;
	snprintf(where, sizeof(where), "%s.", name);
	if (get_string(obj, "endpoint", where, side->endpoint, path, who) ||
	    get_string(obj, "socket", where, kind, path, who))
		return -1;
	side->pubsub = strcmp(kind, pubsub_name) == 0;
	bind = cJSON_GetObjectItemCaseSensitive(obj, "bind");
	if (bind && !cJSON_IsBool(bind)) {
		fprintf(stderr, "%s: %s: %sbind: expected true or false\n", who, path, where);
		return -1;
	}
	if (bind)
		side->fecd_binds = cJSON_IsTrue(bind);
	if (side->fecd_binds)
		client_endpoint(side->endpoint);
	return 0;
}

int client_config_read(const char *path, uint32_t channel, struct client_config *cfg,
                       const char *who)
{
	const char *stop = NULL;
	const cJSON *control, *chans, *ch = NULL;
	char *text = read_text(path, who);
	cJSON *root;
	int rc = -1;

	memset(cfg, 0, sizeof(*cfg));
	if (!text)
		return -1;
	root = cJSON_ParseWithOpts(text, &stop, 1);
	if (!root) {
		char msg[128];
		client_json_error(text, stop, msg, sizeof(msg));
		fprintf(stderr, "%s: %s:%s\n", who, path, msg);
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		fprintf(stderr, "%s: %s: expected a JSON object at the top\n", who, path);
		goto out;
	}
	control = cJSON_GetObjectItemCaseSensitive(root, "control");
	if (get_string(root, "codes_dir", "", cfg->codes_dir, path, who) ||
	    get_string(control, "socket", "control.", cfg->socket, path, who) ||
	    get_string(control, "token_file", "control.", cfg->token_file, path, who))
		goto out;
	chans = cJSON_GetObjectItemCaseSensitive(root, "channels");
	if (!chans) {
		cfg->have_channel = channel == 1; /* fecd's default channel */
	} else {
		const cJSON *c;
		cJSON_ArrayForEach(c, chans)
		{
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
			if (cJSON_IsNumber(id) && id->valuedouble == (double)channel)
				ch = c;
		}
		cfg->have_channel = ch != NULL;
	}
	if (read_side(ch, "input", "tcp://127.0.0.1:5550", "sub", &cfg->in, path, who) ||
	    read_side(ch, "output", "tcp://127.0.0.1:5551", "pub", &cfg->out, path, who))
		goto out;
	rc = 0;
out:
	cJSON_Delete(root);
	free(text);
	return rc;
}
