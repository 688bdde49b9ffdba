/*
 * The LDPC family: its parameter schema (config files, channel.create, codes.list and the
 * command-line text form all read it; the codec appends the frame families' common block: in,
 * llr_scale, framing and the sync marker), the rules that turn values into a valid spec, and the
 * family's entry in fec.c's table. The decoder and encoder objects are in ldpc_coder.c, the
 * decoders in ldpc_decode*.c, the presets in ldpc_presets.c.
 *
 * spec_finish loads the code to check it and to learn n, k and n_tx. Presets are matched by
 * finishing every preset of the family (fec.c), so finished results are remembered per code
 * (its text, lifting, generator settings, and the file's size and time), and a large alist file
 * is parsed once per process rather than at every describe.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ldpc_code_impl.h"
#include "ldpc_decoder.h"

static const char *const algo_names[] = {"spa", "ms", "nms", "oms", NULL};
static const char *const schedule_names[] = {"flooding", "layered", NULL};
static const char *const output_names[] = {"info", "codeword", NULL};

#define R(x) ((long)((x) * (double)FEC_PARAM_REAL_UNIT))

static const struct fec_param_desc ldpc_params[] = {
    {"code", FEC_PARAM_STRING, 0, LDPC_CODE_TEXT_MAX - 1, 0, NULL, NULL,
     "the parity-check matrix: an alist file or a .qc base matrix (a path relative to the "
     "codes folder; fecd takes no other unless codes_paths is \"any\"), nr-bg1 or nr-bg2 (5G "
     "NR, lifted by z), regular or peg (generated: n, dv, dc, seed)"},
    {"z", FEC_PARAM_INT, 0, LDPC_N_MAX, 0, NULL, "0",
     "lifting size: nr-bg1/nr-bg2 (a 38.212 lifting size), or a .qc file's (0: its own)"},
    {"n", FEC_PARAM_INT, 0, LDPC_N_MAX, 0, NULL, "0", "regular/peg: code length"},
    {"dv", FEC_PARAM_INT, 1, LDPC_DEG_MAX - 1, 0, NULL, "3", "regular/peg: column weight"},
    {"dc", FEC_PARAM_INT, 1, LDPC_DEG_MAX - 1, 0, NULL, "6", "regular: row weight"},
    {"seed", FEC_PARAM_INT, 0, 4294967295L, 0, NULL, "1", "regular/peg: construction seed"},
    {"algo", FEC_PARAM_ENUM, 0, 0, 0, algo_names, "nms",
     "check rule: spa (sum-product, tanh rule, float), ms (min-sum), nms (normalized "
     "min-sum, alpha) or oms (offset min-sum, offset)"},
    {"schedule", FEC_PARAM_ENUM, 0, 0, 0, schedule_names, "layered",
     "flooding (every check, then every variable) or layered (row groups in turn)"},
    {"iters", FEC_PARAM_INT, 1, LDPC_ITERS_MAX, 0, NULL, "20", "maximum iterations"},
    {"alpha", FEC_PARAM_REAL, R(0.03125), R(1), 0, NULL, "0.875",
     "nms: scale of the check messages, 0.03125..1 (int8: used as round(16 alpha) / 16)"},
    {"offset", FEC_PARAM_REAL, 0, R(127), 0, NULL, "0.5",
     "oms: offset subtracted from check messages, in LLR units (int8: round(offset "
     "llr_scale))"},
    {"early_stop", FEC_PARAM_BOOL, 0, 0, 0, NULL, "true",
     "stop at the first iteration whose hard decisions satisfy every check"},
    {"output", FEC_PARAM_ENUM, 0, 0, 0, output_names, "info",
     "info (the k information bits) or codeword (all n bits)"},
    {NULL},
};

#undef R

static void ldpc_spec_default(struct fec_spec *spec)
{
	struct ldpc_spec *l = &spec->u.ldpc;

	memset(l, 0, sizeof(*l));
	spec->family = FECD_FAMILY_LDPC;
	l->gen_dv = 3;
	l->gen_dc = 6;
	l->seed = 1;
	l->algo = LDPC_ALGO_NMS;
	l->schedule = LDPC_SCHED_LAYERED;
	l->max_iters = 20;
	l->alpha = 0.875f;
	l->offset = 0.5f;
	l->early_stop = true;
	l->output = LDPC_OUT_INFO;
}

static int ldpc_spec_set(struct fec_spec *spec, const char *name, const struct fec_param_value *v,
                         char *err, size_t errlen)
{
	const struct fec_param_desc *d = fec__param_find(ldpc_params, name);
	struct ldpc_spec *l = &spec->u.ldpc;
	int ret;

	if (!d)
		return fec__err(err, errlen, FEC_EPARAM, "unknown parameter '%s' for ldpc",
		                name ? name : "(null)");
	ret = fec__param_check(d, v, err, errlen);
	if (ret)
		return ret;
	if (!strcmp(name, "code"))
		snprintf(l->code, sizeof(l->code), "%s", v->s);
	else if (!strcmp(name, "z"))
		l->z = (uint32_t)v->i;
	else if (!strcmp(name, "n"))
		l->gen_n = (uint32_t)v->i;
	else if (!strcmp(name, "dv"))
		l->gen_dv = (uint8_t)v->i;
	else if (!strcmp(name, "dc"))
		l->gen_dc = (uint8_t)v->i;
	else if (!strcmp(name, "seed"))
		l->seed = (uint32_t)v->i;
	else if (!strcmp(name, "algo"))
		l->algo = (enum ldpc_algo)(v->i + 1);
	else if (!strcmp(name, "schedule"))
		l->schedule = (enum ldpc_schedule)(v->i + 1);
	else if (!strcmp(name, "iters"))
		l->max_iters = (uint16_t)v->i;
	else if (!strcmp(name, "alpha"))
		l->alpha = (float)v->r;
	else if (!strcmp(name, "offset"))
		l->offset = (float)v->r;
	else if (!strcmp(name, "early_stop"))
		l->early_stop = v->i != 0;
	else if (!strcmp(name, "output"))
		l->output = (enum ldpc_output)(v->i + 1);
	return 0;
}

static int ldpc_spec_get(const struct fec_spec *spec, const char *name, struct fec_param_value *v,
                         void *buf, size_t buflen)
{
	const struct fec_param_desc *d = fec__param_find(ldpc_params, name);
	const struct ldpc_spec *l = &spec->u.ldpc;

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
	} else if (!strcmp(name, "z")) {
		v->i = l->z;
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
	} else if (!strcmp(name, "schedule")) {
		v->i = (long)l->schedule - 1;
	} else if (!strcmp(name, "iters")) {
		v->i = l->max_iters;
	} else if (!strcmp(name, "alpha")) {
		v->r = l->alpha;
	} else if (!strcmp(name, "offset")) {
		v->r = l->offset;
	} else if (!strcmp(name, "early_stop")) {
		v->i = l->early_stop;
	} else if (!strcmp(name, "output")) {
		v->i = (long)l->output - 1;
	}
	return 0;
}

/* ---- What names a code, and the memory of finished codes. */

