/*
 * Integration test of the control socket: starts the real fecd with a temporary configuration,
 * sends a table of bad requests (each must get its specific error code and a message with a key
 * phrase, and the daemon must still answer a valid request afterwards on the same connection),
 * checks notifications, clients that hang up mid-line, many clients, a client that never reads,
 * and the TCP listener; then the good path (create, get, update, list, stats, delete), fecdctl
 * when its path is given, and finally SIGTERM, after which fecd must exit with status 0.
 *
 * Usage: test_control_rpc FECD [FECDCTL]. TCP ports $FECD_TEST_PORT (27160 without it) to 9
 * above it (PORTS) on 127.0.0.1 (tests/control/CMakeLists.txt gives each run its own, from
 * FECD_IT_PORT_BASE): the control listener, the channels' endpoints, and ports nothing binds.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bad_requests.h"
#include "check.h"
#include "fecd_proc.h"
#include "rpc_client.h"

#define TIMEOUT_MS 5000
#define MAX_LINE   4096
#define MAX_DEPTH  8
#define PORTS      10 /* port(0): control over TCP; 1..7: channels; 8, 9: bound by nothing */

static char tmpdir[64];
static struct fecd_proc fp;
static int port_base; /* fecd_test_port */

/* The test's n-th TCP port. */
static int port(int n)
{
	return port_base + n;
}

#define CONFIG_HEAD                                                                                \
	"{%s\"control\":{\"socket\":\"%s\",\"tcp\":\"127.0.0.1:%d\",\"max_line\":%d,"              \
	"\"max_depth\":%d},\"workers\":2,\"log_level\":\"debug\",\"channels\":["

/* Channel id's object, named "c<id>", on ports port(in) and port(out), with extra members
 * (each starting with a comma); buf's text. */
static const char *channel(char *buf, size_t len, int id, int in, int out, const char *extra)
{
	snprintf(buf, len,
	         "{\"id\":%d,\"name\":\"c%d\",\"input\":{\"endpoint\":\"tcp://127.0.0.1:%d\"},"
	         "\"output\":{\"endpoint\":\"tcp://127.0.0.1:%d\"}%s}",
	         id, id, port(in), port(out), extra);
	return buf;
}

/* text with each @Pn@ replaced by port(n) (bad_requests.h), in out. */
static const char *expand_ports(const char *text, char *out, size_t len)
{
	size_t o = 0;

	for (const char *t = text; *t && o + 1 < len;) {
		char *end;
		long n;

		if (t[0] == '@' && t[1] == 'P' && isdigit((unsigned char)t[2]) &&
		    (n = strtol(t + 2, &end, 10), *end == '@')) {
			o += (size_t)snprintf(out + o, len - o, "%d", port((int)n));
			t = end + 1;
		} else {
			out[o++] = *t++;
		}
	}
	out[o < len ? o : len - 1] = '\0';
	return out;
}

static void write_config(const char *path, const char *channels)
{
	FILE *f = fopen(path, "w");

	if (!f)
		check_skip("cannot write the temporary configuration");
	/* FECD_TEST_GLOBALS: more global members, each ending with a comma (the loop-threads run
	 * of this test sets "loop_threads": 3). */
	const char *globals = getenv("FECD_TEST_GLOBALS");

	fprintf(f, CONFIG_HEAD "%s]}\n", globals ? globals : "", fp.sock_path, port(0), MAX_LINE,
	        MAX_DEPTH, channels);
	fclose(f);
}

/* The error code of a response, or 0 when it is a result; *msg points into resp. */
static int resp_error(const cJSON *resp, const char **msg)
{
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(resp, "error");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");

	*msg = cJSON_IsString(m) ? m->valuestring : "";
	return err ? (int)cJSON_GetObjectItemCaseSensitive(err, "code")->valuedouble : 0;
}

