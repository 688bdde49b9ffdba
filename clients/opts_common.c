/*
 * The options fecd-feed and fecd-sink share (opts_common.h): their defaults, the one handler that
 * checks and stores them, and their usage lines, worded for the sending or the receiving end.
 */
#include <stdio.h>
#include <string.h>

#include <zmq.h>

#include "client_config.h"
#include "opts_common.h"

void client_opts_defaults(struct client_opts *c, enum client_role role)
{
	bool tx = role == CLIENT_SENDER;

	*c = (struct client_opts){
	    .role = role,
	    .endpoint = tx ? "tcp://127.0.0.1:5550" : "tcp://127.0.0.1:5551",
	    .sock_type = tx ? ZMQ_PUSH : ZMQ_PULL,
	    .hwm = 1000,
	    .code = tx ? "ccsds" : NULL,
	    .seed = 1,
	    .sched = {.min_bits = 1024, .max_bits = 1024, .step = 1},
	    .split = 1,
	};
}

/* A socket type by name: the sender's push or pub, the receiver's pull or sub. */
static int socket_type(enum client_role role, const char *name)
{
	static const struct {
		enum client_role role;
		const char *name;
		int type;
	} types[] = {
	    {CLIENT_SENDER, "push", ZMQ_PUSH},
	    {CLIENT_SENDER, "pub", ZMQ_PUB},
	    {CLIENT_RECEIVER, "pull", ZMQ_PULL},
	    {CLIENT_RECEIVER, "sub", ZMQ_SUB},
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].role == role && !strcmp(types[i].name, name))
			return types[i].type;
	return -1;
}

enum client_opt_result client_opts_handle(struct client_opts *c, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case CLIENT_OPT_ENDPOINT:
		c->endpoint = arg;
		c->endpoint_set = true;
		break;
	case CLIENT_OPT_SOCKET:
		c->sock_type = socket_type(c->role, arg);
		if (c->sock_type < 0)
			return CLIENT_OPT_BAD_VALUE;
		c->socket_set = true;
		break;
	case CLIENT_OPT_BIND:
		c->bind = true;
		c->bind_set = true;
		break;
	case CLIENT_OPT_CONNECT:
		c->bind = false;
		c->bind_set = true;
		break;
	case 'c':
		c->config = arg;
		break;
	case CLIENT_OPT_CODES_DIR:
		c->codes_dir = arg;
		break;
	case CLIENT_OPT_HWM:
		if (parse_u64_arg(arg, &v) || v > INT32_MAX)
			return CLIENT_OPT_BAD_VALUE;
		c->hwm = (int)v;
		break;
	case CLIENT_OPT_CURVE_SECRET:
		c->curve_secret = arg;
		break;
	case CLIENT_OPT_CURVE_SERVER:
		c->curve_server = arg;
		break;
	case CLIENT_OPT_CODE:
		c->code = arg;
		break;
	case CLIENT_OPT_SEED:
		if (parse_u64_arg(arg, &c->seed))
			return CLIENT_OPT_BAD_VALUE;
		break;
	case CLIENT_OPT_INPUT:
		c->input = arg;
		break;
	case CLIENT_OPT_FRAMEBITS:
		if (frame_sched_parse(&c->sched, arg))
			return CLIENT_OPT_BAD_VALUE;
		c->sched_set = true;
		break;
	case CLIENT_OPT_SPLIT:
		if (parse_u64_arg(arg, &v) || !v || v > UINT32_MAX)
			return CLIENT_OPT_BAD_VALUE;
		c->split = (uint32_t)v;
		break;
	case CLIENT_OPT_SEQSTART:
		if (parse_u64_arg(arg, &c->seq_start))
			return CLIENT_OPT_BAD_VALUE;
		break;
	case CLIENT_OPT_BITSTART:
		if (parse_u64_arg(arg, &c->bit_start))
			return CLIENT_OPT_BAD_VALUE;
		break;
	case CLIENT_OPT_STAMPS:
		c->stamps = arg;
		break;
	case CLIENT_OPT_REPLAY:
		if (parse_u64_arg(arg, &c->replay) || !c->replay || c->replay > (1ull << 32))
			return CLIENT_OPT_BAD_VALUE;
		break;
	case CLIENT_OPT_HELP:
	case 'h':
		return CLIENT_OPT_HELP_ASKED;
	default:
		return CLIENT_OPT_NOT_SHARED;
	}
	return CLIENT_OPT_TAKEN;
}

