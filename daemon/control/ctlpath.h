/*
 * Where the control socket lives when nothing says otherwise. One rule, shared by the daemon and
 * fecdctl (clients/ compiles daemon/control/ctlpath.c too), so both look in the same place:
 *   1. $RUNTIME_DIRECTORY/control.sock      when systemd gave us a RuntimeDirectory=;
 *   2. /run/fecd/control.sock               when /run/fecd exists (or, for the daemon, can be
 *                                           created) and is writable;
 *   3. ${XDG_RUNTIME_DIR:-/tmp}/fecd-control.sock otherwise.
 * The client never creates directories; it takes the first candidate whose socket exists, and
 * the rule's own answer when none does.
 */
#ifndef FECD_CTLPATH_H
#define FECD_CTLPATH_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the default socket path into buf. Returns 0, or -ENAMETOOLONG when it does not fit (a
 * socket path must fit sun_path: 108 bytes with its NUL). *why (optional) gets a short phrase
 * naming the rule that chose it, for the log. for_daemon: may create /run/fecd. */
int fecd_control_path_default(char *buf, size_t len, bool for_daemon, const char **why);

#endif
