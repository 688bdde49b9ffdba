/*
 * fecdctl: calls one JSON-RPC method of a running fecd and prints the result.
 *
 *   fecdctl [-c FILE] [--socket PATH | --tcp HOST:PORT [--token-file FILE]] [--timeout SECONDS]
 *           [--watch SECONDS] METHOD [PARAMS-JSON]
 *
 * The result is printed as indented JSON on stdout (exit 0); with --watch the method is called
 * every SECONDS and each channel's counters printed as rates per second, one line per channel
 * per call (fecdctl_watch.c), until interrupted or a call fails. A JSON-RPC error is printed as
 * "fecdctl: error CODE: MESSAGE" on stderr (exit 1). Usage errors, PARAMS-JSON that is not a JSON
 * object (checked here before anything is sent), and connection problems exit 2.
 * Without --socket or --tcp the socket is the one fecd's configuration file names (-c FILE:
 * control.socket), else found by the daemon's own rule (daemon/control/ctlpath.c). Over TCP the
 * connection first authenticates with the control token (daemon/control/ctltoken.h): from
 * --token-file, else -c's control.token_file, else $FECD_TOKEN_FILE, else the file beside the
 * default control socket.
 *
 * Build note: this file needs daemon/control/ctlpath.c and ctltoken.c as extra sources, and that
 * folder on its include path (clients/CMakeLists.txt).
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "client_config.h"
#include "ctlpath.h"
#include "ctltoken.h"
#include "fecdctl_watch.h"

#define EXIT_RPC_ERROR 1
#define EXIT_TROUBLE   2

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: fecdctl [-c FILE] [--socket PATH | --tcp HOST:PORT [--token-file FILE]]\n"
	        "               [--timeout SECONDS] [--watch SECONDS] METHOD [PARAMS-JSON]\n"
	        "  calls one JSON-RPC method of fecd and prints the result as JSON\n"
	        "  -c, --config FILE  fecd's configuration file: its control.socket (and, with\n"
	        "        --tcp, its control.token_file)\n"
	        "  --watch SECONDS  call the method every SECONDS and print each channel's\n"
	        "        counters as rates per second (stats.get), until interrupted\n"
	        "  --tcp authenticates with the control token: --token-file, else\n"
	        "        $FECD_TOKEN_FILE, else the file beside the default control socket\n"
	        "  methods: auth, channel.list, channel.get, channel.create, channel.update,\n"
	        "           channel.delete, channel.reset, stats.get, backend.info, codes.list,\n"
	        "           config.get, methods.list\n"
	        "  example: fecdctl channel.update '{\"id\": 1, \"batch\": {\"jobs\": 32}}'\n"
	        "  exit: 0 result printed, 1 fecd answered with an error, 2 usage or connection "
	        "problem\n");
}

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* -1 with errno set, or with *gai set to getaddrinfo's message. */
static int connect_tcp(const char *spec, const char **gai)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
	const char *colon = strrchr(spec, ':');
	char host[256];
	int fd = -1, ret;

	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(host)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	ret = getaddrinfo(host, colon + 1, &hints, &res);
	if (ret) {
		*gai = gai_strerror(ret);
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

static int send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads up to the first '\n'. Returns the line (malloc'd) or NULL with *why set. */
static char *read_line(int fd, int timeout_ms, const char **why)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap), *nl;

	while (buf) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int pr = poll(&pfd, 1, timeout_ms);
		ssize_t n;

		if (pr == 0) {
			*why = "no response before the timeout";
			break;
		}
		if (pr < 0 && errno == EINTR)
			continue;
		if (len == cap) {
			char *b = realloc(buf, cap * 2);

			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		n = pr < 0 ? -1 : recv(fd, buf + len, cap - len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*why = n == 0 ? "fecd closed the connection before answering"
			              : strerror(errno);
			break;
		}
		nl = memchr(buf + len, '\n', (size_t)n);
		len += (size_t)n;
		if (nl) {
			*nl = '\0';
			return buf;
		}
	}
	if (!buf)
		*why = "out of memory";
	free(buf);
	return NULL;
}

