/*
 * Code parameters (FEC_PARAM_CODE) as JSON, through daemon/control/code_json.c and the tests'
 * composite family "pair" (tests/lib/pair_family.c): a nested code object or its text form in
 * a channel's "code", written back as a nested object that reads back equal, errors with the
 * nested JSON path, and the parameter's description in codes.list. Also 64-bit list items as
 * JSON (viterbi's polys keep their 9-bit bound).
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "code_json.h"
#include "pair_family.h"

/* json reads into *spec (0), or fails with a message holding msg. */
static int read_code(const char *json, struct fec_spec *spec, char *err, size_t errlen)
{
	cJSON *j = cJSON_Parse(json);
	int ret;

	if (!j) {
		snprintf(err, errlen, "not JSON");
		return -1;
	}
	ret = code_from_json(j, NULL, spec, "channels[0].code", err, errlen);
	cJSON_Delete(j);
	return ret;
}

static void nested_objects(void)
{
	struct fec_spec spec, text_spec, back;
	struct pair_spec p;
	char err[512] = "", *s;
	cJSON *j, *inner;

	CHECK(
	    read_code("{\"family\":\"pair\",\"inner\":{\"preset\":\"ccsds\",\"mode\":"
	              "\"terminated\"},\"outer\":{\"family\":\"ldpc\",\"code\":\"peg\",\"n\":504},"
	              "\"iters\":8}",
	              &spec, err, sizeof(err)) == 0,
	    "nested objects: %s", err);
	p = pair_spec_of(&spec);
	CHECK(!strcmp(p.inner, "ccsds,mode=terminated") &&
	          !strcmp(p.outer, "ldpc,code=peg,n=504") && p.iters == 8,
	      "kept as canonical text: '%s' '%s' %d", p.inner, p.outer, p.iters);
	/* the same code given as text forms, and in the parent's text form */
	CHECK(read_code("{\"family\":\"pair\",\"inner\":\"ccsds, mode=terminated\",\"outer\":"
	                "\"ldpc,code=peg,n=504,dv=3\",\"iters\":8}",
	                &back, err, sizeof(err)) == 0 &&
	          fec_spec_equal(&spec, &back),
	      "text forms as strings: %s", err);
	CHECK(fec_spec_from_string("pair,inner=(ccsds,mode=terminated),outer=(ldpc,code=peg,n=504),"
	                           "iters=8",
	                           &text_spec, err, sizeof(err)) == 0 &&
	          fec_spec_equal(&spec, &text_spec),
	      "the one-line text form: %s", err);

	/* written back as nested objects, which read back equal */
	j = fec_spec_to_json(&spec);
	inner = cJSON_GetObjectItemCaseSensitive(j, "inner");
	CHECK(
	    cJSON_IsObject(inner) &&
	        cJSON_IsString(cJSON_GetObjectItemCaseSensitive(inner, "family")) &&
	        !strcmp(cJSON_GetObjectItemCaseSensitive(inner, "family")->valuestring,
	                "viterbi") &&
	        !strcmp(cJSON_GetObjectItemCaseSensitive(inner, "mode")->valuestring, "terminated"),
	    "inner as an object");
	s = cJSON_PrintUnformatted(j);
	CHECK(s && read_code(s, &back, err, sizeof(err)) == 0 && fec_spec_equal(&spec, &back),
	      "%s reads back: %s", s ? s : "", err);
	cJSON_free(s);
	cJSON_Delete(j);
	/* a pair in a pair */
	CHECK(read_code("{\"family\":\"pair\",\"outer\":{\"family\":\"pair\",\"outer\":\"lte\"}}",
	                &spec, err, sizeof(err)) == 0 &&
	          !strcmp(pair_spec_of(&spec).outer, "pair,outer=(lte)"),
	      "pair in a pair: %s '%s'", err, pair_spec_of(&spec).outer);
	j = fec_spec_to_json(&spec);
	s = cJSON_PrintUnformatted(j);
	CHECK(s && strstr(s, "\"outer\":{\"family\":\"pair\"") &&
	          read_code(s, &back, err, sizeof(err)) == 0 && fec_spec_equal(&spec, &back),
	      "%s reads back: %s", s ? s : "", err);
	cJSON_free(s);
	cJSON_Delete(j);
}

