/*
 * The service object's life, for main.c, and what the data path asks of it. fecd.h holds the
 * channel operations control and configuration use; this adds start, drain and teardown.
 */
#ifndef FECD_SERVICE_H
#define FECD_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fecd.h"

/* Makes the service: ZMQ context, backend, the global settings of cfg (channels are created
 * separately with fecd_channel_create). */
int fecd_create(uv_loop_t *loop, const struct fecd_config *cfg, struct fecd **out, char *err,
                size_t errlen);
/* Creates every channel of cfg; stops at the first failure. */
int fecd_create_channels(struct fecd *d, const struct fecd_config *cfg, char *err, size_t errlen);
/* Stops reading everywhere, publishes what was accepted (the output gets linger_ms to leave),
 * then calls done. A second call makes every channel give up on its output at once. */
void fecd_drain(struct fecd *d, void (*done)(struct fecd *d));
bool fecd_draining(const struct fecd *d);
/* After the loop has ended: closes ZMQ (waiting out the sockets' linger), stops the backend. */
void fecd_destroy(struct fecd *d);

/* Totals over the channels for STATUS= lines. */
struct fecd_totals {
	unsigned channels;
	double in_syms_per_s, out_bits_per_s;
	uint64_t bad_msgs, failures;
};
void fecd_totals(struct fecd *d, struct fecd_totals *t);
/* Closes every channel's throughput window (called each stats interval). */
void fecd_stats_tick(struct fecd *d);

/* After a reload: records the global settings that changed live (the log level). */
void fecd_set_globals(struct fecd *d, const struct fecd_config *cfg);

/* For the data path. */
void *fecd_zmq_ctx(struct fecd *d);
/* ZMQ_AFFINITY for a new input or output socket: which I/O thread serves it. */
uint64_t fecd_zmq_affinity(struct fecd *d, bool input);
void fecd_channel_closed(struct fecd *d, struct channel *ch);
bool fecd_endpoint_releasing(struct fecd *d, const char *endpoint);
void fecd_endpoint_released(struct fecd *d, const char *endpoint);
/* The ZAP handler of the context (curve.h), started on first use when start is true; NULL when
 * it is not running (err says why when it could not start). */
struct zap;
struct zap *fecd_zap(struct fecd *d, bool start, char *err, size_t errlen);

/* channel.c; these run on the channel's loop thread (service.c posts them there). Both take the
 * epoch built for cc (fecd_epoch_build), whatever they return: they build nothing slow. */
struct data_loop;
int channel_create(struct fecd *d, struct data_loop *dl, uv_loop_t *loop,
                   const struct chan_config *cc, struct epoch *ep, struct channel **out, char *err,
                   size_t errlen);
int channel_update(struct channel *ch, const struct chan_config *cc, struct epoch *ep,
                   uint64_t at_seq, char *err, size_t errlen);
void channel_close(struct channel *ch, uint32_t linger_ms,
                   void (*on_closed)(struct channel *ch, void *arg), void *arg);

#endif
