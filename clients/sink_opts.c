/*
 * fecd-sink's command line: long options only, each checked with a message that names the option
 * and the value it did not accept; the options fecd-feed shares are opts_common.c's. The defaults
 * make a plain `fecd-sink` the receiving end of a plain `fecd-feed` through a daemon on its
 * default endpoints.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

static void usage(FILE *f)
{
	fputs("usage: fecd-sink [options]\n", f);
	client_opts_usage(f, CLIENT_RECEIVER);
	fputs(
	    "  --pdu                messages are GNU Radio PDUs, not native fecd messages\n"
	    "  --frame-index seq|count   frame index from in_seq (default) or frame_seq\n"
	    "  --expect-bits N | --expect-frames N   stop when delivered, fail when not\n"
	    "  --until-eos[=N]      stop after the sender's Nth END_OF_STREAM (default 1); the\n"
	    "                       ends fecd makes (code changes, gaps) are followed, not "
	    "counted\n"
	    "  --timeout MS         stop after this much silence (default 5000)\n"
	    "  --deadline MS        stop after this long in all (default: none)\n"
	    "  --max-ber X          highest bit error rate that passes (default 0)\n"
	    "  --max-fer X          highest frame/message error rate that passes (default: any)\n"
	    "                       a frame (stream: message) error is one with a wrong bit, or\n"
	    "                       with status not_converged or erased even where its bits are "
	    "right\n"
	    "  --allow-loss, --allow-reorder   do not fail on lost / duplicate / reordered data\n"
	    "  --latency-log FILE   with --stamps: each sample as a line \"SENT_S RECEIVED_S SEQ\n"
	    "                       LATENCY_MS\" (times from the first send), to see when it grew\n"
	    "  --json               print the report as one JSON object\n"
	    "  --window N           a message may place itself at most N units past those that\n"
	    "                       arrived (default 2^32 bits, 2^20 frames); beyond: an error\n"
	    "  --max-msg-bytes N    largest message part accepted (default 64 MiB)\n"
	    "  --channel N          with -c: the channel whose output to read (default 1)\n"
	    "  --instance HEX       the channel's instance (fecdctl channel.get): output of "
	    "another\n"
	    "                       (an earlier channel's, on the same endpoint) is stale, "
	    "unchecked\n"
	    "Soft values (part 3, fecd's output.soft) are checked wherever they come: their\n"
	    "count against the decoded bits, and each bit LLR's sign against its decoded bit;\n"
	    "with --code, q-ary symbol log-probabilities (nbldpc, ids): each symbol's sum to 1\n"
	    "and the most probable is its decoded bits.\n",
	    f);
}

/* fecd-sink's own options; the shared ones are opts_common.h's. */
enum {
	OPT_PDU = CLIENT_OPT_OWN,
	OPT_FRAMEINDEX,
	OPT_EXPBITS,
	OPT_EXPFRAMES,
	OPT_EOS,
	OPT_TIMEOUT,
	OPT_DEADLINE,
	OPT_MAXBER,
	OPT_MAXFER,
	OPT_ALLOWLOSS,
	OPT_ALLOWREORDER,
	OPT_LATLOG,
	OPT_JSON,
	OPT_WINDOW,
	OPT_MAXMSG,
	OPT_CHANNEL,
	OPT_INSTANCE,
};

static const struct option sink_longopts[] = {
    CLIENT_OPTS_LONGOPTS,
    {"pdu", 0, 0, OPT_PDU},
    {"frame-index", 1, 0, OPT_FRAMEINDEX},
    {"expect-bits", 1, 0, OPT_EXPBITS},
    {"expect-frames", 1, 0, OPT_EXPFRAMES},
    {"until-eos", 2, 0, OPT_EOS},
    {"timeout", 1, 0, OPT_TIMEOUT},
    {"deadline", 1, 0, OPT_DEADLINE},
    {"max-ber", 1, 0, OPT_MAXBER},
    {"max-fer", 1, 0, OPT_MAXFER},
    {"allow-loss", 0, 0, OPT_ALLOWLOSS},
    {"allow-reorder", 0, 0, OPT_ALLOWREORDER},
    {"latency-log", 1, 0, OPT_LATLOG},
    {"json", 0, 0, OPT_JSON},
    {"window", 1, 0, OPT_WINDOW},
    {"max-msg-bytes", 1, 0, OPT_MAXMSG},
    {"channel", 1, 0, OPT_CHANNEL},
    {"instance", 1, 0, OPT_INSTANCE},
    {0, 0, 0, 0},
};

