/*
 * The TCP control token's file (see ctltoken.h): where it is, reading it without trusting it, and
 * making a fresh one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctltoken.h"

#define TOKEN_BYTES 32 /* random bytes, written as 64 hex digits */

int ctl_token_path(const char *socket_path, char *buf, size_t len)
{
	size_t n = strlen(socket_path);
	int w;

	if (n > 5 && strcmp(socket_path + n - 5, ".sock") == 0)
		n -= 5;
	w = snprintf(buf, len, "%.*s.token", (int)n, socket_path);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

int ctl_token_read(const char *path, bool for_daemon, char *token, size_t len, char *err,
                   size_t errlen)
{
	char buf[CTL_TOKEN_MAX + 2];
	struct stat st;
	ssize_t n;
	size_t k;
	int fd, e;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "cannot open the control token %s: %s%s", path, strerror(e),
		         e == EACCES ? " (it is readable by the fecd group)" : "");
		return -e;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "the control token %s is not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (for_daemon && st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(
		    err, errlen,
		    "the control token %s belongs to user %u: expected fecd's own user or root",
		    path, (unsigned)st.st_uid);
		close(fd);
		return -EPERM;
	}
	if (for_daemon && (st.st_mode & 0007)) {
		snprintf(err, errlen,
		         "the control token %s is open to every user (mode %04o): expected no "
		         "access for others (chmod o-rwx)",
		         path, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read the control token %s: %s", path, strerror(e));
		return -e;
	}
	buf[n] = '\0';
	k = (size_t)n;
	while (k && (buf[k - 1] == '\n' || buf[k - 1] == '\r' || buf[k - 1] == ' ' ||
	             buf[k - 1] == '\t'))
		buf[--k] = '\0';
	for (size_t i = 0; i < k; i++) {
		if ((unsigned char)buf[i] <= ' ' || (unsigned char)buf[i] >= 0x7f) {
			k = 0;
			break;
		}
	}
	if (k < CTL_TOKEN_MIN || k > CTL_TOKEN_MAX || k >= len) {
		snprintf(err, errlen,
		         "the control token %s: expected one line of %d to %d printable characters "
		         "without spaces",
		         path, CTL_TOKEN_MIN, CTL_TOKEN_MAX);
		return -EINVAL;
	}
	memcpy(token, buf, k + 1);
	return 0;
}

int ctl_token_create(const char *path, char *token, size_t len, char *err, size_t errlen)
{
	unsigned char raw[TOKEN_BYTES];
	char text[2 * TOKEN_BYTES + 2];
	size_t got = 0;
	int fd, e;

	if (len < 2 * TOKEN_BYTES + 1) {
		snprintf(err, errlen, "no room for a control token");
		return -EINVAL;
	}
	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			snprintf(err, errlen, "cannot make a control token: getrandom: %s",
			         strerror(e));
			return -e;
		}
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(text + 2 * i, 3, "%02x", raw[i]);
	text[2 * TOKEN_BYTES] = '\n';
	text[2 * TOKEN_BYTES + 1] = '\0';
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "cannot create the control token %s: %s", path, strerror(e));
		return -e;
	}
	/* The umask may have taken the group's read bit; the group is who may use fecdctl. */
	if (fchmod(fd, 0640) != 0 || write(fd, text, 2 * TOKEN_BYTES + 1) != 2 * TOKEN_BYTES + 1) {
		e = errno;
		close(fd);
		unlink(path);
		snprintf(err, errlen, "cannot write the control token %s: %s", path, strerror(e));
		return -e;
	}
	if (close(fd) != 0) {
		e = errno;
		unlink(path);
		snprintf(err, errlen, "cannot write the control token %s: %s", path, strerror(e));
		return -e;
	}
	memcpy(token, text, 2 * TOKEN_BYTES);
	token[2 * TOKEN_BYTES] = '\0';
	return 0;
}

bool ctl_token_equal(const char *sent, const char *token)
{
	size_t ls = strnlen(sent, CTL_TOKEN_MAX + 1), lt = strlen(token);
	unsigned char diff = ls != lt;

	/* Every byte of the right token is looked at, whatever the client sent. */
	for (size_t i = 0; i < lt; i++)
		diff |= (unsigned char)(token[i] ^ (i < ls ? sent[i] : 0));
	return diff == 0;
}
