/*
 * CURVE key files (curve_keys.h): reading a secret key, a public key or a list of client keys,
 * each checked for type, size, permissions and form, and writing a fresh key pair.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#include "curve_keys.h"

/* One file's text and what the parser is at. */
struct key_text {
	const char *path;
	char *text;
	size_t len, pos;
	unsigned line;
};

/* Opens without blocking (a FIFO would hang a plain open), checks what the file is and who may
 * touch it, and reads it whole. others_mask: the mode bits others must not have. */
static int load(struct key_text *t, const char *path, mode_t others_mask, char *err, size_t errlen)
{
	struct stat st;
	ssize_t n;
	int fd, rc;

	memset(t, 0, sizeof(*t));
	t->path = path;
	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out_close;
	}
	rc = -EINVAL;
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file; expected a key file", path);
		goto out_close;
	}
	if (st.st_mode & others_mask) {
		rc = -EPERM;
		if (others_mask & S_IROTH)
			snprintf(err, errlen,
			         "%s: mode %04o gives other users access to a secret key; expected "
			         "mode 0600 (or 0640 for a group), e.g. chmod o-rwx %s",
			         path, (unsigned)(st.st_mode & 07777), path);
		else
			snprintf(
			    err, errlen,
			    "%s: mode %04o lets other users change the keys; expected no write "
			    "access for others, e.g. chmod o-w %s",
			    path, (unsigned)(st.st_mode & 07777), path);
		goto out_close;
	}
	if (st.st_size > CURVE_FILE_MAX) {
		snprintf(err, errlen, "%s: %lld bytes; expected a key file of at most %u bytes",
		         path, (long long)st.st_size, CURVE_FILE_MAX);
		goto out_close;
	}
	t->text = malloc((size_t)st.st_size + 1);
	if (!t->text) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out_close;
	}
	while (t->len < (size_t)st.st_size) {
		n = read(fd, t->text + t->len, (size_t)st.st_size - t->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			snprintf(err, errlen, "%s: %s", path,
			         n < 0 ? strerror(errno) : "short read");
			free(t->text);
			t->text = NULL;
			goto out_close;
		}
		t->len += (size_t)n;
	}
	rc = 0;
out_close:
	close(fd);
	return rc;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next key in the text: 1 with z85 filled in, 0 at the end, or a negative errno with err
 * set. A comment line starts with '#' and a blank or its end ('#' alone can begin a key). */
static int next_key(struct key_text *t, char z85[CURVE_KEY_Z85_LEN + 1], char *err, size_t errlen)
{
	static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
	                               "VWXYZ.-:+=^!/*?&<>()[]{}@%$#";
	uint8_t bytes[CURVE_KEY_BYTES];

	while (t->pos < t->len) {
		size_t start, end = t->pos;

		while (end < t->len && t->text[end] != '\n')
			end++;
		t->line++;
		start = t->pos;
		t->pos = end < t->len ? end + 1 : end;
		while (start < end && is_blank(t->text[start]))
			start++;
		if (start == end ||
		    (t->text[start] == '#' && (start + 1 == end || is_blank(t->text[start + 1]))))
			continue;
		size_t word = start;
		while (word < end && !is_blank(t->text[word]))
			word++;
		if (word - start != CURVE_KEY_Z85_LEN) {
			snprintf(err, errlen,
			         "%s:%u: expected a key of %d Z85 characters, found a word of %zu "
			         "characters",
			         t->path, t->line, CURVE_KEY_Z85_LEN, word - start);
			return -EINVAL;
		}
		for (size_t i = start; i < word; i++) {
			if (!t->text[i] || !strchr(alphabet, t->text[i])) {
				snprintf(err, errlen,
				         "%s:%u: character %zu of the key is not a Z85 character",
				         t->path, t->line, i - start + 1);
				return -EINVAL;
			}
		}
		memcpy(z85, t->text + start, CURVE_KEY_Z85_LEN);
		z85[CURVE_KEY_Z85_LEN] = '\0';
		if (!zmq_z85_decode(bytes, z85)) {
			snprintf(err, errlen, "%s:%u: the key does not decode as Z85", t->path,
			         t->line);
			return -EINVAL;
		}
		return 1;
	}
	return 0;
}

