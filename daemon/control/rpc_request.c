/*
 * The JSON-RPC request itself, apart from the sockets: a request line read into a request
 * (rpc_read_request, which the control server and the fuzz harness call), a scan of the raw line
 * for what cJSON would not catch (NUL bytes, invalid UTF-8, nesting deeper than the limit - counted
 * without recursion, so a line of 60000 '[' costs a scan), and the check of the request envelope
 * ("jsonrpc": "2.0", a string method, an object of params, an id that is a string, an integer
 * JSON carries exactly, or null, and nothing else).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "rpc.h"
#include "settings.h"

/* ---- Counters for metrics: rpc_read_request prescans a line, parses it with cJSON and checks the
 * envelope, then control.c calls the method; the parse errors are the lines that passed the
 * prescan and never reached the envelope check. */

static atomic_ullong requests, prescanned, enveloped;
static atomic_ullong errors[RPC_ERR_COUNT];

static const int rpc_codes[RPC_ERR_COUNT] = {
#define X(name, code, text) code,
    RPC_ERR_MAP(X)
#undef X
};

void rpc_count_error(int code)
{
	for (unsigned i = 0; code && i < RPC_ERR_COUNT; i++)
		if (rpc_codes[i] == code)
			atomic_fetch_add_explicit(&errors[i], 1, memory_order_relaxed);
}

void rpc_counters_get(struct rpc_counters *out)
{
	/* Read in the order opposite to the increments, so in-flight requests never make the
	 * difference negative. */
	unsigned long long env = atomic_load(&enveloped), pre = atomic_load(&prescanned);

	out->requests = atomic_load(&requests);
	for (unsigned i = 0; i < RPC_ERR_COUNT; i++) {
		out->errors[i] = atomic_load_explicit(&errors[i], memory_order_relaxed);
		if (rpc_codes[i] == RPC_EPARSE && pre > env)
			out->errors[i] += pre - env;
	}
}

/* Length of the UTF-8 sequence at s (n bytes left), or 0 when it is not valid UTF-8. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f; /* no UTF-16 surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* Checks what cJSON would not: NUL bytes, UTF-8, and the nesting depth (so that a line of 60000
 * '[' costs a scan, not a recursion). Returns 0 or an RPC error code with msg set. */
static int prescan(const char *text, size_t n, unsigned max_depth, char *msg, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	bool in_str = false, esc = false;
	unsigned depth = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == 0) {
			snprintf(msg, len, "invalid JSON: NUL byte at offset %zu", i);
			return RPC_EPARSE;
		}
		if (s[i] >= 0x80) {
			size_t l = utf8_len(s + i, n - i);

			if (!l) {
				snprintf(msg, len,
				         "invalid JSON: byte 0x%02x at offset %zu is not UTF-8",
				         s[i], i);
				return RPC_EPARSE;
			}
			i += l - 1;
			esc = false;
			continue;
		}
		if (in_str) {
			if (esc)
				esc = false;
			else if (s[i] == '\\')
				esc = true;
			else if (s[i] == '"')
				in_str = false;
		} else if (s[i] == '"') {
			in_str = true;
		} else if (s[i] == '[' || s[i] == '{') {
			if (++depth > max_depth) {
				snprintf(msg, len, "nesting deeper than %u (at offset %zu)",
				         max_depth, i);
				return RPC_EINVALID_REQUEST;
			}
		} else if ((s[i] == ']' || s[i] == '}') && depth) {
			depth--;
		}
	}
	return 0;
}

int rpc_prescan(const char *text, size_t n, unsigned max_depth, char *msg, size_t len)
{
	int code;

	atomic_fetch_add(&requests, 1);
	code = prescan(text, n, max_depth, msg, len);
	if (code)
		rpc_count_error(code);
	else
		atomic_fetch_add(&prescanned, 1);
	return code;
}

static bool valid_id(const cJSON *id)
{
	if (cJSON_IsString(id) || cJSON_IsNull(id))
		return true;
	return cJSON_IsNumber(id) && isfinite(id->valuedouble) &&
	       id->valuedouble == floor(id->valuedouble) &&
	       fabs(id->valuedouble) <= 9007199254740992.0;
}

/* Checks the request envelope. Returns 0 or an error code with msg set; *id is the id to answer
 * with (NULL: answer with null) and *notify says the request has no id. */
