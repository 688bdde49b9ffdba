/*
 * The command-line options fecd-feed and fecd-sink share (opts_common.c): one getopt_long table
 * fragment, one handler and one usage block, so that an option both ends of a link must agree on
 * (the seed, the frame lengths, the split, the code, ...) is parsed and described in one place.
 *
 * Each client keeps the values in its own options struct, whose first member is
 * CLIENT_OPTS_MEMBER: a union of struct client_opts (`o->common`, what the handler fills) and the
 * same fields unnamed (`o->seed`), as Linux's struct_group() does, so the clients read the shared
 * values as their own fields.
 */
#ifndef FECD_OPTS_COMMON_H
#define FECD_OPTS_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common.h"
#include "fec.h"

/* Which end of the link the options are for: their defaults and help differ. */
enum client_role { CLIENT_SENDER, CLIENT_RECEIVER };

#define CLIENT_OPTS_FIELDS                                                                         \
	enum client_role role;                                                                     \
	const char *endpoint;                    /* --endpoint */                                  \
	int sock_type;                           /* --socket: ZMQ_PUSH/PUB, or ZMQ_PULL/SUB */     \
	bool bind;                               /* --bind, --connect */                           \
	int hwm;                                 /* --hwm */                                       \
	const char *curve_secret, *curve_server; /* key files; NULL: no CURVE */                   \
	const char *code;                        /* --code (the sink's: NULL when not given) */    \
	uint64_t seed;                           /* --seed */                                      \
	const char *input;                       /* --input: a file of information bits */         \
	struct frame_sched sched;                /* --frame-bits */                                \
	bool sched_set;                          /* --frame-bits given */                          \
	uint32_t split;                          /* --split: messages per frame */                 \
	uint64_t seq_start;                      /* --seq-start */                                 \
	uint64_t bit_start;                      /* --bit-start: streams' first information bit */ \
	const char *stamps;                      /* --stamps */                                    \
	uint64_t replay;                         /* --replay: period in bits; 0: none */           \
	const char *config;                      /* -c, --config: fecd's configuration file */     \
	const char *codes_dir;                   /* --codes-dir */                                 \
	bool endpoint_set, socket_set, bind_set; /* given on the command line, over -c's */

struct client_opts {
	CLIENT_OPTS_FIELDS
};

/* The first member of each client's options struct. */
#define CLIENT_OPTS_MEMBER                                                                         \
	union {                                                                                    \
		struct client_opts common;                                                         \
		struct {                                                                           \
			CLIENT_OPTS_FIELDS                                                         \
		};                                                                                 \
	}

/* getopt_long values of the shared options; a client numbers its own from CLIENT_OPT_OWN. */
enum {
	CLIENT_OPT_ENDPOINT = 256,
	CLIENT_OPT_SOCKET,
	CLIENT_OPT_BIND,
	CLIENT_OPT_CONNECT,
	CLIENT_OPT_HWM,
	CLIENT_OPT_CURVE_SECRET,
	CLIENT_OPT_CURVE_SERVER,
	CLIENT_OPT_CODE,
	CLIENT_OPT_SEED,
	CLIENT_OPT_INPUT,
	CLIENT_OPT_FRAMEBITS,
	CLIENT_OPT_SPLIT,
	CLIENT_OPT_SEQSTART,
	CLIENT_OPT_BITSTART,
	CLIENT_OPT_STAMPS,
	CLIENT_OPT_REPLAY,
	CLIENT_OPT_HELP,
	CLIENT_OPT_CODES_DIR,
	CLIENT_OPT_OWN, /* first value free for a client's own options */
};

/* The table fragment: the first entries of each client's struct option array. */
#define CLIENT_OPTS_LONGOPTS                                                                       \
	{"endpoint", required_argument, 0, CLIENT_OPT_ENDPOINT},                                   \
	    {"socket", required_argument, 0, CLIENT_OPT_SOCKET},                                   \
	    {"bind", no_argument, 0, CLIENT_OPT_BIND},                                             \
	    {"connect", no_argument, 0, CLIENT_OPT_CONNECT},                                       \
	    {"hwm", required_argument, 0, CLIENT_OPT_HWM},                                         \
	    {"curve-secret-key", required_argument, 0, CLIENT_OPT_CURVE_SECRET},                   \
	    {"curve-server-key", required_argument, 0, CLIENT_OPT_CURVE_SERVER},                   \
	    {"code", required_argument, 0, CLIENT_OPT_CODE},                                       \
	    {"seed", required_argument, 0, CLIENT_OPT_SEED},                                       \
	    {"input", required_argument, 0, CLIENT_OPT_INPUT},                                     \
	    {"frame-bits", required_argument, 0, CLIENT_OPT_FRAMEBITS},                            \
	    {"split", required_argument, 0, CLIENT_OPT_SPLIT},                                     \
	    {"seq-start", required_argument, 0, CLIENT_OPT_SEQSTART},                              \
	    {"bit-start", required_argument, 0, CLIENT_OPT_BITSTART},                              \
	    {"stamps", required_argument, 0, CLIENT_OPT_STAMPS},                                   \
	    {"replay", required_argument, 0, CLIENT_OPT_REPLAY},                                   \
	    {"codes-dir", required_argument, 0, CLIENT_OPT_CODES_DIR},                             \
	    {"config", required_argument, 0, 'c'},                                                 \
	{                                                                                          \
		"help", no_argument, 0, CLIENT_OPT_HELP                                            \
	}

/* The role's defaults: fecd's default endpoints (5550 in, 5551 out), PUSH or PULL connecting,
 * high-water mark 1000, seed 1, frames of 1024 bits, one message per frame; the sender's code
 * ccsds. */
void client_opts_defaults(struct client_opts *c, enum client_role role);

/* What client_opts_handle did with one getopt_long result. */
enum client_opt_result {
	CLIENT_OPT_NOT_SHARED, /* not a shared option: the client's own (or unknown) */
	CLIENT_OPT_TAKEN,      /* a shared option, stored in c */
	CLIENT_OPT_BAD_VALUE,  /* a shared option whose value was refused: nothing printed */
	CLIENT_OPT_HELP_ASKED, /* --help or -h: the client prints its usage and stops */
};
enum client_opt_result client_opts_handle(struct client_opts *c, int opt, const char *arg);

/* The getopt_long short options of both clients: -h, -c FILE. */
#define CLIENT_OPTS_SHORT "hc:"

/* After the command line: -c's file (the codes folder, and channel's endpoint, socket kind and
 * side where the command line did not give them) and --codes-dir, which wins over the file's;
 * either is the codes folder the client's codes are built from (fec_codes_dir_set). Returns 0, or
 * -1 after printing why. */
int client_opts_finish(struct client_opts *c, uint32_t channel, const char *who);

/* The usage lines of the shared options, worded for the role. */
void client_opts_usage(FILE *f, enum client_role role);

/* Frame lengths from the code: where its frames carry a fixed number of information bits
 * (fec_info.frame_info_bits: LDPC's k), that is the schedule, and a --frame-bits that says
 * otherwise is refused. Returns 0, or -1 after printing why. */
int client_opts_code_frames(struct client_opts *c, const struct fec_info *info, const char *who);

/* The message for a refused value: "WHO: bad value for --NAME: 'ARG' (see --help)". */
void client_opts_bad_value(const char *who, const struct option *opts, int opt, const char *arg);

#endif
