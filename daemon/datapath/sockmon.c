/*
 * Socket monitors (sockmon.h): libzmq's monitor events for a channel's input and output socket,
 * read on the channel's loop, turned into counters, log lines and reconnections.
 *
 * Telling a dropped connection from a closed one: libzmq emits DISCONNECTED for both, and closes
 * its descriptor right after. A duplicate taken when the connection was announced keeps the
 * socket open past that close, so its state can still be read: end-of-file means the peer closed
 * (libzmq read up to it); data still waiting, or none and no end, means libzmq gave up on a peer
 * that was still sending. The duplicate is trusted only when no DISCONNECTED for that descriptor
 * was waiting once it was taken: libzmq emits DISCONNECTED before it closes a descriptor, so a
 * number closed (and perhaps reused) before the duplicate was taken always shows one. A connection
 * too short-lived to be caught that way is left unclassified, never counted wrongly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#include "channel.h"
#include "log.h"
#include "service.h"
#include "sockmon.h"

#define SOCKMON_EVENTS                                                                             \
	(ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_CONNECTED | ZMQ_EVENT_CONNECT_DELAYED |                    \
	 ZMQ_EVENT_CONNECT_RETRIED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |      \
	 ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |              \
	 ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
#define WATCH_RETRY_MS   2000  /* libzmq schedules its own retry at once; past this it gave up */
#define BACKOFF_FIRST_MS 500   /* connecting again after libzmq gave up */
#define BACKOFF_MAX_MS   32000 /* while the peer keeps refusing the handshake */

static atomic_uint monitor_seq;

/* ---- Reading events */

/* One event (two parts: event number and value, then the endpoint). 1: read, 0: none waiting. */
static int read_event(struct sock_monitor *m, struct sockmon_event *ev)
{
	zmq_msg_t part;
	uint8_t head[6];
	int more;

	zmq_msg_init(&part);
	if (zmq_msg_recv(&part, m->pair, ZMQ_DONTWAIT) < 0) {
		zmq_msg_close(&part);
		return 0;
	}
	memset(head, 0, sizeof(head));
	memcpy(head, zmq_msg_data(&part),
	       zmq_msg_size(&part) < sizeof(head) ? zmq_msg_size(&part) : sizeof(head));
	memcpy(&ev->event, head, sizeof(ev->event));
	memcpy(&ev->value, head + 2, sizeof(ev->value));
	more = zmq_msg_more(&part);
	zmq_msg_close(&part);
	while (more) {
		zmq_msg_init(&part);
		more = zmq_msg_recv(&part, m->pair, ZMQ_DONTWAIT) >= 0 && zmq_msg_more(&part);
		zmq_msg_close(&part);
	}
	return 1;
}

/* Reads what is waiting into the queue; false when the queue filled before it was all read. */
static bool fill_queue(struct sock_monitor *m)
{
	while (m->qlen < SOCKMON_QUEUE) {
		if (!read_event(m, &m->queue[(m->qhead + m->qlen) % SOCKMON_QUEUE]))
			return true;
		m->qlen++;
	}
	return false;
}

static bool disconnect_queued(const struct sock_monitor *m, int fd)
{
	for (unsigned i = 0; i < m->qlen; i++) {
		const struct sockmon_event *ev = &m->queue[(m->qhead + i) % SOCKMON_QUEUE];
		if (ev->event == ZMQ_EVENT_DISCONNECTED && ev->value == fd)
			return true;
	}
	return false;
}

/* ---- Connections */

static int find_conn(const struct sock_monitor *m, int fd)
{
	for (unsigned i = 0; i < m->nconns; i++)
		if (m->conns[i].fd == fd)
			return (int)i;
	return -1;
}

/* Forgets connection fd; returns its duplicate (-1 when it had none). */
static int untrack(struct sock_monitor *m, int fd)
{
	int i = find_conn(m, fd), dup;

	if (i < 0)
		return -1;
	dup = m->conns[i].dup;
	m->conns[i] = m->conns[--m->nconns];
	return dup;
}