static int check_envelope(const cJSON *req, const cJSON **id, bool *notify, char *msg, size_t len)
{
	static const char *const members[] = {"jsonrpc", "method", "params", "id"};
	const cJSON *v;
	char got[96];

	*id = NULL;
	*notify = false;
	if (cJSON_IsArray(req)) {
		snprintf(msg, len,
		         "batch requests are not supported: send one request object per line");
		return RPC_EINVALID_REQUEST;
	}
	if (!cJSON_IsObject(req)) {
		json_describe(req, got, sizeof(got));
		snprintf(msg, len, "expected a request object, got %s", got);
		return RPC_EINVALID_REQUEST;
	}
	for (const cJSON *c = req->child; c; c = c->next) {
		bool known = false;

		for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
			known |= strcmp(c->string, members[i]) == 0;
		for (const cJSON *e = req->child; known && e != c; e = e->next) {
			if (strcmp(e->string, c->string) == 0) {
				snprintf(msg, len, "member \"%s\" given twice", c->string);
				return RPC_EINVALID_REQUEST;
			}
		}
		if (!known) {
			json_describe(&(cJSON){.type = cJSON_String, .valuestring = c->string}, got,
			              sizeof(got));
			snprintf(msg, len,
			         "unknown member %s (a request has jsonrpc, method, params and id)",
			         got);
			return RPC_EINVALID_REQUEST;
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(req, "id");
	if (v && !valid_id(v)) {
		json_describe(v, got, sizeof(got));
		snprintf(msg, len,
		         "id: expected a string, an integer of magnitude <= 2^53 or null, got %s",
		         got);
		return RPC_EINVALID_REQUEST;
	}
	*id = v;
	*notify = !v;
	v = cJSON_GetObjectItemCaseSensitive(req, "jsonrpc");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, "2.0") != 0) {
		if (v)
			json_describe(v, got, sizeof(got));
		snprintf(msg, len, "jsonrpc: expected \"2.0\", got %s", v ? got : "nothing");
		return RPC_EINVALID_REQUEST;
	}
	v = cJSON_GetObjectItemCaseSensitive(req, "method");
	if (!cJSON_IsString(v)) {
		if (v)
			json_describe(v, got, sizeof(got));
		snprintf(msg, len, "method: expected a method name (a string), got %s",
		         v ? got : "nothing");
		return RPC_EINVALID_REQUEST;
	}
	v = cJSON_GetObjectItemCaseSensitive(req, "params");
	if (v && !cJSON_IsObject(v)) {
		json_describe(v, got, sizeof(got));
		snprintf(msg, len, "params: expected an object of named parameters, got %s", got);
		return RPC_EINVALID_PARAMS;
	}
	return 0;
}

int rpc_check_envelope(const cJSON *req, const cJSON **id, bool *notify, char *msg, size_t len)
{
	int code;

	atomic_fetch_add(&enveloped, 1);
	code = check_envelope(req, id, notify, msg, len);
	rpc_count_error(code);
	return code;
}

int rpc_read_request(const char *text, size_t n, unsigned max_depth, cJSON **req, const cJSON **id,
                     bool *notify, char *msg, size_t len)
{
	const char *end = NULL;
	int code;

	*req = NULL;
	*id = NULL;
	*notify = false;
	while (n && (text[n - 1] == '\r' || text[n - 1] == ' ' || text[n - 1] == '\t'))
		n--;
	if (n == 0)
		return 0; /* blank lines are allowed between requests */
	code = rpc_prescan(text, n, max_depth, msg, len);
	if (code)
		return code;
	*req = cJSON_ParseWithLengthOpts(text, n, &end, false);
	if (!*req) {
		if (end && end >= text && end <= text + n) {
			char found[48];

			config_json_found(end, text + n, found, sizeof(found));
			snprintf(msg, len, "invalid JSON at offset %zu: found %s",
			         (size_t)(end - text), found);
		} else {
			snprintf(msg, len, "invalid JSON");
		}
		return RPC_EPARSE;
	}
	while (end < text + n && strchr(" \t\r", *end))
		end++;
	if (end < text + n) {
		snprintf(msg, len, "invalid JSON: unexpected text after the request at offset %zu",
		         (size_t)(end - text));
		return RPC_EPARSE;
	}
	return rpc_check_envelope(*req, id, notify, msg, len);
}
