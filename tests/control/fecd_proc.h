/*
 * Starting and stopping the real fecd for the control tests: a child process with its output in a
 * log file, ready once its control socket accepts a connection.
 */
#ifndef FECD_TEST_FECD_PROC_H
#define FECD_TEST_FECD_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct fecd_proc {
	pid_t pid;
	char log_path[160];
	char sock_path[160];
};

void sleep_ms(int ms);
/* The first of a test's span TCP ports: $FECD_TEST_PORT (the test's CMakeLists gives each test its
 * own, from FECD_IT_PORT_BASE), else dflt. -1, said on stderr, where it is not a port of 1024 or
 * more with span - 1 ports above it. */
int fecd_test_port(int dflt, int span);
/* Makes the temporary folder /tmp/fecd-<name>-XXXXXX of one test's fecd in dir (dirlen >= 64)
 * and puts p's control socket and log in it. 0, or -1 (mkdtemp failed). */
int fecd_proc_dir(struct fecd_proc *p, const char *name, char *dir, size_t dirlen);
/* Starts fecd --config config; waits up to 10 s for p->sock_path to accept. 0, or -1 with the log
 * shown when fecd exited or never listened (p->pid is then 0 or killed). */
int fecd_proc_start(struct fecd_proc *p, const char *fecd, const char *config);
/* True while the process has not exited. */
bool fecd_proc_alive(struct fecd_proc *p);
/* SIGTERM, then waits up to timeout_ms (SIGKILL after it). The exit status, or -1 when it had to
 * be killed. */
int fecd_proc_stop(struct fecd_proc *p, int timeout_ms);
/* Prints the log to stderr (after a failure). */
void fecd_proc_dump_log(const struct fecd_proc *p);
/* Runs a shell command line (fecdctl, say) with its stdout and stderr into out; returns its exit
 * status, or -1. */
int run_command(const char *cmd, char *out, size_t len);

#endif
