/*
 * Code parameters (FEC_PARAM_CODE), the parameter layer of composite families, through the
 * tests' family "pair" (tests/lib/pair_family.c): nested codes in the text form, their printing
 * and round trip, canonical child text, the family a parameter allows, nesting depth, and errors
 * that name the nested parameter.
 */
#include <string.h>

#include "check.h"
#include "fec_impl.h"
#include "pair_family.h"

/* text reads, prints as `printed`, and reads back to an equal spec that prints the same. */
static void round_trip(const char *text, const char *printed)
{
	struct fec_spec spec, back;
	char out[1024] = "", again[1024] = "", err[256] = "";

	CHECK(fec_spec_from_string(text, &spec, err, sizeof(err)) == 0, "'%s': %s", text, err);
	fec_spec_to_string(&spec, out, sizeof(out));
	CHECK(!strcmp(out, printed), "'%s' prints as '%s', expected '%s'", text, out, printed);
	CHECK(fec_spec_from_string(out, &back, err, sizeof(err)) == 0, "'%s' back: %s", out, err);
	CHECK(fec_spec_equal(&spec, &back), "'%s' reads back equal", out);
	fec_spec_to_string(&back, again, sizeof(again));
	CHECK(!strcmp(out, again), "'%s' prints again as '%s'", out, again);
}

static void text_form(void)
{
	struct fec_spec spec, child;
	struct pair_spec p;
	char err[256] = "", desc[512];

	round_trip("pair", "pair");
	round_trip("pair,iters=8", "pair,iters=8");
	round_trip("pair,inner=(ccsds,mode=terminated),iters=8",
	           "pair,inner=(ccsds,mode=terminated),iters=8");
	/* a child without commas needs no parentheses; spaces go */
	round_trip("pair, inner = ( gsm ) ,outer=nasa-dsn", "pair,inner=(gsm),outer=(nasa-dsn)");
	/* a code that more than one preset has is written as the family's */
	round_trip("pair,outer=voyager", "pair,outer=(viterbi,polys=133:171)");
	/* the child's text is kept canonical: a preset's parameters given again are dropped, a
	 * family's defaults with a preset's code become the preset */
	round_trip("pair,inner=(ccsds,k=7,polys=171:133)", "pair");
	round_trip("pair,inner=(viterbi,polys=23:33,k=5)", "pair,inner=(gsm)");
	/* any family for outer, with its own lists */
	round_trip("pair,outer=(ldpc,code=peg,n=504,dv=3)", "pair,outer=(ldpc,code=peg,n=504)");
	/* a pair inside a pair */
	round_trip("pair,outer=(pair,iters=2,outer=(lte))",
	           "pair,outer=(pair,outer=(lte),iters=2)");
	/* codes nested 4 deep: the innermost pair's viterbi children */
	round_trip("pair,outer=(pair,outer=(pair,outer=(pair)))",
	           "pair,outer=(pair,outer=(pair,outer=(pair)))");

	CHECK(fec_spec_from_string("pair,inner=(ccsds,mode=terminated)", &spec, err, sizeof(err)) ==
	          0,
	      "%s", err);
	p = pair_spec_of(&spec);
	CHECK(!strcmp(p.inner, "ccsds,mode=terminated") && !strcmp(p.outer, "gsm") && p.iters == 4,
	      "stored as text: '%s' '%s' %d", p.inner, p.outer, p.iters);
	fec_family_by_id(PAIR_FAMILY_ID)->spec_describe(&spec, desc, sizeof(desc));
	CHECK(strstr(desc, "(ccsds,mode=terminated)"), "described: %s", desc);
	/* the stored text reads back to the child the parent builds */
	CHECK(fec_param_code_parse(&fec_family_by_name("pair")->params[0], p.inner, &child, NULL, 0,
	                           err, sizeof(err)) == 0 &&
	          child.family == FECD_FAMILY_VITERBI && child.u.conv.k == 7 &&
	          child.u.conv.mode == CONV_MODE_TERMINATED,
	      "child: %s", err);
}