/* Each shared option's usage: the sender's wording, then the receiver's (NULL: the same). */
static const struct {
	const char *sender, *receiver;
} usage_lines[] = {
    {"  -c, --config FILE    fecd's configuration file: the input endpoint of --channel's\n"
     "                       channel (socket kind and side to match), and its codes_dir\n",
     "  -c, --config FILE    fecd's configuration file: the output endpoint of --channel's\n"
     "                       channel (socket kind and side to match), and its codes_dir\n"},
    {"  --codes-dir DIR      where code files are read (over -c's codes_dir; default\n"
     "                       $FECD_CODES_DIR, else /usr/share/fecd/codes)\n",
     NULL},
    {"  --endpoint EP        ZMQ endpoint (default tcp://127.0.0.1:5550)\n",
     "  --endpoint EP        ZMQ endpoint (default tcp://127.0.0.1:5551)\n"},
    {"  --socket push|pub    socket type (default push); --bind or --connect (default)\n",
     "  --socket pull|sub    socket type (default pull); --bind or --connect (default)\n"},
    {"  --hwm N              send high-water mark, messages (default 1000)\n",
     "  --hwm N              receive high-water mark (default 1000)\n"},
    {"  --curve-secret-key FILE  ZMQ CURVE: this end's secret key file (fecd\n"
     "                       --curve-keygen); with --connect also --curve-server-key FILE,\n"
     "                       the public key of the end that binds\n",
     NULL},
    {"  --code TEXT          code, e.g. ccsds or \"ccsds,mode=terminated\" (default ccsds)\n",
     "  --code TEXT          the feed's code (a preset or the text form): frame lengths from\n"
     "                       it where its frames carry a fixed number of bits, and what soft\n"
     "                       output it gives\n"},
    {"  --seed N | --input FILE   information bits: seeded (default 1) or a file, MSB first\n",
     "  --seed N | --input FILE   the feed's information bits (default seed 1)\n"},
    {"  --frame-bits B|MIN:MAX[:STEP]  frame codes: information bits per frame, fixed or\n"
     "                       seeded lengths MIN + STEP * j up to MAX (default 1024)\n",
     "  --frame-bits B|MIN:MAX[:STEP]  the feed's frame lengths (default: --code's, else the\n"
     "                       first frame's length, from its header)\n"},
    {"  --split K            frame codes: messages per frame (default 1)\n",
     "  --split K, --seq-start N  the feed's messages per frame and first seq (1, 0)\n"},
    {"  --seq-start N        first sequence number (default 0)\n", ""},
    {"  --bit-start N        stream codes: send from information bit N on, continuing a\n"
     "                       stream whose bits 0..N-1 an earlier run sent (the encoder\n"
     "                       runs through them unsent); fecd-sink --bit-start N checks it\n",
     "  --bit-start N        streams: the first bit expected is stream bit N (a stream\n"
     "                       that an earlier sink received up to N; --expect-bits still\n"
     "                       counts from bit 0)\n"},
    {"  --stamps FILE        write (seq, CLOCK_MONOTONIC ns) records at send\n",
     "  --stamps FILE        the feed's stamps, for latency percentiles\n"},
    {"  --replay BITS        stream codes: encode and modulate BITS seeded bits once, then\n"
     "                       send them again and again (bit i is seeded bit i mod BITS), to\n"
     "                       send faster than the channel can be simulated; fecd-sink\n"
     "                       --replay BITS verifies it\n",
     "  --replay BITS        streams: bit i is source bit i mod BITS (fecd-feed --replay),\n"
     "                       checked against a packed copy at memory speed\n"},
};

void client_opts_usage(FILE *f, enum client_role role)
{
	for (size_t i = 0; i < sizeof(usage_lines) / sizeof(usage_lines[0]); i++) {
		const char *text = usage_lines[i].sender;

		if (role == CLIENT_RECEIVER && usage_lines[i].receiver)
			text = usage_lines[i].receiver;
		fputs(text, f);
	}
}

int client_opts_finish(struct client_opts *c, uint32_t channel, const char *who)
{
	/* Static: the endpoint the options point at must outlive this call. */
	static struct client_config cfg;
	const struct client_config_side *side;
	bool tx = c->role == CLIENT_SENDER;

	if (c->config) {
		if (client_config_read(c->config, channel, &cfg, who))
			return -1;
		side = tx ? &cfg.in : &cfg.out;
		if (!c->endpoint_set) {
			if (!cfg.have_channel) {
				fprintf(stderr,
				        "%s: %s has no channel %u (--channel, or --endpoint)\n",
				        who, c->config, channel);
				return -1;
			}
			c->endpoint = side->endpoint;
		}
		if (!c->socket_set)
			c->sock_type =
			    side->pubsub ? (tx ? ZMQ_PUB : ZMQ_SUB) : (tx ? ZMQ_PUSH : ZMQ_PULL);
		if (!c->bind_set)
			c->bind = !side->fecd_binds;
		if (!c->codes_dir && cfg.codes_dir[0])
			c->codes_dir = cfg.codes_dir;
	}
	if (c->codes_dir)
		fec_codes_dir_set(c->codes_dir);
	return 0;
}

int client_opts_code_frames(struct client_opts *c, const struct fec_info *info, const char *who)
{
	const uint32_t k = info->frame_info_bits;

	if (info->kind != FEC_KIND_FRAME || !k)
		return 0;
	if (!c->sched_set)
		c->sched = (struct frame_sched){.min_bits = k, .max_bits = k, .step = 1};
	if (c->sched.min_bits != k || c->sched.max_bits != k) {
		fprintf(stderr, "%s: --frame-bits: this code's frames carry %u bits\n", who, k);
		return -1;
	}
	return 0;
}

void client_opts_bad_value(const char *who, const struct option *opts, int opt, const char *arg)
{
	fprintf(stderr, "%s: bad value for --%s: '%s' (see --help)\n", who, opt_name(opts, opt),
	        arg ? arg : "");
}
