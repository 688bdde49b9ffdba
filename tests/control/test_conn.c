/*
 * Integration test of the control server's connections, against the real fecd: clients that send
 * a request and close before the answer (a thousand on each socket; this used to kill fecd with
 * SIGPIPE), idle connections closed after control.idle_timeout_ms, 64 idle connections that must
 * not lock a new client out, and TCP's token: nothing before "auth", a wrong token closes the
 * connection, the token file fecd makes (mode 0640, removed at exit) and one an administrator
 * gives (refused when others may read it), and fecdctl --tcp with it.
 *
 * Usage: test_control_conn FECD [FECDCTL]. Ports $FECD_TEST_PORT (27150 without it) to 2 above it
 * on 127.0.0.1.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "fecd_proc.h"
#include "rpc_client.h"

#define TIMEOUT_MS  5000
#define TCP_PORT    tcp_port
#define IDLE_MS     1500
#define FLOOD       1000
#define MAX_CLIENTS 64

static char tmpdir[64], config[128], token_path[160];
static int tcp_port; /* fecd_test_port */
static struct fecd_proc fp;

static void write_config(const char *extra, int idle_ms)
{
	FILE *f = fopen(config, "w");

	if (!f)
		check_skip("cannot write the temporary configuration");
	fprintf(f,
	        "{\"control\":{\"socket\":\"%s\",\"tcp\":\"127.0.0.1:%d\","
	        "\"idle_timeout_ms\":%d%s},\"workers\":1,\"log_level\":\"info\",\"channels\":[{"
	        "\"id\":1,"
	        "\"input\":{\"endpoint\":\"tcp://127.0.0.1:%d\"},\"output\":{\"endpoint\":"
	        "\"tcp://127.0.0.1:%d\"}}]}\n",
	        fp.sock_path, TCP_PORT, idle_ms, extra, TCP_PORT + 1, TCP_PORT + 2);
	fclose(f);
}

/* The error code of a response (0: a result), -1 for no response. */
static int roundtrip_code(struct rpc_conn *c, const char *line)
{
	cJSON *resp = rpc_roundtrip(c, line, TIMEOUT_MS);
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(resp, "error");
	int code = !resp ? -1
	           : err ? (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(err, "code"))
	                 : 0;

	cJSON_Delete(resp);
	return code;
}

static const char list_req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"channel.list\"}";

static char *auth_req(const char *token)
{
	static char line[512];

	snprintf(line, sizeof(line),
	         "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"auth\",\"params\":{\"token\":\"%s\"}}",
	         token);
	return line;
}

static bool read_token(char *token, size_t len)
{
	FILE *f = fopen(token_path, "r");
	bool ok = f && fgets(token, (int)len, f);

	if (f)
		fclose(f);
	if (ok)
		token[strcspn(token, "\n")] = '\0';
	return ok;
}

/* True when the server closed c within ms (a read sees EOF). */
static bool closed_within(struct rpc_conn *c, int ms)
{
	char *line = rpc_read_line(c, ms);
	bool closed;
	char b;

	free(line);
	closed = recv(c->fd, &b, 1, MSG_DONTWAIT) == 0;
	return closed;
}

static struct rpc_conn *conn_new(bool tcp)
{
	struct rpc_conn *c = malloc(sizeof(*c));
	int ret =
	    tcp ? rpc_connect_tcp(c, "127.0.0.1", TCP_PORT) : rpc_connect_unix(c, fp.sock_path);

	if (ret) {
		c->fd = -1;
		CHECK(0, "connect to the %s control socket: %s", tcp ? "TCP" : "Unix",
		      strerror(-ret));
	}
	return c;
}

static void conn_free(struct rpc_conn *c)
{
	rpc_close(c);
	free(c);
}

static bool serving(const char *token)
{
	struct rpc_conn *c = conn_new(true);
	bool ok = c->fd >= 0 && roundtrip_code(c, auth_req(token)) == 0 &&
	          roundtrip_code(c, list_req) == 0;

	conn_free(c);
	c = conn_new(false);
	ok = ok && c->fd >= 0 && roundtrip_code(c, list_req) == 0;
	conn_free(c);
	return ok;
}

