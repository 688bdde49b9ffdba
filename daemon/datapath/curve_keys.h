/*
 * ZMQ CURVE key files, shared by fecd and its clients (fecd-feed and fecd-sink compile
 * curve_keys.c too): reading them with checks that name the file, the line and what was expected
 * (never quoting a file's contents), and writing a new key pair.
 *
 * A key is 40 characters of Z85 text (32 bytes), as zmq_curve_keypair writes it. A key file
 * holds one key on a line of its own; blank lines and lines starting with '#' are comments, and
 * on a key line anything after the key and a space is a comment too. A secret key file must not
 * be readable or writable by others (mode 0600, or 0640 for a group such as fecd's); a list of
 * client keys must not be writable by others. Files are at most CURVE_FILE_MAX bytes and must be
 * regular files.
 */
#ifndef FECD_CURVE_KEYS_H
#define FECD_CURVE_KEYS_H

#include <stddef.h>
#include <stdint.h>

#define CURVE_KEY_Z85_LEN 40
#define CURVE_KEY_BYTES   32
#define CURVE_FILE_MAX    (1u << 20)
#define CURVE_LIST_MAX    4096 /* keys in a list of allowed clients */

struct curve_keypair {
	char public_z85[CURVE_KEY_Z85_LEN + 1];
	char secret_z85[CURVE_KEY_Z85_LEN + 1];
};

/* Reads a secret key file and derives its public key. Returns 0 or a negative errno with err
 * set ("PATH: ..."). */
int curve_read_secret(const char *path, struct curve_keypair *kp, char *err, size_t errlen);
/* Reads a file holding one public key. */
int curve_read_public(const char *path, char z85[CURVE_KEY_Z85_LEN + 1], char *err, size_t errlen);
/* Reads a list of public keys (at least one, at most CURVE_LIST_MAX) into a malloc'ed array. */
int curve_read_list(const char *path, uint8_t (**keys)[CURVE_KEY_BYTES], unsigned *n, char *err,
                    size_t errlen);
/* Makes a key pair and writes PREFIX.key (the secret key, mode 0600) and PREFIX.pub (the public
 * key, mode 0644); neither may exist yet. */
int curve_keygen(const char *prefix, struct curve_keypair *kp, char *err, size_t errlen);

#endif
