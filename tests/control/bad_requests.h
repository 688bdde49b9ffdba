/*
 * The table of bad control requests test_rpc.c sends: each line, the JSON-RPC error code it must
 * get, and a phrase its message must contain. The running daemon has one channel, id 1 "c1", on
 * ports @P1@ (input) and @P2@ (output) of 127.0.0.1, with control.max_line 4096 and
 * control.max_depth 8. @Pn@ in a line (of length 0: a string) or a phrase stands for the test's
 * n-th port (test_rpc.c's port(n)); @P8@ and @P9@ are bound by nothing.
 */
#ifndef FECD_TEST_BAD_REQUESTS_H
#define FECD_TEST_BAD_REQUESTS_H

#include <stddef.h>

struct bad_req {
	const char *name;
	const char *line; /* sent as is, then '\n' */
	size_t len;       /* 0: strlen(line) */
	int code;
	const char *phrase;
};

#define REQ(method, params)                                                                        \
	"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"" method "\",\"params\":" params "}"

static const struct bad_req bad_reqs[] = {
    {"truncated JSON", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"channel.li", 0, -32700,
     "invalid JSON at offset"},
    {"invalid JSON", "{\"jsonrpc\":\"2.0\",}", 0, -32700, "invalid JSON at offset"},
    {"not JSON", "hello", 0, -32700, "invalid JSON"},
    {"trailing text", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"channel.list\"} x", 0, -32700,
     "unexpected text after the request"},
    {"wrong version", "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"channel.list\"}", 0, -32600,
     "jsonrpc: expected \"2.0\", got \"1.0\""},
    {"no version", "{\"id\":1,\"method\":\"channel.list\"}", 0, -32600,
     "jsonrpc: expected \"2.0\", got nothing"},
    {"empty object", "{}", 0, -32600, "jsonrpc: expected \"2.0\""},
    {"scalar request", "42", 0, -32600, "expected a request object, got 42"},
    {"batch", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"channel.list\"}]", 0, -32600,
     "batch requests are not supported"},
    {"unknown member", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"channel.list\",\"parms\":{}}", 0,
     -32600, "unknown member \"parms\""},
    {"member twice", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"method\":\"channel.list\"}",
     0, -32600, "member \"method\" given twice"},
    {"method not a string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", 0, -32600,
     "method: expected a method name (a string), got 5"},
    {"id object", "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"channel.list\"}", 0, -32600,
     "id: expected a string, an integer"},
    {"id 1e400", "{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"channel.list\"}", 0, -32600,
     "id: expected a string, an integer of magnitude <= 2^53 or null, got a number too large"},
    {"id fraction", "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"channel.list\"}", 0, -32600,
     "id: expected a string, an integer"},
    {"unknown method", REQ("channel.frobnicate", "{}"), 0, -32601,
     "method not found: \"channel.frobnicate\" (methods: auth, channel.list, channel.get"},
    {"params array", REQ("channel.get", "[1]"), 0, -32602,
     "params: expected an object of named parameters, got an array"},
    {"params string", REQ("channel.get", "\"x\""), 0, -32602,
     "params: expected an object of named parameters, got \"x\""},
    {"id as string", REQ("channel.get", "{\"id\":\"1\"}"), 0, -32602,
     "params.id: expected a channel id, an integer in 0..4294967295, got \"1\""},
    {"id negative", REQ("channel.get", "{\"id\":-1}"), 0, -32602,
     "params.id: expected a channel id, an integer in 0..4294967295, got -1"},
    {"id 2^64", REQ("channel.get", "{\"id\":18446744073709551616}"), 0, -32602,
     "params.id: expected a channel id, an integer in 0..4294967295, got 1.8446744073709552e+19"},
    {"id 1e400", REQ("stats.get", "{\"id\":1e400}"), 0, -32602,
     "params.id: expected a channel id, an integer in 0..4294967295, got a number too large"},
    {"name not a string", REQ("channel.get", "{\"name\":5}"), 0, -32602,
     "params.name: expected a channel name (a string), got 5"},
    {"no selector", REQ("channel.get", "{}"), 0, -32602, "params: expected \"id\""},
    {"unknown key", REQ("channel.get", "{\"id\":1,\"verbose\":true}"), 0, -32602,
     "params: unknown key \"verbose\" (valid keys: id, name)"},
    {"params to none", REQ("channel.list", "{\"x\":1}"), 0, -32602,
     "params: unknown key \"x\" (channel.list takes no parameters)"},
    {"unknown channel", REQ("channel.get", "{\"id\":999}"), 0, -32000,
     "channel not found: no channel has id 999 (channels: 1 \"c1\")"},
    {"unknown name", REQ("channel.delete", "{\"name\":\"nope\"}"), 0, -32000,
     "channel not found: no channel is named \"nope\""},
    {"id and name differ", REQ("channel.get", "{\"id\":1,\"name\":\"c2\"}"), 0, -32000,
     "no channel is named \"c2\""},
    {"create without params", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"channel.create\"}", 0,
     -32602, "channel.create needs parameters"},
    {"create without id", REQ("channel.create", "{\"name\":\"x\"}"), 0, -32602,
     "params: missing required key \"id\""},
    {"duplicate create",
     REQ("channel.create", "{\"id\":1,\"name\":\"other\",\"input\":{\"endpoint\":"
                           "\"tcp://127.0.0.1:@P8@\"},\"output\":{\"endpoint\":"
                           "\"tcp://127.0.0.1:@P9@\"}}"),
     0, -32001, "params.id: 1 is already the id of channel \"c1\""},
    {"duplicate name",
     REQ("channel.create", "{\"id\":9,\"name\":\"c1\",\"input\":{\"endpoint\":"
                           "\"tcp://127.0.0.1:@P8@\"},\"output\":{\"endpoint\":"
                           "\"tcp://127.0.0.1:@P9@\"}}"),
     0, -32001, "params.name: \"c1\" is already the name of channel \"c1\""},
    {"duplicate endpoint",
     REQ("channel.create", "{\"id\":9,\"input\":{\"endpoint\":"
                           "\"tcp://127.0.0.1:@P1@\"},\"output\":{\"endpoint\":"
                           "\"tcp://127.0.0.1:@P9@\"}}"),
     0, -32001,
     "params.input.endpoint: \"tcp://127.0.0.1:@P1@\" is already bound by channel \"c1\""},
    {"bad code param", REQ("channel.create", "{\"id\":9,\"code\":{\"preset\":\"ccsds\",\"k\":12}}"),
     0, -32602, "params.code.k: expected an integer in 3..9, got 12"},
    {"unknown code param",
     REQ("channel.create", "{\"id\":9,\"code\":{\"preset\":\"ccsds\",\"q\":1}}"), 0, -32602,
     "params.code: unknown viterbi parameter \"q\""},
    {"bad preset", REQ("channel.create", "{\"id\":9,\"code\":{\"preset\":\"ccsd\"}}"), 0, -32602,
     "params.code.preset: unknown preset \"ccsd\" (did you mean \"ccsds\"?); expected one of "
     "\"ccsds\""},
    {"bad batch", REQ("channel.create", "{\"id\":9,\"batch\":{\"jobs\":100000}}"), 0, -32602,
     "params.batch.jobs: expected an integer in 0..4096, got 100000"},
    {"update endpoint",
     REQ("channel.update", "{\"id\":1,\"input\":{\"endpoint\":"
                           "\"tcp://127.0.0.1:@P8@\"}}"),
     0, -32002, "update refused: input.endpoint cannot change on a running channel"},
    {"update socket", REQ("channel.update", "{\"id\":1,\"output\":{\"socket\":\"pub\"}}"), 0,
     -32002, "update refused: output.socket cannot change"},
    {"update typo", REQ("channel.update", "{\"id\":1,\"batch\":{\"jbos\":3}}"), 0, -32602,
     "params.batch: unknown key \"jbos\" (valid keys: jobs, deadline_ms, inflight)"},
    {"update bad code", REQ("channel.update", "{\"id\":1,\"code\":{\"polys\":[\"171\",\"9\"]}}"), 0,
     -32602, "params.code.polys[1]: expected an octal number"},
    {"update at_seq 2^64", REQ("channel.update", "{\"id\":1,\"at_seq\":18446744073709551616}"), 0,
     -32602, "params.at_seq: expected a sender sequence number"},
    {"update at_seq negative", REQ("channel.update", "{\"id\":1,\"at_seq\":-5}"), 0, -32602,
     "params.at_seq: expected a sender sequence number"},
    {"deep nesting", REQ("channel.list", "{\"a\":[[[[[[[[[[1]]]]]]]]]]}"), 0, -32600,
     "nesting deeper than 8"},
    {"binary garbage", "\xff\xfe\x01\x02\x80garbage\x7f", 0, -32700, "is not UTF-8"},
    {"bad UTF-8 in a string", REQ("channel.get", "{\"name\":\"\xc3\x28\"}"), 0, -32700,
     "is not UTF-8"},
    {"embedded NUL", "{\"jsonrpc\":\"2.0\",\"id\":1,\0\"method\":\"channel.list\"}", 49, -32700,
     "NUL byte at offset 24"},
};

#endif
