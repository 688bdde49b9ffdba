/*
 * The nbldpc family (LDPC codes over GF(q)): its parameter schema (config files, channel.create,
 * codes.list and the text form read it; the codec appends the frame families' common block, in
 * whose `in` the value f32v selects q-ary symbol input), the rules that turn values into a valid
 * spec, and the family's entry in fec.c's table. Objects are in nbldpc_coder.c, decoders in
 * nbldpc_decode.c, codes in nbldpc_code.c, presets in nbldpc_presets.c.
 *
 * spec_finish loads the code to check it and to learn n, m, k and q, and remembers what it learnt
 * for the code (as the ldpc family does): describing a channel matches its code against every
 * preset, and channels and the bench make the same spec again, which must not rebuild generated
 * codes of thousands of symbols each time.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fec_impl.h"
#include "nbldpc.h"

int nbldpc__decoder_create(const struct fec_spec *spec, struct fec_decoder **out);
int nbldpc__encoder_create(const struct fec_spec *spec, struct fec_encoder **out);
int nbldpc__spec_finish(struct fec_spec *spec, char *err, size_t errlen);

static const char *const algo_names[] = {"fft-bp", "min-max", "tms", NULL};
static const char *const domain_names[] = {"log", "prob", NULL};
static const char *const form_names[] = {"power", "vector", NULL};
static const char *const order_names[] = {"msb", "lsb", NULL};
static const char *const soft_names[] = {"sym", "bit", "code", NULL};

static const struct fec_param_desc nbldpc_params[] = {
    {"code", FEC_PARAM_STRING, 0, NBLDPC_CODE_TEXT_MAX - 1, 0, NULL, NULL,
     "the parity-check matrix: a non-binary alist file (a path relative to the codes folder) "
     "or generated: regular (q, n, dv, dc, seed) or irregular (q, n, seed: rate 1/2 with the "
     "degree profile of Monzo 2010's GF(q) codes, parity part a zigzag)"},
    {"q", FEC_PARAM_INT, 2, NBLDPC_Q_MAX, 0, NULL, "64",
     "generated codes: the field's size, a power of 2 in 2..256 (a file gives its own)"},
    {"poly", FEC_PARAM_HEX_LIST, 0, 0x1ff, 1, NULL, "0",
     "the field's primitive polynomial with its x^p term, e.g. 43 for x^6+x+1 (0: the "
     "conventional one for q)"},
    {"form", FEC_PARAM_ENUM, 0, 0, 0, form_names, "power",
     "alist values: power (exponents of alpha, 0 = 1) or vector (the element's bits, bit i "
     "the coefficient of x^i)"},
    {"n", FEC_PARAM_INT, 0, NBLDPC_N_MAX, 0, NULL, "0",
     "generated codes: code length in symbols (irregular: even, at least 16)"},
    {"dv", FEC_PARAM_INT, 2, NBLDPC_DEG_MAX - 1, 0, NULL, "2", "regular: column weight"},
    {"dc", FEC_PARAM_INT, 3, NBLDPC_DEG_MAX, 0, NULL, "4", "regular: row weight"},
    {"seed", FEC_PARAM_INT, 0, 4294967295L, 0, NULL, "1", "generated codes: construction seed"},
    {"algo", FEC_PARAM_ENUM, 0, 0, 0, algo_names, "fft-bp",
     "fft-bp (belief propagation through Walsh-Hadamard transforms, float, flooding), "
     "min-max (layered, integer costs in llr_scale units) or tms (trellis min-sum with one "
     "and two deviations, layered, 8-bit costs: the fast one)"},
    {"domain", FEC_PARAM_ENUM, 0, 0, 0, domain_names, "prob",
     "fft-bp: prob (normalised probabilities) or log (signed log-probabilities, the seed's "
     "log-FFT)"},
    {"nm", FEC_PARAM_INT, 0, NBLDPC_Q_MAX, 0, NULL, "0",
     "min-max: the smallest costs kept per message (truncated min-max: O(nm^2) a "
     "combination instead of O(q^2)); 0 keeps all q"},
    {"dev2", FEC_PARAM_INT, 0, NBLDPC_Q_MAX, 0, NULL, "8",
     "tms: the likeliest single deviations each combined with all others into two-deviation "
     "configurations (0: one deviation only)"},
    {"offset", FEC_PARAM_INT, 0, 255, 0, NULL, "8",
     "tms: subtracted from the check messages' costs (llr_scale units)"},
    {"iters", FEC_PARAM_INT, 1, NBLDPC_ITERS_MAX, 0, NULL, "20", "maximum iterations"},
    {"early_stop", FEC_PARAM_BOOL, 0, 0, 0, NULL, "true",
     "stop at the first iteration whose hard decisions satisfy every check"},
    {"bit_order", FEC_PARAM_ENUM, 0, 0, 0, order_names, "msb",
     "the p bits of a symbol on the channel and in the output: msb (most significant first, "
     "as BeiDou) or lsb"},
    {"soft", FEC_PARAM_ENUM, 0, 0, 0, soft_names, "sym",
     "soft output: sym (q log-probabilities per information symbol), bit (an LLR per "
     "information bit) or code (q log-probabilities per code symbol, all n in column order: "
     "the posteriors an outer decoder hands back, as ids's concatenation does; CPU only)"},
    {NULL},
};

static void nbldpc_spec_default(struct fec_spec *spec)
{
	struct nbldpc_spec *l = &spec->u.nbldpc;

	memset(l, 0, sizeof(*l));
	spec->family = FECD_FAMILY_NBLDPC;
	l->q = 64;
	l->form = NBLDPC_FORM_POWER;
	l->gen_dv = 2;
	l->gen_dc = 4;
	l->seed = 1;
	l->algo = NBLDPC_ALGO_FFTBP;
	l->domain = NBLDPC_DOMAIN_PROB;
	l->max_iters = 20;
	l->dev2 = 8;
	l->offset = 8;
	l->early_stop = true;
	l->bit_order = NBLDPC_MSB_FIRST;
	l->soft = NBLDPC_SOFT_SYM;
}

static int nbldpc_spec_set(struct fec_spec *spec, const char *name, const struct fec_param_value *v,
                           char *err, size_t errlen)
{
	const struct fec_param_desc *d = fec__param_find(nbldpc_params, name);
	struct nbldpc_spec *l = &spec->u.nbldpc;
	int ret;

	if (!d)
		return fec__err(err, errlen, FEC_EPARAM, "unknown parameter '%s' for nbldpc",
		                name ? name : "(null)");
	ret = fec__param_check(d, v, err, errlen);
	if (ret)
		return ret;
	if (!strcmp(name, "code"))
		snprintf(l->code, sizeof(l->code), "%s", v->s);
	else if (!strcmp(name, "q"))
		l->q = (uint16_t)v->i;
	else if (!strcmp(name, "poly"))
		l->poly = (uint16_t)v->items[0];
	else if (!strcmp(name, "form"))
		l->form = (enum nbldpc_form)(v->i + 1);
	else if (!strcmp(name, "n"))
		l->gen_n = (uint32_t)v->i;
	else if (!strcmp(name, "dv"))
		l->gen_dv = (uint8_t)v->i;
	else if (!strcmp(name, "dc"))
		l->gen_dc = (uint8_t)v->i;
	else if (!strcmp(name, "seed"))
		l->seed = (uint32_t)v->i;
	else if (!strcmp(name, "algo"))
		l->algo = (enum nbldpc_algo)(v->i + 1);
	else if (!strcmp(name, "domain"))
		l->domain = (enum nbldpc_domain)(v->i + 1);
	else if (!strcmp(name, "nm"))
		l->nm = (uint16_t)v->i;
	else if (!strcmp(name, "dev2"))
		l->dev2 = (uint16_t)v->i;
	else if (!strcmp(name, "offset"))
		l->offset = (uint8_t)v->i;
	else if (!strcmp(name, "iters"))
		l->max_iters = (uint16_t)v->i;
	else if (!strcmp(name, "early_stop"))
		l->early_stop = v->i != 0;
	else if (!strcmp(name, "bit_order"))
		l->bit_order = (enum nbldpc_bit_order)(v->i + 1);
	else if (!strcmp(name, "soft"))
		l->soft = (enum nbldpc_soft)(v->i + 1);
	return 0;
}

static int nbldpc_spec_get(const struct fec_spec *spec, const char *name, struct fec_param_value *v,
                           void *buf, size_t buflen)
{
	const struct fec_param_desc *d = fec__param_find(nbldpc_params, name);
	const struct nbldpc_spec *l = &spec->u.nbldpc;

	if (!d || !v || !buf)
		return -FEC_EPARAM;
	memset(v, 0, sizeof(*v));
	v->type = d->type;
	if (!strcmp(name, "code")) {
		if (buflen < sizeof(l->code))
			return -FEC_ERANGE;
		memcpy(buf, l->code, sizeof(l->code));
		((char *)buf)[sizeof(l->code) - 1] = '\0';
		v->s = buf;
	} else if (!strcmp(name, "q")) {
		v->i = l->q;
	} else if (!strcmp(name, "poly")) {
		if (buflen < sizeof(uint64_t))
			return -FEC_ERANGE;
		*(uint64_t *)buf = l->poly;
		v->items = buf;
		v->nitems = 1;
	} else if (!strcmp(name, "form")) {
		v->i = (long)l->form - 1;
	} else if (!strcmp(name, "n")) {
		v->i = l->gen_n;
	} else if (!strcmp(name, "dv")) {
		v->i = l->gen_dv;
	} else if (!strcmp(name, "dc")) {
		v->i = l->gen_dc;
	} else if (!strcmp(name, "seed")) {
		v->i = l->seed;
	} else if (!strcmp(name, "algo")) {
		v->i = (long)l->algo - 1;
	} else if (!strcmp(name, "domain")) {
		v->i = (long)l->domain - 1;
	} else if (!strcmp(name, "nm")) {
		v->i = l->nm;
	} else if (!strcmp(name, "dev2")) {
		v->i = l->dev2;
	} else if (!strcmp(name, "offset")) {
		v->i = l->offset;
	} else if (!strcmp(name, "iters")) {
		v->i = l->max_iters;
	} else if (!strcmp(name, "early_stop")) {
		v->i = l->early_stop;
	} else if (!strcmp(name, "bit_order")) {
		v->i = (long)l->bit_order - 1;
	} else if (!strcmp(name, "soft")) {
		v->i = (long)l->soft - 1;
	}
	return 0;
}

/* ---- The numbers finishing derives from the matrix, kept in the memory of finished codes. */
struct nbldpc_derived {
	uint32_t n, m, k, p, code_q;
};

