/*
 * The JSON-RPC 2.0 control server: a Unix socket (mode 0660) and optionally TCP on 127.0.0.1, one
 * request per line, one response per line. Everything here runs on the loop thread and nothing a
 * client sends can make it wait or grow without bound:
 *   - a line longer than control.max_line gets -32600 and the rest of it is discarded, and the
 *     connection goes on;
 *   - nesting deeper than control.max_depth is refused by a scan before cJSON parses anything
 *     (the same scan rejects NUL bytes and bytes that are not UTF-8; rpc_request.c);
 *   - responses a client does not read are buffered up to OUT_CAP bytes, then the client is
 *     dropped; a client that goes away before its response is written costs nothing (main.c
 *     ignores SIGPIPE, and the write's error closes the connection);
 *   - at most MAX_CLIENTS connections are served at once; one that sends nothing for
 *     control.idle_timeout_ms is closed, and when every place is taken the connection idle
 *     longest makes room for a new one, so idle connections cannot lock others out.
 * Who may ask: anyone who can open the Unix socket (its group); on TCP, where any local user can
 * connect, a connection must first send the token of control.token_file (method "auth"), which
 * only that group can read (ctltoken.h). A wrong token closes the connection.
 * Batch requests (JSON arrays) are refused with -32600: fecdctl and scripts send one request per
 * line, and a batch would let one line cost an unbounded amount of work. Notifications (no "id")
 * are carried out and get no response.
 *
 * Methods that build codes (channel.create, channel.update) go on off the loop thread (rpc_start)
 * and are answered when done; other clients are served meanwhile. A client's answers keep the
 * order of its requests: while one of its requests is in flight, what it sends next is held
 * (up to HOLD_CAP bytes, then reading from it pauses) and looked at once the answer is out. A
 * client that goes away (EOF) while a request is in flight is closed at once: the request is
 * still carried out (a channel created, or the error logged), its answer and anything held are
 * dropped. A client waiting for its answer is not idle: its control.idle_timeout_ms counts from
 * the answer, and it is not the one that makes room.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "ctltoken.h"
#include "fecd.h"
#include "log.h"
#include "rpc.h"
#include "settings.h"

#define MAX_CLIENTS  64
#define READ_CHUNK   16384
#define HOLD_CAP     (2 * READ_CHUNK) /* read while a request is in flight; then reading pauses */
#define OUT_CAP      (4u << 20) /* the largest response (config.get, 256 channels) is ~0.3 MiB */
#define SWEEP_MAX_MS 1000       /* idle connections are looked for at least this often */

struct client;

/* A request whose answer comes later (rpc_start). */
struct client_call {
	struct client *cl; /* NULL once the client has gone: the answer is dropped */
	cJSON *id;         /* to answer with; NULL: null */
	bool notify;       /* no answer wanted */
	unsigned serial;   /* the client's, for log lines */
	char method[32];
};

struct client {
	union {
		uv_handle_t handle;
		uv_stream_t stream;
		uv_pipe_t pipe;
		uv_tcp_t tcp;
	} h;
	struct control *ctl;
	struct client *next, *prev;
	char *line;      /* the request being assembled */
	size_t len, cap; /* bytes in line, bytes allocated (<= max_line) */
	bool discarding; /* the current line went over max_line: drop it up to its '\n' */
	bool closing;
	bool authed;            /* may call methods: Unix socket, or TCP after a good "auth" */
	bool paused;            /* reading stopped: held is nearly full */
	uint64_t last_ns;       /* when it last sent anything, or got its answer (idle timeout) */
	uv_shutdown_t shutdown; /* closing after a last response has left */
	unsigned serial;        /* for log lines */
	struct client_call *call; /* the request in flight, or NULL */
	size_t nheld;             /* bytes in held */
	char rbuf[READ_CHUNK];
	char held[HOLD_CAP]; /* read while call was in flight, not yet looked at */
};

