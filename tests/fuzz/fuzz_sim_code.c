/*
 * Fuzz harness: fecd-sim's --code argument (sim_code_text, sim/sim_code.c): a preset or text form,
 * copied, or a JSON code object rewritten into the text form ({"preset": P, KEY: VALUE...}: lists
 * joined by ':', nested code objects and strings with commas in parentheses), which then goes
 * through the codec's text parser.
 *
 * Properties: the text always fits its buffer and is terminated; a failure says why; text that
 * is not JSON comes back unchanged; a JSON object that converts gives exactly its parameters, no
 * more (a value or key that carried ',', '=' or parentheses would add some); parsing the result
 * as a spec stops soon after the build deadline (fuzz.h).
 */
#include <cjson/cJSON.h>

#include "fuzz.h"
#include "sim.h"

#define TEXT_LEN 512 /* shorter than sim_code's text, so that the length limit is reached */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* Parameters of a text form: its parts between commas outside parentheses. */
static size_t top_level_parts(const char *s)
{
	size_t parts = 1;
	int depth = 0;

	for (; *s; s++) {
		depth += *s == '(';
		depth -= *s == ')';
		parts += *s == ',' && depth == 0;
	}
	return parts;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), buf[TEXT_LEN + 8], err[256];
	const char *p = text;

	memset(buf, 0x55, sizeof(buf));
	err[0] = '\0';
	int rc = sim_code_text(text, buf, TEXT_LEN, err, sizeof(err));

	FUZZ_CHECK(rc == 0 || rc == -1, "returned %d", rc);
	FUZZ_CHECK(rc == 0 || err[0], "\"%.80s\" refused without a message", text);
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL, "message not terminated");
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (rc == 0) {
		FUZZ_CHECK(memchr(buf, '\0', TEXT_LEN) != NULL,
		           "text not terminated in its buffer");
		if (*p != '{')
			FUZZ_CHECK(strcmp(buf, text) == 0, "\"%.80s\" came back as \"%.80s\"", text,
			           buf);
	}
	if (rc == 0 && *p == '{') {
		cJSON *obj = cJSON_Parse(p);

		FUZZ_CHECK(cJSON_IsObject(obj), "\"%.80s\" converted, but is no object", text);
		size_t members = (size_t)cJSON_GetArraySize(obj);

		FUZZ_CHECK(top_level_parts(buf) == members,
		           "\"%.80s\": %zu members became \"%.80s\", %zu parameters", text, members,
		           buf, top_level_parts(buf));
		cJSON_Delete(obj);
	}
	if (rc == 0) {
		struct fec_spec spec;
		char msg[512];

		fuzz_build_deadline();
		(void)fec_spec_from_string(buf, &spec, msg, sizeof(msg));
		FUZZ_CHECK(fuzz_build_overrun() < FUZZ_BUILD_SLACK_SECONDS,
		           "\"%.80s\" took %.1f s past the build deadline", buf,
		           fuzz_build_overrun());
	}
	free(text);
	return 0;
}
