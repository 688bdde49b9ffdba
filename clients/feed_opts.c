/*
 * fecd-feed's command line: long options only, each checked with a message that names the option
 * and the value it did not accept; the options fecd-sink shares are opts_common.c's. The defaults
 * make a plain `fecd-feed` a working demo against a daemon on its default endpoints.
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
	fputs("usage: fecd-feed [options]\n", f);
	client_opts_usage(f, CLIENT_SENDER);
	fputs(
	    "  --send-timeout MS    give up when a send blocks this long (default: never)\n"
	    "  --start-delay MS     wait before sending (default 0; 300 for pub)\n"
	    "  --switch SEQ:CODE    from message SEQ on, encode with CODE (repeatable)\n"
	    "  --channel-model NAME[,KEY=VALUE...]  what the link does to the code bits\n"
	    "                       (default awgn), one of the models below\n"
	    "  --ebn0 DB | --noiseless   Eb/N0 of the link (default 7 dB), or no noise\n"
	    "  --format f32|s8|u8|s4|f32v  wire format (default s8; f32v, q log-probabilities\n"
	    "                       per symbol from the channel's bit LLRs, for codes of q-ary\n"
	    "                       input (nbldpc in=f32v), which take no other)\n"
	    "  --scale X            s8/u8/s4: int8 LLR = llr * X (default: mean |LLR| -> 40);\n"
	    "                       f32 carries the LLRs 2y/sigma^2 unscaled\n"
	    "  --polarity zero|one  zero: positive LLR favours 0 (default)\n"
	    "  --channel N          channel id (default 1, fecd's default channel)\n"
	    "  --bits N             stream codes: information bits (default 1000000)\n"
	    "  --msg-syms N         stream codes: about N symbols per message (default 4096)\n"
	    "  --no-eos             do not flag the last message END_OF_STREAM\n"
	    "  --frames N           frame codes: frames (default 100)\n"
	    "  --asm                frame codes with a sync marker (framing=asm): marker and\n"
	    "                       frame back to back in one raw stream of --msg-syms messages\n"
	    "  --invert[=A:B]       --asm: send frames A..B-1 (default all) and their markers\n"
	    "                       with negated symbols, as a receiver's phase ambiguity does;\n"
	    "                       without --asm: every symbol negated (an inverted polarity\n"
	    "                       that the message flags do not tell)\n"
	    "  --junk N[:EVERY]     --asm: N random symbols (no marker) before frame 0 and every\n"
	    "                       EVERY-th frame after it (default every frame)\n"
	    "  --gnuradio           send raw items as gr-zeromq does; --gr-tags adds the tag "
	    "header\n"
	    "  --rate SYMS          symbols per second (default: as fast as possible)\n"
	    "  --skip-seq A[,B..]   do not send these sequence numbers (repeatable)\n"
	    "  --inject-bad         send the table of malformed messages between good ones\n"
	    "  --binary-image FILE  nbldpc codes: write the binary image of --code's GF(q) matrix\n"
	    "                       as an alist file the ldpc family reads (code=FILE: the same\n"
	    "                       frames, information bits in the same places) and exit\n"
	    "  --inject-oversize SEQ  after message SEQ, send one whose payload is over fecd's\n"
	    "                       limit (65 MiB): fecd's ZMQ drops the connection, the feed\n"
	    "                       connects again and goes on\n",
	    f);
	fputs("Channel models (--channel-model):\n", f);
	for (unsigned i = 0; i < fec_channel_model_count(); i++) {
		const struct fec_channel_model *m = fec_channel_model_at(i);

		fprintf(f, "  %-20s %s\n", m->name, m->help);
		for (const struct fec_channel_param *p = m->params; p->name; p++)
			fprintf(f, "    %s=%g..%g (default %g): %s\n", p->name, p->min, p->max,
			        p->def, p->help);
	}
}

static int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (parse_u64_arg(s, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* fecd-feed's own options; the shared ones are opts_common.h's. */
enum {
	OPT_SNDTIMEO = CLIENT_OPT_OWN,
	OPT_DELAY,
	OPT_SWITCH,
	OPT_CHANNEL_MODEL,
	OPT_EBN0,
	OPT_NOISELESS,
	OPT_FORMAT,
	OPT_SCALE,
	OPT_POLARITY,
	OPT_CHANNEL,
	OPT_BITS,
	OPT_MSGSYMS,
	OPT_NOEOS,
	OPT_FRAMES,
	OPT_GNURADIO,
	OPT_GRTAGS,
	OPT_RATE,
	OPT_SKIP,
	OPT_BAD,
	OPT_OVERSIZE,
	OPT_ASM,
	OPT_INVERT,
	OPT_JUNK,
	OPT_IMAGE,
};