/* Sends a request and returns its result (caller frees the response through *resp_out). */
static cJSON *call(struct rpc_conn *c, const char *method, const char *params, cJSON **resp_out)
{
	char line[2048];
	const char *msg;
	cJSON *resp;

	snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"method\":\"%s\"%s%s}",
	         method, params ? ",\"params\":" : "", params ? params : "");
	resp = rpc_roundtrip(c, line, TIMEOUT_MS);
	*resp_out = resp;
	CHECK(resp != NULL, "%s: no response", method);
	if (!resp)
		return NULL;
	CHECK(resp_error(resp, &msg) == 0, "%s %s: error %s", method, params ? params : "", msg);
	return cJSON_GetObjectItemCaseSensitive(resp, "result");
}

static bool still_serving(struct rpc_conn *c)
{
	cJSON *resp = rpc_roundtrip(
	    c, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"channel.list\"}", TIMEOUT_MS);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(resp, "id");
	bool ok = resp && cJSON_GetObjectItemCaseSensitive(resp, "result") && cJSON_IsNumber(id) &&
	          id->valuedouble == 99;

	cJSON_Delete(resp);
	return ok;
}

static void test_bad_requests(struct rpc_conn *c)
{
	for (size_t i = 0; i < sizeof(bad_reqs) / sizeof(bad_reqs[0]); i++) {
		const struct bad_req *b = &bad_reqs[i];
		char text[2 * MAX_LINE], phrase[512];
		/* a line of a given length may hold a NUL: sent as it is */
		const char *req = b->len ? b->line : expand_ports(b->line, text, sizeof(text));
		size_t len = b->len ? b->len : strlen(req);
		const char *msg = "";
		char *line;
		cJSON *resp = NULL;
		int code = 0;

		expand_ports(b->phrase, phrase, sizeof(phrase));
		rpc_send(c, req, len);
		rpc_send(c, "\n", 1);
		line = rpc_read_line(c, TIMEOUT_MS);
		resp = line ? cJSON_Parse(line) : NULL;
		if (resp)
			code = resp_error(resp, &msg);
		CHECK(resp && code == b->code && strstr(msg, phrase),
		      "%s: got %s\n  expected %d with \"%s\"", b->name, line ? line : "(nothing)",
		      b->code, phrase);
		CHECK(still_serving(c), "%s: no answer to a valid request afterwards", b->name);
		free(line);
		cJSON_Delete(resp);
	}
}

static void test_framing(struct rpc_conn *c)
{
	char *big = malloc(3 * MAX_LINE), *line;
	const char *msg = "";
	cJSON *resp;

	/* Over-long lines, in one write and in pieces: one error each, and the line is dropped. */
	memset(big, 'A', 3 * MAX_LINE);
	memcpy(big, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"channel.list\",\"x\":\"", 53);
	for (int pieces = 1; pieces <= 3; pieces++) {
		for (int p = 0; p < pieces; p++) {
			rpc_send(c, big + p * (3 * MAX_LINE / pieces), 3 * MAX_LINE / pieces);
			sleep_ms(20);
		}
		rpc_send(c, "\"}\n", 3);
		line = rpc_read_line(c, TIMEOUT_MS);
		resp = line ? cJSON_Parse(line) : NULL;
		CHECK(resp && resp_error(resp, &msg) == -32600 &&
		          strstr(msg, "request exceeds 4096 bytes") &&
		          cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(resp, "id")),
		      "oversized line in %d pieces: %s", pieces, line ? line : "(nothing)");
		free(line);
		cJSON_Delete(resp);
		CHECK(still_serving(c), "no answer after an oversized line");
	}
	free(big);

	/* 3000 '[': refused by the depth scan, not by a deep recursion. */
	big = malloc(3000);
	memset(big, '[', 3000);
	rpc_send(c, big, 3000);
	rpc_send(c, "\n", 1);
	free(big);
	line = rpc_read_line(c, TIMEOUT_MS);
	CHECK(line && strstr(line, "nesting deeper than 8"), "3000 '[': %s", line ? line : "");
	free(line);

	/* A notification gets no response: the next line is the answer to id 99. Blank lines and
	 * CRLF are fine. */
	rpc_send(c, "{\"jsonrpc\":\"2.0\",\"method\":\"channel.list\"}\n\n  \r\n", 47);
	CHECK(still_serving(c), "a notification was answered or broke the connection");
	resp = rpc_roundtrip(c, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"methods.list\"}\r",
	                     TIMEOUT_MS);
	CHECK(resp && cJSON_GetObjectItemCaseSensitive(resp, "result"), "CRLF request");
	cJSON_Delete(resp);
}