enum code_kind { CODE_NR, CODE_GENERATED, CODE_QC, CODE_ALIST };

static enum code_kind code_kind(const struct ldpc_spec *l)
{
	const size_t len = strlen(l->code);

	if (!strcmp(l->code, "nr-bg1") || !strcmp(l->code, "nr-bg2"))
		return CODE_NR;
	if (!strcmp(l->code, "regular") || !strcmp(l->code, "peg"))
		return CODE_GENERATED;
	if (len > 3 && !strcmp(l->code + len - 3, ".qc"))
		return CODE_QC;
	return CODE_ALIST;
}

/* Two specs name the same parity-check matrix (settings a code kind ignores are ignored). */
static bool same_matrix(const struct ldpc_spec *a, const struct ldpc_spec *b)
{
	if (strcmp(a->code, b->code))
		return false;
	switch (code_kind(a)) {
	case CODE_NR:
	case CODE_QC:
		return a->z == b->z;
	case CODE_GENERATED:
		return a->gen_n == b->gen_n && a->gen_dv == b->gen_dv &&
		       (a->gen_dc == b->gen_dc || !strcmp(a->code, "peg")) && a->seed == b->seed;
	case CODE_ALIST:
		return true;
	}
	return false;
}

/* The numbers finishing derives from the matrix, kept in the memory of finished codes. */
struct ldpc_derived {
	uint32_t n, k, n_tx;
};

/* A key naming the code and the version of what it is built from; false when it cannot be made
 * (then nothing is remembered). A file is found as ldpc_code_load finds it, so a path the policy
 * refuses is never remembered. */
static bool memo_key(const struct ldpc_spec *l, char *key)
{
	const enum code_kind kind = code_kind(l);
	char nr_file[16], prefix[LDPC_CODE_TEXT_MAX + 32];

	if (kind == CODE_GENERATED)
		return fec__memo_key(key, "ldpc %s n=%u dv=%u dc=%u seed=%u", l->code, l->gen_n,
		                     l->gen_dv, l->gen_dc, l->seed);
	snprintf(nr_file, sizeof(nr_file), "5G_bg%c.csv", l->code[strlen(l->code) - 1]);
	snprintf(prefix, sizeof(prefix), "ldpc %s z=%u", l->code, l->z);
	return fec__memo_file_key(key, prefix, kind == CODE_NR ? nr_file : l->code);
}

