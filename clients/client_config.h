/*
 * What the clients take from fecd's own configuration file (`-c FILE`, the file fecd runs with):
 * the codes folder (fecd-feed and fecd-sink build codes from it as fecd does), a channel's input
 * or output endpoint with the socket kind and side that talks to it (the clients connect where
 * fecd binds, and the other way round), and the control socket and TCP token file (fecdctl).
 * Only these keys are read, with fecd's defaults where the file leaves them out; the daemon's
 * own reader (daemon/control/config.c) checks everything else.
 */
#ifndef FECD_CLIENT_CONFIG_H
#define FECD_CLIENT_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#define CLIENT_CONFIG_TEXT_MAX 512

/* One side of a channel, as a client that talks to it sees it. */
struct client_config_side {
	char endpoint[CLIENT_CONFIG_TEXT_MAX]; /* where to connect (or bind); a wildcard host of
	                                        * fecd's bind ("*", 0.0.0.0, [::]) becomes loopback
	                                        */
	bool fecd_binds;                       /* so the client connects */
	bool pubsub; /* SUB input or PUB output: the client's PUB or SUB */
};

struct client_config {
	char codes_dir[CLIENT_CONFIG_TEXT_MAX];  /* "" where the file sets none */
	char socket[CLIENT_CONFIG_TEXT_MAX];     /* control.socket, "" where it sets none */
	char token_file[CLIENT_CONFIG_TEXT_MAX]; /* control.token_file, "" where it sets none */
	bool have_channel;                       /* the channel asked for is in the file */
	struct client_config_side in, out;       /* that channel's input and output */
};

/* Reads path, and the channel whose id is channel (a file without "channels" has fecd's default
 * channel, id 1, on fecd's default endpoints). Returns 0, or -1 after printing, prefixed with who,
 * why: the file cannot be read, is not JSON (the line, the column and what was found there), or
 * a key read here has the wrong type. */
int client_config_read(const char *path, uint32_t channel, struct client_config *cfg,
                       const char *who);

/* The message for JSON text that does not parse: "LINE:COL: expected ..., found ..." from the
 * position cJSON stopped at, naming what was found there (a character, the end of the text, or
 * a word cut to 16 characters), never more of the text. Writes at most len bytes to buf. */
void client_json_error(const char *text, const char *stop, char *buf, unsigned long len);

#endif
