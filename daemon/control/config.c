/*
 * The configuration file: defaults, loading, the channels array and the checks that span several
 * channels (unique ids, names and bound endpoints). Every value is read through the settings
 * tables (settings.c), so the file, channel.create and channel.get agree on names and bounds.
 *
 * Example (every key optional except each channel's "id"):
 *   {"control": {"socket": "/run/fecd/control.sock", "tcp": "127.0.0.1:7011"},
 *    "backend": "cpu", "workers": 0, "log_level": "info",
 *    "channels": [{"id": 1, "name": "ccsds",
 *                  "code": {"preset": "ccsds", "mode": "stream", "decode_len": 2048},
 *                  "input": {"endpoint": "tcp://127.0.0.1:5550", "socket": "pull", "bind": true},
 *                  "output": {"endpoint": "tcp://127.0.0.1:5551", "socket": "push"},
 *                  "batch": {"jobs": 64, "deadline_ms": 20, "inflight": 2}}]}
 * Without "channels" the file gets the default channel; "channels": [] means none.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "ctlpath.h"
#include "log.h"
#include "offload.h"
#include "settings.h"

#define CONFIG_MAX_BYTES (16u << 20)

/* The last default chosen, so that control_start can say why it listens where it does. */
static char default_socket[FECD_PATH_MAX];
static const char *default_socket_why;

void config_default_socket(char *buf, size_t len)
{
	const char *why = "";

	if (fecd_control_path_default(buf, len, true, &why) != 0) {
		snprintf(buf, len, "/tmp/fecd-control.sock");
		why = "fallback: the rule's path does not fit a socket address";
	}
	snprintf(default_socket, sizeof(default_socket), "%s", buf);
	default_socket_why = why;
	log_debug("control socket defaults to %s (%s)", buf, why);
}

const char *config_default_socket_why(const char *path)
{
	return default_socket_why && strcmp(path, default_socket) == 0 ? default_socket_why : NULL;
}

void chan_config_defaults(struct chan_config *cc, uint32_t id)
{
	memset(cc, 0, sizeof(*cc));
	settings_defaults(fecd_chan_settings, cc);
	cc->id = id;
	snprintf(cc->name, sizeof(cc->name), "ch%u", (unsigned)id);
	if (fec_preset_apply("ccsds", &cc->spec) != 0)
		log_err("the codec has no \"ccsds\" preset: the default channel has no code");
}

static void global_defaults(struct fecd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	settings_defaults(fecd_global_settings, cfg);
}

/* Puts the configuration's codes folder and path policy in force in the codec. */
static void codes_apply(const struct fecd_config *cfg)
{
	fec_codes_dir_set(cfg->codes_dir[0] ? cfg->codes_dir : NULL);
	fec_code_paths_set(cfg->codes_paths);
}

static void default_channel(struct fecd_config *cfg)
{
	cfg->nchannels = 1;
	chan_config_defaults(&cfg->channels[0], 1);
	snprintf(cfg->channels[0].name, sizeof(cfg->channels[0].name), "ccsds");
}

void fecd_config_defaults(struct fecd_config *cfg)
{
	global_defaults(cfg);
	config_default_socket(cfg->control_socket, sizeof(cfg->control_socket));
	codes_apply(cfg);
	default_channel(cfg);
}

/* CURVE's files go with an end's role: where fecd binds it is the server (this end's secret key
 * and the clients allowed in), where it connects the client (this end's secret key and the
 * server's public key). */
