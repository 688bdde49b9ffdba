/*
 * Between the JSON-RPC server (control.c: framing, envelope, limits) and the methods (methods.c:
 * one table of names, handlers and parameter summaries). One X-macro table lists the error codes
 * the daemon answers with; -32000..-32099 are fecd's own, each with one meaning.
 */
#ifndef FECD_RPC_H
#define FECD_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fecd.h"

struct cJSON;

#define RPC_ERR_MAP(X)                                                                             \
	X(PARSE, -32700, "parse error")                                                            \
	X(INVALID_REQUEST, -32600, "invalid request")                                              \
	X(METHOD_NOT_FOUND, -32601, "method not found")                                            \
	X(INVALID_PARAMS, -32602, "invalid params")                                                \
	X(INTERNAL, -32603, "internal error")                                                      \
	X(NOT_FOUND, -32000, "channel not found")                                                  \
	X(EXISTS, -32001, "channel already exists (id, name or bound endpoint in use)")            \
	X(REFUSED, -32002, "update refused (a setting that cannot change on a running channel)")   \
	X(FAILED, -32003, "the service could not carry out the operation")                         \
	X(LIMIT, -32004, "limit reached")                                                          \
	X(UNAUTHORIZED, -32005, "not authenticated (TCP control: method auth with the token first)")

enum rpc_err {
#define X(name, code, text) RPC_E##name = code,
	RPC_ERR_MAP(X)
#undef X
};

#define RPC_ERR_COUNT_ONE(name, code, text) +1
enum { RPC_ERR_COUNT = 0 RPC_ERR_MAP(RPC_ERR_COUNT_ONE) };
#undef RPC_ERR_COUNT_ONE

/* Requests and error answers so far (metrics; safe on any thread). A request is a line that
 * reached rpc_prescan; errors are by code, in RPC_ERR_MAP's order, and include requests that
 * failed before rpc_call (invalid JSON: those that passed the prescan and never reached the
 * envelope check). Lines longer than control.max_line are refused before and not counted. */
struct rpc_counters {
	uint64_t requests;
	uint64_t errors[RPC_ERR_COUNT];
};
void rpc_counters_get(struct rpc_counters *out);
/* Counts an error answer (code 0: none). */
void rpc_count_error(int code);

/* Checks a raw request line (n bytes, no '\n') for NUL bytes, invalid UTF-8 and nesting deeper
 * than max_depth. Returns 0 or RPC_EPARSE / RPC_EINVALID_REQUEST with msg set. */
int rpc_prescan(const char *text, size_t n, unsigned max_depth, char *msg, size_t len);
/* Checks a parsed request's envelope. Returns 0 or an RPC_E* code with msg set; *id is the id to
 * answer with (NULL: null) and *notify tells a notification (no "id": no response). */
int rpc_check_envelope(const struct cJSON *req, const struct cJSON **id, bool *notify, char *msg,
                       size_t len);
/* A request line as the control server reads it (n bytes, no '\n'): the white space at its end
 * dropped, rpc_prescan, the JSON parsed with nothing but white space after it, then
 * rpc_check_envelope. *req is the parsed request or NULL (the caller deletes it after answering:
 * *id points into it). 0 with *req NULL: a blank line, answered by nothing; 0 with *req: a
 * request to carry out (*notify: no answer); else an RPC_E* code with msg, answered with *id. */
int rpc_read_request(const char *text, size_t n, unsigned max_depth, struct cJSON **req,
                     const struct cJSON **id, bool *notify, char *msg, size_t len);

/* Calls a method, every step of it on the calling thread (methods that build codes included, under
 * control.build_timeout_ms): for tests and harnesses, which have no loop to come back to. Returns
 * 0 with *result set (caller frees), or an RPC_E* code with msg saying what was wrong and what
 * was expected. params may be NULL (absent). */
int rpc_call(struct fecd *d, const char *method, const struct cJSON *params, struct cJSON **result,
             char *msg, size_t msglen);

/* The end of a call that went on off the loop thread: code and msg as rpc_call's, result (0:
 * the callee's to free) or NULL. On the loop thread. */
typedef void (*rpc_done_fn)(void *arg, int code, struct cJSON *result, const char *msg);

/* Calls a method from the loop thread (control.c). A cheap method runs here: *pending false,
 * and the return value, *result and msg are as rpc_call's. A method that builds codes
 * (channel.create, channel.update) goes on off the loop thread: 0 with *pending true, and
 * done(arg, ...) is called on the loop thread once it has been applied or refused, whatever
 * became of the caller meanwhile (arg must outlive it; the caller may ignore the answer). */
int rpc_start(struct fecd *d, const char *method, const struct cJSON *params, rpc_done_fn done,
              void *arg, bool *pending, struct cJSON **result, char *msg, size_t len);

/* Writes the methods and error codes as Markdown (the README's control reference). Returns 0 or
 * -EIO. */
int rpc_write_markdown(FILE *f);

#endif
