/*
 * The library's version and the struct sizes bindings check (fec_lib.h).
 */
#include <string.h>

#include "channel_model.h"
#include "fec.h"
#include "fec_lib.h"

#ifndef FECD_VERSION
#error "FECD_VERSION is set by codec/CMakeLists.txt"
#endif

const char *fec_version(void)
{
	return FECD_VERSION;
}

size_t fec_abi_size(const char *name)
{
	static const struct {
		const char *name;
		size_t size;
	} sizes[] = {
	    {"fec_spec", sizeof(struct fec_spec)},
	    {"fec_info", sizeof(struct fec_info)},
	    {"fec_job", sizeof(struct fec_job)},
	    {"fec_batch", sizeof(struct fec_batch)},
	    {"fec_prng", sizeof(struct fec_prng)},
	    {"fec_channel", sizeof(struct fec_channel)},
	    {"fec_channel_link", sizeof(struct fec_channel_link)},
	};

	for (size_t i = 0; name && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (strcmp(sizes[i].name, name) == 0)
			return sizes[i].size;
	return 0;
}