static int parse_rate(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.0 && v <= 1.0))
		return -1;
	*out = v;
	return 0;
}

int sink_parse_args(int argc, char **argv, struct sink_opts *o)
{
	uint64_t v;
	int c;

	*o = (struct sink_opts){
	    .timeout_ms = 5000,
	    .channel = 1,
	    .max_msg_bytes = SINK_MAX_MSG_BYTES,
	};
	client_opts_defaults(&o->common, CLIENT_RECEIVER);
	while ((c = getopt_long(argc, argv, CLIENT_OPTS_SHORT, sink_longopts, NULL)) != -1) {
		const char *arg = optarg;

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
		case OPT_PDU:
			o->pdu = true;
			break;
		case OPT_FRAMEINDEX:
			if (strcmp(arg, "seq") && strcmp(arg, "count"))
				goto bad;
			o->frame_index_count = !strcmp(arg, "count");
			break;
		case OPT_EXPBITS:
			if (parse_u64_arg(arg, &o->expect_bits))
				goto bad;
			break;
		case OPT_EXPFRAMES:
			if (parse_u64_arg(arg, &o->expect_frames))
				goto bad;
			break;
		case OPT_EOS:
			o->until_eos = 1;
			if (arg && (parse_u64_arg(arg, &o->until_eos) || !o->until_eos))
				goto bad;
			break;
		case OPT_TIMEOUT:
			if (parse_u64_arg(arg, &v) || !v || v > INT32_MAX)
				goto bad;
			o->timeout_ms = (int)v;
			break;
		case OPT_DEADLINE:
			if (parse_u64_arg(arg, &v) || v > INT32_MAX)
				goto bad;
			o->deadline_ms = (int)v;
			break;
		case OPT_MAXBER:
			if (parse_rate(arg, &o->max_ber))
				goto bad;
			break;
		case OPT_MAXFER:
			if (parse_rate(arg, &o->max_fer))
				goto bad;
			o->max_fer_set = true;
			break;
		case OPT_ALLOWLOSS:
			o->allow_loss = true;
			break;
		case OPT_ALLOWREORDER:
			o->allow_reorder = true;
			break;
		case OPT_LATLOG:
			o->latency_log = arg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_WINDOW:
			if (parse_u64_arg(arg, &o->window) || !o->window)
				goto bad;
			break;
		case OPT_CHANNEL:
			if (parse_u64_arg(arg, &v) || v > UINT32_MAX)
				goto bad;
			o->channel = (uint32_t)v;
			break;
		case OPT_INSTANCE: {
			char *end;
			errno = 0;
			o->instance = strtoull(arg, &end, 16);
			if (errno || end == arg || *end || !o->instance)
				goto bad;
			break;
		}
		case OPT_MAXMSG:
			if (parse_u64_arg(arg, &v) || !v || v > INT64_MAX)
				goto bad;
			o->max_msg_bytes = (int64_t)v;
			break;
		default:
			usage(stderr);
			return -1;
		}
		continue;
	bad:
		client_opts_bad_value("fecd-sink", sink_longopts, c, arg);
		return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "fecd-sink: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (client_opts_finish(&o->common, o->channel, "fecd-sink"))
		return -1;
	if (o->replay && o->input) {
		fprintf(stderr, "fecd-sink: --replay checks seeded bits, not --input\n");
		return -1;
	}
	return 0;
}
