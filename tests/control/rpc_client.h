/*
 * A small blocking JSON-RPC-over-lines client for the control tests: connect to a Unix or TCP
 * socket, send raw bytes, read one response line with a timeout.
 */
#ifndef FECD_TEST_RPC_CLIENT_H
#define FECD_TEST_RPC_CLIENT_H

#include <stddef.h>

struct cJSON;

struct rpc_conn {
	int fd;
	size_t len; /* bytes buffered in buf */
	char buf[1 << 20];
};

/* 0 or -errno. */
int rpc_connect_unix(struct rpc_conn *c, const char *path);
int rpc_connect_tcp(struct rpc_conn *c, const char *host, int port);
void rpc_close(struct rpc_conn *c);
int rpc_send(struct rpc_conn *c, const void *buf, size_t len);
/* One line without its '\n' (malloc'd), or NULL on timeout, EOF or error. */
char *rpc_read_line(struct rpc_conn *c, int timeout_ms);
/* Sends a request line and parses the response line; NULL on timeout or invalid JSON. */
struct cJSON *rpc_roundtrip(struct rpc_conn *c, const char *line, int timeout_ms);

#endif