static void errors(void)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
	    {"{\"family\":\"pair\",\"inner\":{\"preset\":\"ccsds\",\"polys\":[\"171\",\"138\"]}}",
	     "channels[0].code.inner.polys[1]: expected an octal number in 1..777"},
	    {"{\"family\":\"pair\",\"inner\":{\"preset\":\"ccsds\",\"nosuch\":1}}",
	     "channels[0].code.inner: unknown viterbi parameter \"nosuch\""},
	    {"{\"family\":\"pair\",\"inner\":{\"family\":\"ldpc\",\"code\":\"peg\",\"n\":504}}",
	     "channels[0].code.inner: a ldpc code, expected one of: viterbi"},
	    {"{\"family\":\"pair\",\"inner\":\"ldpc,code=peg,n=504\"}",
	     "channels[0].code.inner: a ldpc code, expected one of: viterbi"},
	    {"{\"family\":\"pair\",\"inner\":\"ccsds,polys=171:138\"}",
	     "channels[0].code.inner: polys: '138' is not an octal number"},
	    {"{\"family\":\"pair\",\"inner\":5}",
	     "channels[0].code.inner: expected a code: an object such as {\"preset\":\"ccsds\"} or "
	     "its text form as a string, got 5"},
	    {"{\"family\":\"pair\",\"inner\":{\"mode\":\"terminated\"}}",
	     "channels[0].code.inner: expected \"preset\" or \"family\""},
	    {"{\"family\":\"pair\",\"outer\":{\"family\":\"pair\",\"inner\":{\"preset\":\"ccsds\","
	     "\"k\":5}}}",
	     "channels[0].code.outer.inner.polys: 171 has more than k=5 bits"},
	    {"{\"family\":\"pair\",\"outer\":{\"family\":\"pair\",\"outer\":{\"family\":\"pair\","
	     "\"outer\":{\"family\":\"pair\",\"outer\":{\"family\":\"pair\"}}}}}",
	     "channels[0].code.outer: outer: outer: outer: inner: codes nested deeper than 4"},
	    /* deeper still: refused before the innermost objects are read */
	    {"{\"family\":\"pair\",\"outer\":{\"family\":\"pair\",\"outer\":{\"family\":\"pair\","
	     "\"outer\":{\"family\":\"pair\",\"outer\":{\"family\":\"pair\",\"outer\":{\"family\":"
	     "\"pair\",\"outer\":{\"nosuch\":1}}}}}}}",
	     "channels[0].code.outer.outer.outer.outer.outer: codes nested deeper than 4"},
	    {"{\"family\":\"viterbi\",\"polys\":[\"0x79\",\"133\"]}",
	     "channels[0].code.polys[0]: expected an octal number in 1..777"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fec_spec spec;
		char err[512] = "";
		int ret = read_code(cases[i].json, &spec, err, sizeof(err));

		CHECK(ret < 0 && strstr(err, cases[i].msg), "%s: %d '%s'", cases[i].json, ret, err);
	}
}

/* codes.list describes a code parameter: its type, longest text and families. */
static void codes_list(void)
{
	cJSON *list = codes_list_json();
	char *s = list ? cJSON_PrintUnformatted(list) : NULL;

	CHECK(s && strstr(s, "{\"name\":\"inner\",\"type\":\"code\",\"max_len\":149,\"families\":"
	                     "[\"viterbi\"],\"default\":\"ccsds\""),
	      "codes.list: %s", s ? s : "");
	CHECK(s && strstr(s, "{\"name\":\"outer\",\"type\":\"code\",\"max_len\":149,\"default\""),
	      "outer: any family");
	/* list bounds in the items' notation, as strings */
	CHECK(
	    s && strstr(s, "\"type\":\"octal_list\",\"min\":\"1\",\"max\":\"777\",\"max_items\":4"),
	    "polys' bounds");
	cJSON_free(s);
	cJSON_Delete(list);
}

int main(void)
{
	pair_family_register();
	nested_objects();
	errors();
	codes_list();
	return check_done();
}
