/*
 * sd_notify written by hand: one datagram per state change on the AF_UNIX socket named by
 * NOTIFY_SOCKET, where a leading '@' names the abstract namespace. Stateless, so it is safe to
 * call from anywhere on the loop thread.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t plen;
	int fd, ret = 0;

	if (!path || !*path)
		return 0;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	socklen_t salen =
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen + (path[0] == '@' ? 0 : 1));
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int notify_sendf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return notify_send(buf);
}

uint64_t notify_watchdog_usec(void)
{
	const char *usec = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	char *end;

	if (!usec || !*usec)
		return 0;
	if (pid && *pid) {
		unsigned long p = strtoul(pid, &end, 10);
		if (*end || p != (unsigned long)getpid())
			return 0;
	}
	errno = 0;
	unsigned long long v = strtoull(usec, &end, 10);
	if (errno || *end || v == 0)
		return 0;
	return v;
}
