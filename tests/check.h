/*
 * A minimal test harness: CHECK records a failure with its location and goes on; check_done prints
 * "N passed, N failed" and returns the process's exit status. A test that needs data it cannot find
 * calls check_skip, which exits with 77 (ctest's SKIP_RETURN_CODE in this project).
 */
#ifndef FECD_CHECK_H
#define FECD_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static unsigned check_passed, check_failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			check_passed++;                                                            \
		} else {                                                                           \
			check_failed++;                                                            \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);  \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

static inline int check_done(void)
{
	printf("%u passed, %u failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

static inline void check_skip(const char *why)
{
	printf("SKIP: %s\n", why);
	exit(77);
}

#endif