int ldpc__spec_finish(struct fec_spec *spec, char *err, size_t errlen)
{
	struct ldpc_spec *l = &spec->u.ldpc;
	struct ldpc_code *code;
	struct ldpc_derived got;
	char key[FEC__MEMO_KEY];
	bool keyed;
	int ret;

	if (spec->family != FECD_FAMILY_LDPC)
		return fec__err(err, errlen, FEC_EFAMILY, "not an ldpc spec");
	l->code[sizeof(l->code) - 1] = '\0';
	if (!l->code[0])
		return fec__err(err, errlen, FEC_EINVAL,
		                "code: expected an alist or .qc file, nr-bg1, nr-bg2, regular or "
		                "peg, got nothing");
	for (const struct fec_param_desc *d = ldpc_params; d->name; d++) {
		union {
			char s[LDPC_CODE_TEXT_MAX];
		} buf;
		struct fec_param_value v;

		ret = ldpc_spec_get(spec, d->name, &v, &buf, sizeof(buf));
		if (ret || (ret = fec__param_check(d, &v, err, errlen)))
			return ret ? ret : -FEC_EINVAL;
	}
	/* in and llr_scale are the common block's (fec_frame.c), checked before this */
	if (spec->frame.in == FEC_IN_F32_SYMLOGP)
		return fec__err(err, errlen, FEC_EINVAL,
		                "in: expected s8 or f32 (bit LLRs) for ldpc, got f32v (q-ary "
		                "symbols)");
	if (l->algo == LDPC_ALGO_OMS && lroundf(l->offset * spec->frame.llr_scale) > 127)
		return fec__err(err, errlen, FEC_ERANGE,
		                "offset: offset * llr_scale must be at most 127 (int8 LLRs), got "
		                "%g * %g",
		                l->offset, spec->frame.llr_scale);
	keyed = memo_key(l, key);
	if (!keyed || !fec__memo_find(key, &got, sizeof(got))) {
		ret = ldpc_code_load(l, &code, err, errlen);
		if (ret)
			return ret;
		got = (struct ldpc_derived){code->h.n, code->k, code->n_tx};
		ldpc_code_free(code);
		if (keyed)
			fec__memo_add(key, &got, sizeof(got));
	}
	l->n = got.n;
	l->k = got.k;
	l->n_tx = got.n_tx;
	return 0;
}

static void ldpc_spec_describe(const struct fec_spec *spec, char *buf, size_t len)
{
	const struct ldpc_spec *l = &spec->u.ldpc;
	const struct fec_preset *preset;
	char name[LDPC_CODE_TEXT_MAX + 32];
	unsigned matches;

	preset = fec__preset_for_code(spec, &matches);
	if (matches == 1)
		snprintf(name, sizeof(name), "%s", preset->name);
	else if (code_kind(l) == CODE_NR || (code_kind(l) == CODE_QC && l->z))
		snprintf(name, sizeof(name), "%s z=%u", l->code, l->z);
	else if (!strcmp(l->code, "regular"))
		snprintf(name, sizeof(name), "regular n=%u dv=%u dc=%u seed=%u", l->gen_n,
		         l->gen_dv, l->gen_dc, l->seed);
	else if (!strcmp(l->code, "peg"))
		snprintf(name, sizeof(name), "peg n=%u dv=%u seed=%u", l->gen_n, l->gen_dv,
		         l->seed);
	else
		snprintf(name, sizeof(name), "%s", l->code);
	snprintf(buf, len, "ldpc %s (%u,%u) %s %s %u it%s%s%s", name, l->n_tx, l->k,
	         algo_names[l->algo - 1], schedule_names[l->schedule - 1], l->max_iters,
	         l->early_stop ? "" : " no early stop",
	         l->output == LDPC_OUT_CODEWORD ? " codeword" : "",
	         spec->frame.in == FEC_IN_F32_LLR ? " f32" : "");
}

static bool ldpc_same_trellis(const struct fec_spec *a, const struct fec_spec *b)
{
	return same_matrix(&a->u.ldpc, &b->u.ldpc);
}

/* The framing and sync marker (the common block) are compared by the codec. */
static bool ldpc_same_code(const struct fec_spec *a, const struct fec_spec *b)
{
	return same_matrix(&a->u.ldpc, &b->u.ldpc);
}

static double ldpc_rate(const struct fec_spec *spec)
{
	const struct ldpc_spec *l = &spec->u.ldpc;

	return l->n_tx ? (double)l->k / l->n_tx : 0.0;
}

/* One frame per fec_encode call: k bits in, n_tx out. */
static size_t ldpc_encoded_len(const struct fec_spec *spec, size_t nbits)
{
	const struct ldpc_spec *l = &spec->u.ldpc;

	return l->k ? (nbits + l->k - 1) / l->k * l->n_tx : 0;
}

static const struct fec_family_ops ldpc_ops = {
    .family = FECD_FAMILY_LDPC,
    .name = "ldpc",
    .params = ldpc_params,
    .spec_default = ldpc_spec_default,
    .spec_set = ldpc_spec_set,
    .spec_finish = ldpc__spec_finish,
    .spec_get = ldpc_spec_get,
    .spec_describe = ldpc_spec_describe,
    .decoder_create = ldpc__decoder_create,
    .encoder_create = ldpc__encoder_create,
};

extern const struct fec_preset_def ldpc__presets[]; /* ldpc_presets.c */

const struct fec_family_impl ldpc_family = {
    .ops = &ldpc_ops,
    .encoded_len = ldpc_encoded_len,
    .same_trellis = ldpc_same_trellis,
    .same_code = ldpc_same_code,
    .rate = ldpc_rate,
    .frame_opts = true,
    .presets = ldpc__presets,
};
