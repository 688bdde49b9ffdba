/*
 * Data-path loop threads (loops.h): one libuv loop per thread, woken by a uv_async to run the
 * commands control posts to it. A command is a function and its argument; the poster waits on a
 * condition until the loop thread has run it, so the command's arguments may live on the poster's
 * stack.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "loops.h"

void thread_name(pthread_t tid, const char *prefix, unsigned i)
{
	char name[32];

	snprintf(name, sizeof(name), "%s%u", prefix, i);
	name[15] = '\0'; /* the kernel keeps 15 characters */
	pthread_setname_np(tid, name);
}

struct loop_cmd {
	void (*fn)(void *arg);
	void *arg;
	bool done;
	struct loop_cmd *next;
};

struct data_loop {
	uv_loop_t loop;
	uv_async_t wake;
	pthread_t tid;
	bool started;
	pthread_mutex_t lock; /* the command queue and stop */
	pthread_cond_t cond;  /* a command has run */
	struct loop_cmd *head, *tail;
	bool stop;
	unsigned load;
};

static void on_wake(uv_async_t *a)
{
	struct data_loop *l = a->data;
	bool stop;

	pthread_mutex_lock(&l->lock);
	while (l->head) {
		struct loop_cmd *c = l->head;
		l->head = c->next;
		if (!l->head)
			l->tail = NULL;
		/* The poster waits for done: the command runs without the lock so that it may
		 * take others (the service's) freely. */
		pthread_mutex_unlock(&l->lock);
		c->fn(c->arg);
		pthread_mutex_lock(&l->lock);
		c->done = true;
		pthread_cond_broadcast(&l->cond);
	}
	stop = l->stop;
	pthread_mutex_unlock(&l->lock);
	if (stop && !uv_is_closing((uv_handle_t *)&l->wake))
		uv_close((uv_handle_t *)&l->wake, NULL);
}

static void *loop_main(void *arg)
{
	struct data_loop *l = arg;

	uv_run(&l->loop, UV_RUN_DEFAULT);
	return NULL;
}

static void loop_free(struct data_loop *l)
{
	uv_loop_close(&l->loop);
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
}

int data_loops_start(unsigned n, struct data_loop **out)
{
	struct data_loop *v = calloc(n, sizeof(*v));
	unsigned i;
	int rc = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct data_loop *l = &v[i];
		rc = uv_loop_init(&l->loop);
		if (rc)
			goto out_stop;
		pthread_mutex_init(&l->lock, NULL);
		pthread_cond_init(&l->cond, NULL);
		rc = uv_async_init(&l->loop, &l->wake, on_wake);
		if (rc) {
			loop_free(l);
			goto out_stop;
		}
		l->wake.data = l;
		rc = -pthread_create(&l->tid, NULL, loop_main, l);
		if (rc) {
			uv_close((uv_handle_t *)&l->wake, NULL);
			uv_run(&l->loop, UV_RUN_DEFAULT);
			loop_free(l);
			goto out_stop;
		}
		l->started = true;
		thread_name(l->tid, "fecd-loop/", i);
	}
	*out = v;
	return 0;

out_stop:
	data_loops_stop(v, i);
	return rc;
}

void data_loops_stop(struct data_loop *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct data_loop *l = &v[i];
		pthread_mutex_lock(&l->lock);
		l->stop = true;
		pthread_mutex_unlock(&l->lock);
		uv_async_send(&l->wake);
	}
	for (unsigned i = 0; i < n; i++) {
		pthread_join(v[i].tid, NULL);
		loop_free(&v[i]);
	}
	free(v);
}

struct data_loop *data_loop_at(struct data_loop *v, unsigned i)
{
	return &v[i];
}

uv_loop_t *data_loop_uv(struct data_loop *l)
{
	return &l->loop;
}

unsigned *data_loop_load(struct data_loop *l)
{
	return &l->load;
}

void loop_call(struct data_loop *l, void (*fn)(void *arg), void *arg)
{
	struct loop_cmd c = {.fn = fn, .arg = arg};

	if (!l || pthread_equal(pthread_self(), l->tid)) {
		fn(arg);
		return;
	}
	pthread_mutex_lock(&l->lock);
	if (l->tail)
		l->tail->next = &c;
	else
		l->head = &c;
	l->tail = &c;
	pthread_mutex_unlock(&l->lock);
	uv_async_send(&l->wake);
	pthread_mutex_lock(&l->lock);
	while (!c.done)
		pthread_cond_wait(&l->cond, &l->lock);
	pthread_mutex_unlock(&l->lock);
}
