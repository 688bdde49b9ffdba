/*
 * What every fuzz harness shares: the libFuzzer entry points they define, and FUZZ_CHECK, a
 * property that must hold for every input (a round trip, a length within bounds). A failed check
 * prints what broke and aborts, which libFuzzer reports as a crash with the input saved, and
 * which fails the replay programs of builds without libFuzzer (replay.c).
 */
#ifndef FECD_FUZZ_H
#define FECD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fec.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                                      \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__, __LINE__,        \
			        #cond);                                                            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The input as a NUL-terminated heap string of exactly size + 1 bytes (text parsers take C
 * strings; the exact size lets ASan see any read past the end). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		abort();
	if (size)
		memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* Gives code building (files, generated codes, encoders) this long from now on the calling
 * thread (fec_build_deadline_set): past it the codec returns -FEC_ETIME, as it does for the
 * service, and one input cannot stall the fuzzer. fuzz_build_overrun says how far past the
 * deadline the building went on: the codec looks at the deadline often enough that it stays
 * within FUZZ_BUILD_SLACK_SECONDS (on a loaded machine, with ASan). */
#define FUZZ_BUILD_SECONDS       1
#define FUZZ_BUILD_SLACK_SECONDS 5

static inline double fuzz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void fuzz_build_deadline(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	fec_build_deadline_set((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec +
	                       FUZZ_BUILD_SECONDS * 1000000000ull);
}

static inline double fuzz_build_overrun(void)
{
	return fuzz_now() - (double)fec_build_deadline() * 1e-9;
}

#endif
