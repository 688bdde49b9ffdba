/*
 * The two settings tables (global and per channel), their defaults, the validators of their string
 * values, and the Markdown reference written from them. The JSON side of the tables lives in
 * settings_json.c; code parameters come from the codec's family tables (code_json.c).
 *
 * Bounds, and why:
 *   control.max_line 256..16 MiB: a channel.create request is ~1 KiB; the cap bounds the memory
 *     one client can hold.
 *   control.max_depth 4..64: a channel object nests 4 deep in a request (params.input.gnuradio).
 *   control.idle_timeout_ms 0..1 day, 60 s by default: fecdctl says what it has to say at once,
 *     and a script that keeps a connection open can send a blank line now and then; an idle
 *     connection otherwise holds one of the 64 places.
 *   control.build_timeout_ms 1 s..10 min, default 20 s: the largest shipped codes (the DVB-S2
 *     presets, 64800 columns) build with their decoder in 0.25 s on a busy 2-core machine, 80
 *     times within the default, and generated codes up to n = 2^18 (regular) or 10^4 (PEG) in
 *     under 10 s; while the limit stops what takes longer (on the same machine a regular code
 *     at n = 2^20 took 140 s to check and as long again for its decoder, PEG at 10^5 had not
 *     finished after 10 min). Shutdown waits for a build in flight, so the default stays well
 *     under the unit's TimeoutStopSec (30 s).
 *   workers 0..1024 (0 = one per core); linger_ms up to 10 min; stats_interval_ms 100 ms..60 s.
 *   gpu.device 0..63 (CUDA's device numbering); gpu.lanes 0..16 (0 = the device's default):
 *     beyond a few streams per channel nothing more overlaps.
 *   zmq.io_threads 0..64 (0 = half the cores, 1..8): one I/O thread moves about 1-2 GB/s of
 *     loopback TCP, so several busy channels need several.
 *   loop_threads 0..64 (0 = a quarter of the cores, 1..8): one loop thread converts and batches
 *     about 1-1.5 Gb/s of decoded output (H200 box, fecd-bench), so connections need their own.
 *   input/output.hwm 0..10^7 messages (0 = ZMQ's "no limit").
 *   input.llr_scale 0.001..1000: float LLRs of a few units up to raw ADC-like magnitudes.
 *   input.idle_flush_ms 0..1 h (0 = never), 500 by default: a GNU Radio raw stream never sends
 *     END_OF_STREAM, so without it the last traceback_len bits of a stream that stops would wait
 *     forever. It is 25 times batch.deadline_ms's default and far above the gap between a live
 *     sender's messages (milliseconds), because a flush inside a stream that only slowed down
 *     decodes the bits before it with a truncated traceback; half a second is still a short wait
 *     for the tail of a pass.
 *   batch.jobs 0..4096 jobs (0 = the backend's choice: a GPU wants a thousand, the CPU tens);
 *   batch.deadline_ms 1..10000; batch.inflight 0..16 batches (0 = the backend's choice; 2 =
 *   double buffering; more only adds latency).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fec.h"
#include "log.h"
#include "settings.h"

#define G(field) offsetof(struct fecd_config, field), sizeof(((struct fecd_config *)0)->field)
#define C(field) offsetof(struct chan_config, field), sizeof(((struct chan_config *)0)->field)

static int check_socket_path(const char *text, char *err, size_t errlen);
static int check_token_file(const char *text, char *err, size_t errlen);
static int check_backend(const char *text, char *err, size_t errlen);
static int check_log_level(const char *text, char *err, size_t errlen);
static int check_codes_dir(const char *text, char *err, size_t errlen);
static int check_metrics_listen(const char *text, char *err, size_t errlen);
static int check_key_path(const char *text, char *err, size_t errlen);

static const struct setting_choice in_socks[] = {{"pull", SOCK_PULL}, {"sub", SOCK_SUB}, {0}};
static const struct setting_choice out_socks[] = {{"push", SOCK_PUSH}, {"pub", SOCK_PUB}, {0}};
static const struct setting_choice in_protos[] = {
    {"native", IN_NATIVE}, {"gnuradio", IN_GNURADIO}, {0}};
static const struct setting_choice out_protos[] = {{"native", OUT_NATIVE}, {"pdu", OUT_PDU}, {0}};
static const struct setting_choice gr_formats[] = {
    {"f32", FECD_FMT_F32_LLR}, {"s8", FECD_FMT_S8_LLR}, {"u8", FECD_FMT_U8_OFFSET}, {0}};
static const struct setting_choice gr_tags[] = {
    {"auto", GR_TAGS_AUTO}, {"on", GR_TAGS_ON}, {"off", GR_TAGS_OFF}, {0}};
static const struct setting_choice polarities[] = {{"zero", 0}, {"one", 1}, {0}};
static const struct setting_choice code_paths[] = {
    {"codes_dir", FEC_PATHS_CODES_DIR}, {"any", FEC_PATHS_ANY}, {0}};

const struct setting fecd_global_settings[] = {
    {"control.socket", SET_STRING, G(control_socket), .check = check_socket_path,
     .def = "see below", .flags = SET_COMPUTED,
     .help = "Unix socket for JSON-RPC control (absolute path, created mode 0660)"},
    {"control.tcp", SET_STRING, G(control_tcp), .check = check_control_tcp, .def = "",
     .help = "also listen for JSON-RPC on TCP 127.0.0.1:PORT; empty: no TCP (loopback only)"},
    {"control.max_line", SET_U32, G(control_max_line), 256, 16u << 20, .def = "65536",
     .help = "longest JSON-RPC request line in bytes; longer lines get error -32600"},
    {"control.max_depth", SET_U32, G(control_max_depth), 4, 64, .def = "16",
     .help = "deepest JSON nesting accepted in a request"},
    {"control.idle_timeout_ms", SET_U32, G(control_idle_timeout_ms), 0, 86400000, .def = "60000",
     .help = "a control connection that sends nothing for this long is closed (one with a "
             "request in progress is not); 0: never. When all 64 places are taken, the "
             "connection idle longest makes room for a new one"},
    {"control.token_file", SET_STRING, G(control_token_file), .check = check_token_file,
     .def = "", .help = "TCP control's token: TCP clients send it (method auth) before any other "
                        "request; fecd reads the file, or writes a fresh random token there (mode "
                        "0640) when it does not exist; empty: the control socket's path with "
                        "\".token\" for \".sock\""},
    {"control.build_timeout_ms", SET_U32, G(control_build_timeout_ms), 1000, 600000, .def = "20000",
     .flags = SET_LIVE,
     .help = "longest one channel's code may take to build (generated or read from a file, with "
             "its decoder), off the loop thread; a channel.create, channel.update or reload that "
             "takes longer fails with an error saying so"},
    {"backend", SET_STRING, G(backend), .check = check_backend, .def = "auto",
     .help = "decoder backend: auto (the GPU where CUDA works, else the CPU), cuda (the same, "
             "meant for a GPU), cpu"},
    {"workers", SET_U32, G(workers), 0, 1024, .def = "0",
     .help = "CPU decoder threads (CPU backend, and the GPU backend's CPU fallback); 0: one per "
             "available core"},
    {"gpu.device", SET_U32, G(gpu_device), 0, 63, .def = "0",
     .help = "CUDA device index the GPU backend uses (fecd --print-devices lists them)"},
    {"gpu.lanes", SET_U32, G(gpu_lanes), 0, 16, .def = "0",
     .help = "CUDA streams per channel, each with its own buffers (batches in flight overlap); "
             "0: chosen from the device (copy engines, SMs)"},
    {"zmq.io_threads", SET_U32, G(io_threads), 0, 64, .def = "0",
     .help = "ZeroMQ I/O threads moving the channels' bytes (each input socket gets its own while "
             "there are enough); 0: half the available cores, 1..8"},
    {"loop_threads", SET_U32, G(loop_threads), 0, 64, .def = "0",
     .help = "data-path loop threads, each receiving, batching and publishing its share of the "
             "channels (control stays on the main loop); 0: a quarter of the available cores, 1..8; "
             "1: every channel on the main loop"},
    {"log_level", SET_STRING, G(log_level), .check = check_log_level, .def = "info",
     .flags = SET_LIVE, .help = "most verbose level logged: error, warning, notice, info, debug"},
    {"codes_dir", SET_STRING, G(codes_dir), .check = check_codes_dir, .def = "", .flags = SET_LIVE,
     .help = "folder of LDPC code files: code presets and relative code paths are read there; "
             "empty: $FECD_CODES_DIR, else /usr/share/fecd/codes; a change applies to codes "
             "loaded after it"},
    {"codes_paths", SET_ENUM, G(codes_paths), .choices = code_paths, .def = "codes_dir",
     .flags = SET_LIVE,
     .help = "which LDPC code files a channel's code may name: codes_dir (paths relative to "
             "codes_dir that stay inside it, links followed; no absolute paths, no \"..\") or "
             "any (also absolute paths and paths leading out of it: any file fecd can read)"},
    {"linger_ms", SET_U32, G(linger_ms), 0, 600000, .def = "5000",
     .help = "on shutdown, how long decoded output may take to leave before it is dropped"},
    {"stats_interval_ms", SET_U32, G(stats_interval_ms), 100, 60000, .def = "1000",
     .help = "throughput measurement window and systemd STATUS= update period"},
    {"metrics.listen", SET_STRING, G(metrics_listen), .check = check_metrics_listen, .def = "",
     .help = "serve Prometheus metrics over HTTP on HOST:PORT (numeric IPv4, or IPv6 in brackets: "
             "127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464); empty: off. No authentication: keep it on "
             "loopback or behind a firewall"},
    {"channels", SET_CHANNELS, G(channels), .def = "one channel, see below", .flags = SET_COMPUTED,
     .help = "the channels: an array of channel objects (below)"},
    {0}};

const struct setting fecd_chan_settings[] = {
    {"id", SET_U32, C(id), 0, 4294967295.0, .def = "required", .flags = SET_REQUIRED,
     .help = "channel number on the wire (native input and output headers); unique"},
    {"name", SET_STRING, C(name), .check = check_channel_name, .def = "`ch<id>`",
     .flags = SET_COMPUTED, .help = "unique name, 1-63 of A-Z a-z 0-9 _ . -"},
    {"code", SET_CODE, C(spec), .def = "`{\"preset\":\"ccsds\"}`", .flags = SET_COMPUTED | SET_LIVE,
     .help = "the code: {\"preset\":NAME, ...overrides} or {\"family\":NAME, ...parameters}"},
    {"input.endpoint", SET_STRING, C(in.endpoint), .check = check_endpoint,
     .def = "tcp://127.0.0.1:5550", .help = "ZMQ endpoint the soft symbols arrive on"},
    {"input.socket", SET_ENUM, C(in.kind), .choices = in_socks, .def = "pull",
     .help = "pull (lossless, senders block) or sub (lossy, gaps counted)"},
    {"input.bind", SET_BOOL, C(in.bind), .def = "true",
     .help = "bind the endpoint (true) or connect to it (false)"},
    {"input.hwm", SET_U32, C(in.hwm), 0, 10000000, .def = "1000",
     .help = "ZMQ receive high-water mark in messages; 0: no limit"},
    {"input.protocol", SET_ENUM, C(in_proto), .choices = in_protos, .def = "native",
     .help = "native fecd messages, or gnuradio: raw gr-zeromq items"},
    {"input.curve.secret_key_file", SET_STRING, C(in.curve.secret_key_file),
     .check = check_key_path, .def = "",
     .help = "ZMQ CURVE on the input: this end's secret key file (fecd --curve-keygen makes "
             "one; mode 0600 or 0640); empty: no CURVE"},
    {"input.curve.clients_file", SET_STRING, C(in.curve.clients_file), .check = check_key_path,
     .def = "",
     .help = "CURVE input that binds: the public keys of the senders allowed in, one per line"},
    {"input.curve.server_key_file", SET_STRING, C(in.curve.server_key_file),
     .check = check_key_path, .def = "",
     .help = "CURVE input that connects: the public key file of the sender it connects to"},
    {"input.llr_scale", SET_FLOAT, C(llr_scale), 0.001, 1000, .def = "8", .flags = SET_LIVE,
     .help = "float32 LLR input: int8 = round(llr * llr_scale), clamped to +-127"},
    {"input.gnuradio.format", SET_ENUM, C(gr_format), .choices = gr_formats, .def = "f32",
     .flags = SET_LIVE,
     .help = "gnuradio input: item type (float32 LLR, int8 LLR, uint8 offset binary)"},
    {"input.gnuradio.tags", SET_ENUM, C(gr_tags), .choices = gr_tags, .def = "auto",
     .flags = SET_LIVE,
     .help = "gnuradio input: pass_tags header expected (on), never (off), or detected (auto)"},
    {"input.gnuradio.polarity", SET_ENUM_BOOL, C(gr_polarity_one), .choices = polarities,
     .def = "zero", .flags = SET_LIVE,
     .help = "gnuradio input: which bit a positive LLR (or a low u8) favours"},
    {"input.gnuradio.frame_len", SET_U32, C(raw_frame_syms), 0, 1u << 24, .def = "0",
     .flags = SET_LIVE, .help = "gnuradio input into a frame code: symbols per frame (0: streams)"},
    {"input.idle_flush_ms", SET_U32, C(idle_flush_ms), 0, 3600000, .def = "500", .flags = SET_LIVE,
     .help = "streams: after this long with nothing received, the symbols held back as the last "
             "block's traceback are decoded with the traceback there is and published, and the "
             "stream goes on (no END_OF_STREAM); 0: they wait for more input or END_OF_STREAM"},
    {"output.endpoint", SET_STRING, C(out.endpoint), .check = check_endpoint,
     .def = "tcp://127.0.0.1:5551", .help = "ZMQ endpoint decoded frames are published on"},
    {"output.socket", SET_ENUM, C(out.kind), .choices = out_socks, .def = "push",
     .help = "push (lossless, fecd waits for the reader) or pub (fan-out, may drop)"},
    {"output.bind", SET_BOOL, C(out.bind), .def = "true",
     .help = "bind the endpoint (true) or connect to it (false)"},
    {"output.hwm", SET_U32, C(out.hwm), 0, 10000000, .def = "1000",
     .help = "ZMQ send high-water mark in messages; 0: no limit"},
    {"output.curve.secret_key_file", SET_STRING, C(out.curve.secret_key_file),
     .check = check_key_path, .def = "",
     .help = "ZMQ CURVE on the output: this end's secret key file; empty: no CURVE"},
    {"output.curve.clients_file", SET_STRING, C(out.curve.clients_file), .check = check_key_path,
     .def = "",
     .help = "CURVE output that binds: the public keys of the receivers allowed in, one per line"},
    {"output.curve.server_key_file", SET_STRING, C(out.curve.server_key_file),
     .check = check_key_path, .def = "",
     .help = "CURVE output that connects: the public key file of the receiver it connects to"},
    {"output.protocol", SET_ENUM, C(out_proto), .choices = out_protos, .def = "native",
     .flags = SET_LIVE,
     .help = "native fecd messages, or pdu: GNU Radio PMT PDUs (ZMQ message blocks)"},
    {"output.soft", SET_BOOL, C(soft_out), .def = "false", .flags = SET_LIVE,
     .help = "also publish soft values where the family has them (native output)"},
    {"output.pdu_unpacked", SET_BOOL, C(pdu_unpacked), .def = "false", .flags = SET_LIVE,
     .help = "pdu output: one bit per byte instead of packed MSB first"},
    {"batch.jobs", SET_U32, C(batch_jobs), 0, 4096, .def = "0", .flags = SET_LIVE,
     .help = "blocks or frames decoded per batch; 0: the backend's choice (1024 on the GPU, 64 "
             "on the CPU)"},
    {"batch.deadline_ms", SET_U32, C(batch_deadline_ms), 1, 10000, .def = "20", .flags = SET_LIVE,
     .help = "a partial batch is decoded after waiting this long (latency bound)"},
    {"batch.inflight", SET_U32, C(max_inflight), 0, 16, .def = "0", .flags = SET_LIVE,
     .help = "batches being decoded at once per channel (2: double buffering); 0: the backend's "
             "choice (4 on the GPU, 2 on the CPU)"},
    {0}};

void settings_defaults(const struct setting *tab, void *dst)
{
	for (const struct setting *s = tab; s->path; s++) {
		char *p = (char *)dst + s->offset;

		if (s->flags & (SET_COMPUTED | SET_REQUIRED))
			continue;
		switch (s->type) {
		case SET_U32:
			*(uint32_t *)p = (uint32_t)strtoul(s->def, NULL, 10);
			break;
		case SET_FLOAT:
			*(float *)p = strtof(s->def, NULL);
			break;
		case SET_BOOL:
			*(bool *)p = strcmp(s->def, "true") == 0;
			break;
		case SET_STRING:
			snprintf(p, s->size, "%s", s->def);
			break;
		case SET_ENUM:
		case SET_ENUM_BOOL:
			for (const struct setting_choice *c = s->choices; c->name; c++) {
				if (strcmp(c->name, s->def) != 0)
					continue;
				if (s->type == SET_ENUM)
					*(int *)p = c->value;
				else
					*(bool *)p = c->value != 0;
			}
			break;
		case SET_CODE:
		case SET_CHANNELS:
			break;
		}
	}
}

/* ---- Validators: on failure they write what was expected ("a name of ..."); the caller adds
 * the path, "expected" and the value. */