static void test_clients(void)
{
	static struct rpc_conn many[20], flood, partial;
	char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"codes.list\"}\n";
	int ok = 0, n = 0;

	/* A client that goes away mid-line. */
	if (rpc_connect_unix(&partial, fp.sock_path) == 0) {
		rpc_send(&partial, "{\"jsonrpc\":\"2.0\",\"id\":1,\"meth", 29);
		rpc_close(&partial);
	}
	/* Many clients at once, each answered. */
	for (int i = 0; i < 20; i++)
		CHECK(rpc_connect_unix(&many[i], fp.sock_path) == 0, "client %d cannot connect", i);
	for (int i = 0; i < 20; i++)
		rpc_send(&many[i], req, strlen(req));
	for (int i = 0; i < 20; i++) {
		char *line = rpc_read_line(&many[i], TIMEOUT_MS);

		ok += line && strstr(line, "\"result\"") != NULL;
		free(line);
		rpc_close(&many[i]);
	}
	CHECK(ok == 20, "%d of 20 concurrent clients answered", ok);

	/* A client that sends and never reads is dropped once its output passes the cap; the
	 * others are served meanwhile. */
	CHECK(rpc_connect_unix(&flood, fp.sock_path) == 0, "flood client");
	for (int i = 0; i < 4000 && rpc_send(&flood, req, strlen(req)) == 0; i++)
		n++;
	sleep_ms(300);
	CHECK(rpc_connect_unix(&partial, fp.sock_path) == 0 && still_serving(&partial),
	      "not serving while a client floods");
	rpc_close(&partial);
	{
		size_t got = 0;
		char *line;

		while ((line = rpc_read_line(&flood, 2000)) != NULL) {
			got++;
			free(line);
		}
		CHECK(got < (size_t)n,
		      "the flooding client got all %zu answers to %d requests: "
		      "output not capped",
		      got, n);
	}
	rpc_close(&flood);
}

/* TCP control answers once authenticated with the token fecd wrote beside its socket
 * (test_conn.c tests the token itself). */
static void test_tcp(void)
{
	struct rpc_conn *c = malloc(sizeof(*c));
	char token[128] = "", line[512], path[160];
	FILE *f;
	cJSON *resp;

	snprintf(path, sizeof(path), "%s/control.token", tmpdir);
	f = fopen(path, "r");
	CHECK(f && fgets(token, sizeof(token), f), "no control token %s", path);
	if (f)
		fclose(f);
	token[strcspn(token, "\n")] = '\0';
	snprintf(line, sizeof(line),
	         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"auth\",\"params\":{\"token\":"
	         "\"%s\"}}",
	         token);
	CHECK(rpc_connect_tcp(c, "127.0.0.1", port(0)) == 0, "TCP control on 127.0.0.1:%d",
	      port(0));
	if (c->fd >= 0) {
		resp = rpc_roundtrip(c, line, TIMEOUT_MS);
		CHECK(resp && cJSON_GetObjectItemCaseSensitive(resp, "result"), "TCP auth refused");
		cJSON_Delete(resp);
		CHECK(still_serving(c), "TCP control does not answer");
	}
	rpc_close(c);
	free(c);
}

