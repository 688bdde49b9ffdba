/*
 * The control tests' fecd process (fecd_proc.h).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fecd_proc.h"
#include "rpc_client.h"

void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int fecd_test_port(int dflt, int span)
{
	const char *env = getenv("FECD_TEST_PORT");
	char *end;
	long port = dflt;

	if (env && *env) {
		port = strtol(env, &end, 10);
		if (*end)
			port = -1;
	}
	if (port < 1024 || port > 65536 - span) {
		fprintf(stderr, "FECD_TEST_PORT=%s: expected a port in 1024..%d\n", env ? env : "",
		        65536 - span);
		return -1;
	}
	return (int)port;
}

int fecd_proc_dir(struct fecd_proc *p, const char *name, char *dir, size_t dirlen)
{
	snprintf(dir, dirlen, "/tmp/fecd-%s-XXXXXX", name);
	if (!mkdtemp(dir))
		return -1;
	snprintf(p->sock_path, sizeof(p->sock_path), "%s/control.sock", dir);
	snprintf(p->log_path, sizeof(p->log_path), "%s/fecd.log", dir);
	return 0;
}

void fecd_proc_dump_log(const struct fecd_proc *p)
{
	char line[1024];
	FILE *f = fopen(p->log_path, "r");

	fprintf(stderr, "---- fecd log ----\n");
	while (f && fgets(line, sizeof(line), f))
		fputs(line, stderr);
	if (f)
		fclose(f);
}

int fecd_proc_start(struct fecd_proc *p, const char *fecd, const char *config)
{
	struct rpc_conn *c = malloc(sizeof(*c));
	int status, ret = -1;

	p->pid = fork();
	if (p->pid == 0) {
		int fd = creat(p->log_path, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* An ignored SIGPIPE would be inherited across exec and hide fecd's own handling.
		 */
		signal(SIGPIPE, SIG_DFL);
		execl(fecd, fecd, "--config", config, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; c && p->pid > 0 && i < 200; i++) {
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			fprintf(stderr, "fecd exited early (status %d)\n", status);
			p->pid = 0;
			break;
		}
		if (rpc_connect_unix(c, p->sock_path) == 0) {
			rpc_close(c);
			ret = 0;
			break;
		}
		sleep_ms(50);
	}
	free(c);
	if (ret) {
		fecd_proc_dump_log(p);
		if (p->pid > 0)
			kill(p->pid, SIGKILL), waitpid(p->pid, &status, 0);
		p->pid = 0;
	}
	return ret;
}

bool fecd_proc_alive(struct fecd_proc *p)
{
	int status;

	return p->pid > 0 && waitpid(p->pid, &status, WNOHANG) == 0;
}

int run_command(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int fecd_proc_stop(struct fecd_proc *p, int timeout_ms)
{
	int status;

	if (p->pid <= 0)
		return -1;
	kill(p->pid, SIGTERM);
	for (int t = 0; t < timeout_ms; t += 20) {
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			p->pid = 0;
			return status;
		}
		sleep_ms(20);
	}
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &status, 0);
	p->pid = 0;
	return -1;
}
