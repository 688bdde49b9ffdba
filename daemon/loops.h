/*
 * Data-path loop threads: with loop_threads > 1 every channel lives on one of several libuv loops,
 * each on its own thread, so that ZMQ receive, conversion into batch slots, job cutting and
 * publishing of different channels run on different cores. Control stays on the main loop and
 * runs channel operations on the channel's loop through loop_call, which waits for the result:
 * the main thread may wait for a data loop, never the other way round, so it cannot deadlock.
 */
#ifndef FECD_LOOPS_H
#define FECD_LOOPS_H

#include <pthread.h>
#include <stdbool.h>

#include <uv.h>

struct data_loop;

/* Starts n loop threads. */
int data_loops_start(unsigned n, struct data_loop **out);
/* Ends the threads once their channels have closed (their last handles gone) and frees them. */
void data_loops_stop(struct data_loop *v, unsigned n);
struct data_loop *data_loop_at(struct data_loop *v, unsigned i);
uv_loop_t *data_loop_uv(struct data_loop *l);
/* Channels placed on it (the service keeps count to spread new ones). */
unsigned *data_loop_load(struct data_loop *l);
/* Runs fn(arg) on l's thread and returns when it has run; directly when l is NULL (one loop: the
 * caller's) or when called on l's own thread. */
void loop_call(struct data_loop *l, void (*fn)(void *arg), void *arg);

/* Names a thread of fecd's PREFIX<i> (15 characters at most), so that an operator sees in top -H
 * or /proc/PID/task/TID/comm which part is busy: loops, CPU workers, GPU lanes. */
void thread_name(pthread_t tid, const char *prefix, unsigned i);

#endif
