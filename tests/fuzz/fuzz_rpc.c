/*
 * Fuzz harness: JSON-RPC requests through the real handler. Each input gets a fecd service of its
 * own, made as fecd makes it (fecd_create on a configuration read by fecd_config_parse: the CPU
 * backend with one worker, every channel on the main loop, code building bounded to 1 s by
 * control.build_timeout_ms). The input is up to MAX_LINES request lines, split on '\n' as the
 * control server splits a connection's bytes; each line takes the steps of
 * daemon/control/control.c's handle_line for a client of the Unix socket, which needs no token:
 * rpc_read_request, the server's own reading of a line (blank lines skipped, rpc_prescan, cJSON
 * parse, nothing after the request, rpc_check_envelope), then the method, by rpc_call, which carries out on the calling thread what rpc_start splits
 * between a worker and the loop. Its response is built as send_response builds it, and the loop
 * runs once between lines as it would between requests. Then every channel is deleted, the loop
 * runs until each has closed, and the service is destroyed, which waits for ZMQ to free every
 * socket: an input leaves nothing behind, so nothing piles up over millions of runs and libFuzzer's
 * leak check has nothing in flight to chase.
 *
 * The one step added: channel.create binds real sockets, so before the call every input and
 * output endpoint in its params that is not inproc:// is moved there ("tcp://h:1" becomes
 * "inproc://tcp://h:1"), and a missing one becomes "inproc://input" or "inproc://output". The
 * service's ZMQ context is the input's own, so no two inputs meet; nothing reaches TCP or a path.
 *
 * Properties: every response is one line of valid JSON; an error has one of the documented codes
 * and a message, which never shows 2^64-1 (fecd's "from the next message") unless the input
 * did; after the cleanup no channel is left.
 */
#include <stdbool.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "fecd.h"
#include "fuzz.h"
#include "log.h"
#include "rpc.h"
#include "service.h"

#define MAX_LINES 16
#define INPROC    "inproc://"

static uv_loop_t loop;
static struct fecd *service;
static struct fecd_config cfg;
static bool print_responses; /* FECD_FUZZ_LOG is set: reproducing an input */
static bool input_has_max;   /* the input holds UINT64_MAX_TEXT (a name may carry it) */

#define UINT64_MAX_TEXT "18446744073709551615"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char base[] = "{\"control\": {\"socket\": \"/nonexistent/fecd-fuzz.sock\", "
	                           "\"build_timeout_ms\": 1000}, "
	                           "\"backend\": \"cpu\", \"workers\": 1, \"loop_threads\": 1, "
	                           "\"zmq\": {\"io_threads\": 1}, \"linger_ms\": 100, "
	                           "\"channels\": []}";
	const char *lvl = getenv("FECD_FUZZ_LOG");
	char err[512];

	(void)argc;
	(void)argv;
	print_responses = lvl != NULL;
	log_init();
	/* Quiet unless asked (FECD_FUZZ_LOG=debug): millions of runs, millions of lines. */
	log_set_level(lvl && log_level_from_name(lvl) >= 0
	                  ? (enum log_level)log_level_from_name(lvl)
	                  : (enum log_level)(LOG_LVL_ERR - 1));
	if (fecd_config_parse(base, sizeof(base) - 1, &cfg, err, sizeof(err)) != 0 ||
	    uv_loop_init(&loop) != 0) {
		fprintf(stderr, "fuzz_rpc: cannot set up: %s\n", err);
		abort();
	}
	return 0;
}

/* One endpoint value (item, or a new one in parent when item is NULL) moved to inproc://. */
static void confine_endpoint(cJSON *parent, cJSON *item, const char *fallback)
{
	const char *text = item ? item->valuestring : fallback;
	size_t len = strlen(INPROC) + strlen(text) + 1;
	char *ep;

	if (strncmp(text, INPROC, strlen(INPROC)) == 0)
		return;
	ep = malloc(len);
	if (!ep)
		abort();
	snprintf(ep, len, INPROC "%s", text);
	if (item ? !cJSON_SetValuestring(item, ep)
	         : !cJSON_AddStringToObject(parent, "endpoint", ep))
		abort();
	free(ep);
}

/* Every input/output endpoint of a channel.create request under the inproc prefix. Endpoints
 * that are not strings stay as they are: they are refused before anything binds. */