int check_endpoint(const char *t, char *err, size_t errlen)
{
	static const char *const schemes[] = {"tcp://", "ipc://", "inproc://"};
	const char *rest = NULL;

	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (strncmp(t, schemes[i], strlen(schemes[i])) == 0)
			rest = t + strlen(schemes[i]);
	for (const char *c = t; rest && *c; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
			rest = NULL;
	if (rest && *rest && strncmp(t, "tcp://", 6) == 0) {
		const char *colon = strrchr(rest, ':');
		char *end;
		unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;

		if (!colon || colon == rest ||
		    !(strcmp(colon + 1, "*") == 0 ||
		      (colon[1] >= '0' && colon[1] <= '9' && !*end && port >= 1 && port <= 65535)))
			rest = NULL;
	}
	if (!rest || !*rest) {
		snprintf(err, errlen,
		         "a ZMQ endpoint: tcp://HOST:PORT (PORT 1..65535 or *), ipc://PATH or "
		         "inproc://NAME, printable ASCII");
		return -EINVAL;
	}
	return 0;
}

int check_channel_name(const char *t, char *err, size_t errlen)
{
	size_t n = strlen(t);

	if (n < 1 || n > 63 ||
	    strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	              "0123456789_.-") != n) {
		snprintf(err, errlen, "a name of 1 to 63 characters from A-Z a-z 0-9 _ . -");
		return -EINVAL;
	}
	return 0;
}

