/*
 * The default control-socket path rule (see ctlpath.h). Plain libc so that fecdctl can compile it
 * without the rest of the daemon.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctlpath.h"

#define RUN_DIR   "/run/fecd"
#define SOCK_NAME "control.sock"

static int put_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return (n < 0 || (size_t)n >= len || n >= 108) ? -ENAMETOOLONG : 0;
}

static bool is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static bool dir_usable(const char *dir, bool may_create)
{
	struct stat st;

	if (stat(dir, &st) != 0) {
		if (!may_create || errno != ENOENT || mkdir(dir, 0750) != 0)
			return false;
		if (stat(dir, &st) != 0)
			return false;
	}
	return S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0;
}

int fecd_control_path_default(char *buf, size_t len, bool for_daemon, const char **why)
{
	const char *rt = getenv("RUNTIME_DIRECTORY");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char cand[3][128];
	const char *reason[3];
	int n = 0, pick = -1;

	/* systemd may list several directories separated by ':'; the first is ours. */
	if (rt && *rt) {
		size_t l = strcspn(rt, ":");
		char dir[128];

		if (l < sizeof(dir)) {
			memcpy(dir, rt, l);
			dir[l] = '\0';
			if (put_path(cand[n], sizeof(cand[n]), dir, SOCK_NAME) == 0) {
				reason[n++] = "RUNTIME_DIRECTORY is set (systemd)";
				pick = 0;
			}
		}
	}
	if (put_path(cand[n], sizeof(cand[n]), RUN_DIR, SOCK_NAME) == 0) {
		reason[n] = RUN_DIR " is writable";
		if (pick < 0 && dir_usable(RUN_DIR, for_daemon))
			pick = n;
		n++;
	}
	bool have_xdg = xdg && *xdg;

	if (put_path(cand[n], sizeof(cand[n]), have_xdg ? xdg : "/tmp", "fecd-control.sock") == 0) {
		reason[n] = have_xdg ? "fallback: XDG_RUNTIME_DIR" : "fallback: /tmp";
		n++;
	}
	if (n == 0)
		return -ENAMETOOLONG;
	if (pick < 0)
		pick = n - 1;
	/* A client follows a daemon that chose differently (another user, another environment). */
	if (!for_daemon && !is_socket(cand[pick])) {
		for (int i = 0; i < n; i++) {
			if (is_socket(cand[i])) {
				pick = i;
				break;
			}
		}
	}
	if (strlen(cand[pick]) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, cand[pick]);
	if (why)
		*why = reason[pick];
	return 0;
}