/* A key naming the matrix and the version of its file; false when none can be made (a path the
 * policy refuses, a file missing: then the load reports it and nothing is remembered). */
static bool memo_key(const struct nbldpc_spec *l, char *key)
{
	char prefix[NBLDPC_CODE_TEXT_MAX + 64];

	if (!strcmp(l->code, "regular"))
		return fec__memo_key(key, "nbldpc regular q=%u poly=%u n=%u dv=%u dc=%u seed=%u",
		                     l->q, l->poly, l->gen_n, l->gen_dv, l->gen_dc, l->seed);
	if (!strcmp(l->code, "irregular"))
		return fec__memo_key(key, "nbldpc irregular q=%u poly=%u n=%u seed=%u", l->q,
		                     l->poly, l->gen_n, l->seed);
	snprintf(prefix, sizeof(prefix), "nbldpc %s form=%u poly=%u", l->code, l->form, l->poly);
	return fec__memo_file_key(key, prefix, l->code);
}

int nbldpc__spec_finish(struct fec_spec *spec, char *err, size_t errlen)
{
	struct nbldpc_spec *l = &spec->u.nbldpc;
	struct nbldpc_code *code;
	struct nbldpc_derived got;
	char key[FEC__MEMO_KEY];
	bool keyed;
	int ret;

	if (spec->family != FECD_FAMILY_NBLDPC)
		return fec__err(err, errlen, FEC_EFAMILY, "not an nbldpc spec");
	l->code[sizeof(l->code) - 1] = '\0';
	if (!l->code[0])
		return fec__err(err, errlen, FEC_EINVAL,
		                "code: expected a non-binary alist file, regular or irregular, got "
		                "nothing");
	for (const struct fec_param_desc *d = nbldpc_params; d->name; d++) {
		union {
			char s[NBLDPC_CODE_TEXT_MAX];
			uint64_t item;
		} buf;
		struct fec_param_value v;

		ret = nbldpc_spec_get(spec, d->name, &v, &buf, sizeof(buf));
		if (ret || (ret = fec__param_check(d, &v, err, errlen)))
			return ret ? ret : -FEC_EINVAL;
	}
	if (l->q & (l->q - 1))
		return fec__err(err, errlen, FEC_EINVAL,
		                "q: expected a power of 2 in 2..256, got %u", l->q);
	keyed = memo_key(l, key);
	if (!keyed || !fec__memo_find(key, &got, sizeof(got))) {
		ret = nbldpc_code_load(l, &code, err, errlen);
		if (ret)
			return ret;
		got = (struct nbldpc_derived){code->n, code->m, code->k, code->gf.p, code->gf.q};
		nbldpc_code_free(code);
		if (keyed)
			fec__memo_add(key, &got, sizeof(got));
	}
	l->n = got.n;
	l->m = got.m;
	l->k = got.k;
	l->p = got.p;
	l->code_q = got.code_q;
	return 0;
}

