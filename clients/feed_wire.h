/*
 * The feed's less common wire forms: the gr-zeromq pass_tags header (so the daemon's GNU Radio
 * input is tested against the layout gr-zeromq writes, built here from the format, not from GNU
 * Radio's code), the table of malformed native messages that --inject-bad sends between good
 * ones to check that fecd rejects each with a counter and keeps serving, and the message over
 * fecd's size limit that --inject-oversize sends.
 */
#ifndef FECD_FEED_WIRE_H
#define FECD_FEED_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fecd_proto.h"

/* Largest header gr_tag_header_write produces. */
#define GR_TAG_HEADER_MAX 128

/* Writes a pass_tags header for a message whose first item has absolute index offset; with_tag
 * adds one tag on that item (key "fecd_feed", value the u64 tag_value, srcid "fecd-feed").
 * Returns the header's length. */
size_t gr_tag_header_write(uint8_t *buf, uint64_t offset, bool with_tag, uint64_t tag_value);

/* Number of malformed messages in the table. */
unsigned feed_bad_count(void);
/* Name of entry i (for logs). */
const char *feed_bad_name(unsigned i);
/* Sends entry i, derived from the good message (h, payload) just sent on sock. Returns 0 or -1
 * after printing why. */
int feed_bad_send(void *sock, const struct fecd_in_hdr *h, const uint8_t *payload, size_t len,
                  unsigned i);

/* Payload of the --inject-oversize message: more than fecd's input socket accepts in one part
 * (FECD_MAX_PAYLOAD_BYTES plus header room), so its ZMQ drops the connection. */
#define FEED_OVERSIZE_BYTES (FECD_MAX_PAYLOAD_BYTES + (1u << 20))
/* Sends the good header h with FEED_OVERSIZE_BYTES of zeros as its payload. Returns 0 or -1 after
 * printing why. */
int feed_oversize_send(void *sock, const struct fecd_in_hdr *h);

#endif