/* Indented two spaces a level; arrays of plain values stay on one line, as people write them. */
static void print_json(const cJSON *v, int depth)
{
	bool flat = cJSON_IsArray(v);
	char *text;

	for (const cJSON *c = v->child; flat && c; c = c->next)
		flat = !cJSON_IsArray(c) && !cJSON_IsObject(c);
	if (flat && v->child) {
		putchar('[');
		for (const cJSON *c = v->child; c; c = c->next) {
			print_json(c, depth);
			fputs(c->next ? ", " : "]", stdout);
		}
		return;
	}
	if ((!cJSON_IsArray(v) && !cJSON_IsObject(v)) || !v->child) {
		text = cJSON_PrintUnformatted(v);
		fputs(text ? text : "null", stdout);
		cJSON_free(text);
		return;
	}
	putchar(cJSON_IsArray(v) ? '[' : '{');
	for (const cJSON *c = v->child; c; c = c->next) {
		printf("\n%*s", 2 * (depth + 1), "");
		if (cJSON_IsObject(v)) {
			cJSON key = {.type = cJSON_String, .valuestring = c->string};

			print_json(&key, depth + 1);
			fputs(": ", stdout);
		}
		print_json(c, depth + 1);
		if (c->next)
			putchar(',');
	}
	printf("\n%*s%c", 2 * depth, "", cJSON_IsArray(v) ? ']' : '}');
}

/* PARAMS-JSON must be one JSON object; says what is wrong and where before anything is sent.
 * NULL when it is not. */
static cJSON *parse_params(const char *text)
{
	const char *end = NULL;
	cJSON *p = cJSON_ParseWithOpts(text, &end, 1);

	if (!p) {
		size_t off = end && end >= text ? (size_t)(end - text) : 0;

		if (off >= strlen(text))
			fprintf(stderr,
			        "fecdctl: PARAMS-JSON: invalid JSON near its end (offset %zu)\n",
			        off);
		else
			fprintf(stderr,
			        "fecdctl: PARAMS-JSON: invalid JSON at offset %zu: %.20s%s\n", off,
			        text + off, strlen(text) > off + 20 ? "..." : "");
		return NULL;
	}
	if (!cJSON_IsObject(p)) {
		fprintf(stderr,
		        "fecdctl: PARAMS-JSON: expected a JSON object of named parameters "
		        "({\"id\": 1}), got %s\n",
		        cJSON_IsArray(p) ? "an array" : "a single value");
		cJSON_Delete(p);
		return NULL;
	}
	return p;
}

/* The token for --tcp: from --token-file, $FECD_TOKEN_FILE, or beside the default socket. */
static int find_token(const char *file, char *token, size_t len)
{
	char path[160], sock[128], err[512];

	if (!file)
		file = getenv("FECD_TOKEN_FILE");
	if (!file || !*file) {
		if (fecd_control_path_default(sock, sizeof(sock), false, NULL) != 0 ||
		    ctl_token_path(sock, path, sizeof(path)) != 0) {
			fprintf(stderr,
			        "fecdctl: no default control token path; use --token-file\n");
			return -1;
		}
		file = path;
	}
	if (ctl_token_read(file, false, token, len, err, sizeof(err)) != 0) {
		fprintf(stderr, "fecdctl: %s (--token-file names another file)\n", err);
		return -1;
	}
	return 0;
}

