/*
 * it-notify: stands in for systemd's notification socket in the integration tests. It binds a
 * datagram socket at PATH (what fecd gets as NOTIFY_SOCKET) and appends every datagram it receives
 * to OUT as one line, flushed at once, so a test can wait for READY=1 and check STATUS= and
 * WATCHDOG=1 lines. It exits on SIGTERM, or by itself after a time limit so it never outlives a
 * test run that forgot it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define LISTEN_LIMIT_S 600

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char buf[4096];
	FILE *out;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: it-notify SOCKET-PATH OUTPUT-FILE\n");
		return 2;
	}
	if (strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "it-notify: socket path longer than %zu bytes\n",
		        sizeof(sa.sun_path) - 1);
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	out = fopen(argv[2], "a");
	if (!out) {
		fprintf(stderr, "it-notify: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unlink(sa.sun_path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "it-notify: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	time_t end = time(NULL) + LISTEN_LIMIT_S;
	while (time(NULL) < end) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};

		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			continue;
		buf[n] = '\0';
		/* One datagram may hold several assignments, one per line: keep them as lines. */
		fprintf(out, "%s\n", buf);
		fflush(out);
	}
	unlink(sa.sun_path);
	return 0;
}
