/*
 * The CI check of fecd-bench --short's JSON report against fecd-bench's tables (sections.h): well
 * formed, the machine and the data described, every report entry of BENCH_REPORT_MAP present and
 * no other, each either skipped with a reason (not those the CI run must run) or carrying rows
 * whose figures are positive and whose outputs were verified (BENCH_CHECK_MAP). Not a speed
 * threshold: a figure must exist and be > 0, whatever the machine.
 *     check_bench_json REPORT.json
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../check.h"
#include "sections.h"

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
	static const struct {
		const char *name;
		int ci;
	} entries[] = {
#define X(section, json, title, ci) {json, ci},
	    BENCH_REPORT_MAP(X)
#undef X
	};
	static const struct {
		const char *name, *col, *ok;
		int min;
	} checks[] = {
#define X(json, col, ok, min) {json, col, ok, min},
	    BENCH_CHECK_MAP(X)
#undef X
	};
	const unsigned nentries = sizeof(entries) / sizeof(entries[0]);
	const cJSON *s;

	for (unsigned i = 0; i < nentries; i++) {
		s = section(root, entries[i].name);
		CHECK(s != NULL, "section %s present", entries[i].name);
		if (!s)
			continue;
		if (skipped(s))
			CHECK(strlen(cJSON_GetObjectItem(s, "skipped")->valuestring) > 0,
			      "section %s says why it was skipped", entries[i].name);
		if (entries[i].ci == BENCH_CI_RUNS)
			CHECK(!skipped(s), "section %s ran (the CI run must run it)",
			      entries[i].name);
	}
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(root, "sections"))
	{
		const cJSON *n = cJSON_GetObjectItem(s, "name");
		unsigned i = 0;

		while (cJSON_IsString(n) && i < nentries && strcmp(entries[i].name, n->valuestring))
			i++;
		CHECK(cJSON_IsString(n) && i < nentries, "section %s is in fecd-bench's table",
		      cJSON_IsString(n) ? n->valuestring : "(unnamed)");
	}
	for (unsigned i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		if ((s = section(root, checks[i].name)) && !skipped(s))
			check_rows(s, checks[i].name, checks[i].col, checks[i].ok, checks[i].min);
	cJSON_Delete(root);
	return check_done();
}