static bool same_matrix(const struct nbldpc_spec *a, const struct nbldpc_spec *b)
{
	if (strcmp(a->code, b->code) || a->poly != b->poly || a->bit_order != b->bit_order)
		return false;
	if (!strcmp(a->code, "regular"))
		return a->q == b->q && a->gen_n == b->gen_n && a->gen_dv == b->gen_dv &&
		       a->gen_dc == b->gen_dc && a->seed == b->seed;
	if (!strcmp(a->code, "irregular"))
		return a->q == b->q && a->gen_n == b->gen_n && a->seed == b->seed;
	return a->form == b->form;
}

static void nbldpc_spec_describe(const struct fec_spec *spec, char *buf, size_t len)
{
	const struct nbldpc_spec *l = &spec->u.nbldpc;
	const struct fec_preset *preset;
	char name[NBLDPC_CODE_TEXT_MAX + 64];
	unsigned matches;

	preset = fec__preset_for_code(spec, &matches);
	if (matches == 1)
		snprintf(name, sizeof(name), "%s", preset->name);
	else if (!strcmp(l->code, "regular"))
		snprintf(name, sizeof(name), "regular n=%u dv=%u dc=%u seed=%u", l->gen_n,
		         l->gen_dv, l->gen_dc, l->seed);
	else if (!strcmp(l->code, "irregular"))
		snprintf(name, sizeof(name), "irregular n=%u seed=%u", l->gen_n, l->seed);
	else
		snprintf(name, sizeof(name), "%s", l->code);
	snprintf(buf, len, "nbldpc %s GF(%u) (%u,%u) %s%s %u it%s%s", name, l->code_q, l->n, l->k,
	         algo_names[l->algo - 1],
	         l->algo == NBLDPC_ALGO_FFTBP ? (l->domain == NBLDPC_DOMAIN_LOG ? " log" : " prob")
	                                      : "",
	         l->max_iters, l->early_stop ? "" : " no early stop",
	         spec->frame.in == FEC_IN_F32_SYMLOGP ? " f32v"
	         : spec->frame.in == FEC_IN_F32_LLR   ? " f32"
	                                              : "");
}