int listen_addr_parse(const char *t, struct sockaddr_storage *sa, socklen_t *salen)
{
	char host[INET6_ADDRSTRLEN];
	const char *colon, *h = t;
	size_t hlen;
	char *end;
	unsigned long port;

	if (*t == '[') {
		const char *close = strchr(t, ']');
		if (!close || close[1] != ':')
			return -EINVAL;
		h = t + 1;
		hlen = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(t, ':');
		if (!colon)
			return -EINVAL;
		hlen = (size_t)(colon - t);
	}
	if (hlen == 0 || hlen >= sizeof(host) || colon[1] < '0' || colon[1] > '9')
		return -EINVAL;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (*end || errno || port < 1 || port > 65535)
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	if (*t != '[') {
		struct sockaddr_in *in = (struct sockaddr_in *)sa;
		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			return -EINVAL;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		*salen = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*salen = sizeof(*in6);
	}
	return 0;
}

static int check_metrics_listen(const char *t, char *err, size_t errlen)
{
	struct sockaddr_storage sa;
	socklen_t len;

	if (!*t || listen_addr_parse(t, &sa, &len) == 0)
		return 0;
	snprintf(err, errlen,
	         "\"HOST:PORT\" with a numeric IPv4 address or an IPv6 one in brackets and PORT "
	         "1..65535 (\"127.0.0.1:9464\", \"[::1]:9464\"), or \"\" for no metrics");
	return -EINVAL;
}