static void test_good_path(struct rpc_conn *c)
{
	cJSON *resp, *r;
	const cJSON *v;
	char *s, params[512];

	snprintf(params, sizeof(params),
	         "{\"id\":2,\"name\":\"c2\",\"code\":{\"preset\":\"voyager\"},\"input\":{"
	         "\"endpoint\":\"tcp://127.0.0.1:%d\",\"hwm\":50},\"output\":{\"endpoint\":"
	         "\"tcp://127.0.0.1:%d\"},\"batch\":{\"jobs\":16}}",
	         port(3), port(4));
	r = call(c, "channel.create", params, &resp);
	v = cJSON_GetObjectItemCaseSensitive(r, "id");
	CHECK(cJSON_IsNumber(v) && v->valuedouble == 2, "create result id");
	cJSON_Delete(resp);

	r = call(c, "channel.get", "{\"name\":\"c2\"}", &resp);
	s = r ? cJSON_PrintUnformatted(r) : NULL;
	CHECK(s && strstr(s, "\"polys\":[\"133\",\"171\"]") && strstr(s, "\"jobs\":16") &&
	          strstr(s, "\"hwm\":50"),
	      "channel.get: %s", s ? s : "");
	free(s);
	cJSON_Delete(resp);

	r = call(c, "channel.update",
	         "{\"id\":2,\"at_seq\":0,\"batch\":{\"jobs\":32},\"code\":{\"decode_len\":1024}}",
	         &resp);
	s = r ? cJSON_PrintUnformatted(r) : NULL;
	CHECK(s && strstr(s, "\"changed\":[\"code\",\"batch.jobs\"]"), "update result: %s",
	      s ? s : "");
	v = cJSON_GetObjectItemCaseSensitive(r, "code_gen");
	CHECK(cJSON_IsNumber(v) && v->valuedouble >= 2, "code_gen after an update of the code");
	free(s);
	cJSON_Delete(resp);

	r = call(c, "channel.get", "{\"id\":2}", &resp);
	s = r ? cJSON_PrintUnformatted(r) : NULL;
	CHECK(s && strstr(s, "\"jobs\":32") && strstr(s, "\"decode_len\":1024"), "after update: %s",
	      s ? s : "");
	free(s);
	cJSON_Delete(resp);

	r = call(c, "channel.list", NULL, &resp);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "channels")) == 2,
	      "channel.list: 2 channels expected");
	cJSON_Delete(resp);
	r = call(c, "stats.get", NULL, &resp);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "channels")) == 2,
	      "stats.get: 2 channels expected");
	cJSON_Delete(resp);
	r = call(c, "stats.get", "{\"id\":2}", &resp);
	CHECK(cJSON_GetObjectItemCaseSensitive(r, "symbols_in") &&
	          cJSON_GetObjectItemCaseSensitive(r, "lat_p99_ms"),
	      "stats.get of one channel");
	cJSON_Delete(resp);
	r = call(c, "backend.info", NULL, &resp);
	CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "name")), "backend.info name");
	cJSON_Delete(resp);
	r = call(c, "codes.list", "{}", &resp);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "presets")) > 0, "codes.list");
	cJSON_Delete(resp);
	r = call(c, "config.get", NULL, &resp);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "channels")) == 2,
	      "config.get");
	cJSON_Delete(resp);

	r = call(c, "channel.delete", "{\"id\":2}", &resp);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "deleted")), "channel.delete");
	cJSON_Delete(resp);
	resp = rpc_roundtrip(c, REQ("channel.get", "{\"id\":2}"), TIMEOUT_MS);
	{
		const char *msg;

		CHECK(resp && resp_error(resp, &msg) == -32000,
		      "channel 2 still there after delete");
	}
	cJSON_Delete(resp);
}

/* "1,3": the ids channel.list reports, in order. */
static void list_ids(struct rpc_conn *c, char *buf, size_t len)
{
	cJSON *resp = rpc_roundtrip(c, REQ("channel.list", "{}"), TIMEOUT_MS);
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(resp, "result"), "channels");
	const cJSON *ch;
	size_t o = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(ch, arr)
	{
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? "," : "",
			                      cJSON_GetObjectItemCaseSensitive(ch, "id")->valueint);
	}
	cJSON_Delete(resp);
}

/* Waits (up to 5 s) for SIGHUP's reconciliation to show the expected channel ids. */
static bool wait_ids(struct rpc_conn *c, const char *want, char *got, size_t len)
{
	for (int i = 0; i < 100; i++) {
		list_ids(c, got, len);
		if (strcmp(got, want) == 0)
			return true;
		sleep_ms(50);
	}
	return false;
}

