/*
 * Reading code files (the codec's rules, codes_dir.c), through the ldpc family's loader: the path
 * policy (FEC_PATHS_CODES_DIR refuses absolute paths, ".." and links leading out of the codes
 * folder, the same way whether or not the target exists; FEC_PATHS_ANY reads them), files that
 * must be refused at once (FIFO, folder, device, over the size cap, binary), the build deadline
 * while reading, a spec remembered under one policy and refused under the other, and the codes
 * folder read and changed from several threads. No message may quote a file: the files hold a
 * marker that must never come back.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cpu_timer.h"
#include "fec.h"
#include "ldpc.h"

#define MARK "Zq7mark"
/* A valid 6-column, 3-row alist (the bad-file table's base). */
#define GOOD_ALIST                                                                                 \
	"6 3\n2 4\n1 1 2 2 2 2\n3 3 4\n1 0\n2 0\n1 3\n1 3\n2 3\n2 3\n1 3 4\n2 5 6\n3 4 5 6\n"
#define SHADOW "root:$6$" MARK "$abcdefgh:19000:0:99999:7:::\nnobody:*:19000:0:99999:7:::\n"
/* Refusals that must come at once, not after a blocked open or a long read. */
#define QUICK_S 1.0

static char root[64], codes[128], outside[128];

