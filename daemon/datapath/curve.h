/*
 * ZMQ CURVE on the data sockets. Where a channel binds, fecd is the CURVE server: it needs its
 * secret key file and a file of the client public keys allowed in, which a ZAP handler (RFC 27,
 * on inproc://zeromq.zap.01 in fecd's context, on a thread of its own) checks at every handshake.
 * Where a channel connects, fecd is the CURVE client: its own key pair and the server's public
 * key. Keys come from files only (curve_keys.h); the configuration holds their paths.
 *
 * Each server socket gets a ZAP domain of its own ("fecd.N"), under which the handler finds its
 * allowed keys; a channel's domains are forgotten when it closes. A refused key is logged once
 * per socket (the key is public) and counted by the socket's monitor (handshake_failures).
 */
#ifndef FECD_CURVE_H
#define FECD_CURVE_H

#include <stddef.h>

#include "fecd.h"

#define CURVE_DOMAIN_MAX 32

struct zap;

/* Starts the ZAP handler on ctx (its socket is bound when this returns). */
int zap_start(void *zctx, struct zap **out, char *err, size_t errlen);
/* Stops it; call before zmq_ctx_term, once no CURVE server socket is left. */
void zap_stop(struct zap *z);

/* Sets up CURVE on a channel socket from ec (nothing when ec has no secret key file). A server
 * socket's domain is written to domain (else it is left empty). label names the socket for the
 * log ("channel ccsds input"). Returns 0 or a negative errno with err naming the setting. */
int curve_socket_setup(struct fecd *d, void *sock, const struct endpoint_config *ec,
                       const char *what, const char *label, char domain[CURVE_DOMAIN_MAX],
                       char *err, size_t errlen);
/* Drops a closed server socket's allowed keys (domain empty: nothing). */
void curve_socket_forget(struct fecd *d, const char *domain);

#endif
