/*
 * systemd service notification (sd_notify) without libsystemd: datagrams on the socket that
 * NOTIFY_SOCKET names. Every call is a no-op when fecd does not run under a notify-type unit.
 */
#ifndef FECD_NOTIFY_H
#define FECD_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

/* Sends one state string ("READY=1", "STATUS=...", "WATCHDOG=1", "STOPPING=1", "RELOADING=1",
 * or several separated by newlines). Returns 0, 0 when there is no socket, or -errno. */
int notify_send(const char *state);
int notify_sendf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The watchdog interval systemd expects a ping within, in microseconds; 0 when not enabled (or
 * enabled for another process, per WATCHDOG_PID). */
uint64_t notify_watchdog_usec(void);

#endif