static char *channel_text(struct rpc_conn *c, int id)
{
	char line[128];
	cJSON *resp;
	char *s;

	snprintf(line, sizeof(line), REQ("channel.get", "{\"id\":%d}"), id);
	resp = rpc_roundtrip(c, line, TIMEOUT_MS);
	s = resp ? cJSON_PrintUnformatted(resp) : NULL;
	cJSON_Delete(resp);
	return s;
}

static void test_reload(struct rpc_conn *c, const char *config)
{
	char ids[64], one[256], three[256], both[512], in1[64], in7[64];
	char *s;

	snprintf(in1, sizeof(in1), "\"endpoint\":\"tcp://127.0.0.1:%d\"", port(1));
	snprintf(in7, sizeof(in7), "\"endpoint\":\"tcp://127.0.0.1:%d\"", port(7));
	/* Channel 1's batch changes (updated in place), channel 3 is new. */
	snprintf(both, sizeof(both), "%s,%s",
	         channel(one, sizeof(one), 1, 1, 2, ",\"batch\":{\"jobs\":8}"),
	         channel(three, sizeof(three), 3, 5, 6, ""));
	write_config(config, both);
	kill(fp.pid, SIGHUP);
	CHECK(wait_ids(c, "1,3", ids, sizeof(ids)), "after reload 1: channels %s, expected 1,3",
	      ids);
	s = channel_text(c, 1);
	CHECK(s && strstr(s, "\"jobs\":8") && strstr(s, in1), "reload 1, channel 1: %s",
	      s ? s : "");
	free(s);

	/* Channel 1's input moves (deleted and created again), channel 3 goes away. */
	write_config(config, channel(one, sizeof(one), 1, 7, 2, ""));
	kill(fp.pid, SIGHUP);
	CHECK(wait_ids(c, "1", ids, sizeof(ids)), "after reload 2: channels %s, expected 1", ids);
	s = NULL;
	for (int i = 0; i < 100 && !(s && strstr(s, in7)); i++) {
		free(s);
		sleep_ms(50);
		s = channel_text(c, 1);
	}
	CHECK(s && strstr(s, in7) && strstr(s, "\"jobs\":0"), "reload 2, channel 1: %s",
	      s ? s : "");
	free(s);

	/* A bad file changes nothing. */
	write_config(config, channel(one, sizeof(one), 1, 1, 2, ",\"batch\":{\"jobs\":5000}"));
	kill(fp.pid, SIGHUP);
	sleep_ms(300);
	s = channel_text(c, 1);
	CHECK(s && strstr(s, in7), "a bad file changed the running channel: %s", s ? s : "");
	free(s);
	CHECK(still_serving(c), "not serving after a bad reload");
}

/* Runs fecdctl; returns its exit status and its stdout/stderr in out. */
static int run_ctl(const char *ctl, const char *sock, const char *method, const char *params,
                   char *out, size_t len)
{
	char cmd[1024];

	/* sock "tcp:HOST:PORT" selects --tcp, with the token fecd wrote beside its socket */
	snprintf(cmd, sizeof(cmd), "'%s' %s '%s' %s%s%s %s %s%s%s 2>&1", ctl,
	         strncmp(sock, "tcp:", 4) ? "--socket" : "--tcp",
	         strncmp(sock, "tcp:", 4) ? sock : sock + 4,
	         strncmp(sock, "tcp:", 4) ? "" : "--token-file '",
	         strncmp(sock, "tcp:", 4) ? "" : tmpdir,
	         strncmp(sock, "tcp:", 4) ? "" : "/control.token'", method, params ? "'" : "",
	         params ? params : "", params ? "'" : "");
	return run_command(cmd, out, len);
}