static void confine_endpoints(cJSON *req)
{
	static const char *const sides[] = {"input", "output"};
	cJSON *method = cJSON_GetObjectItemCaseSensitive(req, "method");
	cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");

	if (strcmp(method->valuestring, "channel.create") != 0 || !cJSON_IsObject(params))
		return;
	for (size_t s = 0; s < 2; s++) {
		bool seen = false;

		for (cJSON *side = params->child; side; side = side->next) {
			bool has_endpoint = false;

			if (strcmp(side->string, sides[s]) != 0)
				continue;
			seen = true;
			if (!cJSON_IsObject(side))
				continue;
			for (cJSON *e = side->child; e; e = e->next) {
				if (strcmp(e->string, "endpoint") != 0)
					continue;
				has_endpoint = true;
				if (cJSON_IsString(e))
					confine_endpoint(side, e, NULL);
			}
			if (!has_endpoint)
				confine_endpoint(side, NULL, sides[s]);
		}
		if (!seen) {
			cJSON *side = cJSON_AddObjectToObject(params, sides[s]);
			if (!side)
				abort();
			confine_endpoint(side, NULL, sides[s]);
		}
	}
}

static bool known_code(int code)
{
	switch (code) {
#define X(name, c, text) case c:
		RPC_ERR_MAP(X)
#undef X
		return true;
	}
	return false;
}

/* The response as send_response builds it, checked to be one line of valid JSON. */
static void respond(const cJSON *id, cJSON *result, int code, const char *msg)
{
	cJSON *resp = cJSON_CreateObject(), *err, *back;
	char *text;

	if (!resp)
		abort();
	cJSON_AddStringToObject(resp, "jsonrpc", "2.0");
	if (code) {
		FUZZ_CHECK(known_code(code), "error code %d is not documented", code);
		FUZZ_CHECK(msg[0] != '\0', "error %d without a message", code);
		/* UINT64_MAX stands for "the next message" inside fecd; no message shows it unless
		 * the input itself did */
		FUZZ_CHECK(!strstr(msg, UINT64_MAX_TEXT) || input_has_max,
		           "a message shows 2^64-1: %s", msg);
		err = cJSON_AddObjectToObject(resp, "error");
		cJSON_AddNumberToObject(err, "code", code);
		cJSON_AddStringToObject(err, "message", msg);
	} else {
		FUZZ_CHECK(result != NULL, "success without a result");
		cJSON_AddItemToObject(resp, "result", result);
		result = NULL;
	}
	cJSON_AddItemToObject(resp, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
	text = cJSON_PrintUnformatted(resp);
	FUZZ_CHECK(text != NULL, "response not printable");
	if (print_responses)
		fprintf(stderr, "response: %s\n", text);
	FUZZ_CHECK(strchr(text, '\n') == NULL, "response of more than one line: %s", text);
	back = cJSON_Parse(text);
	FUZZ_CHECK(back != NULL, "response is not valid JSON: %s", text);
	cJSON_Delete(back);
	cJSON_free(text);
	cJSON_Delete(resp);
	cJSON_Delete(result);
}

/* daemon/control/control.c handle_line, with the endpoints confined. */
static void handle_line(const char *text, size_t n)
{
	const cJSON *id = NULL;
	cJSON *req = NULL, *result = NULL;
	char msg[1024] = "";
	bool notify = false;
	int code;

	code =
	    rpc_read_request(text, n, cfg.control_max_depth, &req, &id, &notify, msg, sizeof(msg));
	if (!code && !req)
		return; /* a blank line */
	if (code)
		goto out_reply;
	confine_endpoints(req);
	code = rpc_call(service, cJSON_GetObjectItemCaseSensitive(req, "method")->valuestring,
	                cJSON_GetObjectItemCaseSensitive(req, "params"), &result, msg, sizeof(msg));
	if (notify) {
		cJSON_Delete(result);
		goto out_req;
	}
out_reply:
	respond(id, result, code, msg);
out_req:
	cJSON_Delete(req);
}

static void delete_all_channels(void)
{
	struct channel *ch;
	char err[256];

	while ((ch = fecd_channel_next(service, NULL)) != NULL) {
		uint32_t id = channel_config(ch)->id;
		FUZZ_CHECK(fecd_channel_delete(service, id, err, sizeof(err)) == 0,
		           "cannot delete channel %u: %s", id, err);
	}
	/* Every channel's handles close and its memory goes before the loop runs dry. */
	uv_run(&loop, UV_RUN_DEFAULT);
	FUZZ_CHECK(fecd_running_config(service)->nchannels == 0, "channels left after cleanup");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	char err[512];

	input_has_max = memmem(data, size, UINT64_MAX_TEXT, strlen(UINT64_MAX_TEXT)) != NULL;

	if (fecd_create(&loop, &cfg, &service, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_rpc: cannot make the service: %s\n", err);
		abort();
	}
	for (unsigned lines = 0; p < end && lines < MAX_LINES; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n <= cfg.control_max_line) {
			/* An exact-size copy without a terminator, as the server's line buffer. */
			char *line = malloc(n ? n : 1);
			if (!line)
				abort();
			memcpy(line, p, n);
			handle_line(line, n);
			free(line);
		}
		uv_run(&loop, UV_RUN_NOWAIT);
		p = nl ? nl + 1 : end;
	}
	delete_all_channels();
	fecd_destroy(service);
	service = NULL;
	return 0;
}