/* Each client sends a request with a sizeable answer and closes without reading it. */
static void test_send_and_close(const char *token)
{
	static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"config.get\"}\n";
	int sent = 0;

	for (int i = 0; i < 2 * FLOOD && fecd_proc_alive(&fp); i++) {
		bool tcp = i >= FLOOD;
		struct rpc_conn *c = conn_new(tcp);

		if (c->fd >= 0) {
			/* Half of the TCP ones authenticate first, so the answer is the method's.
			 */
			if (tcp && i % 2) {
				char line[600];
				int n = snprintf(line, sizeof(line), "%s\n", auth_req(token));
				rpc_send(c, line, (size_t)n);
			}
			sent += rpc_send(c, req, sizeof(req) - 1) == 0;
		}
		conn_free(c);
	}
	CHECK(sent == 2 * FLOOD, "%d of %d send-and-close clients got their request out", sent,
	      2 * FLOOD);
	CHECK(fecd_proc_alive(&fp), "fecd died under send-and-close clients");
	CHECK(serving(token), "fecd does not answer after %d send-and-close clients", 2 * FLOOD);
}

static void test_idle(const char *token)
{
	struct rpc_conn *idle = conn_new(false), *busy = conn_new(true);

	/* One that sends a blank line now and then stays; one that sends nothing goes. */
	CHECK(roundtrip_code(busy, auth_req(token)) == 0, "auth on TCP");
	for (int t = 0; t < 3 * IDLE_MS; t += IDLE_MS / 3) {
		rpc_send(busy, "\n", 1);
		sleep_ms(IDLE_MS / 3);
	}
	CHECK(closed_within(idle, 2 * IDLE_MS), "an idle connection was not closed after %d ms",
	      IDLE_MS);
	CHECK(roundtrip_code(busy, list_req) == 0,
	      "a connection sending blank lines was closed as idle");
	conn_free(idle);
	conn_free(busy);
}

/* Every place taken by idle connections: a new client is still served, and the one idle longest
 * made room for it (with the default idle timeout, so that none is closed for being idle while
 * the places fill on a busy machine). */
static void test_make_room(void)
{
	struct rpc_conn *busy, *held[MAX_CLIENTS];
	int closed = 0;

	for (int i = 0; i < MAX_CLIENTS; i++) {
		held[i] = conn_new(false);
		sleep_ms(2);
	}
	busy = conn_new(false);
	CHECK(busy->fd >= 0 && roundtrip_code(busy, list_req) == 0,
	      "a new client was locked out by %d idle connections", MAX_CLIENTS);
	CHECK(closed_within(held[0], 1000), "the connection idle longest did not make room");
	for (int i = 0; i < MAX_CLIENTS; i++) {
		closed += closed_within(held[i], i ? 0 : 1);
		conn_free(held[i]);
	}
	CHECK(closed == 1, "%d idle connections closed to make room for one, expected 1", closed);
	conn_free(busy);
}

static void test_token(const char *token)
{
	struct rpc_conn *c = conn_new(true);
	struct stat st;

	CHECK(stat(token_path, &st) == 0 && (st.st_mode & 0777) == 0640 && strlen(token) == 64,
	      "token file %s: mode %o, %zu characters; expected 0640 and 64 hex digits", token_path,
	      st.st_mode & 0777, strlen(token));
	CHECK(roundtrip_code(c, list_req) == -32005, "TCP without auth was not refused");
	CHECK(roundtrip_code(c, list_req) == -32005, "a refused request closed the connection");
	CHECK(roundtrip_code(c, auth_req(token)) == 0, "the right token was refused");
	CHECK(roundtrip_code(c, list_req) == 0, "an authenticated connection was refused");
	conn_free(c);

	c = conn_new(true);
	CHECK(roundtrip_code(c, auth_req("0123456789abcdef0123456789abcdef")) == -32005,
	      "a wrong token was accepted");
	CHECK(closed_within(c, TIMEOUT_MS), "a wrong token left the connection open");
	conn_free(c);

	c = conn_new(false);
	CHECK(roundtrip_code(c, list_req) == 0, "the Unix socket asked for a token");
	CHECK(roundtrip_code(c, auth_req("wrong-token-wrong-token")) == -32005,
	      "a wrong token on the Unix socket was accepted");
	conn_free(c);
}