/* Sends the auth request first; 0 when fecd accepted the token. */
static int authenticate(int fd, const char *where, const char *token, int timeout_ms)
{
	cJSON *req = cJSON_CreateObject(), *resp, *err, *msg;
	const char *why = NULL;
	char *text, *line;
	int rc = -1;

	cJSON_AddStringToObject(req, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(req, "id", 0);
	cJSON_AddStringToObject(req, "method", "auth");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(req, "params"), "token", token);
	text = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	if (!text || send_all(fd, text, strlen(text)) != 0 || send_all(fd, "\n", 1) != 0) {
		fprintf(stderr, "fecdctl: sending to %s: %s\n", where,
		        text ? strerror(errno) : "out of memory");
		cJSON_free(text);
		return -1;
	}
	cJSON_free(text);
	line = read_line(fd, timeout_ms, &why);
	if (!line) {
		fprintf(stderr, "fecdctl: %s: %s\n", where, why);
		return -1;
	}
	resp = cJSON_Parse(line);
	err = cJSON_GetObjectItemCaseSensitive(resp, "error");
	msg = cJSON_GetObjectItemCaseSensitive(err, "message");
	if (err)
		fprintf(stderr, "fecdctl: %s refused the control token: %s\n", where,
		        cJSON_IsString(msg) ? msg->valuestring : "(no message)");
	else if (!cJSON_GetObjectItemCaseSensitive(resp, "result"))
		fprintf(stderr, "fecdctl: not a JSON-RPC response: %.200s\n", line);
	else
		rc = 0;
	cJSON_Delete(resp);
	free(line);
	return rc;
}

/* One call: connect (and authenticate over TCP), send the request, read the answer. Returns 0
 * with the parsed response in *resp (the caller deletes it) and its result in *result, or
 * EXIT_RPC_ERROR or EXIT_TROUBLE after printing why. params stay the caller's. */
static int call(const char *sock, const char *tcp, const char *token, const char *method,
                const cJSON *params, double timeout_s, cJSON **resp, cJSON **result)
{
	const char *why = NULL, *gai = NULL;
	cJSON *req, *err;
	char *text, *line;
	int fd, rc;

	*resp = *result = NULL;
	fd = tcp ? connect_tcp(tcp, &gai) : connect_unix(sock);
	if (fd < 0) {
		fprintf(stderr, "fecdctl: cannot connect to %s: %s (is fecd running? %s)\n",
		        tcp ? tcp : sock, gai ? gai : strerror(errno),
		        tcp ? "--tcp takes HOST:PORT" : "--socket PATH names another socket");
		return EXIT_TROUBLE;
	}
	if (tcp && authenticate(fd, tcp, token, (int)(timeout_s * 1000)) != 0) {
		close(fd);
		return EXIT_TROUBLE;
	}
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(req, "id", 1);
	cJSON_AddStringToObject(req, "method", method);
	if (params)
		cJSON_AddItemReferenceToObject(req, "params", (cJSON *)params);
	text = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	if (!text || send_all(fd, text, strlen(text)) != 0 || send_all(fd, "\n", 1) != 0) {
		fprintf(stderr, "fecdctl: sending to %s: %s\n", tcp ? tcp : sock,
		        text ? strerror(errno) : "out of memory");
		cJSON_free(text);
		close(fd);
		return EXIT_TROUBLE;
	}
	cJSON_free(text);

	line = read_line(fd, (int)(timeout_s * 1000), &why);
	close(fd);
	if (!line) {
		fprintf(stderr, "fecdctl: %s: %s\n", tcp ? tcp : sock, why);
		return EXIT_TROUBLE;
	}
	*resp = cJSON_Parse(line);
	err = cJSON_GetObjectItemCaseSensitive(*resp, "error");
	*result = cJSON_GetObjectItemCaseSensitive(*resp, "result");
	if (err) {
		cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");
		cJSON *msg = cJSON_GetObjectItemCaseSensitive(err, "message");

		fprintf(stderr, "fecdctl: error %d: %s\n",
		        cJSON_IsNumber(code) ? code->valueint : 0,
		        cJSON_IsString(msg) ? msg->valuestring : "(no message)");
		rc = EXIT_RPC_ERROR;
	} else if (!*result) {
		fprintf(stderr, "fecdctl: not a JSON-RPC response: %.200s\n", line);
		rc = EXIT_TROUBLE;
	} else {
		rc = 0;
	}
	free(line);
	return rc;
}

/* --watch: calls the method every period, and prints each channel's counters as rates per
 * second over the last period (fecdctl_watch.c), until interrupted or a call fails. */