static void write_file(const char *dir, const char *name, const char *text, size_t len, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0 || chmod(path, mode) != 0) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void make_link(const char *target, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", codes, name);
	if (symlink(target, path) != 0) {
		fprintf(stderr, "cannot link %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void setup(void)
{
	char path[512];
	int fd;

	snprintf(root, sizeof(root), "/tmp/fecd-files-XXXXXX");
	if (!mkdtemp(root)) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(codes, sizeof(codes), "%s/codes", root);
	snprintf(outside, sizeof(outside), "%s/outside", root);
	snprintf(path, sizeof(path), "%s/sub", codes);
	if (mkdir(codes, 0755) || mkdir(outside, 0755) || mkdir(path, 0755)) {
		fprintf(stderr, "mkdir: %s\n", strerror(errno));
		exit(1);
	}
	write_file(codes, "good.alist", GOOD_ALIST, strlen(GOOD_ALIST), 0644);
	write_file(path, "good.alist", GOOD_ALIST, strlen(GOOD_ALIST), 0644);
	write_file(outside, "good.alist", GOOD_ALIST, strlen(GOOD_ALIST), 0644);
	write_file(outside, "secret", MARK " 12345\n", strlen(MARK) + 7, 0600);
	write_file(codes, "shadow", SHADOW, strlen(SHADOW), 0600);
	write_file(codes, "shadow.qc", SHADOW, strlen(SHADOW), 0600);
	write_file(codes, "binary.alist", "6 3\n" MARK "\n\0\x01\x02", strlen(MARK) + 8, 0644);
	make_link("good.alist", "link-in.alist");
	snprintf(path, sizeof(path), "%s/good.alist", codes);
	make_link(path, "link-abs-in.alist");
	make_link("../outside/good.alist", "link-out.alist");
	snprintf(path, sizeof(path), "%s/secret", outside);
	make_link(path, "link-secret");
	snprintf(path, sizeof(path), "%s/missing", outside);
	make_link(path, "link-dangling-out");
	make_link("missing-inside", "link-dangling-in");
	make_link(outside, "dirlink");
	make_link("/dev/zero", "zero.alist");
	snprintf(path, sizeof(path), "%s/fifo.alist", codes);
	if (mkfifo(path, 0644) != 0) {
		fprintf(stderr, "mkfifo: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/folder.alist", codes);
	mkdir(path, 0755);
	/* over the cap, sparse: nothing is written */
	snprintf(path, sizeof(path), "%s/huge.alist", codes);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)FEC_CODE_FILE_MAX + 1) != 0 || close(fd) != 0) {
		fprintf(stderr, "huge.alist: %s\n", strerror(errno));
		exit(1);
	}
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
}

/* Loads `code` (relative to the codes folder unless absolute); the return value, the message in
 * err and the seconds it took. */
static int load(const char *code, char *err, size_t errlen, double *secs)
{
	struct ldpc_spec s;
	struct ldpc_code *c = NULL;
	double t0 = cpu_timer_secs(CLOCK_MONOTONIC);
	int ret;

	memset(&s, 0, sizeof(s));
	snprintf(s.code, sizeof(s.code), "%s", code);
	err[0] = '\0';
	ret = ldpc_code_load(&s, &c, err, errlen);
	if (secs)
		*secs = cpu_timer_secs(CLOCK_MONOTONIC) - t0;
	CHECK(strstr(err, MARK) == NULL && strstr(err, "12345") == NULL,
	      "%s: the message quotes a file: %s", code, err);
	CHECK((ret == 0) == (c != NULL), "%s: returned %d with%s a code", code, ret,
	      c ? "" : "out");
	ldpc_code_free(c);
	return ret;
}

static void expect_ok(const char *code)
{
	char err[512];

	CHECK(load(code, err, sizeof(err), NULL) == 0, "%s: refused: %s", code, err);
}

/* Refused with -FEC_EINVAL, within QUICK_S, with a message holding every piece given. */
static void expect_refused(const char *code, const char *want, const char *want2)
{
	char err[512];
	double secs;
	int ret = load(code, err, sizeof(err), &secs);

	CHECK(ret == -FEC_EINVAL, "%s: returned %d: %s", code, ret, err);
	CHECK(secs < QUICK_S, "%s: refused after %.3f s", code, secs);
	CHECK(strstr(err, want) != NULL, "%s: '%s' does not say '%s'", code, err, want);
	CHECK(!want2 || strstr(err, want2) != NULL, "%s: '%s' does not say '%s'", code, err, want2);
}

static void test_confined(void)
{
	char path[512];

	fec_codes_dir_set(codes);
	fec_code_paths_set(FEC_PATHS_CODES_DIR);
	CHECK(fec_code_paths() == FEC_PATHS_CODES_DIR, "policy set");
	expect_ok("good.alist");
	expect_ok("./sub//good.alist");
	expect_ok("link-in.alist");
	expect_ok("link-abs-in.alist");

	snprintf(path, sizeof(path), "%s/good.alist", codes);
	expect_refused(path, "an absolute path; expected a file in the codes folder",
	               "codes_paths setting \"any\" allows other paths");
	snprintf(path, sizeof(path), "%s/secret", outside);
	expect_refused(path, "an absolute path; expected a file in the codes folder", NULL);
	expect_refused("/etc/passwd", "named relative to it and without \"..\"", NULL);
	expect_refused("../outside/good.alist", "a path with \"..\"; expected a file in the codes",
	               "codes_paths setting \"any\"");
	expect_refused("sub/../good.alist", "a path with \"..\"", NULL);
	/* Links out: one message whether the target exists, is secret, or is missing. */
	expect_refused("link-out.alist", "a link leads out of the codes folder",
	               "codes_paths setting");
	expect_refused("link-secret", "a link leads out of the codes folder", NULL);
	expect_refused("link-dangling-out", "a link leads out of the codes folder", NULL);
	expect_refused("dirlink/good.alist", "a link leads out of the codes folder", NULL);
	expect_refused("dirlink/missing.alist", "a link leads out of the codes folder", NULL);
	expect_refused("dirlink/missing/deeper.alist", "a link leads out of the codes folder",
	               NULL);
	expect_refused("link-dangling-in", "a link leads out of the codes folder", "or nowhere");
	expect_refused("zero.alist", "a link leads out of the codes folder", NULL);
	/* What the folder lacks may be said. */
	snprintf(path, sizeof(path), "%s/missing.alist", codes);
	expect_refused("missing.alist", path, "no such file in the codes folder");
	expect_refused("sub/missing/deeper.alist", "no such file in the codes folder", NULL);
	/* Not files to read, and files to refuse once read. */
	expect_refused("fifo.alist", "a FIFO; expected a regular file", NULL);
	expect_refused("folder.alist", "a folder; expected a regular file", NULL);
	expect_refused("sub", "a folder; expected a regular file", NULL);
	expect_refused("huge.alist", "bytes; a code file may have at most 67108864", NULL);
	expect_refused("binary.alist", "binary.alist:3: expected text, found a NUL byte", NULL);
	expect_refused("shadow", "shadow:1: expected a number, found a word", NULL);
	expect_refused("shadow.qc", "shadow.qc:1: expected a number, found a word", NULL);
}

static void test_any(void)
{
	char path[512];

	fec_codes_dir_set(codes);
	fec_code_paths_set(FEC_PATHS_ANY);
	expect_ok("good.alist");
	expect_ok("../outside/good.alist");
	expect_ok("link-out.alist");
	snprintf(path, sizeof(path), "%s/good.alist", outside);
	expect_ok(path);
	snprintf(path, sizeof(path), "%s/secret", outside);
	expect_refused(path, "secret:1: expected a number, found a word", NULL);
	expect_refused("link-secret", "link-secret:1: expected a number, found a word", NULL);
	expect_refused("link-dangling-out", "No such file or directory", NULL);
	expect_refused("/dev/zero", "/dev/zero: a character device; expected a regular file", NULL);
	expect_refused("zero.alist", "a character device", NULL);
	snprintf(path, sizeof(path), "%s/fifo.alist", codes);
	expect_refused(path, "a FIFO", NULL);
	expect_refused("fifo.alist", "a FIFO", NULL);
	expect_refused(outside, "a folder", NULL);
	expect_refused("huge.alist", "a code file may have at most", NULL);
}

/* The 5G NR tables come through the same reader and parser rules. */
static void test_nr_table(void)
{
	char nrdir[256], target[256], link[300], err[512];
	struct ldpc_spec s;
	struct ldpc_code *c = NULL;
	int ret;

	snprintf(nrdir, sizeof(nrdir), "%s/nr", root);
	snprintf(target, sizeof(target), "%s/5G_bg2.csv", outside);
	snprintf(link, sizeof(link), "%s/5G_bg2.csv", nrdir);
	if (mkdir(nrdir, 0755) != 0 || symlink(target, link) != 0) {
		CHECK(0, "%s: %s", link, strerror(errno));
		return;
	}
	write_file(nrdir, "5G_bg1.csv", SHADOW, strlen(SHADOW), 0600);
	write_file(outside, "5G_bg2.csv", "0;0;1;1;1;1;1;1;1;1\n", 20, 0644);
	fec_codes_dir_set(nrdir);
	fec_code_paths_set(FEC_PATHS_CODES_DIR);
	memset(&s, 0, sizeof(s));
	snprintf(s.code, sizeof(s.code), "nr-bg1");
	s.z = 8;
	ret = ldpc_code_load(&s, &c, err, sizeof(err));
	CHECK(ret == -FEC_EINVAL && strstr(err, "5G_bg1.csv:") && !strstr(err, MARK),
	      "nr-bg1 from a password file: %d %s", ret, err);
	ldpc_code_free(c);
	c = NULL;
	snprintf(s.code, sizeof(s.code), "nr-bg2");
	ret = ldpc_code_load(&s, &c, err, sizeof(err));
	CHECK(ret == -FEC_EINVAL && strstr(err, "a link leads out of the codes folder"),
	      "nr-bg2 through a link out: %d %s", ret, err);
	ldpc_code_free(c);
}

/* A spec finished (and remembered) under "any" is refused once the folder is required. */
static void test_remembered_spec(void)
{
	struct fec_spec spec;
	char text[512], err[512];
	int ret;

	fec_codes_dir_set(codes);
	fec_code_paths_set(FEC_PATHS_ANY);
	snprintf(text, sizeof(text), "ldpc,code=%s/good.alist", outside);
	ret = fec_spec_from_string(text, &spec, err, sizeof(err));
	CHECK(ret == 0 && spec.u.ldpc.n == 6, "%s under any: %d %s", text, ret, err);
	ret = fec_spec_from_string("ldpc,code=link-out.alist", &spec, err, sizeof(err));
	CHECK(ret == 0, "link-out.alist under any: %d %s", ret, err);
	fec_code_paths_set(FEC_PATHS_CODES_DIR);
	ret = fec_spec_from_string(text, &spec, err, sizeof(err));
	CHECK(ret == -FEC_EINVAL && strstr(err, "codes_paths"), "%s confined: %d %s", text, ret,
	      err);
	ret = fec_spec_from_string("ldpc,code=link-out.alist", &spec, err, sizeof(err));
	CHECK(ret == -FEC_EINVAL && strstr(err, "a link leads out"),
	      "link-out.alist confined: %d %s", ret, err);
	ret = fec_spec_from_string("ldpc,code=sub/good.alist", &spec, err, sizeof(err));
	CHECK(ret == 0, "sub/good.alist confined: %d %s", ret, err);
}

static void test_deadline(void)
{
	char err[512];
	int ret;

	fec_codes_dir_set(codes);
	fec_code_paths_set(FEC_PATHS_CODES_DIR);
	fec_build_deadline_set(1); /* long past */
	ret = load("good.alist", err, sizeof(err), NULL);
	fec_build_deadline_set(0);
	CHECK(ret == -FEC_ETIME && strstr(err, "good.alist") && strstr(err, "deadline"),
	      "past the deadline: %d %s", ret, err);
	expect_ok("good.alist");
}

/* The folder changes on one thread while others read it: each read is one of the two folders,
 * whole. */
#define DIR_A  "/codes/a/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIR_B  "/b"
#define ROUNDS 200000

static void *read_dirs(void *arg)
{
	unsigned long *torn = arg;

	for (int i = 0; i < ROUNDS; i++) {
		const char *d = fec_codes_dir();

		if (strcmp(d, DIR_A) != 0 && strcmp(d, DIR_B) != 0)
			(*torn)++;
	}
	return NULL;
}

static void test_dir_threads(void)
{
	pthread_t readers[2];
	unsigned long torn[2] = {0, 0};

	fec_codes_dir_set(DIR_A);
	for (int i = 0; i < 2; i++)
		pthread_create(&readers[i], NULL, read_dirs, &torn[i]);
	for (int i = 0; i < ROUNDS; i++)
		fec_codes_dir_set(i & 1 ? DIR_A : DIR_B);
	for (int i = 0; i < 2; i++)
		pthread_join(readers[i], NULL);
	CHECK(torn[0] == 0 && torn[1] == 0, "%lu and %lu torn reads of the codes folder", torn[0],
	      torn[1]);
}

int main(void)
{
	CHECK(fec_code_paths() == FEC_PATHS_ANY, "the library's default policy is any");
	setup();
	test_confined();
	test_any();
	test_nr_table();
	test_remembered_spec();
	test_deadline();
	test_dir_threads();
	fec_codes_dir_set(NULL);
	fec_code_paths_set(FEC_PATHS_ANY);
	teardown();
	return check_done();
}