struct control {
	struct fecd *d;
	uv_pipe_t pipe;
	uv_tcp_t tcp;
	uv_timer_t sweep; /* closes idle connections */
	bool have_pipe, have_tcp, have_sweep, stopping;
	uint64_t idle_ns; /* 0: connections may stay idle */
	unsigned
	    open_handles; /* listeners and clients not yet closed: free at zero when stopping */
	unsigned nclients, serial;
	struct client *clients;
	size_t max_line, out_cap;
	unsigned max_depth;
	char sock_path[FECD_PATH_MAX];
	char token[CTL_TOKEN_MAX + 1]; /* TCP clients' token (TCP listening only) */
	char token_path[FECD_PATH_MAX + 16];
	bool token_made; /* fecd wrote the token file, so removes it on the way out */
};

struct out_req {
	uv_write_t req;
	struct client *cl;
	size_t len;
	char data[];
};

static void handle_closed(struct control *c)
{
	if (--c->open_handles == 0 && c->stopping)
		free(c);
}

static void client_closed(uv_handle_t *h)
{
	struct client *cl = h->data;
	struct control *c = cl->ctl;

	if (cl->prev)
		cl->prev->next = cl->next;
	else
		c->clients = cl->next;
	if (cl->next)
		cl->next->prev = cl->prev;
	c->nclients--;
	if (cl->call)
		cl->call->cl = NULL; /* it finishes without us */
	free(cl->line);
	free(cl);
	handle_closed(c);
}

static void client_close(struct client *cl, const char *why)
{
	if (cl->closing)
		return;
	cl->closing = true;
	if (why)
		log_info("control: client %u: %s; closing", cl->serial, why);
	uv_close(&cl->h.handle, client_closed);
}

static void on_written(uv_write_t *req, int status)
{
	struct out_req *w = (struct out_req *)req;

	if (status < 0 && status != UV_ECANCELED)
		client_close(w->cl, uv_strerror(status));
	free(w);
}

/* Queues one response line; a client that lets OUT_CAP bytes pile up is dropped. */
static void client_send(struct client *cl, const char *text)
{
	size_t len = strlen(text);
	struct out_req *w;
	uv_buf_t buf;

	if (cl->closing)
		return;
	if (uv_stream_get_write_queue_size(&cl->h.stream) + len + 1 > cl->ctl->out_cap) {
		client_close(cl, "does not read its responses (output buffer full)");
		return;
	}
	w = malloc(sizeof(*w) + len + 1);
	if (!w) {
		client_close(cl, "out of memory for a response");
		return;
	}
	w->cl = cl;
	w->len = len + 1;
	memcpy(w->data, text, len);
	w->data[len] = '\n';
	buf = uv_buf_init(w->data, (unsigned)w->len);
	if (uv_write(&w->req, &cl->h.stream, &buf, 1, on_written) != 0) {
		free(w);
		client_close(cl, "write failed");
	}
}

static void on_shut(uv_shutdown_t *req, int status)
{
	(void)status;
	client_close(req->data, NULL);
}

/* Closes the connection once what is queued for it has been written (a refusal's response). */
static void client_close_after_send(struct client *cl, const char *why)
{
	if (cl->closing)
		return;
	log_info("control: client %u: %s; closing", cl->serial, why);
	uv_read_stop(&cl->h.stream);
	cl->shutdown.data = cl;
	if (uv_shutdown(&cl->shutdown, &cl->h.stream, on_shut) != 0)
		client_close(cl, NULL);
}

static void send_response(struct client *cl, const cJSON *id, cJSON *result, int code,
                          const char *msg)
{
	cJSON *resp = cJSON_CreateObject(), *err;
	char *text = NULL;

	if (!resp)
		goto out;
	cJSON_AddStringToObject(resp, "jsonrpc", "2.0");
	if (code) {
		err = cJSON_AddObjectToObject(resp, "error");
		if (err) {
			cJSON_AddNumberToObject(err, "code", code);
			cJSON_AddStringToObject(err, "message", msg);
		}
	} else {
		cJSON_AddItemToObject(resp, "result", result ? result : cJSON_CreateNull());
		result = NULL;
	}
	cJSON_AddItemToObject(resp, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
	text = cJSON_PrintUnformatted(resp);
out:
	if (text)
		client_send(cl, text);
	else
		client_close(cl, "out of memory for a response");
	cJSON_free(text);
	cJSON_Delete(resp);
	cJSON_Delete(result);
}

/* The "auth" method: the connection's own business, so it is answered here rather than in the
 * method table (which lists it for methods.list and the README). */
static int client_auth(struct client *cl, const cJSON *params, cJSON **result, char *msg,
                       size_t len)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(params, "token");

	if (!cJSON_IsString(t) || !params->child || params->child->next) {
		snprintf(msg, len,
		         "params: expected {\"token\": TOKEN} (a string) and nothing else");
		return RPC_EUNAUTHORIZED;
	}
	if (!cl->ctl->token[0]) {
		if (!cl->authed) {
			snprintf(msg, len,
			         "authentication failed: this connection cannot be "
			         "authenticated");
			return RPC_EUNAUTHORIZED;
		}
	} else if (!ctl_token_equal(t->valuestring, cl->ctl->token)) {
		snprintf(msg, len,
		         "authentication failed: wrong token (it is in %s); closing the "
		         "connection",
		         cl->ctl->token_path);
		return RPC_EUNAUTHORIZED;
	}
	cl->authed = true;
	*result = cJSON_CreateObject();
	cJSON_AddTrueToObject(*result, "authenticated");
	return 0;
}

