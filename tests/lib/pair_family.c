/*
 * The tests' composite family "pair" (pair_family.h): a parameter table with two CODE
 * parameters, spec_set/get that keep their text, and a spec_finish that parses them through
 * fec_param_code_parse the way a composite family does.
 */
#include <stdio.h>
#include <string.h>

#include "fec_impl.h"
#include "pair_family.h"

_Static_assert(sizeof(struct pair_spec) <= sizeof(((struct fec_spec *)0)->u),
               "a pair spec fits the spec's union");

static const char *const inner_families[] = {"viterbi", NULL};

static const struct fec_param_desc pair_params[] = {
    {"inner", FEC_PARAM_CODE, 0, PAIR_TEXT_MAX, 0, inner_families, "ccsds",
     "the inner code: a viterbi code"},
    {"outer", FEC_PARAM_CODE, 0, PAIR_TEXT_MAX, 0, NULL, "gsm", "the outer code, any family"},
    {"iters", FEC_PARAM_INT, 1, 16, 0, NULL, "4", "iterations between the two"},
    {NULL},
};

struct pair_spec pair_spec_of(const struct fec_spec *spec)
{
	struct pair_spec p;

	memcpy(&p, &spec->u, sizeof(p));
	return p;
}

static void pair_spec_put(struct fec_spec *spec, const struct pair_spec *p)
{
	memcpy(&spec->u, p, sizeof(*p));
}

static void pair_default(struct fec_spec *spec)
{
	struct pair_spec p = {.inner = "ccsds", .outer = "gsm", .iters = 4};

	pair_spec_put(spec, &p);
}

static int pair_set(struct fec_spec *spec, const char *name, const struct fec_param_value *v,
                    char *err, size_t errlen)
{
	const struct fec_param_desc *d = fec__param_find(pair_params, name);
	struct pair_spec p = pair_spec_of(spec);
	int ret;

	if (!d)
		return fec__err(err, errlen, FEC_EPARAM, "unknown parameter '%s'", name);
	ret = fec__param_check(d, v, err, errlen);
	if (ret)
		return ret;
	if (!strcmp(name, "iters"))
		p.iters = (int)v->i;
	else
		snprintf(!strcmp(name, "inner") ? p.inner : p.outer, PAIR_TEXT_MAX + 1, "%s", v->s);
	pair_spec_put(spec, &p);
	return 0;
}

/* Both children parsed and checked, their text made canonical. */
static int pair_finish(struct fec_spec *spec, char *err, size_t errlen)
{
	struct pair_spec p = pair_spec_of(spec);
	struct fec_spec child;
	char canon[FEC_CODE_TEXT_MAX];
	int ret;

	ret = fec_param_code_parse(&pair_params[0], p.inner, &child, canon, sizeof(canon), err,
	                           errlen);
	if (ret)
		return ret;
	memcpy(p.inner, canon, strlen(canon) + 1); /* at most PAIR_TEXT_MAX: checked */
	ret = fec_param_code_parse(&pair_params[1], p.outer, &child, canon, sizeof(canon), err,
	                           errlen);
	if (ret)
		return ret;
	memcpy(p.outer, canon, strlen(canon) + 1);
	pair_spec_put(spec, &p);
	return 0;
}

static int pair_get(const struct fec_spec *spec, const char *name, struct fec_param_value *v,
                    void *buf, size_t buflen)
{
	struct pair_spec p = pair_spec_of(spec);

	memset(v, 0, sizeof(*v));
	if (!strcmp(name, "iters")) {
		v->type = FEC_PARAM_INT;
		v->i = p.iters;
		return 0;
	}
	if (strcmp(name, "inner") && strcmp(name, "outer"))
		return -FEC_EPARAM;
	if (buflen < PAIR_TEXT_MAX + 1)
		return -FEC_ERANGE;
	v->type = FEC_PARAM_CODE;
	snprintf(buf, buflen, "%s", !strcmp(name, "inner") ? p.inner : p.outer);
	v->s = buf;
	return 0;
}

static void pair_describe(const struct fec_spec *spec, char *buf, size_t len)
{
	struct pair_spec p = pair_spec_of(spec);

	snprintf(buf, len, "pair of (%s) and (%s), %d iterations", p.inner, p.outer, p.iters);
}

static int pair_decoder_create(const struct fec_spec *spec, struct fec_decoder **out)
{
	(void)spec;
	(void)out;
	return -FEC_ENOTSUP;
}

static int pair_encoder_create(const struct fec_spec *spec, struct fec_encoder **out)
{
	(void)spec;
	(void)out;
	return -FEC_ENOTSUP;
}

static const struct fec_family_ops pair_ops = {
    .family = PAIR_FAMILY_ID,
    .name = "pair",
    .params = pair_params,
    .spec_default = pair_default,
    .spec_set = pair_set,
    .spec_finish = pair_finish,
    .spec_get = pair_get,
    .spec_describe = pair_describe,
    .decoder_create = pair_decoder_create,
    .encoder_create = pair_encoder_create,
};

static size_t pair_encoded_len(const struct fec_spec *spec, size_t nbits)
{
	(void)spec;
	return 2 * nbits;
}

static bool pair_same(const struct fec_spec *a, const struct fec_spec *b)
{
	return fec_spec_equal(a, b);
}

static double pair_rate(const struct fec_spec *spec)
{
	(void)spec;
	return 0.5;
}

static const struct fec_family_impl pair_impl = {
    .ops = &pair_ops,
    .encoded_len = pair_encoded_len,
    .same_trellis = pair_same,
    .same_code = pair_same,
    .rate = pair_rate,
};

void pair_family_register(void)
{
	fec__family_add_for_test(&pair_impl);
}