static int watch(const char *sock, const char *tcp, const char *token, const char *method,
                 const cJSON *params, double timeout_s, double period_s)
{
	struct watch_state st = {0};
	int rc;

	for (;;) {
		cJSON *resp, *result;
		struct timespec ts = {(time_t)period_s,
		                      (long)((period_s - (double)(time_t)period_s) * 1e9)};

		rc = call(sock, tcp, token, method, params, timeout_s, &resp, &result);
		if (rc == 0)
			watch_print(&st, result, stdout);
		cJSON_Delete(resp);
		if (rc || fflush(stdout))
			break;
		nanosleep(&ts, NULL);
	}
	watch_free(&st);
	return rc ? rc : EXIT_TROUBLE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"socket", required_argument, NULL, 's'},  {"tcp", required_argument, NULL, 't'},
	    {"timeout", required_argument, NULL, 'T'}, {"token-file", required_argument, NULL, 'k'},
	    {"help", no_argument, NULL, 'h'},          {"config", required_argument, NULL, 'c'},
	    {"watch", required_argument, NULL, 'w'},   {0}};
	static struct client_config cfg; /* -c: its paths outlive the options pointing at them */
	const char *config = NULL;
	const char *sock = NULL, *tcp = NULL, *method, *token_file = NULL;
	char path[128], token[CTL_TOKEN_MAX + 1] = "", *end;
	cJSON *params = NULL, *resp, *result;
	double timeout_s = 30, watch_s = 0;
	int c, rc;

	while ((c = getopt_long(argc, argv, "s:t:T:k:hc:w:", opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			watch_s = strtod(optarg, &end);
			if (*end || !(watch_s >= 0.1 && watch_s <= 86400)) {
				fprintf(stderr,
				        "fecdctl: --watch: expected seconds in [0.1, 86400], got "
				        "'%s'\n",
				        optarg);
				return EXIT_TROUBLE;
			}
			break;
		case 'c':
			config = optarg;
			break;
		case 's':
			sock = optarg;
			break;
		case 't':
			tcp = optarg;
			break;
		case 'T':
			timeout_s = strtod(optarg, &end);
			if (*end || !(timeout_s > 0 && timeout_s <= 86400)) {
				fprintf(stderr,
				        "fecdctl: --timeout: expected seconds in (0, 86400], "
				        "got '%s'\n",
				        optarg);
				return EXIT_TROUBLE;
			}
			break;
		case 'k':
			token_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_TROUBLE;
		}
	}
	if (sock && tcp) {
		fprintf(stderr, "fecdctl: give --socket or --tcp, not both\n");
		return EXIT_TROUBLE;
	}
	if (config) {
		if (client_config_read(config, 1, &cfg, "fecdctl"))
			return EXIT_TROUBLE;
		if (!sock && !tcp && cfg.socket[0])
			sock = cfg.socket;
		if (tcp && !token_file && cfg.token_file[0])
			token_file = cfg.token_file;
	}
	if (argc - optind < 1 || argc - optind > 2) {
		usage(stderr);
		return EXIT_TROUBLE;
	}
	method = argv[optind];
	if (argc - optind == 2) {
		params = parse_params(argv[optind + 1]);
		if (!params)
			return EXIT_TROUBLE;
	}

	if (token_file && !tcp) {
		fprintf(stderr, "fecdctl: --token-file goes with --tcp (the Unix socket needs no "
		                "token)\n");
		return EXIT_TROUBLE;
	}
	if (tcp && find_token(token_file, token, sizeof(token)) != 0)
		return EXIT_TROUBLE;
	if (!sock && !tcp) {
		if (fecd_control_path_default(path, sizeof(path), false, NULL) != 0) {
			fprintf(stderr, "fecdctl: no usable default socket path; use --socket\n");
			return EXIT_TROUBLE;
		}
		sock = path;
	}
	if (watch_s > 0)
		return watch(sock, tcp, token, method, params, timeout_s, watch_s);
	rc = call(sock, tcp, token, method, params, timeout_s, &resp, &result);
	if (rc == 0) {
		print_json(result, 0);
		putchar('\n');
		rc = fflush(stdout) == 0 ? 0 : EXIT_TROUBLE;
	}
	cJSON_Delete(resp);
	cJSON_Delete(params);
	return rc;
}