static void client_take_held(struct client *cl);

/* The end of a request that went on off the loop thread. */
static void call_done(void *arg, int code, cJSON *result, const char *msg)
{
	struct client_call *call = arg;
	struct client *cl = call->cl;

	if (cl) {
		cl->call = NULL;
		cl->last_ns = uv_hrtime();
		if (code)
			log_debug("control: client %u: error %d: %s", cl->serial, code, msg);
		if (!call->notify)
			send_response(cl, call->id, result, code, msg);
		else
			cJSON_Delete(result);
		client_take_held(cl);
	} else {
		if (code)
			log_warn("control: client %u was closed before the answer to its %s: error "
			         "%d: %s",
			         call->serial, call->method, code, msg);
		else
			log_info("control: client %u was closed before the answer to its %s, which "
			         "succeeded",
			         call->serial, call->method);
		cJSON_Delete(result);
	}
	cJSON_Delete(call->id);
	free(call);
}

static void handle_line(struct client *cl, const char *text, size_t n)
{
	struct control *c = cl->ctl;
	const cJSON *id = NULL;
	cJSON *req = NULL, *result = NULL;
	struct client_call *call = NULL;
	const char *method;
	char msg[1024];
	bool notify = false, pending = false;
	int code;

	code = rpc_read_request(text, n, c->max_depth, &req, &id, &notify, msg, sizeof(msg));
	if (!code && !req)
		return; /* a blank line */
	if (code)
		goto out_reply;
	method = cJSON_GetObjectItemCaseSensitive(req, "method")->valuestring;
	if (strcmp(method, "auth") == 0) {
		code = client_auth(cl, cJSON_GetObjectItemCaseSensitive(req, "params"), &result,
		                   msg, sizeof(msg));
		if (code) {
			send_response(cl, id, NULL, code, msg);
			client_close_after_send(cl, "wrong control token");
			goto out_req;
		}
	} else if (!cl->authed) {
		code = RPC_EUNAUTHORIZED;
		snprintf(msg, sizeof(msg),
		         "authentication required: on TCP, send {\"method\": \"auth\", "
		         "\"params\": {\"token\": TOKEN}} first, with the token from %s (readable "
		         "by fecd's group; fecdctl --tcp reads it)",
		         c->token_path);
	} else {
		call = calloc(1, sizeof(*call));
		if (!call || (id && !(call->id = cJSON_Duplicate(id, true)))) {
			code = RPC_EINTERNAL;
			snprintf(msg, sizeof(msg), "out of memory");
			goto out_reply;
		}
		call->cl = cl;
		call->notify = notify;
		call->serial = cl->serial;
		snprintf(call->method, sizeof(call->method), "%s", method);
		code = rpc_start(c->d, method, cJSON_GetObjectItemCaseSensitive(req, "params"),
		                 call_done, call, &pending, &result, msg, sizeof(msg));
		if (pending) {
			cl->call = call; /* answered by call_done */
			call = NULL;
			goto out_req;
		}
	}
	if (notify) {
		cJSON_Delete(result);
		goto out_req;
	}
out_reply:
	if (code)
		log_debug("control: client %u: error %d: %s", cl->serial, code, msg);
	send_response(cl, id, result, code, msg);
out_req:
	if (call) {
		cJSON_Delete(call->id);
		free(call);
	}
	cJSON_Delete(req);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct client *cl = h->data;

	(void)suggested;
	*buf = uv_buf_init(cl->rbuf, sizeof(cl->rbuf));
}

