/*
 * The CI check of fecd-bench --short's JSON report: well formed, the machine and the data
 * described, every section present, and each section either skipped with a reason or carrying
 * rows whose figures are positive and whose outputs were verified. Not a speed threshold: a
 * figure must exist and be > 0, whatever the machine.
 *     check_bench_json REPORT.json
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../check.h"

static const cJSON *section(const cJSON *root, const char *name)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, cJSON_GetObjectItem(root, "sections"))
	{
		const cJSON *n = cJSON_GetObjectItem(s, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return s;
	}
	return NULL;
}

static bool skipped(const cJSON *s)
{
	return cJSON_IsString(cJSON_GetObjectItem(s, "skipped"));
}

/* Every row has column col > 0 (and, when given, column ok equal to "yes"); at least min rows. */
static void check_rows(const cJSON *s, const char *name, const char *col, const char *ok, int min)
{
	const cJSON *rows = cJSON_GetObjectItem(s, "rows"), *row;
	int n = 0;

	cJSON_ArrayForEach(row, rows)
	{
		const cJSON *v = cJSON_GetObjectItem(row, col);
		const char *label = cJSON_GetObjectItem(row, "label")->valuestring;

		CHECK(cJSON_IsNumber(v) && v->valuedouble > 0, "%s: row '%s' has %s > 0", name,
		      label, col);
		if (ok) {
			const cJSON *o = cJSON_GetObjectItem(row, ok);
			CHECK(cJSON_IsString(o) && !strcmp(o->valuestring, "yes"),
			      "%s: row '%s' has %s = yes", name, label, ok);
		}
		n++;
	}
	CHECK(n >= min, "%s: %d rows, at least %d expected", name, n, min);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"cpu",     "gpu_kernel",  "gpu_transfer", "anchors",
	                                    "sweep_k", "sweep_batch", "e2e",          "latency"};
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	static char buf[1 << 20];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	cJSON *root;

	if (f)
		fclose(f);
	CHECK(n > 0, "report %s read", argc > 1 ? argv[1] : "(none given)");
	buf[n] = '\0';
	root = cJSON_Parse(buf);
	CHECK(root != NULL, "report is well-formed JSON");
	if (!root)
		return check_done();
	const cJSON *m = cJSON_GetObjectItem(root, "machine");
	CHECK(cJSON_IsString(cJSON_GetObjectItem(m, "cpu")), "machine.cpu named");
	CHECK(cJSON_IsNumber(cJSON_GetObjectItem(m, "cores")), "machine.cores given");
	CHECK(cJSON_IsString(cJSON_GetObjectItem(m, "simd")), "machine.simd named");
	CHECK(cJSON_IsNumber(
	          cJSON_GetObjectItem(cJSON_GetObjectItem(root, "geometry"), "decode_len")),
	      "geometry given");
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const cJSON *s = section(root, names[i]);

		CHECK(s != NULL, "section %s present", names[i]);
		if (s && skipped(s))
			CHECK(strlen(cJSON_GetObjectItem(s, "skipped")->valuestring) > 0,
			      "section %s says why it was skipped", names[i]);
	}
	const cJSON *s = section(root, "cpu");
	CHECK(s && !skipped(s), "cpu section ran");
	if (s)
		check_rows(s, "cpu", "Mb/s", "same as ref", 2);
	if ((s = section(root, "sweep_k")) && !skipped(s))
		check_rows(s, "sweep_k", "cpu 1 core Mb/s", NULL, 7);
	if ((s = section(root, "sweep_batch")) && !skipped(s))
		check_rows(s, "sweep_batch", "cpu all Mb/s", NULL, 3);
	if ((s = section(root, "anchors")) && !skipped(s))
		check_rows(s, "anchors", "Mb/s", NULL, 1);
	s = section(root, "e2e");
	CHECK(s && !skipped(s), "e2e section ran");
	if (s) {
		check_rows(s, "e2e", "Mb/s total", "verified", 2);
		check_rows(s, "e2e", "bare total", NULL, 2);
	}
	s = section(root, "latency");
	CHECK(s && !skipped(s), "latency section ran");
	if (s) {
		check_rows(s, "latency", "samples", "verified", 1);
		check_rows(s, "latency", "p50 ms", NULL, 1);
	}
	cJSON_Delete(root);
	return check_done();
}
