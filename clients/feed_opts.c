/*
 * fecd-feed's command line: long options only, each checked with a message that names the option
 * and the value it did not accept. The defaults make a plain `fecd-feed` a working demo against a
 * daemon on its default endpoints.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "fecd_proto.h"

#include "feed.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: fecd-feed [options]\n"
	    "  --endpoint EP        ZMQ endpoint (default tcp://127.0.0.1:5550)\n"
	    "  --socket push|pub    socket type (default push); --bind or --connect (default)\n"
	    "  --hwm N              send high-water mark, messages (default 1000)\n"
	    "  --curve-secret-key FILE  ZMQ CURVE: this end's secret key file (fecd\n"
	    "                       --curve-keygen); with --connect also --curve-server-key FILE,\n"
	    "                       the public key of the end that binds\n"
	    "  --send-timeout MS    give up when a send blocks this long (default: never)\n"
	    "  --start-delay MS     wait before sending (default 0; 300 for pub)\n"
	    "  --code TEXT          code, e.g. ccsds or \"ccsds,mode=terminated\" (default ccsds)\n"
	    "  --switch SEQ:CODE    from message SEQ on, encode with CODE (repeatable)\n"
	    "  --seed N | --input FILE   information bits: seeded (default 1) or a file, MSB "
	    "first\n"
	    "  --ebn0 DB | --noiseless   AWGN at Eb/N0 (default 7 dB) or none\n"
	    "  --format f32|s8|u8|s4     wire format (default s8)\n"
	    "  --scale X            s8/u8/s4: int8 LLR = llr * X (default: mean |LLR| -> 40);\n"
	    "                       f32 carries the LLRs 2y/sigma^2 unscaled\n"
	    "  --polarity zero|one  zero: positive LLR favours 0 (default)\n"
	    "  --channel N          channel id (default 1, fecd's default channel); --seq-start N "
	    "(default 0)\n"
	    "  --bits N             stream codes: information bits (default 1000000)\n"
	    "  --msg-syms N         stream codes: about N symbols per message (default 4096)\n"
	    "  --no-eos             do not flag the last message END_OF_STREAM\n"
	    "  --bit-start N        stream codes: send from information bit N on, continuing a\n"
	    "                       stream whose bits 0..N-1 an earlier run sent (the encoder\n"
	    "                       runs through them unsent); fecd-sink --bit-start N checks it\n"
	    "  --frames N           frame codes: frames (default 100)\n"
	    "  --frame-bits B|MIN:MAX[:STEP]  frame codes: information bits per frame, fixed or\n"
	    "                       seeded lengths MIN + STEP * j up to MAX (default 1024)\n"
	    "  --split K            frame codes: messages per frame (default 1)\n"
	    "  --asm                frame codes with a sync marker (ldpc framing=asm): marker and\n"
	    "                       frame back to back in one raw stream of --msg-syms messages\n"
	    "  --invert[=A:B]       --asm: send frames A..B-1 (default all) and their markers\n"
	    "                       with negated symbols, as a receiver's phase ambiguity does\n"
	    "  --junk N[:EVERY]     --asm: N random symbols (no marker) before frame 0 and every\n"
	    "                       EVERY-th frame after it (default every frame)\n"
	    "  --gnuradio           send raw items as gr-zeromq does; --gr-tags adds the tag "
	    "header\n"
	    "  --rate SYMS          symbols per second (default: as fast as possible)\n"
	    "  --skip-seq A[,B..]   do not send these sequence numbers (repeatable)\n"
	    "  --inject-bad         send the table of malformed messages between good ones\n"
	    "  --inject-oversize SEQ  after message SEQ, send one whose payload is over fecd's\n"
	    "                       limit (65 MiB): fecd's ZMQ drops the connection, the feed\n"
	    "                       connects again and goes on\n"
	    "  --stamps FILE        write (seq, CLOCK_MONOTONIC ns) records at send\n"
	    "  --replay BITS        stream codes: encode and modulate BITS seeded bits once, then\n"
	    "                       send them again and again (bit i is seeded bit i mod BITS), to\n"
	    "                       send faster than the channel can be simulated; fecd-sink\n"
	    "                       --replay BITS verifies it\n");
}

static int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (parse_u64_arg(s, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

enum {
	OPT_ENDPOINT = 256,
	OPT_SOCKET,
	OPT_BIND,
	OPT_CONNECT,
	OPT_HWM,
	OPT_CURVE_SECRET,
	OPT_CURVE_SERVER,
	OPT_SNDTIMEO,
	OPT_DELAY,
	OPT_CODE,
	OPT_SWITCH,
	OPT_SEED,
	OPT_INPUT,
	OPT_EBN0,
	OPT_NOISELESS,
	OPT_FORMAT,
	OPT_SCALE,
	OPT_POLARITY,
	OPT_CHANNEL,
	OPT_SEQSTART,
	OPT_BITS,
	OPT_MSGSYMS,
	OPT_NOEOS,
	OPT_BITSTART,
	OPT_FRAMES,
	OPT_FRAMEBITS,
	OPT_SPLIT,
	OPT_GNURADIO,
	OPT_GRTAGS,
	OPT_RATE,
	OPT_SKIP,
	OPT_BAD,
	OPT_OVERSIZE,
	OPT_STAMPS,
	OPT_REPLAY,
	OPT_ASM,
	OPT_INVERT,
	OPT_JUNK,
	OPT_HELP,
};

static const struct option feed_longopts[] = {
    {"endpoint", 1, 0, OPT_ENDPOINT},
    {"socket", 1, 0, OPT_SOCKET},
    {"bind", 0, 0, OPT_BIND},
    {"connect", 0, 0, OPT_CONNECT},
    {"hwm", 1, 0, OPT_HWM},
    {"curve-secret-key", 1, 0, OPT_CURVE_SECRET},
    {"curve-server-key", 1, 0, OPT_CURVE_SERVER},
    {"send-timeout", 1, 0, OPT_SNDTIMEO},
    {"start-delay", 1, 0, OPT_DELAY},
    {"code", 1, 0, OPT_CODE},
    {"switch", 1, 0, OPT_SWITCH},
    {"seed", 1, 0, OPT_SEED},
    {"input", 1, 0, OPT_INPUT},
    {"ebn0", 1, 0, OPT_EBN0},
    {"noiseless", 0, 0, OPT_NOISELESS},
    {"format", 1, 0, OPT_FORMAT},
    {"scale", 1, 0, OPT_SCALE},
    {"polarity", 1, 0, OPT_POLARITY},
    {"channel", 1, 0, OPT_CHANNEL},
    {"seq-start", 1, 0, OPT_SEQSTART},
    {"bits", 1, 0, OPT_BITS},
    {"msg-syms", 1, 0, OPT_MSGSYMS},
    {"no-eos", 0, 0, OPT_NOEOS},
    {"bit-start", 1, 0, OPT_BITSTART},
    {"frames", 1, 0, OPT_FRAMES},
    {"frame-bits", 1, 0, OPT_FRAMEBITS},
    {"split", 1, 0, OPT_SPLIT},
    {"gnuradio", 0, 0, OPT_GNURADIO},
    {"gr-tags", 0, 0, OPT_GRTAGS},
    {"rate", 1, 0, OPT_RATE},
    {"skip-seq", 1, 0, OPT_SKIP},
    {"inject-bad", 0, 0, OPT_BAD},
    {"inject-oversize", 1, 0, OPT_OVERSIZE},
    {"stamps", 1, 0, OPT_STAMPS},
    {"replay", 1, 0, OPT_REPLAY},
    {"asm", 0, 0, OPT_ASM},
    {"invert", 2, 0, OPT_INVERT},
    {"junk", 1, 0, OPT_JUNK},
    {"help", 0, 0, OPT_HELP},
    {0, 0, 0, 0},
};

static int parse_skips(struct feed_opts *o, char *list)
{
	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nskips == FEED_MAX_SKIPS || parse_u64_arg(tok, &o->skips[o->nskips]))
			return -1;
		o->nskips++;
	}
	return 0;
}

/* Returns 0, or -1 after printing what was wrong. */
int feed_parse_args(int argc, char **argv, struct feed_opts *o)
{
	int c, delay_set = 0;
	uint64_t v;

	*o = (struct feed_opts){
	    .endpoint = "tcp://127.0.0.1:5550",
	    .code = "ccsds",
	    .sock_type = ZMQ_PUSH,
	    .hwm = 1000,
	    .send_timeout_ms = -1,
	    .seed = 1,
	    .frames = 100,
	    .channel = 1,
	    .msg_syms = FEED_DEFAULT_MSG_SYMS,
	    .split = 1,
	    .ebn0 = 7.0,
	    .scale = -1.0f,
	    .format = FECD_FMT_S8_LLR,
	    .sched = {.min_bits = 1024, .max_bits = 1024, .step = 1},
	};
	while ((c = getopt_long(argc, argv, "h", feed_longopts, NULL)) != -1) {
		char *arg = optarg, *colon;
		double d;

		switch (c) {
		case OPT_ENDPOINT:
			o->endpoint = arg;
			break;
		case OPT_SOCKET:
			if (!strcmp(arg, "push"))
				o->sock_type = ZMQ_PUSH;
			else if (!strcmp(arg, "pub"))
				o->sock_type = ZMQ_PUB;
			else
				goto bad;
			break;
		case OPT_BIND:
			o->bind = true;
			break;
		case OPT_CONNECT:
			o->bind = false;
			break;
		case OPT_HWM:
			if (parse_u64_arg(arg, &v) || v > INT32_MAX)
				goto bad;
			o->hwm = (int)v;
			break;
		case OPT_CURVE_SECRET:
			o->curve_secret = arg;
			break;
		case OPT_CURVE_SERVER:
			o->curve_server = arg;
			break;
		case OPT_SNDTIMEO:
			o->send_timeout_ms = atoi(arg);
			break;
		case OPT_DELAY:
			o->start_delay_ms = atoi(arg);
			delay_set = 1;
			break;
		case OPT_CODE:
			o->code = arg;
			break;
		case OPT_SWITCH:
			colon = strchr(arg, ':');
			if (!colon || o->nswitches == FEED_MAX_SWITCHES)
				goto bad;
			*colon = '\0';
			if (parse_u64_arg(arg, &o->switches[o->nswitches].seq))
				goto bad;
			o->switches[o->nswitches++].code = colon + 1;
			break;
		case OPT_SEED:
			if (parse_u64_arg(arg, &o->seed))
				goto bad;
			break;
		case OPT_INPUT:
			o->input = arg;
			break;
		case OPT_EBN0:
			d = strtod(arg, &colon);
			if (*colon || !isfinite(d))
				goto bad;
			o->ebn0 = d;
			break;
		case OPT_NOISELESS:
			o->noiseless = true;
			break;
		case OPT_FORMAT:
			o->format = fecd_format_from_name(arg);
			if (o->format < 0)
				goto bad;
			break;
		case OPT_SCALE:
			o->scale = strtof(arg, &colon);
			if (*colon || !(o->scale > 0.0f))
				goto bad;
			break;
		case OPT_POLARITY:
			if (strcmp(arg, "zero") && strcmp(arg, "one"))
				goto bad;
			o->polarity_one = !strcmp(arg, "one");
			break;
		case OPT_CHANNEL:
			if (parse_u32(arg, &o->channel))
				goto bad;
			break;
		case OPT_SEQSTART:
			if (parse_u64_arg(arg, &o->seq_start))
				goto bad;
			break;
		case OPT_BITS:
			if (parse_u64_arg(arg, &o->bits))
				goto bad;
			o->bits_set = true;
			break;
		case OPT_MSGSYMS:
			if (parse_u32(arg, &o->msg_syms) || !o->msg_syms)
				goto bad;
			break;
		case OPT_NOEOS:
			o->no_eos = true;
			break;
		case OPT_BITSTART:
			if (parse_u64_arg(arg, &o->bit_start))
				goto bad;
			break;
		case OPT_FRAMES:
			if (parse_u64_arg(arg, &o->frames))
				goto bad;
			break;
		case OPT_FRAMEBITS:
			if (frame_sched_parse(&o->sched, arg))
				goto bad;
			o->sched_set = true;
			break;
		case OPT_SPLIT:
			if (parse_u32(arg, &o->split) || !o->split)
				goto bad;
			break;
		case OPT_GNURADIO:
			o->gnuradio = true;
			break;
		case OPT_GRTAGS:
			o->gr_tags = true;
			break;
		case OPT_RATE:
			o->rate = strtod(arg, &colon);
			if (*colon || !(o->rate >= 0.0))
				goto bad;
			break;
		case OPT_SKIP:
			if (parse_skips(o, arg))
				goto bad;
			break;
		case OPT_BAD:
			o->inject_bad = true;
			break;
		case OPT_OVERSIZE:
			if (parse_u64_arg(arg, &o->oversize_after))
				goto bad;
			o->oversize_set = true;
			break;
		case OPT_STAMPS:
			o->stamps = arg;
			break;
		case OPT_REPLAY:
			if (parse_u64_arg(arg, &o->replay) || !o->replay || o->replay > (1ull << 32))
				goto bad;
			break;
		case OPT_ASM:
			o->asm_stream = true;
			break;
		case OPT_INVERT:
			o->invert_from = 0;
			o->invert_to = UINT64_MAX;
			if (!arg)
				break;
			colon = strchr(arg, ':');
			if (!colon)
				goto bad;
			*colon = '\0';
			if (parse_u64_arg(arg, &o->invert_from) ||
			    parse_u64_arg(colon + 1, &o->invert_to) ||
			    o->invert_to <= o->invert_from)
				goto bad;
			break;
		case OPT_JUNK:
			o->junk_every = 1;
			colon = strchr(arg, ':');
			if (colon) {
				*colon = '\0';
				if (parse_u32(colon + 1, &o->junk_every) || !o->junk_every)
					goto bad;
			}
			if (parse_u32(arg, &o->junk) || o->junk > (1u << 24))
				goto bad;
			break;
		case OPT_HELP:
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
		continue;
	bad:
		fprintf(stderr, "fecd-feed: bad value for --%s: '%s' (see --help)\n",
		        opt_name(feed_longopts, c), arg ? arg : "");
		return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "fecd-feed: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->bits_set && !o->input)
		o->bits = 1000000;
	if (!delay_set && o->sock_type == ZMQ_PUB)
		o->start_delay_ms = 300; /* let subscribers join before the first message */
	if (o->gnuradio &&
	    (o->format == FECD_FMT_S4_PACKED || o->inject_bad || o->oversize_set || o->split > 1)) {
		fprintf(stderr, "fecd-feed: --gnuradio sends f32, s8 or u8 items, one frame per "
		                "message, and has no header to corrupt or oversize\n");
		return -1;
	}
	if (o->replay && (o->input || o->nswitches || o->nskips)) {
		fprintf(stderr, "fecd-feed: --replay sends seeded bits of one code: not with "
		                "--input, --switch or --skip-seq\n");
		return -1;
	}
	if (o->bit_start && (o->replay || o->asm_stream)) {
		fprintf(stderr, "fecd-feed: --bit-start continues a stream of seeded or file bits: "
		                "not with --replay or --asm\n");
		return -1;
	}
	if ((o->invert_to || o->junk) && !o->asm_stream) {
		fprintf(stderr, "fecd-feed: --invert and --junk go with --asm\n");
		return -1;
	}
	if (o->asm_stream && (o->split > 1 || o->inject_bad || o->replay)) {
		fprintf(stderr, "fecd-feed: --asm sends one raw stream: not with --split, "
		                "--inject-bad or --replay\n");
		return -1;
	}
	if (o->gr_tags && !o->gnuradio) {
		fprintf(stderr, "fecd-feed: --gr-tags needs --gnuradio\n");
		return -1;
	}
	return 0;
}