/* Appends to the line being assembled; false when that would pass max_line. */
static bool line_append(struct client *cl, const char *p, size_t n)
{
	size_t max = cl->ctl->max_line;

	if (cl->len + n > max)
		return false;
	if (cl->len + n > cl->cap) {
		size_t cap = cl->cap ? cl->cap : 1024;
		char *line;

		while (cap < cl->len + n)
			cap *= 2;
		cap = cap < max ? cap : max;
		line = realloc(cl->line, cap);
		if (!line)
			return false;
		cl->line = line;
		cl->cap = cap;
	}
	memcpy(cl->line + cl->len, p, n);
	cl->len += n;
	return true;
}

/* Assembles and handles lines from p[0..n) until a request goes in flight. Returns the bytes
 * used; the rest waits for its answer. */
static size_t client_take(struct client *cl, const char *p, size_t n)
{
	const char *start = p, *end = p + n;
	char msg[96];

	while (p < end && !cl->closing && !cl->call) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);

		if (!cl->discarding && !line_append(cl, p, len)) {
			snprintf(msg, sizeof(msg), "request exceeds %zu bytes", cl->ctl->max_line);
			send_response(cl, NULL, NULL, RPC_EINVALID_REQUEST, msg);
			cl->discarding = true;
			cl->len = 0;
		}
		if (!nl)
			return n;
		if (!cl->discarding)
			handle_line(cl, cl->line ? cl->line : "", cl->len);
		cl->discarding = false;
		cl->len = 0;
		p = nl + 1;
	}
	return (size_t)(p - start);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

/* Keeps what arrived while a request is in flight; pauses reading before held can overflow. */
static void client_hold(struct client *cl, const char *p, size_t n)
{
	if (n > HOLD_CAP - cl->nheld) {
		client_close(cl, "held input overflow"); /* cannot happen: reading pauses first */
		return;
	}
	memcpy(cl->held + cl->nheld, p, n);
	cl->nheld += n;
	if (HOLD_CAP - cl->nheld < READ_CHUNK && !cl->paused) {
		uv_read_stop(&cl->h.stream);
		cl->paused = true;
	}
}

/* After an answer: the held input, up to the next request that goes in flight. */
static void client_take_held(struct client *cl)
{
	size_t used;
	int ret;

	if (cl->closing)
		return;
	used = client_take(cl, cl->held, cl->nheld);
	memmove(cl->held, cl->held + used, cl->nheld - used);
	cl->nheld -= used;
	if (cl->paused && !cl->closing && HOLD_CAP - cl->nheld >= READ_CHUNK) {
		cl->paused = false;
		ret = uv_read_start(&cl->h.stream, on_alloc, on_read);
		if (ret)
			client_close(cl, uv_strerror(ret));
	}
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct client *cl = s->data;
	size_t n = nread > 0 ? (size_t)nread : 0, used;

	if (nread < 0) {
		/* Going away mid-line is fine: the partial request is dropped with the client,
		 * and so are the answer to a request in flight and what was held behind it. */
		client_close(cl, nread == UV_EOF ? NULL : uv_strerror((int)nread));
		return;
	}
	if (nread > 0)
		cl->last_ns = uv_hrtime();
	used = cl->call ? 0 : client_take(cl, buf->base, n);
	if (used < n && !cl->closing)
		client_hold(cl, buf->base + used, n - used);
}

/* Every place is taken: the connection idle longest (other than the new one, and those waiting
 * for an answer) goes. */
static bool make_room(struct control *c, struct client *fresh)
{
	struct client *oldest = NULL;
	char why[96];

	for (struct client *cl = c->clients; cl; cl = cl->next)
		if (cl != fresh && !cl->closing && !cl->call &&
		    (!oldest || cl->last_ns < oldest->last_ns))
			oldest = cl;
	if (!oldest)
		return false;
	snprintf(why, sizeof(why), "%d clients and this one idle longest (%.1f s): making room",
	         MAX_CLIENTS, (double)(uv_hrtime() - oldest->last_ns) / 1e9);
	client_close(oldest, why);
	return true;
}

