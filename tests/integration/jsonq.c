/*
 * it-jsonq: reads one JSON document on stdin and prints the value at a path, so the bash
 * integration tests can read fecdctl's results without another language. The path is dot
 * separated, with numbers indexing arrays and [key=value] picking the first array element whose
 * member key equals value: "channels.[name=ccsds].stats.bad_msgs". Numbers print as integers when
 * they are whole, strings without quotes, true/false/null as words, objects and arrays as compact
 * JSON. Exit status 1 when the path does not exist, 2 when stdin is not JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define JSONQ_MAX_INPUT (16u << 20)

static const cJSON *pick(const cJSON *arr, const char *sel)
{
	char key[128];
	const char *eq = strchr(sel, '=');
	size_t klen = eq ? (size_t)(eq - sel) : 0;

	if (!eq || klen >= sizeof(key) || !cJSON_IsArray(arr))
		return NULL;
	memcpy(key, sel, klen);
	key[klen] = '\0';
	const char *want = eq + 1;
	const cJSON *el;
	cJSON_ArrayForEach(el, arr)
	{
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(el, key);
		char num[64];

		if (cJSON_IsString(m) && !strcmp(m->valuestring, want))
			return el;
		if (cJSON_IsNumber(m)) {
			snprintf(num, sizeof(num), "%.0f", m->valuedouble);
			if (!strcmp(num, want))
				return el;
		}
	}
	return NULL;
}

static const cJSON *walk(const cJSON *node, char *path)
{
	for (char *save = NULL, *tok = strtok_r(path, ".", &save); tok && node;
	     tok = strtok_r(NULL, ".", &save)) {
		size_t n = strlen(tok);

		if (tok[0] == '[' && tok[n - 1] == ']') {
			tok[n - 1] = '\0';
			node = pick(node, tok + 1);
		} else if (cJSON_IsArray(node) && strspn(tok, "0123456789") == n) {
			node = cJSON_GetArrayItem(node, atoi(tok));
		} else {
			node = cJSON_GetObjectItemCaseSensitive(node, tok);
		}
	}
	return node;
}

int main(int argc, char **argv)
{
	static char in[JSONQ_MAX_INPUT];
	size_t len = fread(in, 1, sizeof(in) - 1, stdin);
	cJSON *doc;

	if (argc != 2) {
		fprintf(stderr, "usage: it-jsonq PATH < JSON\n");
		return 2;
	}
	in[len] = '\0';
	doc = cJSON_Parse(in);
	if (!doc) {
		fprintf(stderr, "it-jsonq: input is not JSON: %.200s\n", in);
		return 2;
	}
	const cJSON *v = walk(doc, argv[1]);
	int rc = 0;
	if (!v) {
		fprintf(stderr, "it-jsonq: no value at %s\n", argv[1]);
		rc = 1;
	} else if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		if (d == floor(d) && fabs(d) < 9.007199254740992e15)
			printf("%.0f\n", d);
		else
			printf("%.15g\n", d);
	} else if (cJSON_IsString(v)) {
		printf("%s\n", v->valuestring);
	} else {
		char *s = cJSON_PrintUnformatted(v);
		printf("%s\n", s ? s : "");
		free(s);
	}
	cJSON_Delete(doc);
	return rc;
}
