/*
 * A main for the fuzz harnesses where there is no libFuzzer (gcc builds): runs the harness once
 * on every file named on the command line, or in the folders named there, and reports how many
 * ran. The committed corpora hold every input a fuzzer once failed on, so this replays them as
 * unit tests in every build; a harness that fails aborts, and so fails the test.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path, unsigned *count)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap ? cap * 2 : 4096);
			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
			cap = cap ? cap * 2 : 4096;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	/* An exact-size copy, as libFuzzer passes its inputs. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -ENOMEM;
	}
	if (len)
		memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	(*count)++;
	return 0;
}

static int run_path(const char *path, unsigned *count)
{
	struct stat st;
	struct dirent **names;
	int n, ret = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path, count);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];

		if (names[i]->d_name[0] != '.' && ret == 0) {
			snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
			ret = run_path(sub, count);
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned count = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE-OR-FOLDER...\n", argv[0]);
		return 2;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i], &count) != 0)
			return 1;
	printf("replay: %u inputs, none failed\n", count);
	return count ? 0 : 1;
}
