/*
 * A channel's socket monitors: what libzmq does to a data socket's connections that fecd would
 * otherwise never hear of. libzmq 4.3 reports it only through zmq_socket_monitor events, read
 * here on the channel's loop thread:
 *   - A message part over ZMQ_MAXMSGSIZE (or a ZMTP framing error) makes libzmq drop the
 *     connection (v2_decoder: EMSGSIZE, then the engine's protocol error) with no event but
 *     ZMQ_EVENT_DISCONNECTED, the same as a peer closing. The monitor tells the two apart by
 *     keeping a duplicate of each connection's descriptor (from ACCEPTED / CONNECTED): when the
 *     connection ends, a peer that closed shows end-of-file, a peer libzmq cut off does not. Such
 *     drops are counted in conn_drops and logged with the limit.
 *   - Where fecd connects, libzmq never reconnects after a protocol error or a refused handshake
 *     (the session ends), which would leave the channel deaf: the monitor connects again itself,
 *     backing off while the peer keeps refusing.
 *   - Refused handshakes (CURVE keys not allowed, a wrong server key, a mechanism mismatch) are
 *     counted in handshake_failures and logged, at most once a minute per socket and kind (a
 *     client key refused by fecd's own key check is logged there, once per key).
 */
#ifndef FECD_SOCKMON_H
#define FECD_SOCKMON_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "stats.h"

#define SOCKMON_TRACKED 16 /* connections per socket whose end can be classified */
#define SOCKMON_QUEUE   64 /* monitor events read ahead */

struct channel;
struct endpoint_config;

struct sockmon_event {
	uint16_t event;
	int32_t value;
};

struct sock_monitor {
	struct channel *ch;
	const char *what; /* "input" or "output" */
	const struct endpoint_config *ec;
	void *sock; /* the monitored socket */
	void *pair; /* our end of libzmq's monitor */
	uv_poll_t poll;
	uv_timer_t timer; /* where fecd connects: connecting again */
	bool poll_open, timer_open;
	bool hs_failed;       /* the next DISCONNECTED ends a failed handshake */
	bool watch_retry;     /* a connection of ours ended unclassified: libzmq should retry */
	unsigned backoff_ms;  /* next wait before connecting again */
	int64_t max_msg_size; /* the socket's ZMQ_MAXMSGSIZE, for the log */
	struct {
		int fd, dup;
	} conns[SOCKMON_TRACKED];
	unsigned nconns;
	struct sockmon_event queue[SOCKMON_QUEUE];
	unsigned qhead, qlen;
	struct ratelimit rl_drop, rl_hs, rl_auth;
};

/* Starts monitoring sock (before it binds or connects). Returns 0 or a negative errno with err
 * set. */
int sockmon_open(struct sock_monitor *m, struct channel *ch, const char *what, void *sock,
                 const struct endpoint_config *ec, int64_t max_msg_size, char *err, size_t errlen);
/* Stops it (before the socket closes); its handles close through channel_handle_closed. */
void sockmon_close(struct sock_monitor *m);

#endif