int check_control_tcp(const char *t, char *err, size_t errlen)
{
	const char *p = t + strlen("127.0.0.1:");
	char *end;
	unsigned long port;

	if (!*t)
		return 0;
	if (strncmp(t, "127.0.0.1:", strlen("127.0.0.1:")) == 0 && *p >= '0' && *p <= '9') {
		port = strtoul(p, &end, 10);
		if (!*end && port >= 1 && port <= 65535)
			return 0;
	}
	snprintf(err, errlen,
	         "\"127.0.0.1:PORT\" with PORT 1..65535, or \"\" for no TCP listener (control "
	         "is never exposed beyond loopback)");
	return -EINVAL;
}

static int check_socket_path(const char *t, char *err, size_t errlen)
{
	if (t[0] != '/' || strlen(t) > FECD_PATH_MAX - 1) {
		snprintf(err, errlen, "an absolute path of at most %d bytes", FECD_PATH_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

static int check_token_file(const char *t, char *err, size_t errlen)
{
	if (t[0] && check_socket_path(t, err, errlen) != 0) {
		snprintf(err, errlen, "an absolute path of at most %d bytes, or \"\" for the file "
		         "beside the control socket", FECD_PATH_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

static int check_backend(const char *t, char *err, size_t errlen)
{
	if (strcmp(t, "auto") == 0 || strcmp(t, "cuda") == 0 || strcmp(t, "cpu") == 0)
		return 0;
	snprintf(err, errlen, "one of \"auto\", \"cuda\", \"cpu\"");
	return -EINVAL;
}

static int check_codes_dir(const char *t, char *err, size_t errlen)
{
	if (!*t || t[0] == '/')
		return 0;
	snprintf(err, errlen,
	         "an absolute path (the daemon's working directory is no place to look for "
	         "codes), or \"\" for the default");
	return -EINVAL;
}

static int check_key_path(const char *t, char *err, size_t errlen)
{
	if (!*t || t[0] == '/')
		return 0;
	snprintf(err, errlen,
	         "an absolute path to a key file (the daemon's working directory is no place for "
	         "keys), or \"\" for none");
	return -EINVAL;
}

static int check_log_level(const char *t, char *err, size_t errlen)
{
	size_t off;

	if (log_level_from_name(t) >= 0)
		return 0;
	off = (size_t)snprintf(err, errlen, "one of");
	for (int l = LOG_LVL_ERR; l <= LOG_LVL_DEBUG && off < errlen; l++)
		off +=
		    (size_t)snprintf(err + off, errlen - off, "%s \"%s\"",
		                     l > LOG_LVL_ERR ? "," : "", log_level_name((enum log_level)l));
	return -EINVAL;
}

/* ---- Markdown reference. */

static const char *type_name(enum setting_type t)
{
	static const char *const names[] = {
	    [SET_U32] = "integer",   [SET_FLOAT] = "number",   [SET_BOOL] = "boolean",
	    [SET_STRING] = "string", [SET_ENUM] = "string",    [SET_ENUM_BOOL] = "string",
	    [SET_CODE] = "object",   [SET_CHANNELS] = "array",
	};
	return names[t];
}

static void write_range(FILE *f, const struct setting *s)
{
	switch (s->type) {
	case SET_U32:
		fprintf(f, "%.0f..%.0f", s->min, s->max);
		break;
	case SET_FLOAT:
		fprintf(f, "%g..%g", s->min, s->max);
		break;
	case SET_BOOL:
		fputs("`true`, `false`", f);
		break;
	case SET_STRING:
		fprintf(f, "up to %zu bytes", s->size - 1);
		break;
	case SET_ENUM:
	case SET_ENUM_BOOL:
		for (const struct setting_choice *c = s->choices; c->name; c++)
			fprintf(f, "%s`%s`", c == s->choices ? "" : ", ", c->name);
		break;
	case SET_CODE:
	case SET_CHANNELS:
		break;
	}
}

static void write_table(FILE *f, const struct setting *tab)
{
	fputs("| Setting | Type | Range | Default | Live | Description |\n", f);
	fputs("|---|---|---|---|---|---|\n", f);
	for (const struct setting *s = tab; s->path; s++) {
		fprintf(f, "| `%s` | %s | ", s->path, type_name(s->type));
		write_range(f, s);
		if (s->flags & (SET_COMPUTED | SET_REQUIRED))
			fprintf(f, " | %s", s->def);
		else if (s->type == SET_STRING || s->type == SET_ENUM || s->type == SET_ENUM_BOOL)
			fprintf(f, " | `\"%s\"`", s->def);
		else
			fprintf(f, " | `%s`", s->def);
		fprintf(f, " | %s | %s |\n", (s->flags & SET_LIVE) ? "yes" : "no", s->help);
	}
}

static const char *param_type_name(enum fec_param_type t)
{
	static const char *const names[] = {
	    [FEC_PARAM_INT] = "integer",       [FEC_PARAM_ENUM] = "string",
	    [FEC_PARAM_BOOL] = "boolean",      [FEC_PARAM_OCT_LIST] = "octal list",
	    [FEC_PARAM_STRING] = "string",     [FEC_PARAM_REAL] = "number",
	    [FEC_PARAM_HEX_LIST] = "hex list", [FEC_PARAM_CODE] = "code",
	};
	return names[t];
}

static void write_family(FILE *f, const struct fec_family_ops *fam)
{
	fprintf(f, "\n#### Family `%s`\n\n", fam->name);
	fputs("| Parameter | Type | Range | Default | Description |\n|---|---|---|---|---|\n", f);
	for (const struct fec_param_desc *p = fam->params; p && p->name; p++) {
		fprintf(f, "| `%s` | %s | ", p->name, param_type_name(p->type));
		if (p->type == FEC_PARAM_INT)
			fprintf(f, "%ld..%ld", p->min, p->max);
		else if (p->type == FEC_PARAM_OCT_LIST || p->type == FEC_PARAM_HEX_LIST) {
			char lo[24], hi[24];

			fec_param_item_format(p->type, fec_param_umin(p), lo, sizeof(lo));
			fec_param_item_format(p->type, fec_param_umax(p), hi, sizeof(hi));
			fprintf(f, "%u..%u values, each %s..%s %s", fec_param_min_items(p),
			        p->max_items, lo, hi,
			        p->type == FEC_PARAM_HEX_LIST ? "hexadecimal" : "octal");
		} else if (p->type == FEC_PARAM_STRING)
			fprintf(f, "up to %ld bytes", p->max);
		else if (p->type == FEC_PARAM_CODE)
			fputs(p->choices ? "a code of family " : "a code of any family", f);
		else if (p->type == FEC_PARAM_BOOL)
			fputs("`true`, `false`", f);
		else if (p->type == FEC_PARAM_REAL)
			fprintf(f, "%g..%g", (double)p->min / FEC_PARAM_REAL_UNIT,
			        (double)p->max / FEC_PARAM_REAL_UNIT);
		for (const char *const *c = p->choices;
		     (p->type == FEC_PARAM_ENUM || p->type == FEC_PARAM_CODE) && c && *c; c++)
			fprintf(f, "%s`%s`", c == p->choices ? "" : ", ", *c);
		fprintf(f, " | %s | %s |\n", p->def ? p->def : "derived", p->help ? p->help : "");
	}
}

int settings_write_markdown(FILE *f)
{
	fputs("### Global settings\n\n", f);
	write_table(f, fecd_global_settings);
	fputs(
	    "\n`control.socket` defaults to `$RUNTIME_DIRECTORY/control.sock` under systemd, else "
	    "`/run/fecd/control.sock` when `/run/fecd` exists or can be created and is writable, "
	    "else `${XDG_RUNTIME_DIR:-/tmp}/fecd-control.sock`; fecdctl follows the same rule.\n"
	    "Without a `channels` key the file gets the default channel; `\"channels\": []` means "
	    "none.\n\n### Channel settings\n\n",
	    f);
	write_table(f, fecd_chan_settings);
	fputs(
	    "\nNested paths are nested objects: `input.gnuradio.format` is "
	    "`{\"input\":{\"gnuradio\":{\"format\":...}}}`. Unknown keys are errors. A channel "
	    "without a `name` is called `ch<id>`. \"Live\" settings may change with "
	    "`channel.update` (and SIGHUP); changing any other recreates the channel on SIGHUP and "
	    "is refused by `channel.update`.\n\n### Code parameters\n\n"
	    "`code` starts from a preset (`{\"preset\":\"ccsds\"}`) or from a family's defaults "
	    "(`{\"family\":\"viterbi\"}`); the other keys override parameters. List items are "
	    "numbers of up to 64 bits, within the parameter's range: octal lists take strings "
	    "(`[\"171\",\"133\"]`) or integers written with octal digits up to 2^53 (JSON numbers "
	    "beyond are not exact: send those as strings), hex lists strings (`[\"0xf2d05351\"]` or "
	    "`[\"f2d05351\"]`); both are shown back as strings, in `codes.list` their bounds too. "
	    "A parameter of type code (a composite family's child code) takes a nested code object "
	    "(`{\"preset\":\"ccsds\",\"mode\":\"terminated\"}`) or its text form as a string; "
	    "in the text form it is written in parentheses (`inner=(ccsds,mode=terminated)`).\n",
	    f);
	for (unsigned i = 0; i < fec_family_count(); i++)
		write_family(f, fec_family_at(i));
	fputs("\n#### Presets\n\n| Preset | Family | Description |\n|---|---|---|\n", f);
	for (unsigned i = 0; i < fec_preset_count(); i++) {
		const struct fec_preset *p = fec_preset_at(i);

		fprintf(f, "| `%s` | %s | %s |\n", p->name, fecd_family_name(p->family),
		        p->description);
	}
	return ferror(f) ? -EIO : 0;
}