static void on_sweep(uv_timer_t *t)
{
	struct control *c = t->data;
	uint64_t now = uv_hrtime();

	/* A client waiting for its answer is not idle: its clock starts again at the answer. */
	for (struct client *cl = c->clients; cl; cl = cl->next)
		if (!cl->closing && !cl->call && now - cl->last_ns >= c->idle_ns)
			client_close(cl, "idle for control.idle_timeout_ms");
}

static void on_connection(uv_stream_t *server, int status)
{
	struct control *c = server->data;
	struct client *cl;
	int ret;

	if (status < 0) {
		log_warn("control: accept: %s", uv_strerror(status));
		return;
	}
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		log_err("control: out of memory for a client");
		return;
	}
	if (server == (uv_stream_t *)&c->tcp)
		ret = uv_tcp_init(fecd_loop(c->d), &cl->h.tcp);
	else
		ret = uv_pipe_init(fecd_loop(c->d), &cl->h.pipe, 0);
	if (ret) {
		free(cl);
		log_err("control: %s", uv_strerror(ret));
		return;
	}
	cl->h.handle.data = cl;
	cl->ctl = c;
	cl->serial = ++c->serial;
	cl->authed = server != (uv_stream_t *)&c->tcp;
	cl->last_ns = uv_hrtime();
	cl->next = c->clients;
	if (c->clients)
		c->clients->prev = cl;
	c->clients = cl;
	c->nclients++;
	c->open_handles++;
	ret = uv_accept(server, &cl->h.stream);
	if (ret == 0 && c->nclients > MAX_CLIENTS && !make_room(c, cl)) {
		log_warn("control: more than %d clients; refusing client %u", MAX_CLIENTS,
		         cl->serial);
		ret = UV_EBUSY;
	}
	if (ret == 0)
		ret = uv_read_start(&cl->h.stream, on_alloc, on_read);
	if (ret) {
		client_close(cl, uv_strerror(ret));
		return;
	}
	log_debug("control: client %u connected", cl->serial);
}

/* A socket file left by a fecd that died is removed; one that a live fecd answers on is not, and
 * neither is anything that is not a socket. */
static int clear_stale_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, ret;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		log_err("control: %s exists and is not a socket; not removing it", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? 0 : -errno;
	close(fd);
	if (ret == 0 || ret == -EAGAIN) {
		log_err("control: %s is in use by a running process (another fecd?)", path);
		return -EADDRINUSE;
	}
	log_info("control: removing stale socket %s", path);
	return unlink(path) == 0 || errno == ENOENT ? 0 : -errno;
}

static int listen_unix(struct control *c, const char *path)
{
	mode_t old;
	int ret;

	ret = clear_stale_socket(path);
	if (ret)
		return ret;
	ret = uv_pipe_init(fecd_loop(c->d), &c->pipe, 0);
	if (ret)
		return ret;
	c->pipe.data = c;
	c->have_pipe = true;
	c->open_handles++;
	old = umask(0117); /* the socket is born 0660: no moment when others may connect */
	ret = uv_pipe_bind(&c->pipe, path);
	umask(old);
	if (ret)
		return ret;
	snprintf(c->sock_path, sizeof(c->sock_path), "%s", path);
	if (chmod(path, 0660) != 0)
		log_warn("control: chmod 0660 %s: %s", path, strerror(errno));
	return uv_listen((uv_stream_t *)&c->pipe, 16, on_connection);
}

static int listen_tcp(struct control *c, const char *spec)
{
	char msg[256];
	struct sockaddr_in sa;
	int ret;

	/* The settings table already insists on 127.0.0.1; check again for a hand-built config. */
	if (check_control_tcp(spec, msg, sizeof(msg)) != 0) {
		log_err("control.tcp: expected %s, got \"%s\"", msg, spec);
		return -EINVAL;
	}
	ret = uv_ip4_addr("127.0.0.1", atoi(strchr(spec, ':') + 1), &sa);
	if (ret)
		return ret;
	ret = uv_tcp_init(fecd_loop(c->d), &c->tcp);
	if (ret)
		return ret;
	c->tcp.data = c;
	c->have_tcp = true;
	c->open_handles++;
	ret = uv_tcp_bind(&c->tcp, (const struct sockaddr *)&sa, 0);
	return ret ? ret : uv_listen((uv_stream_t *)&c->tcp, 16, on_connection);
}

