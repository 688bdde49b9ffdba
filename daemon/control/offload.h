/*
 * Control work off the loop thread, bounded in time. Building a code can take minutes (a generated
 * code of 2^20 columns) and reading a file can block, so the control methods that build codes and
 * the SIGHUP reload do that part on a worker thread (offload_run) under a build limit
 * (control.build_timeout_ms, through the codec's per-thread deadline), and finish on the loop.
 */
#ifndef FECD_OFFLOAD_H
#define FECD_OFFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

/* Runs work(arg) on a worker thread under a build limit of limit_ms, armed when the work starts,
 * then done(arg) on loop's thread. work must not touch the service's state: it gets what it needs
 * in arg. Returns 0, or a negative libuv error (neither function is called then). */
int offload_run(uv_loop_t *loop, uint32_t limit_ms, void (*work)(void *arg),
                void (*done)(void *arg), void *arg);

/* The calling thread's build limit: the codec's build deadline (fec_build_deadline_set) limit_ms
 * from now. build_limit_restart arms it again from now for the next code (a reload gives each
 * channel's code the whole limit); it does nothing on a thread without a limit. */
void build_limit_begin(uint32_t limit_ms);
void build_limit_restart(void);
void build_limit_end(void);
/* True once the calling thread's limit has passed: a build that failed then ran out of time. */
bool build_limit_passed(void);
/* The error for a build that ran out of time: "PATH: building the code took longer than
 * control.build_timeout_ms (N ms); ..." with what the user can do. */
void build_limit_message(char *err, size_t errlen, const char *path);

#endif
