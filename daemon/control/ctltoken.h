/*
 * The TCP control token: a secret in a file that fecd writes (or reads, when an administrator put
 * one there) and fecdctl reads. A TCP control client sends it with the "auth" method before any
 * other; the Unix socket needs none (its file mode, 0660 for the fecd group, is the guard). The
 * file lives beside the control socket by default, so the group that may use the socket may read
 * the token, and nobody else.
 *
 * Plain libc, like ctlpath.c, so that fecdctl compiles it too.
 */
#ifndef FECD_CTLTOKEN_H
#define FECD_CTLTOKEN_H

#include <stdbool.h>
#include <stddef.h>

#define CTL_TOKEN_MIN 16  /* characters: a token shorter than this is refused */
#define CTL_TOKEN_MAX 256 /* characters, without the NUL */

/* The token file that belongs to a control socket: "DIR/NAME.token" for "DIR/NAME.sock" (else the
 * socket path with ".token" appended). 0 or -ENAMETOOLONG. */
int ctl_token_path(const char *socket_path, char *buf, size_t len);

/* Reads a token file: a regular file holding one line of CTL_TOKEN_MIN..CTL_TOKEN_MAX printable
 * characters (trailing white space ignored). for_daemon: the file must also belong to this user
 * or root and be closed to others (an attacker's file in a shared folder must not set the token).
 * 0, or a negative errno with err saying what was wrong and what is expected. */
int ctl_token_read(const char *path, bool for_daemon, char *token, size_t len, char *err,
                   size_t errlen);

/* Makes a fresh random token (hex from getrandom) and writes it to path, which must not exist,
 * mode 0640. 0, or a negative errno with err set. */
int ctl_token_create(const char *path, char *token, size_t len, char *err, size_t errlen);

/* Compares a token a client sent with the right one, in time that does not depend on where they
 * differ. */
bool ctl_token_equal(const char *sent, const char *token);

#endif