/* Each bad text fails with its code and a message holding `msg`. */
static void bad_texts(void)
{
	static const struct {
		const char *text;
		int ret;
		const char *msg;
	} cases[] = {
	    {"pair,inner=(ccsds,polys=171:138)", -FEC_EINVAL,
	     "inner: polys: '138' is not an octal number"},
	    {"pair,inner=(ccsds,foo=1)", -FEC_EPARAM, "inner: unknown parameter 'foo' for viterbi"},
	    {"pair,inner=(nosuch)", -FEC_EFAMILY, "inner: unknown code 'nosuch'"},
	    {"pair,inner=(ccsds,k=5)", -FEC_ERANGE, "inner: polys: 171 has more than k=5 bits"},
	    {"pair,inner=(ldpc,code=peg,n=504)", -FEC_EINVAL,
	     "inner: a ldpc code, expected one of: viterbi"},
	    {"pair,outer=(pair,inner=(ccsds,mode=nosuch))", -FEC_EINVAL,
	     "outer: inner: mode: expected one of"},
	    {"pair,inner=(ccsds,k=7", -FEC_EINVAL, "unbalanced parentheses"},
	    {"pair,inner=ccsds),iters=2", -FEC_EINVAL, "unbalanced parentheses"},
	    {"pair,inner=()", -FEC_EINVAL, "inner: expected a code"},
	    {"pair,inner=(ccsds,puncture=none,invert=01,traceback_len=42,decode_len=2048,mode="
	     "stream,"
	     "head_len=42,k=7,polys=171:133,invert=01,puncture=none,invert=01,puncture=none,k=7,"
	     "polys=171:133)",
	     -FEC_EINVAL,
	     "inner: expected a code (\"PRESET[,key=value...]\" or \"FAMILY[,...]\") "
	     "of at most 149 bytes with balanced parentheses"},
	    {"pair,iters=0", -FEC_ERANGE, "iters: expected an integer in 1..16"},
	    {"pair,outer=(pair,outer=(pair,outer=(pair,outer=(pair,outer=(pair)))))", -FEC_ERANGE,
	     "outer: outer: outer: outer: inner: codes nested deeper than 4"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fec_spec spec;
		char err[256] = "";
		int ret = fec_spec_from_string(cases[i].text, &spec, err, sizeof(err));

		CHECK(ret == cases[i].ret && strstr(err, cases[i].msg), "'%s': %d '%s'",
		      cases[i].text, ret, err);
	}
}

/* The parameter layer directly: checks of a value, parse errors, the canonical text's room. */
static void param_layer(void)
{
	const struct fec_param_desc *inner = &fec_family_by_name("pair")->params[0];
	const struct fec_param_desc *iters = &fec_family_by_name("pair")->params[2];
	struct fec_param_value v = {.type = FEC_PARAM_CODE, .s = "ccsds"};
	struct fec_spec child;
	char err[256] = "", canon[8];

	CHECK(fec__param_check(inner, &v, err, sizeof(err)) == 0, "'ccsds' checks: %s", err);
	v.s = "ccsds,k=(7";
	CHECK(fec__param_check(inner, &v, err, sizeof(err)) == -FEC_EINVAL, "unbalanced");
	v.s = NULL;
	CHECK(fec__param_check(inner, &v, err, sizeof(err)) == -FEC_EINVAL, "no text");
	v = (struct fec_param_value){.type = FEC_PARAM_STRING, .s = "ccsds"};
	CHECK(fec__param_check(inner, &v, err, sizeof(err)) == -FEC_EINVAL &&
	          strstr(err, "inner: expected a code (its text form)"),
	      "a STRING for a CODE: '%s'", err);
	CHECK(fec_param_code_parse(iters, "ccsds", &child, NULL, 0, err, sizeof(err)) ==
	              -FEC_EINVAL &&
	          strstr(err, "iters: not a code parameter"),
	      "an INT descriptor: '%s'", err);
	CHECK(fec_param_code_parse(inner, "", &child, NULL, 0, err, sizeof(err)) == -FEC_EINVAL &&
	          strstr(err, "inner: no code given"),
	      "empty: '%s'", err);
	CHECK(fec_param_code_parse(inner, "ccsds,mode=terminated", &child, canon, sizeof(canon),
	                           err, sizeof(err)) == -FEC_ELONG &&
	          strstr(err, "inner: the code's text form is longer than"),
	      "no room for the canonical text: '%s'", err);
}

int main(void)
{
	pair_family_register();
	CHECK(fec_family_by_name("pair") && fec_family_count() == 6 &&
	          fec_family_at(5) == fec_family_by_id(PAIR_FAMILY_ID),
	      "the tests' family is in the table");
	text_form();
	bad_texts();
	param_layer();
	return check_done();
}