static bool nbldpc_same_trellis(const struct fec_spec *a, const struct fec_spec *b)
{
	return same_matrix(&a->u.nbldpc, &b->u.nbldpc);
}

static double nbldpc_rate(const struct fec_spec *spec)
{
	const struct nbldpc_spec *l = &spec->u.nbldpc;

	return l->n ? (double)l->k / l->n : 0.0;
}

/* One frame per fec_encode call: k p bits in, n p out. */
static size_t nbldpc_encoded_len(const struct fec_spec *spec, size_t nbits)
{
	const struct nbldpc_spec *l = &spec->u.nbldpc;
	const size_t kb = (size_t)l->k * l->p;

	return kb ? (nbits + kb - 1) / kb * l->n * l->p : 0;
}

static const struct fec_family_ops nbldpc_ops = {
    .family = FECD_FAMILY_NBLDPC,
    .name = "nbldpc",
    .params = nbldpc_params,
    .spec_default = nbldpc_spec_default,
    .spec_set = nbldpc_spec_set,
    .spec_finish = nbldpc__spec_finish,
    .spec_get = nbldpc_spec_get,
    .spec_describe = nbldpc_spec_describe,
    .decoder_create = nbldpc__decoder_create,
    .encoder_create = nbldpc__encoder_create,
};

extern const struct fec_preset_def nbldpc__presets[]; /* nbldpc_presets.c */

const struct fec_family_impl nbldpc_family = {
    .ops = &nbldpc_ops,
    .encoded_len = nbldpc_encoded_len,
    .same_trellis = nbldpc_same_trellis,
    .same_code = nbldpc_same_trellis,
    .rate = nbldpc_rate,
    .frame_opts = true,
    .presets = nbldpc__presets,
};