static int check_curve(const struct endpoint_config *ec, const char *prefix, const char *what,
                       char *err, size_t errlen)
{
	const struct curve_config *c = &ec->curve;
	const char *sep = *prefix ? "." : "";

	if (!c->secret_key_file[0]) {
		if (!c->clients_file[0] && !c->server_key_file[0])
			return 0;
		snprintf(err, errlen,
		         "%s%s%s.curve.secret_key_file: expected this end's secret key file, since "
		         "%s.curve.%s is set",
		         prefix, sep, what, what,
		         c->clients_file[0] ? "clients_file" : "server_key_file");
	} else if (strncmp(ec->endpoint, "inproc://", 9) == 0) {
		snprintf(err, errlen,
		         "%s%s%s.curve.secret_key_file: expected a tcp:// or ipc:// endpoint with "
		         "CURVE; inproc:// has no handshake",
		         prefix, sep, what);
	} else if (ec->bind && !c->clients_file[0]) {
		snprintf(err, errlen,
		         "%s%s%s.curve.clients_file: expected the file of client public keys allowed "
		         "in (%s.bind is true: fecd is the CURVE server)",
		         prefix, sep, what, what);
	} else if (ec->bind && c->server_key_file[0]) {
		snprintf(err, errlen,
		         "%s%s%s.curve.server_key_file: expected none where fecd binds (it is the "
		         "CURVE server; its clients' keys go in %s.curve.clients_file)",
		         prefix, sep, what, what);
	} else if (!ec->bind && !c->server_key_file[0]) {
		snprintf(err, errlen,
		         "%s%s%s.curve.server_key_file: expected the public key file of the server "
		         "fecd connects to (%s.bind is false: fecd is the CURVE client)",
		         prefix, sep, what, what);
	} else if (!ec->bind && c->clients_file[0]) {
		snprintf(err, errlen,
		         "%s%s%s.curve.clients_file: expected none where fecd connects (it is the "
		         "CURVE client; the server checks the clients)",
		         prefix, sep, what);
	} else {
		return 0;
	}
	return -EINVAL;
}

int chan_config_parse(const cJSON *obj, const struct chan_config *base, struct chan_config *out,
                      const char *prefix, char *err, size_t errlen)
{
	struct chan_config cc;
	char got[96];
	int ret;

	if (!cJSON_IsObject(obj)) {
		json_describe(obj, got, sizeof(got));
		snprintf(err, errlen, "%s: expected a channel object, got %s", prefix, got);
		return -EINVAL;
	}
	if (base) {
		cc = *base;
	} else {
		ret = settings_check_required(fecd_chan_settings, obj, prefix, err, errlen);
		if (ret)
			return ret;
		chan_config_defaults(&cc, 0);
	}
	ret = settings_from_json(fecd_chan_settings, obj, &cc, prefix, err, errlen);
	if (ret)
		return ret;
	if (!base && !cJSON_GetObjectItemCaseSensitive(obj, "name"))
		snprintf(cc.name, sizeof(cc.name), "ch%u", (unsigned)cc.id);
	ret = check_curve(&cc.in, prefix, "input", err, errlen);
	if (!ret)
		ret = check_curve(&cc.out, prefix, "output", err, errlen);
	if (ret)
		return ret;
	*out = cc;
	return 0;
}

int chan_config_from_json(const cJSON *obj, const struct chan_config *base, struct chan_config *out,
                          char *err, size_t errlen)
{
	return chan_config_parse(obj, base, out, "channel", err, errlen);
}