/* Reads the one key of a file; what names the kind of key for messages. */
static int read_one(const char *path, mode_t others_mask, const char *what,
                    char z85[CURVE_KEY_Z85_LEN + 1], char *err, size_t errlen)
{
	char extra[CURVE_KEY_Z85_LEN + 1];
	struct key_text t;
	int rc = load(&t, path, others_mask, err, errlen);

	if (rc)
		return rc;
	rc = next_key(&t, z85, err, errlen);
	if (rc == 0) {
		snprintf(err, errlen, "%s: no key in it; expected a %s of %d Z85 characters", path,
		         what, CURVE_KEY_Z85_LEN);
		rc = -EINVAL;
	} else if (rc > 0) {
		rc = next_key(&t, extra, err, errlen);
		if (rc > 0) {
			snprintf(err, errlen, "%s:%u: a second key; expected one %s", path, t.line,
			         what);
			rc = -EINVAL;
		}
	}
	free(t.text);
	return rc;
}

int curve_read_secret(const char *path, struct curve_keypair *kp, char *err, size_t errlen)
{
	int rc = read_one(path, S_IRWXO, "secret key", kp->secret_z85, err, errlen);

	if (rc)
		return rc;
	if (zmq_curve_public(kp->public_z85, kp->secret_z85) != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot derive the public key: %s", path,
		         zmq_strerror(errno));
		memset(kp, 0, sizeof(*kp));
		return rc;
	}
	return 0;
}

int curve_read_public(const char *path, char z85[CURVE_KEY_Z85_LEN + 1], char *err, size_t errlen)
{
	return read_one(path, S_IWOTH, "public key", z85, err, errlen);
}

int curve_read_list(const char *path, uint8_t (**keys)[CURVE_KEY_BYTES], unsigned *n, char *err,
                    size_t errlen)
{
	char z85[CURVE_KEY_Z85_LEN + 1];
	uint8_t(*v)[CURVE_KEY_BYTES] = NULL;
	unsigned count = 0, cap = 0;
	struct key_text t;
	int rc = load(&t, path, S_IWOTH, err, errlen);

	if (rc)
		return rc;
	while ((rc = next_key(&t, z85, err, errlen)) > 0) {
		if (count == CURVE_LIST_MAX) {
			snprintf(err, errlen,
			         "%s:%u: more than %d keys; expected at most that many", path,
			         t.line, CURVE_LIST_MAX);
			rc = -E2BIG;
			break;
		}
		if (count == cap) {
			unsigned ncap = cap ? 2 * cap : 16;
			uint8_t(*nv)[CURVE_KEY_BYTES] = realloc(v, ncap * sizeof(*v));

			if (!nv) {
				snprintf(err, errlen, "%s: out of memory", path);
				rc = -ENOMEM;
				break;
			}
			v = nv;
			cap = ncap;
		}
		zmq_z85_decode(v[count++], z85);
	}
	if (rc == 0 && count == 0) {
		snprintf(
		    err, errlen,
		    "%s: no key in it; expected the public keys of the clients allowed in, one "
		    "per line",
		    path);
		rc = -EINVAL;
	}
	free(t.text);
	if (rc) {
		free(v);
		return rc;
	}
	*keys = v;
	*n = count;
	return 0;
}

/* Creates path (it must not exist) with the given mode and text. */
static int write_new(const char *path, mode_t mode, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text), done = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode), rc = 0;

	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	while (done < len && rc == 0) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else
			done += (size_t)n;
	}
	if (rc == 0 && fchmod(fd, mode) != 0)
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		unlink(path);
	}
	return rc;
}

int curve_keygen(const char *prefix, struct curve_keypair *kp, char *err, size_t errlen)
{
	char key_path[4096], pub_path[4096], text[256];
	int rc;

	if (snprintf(key_path, sizeof(key_path), "%s.key", prefix) >= (int)sizeof(key_path) ||
	    snprintf(pub_path, sizeof(pub_path), "%s.pub", prefix) >= (int)sizeof(pub_path)) {
		snprintf(err, errlen, "%s: path too long", prefix);
		return -ENAMETOOLONG;
	}
	if (zmq_curve_keypair(kp->public_z85, kp->secret_z85) != 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot make a key pair: %s", zmq_strerror(errno));
		return rc;
	}
	snprintf(text, sizeof(text),
	         "# fecd CURVE secret key: keep it private (mode 0600, or 0640 for a group)\n"
	         "# public key: %s\n%s\n",
	         kp->public_z85, kp->secret_z85);
	rc = write_new(key_path, 0600, text, err, errlen);
	if (rc)
		return rc;
	snprintf(text, sizeof(text), "# fecd CURVE public key: give it to the peers\n%s\n",
	         kp->public_z85);
	rc = write_new(pub_path, 0644, text, err, errlen);
	if (rc)
		unlink(key_path);
	return rc;
}
