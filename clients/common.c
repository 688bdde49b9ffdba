/*
 * Helpers shared by fecd-feed and fecd-sink (see common.h): the information-bit source both sides
 * regenerate, the seeded frame-length schedule, little-endian fields for the stamps file, and
 * CURVE for their sockets. daemon/datapath/curve_keys.c is compiled into both, with that folder
 * on their include path, as fecdctl does with daemon/control/ctlpath.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zmq.h>

#include "common.h"
#include "curve_keys.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static int read_whole_file(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = NULL;

	if (!f)
		return -1;
	for (;;) {
		uint8_t *nb = realloc(buf, cap);

		if (!nb)
			goto out_free;
		buf = nb;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
	}
	if (ferror(f))
		goto out_free;
	fclose(f);
	*data = buf;
	*len = n;
	return 0;
out_free:
	free(buf);
	fclose(f);
	if (!errno)
		errno = EIO;
	return -1;
}

int info_source_open(struct info_source *s, const char *path, uint64_t seed, const char *who)
{
	memset(s, 0, sizeof(*s));
	s->seed = seed;
	fec_bitstream_init(&s->bs, seed);
	if (!path)
		return 0;

	size_t len;
	if (read_whole_file(path, &s->file, &len)) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return -1;
	}
	s->file_bits = (uint64_t)len * 8;
	if (!s->file_bits) {
		fprintf(stderr, "%s: %s: empty file: nothing to send\n", who, path);
		info_source_close(s);
		return -1;
	}
	return 0;
}

void info_source_close(struct info_source *s)
{
	free(s->file);
	s->file = NULL;
}

uint64_t info_source_len(const struct info_source *s)
{
	return s->file ? s->file_bits : UINT64_MAX;
}

int info_source_read(struct info_source *s, uint64_t pos, size_t n, uint8_t *bits)
{
	if (s->file) {
		if (pos > s->file_bits || n > s->file_bits - pos)
			return -1;
		for (size_t i = 0; i < n; i++) {
			uint64_t b = pos + i;

			bits[i] = (uint8_t)((s->file[b / 8] >> (7 - b % 8)) & 1u);
		}
		return 0;
	}
	if (pos < s->bs.pos)
		fec_bitstream_init(&s->bs, s->seed);
	fec_bitstream_skip_to(&s->bs, pos);
	fec_bitstream_read(&s->bs, bits, n);
	return 0;
}

int frame_sched_parse(struct frame_sched *fs, const char *text)
{
	unsigned long v[3] = {0, 0, 1};
	const char *p = text;
	char *end;
	int n = 0;

	for (;;) {
		errno = 0;
		v[n++] = strtoul(p, &end, 10);
		if (errno || end == p)
			return -1;
		if (*end != ':' || n == 3)
			break;
		p = end + 1;
	}
	if (n == 1)
		v[1] = v[0];
	if (*end || !v[0] || v[1] < v[0] || v[1] > (1ul << 24) || !v[2] || v[2] > v[1])
		return -1;
	fs->min_bits = (uint32_t)v[0];
	fs->max_bits = (uint32_t)v[1];
	fs->step = (uint32_t)v[2];
	return 0;
}

int frame_table_init(struct frame_table *t, const struct frame_sched *fs, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->sched = *fs;
	fec_prng_seed(&t->prng, seed ^ FRAME_SCHED_SEED_XOR);
	t->cap = 1024;
	t->start = malloc(t->cap * sizeof(*t->start));
	if (!t->start)
		return -1;
	t->start[0] = 0;
	return 0;
}

void frame_table_free(struct frame_table *t)
{
	free(t->start);
	t->start = NULL;
}

int frame_table_get(struct frame_table *t, uint64_t i, uint64_t *first, uint32_t *nbits)
{
	uint32_t span = (t->sched.max_bits - t->sched.min_bits) / t->sched.step + 1;

	while (t->count <= i) {
		if (t->count + 1 >= t->cap) {
			uint64_t *ns = realloc(t->start, 2 * t->cap * sizeof(*ns));

			if (!ns)
				return -1;
			t->start = ns;
			t->cap *= 2;
		}
		uint32_t len = t->sched.min_bits;
		if (span > 1)
			len += t->sched.step * (uint32_t)(fec_prng_next(&t->prng) % span);
		t->start[t->count + 1] = t->start[t->count] + len;
		t->count++;
	}
	*first = t->start[i];
	*nbits = (uint32_t)(t->start[i + 1] - t->start[i]);
	return 0;
}

int frame_table_switch(struct frame_table *t, uint64_t i, const struct frame_sched *fs)
{
	uint64_t first;
	uint32_t nbits;

	if (i && frame_table_get(t, i - 1, &first, &nbits))
		return -1;
	/* start[i] is the end of frame i - 1: what follows is drawn again from fs */
	t->count = i;
	t->sched = *fs;
	return 0;
}

int parse_u64_arg(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		return -1;
	*out = v;
	return 0;
}

const char *opt_name(const struct option *opts, int val)
{
	for (const struct option *o = opts; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

int client_curve_setup(void *sock, const char *secret_file, const char *server_file, bool bind,
                       const char *who)
{
	char server[CURVE_KEY_Z85_LEN + 1], err[512];
	struct curve_keypair kp;
	int one = 1, rc = -1;

	if (!secret_file && !server_file)
		return 0;
	if (!zmq_has("curve")) {
		fprintf(stderr, "%s: this libzmq was built without CURVE\n", who);
		return -1;
	}
	if (!secret_file) {
		fprintf(stderr,
		        "%s: --curve-server-key needs --curve-secret-key FILE too (this "
		        "end's key pair)\n",
		        who);
		return -1;
	}
	if (!bind && !server_file) {
		fprintf(stderr,
		        "%s: --curve-secret-key with --connect needs --curve-server-key FILE "
		        "(the public key of the end that binds)\n",
		        who);
		return -1;
	}
	if (bind && server_file) {
		fprintf(stderr,
		        "%s: --curve-server-key is for --connect; with --bind this end is "
		        "the CURVE server\n",
		        who);
		return -1;
	}
	if (curve_read_secret(secret_file, &kp, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: --curve-secret-key: %s\n", who, err);
		return -1;
	}
	if (bind) {
		if (zmq_setsockopt(sock, ZMQ_CURVE_SERVER, &one, sizeof(one)) == 0 &&
		    zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, kp.secret_z85, CURVE_KEY_Z85_LEN) ==
		        0)
			rc = 0;
	} else if (curve_read_public(server_file, server, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: --curve-server-key: %s\n", who, err);
		goto out;
	} else if (zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, server, CURVE_KEY_Z85_LEN) == 0 &&
	           zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, kp.public_z85, CURVE_KEY_Z85_LEN) ==
	               0 &&
	           zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, kp.secret_z85, CURVE_KEY_Z85_LEN) ==
	               0) {
		rc = 0;
	}
	if (rc)
		fprintf(stderr, "%s: CURVE: %s\n", who, zmq_strerror(errno));
out:
	memset(&kp, 0, sizeof(kp));
	return rc;
}