static void test_fecdctl(const char *ctl)
{
	char out[65536], tcp[64], closed[64], want[96];
	int st;

	snprintf(tcp, sizeof(tcp), "tcp:127.0.0.1:%d", port(0));
	snprintf(closed, sizeof(closed), "tcp:127.0.0.1:%d", port(PORTS - 1));
	snprintf(want, sizeof(want), "cannot connect to 127.0.0.1:%d", port(PORTS - 1));

	st = run_ctl(ctl, fp.sock_path, "channel.list", NULL, out, sizeof(out));
	CHECK(st == 0 && strstr(out, "\"channels\""), "fecdctl channel.list: %d %s", st, out);
	st = run_ctl(ctl, fp.sock_path, "channel.get", "{\"id\": 1}", out, sizeof(out));
	CHECK(st == 0 && strstr(out, "\"c1\""), "fecdctl channel.get: %d %s", st, out);
	st = run_ctl(ctl, fp.sock_path, "channel.get", "{\"id\": 999}", out, sizeof(out));
	CHECK(st == 1 && strstr(out, "fecdctl: error -32000: channel not found"),
	      "fecdctl error: %d %s", st, out);
	st = run_ctl(ctl, fp.sock_path, "channel.get", "{\"id\": ", out, sizeof(out));
	CHECK(st == 2 && strstr(out, "PARAMS-JSON"), "fecdctl bad params: %d %s", st, out);
	st = run_ctl(ctl, fp.sock_path, "channel.get", "[1]", out, sizeof(out));
	CHECK(st == 2 && strstr(out, "PARAMS-JSON"), "fecdctl params array: %d %s", st, out);
	st = run_ctl(ctl, tcp, "channel.list", NULL, out, sizeof(out));
	CHECK(st == 0 && strstr(out, "\"c1\""), "fecdctl --tcp: %d %s", st, out);
	st = run_ctl(ctl, closed, "channel.list", NULL, out, sizeof(out));
	CHECK(st == 2 && strstr(out, want), "fecdctl --tcp refused: %d %s", st, out);
	st = run_ctl(ctl, "/nonexistent/fecd.sock", "channel.list", NULL, out, sizeof(out));
	CHECK(st == 2 && strstr(out, "/nonexistent/fecd.sock"), "fecdctl no daemon: %d %s", st,
	      out);
}

int main(int argc, char **argv)
{
	struct rpc_conn *c;
	char config[128], one[256];
	int status = -1;

	if (argc < 2)
		check_skip("usage: test_control_rpc FECD [FECDCTL]");
	if (access(argv[1], X_OK) != 0)
		check_skip("fecd is not built");
	port_base = fecd_test_port(27160, PORTS);
	if (port_base < 0)
		return 1;
	if (fecd_proc_dir(&fp, "rpc", tmpdir, sizeof(tmpdir)))
		check_skip("mkdtemp failed");
	snprintf(config, sizeof(config), "%s/fecd.json", tmpdir);
	write_config(config, channel(one, sizeof(one), 1, 1, 2, ""));
	signal(SIGPIPE, SIG_IGN);
	if (fecd_proc_start(&fp, argv[1], config) != 0) {
		CHECK(0, "fecd did not open its control socket %s", fp.sock_path);
		return check_done();
	}
	{
		struct stat st;

		CHECK(stat(fp.sock_path, &st) == 0 && (st.st_mode & 0777) == 0660,
		      "control socket mode %o, expected 660", st.st_mode & 0777);
	}
	c = malloc(sizeof(*c));
	CHECK(rpc_connect_unix(c, fp.sock_path) == 0, "connect");
	test_bad_requests(c);
	test_framing(c);
	test_clients();
	test_tcp();
	test_good_path(c);
	if (argc > 2 && argv[2][0])
		test_fecdctl(argv[2]);
	test_reload(c, config);
	CHECK(still_serving(c), "not serving at the end");
	rpc_close(c);
	free(c);

	status = fecd_proc_stop(&fp, 15000);
	CHECK(status != -1, "fecd did not exit within 15 s of SIGTERM");
	CHECK(status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
	      "fecd exit status %d", status);
	CHECK(access(fp.sock_path, F_OK) != 0, "the control socket was left behind");
	if (check_failed)
		fecd_proc_dump_log(&fp);
	unlink(config);
	unlink(fp.log_path);
	rmdir(tmpdir);
	return check_done();
}
