/*
 * Helpers shared by the protocol tests: a seeded PRNG for the fuzz loops, exact-size heap copies
 * (so valgrind or ASan flag any read past what a parser was given), a hex decoder for expected
 * bytes written by hand, and a check that a return value is 0 or one of the defined errors.
 */
#ifndef FECD_TEST_PROTO_UTIL_H
#define FECD_TEST_PROTO_UTIL_H

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fecd_proto.h"

/* Number of defined parser errors (FECD_PROTO_E* run from 1 to this). */
#define X(name, msg) +1
static const int proto_nerr = 0 FECD_PROTO_ERRNO_MAP(X);
#undef X

static inline int is_defined_result(long r)
{
	return r == 0 || (r < 0 && r >= -proto_nerr);
}

static uint64_t test_rng_state = 0x9e3779b97f4a7c15ull;

static inline void test_rng_seed(uint64_t s)
{
	test_rng_state = s ? s : 1;
}

/* xorshift64*: fixed seed, so every run mutates the same way. */
static inline uint64_t test_rng(void)
{
	uint64_t x = test_rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	test_rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline uint32_t test_rng_below(uint32_t n)
{
	return n ? (uint32_t)(test_rng() % n) : 0;
}

/* A heap copy of exactly len bytes (at least one allocated byte so malloc(0) is never asked). */
static inline uint8_t *dup_exact(const void *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);
	if (!p)
		abort();
	if (len)
		memcpy(p, src, len);
	return p;
}

/* Decodes hex digits into out, skipping spaces, newlines and '|' separators; returns bytes. */
static inline size_t hex_decode(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int c = (unsigned char)*hex, v;
		if (isspace(c) || c == '|')
			continue;
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			abort();
		if (hi < 0) {
			hi = v;
		} else {
			if (n == cap)
				abort();
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi >= 0)
		abort();
	return n;
}

/* Mutates a message in place (flip, set, or randomise a few bytes); returns the new length, which
 * may be shorter (truncation) or longer (random bytes appended, up to cap). */
static inline size_t mutate(uint8_t *buf, size_t len, size_t cap)
{
	unsigned kind = test_rng_below(6);
	unsigned edits = 1 + test_rng_below(4);

	switch (kind) {
	case 0: /* truncate */
		return test_rng_below((uint32_t)len + 1);
	case 1: /* append garbage */
		while (len < cap && edits--)
			buf[len++] = (uint8_t)test_rng();
		return len;
	case 2: /* extreme values at random positions */
		while (len && edits--)
			buf[test_rng_below((uint32_t)len)] = test_rng() & 1 ? 0xff : 0x00;
		return len;
	default: /* bit flips and random bytes */
		while (len && edits--) {
			size_t at = test_rng_below((uint32_t)len);
			if (kind == 3)
				buf[at] ^= (uint8_t)(1u << test_rng_below(8));
			else
				buf[at] = (uint8_t)test_rng();
		}
		return len;
	}
}

#endif