static const struct option feed_longopts[] = {
    CLIENT_OPTS_LONGOPTS,
    {"send-timeout", 1, 0, OPT_SNDTIMEO},
    {"start-delay", 1, 0, OPT_DELAY},
    {"switch", 1, 0, OPT_SWITCH},
    {"channel-model", 1, 0, OPT_CHANNEL_MODEL},
    {"ebn0", 1, 0, OPT_EBN0},
    {"noiseless", 0, 0, OPT_NOISELESS},
    {"format", 1, 0, OPT_FORMAT},
    {"scale", 1, 0, OPT_SCALE},
    {"polarity", 1, 0, OPT_POLARITY},
    {"channel", 1, 0, OPT_CHANNEL},
    {"bits", 1, 0, OPT_BITS},
    {"msg-syms", 1, 0, OPT_MSGSYMS},
    {"no-eos", 0, 0, OPT_NOEOS},
    {"frames", 1, 0, OPT_FRAMES},
    {"gnuradio", 0, 0, OPT_GNURADIO},
    {"gr-tags", 0, 0, OPT_GRTAGS},
    {"rate", 1, 0, OPT_RATE},
    {"skip-seq", 1, 0, OPT_SKIP},
    {"inject-bad", 0, 0, OPT_BAD},
    {"inject-oversize", 1, 0, OPT_OVERSIZE},
    {"asm", 0, 0, OPT_ASM},
    {"invert", 2, 0, OPT_INVERT},
    {"junk", 1, 0, OPT_JUNK},
    {"binary-image", 1, 0, OPT_IMAGE},
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

int feed_parse_args(int argc, char **argv, struct feed_opts *o)
{
	int c, delay_set = 0;

	*o = (struct feed_opts){
	    .send_timeout_ms = -1,
	    .frames = 100,
	    .channel = 1,
	    .msg_syms = FEED_DEFAULT_MSG_SYMS,
	    .channel_model = "awgn",
	    .ebn0 = 7.0,
	    .scale = -1.0f,
	    .format = FECD_FMT_S8_LLR,
	};
	client_opts_defaults(&o->common, CLIENT_SENDER);
	while ((c = getopt_long(argc, argv, CLIENT_OPTS_SHORT, feed_longopts, NULL)) != -1) {
		char *arg = optarg, *colon;
		double d;

		switch (client_opts_handle(&o->common, c, arg)) {
		case CLIENT_OPT_TAKEN:
			continue;
		case CLIENT_OPT_BAD_VALUE:
			goto bad;
		case CLIENT_OPT_HELP_ASKED:
			usage(stdout);
			return 1;
		case CLIENT_OPT_NOT_SHARED:
			break;
		}
		switch (c) {
		case OPT_SNDTIMEO:
			o->send_timeout_ms = atoi(arg);
			break;
		case OPT_DELAY:
			o->start_delay_ms = atoi(arg);
			delay_set = 1;
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
		case OPT_EBN0:
			d = strtod(arg, &colon);
			if (*colon || !isfinite(d))
				goto bad;
			o->ebn0 = d;
			break;
		case OPT_CHANNEL_MODEL:
			o->channel_model = arg;
			break;
		case OPT_NOISELESS:
			o->noiseless = true;
			break;
		case OPT_IMAGE:
			o->binary_image = arg;
			break;
		case OPT_FORMAT:
			o->format = fecd_format_from_name(arg);
			if (o->format < 0)
				goto bad;
			o->format_set = true;
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
		case OPT_FRAMES:
			if (parse_u64_arg(arg, &o->frames))
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
		default:
			usage(stderr);
			return -1;
		}
		continue;
	bad:
		client_opts_bad_value("fecd-feed", feed_longopts, c, arg);
		return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "fecd-feed: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (client_opts_finish(&o->common, o->channel, "fecd-feed"))
		return -1;
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
	if (o->invert_to && !o->asm_stream && (o->invert_from || o->invert_to != UINT64_MAX)) {
		fprintf(stderr, "fecd-feed: --invert=A:B goes with --asm (without it, every symbol "
		                "is negated)\n");
		return -1;
	}
	if (o->junk && !o->asm_stream) {
		fprintf(stderr, "fecd-feed: --junk goes with --asm\n");
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