static void track(struct sock_monitor *m, int fd)
{
	struct stat st;
	int dup, old = untrack(m, fd);

	if (old >= 0)
		close(old);
	if (fd < 0 || m->nconns == SOCKMON_TRACKED || disconnect_queued(m, fd))
		return;
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup < 0)
		return;
	if (!fill_queue(m) || disconnect_queued(m, fd) || fstat(dup, &st) != 0 ||
	    !S_ISSOCK(st.st_mode)) {
		close(dup);
		return;
	}
	m->conns[m->nconns].fd = fd;
	m->conns[m->nconns++].dup = dup;
}

/* After libzmq let go of the connection: did the peer close it (end-of-file, or reset)? */
static bool peer_closed(int dup)
{
	char c;
	ssize_t n = recv(dup, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* ---- Connecting again (where fecd connects) */

static void on_timer(uv_timer_t *t);

static void connect_later(struct sock_monitor *m)
{
	m->watch_retry = false;
	m->backoff_ms = m->backoff_ms ? m->backoff_ms * 2 : BACKOFF_FIRST_MS;
	if (m->backoff_ms > BACKOFF_MAX_MS)
		m->backoff_ms = BACKOFF_MAX_MS;
	uv_timer_start(&m->timer, on_timer, m->backoff_ms, 0);
}

static void log_drop(struct sock_monitor *m, const char *how)
{
	struct channel *ch = m->ch;
	char note[48];
	unsigned skipped;

	ch->stats.conn_drops++;
	if (!ratelimit_ok(&m->rl_drop, now_ns(), &skipped))
		return;
	if (m->ec == &ch->cfg.in)
		log_warn(
		    "channel %s: input %s: %s a connection whose sender was still sending: a "
		    "message part over %lld bytes (FECD_MAX_PAYLOAD_BYTES, %u bytes of symbols, "
		    "plus headers) or a ZMTP framing error; that message is lost and the sender "
		    "connects again. Split longer payloads into several messages%s",
		    ch->cfg.name, m->ec->endpoint, how, (long long)m->max_msg_size,
		    FECD_MAX_PAYLOAD_BYTES, ratelimit_note(skipped, note, sizeof(note)));
	else
		log_warn("channel %s: output %s: %s a connection whose peer was still sending: a "
		         "message over %lld bytes (receivers send only subscriptions) or a ZMTP "
		         "framing error%s",
		         ch->cfg.name, m->ec->endpoint, how, (long long)m->max_msg_size,
		         ratelimit_note(skipped, note, sizeof(note)));
}

static void on_timer(uv_timer_t *t)
{
	struct sock_monitor *m = t->data;

	if (m->watch_retry) {
		/* A connection that ended without a verdict, and libzmq did not schedule its own
		 * retry: it gave the endpoint up, which it does only after a protocol error. */
		m->watch_retry = false;
		log_drop(m, "libzmq gave up");
	}
	if (!m->sock)
		return;
	zmq_disconnect(m->sock, m->ec->endpoint); /* what is left of the ended session, if any */
	if (zmq_connect(m->sock, m->ec->endpoint) != 0)
		log_err("channel %s: %s: cannot connect to %s again: %s", m->ch->cfg.name, m->what,
		        m->ec->endpoint, zmq_strerror(errno));
	else
		log_info("channel %s: %s: connecting to %s again (libzmq gave the connection up)",
		         m->ch->cfg.name, m->what, m->ec->endpoint);
}

/* ---- Events */

static void on_disconnected(struct sock_monitor *m, int fd)
{
	int dup = untrack(m, fd);
	bool closed = dup < 0 || peer_closed(dup);

	if (dup >= 0)
		close(dup);
	if (m->hs_failed) {
		m->hs_failed = false; /* the end of a refused handshake, counted already */
		return;
	}
	if (dup < 0) {
		/* Not classified. Where fecd connects, libzmq retries at once unless it gave up. */
		if (!m->ec->bind && !uv_is_active((uv_handle_t *)&m->timer)) {
			m->watch_retry = true;
			uv_timer_start(&m->timer, on_timer, WATCH_RETRY_MS, 0);
		}
		return;
	}
	if (closed)
		return;
	log_drop(m, "libzmq dropped");
	if (!m->ec->bind)
		connect_later(m);
}

/* What a ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL value means for someone setting CURVE up. */
static const char *protocol_error_text(int32_t value)
{
	switch ((uint32_t)value) {
	case ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC:
		return "a CURVE message that does not decrypt: the client has a wrong server key";
	case ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH:
		return "a mechanism mismatch: CURVE is on at one end only";
	case ZMQ_PROTOCOL_ERROR_ZMTP_KEY_EXCHANGE:
		return "a failed CURVE key exchange";
	default:
		return (uint32_t)value >= ZMQ_PROTOCOL_ERROR_ZAP_UNSPECIFIED &&
		               (uint32_t)value < ZMQ_PROTOCOL_ERROR_WS_UNSPECIFIED
		           ? "a bad answer from the key check (ZAP)"
		           : "a malformed handshake";
	}
}

static void on_handshake_failed(struct sock_monitor *m, const struct sockmon_event *ev)
{
	struct channel *ch = m->ch;
	char note[48];
	unsigned skipped;

	m->hs_failed = true;
	ch->stats.handshake_failures++;
	if (ev->event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) {
		/* The transport failed mid-handshake: a peer that went away or timed out, or one
		 * that found the mismatch first (a client without CURVE at a CURVE server closes as
		 * soon as it reads the greeting, and which end notices first is a race). Counted,
		 * not logged; libzmq retries on its own. */
		log_debug("channel %s: %s %s: handshake interrupted: %s", ch->cfg.name, m->what,
		          m->ec->endpoint, zmq_strerror(ev->value));
		return;
	}
	if (ev->event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
		if (m->ec->bind)
			log_debug("channel %s: %s %s: a client key refused (ZAP status %d)",
			          ch->cfg.name, m->what, m->ec->endpoint, ev->value);
		else if (ratelimit_ok(&m->rl_auth, now_ns(), &skipped))
			log_warn(
			    "channel %s: %s %s: the server refused our CURVE key (status %d): "
			    "its operator must add our public key (logged when the channel was "
			    "created) to its list of clients%s",
			    ch->cfg.name, m->what, m->ec->endpoint, ev->value,
			    ratelimit_note(skipped, note, sizeof(note)));
	} else if (ratelimit_ok(&m->rl_hs, now_ns(), &skipped)) {
		log_warn("channel %s: %s %s: handshake failed: %s (ZMTP error 0x%x)%s",
		         ch->cfg.name, m->what, m->ec->endpoint, protocol_error_text(ev->value),
		         (unsigned)ev->value, ratelimit_note(skipped, note, sizeof(note)));
	}
	/* libzmq does not retry after a refused handshake: keep trying, ever more slowly. */
	if (!m->ec->bind)
		connect_later(m);
}

static void handle(struct sock_monitor *m, const struct sockmon_event *ev)
{
	switch (ev->event) {
	case ZMQ_EVENT_ACCEPTED:
	case ZMQ_EVENT_CONNECTED:
		track(m, ev->value);
		break;
	case ZMQ_EVENT_CONNECT_DELAYED:
	case ZMQ_EVENT_CONNECT_RETRIED:
		if (m->watch_retry) {
			m->watch_retry = false;
			uv_timer_stop(&m->timer);
		}
		break;
	case ZMQ_EVENT_DISCONNECTED:
		on_disconnected(m, ev->value);
		break;
	case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
		m->backoff_ms = 0;
		break;
	case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
	case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
	case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
		on_handshake_failed(m, ev);
		break;
	}
}

static void on_readable(uv_poll_t *h, int status, int events)
{
	struct sock_monitor *m = h->data;

	(void)status;
	(void)events;
	while (m->pair) {
		fill_queue(m);
		if (!m->qlen) {
			int ev = 0;
			size_t len = sizeof(ev);

			/* ZMQ_FD only signals change: look again until nothing is waiting. */
			if (zmq_getsockopt(m->pair, ZMQ_EVENTS, &ev, &len) == 0 &&
			    (ev & ZMQ_POLLIN))
				continue;
			break;
		}
		struct sockmon_event ev = m->queue[m->qhead];
		m->qhead = (m->qhead + 1) % SOCKMON_QUEUE;
		m->qlen--;
		handle(m, &ev);
	}
}

/* ---- Life */

static void on_handle_closed(uv_handle_t *h)
{
	struct sock_monitor *m = h->data;

	channel_handle_closed(m->ch);
}

int sockmon_open(struct sock_monitor *m, struct channel *ch, const char *what, void *sock,
                 const struct endpoint_config *ec, int64_t max_msg_size, char *err, size_t errlen)
{
	char ep[64];
	int zero = 0, fd, rc;
	size_t fdlen = sizeof(fd);

	memset(m, 0, sizeof(*m));
	m->ch = ch;
	m->what = what;
	m->ec = ec;
	m->max_msg_size = max_msg_size;
	m->rl_hs.interval_ns = 60ull * 1000000000u;
	m->rl_auth.interval_ns = 60ull * 1000000000u;
	snprintf(ep, sizeof(ep), "inproc://fecd-monitor.%u", atomic_fetch_add(&monitor_seq, 1));
	if (zmq_socket_monitor(sock, ep, SOCKMON_EVENTS) != 0)
		goto out_zmq;
	m->sock = sock;
	m->pair = zmq_socket(fecd_zmq_ctx(ch->d), ZMQ_PAIR);
	if (!m->pair)
		goto out_zmq;
	zmq_setsockopt(m->pair, ZMQ_LINGER, &zero, sizeof(zero));
	if (zmq_connect(m->pair, ep) != 0 || zmq_getsockopt(m->pair, ZMQ_FD, &fd, &fdlen) != 0)
		goto out_zmq;
	rc = uv_poll_init(ch->loop, &m->poll, fd);
	if (rc) {
		snprintf(err, errlen, "%s socket: cannot watch its monitor: %s", what,
		         uv_strerror(rc));
		return rc;
	}
	m->poll.data = m;
	m->poll_open = true;
	ch->open_handles++;
	rc = uv_timer_init(ch->loop, &m->timer);
	if (rc) {
		snprintf(err, errlen, "%s socket: cannot create a timer: %s", what,
		         uv_strerror(rc));
		return rc;
	}
	m->timer.data = m;
	m->timer_open = true;
	ch->open_handles++;
	uv_poll_start(&m->poll, UV_READABLE, on_readable);
	/* ZMQ_FD signals only once a read has found the socket empty: read it now. */
	on_readable(&m->poll, 0, 0);
	return 0;

out_zmq:
	rc = errno;
	snprintf(err, errlen, "%s socket: cannot monitor it: %s", what, zmq_strerror(rc));
	return -rc;
}

void sockmon_close(struct sock_monitor *m)
{
	if (m->sock) {
		zmq_socket_monitor(m->sock, NULL, 0);
		m->sock = NULL;
	}
	if (m->pair) {
		zmq_close(m->pair);
		m->pair = NULL;
	}
	while (m->nconns)
		close(m->conns[--m->nconns].dup);
	if (m->poll_open) {
		m->poll_open = false;
		uv_close((uv_handle_t *)&m->poll, on_handle_closed);
	}
	if (m->timer_open) {
		m->timer_open = false;
		uv_close((uv_handle_t *)&m->timer, on_handle_closed);
	}
}
