/*
 * Code files, for every family that reads them (ldpc's matrices today): the codes folder, which
 * paths a spec may name (the path policy, fec.h), and reading a file without blocking and within
 * a size bound. Every file a spec names is found here - channel codes, presets and tables such as
 * 5G NR's alike - so the rules are the same for all.
 *
 * Under FEC_PATHS_CODES_DIR a name is refused when it is absolute or has a ".." component before
 * anything is looked up, and when its real path is not inside the folder's; what the refusal says
 * does not depend on whether anything outside the folder exists. The real path is then opened
 * with O_NOFOLLOW, so that it is the file that was checked. A file is first stat'ed, so that a
 * FIFO or a device is never even opened, then opened with O_NONBLOCK and checked again on the
 * descriptor; its size is checked before and while it is read, in chunks between which the
 * calling thread's build deadline is checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fec_impl.h"

#define CODES_DIR_DEFAULT "/usr/share/fecd/codes"
#define READ_CHUNK        (1u << 20)
#define WIDEN_HINT        "fecd's codes_paths setting \"any\" allows other paths"

/* The folder, guarded by a spin lock: the critical sections only copy a short string. */
static char codes_dir[FEC__CODES_DIR_MAX];
static bool codes_dir_given;
static atomic_flag codes_dir_lock = ATOMIC_FLAG_INIT;
static _Atomic int paths_policy = FEC_PATHS_ANY;

void fec_codes_dir_set(const char *dir)
{
	while (atomic_flag_test_and_set_explicit(&codes_dir_lock, memory_order_acquire))
		;
	codes_dir_given = dir != NULL;
	snprintf(codes_dir, sizeof(codes_dir), "%s", dir ? dir : "");
	atomic_flag_clear_explicit(&codes_dir_lock, memory_order_release);
}

static void codes_dir_copy(char *buf, size_t len)
{
	const char *env;

	while (atomic_flag_test_and_set_explicit(&codes_dir_lock, memory_order_acquire))
		;
	env = getenv("FECD_CODES_DIR");
	snprintf(buf, len, "%s",
	         codes_dir_given ? codes_dir
	         : env && *env   ? env
	                         : CODES_DIR_DEFAULT);
	atomic_flag_clear_explicit(&codes_dir_lock, memory_order_release);
}

const char *fec_codes_dir(void)
{
	static _Thread_local char copy[FEC__CODES_DIR_MAX];

	codes_dir_copy(copy, sizeof(copy));
	return copy;
}

void fec_code_paths_set(enum fec_path_policy paths)
{
	atomic_store(&paths_policy, (int)paths);
}

enum fec_path_policy fec_code_paths(void)
{
	return (enum fec_path_policy)atomic_load(&paths_policy);
}

/* ---- Paths */

static bool has_dotdot(const char *p)
{
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		p += strspn(p, "/");
	}
	return false;
}

