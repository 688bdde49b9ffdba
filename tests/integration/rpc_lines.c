/*
 * it-rpc: sends raw JSON-RPC lines to fecd's control socket in one write, as a script that
 * pipelines requests would, and prints the answer lines in the order they come, one per line, so
 * the bash integration tests can check what fecdctl cannot: the order of answers on one
 * connection, and a client that closes before its answer (--close: send, then close at once).
 *
 *   it-rpc SOCKET [--close] [--answers N] [--timeout MS] LINE...
 *
 * Without --close it reads N answer lines (default: one per LINE) within MS milliseconds (default
 * 60000) each; exit status 1 when one does not come.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc_client.h"

/* The lines, each with its '\n', in one send. 0 or -errno. */
static int send_lines(struct rpc_conn *conn, char **lines, int n)
{
	size_t len = 0, o = 0;
	char *text;
	int ret;

	for (int i = 0; i < n; i++)
		len += strlen(lines[i]) + 1;
	text = malloc(len + 1);
	if (!text)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		o += (size_t)sprintf(text + o, "%s\n", lines[i]);
	ret = rpc_send(conn, text, o);
	free(text);
	return ret;
}

int main(int argc, char **argv)
{
	static struct rpc_conn conn;
	bool close_at_once = false;
	long answers = -1, timeout_ms = 60000;
	int first, ret;

	if (argc < 3) {
		fprintf(stderr,
		        "usage: it-rpc SOCKET [--close] [--answers N] [--timeout MS] LINE...\n");
		return 2;
	}
	for (first = 2; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
		if (strcmp(argv[first], "--close") == 0)
			close_at_once = true;
		else if (strcmp(argv[first], "--answers") == 0 && first + 1 < argc)
			answers = strtol(argv[++first], NULL, 10);
		else if (strcmp(argv[first], "--timeout") == 0 && first + 1 < argc)
			timeout_ms = strtol(argv[++first], NULL, 10);
		else {
			fprintf(stderr, "it-rpc: unknown option %s\n", argv[first]);
			return 2;
		}
	}
	if (answers < 0)
		answers = argc - first;
	ret = rpc_connect_unix(&conn, argv[1]);
	if (ret) {
		fprintf(stderr, "it-rpc: cannot connect to %s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	ret = send_lines(&conn, argv + first, argc - first);
	if (ret) {
		fprintf(stderr, "it-rpc: send: %s\n", strerror(-ret));
		return 1;
	}
	if (close_at_once) {
		rpc_close(&conn);
		return 0;
	}
	for (long i = 0; i < answers; i++) {
		char *line = rpc_read_line(&conn, (int)timeout_ms);

		if (!line) {
			fprintf(stderr, "it-rpc: answer %ld of %ld did not come within %ld ms\n",
			        i + 1, answers, timeout_ms);
			return 1;
		}
		printf("%s\n", line);
		fflush(stdout);
		free(line);
	}
	rpc_close(&conn);
	return 0;
}
