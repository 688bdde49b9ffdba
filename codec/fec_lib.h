/*
 * What libfecd.so adds for its users (docs/libfecd.md): the library's version, and the sizes of
 * the structs a binding lays out itself (python/fecd.py declares them with ctypes and checks
 * them against these at load, so that a struct changed here fails loudly there rather than
 * corrupting memory).
 */
#ifndef FEC_LIB_H
#define FEC_LIB_H

#include <stddef.h>

/* "MAJOR.MINOR.PATCH", the project's version (the shared library's SONAME carries MAJOR). */
const char *fec_version(void);

/* sizeof the named struct: "fec_spec", "fec_info", "fec_job", "fec_batch", "fec_prng",
 * "fec_channel", "fec_channel_link"; 0 for another name. */
size_t fec_abi_size(const char *name);

#endif