/* Real path p is the real folder rdir or below it. */
static bool is_inside(const char *rdir, const char *p)
{
	size_t n = strlen(rdir);

	if (strcmp(rdir, "/") == 0)
		return true;
	return strncmp(p, rdir, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

static int refuse_outside(const struct fec__code_file *f, const char *name, char *err,
                          size_t errlen)
{
	return fec__err(err, errlen, FEC_EINVAL,
	                "%s: a link leads out of the codes folder %s, or nowhere; expected a "
	                "file inside it (" WIDEN_HINT ")",
	                name, f->dir);
}

/* name (relative, no "..") did not resolve: says why without following a link anywhere. The
 * longest prefix of its components that resolves decides: outside the folder, the whole name is
 * refused; inside it, the next component is missing (a file the folder lacks), a link (leading
 * nowhere: refused like one leading out) or there but not reachable (its errno). */
static int explain_unresolved(struct fec__code_file *f, const char *name, const char *rdir,
                              int real_errno, char *err, size_t errlen)
{
	char prefix[PATH_MAX], *rp, *next_real;
	size_t len = strlen(name);
	struct stat st;
	int ret;

	for (;;) {
		/* cut name's last component (and the slashes before it) off */
		while (len > 0 && name[len - 1] == '/')
			len--;
		while (len > 0 && name[len - 1] != '/')
			len--;
		snprintf(prefix, sizeof(prefix), "%s/%.*s", f->dir, (int)len, name);
		rp = realpath(prefix, NULL);
		if (rp)
			break;
		if (len == 0)
			return fec__err(err, errlen, FEC_EINVAL, "cannot open %s: %s", f->shown,
			                strerror(real_errno));
	}
	if (!is_inside(rdir, rp)) {
		free(rp);
		return refuse_outside(f, name, err, errlen);
	}
	/* the component after the prefix, looked at without following it */
	len += strspn(name + len, "/");
	next_real = prefix;
	snprintf(next_real, sizeof(prefix), "%s/%.*s", rp, (int)strcspn(name + len, "/"),
	         name + len);
	free(rp);
	if (lstat(next_real, &st) != 0)
		ret = fec__err(err, errlen, FEC_EINVAL, "cannot open %s: %s", f->shown,
		               errno == ENOENT ? "no such file in the codes folder"
		                               : strerror(errno));
	else if (S_ISLNK(st.st_mode))
		ret = refuse_outside(f, name, err, errlen);
	else
		ret = fec__err(err, errlen, FEC_EINVAL, "cannot open %s: %s", f->shown,
		               strerror(real_errno));
	return ret;
}

int fec__code_path(const char *name, struct fec__code_file *f, char *err, size_t errlen)
{
	char *rdir, *real;
	int ret;

	memset(f, 0, sizeof(*f));
	codes_dir_copy(f->dir, sizeof(f->dir));
	f->confined = fec_code_paths() == FEC_PATHS_CODES_DIR;
	if (name[0] == '/' && !f->confined) {
		snprintf(f->path, sizeof(f->path), "%s", name);
		snprintf(f->shown, sizeof(f->shown), "%s", name);
		return 0;
	}
	snprintf(f->shown, sizeof(f->shown), "%s/%s", f->dir, name);
	if (!f->confined) {
		snprintf(f->path, sizeof(f->path), "%s", f->shown);
		return 0;
	}
	if (name[0] == '/' || has_dotdot(name))
		return fec__err(err, errlen, FEC_EINVAL,
		                "%s: %s; expected a file in the codes folder %s, named relative "
		                "to it and without \"..\" (" WIDEN_HINT ")",
		                name, name[0] == '/' ? "an absolute path" : "a path with \"..\"",
		                f->dir);
	rdir = realpath(f->dir, NULL);
	if (!rdir)
		return fec__err(err, errlen, FEC_EINVAL, "codes folder %s: %s", f->dir,
		                strerror(errno));
	real = realpath(f->shown, NULL);
	if (!real)
		ret = explain_unresolved(f, name, rdir, errno, err, errlen);
	else if (!is_inside(rdir, real))
		ret = refuse_outside(f, name, err, errlen);
	else if (strlen(real) >= sizeof(f->path))
		ret = fec__err(err, errlen, FEC_EINVAL, "%s: the path is too long", f->shown);
	else
		ret = 0;
	if (ret == 0)
		snprintf(f->path, sizeof(f->path), "%s", real);
	free(real);
	free(rdir);
	return ret;
}

/* ---- Reading */

static const char *file_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISDIR(mode))
		return "a folder";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

static int check_stat(const struct fec__code_file *f, const struct stat *st, char *err,
                      size_t errlen)
{
	if (!S_ISREG(st->st_mode))
		return fec__err(err, errlen, FEC_EINVAL, "%s: %s; expected a regular file",
		                f->shown, file_kind(st->st_mode));
	if (st->st_size > (off_t)FEC_CODE_FILE_MAX)
		return fec__err(err, errlen, FEC_EINVAL,
		                "%s: %lld bytes; a code file may have at most %u", f->shown,
		                (long long)st->st_size, FEC_CODE_FILE_MAX);
	return 0;
}

/* Reads fd to its end into a buffer of at least size + 1 bytes, growing it if the file grew, up
 * to FEC_CODE_FILE_MAX. */
static int read_all(int fd, const struct fec__code_file *f, size_t size, char **text, size_t *len,
                    char *err, size_t errlen)
{
	size_t cap = size + 1, got = 0;
	char *buf = malloc(cap), *grown;
	int ret;

	if (!buf)
		return -FEC_ENOMEM;
	for (;;) {
		size_t want;
		ssize_t r;

		if (fec__build_expired()) {
			ret = fec__err(err, errlen, FEC_ETIME,
			               "%s: reading it took longer than the build deadline",
			               f->shown);
			goto out_free_buf;
		}
		if (got + 1 == cap) {
			if (cap > FEC_CODE_FILE_MAX) {
				ret = fec__err(err, errlen, FEC_EINVAL,
				               "%s: grew past %u bytes while read; a code file "
				               "may have at most that",
				               f->shown, FEC_CODE_FILE_MAX);
				goto out_free_buf;
			}
			cap = cap > FEC_CODE_FILE_MAX / 2 ? FEC_CODE_FILE_MAX + 2 : 2 * cap;
			grown = realloc(buf, cap);
			ret = -FEC_ENOMEM;
			if (!grown)
				goto out_free_buf;
			buf = grown;
		}
		want = cap - 1 - got < READ_CHUNK ? cap - 1 - got : READ_CHUNK;
		r = read(fd, buf + got, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = fec__err(err, errlen, FEC_EINVAL, "cannot read %s: %s", f->shown,
			               strerror(errno));
			goto out_free_buf;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;

out_free_buf:
	free(buf);
	return ret;
}

int fec__code_file_read(const char *name, char **text, char *err, size_t errlen)
{
	struct fec__code_file f;
	struct stat st;
	const char *nul;
	size_t len = 0;
	int fd, flags, ret;

	*text = NULL;
	ret = fec__code_path(name, &f, err, errlen);
	if (ret)
		return ret;
	if (stat(f.path, &st) != 0)
		return fec__err(err, errlen, FEC_EINVAL, "cannot open %s: %s", f.shown,
		                strerror(errno));
	ret = check_stat(&f, &st, err, errlen);
	if (ret)
		return ret;
	/* Non-blocking, in case the name has become a FIFO since the stat; fstat says. */
	fd = open(f.path,
	          O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (f.confined ? O_NOFOLLOW : 0));
	if (fd < 0)
		return fec__err(err, errlen, FEC_EINVAL, "cannot open %s: %s", f.shown,
		                strerror(errno));
	if (fstat(fd, &st) != 0) {
		ret = fec__err(err, errlen, FEC_EINVAL, "cannot read %s: %s", f.shown,
		               strerror(errno));
		goto out_close;
	}
	ret = check_stat(&f, &st, err, errlen);
	if (ret)
		goto out_close;
	/* A regular file: reads block as they should (O_NONBLOCK only kept open() from waiting). */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		ret = fec__err(err, errlen, FEC_EINVAL, "cannot read %s: %s", f.shown,
		               strerror(errno));
		goto out_close;
	}
	ret = read_all(fd, &f, (size_t)st.st_size, text, &len, err, errlen);
	if (ret)
		goto out_close;
	nul = memchr(*text, '\0', len);
	if (nul) {
		unsigned line = 1;

		for (const char *p = *text; p < nul; p++)
			line += *p == '\n';
		ret =
		    fec__err(err, errlen, FEC_EINVAL,
		             "%s:%u: expected text, found a NUL byte (a binary file?)", name, line);
		free(*text);
		*text = NULL;
	}
out_close:
	close(fd);
	return ret;
}
