/*
 * What fecd-feed and fecd-sink must agree on beyond the wire protocol: where the information bits
 * come from (a seeded fec_bitstream, or a file read MSB first), the seeded schedule of frame
 * lengths, the stamps file of send times, and small helpers (little-endian fields, the clock).
 */
#ifndef FECD_CLIENTS_COMMON_H
#define FECD_CLIENTS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prng.h"

/* The noise generator's seed is the data seed xor this, so noise and data are independent. */
#define FEED_NOISE_SEED_XOR 0x6e6f697365ull
/* The frame-length schedule's seed is the data seed xor this. */
#define FRAME_SCHED_SEED_XOR 0x6672616d65ull

uint64_t now_ns(void); /* CLOCK_MONOTONIC */
/* A whole non-negative number (decimal, 0x hex or 0 octal) for a command-line option. */
int parse_u64_arg(const char *s, uint64_t *out);
/* The long name of the option whose getopt value is val ("?" if none), for error messages. */
struct option;
const char *opt_name(const struct option *opts, int val);
void put_le64(uint8_t *p, uint64_t v);
uint64_t get_le64(const uint8_t *p);

/* Information bits: bit i of the seeded stream, or bit i of the file (MSB of byte 0 first). */
struct info_source {
	struct fec_bitstream bs;
	uint64_t seed;
	uint8_t *file; /* whole file, or NULL for the seeded stream */
	uint64_t file_bits;
};

/* Opens the source; path NULL means seeded. Returns 0 or -1 after printing why. */
int info_source_open(struct info_source *s, const char *path, uint64_t seed, const char *who);
void info_source_close(struct info_source *s);
/* Bits [pos, pos + n), one per byte. Returns 0, or -1 when a file ends before pos + n. Reading
 * forward is cheap; reading backwards restarts the seeded stream. */
int info_source_read(struct info_source *s, uint64_t pos, size_t n, uint8_t *bits);
/* Total bits a file holds (UINT64_MAX for the seeded stream). */
uint64_t info_source_len(const struct info_source *s);

/* Frame lengths in information bits: fixed (min == max), or min + step * j with j uniform such
 * that the length stays within max, drawn from a PRNG seeded with seed ^ FRAME_SCHED_SEED_XOR, one
 * draw per frame. step exists for codes that take only some lengths (a punctured terminated code
 * needs its bits plus tail to fill whole puncturing periods). */
struct frame_sched {
	uint32_t min_bits, max_bits, step;
};
/* "B", "MIN:MAX" or "MIN:MAX:STEP"; returns 0 or -1. */
int frame_sched_parse(struct frame_sched *fs, const char *text);

/* Frame index -> first information bit, for any index (lengths are drawn on demand and kept). */
struct frame_table {
	struct frame_sched sched;
	struct fec_prng prng;
	uint64_t *start; /* start[i]: first bit of frame i; start[count] is the end of the last */
	uint64_t count, cap;
};
int frame_table_init(struct frame_table *t, const struct frame_sched *fs, uint64_t seed);
void frame_table_free(struct frame_table *t);
/* First bit and length of frame i; returns 0 or -1 (out of memory). */
int frame_table_get(struct frame_table *t, uint64_t i, uint64_t *first, uint32_t *nbits);
/* From frame i on, lengths follow fs (a code change to a code of another k): frames before i
 * keep theirs (drawn now where they were not yet), later ones drawn before are drawn again.
 * Returns 0 or -1 (out of memory). */
int frame_table_switch(struct frame_table *t, uint64_t i, const struct frame_sched *fs);

/* ZMQ CURVE for a client's socket, from key files as fecd reads them
 * (daemon/datapath/curve_keys.h). Connecting: the client role, with this end's secret key and the
 * server's public key (fecd checks the client's key against its clients_file). Binding: the server
 * role with this end's secret key only; without a ZAP handler libzmq lets in any client that knows
 * the public key (encryption, no client check). Nothing when secret_file is NULL. Returns 0, or -1
 * after printing why. */
int client_curve_setup(void *sock, const char *secret_file, const char *server_file, bool bind,
                       const char *who);

/* Stamps file: 16-byte records, u64 seq and u64 CLOCK_MONOTONIC ns, little-endian. */
#define STAMP_RECORD_LEN 16

#endif
