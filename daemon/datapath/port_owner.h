/*
 * The process that holds a TCP port, for the message when fecd cannot bind one ("held by process
 * 1234, fecd"), and for waiting where it is another fecd still draining (channel.c).
 */
#ifndef FECD_PORT_OWNER_H
#define FECD_PORT_OWNER_H

#include <stddef.h>

/* The pid of the process listening on a tcp:// endpoint's port, with its name in comm; 0 where
 * the endpoint is not tcp://, nothing listens there, or the holder is not visible to this user. */
long port_owner(const char *endpoint, char *comm, size_t commlen);

#endif
