/*
 * Which process holds a TCP port fecd could not bind (port_owner.h): the listening socket's inode
 * from /proc/net/tcp and tcp6, then the process with a descriptor on that inode from
 * /proc/PID/fd. Only processes whose descriptors this user may read can be found (root sees all;
 * the fecd account sees its own, which is the case that matters: a fecd still draining).
 */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "port_owner.h"

#define TCP_LISTEN 0x0a /* the state column of /proc/net/tcp */

/* The port of a tcp:// endpoint ("tcp://HOST:PORT", HOST possibly [v6]); 0 for another kind. */
static unsigned endpoint_port(const char *endpoint)
{
	const char *colon;
	char *end;
	unsigned long port;

	if (strncmp(endpoint, "tcp://", 6) != 0)
		return 0;
	colon = strrchr(endpoint + 6, ':');
	if (!colon)
		return 0;
	port = strtoul(colon + 1, &end, 10);
	return *end || port == 0 || port > 65535 ? 0 : (unsigned)port;
}

/* The inode of a socket listening on port, from one /proc/net table; 0 when none. */
static unsigned long listen_inode(const char *table, unsigned port)
{
	FILE *f = fopen(table, "r");
	char line[512];
	unsigned long inode = 0;

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f)) { /* the header */
		fclose(f);
		return 0;
	}
	while (!inode && fgets(line, sizeof(line), f)) {
		unsigned lport, state;
		unsigned long ino;
		/* sl local:port remote:port st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line,
		           " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*x:%*x %*x:%*x %*x %*u "
		           "%*u %lu",
		           &lport, &state, &ino) == 3 &&
		    lport == port && state == TCP_LISTEN)
			inode = ino;
	}
	fclose(f);
	return inode;
}

/* The process with a descriptor on socket inode: its pid, and its name in comm; 0 when none
 * is visible. */
static long inode_owner(unsigned long inode, char *comm, size_t commlen)
{
	char want[64], path[600], link[64];
	DIR *proc = opendir("/proc");
	struct dirent *p;
	long pid = 0;

	if (!proc)
		return 0;
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	while (!pid && (p = readdir(proc))) {
		DIR *fds;
		struct dirent *fd;

		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue; /* gone, or not ours to read */
		while (!pid && (fd = readdir(fds))) {
			ssize_t n;

			if (fd->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fd/%s", p->d_name, fd->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (strcmp(link, want) == 0)
				pid = strtol(p->d_name, NULL, 10);
		}
		closedir(fds);
	}
	closedir(proc);
	if (pid) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		f = fopen(path, "r");
		comm[0] = '\0';
		if (f) {
			if (fgets(comm, (int)commlen, f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
	}
	return pid;
}

long port_owner(const char *endpoint, char *comm, size_t commlen)
{
	unsigned port = endpoint_port(endpoint);
	unsigned long inode;

	if (!port || commlen == 0)
		return 0;
	inode = listen_inode("/proc/net/tcp", port);
	if (!inode)
		inode = listen_inode("/proc/net/tcp6", port);
	return inode ? inode_owner(inode, comm, commlen) : 0;
}
