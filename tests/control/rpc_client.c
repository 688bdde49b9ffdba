/*
 * The control tests' blocking line client (rpc_client.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "rpc_client.h"

int rpc_connect_unix(struct rpc_conn *c, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	c->len = 0;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int ret = -errno;

		close(c->fd);
		c->fd = -1;
		return ret;
	}
	return 0;
}

int rpc_connect_tcp(struct rpc_conn *c, const char *host, int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

	c->len = 0;
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return -EINVAL;
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int ret = -errno;

		close(c->fd);
		c->fd = -1;
		return ret;
	}
	return 0;
}

void rpc_close(struct rpc_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->len = 0;
}

int rpc_send(struct rpc_conn *c, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

char *rpc_read_line(struct rpc_conn *c, int timeout_ms)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
		ssize_t n;

		if (nl) {
			size_t l = (size_t)(nl - c->buf);
			char *line = malloc(l + 1);

			if (!line)
				return NULL;
			memcpy(line, c->buf, l);
			line[l] = '\0';
			memmove(c->buf, nl + 1, c->len - l - 1);
			c->len -= l + 1;
			return line;
		}
		if (c->len == sizeof(c->buf) || poll(&pfd, 1, timeout_ms) <= 0)
			return NULL;
		n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
		if (n <= 0)
			return NULL;
		c->len += (size_t)n;
	}
}

cJSON *rpc_roundtrip(struct rpc_conn *c, const char *line, int timeout_ms)
{
	char *resp;
	cJSON *j;

	if (rpc_send(c, line, strlen(line)) != 0 || rpc_send(c, "\n", 1) != 0)
		return NULL;
	resp = rpc_read_line(c, timeout_ms);
	if (!resp)
		return NULL;
	j = cJSON_Parse(resp);
	free(resp);
	return j;
}