static int run_ctl(const char *ctl, const char *token_file, char *out, size_t len)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "'%s' --tcp 127.0.0.1:%d --token-file '%s' channel.list 2>&1",
	         ctl, TCP_PORT, token_file);
	return run_command(cmd, out, len);
}

static void test_fecdctl(const char *ctl)
{
	char out[8192];
	int st;

	st = run_ctl(ctl, token_path, out, sizeof(out));
	CHECK(st == 0 && strstr(out, "\"channels\""), "fecdctl --tcp --token-file: %d %s", st, out);
	st = run_ctl(ctl, "/nonexistent/fecd.token", out, sizeof(out));
	CHECK(st == 2 && strstr(out, "/nonexistent/fecd.token"), "fecdctl, no token file: %d %s",
	      st, out);
}

/* An administrator's token file: used as it is, left in place at exit; refused when others may
 * read it. */
static void test_given_token(const char *fecd)
{
	static const char given[] = "given-token-0123456789";
	char path[200], extra[2048] = "", token[128];
	FILE *f;
	int st;

	snprintf(path, sizeof(path), "%s/admin.token", tmpdir);
	f = fopen(path, "w");
	if (!f)
		check_skip("cannot write a token file");
	fprintf(f, "%s\n", given);
	fclose(f);
	chmod(path, 0644);
	snprintf(extra, sizeof(extra), ",\"token_file\":\"%s\"", path);
	write_config(extra, 60000);
	fp.pid = fork();
	if (fp.pid == 0) {
		int fd = creat(fp.log_path, 0644);

		if (fd >= 0)
			dup2(fd, 2);
		signal(SIGPIPE, SIG_DFL);
		execl(fecd, fecd, "--config", config, (char *)NULL);
		_exit(127);
	}
	waitpid(fp.pid, &st, 0);
	fp.pid = 0;
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1,
	      "fecd started with a token file readable by everyone (status %d)", st);
	f = fopen(fp.log_path, "r");
	CHECK(f && fread(extra, 1, sizeof(extra) - 1, f) > 0 && strstr(extra, "chmod o-rwx"),
	      "no clear message for a token file readable by everyone");
	if (f)
		fclose(f);

	chmod(path, 0640);
	if (fecd_proc_start(&fp, fecd, config) != 0) {
		CHECK(0, "fecd did not start with a given token file");
		return;
	}
	snprintf(token, sizeof(token), "%s", given);
	CHECK(serving(token), "the given token does not authenticate");
	test_make_room();
	CHECK(fecd_proc_stop(&fp, 15000) == 0, "fecd did not exit cleanly");
	CHECK(access(path, F_OK) == 0, "fecd removed a token file it did not make");
	unlink(path);
}

int main(int argc, char **argv)
{
	char token[128] = "";
	int status;

	if (argc < 2)
		check_skip("usage: test_control_conn FECD [FECDCTL]");
	if (access(argv[1], X_OK) != 0)
		check_skip("fecd is not built");
	tcp_port = fecd_test_port(27150, 3);
	if (tcp_port < 0)
		return 1;
	if (fecd_proc_dir(&fp, "conn", tmpdir, sizeof(tmpdir)))
		check_skip("mkdtemp failed");
	snprintf(token_path, sizeof(token_path), "%s/control.token", tmpdir);
	snprintf(config, sizeof(config), "%s/fecd.json", tmpdir);
	write_config("", IDLE_MS);
	/* Like any careful client, the test itself ignores SIGPIPE; fecd must too. */
	signal(SIGPIPE, SIG_IGN);
	if (fecd_proc_start(&fp, argv[1], config) != 0) {
		CHECK(0, "fecd did not open its control socket %s", fp.sock_path);
		return check_done();
	}
	CHECK(read_token(token, sizeof(token)), "fecd made no token file %s", token_path);
	test_token(token);
	test_send_and_close(token);
	test_idle(token);
	if (argc > 2 && argv[2][0])
		test_fecdctl(argv[2]);
	status = fecd_proc_stop(&fp, 15000);
	CHECK(status == 0, "fecd exit status %d after SIGTERM", status);
	CHECK(access(token_path, F_OK) != 0, "fecd left the token file it made behind");
	test_given_token(argv[1]);
	if (check_failed)
		fecd_proc_dump_log(&fp);
	unlink(config);
	unlink(fp.log_path);
	rmdir(tmpdir);
	return check_done();
}