cJSON *chan_config_to_json(const struct chan_config *cc)
{
	cJSON *obj = cJSON_CreateObject();

	if (obj && settings_to_json(fecd_chan_settings, cc, obj) != 0) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

cJSON *fecd_config_to_json(const struct fecd_config *cfg)
{
	cJSON *obj = cJSON_CreateObject(), *arr;

	if (!obj || settings_to_json(fecd_global_settings, cfg, obj) != 0)
		goto out_free;
	arr = cJSON_AddArrayToObject(obj, "channels");
	if (!arr)
		goto out_free;
	for (uint32_t i = 0; i < cfg->nchannels; i++) {
		cJSON *ch = chan_config_to_json(&cfg->channels[i]);

		if (!ch || !cJSON_AddItemToArray(arr, ch)) {
			cJSON_Delete(ch);
			goto out_free;
		}
	}
	return obj;
out_free:
	cJSON_Delete(obj);
	return NULL;
}

static const char *chan_path(const char *const *names, unsigned i, char *buf, size_t len)
{
	if (names && names[i])
		snprintf(buf, len, "%s", names[i]);
	else
		snprintf(buf, len, "channels[%u]", i);
	return buf;
}

int chan_configs_check_unique(const struct chan_config *const *chans, unsigned n,
                              const char *const *names, char *err, size_t errlen)
{
	char pa[64], pb[64];

	for (unsigned i = 0; i < n; i++) {
		const struct chan_config *a = chans[i];

		if (a->in.bind && a->out.bind && strcmp(a->in.endpoint, a->out.endpoint) == 0) {
			snprintf(err, errlen,
			         "%s.output.endpoint: \"%s\" is also its input endpoint",
			         chan_path(names, i, pa, sizeof(pa)), a->out.endpoint);
			return -EEXIST;
		}
		for (unsigned j = 0; j < i; j++) {
			const struct chan_config *b = chans[j];
			const struct endpoint_config *ea[2] = {&a->in, &a->out};
			const struct endpoint_config *eb[2] = {&b->in, &b->out};
			static const char *const dir[2] = {"input", "output"};

			chan_path(names, i, pa, sizeof(pa));
			chan_path(names, j, pb, sizeof(pb));
			if (a->id == b->id) {
				snprintf(err, errlen, "%s.id: %u is already the id of %s", pa,
				         (unsigned)a->id, pb);
				return -EEXIST;
			}
			if (strcmp(a->name, b->name) == 0) {
				snprintf(err, errlen, "%s.name: \"%s\" is already the name of %s",
				         pa, a->name, pb);
				return -EEXIST;
			}
			/* Two sockets cannot bind one address; connecting twice (e.g. two SUB
			 * channels on one publisher) is legitimate. */
			for (int x = 0; x < 2; x++) {
				for (int y = 0; y < 2; y++) {
					if (!ea[x]->bind || !eb[y]->bind ||
					    strcmp(ea[x]->endpoint, eb[y]->endpoint) != 0)
						continue;
					snprintf(err, errlen,
					         "%s.%s.endpoint: \"%s\" is already bound by %s.%s",
					         pa, dir[x], ea[x]->endpoint, pb, dir[y]);
					return -EEXIST;
				}
			}
		}
	}
	return 0;
}

static int parse_channels(const cJSON *arr, struct fecd_config *cfg, char *err, size_t errlen)
{
	const struct chan_config *ptrs[FECD_MAX_CHANNELS];
	char prefix[32], got[96];
	unsigned n = 0;
	int ret;

	if (!cJSON_IsArray(arr)) {
		json_describe(arr, got, sizeof(got));
		snprintf(err, errlen, "channels: expected an array of channel objects, got %s",
		         got);
		return -EINVAL;
	}
	if (cJSON_GetArraySize(arr) > FECD_MAX_CHANNELS) {
		snprintf(err, errlen, "channels: expected at most %d channels, got %d",
		         FECD_MAX_CHANNELS, cJSON_GetArraySize(arr));
		return -EINVAL;
	}
	for (const cJSON *c = arr->child; c; c = c->next, n++) {
		snprintf(prefix, sizeof(prefix), "channels[%u]", n);
		build_limit_restart(); /* each channel's code gets the whole limit (a reload's) */
		ret = chan_config_parse(c, NULL, &cfg->channels[n], prefix, err, errlen);
		if (ret)
			return ret;
		ptrs[n] = &cfg->channels[n];
	}
	cfg->nchannels = n;
	return chan_configs_check_unique(ptrs, n, NULL, err, errlen);
}

/* "line 3, column 14" for a position in text. */
static void text_position(const char *text, const char *pos, char *buf, size_t len)
{
	unsigned line = 1, col = 1;

	for (const char *p = text; p < pos; p++) {
		if (*p == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(buf, len, "line %u, column %u", line, col);
}

void config_json_found(const char *pos, const char *end, char *buf, size_t len)
{
	size_t n = 0;

	if (pos >= end) {
		snprintf(buf, len, "the end of the text");
	} else if (*pos == '"') {
		n = 1;
		while (n < 17 && pos + n < end && pos[n] != '"' && pos[n] != '\n')
			n++;
		bool closed = pos + n < end && pos[n] == '"';
		snprintf(buf, len, "'%.*s%s", (int)n, pos, closed ? "\"'" : "...'");
	} else if (isalnum((unsigned char)*pos) || *pos == '-' || *pos == '_') {
		while (n < 16 && pos + n < end &&
		       (isalnum((unsigned char)pos[n]) || pos[n] == '-' || pos[n] == '_' ||
		        pos[n] == '.'))
			n++;
		snprintf(buf, len, "'%.*s'", (int)n, pos);
	} else if (isprint((unsigned char)*pos)) {
		snprintf(buf, len, "'%c'", *pos);
	} else {
		snprintf(buf, len, "byte 0x%02x", (unsigned char)*pos);
	}
}

int fecd_config_parse(const char *text, size_t len, struct fecd_config *cfg, char *err,
                      size_t errlen)
{
	const char *end = NULL;
	struct fecd_config *tmp;
	const cJSON *chans;
	cJSON *root;
	char where[48], *prev_dir;
	enum fec_path_policy prev_paths;
	int ret = -EINVAL;

	root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!root) {
		const char *stop = end && end >= text && end <= text + len ? end : text + len;
		char found[48];

		text_position(text, stop, where, sizeof(where));
		config_json_found(stop, text + len, found, sizeof(found));
		snprintf(err, errlen, "invalid JSON at %s: found %s", where, found);
		return -EINVAL;
	}
	while (end < text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
		end++;
	if (end < text + len) {
		text_position(text, end, where, sizeof(where));
		snprintf(err, errlen, "unexpected text after the JSON object at %s", where);
		goto out_root;
	}
	tmp = malloc(sizeof(*tmp));
	if (!tmp) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out_root;
	}
	global_defaults(tmp);
	ret = settings_from_json(fecd_global_settings, root, tmp, "", err, errlen);
	if (ret)
		goto out_tmp;
	if (!cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "control"),
	                                      "socket"))
		config_default_socket(tmp->control_socket, sizeof(tmp->control_socket));
	/* Codes given as relative paths or presets are read while the channels are parsed, from
	 * the codes folder this file names and under its path policy; a file that fails leaves
	 * both as they were. */
	prev_dir = strdup(fec_codes_dir());
	if (!prev_dir) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out_tmp;
	}
	prev_paths = fec_code_paths();
	codes_apply(tmp);
	chans = cJSON_GetObjectItemCaseSensitive(root, "channels");
	if (chans)
		ret = parse_channels(chans, tmp, err, errlen);
	else
		default_channel(tmp);
	if (ret == 0) {
		memcpy(cfg, tmp, sizeof(*cfg));
	} else {
		fec_codes_dir_set(prev_dir);
		fec_code_paths_set(prev_paths);
	}
	free(prev_dir);
out_tmp:
	free(tmp);
out_root:
	cJSON_Delete(root);
	return ret;
}

/* err does not repeat the path: the caller names the file ("fecd: PATH: channels[0]..."). */
int fecd_config_load(const char *path, struct fecd_config *cfg, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long size;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		return ret;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read: %s", strerror(errno));
		goto out_close;
	}
	if ((unsigned long)size > CONFIG_MAX_BYTES) {
		snprintf(err, errlen, "larger than %u bytes; not a configuration file?",
		         CONFIG_MAX_BYTES);
		ret = -EFBIG;
		goto out_close;
	}
	text = malloc((size_t)size + 1);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out_close;
	}
	if (fread(text, 1, (size_t)size, f) != (size_t)size) {
		snprintf(err, errlen, "short read");
		ret = -EIO;
		goto out_text;
	}
	text[size] = '\0';
	ret = fecd_config_parse(text, (size_t)size, cfg, err, errlen);
out_text:
	free(text);
out_close:
	fclose(f);
	return ret;
}