static void listener_closed(uv_handle_t *h)
{
	handle_closed(h->data);
}

/* TCP clients need the token: read it from control.token_file, or from beside the socket, or
 * write a fresh one there when there is none. */
static int setup_token(struct control *c, const struct fecd_config *cfg)
{
	char err[512];
	int ret;

	if (cfg->control_token_file[0])
		snprintf(c->token_path, sizeof(c->token_path), "%s", cfg->control_token_file);
	else if (ctl_token_path(cfg->control_socket, c->token_path, sizeof(c->token_path)) != 0)
		return -ENAMETOOLONG;
	ret = ctl_token_read(c->token_path, true, c->token, sizeof(c->token), err, sizeof(err));
	if (ret == -ENOENT) {
		ret = ctl_token_create(c->token_path, c->token, sizeof(c->token), err, sizeof(err));
		c->token_made = ret == 0;
	}
	if (ret) {
		log_err("control.token_file: %s", err);
		return ret;
	}
	log_notice("control: TCP clients authenticate with the token in %s%s", c->token_path,
	           c->token_made ? " (made now)" : "");
	return 0;
}

static int start_sweep(struct control *c, uint32_t idle_ms)
{
	uint64_t every = idle_ms / 4;
	int ret;

	if (!idle_ms)
		return 0;
	every = every < 50 ? 50 : every > SWEEP_MAX_MS ? SWEEP_MAX_MS : every;
	c->idle_ns = (uint64_t)idle_ms * 1000000ull;
	ret = uv_timer_init(fecd_loop(c->d), &c->sweep);
	if (ret)
		return ret;
	c->sweep.data = c;
	c->have_sweep = true;
	c->open_handles++;
	uv_unref((uv_handle_t *)&c->sweep);
	return uv_timer_start(&c->sweep, on_sweep, every, every);
}

int control_start(struct fecd *d, const struct fecd_config *cfg, struct control **out)
{
	struct control *c = calloc(1, sizeof(*c));
	const char *why;
	int ret;

	if (!c)
		return -ENOMEM;
	c->d = d;
	c->max_line = cfg->control_max_line;
	c->max_depth = cfg->control_max_depth;
	c->out_cap = OUT_CAP;
	ret = start_sweep(c, cfg->control_idle_timeout_ms);
	if (ret) {
		log_err("control: cannot start the idle timer: %s", uv_strerror(ret));
		goto out_stop;
	}
	ret = listen_unix(c, cfg->control_socket);
	if (ret) {
		log_err("control: cannot listen on %s: %s", cfg->control_socket, uv_strerror(ret));
		goto out_stop;
	}
	why = config_default_socket_why(cfg->control_socket);
	log_notice("control: listening on unix:%s%s%s%s", cfg->control_socket,
	           why ? " (default: " : "", why ? why : "", why ? ")" : "");
	if (cfg->control_tcp[0]) {
		ret = setup_token(c, cfg);
		if (ret)
			goto out_stop;
		ret = listen_tcp(c, cfg->control_tcp);
		if (ret) {
			log_err("control: cannot listen on tcp:%s: %s", cfg->control_tcp,
			        uv_strerror(ret));
			goto out_stop;
		}
		log_notice("control: listening on tcp:%s", cfg->control_tcp);
	}
	*out = c;
	return 0;
out_stop:
	control_stop(c);
	return ret;
}

void control_stop(struct control *c)
{
	if (!c || c->stopping)
		return;
	c->stopping = true;
	for (struct client *cl = c->clients; cl; cl = cl->next)
		client_close(cl, NULL);
	if (c->have_pipe)
		uv_close((uv_handle_t *)&c->pipe, listener_closed);
	if (c->have_tcp)
		uv_close((uv_handle_t *)&c->tcp, listener_closed);
	if (c->have_sweep)
		uv_close((uv_handle_t *)&c->sweep, listener_closed);
	if (c->sock_path[0])
		unlink(c->sock_path);
	if (c->token_made)
		unlink(c->token_path);
	if (c->open_handles == 0)
		free(c);
}
