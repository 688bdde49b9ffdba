/*
 * The ids family's parameters: the schema config files, channel.create, codes.list and the text
 * form read (the codec appends the frame families' common block), the rules that make a valid
 * code (spec_finish: sizes, a codebook file's own sizes, the channel, the outer code of a
 * concatenation), and the family's entry in fec.c's table. Codes, channel and drift limits are
 * in ids_code.c, the MAP decoder in ids_map.c, the fec decoder and encoder in ids_coder.c, the
 * presets in ids_presets.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ids_coder.h"

_Static_assert(IDS_OUTER_TEXT_MAX == FEC_CODE_TEXT_MAX, "the outer code's text fits its field");

static const char *const storage_names[] = {"auto", "global", "local", NULL};
static const char *const outer_families[] = {"nbldpc", NULL};

static const struct fec_param_desc ids_params[] = {
    {"code", FEC_PARAM_STRING, 0, IDS_CODE_TEXT_MAX - 1, 0, NULL, "random",
     "the TVB inner code: random (seeded random codebooks, one per symbol position), watermark "
     "(Davey-MacKay: the q lightest n-bit words added to a seeded watermark) or a codebook file "
     "(codec/ids/ids_code.h's format, a path relative to the codes folder)"},
    {"N", FEC_PARAM_INT, 1, IDS_N_MAX, 0, NULL, "840",
     "message length in q-ary symbols, 1..4096 (a codebook file gives its own)"},
    {"q", FEC_PARAM_INT, 2, IDS_Q_MAX, 0, NULL, "16",
     "alphabet size, a power of two 2..256 (a codebook file gives its own)"},
    {"n", FEC_PARAM_INT, 1, IDS_NBITS_MAX, 0, NULL, "8",
     "codeword length in bits, 1..16 with 2^n >= q (a codebook file gives its own)"},
    {"seed", FEC_PARAM_INT, 0, 4294967295L, 0, NULL, "1", "random/watermark: the code's seed"},
    {"pi", FEC_PARAM_REAL, 0, 999999, 0, NULL, "0.001",
     "insertion probability of the channel the decoder assumes (pi + pd < 1)"},
    {"pd", FEC_PARAM_REAL, 0, 999999, 0, NULL, "0.001",
     "deletion probability of the channel the decoder assumes (pi + pd < 1)"},
    {"ps", FEC_PARAM_REAL, 0, 500000, 0, NULL, "0",
     "substitution probability of a transmitted bit, 0..0.5"},
    {"drift_excl", FEC_PARAM_INT, 1, IDS_EXCL_MAX, 0, NULL, "10",
     "drift limits (frame and codeword): the drift leaves them with probability at most "
     "10^-drift_excl, 1..30"},
    {"storage", FEC_PARAM_ENUM, 0, 0, 0, storage_names, "auto",
     "gamma storage: global (every gamma of a frame kept), local (recomputed in the backward "
     "pass, far less memory) or auto (global while a frame's gammas take at most 64 MiB)"},
    {"prune", FEC_PARAM_INT, 0, IDS_PRUNE_MAX, 0, NULL, "15",
     "forward-backward pruning: after each forward step, drift states whose alpha (normalised "
     "to sum 1) is below 10^-prune are dropped, and their gammas are not computed; 0: every "
     "state (the exact decoder), 0..300"},
    {"outer", FEC_PARAM_CODE, 0, IDS_OUTER_TEXT_MAX - 1, 0, outer_families, "none",
     "none, or an outer nbldpc code over GF(q) of length N symbols (one symbol per TVB "
     "codeword): the frame then carries its information bits"},
    {"iters", FEC_PARAM_INT, 0, IDS_ITERS_MAX, 0, NULL, "0",
     "with an outer code: passes back from the outer decoder into the inner one, 0..100 (0: "
     "Davey and MacKay's single pass; more need the outer code's fft-bp)"},
    {NULL},
};

static void ids_spec_default(struct fec_spec *spec)
{
	struct ids_spec *s = &spec->u.ids;

	memset(s, 0, sizeof(*s));
	spec->family = FECD_FAMILY_IDS;
	strcpy(s->code, "random");
	s->N = 840;
	s->q = 16;
	s->n = 8;
	s->seed = 1;
	s->pi = 1e-3;
	s->pd = 1e-3;
	s->ps = 0.0;
	s->drift_excl = 10;
	s->storage = IDS_STORAGE_AUTO;
	s->prune = 15;
}

static int ids_spec_set(struct fec_spec *spec, const char *name, const struct fec_param_value *v,
                        char *err, size_t errlen)
{
	const struct fec_param_desc *d = fec__param_find(ids_params, name);
	struct ids_spec *s = &spec->u.ids;
	int ret;

	if (!d)
		return fec__err(err, errlen, FEC_EPARAM, "unknown parameter '%s' for ids",
		                name ? name : "(null)");
	ret = fec__param_check(d, v, err, errlen);
	if (ret)
		return ret;
	if (!strcmp(name, "code"))
		snprintf(s->code, sizeof(s->code), "%s", v->s);
	else if (!strcmp(name, "N"))
		s->N = (uint32_t)v->i;
	else if (!strcmp(name, "q"))
		s->q = (uint32_t)v->i;
	else if (!strcmp(name, "n"))
		s->n = (uint32_t)v->i;
	else if (!strcmp(name, "seed"))
		s->seed = (uint32_t)v->i;
	else if (!strcmp(name, "pi"))
		s->pi = v->r;
	else if (!strcmp(name, "pd"))
		s->pd = v->r;
	else if (!strcmp(name, "ps"))
		s->ps = v->r;
	else if (!strcmp(name, "drift_excl"))
		s->drift_excl = (uint8_t)v->i;
	else if (!strcmp(name, "storage"))
		s->storage = (enum ids_storage)(v->i + 1);
	else if (!strcmp(name, "prune"))
		s->prune = (uint16_t)v->i;
	else if (!strcmp(name, "outer"))
		snprintf(s->outer, sizeof(s->outer), "%s", strcmp(v->s, "none") ? v->s : "");
	else if (!strcmp(name, "iters"))
		s->iters = (uint16_t)v->i;
	return 0;
}

static int ids_spec_get(const struct fec_spec *spec, const char *name, struct fec_param_value *v,
                        void *buf, size_t buflen)
{
	const struct fec_param_desc *d = fec__param_find(ids_params, name);
	const struct ids_spec *s = &spec->u.ids;

	if (!d || !v || !buf)
		return -FEC_EPARAM;
	memset(v, 0, sizeof(*v));
	v->type = d->type;
	if (!strcmp(name, "code") || !strcmp(name, "outer")) {
		const char *text = !strcmp(name, "code") ? s->code : s->outer;

		if (buflen <= strlen(text))
			return -FEC_ERANGE;
		strcpy(buf, text);
		v->s = buf;
	} else if (!strcmp(name, "N")) {
		v->i = s->N;
	} else if (!strcmp(name, "q")) {
		v->i = s->q;
	} else if (!strcmp(name, "n")) {
		v->i = s->n;
	} else if (!strcmp(name, "seed")) {
		v->i = s->seed;
	} else if (!strcmp(name, "pi")) {
		v->r = s->pi;
	} else if (!strcmp(name, "pd")) {
		v->r = s->pd;
	} else if (!strcmp(name, "ps")) {
		v->r = s->ps;
	} else if (!strcmp(name, "drift_excl")) {
		v->i = s->drift_excl;
	} else if (!strcmp(name, "storage")) {
		v->i = (long)s->storage - 1;
	} else if (!strcmp(name, "prune")) {
		v->i = s->prune;
	} else if (!strcmp(name, "iters")) {
		v->i = s->iters;
	}
	return 0;
}

bool ids__has_outer(const struct ids_spec *s)
{
	return s->outer[0] != '\0';
}

/* The TVB code a spec names (its file read, or generated). */
int ids__code_build(const struct ids_spec *s, struct ids_code **out, char *err, size_t errlen)
{
	char *text = NULL;
	int ret;

	if (!strcmp(s->code, "random"))
		return ids_code_random(s->N, s->q, s->n, s->seed, out, err, errlen);
	if (!strcmp(s->code, "watermark"))
		return ids_code_watermark(s->N, s->q, s->n, s->seed, out, err, errlen);
	ret = fec__code_file_read(s->code, &text, err, errlen);
	if (ret)
		return ret;
	ret = ids_code_parse(text, s->code, out, err, errlen);
	free(text);
	return ret;
}

/* The outer code's spec, as the concatenation decodes it: q-ary symbol log-probabilities in
 * (the inner decoder's posteriors), symbol posteriors out. */
int ids__outer_spec(const struct ids_spec *s, struct fec_spec *child, char *canon, size_t canonlen,
                    char *err, size_t errlen)
{
	int ret = fec_param_code_parse(fec__param_find(ids_params, "outer"), s->outer, child, canon,
	                               canonlen, err, errlen);

	if (ret)
		return ret;
	child->frame.in = FEC_IN_F32_SYMLOGP;
	/* passes back need the posteriors of every code symbol; a single pass publishes the
	 * information symbols' */
	child->u.nbldpc.soft = s->iters ? NBLDPC_SOFT_CODE : NBLDPC_SOFT_SYM;
	return 0;
}

static int check_outer(struct ids_spec *s, char *err, size_t errlen)
{
	struct fec_spec child;
	char canon[FEC_CODE_TEXT_MAX];
	int ret;

	s->outer_n = s->outer_k = 0;
	if (!ids__has_outer(s)) {
		if (s->iters)
			return fec__err(
			    err, errlen, FEC_EINVAL,
			    "iters: passes between inner and outer decoders need an outer "
			    "code");
		return 0;
	}
	ret = ids__outer_spec(s, &child, canon, sizeof(canon), err, errlen);
	if (ret)
		return ret;
	if (child.u.nbldpc.code_q != s->q)
		return fec__err(err, errlen, FEC_EINVAL,
		                "outer: its field GF(%u) is not the inner code's q=%u (one outer "
		                "symbol per TVB codeword)",
		                child.u.nbldpc.code_q, s->q);
	if (child.u.nbldpc.n != s->N)
		return fec__err(err, errlen, FEC_EINVAL,
		                "outer: its %u symbols are not the inner code's N=%u (one outer "
		                "symbol per TVB codeword)",
		                child.u.nbldpc.n, s->N);
	if (s->iters && child.u.nbldpc.algo != NBLDPC_ALGO_FFTBP)
		return fec__err(err, errlen, FEC_EINVAL,
		                "iters: passes back into the inner decoder need the outer code's "
		                "algo=fft-bp (its posteriors of every symbol)");
	memcpy(s->outer, canon, strlen(canon) + 1);
	s->outer_n = child.u.nbldpc.n;
	s->outer_k = child.u.nbldpc.k;
	return 0;
}

int ids__spec_finish(struct fec_spec *spec, char *err, size_t errlen)
{
	struct ids_spec *s = &spec->u.ids;
	const struct ids_chan ch = {s->pi, s->pd, s->ps};
	int ret;

	if (spec->family != FECD_FAMILY_IDS)
		return fec__err(err, errlen, FEC_EFAMILY, "not an ids spec");
	for (const struct fec_param_desc *d = ids_params; d->name; d++) {
		char buf[FEC_CODE_TEXT_MAX];
		struct fec_param_value v;

		ret = ids_spec_get(spec, d->name, &v, buf, sizeof(buf));
		if (!ret && d->type == FEC_PARAM_CODE && !*v.s)
			continue; /* no outer code */
		if (ret || (ret = fec__param_check(d, &v, err, errlen)))
			return ret ? ret : -FEC_EINVAL;
	}
	if (spec->frame.in == FEC_IN_F32_SYMLOGP)
		return fec__err(err, errlen, FEC_EINVAL,
		                "in: ids takes received bits as LLRs (s8 or f32), not f32v");
	if (spec->frame.framing == FEC_FRAMING_ASM)
		return fec__err(err, errlen, FEC_EINVAL,
		                "framing: ids frames vary in length, one per message "
		                "(framing=message), not after a sync marker");
	if (strcmp(s->code, "random") && strcmp(s->code, "watermark")) {
		struct ids_code *code = NULL;

		ret = ids__code_build(s, &code, err, errlen);
		if (ret)
			return ret;
		s->N = code->N;
		s->q = code->q;
		s->n = code->n;
		ids_code_free(code);
	}
	ret = ids_code_check_size(s->N, s->q, s->n, err, errlen);
	if (ret)
		return ret;
	if (s->q & (s->q - 1))
		return fec__err(err, errlen, FEC_ERANGE,
		                "q: expected a power of two (a symbol carries log2 q bits), got %u",
		                s->q);
	ret = ids_chan_check(&ch, err, errlen);
	if (ret)
		return ret;
	return check_outer(s, err, errlen);
}

static void ids_spec_describe(const struct fec_spec *spec, char *buf, size_t len)
{
	const struct ids_spec *s = &spec->u.ids;
	const struct fec_preset *preset = fec__preset_for_code(spec, &(unsigned){0});

	snprintf(buf, len, "%s TVB %s N=%u q=%u n=%u, BSID pi=%g pd=%g ps=%g%s%s%s",
	         preset ? preset->name : "ids", s->code, s->N, s->q, s->n, s->pi, s->pd, s->ps,
	         ids__has_outer(s) ? ", outer (" : "", ids__has_outer(s) ? s->outer : "",
	         ids__has_outer(s) ? ")" : "");
}

/* The same inner and outer codes (the channel and the decoder's settings aside). */
static bool ids_same_trellis(const struct fec_spec *a, const struct fec_spec *b)
{
	const struct ids_spec *x = &a->u.ids, *y = &b->u.ids;

	return !strcmp(x->code, y->code) && x->N == y->N && x->q == y->q && x->n == y->n &&
	       x->seed == y->seed && !strcmp(x->outer, y->outer);
}

static unsigned log2_of(uint32_t q)
{
	unsigned p = 0;

	while ((1u << p) < q)
		p++;
	return p;
}

/* Information bits per sent bit. */
static double ids_rate(const struct fec_spec *spec)
{
	const struct ids_spec *s = &spec->u.ids;
	const uint32_t syms = ids__has_outer(s) ? s->outer_k : s->N;

	if (!s->n || !s->N)
		return 0.0;
	return (double)syms * log2_of(s->q) / ((double)s->N * s->n);
}

/* One frame per fec_encode call: N codewords. */
static size_t ids_encoded_len(const struct fec_spec *spec, size_t nbits)
{
	(void)nbits;
	return (size_t)spec->u.ids.N * spec->u.ids.n;
}

unsigned ids__log2(uint32_t q)
{
	return log2_of(q);
}

static const struct fec_family_ops ids_ops = {
    .family = FECD_FAMILY_IDS,
    .name = "ids",
    .params = ids_params,
    .spec_default = ids_spec_default,
    .spec_set = ids_spec_set,
    .spec_finish = ids__spec_finish,
    .spec_get = ids_spec_get,
    .spec_describe = ids_spec_describe,
    .decoder_create = ids__decoder_create,
    .encoder_create = ids__encoder_create,
};

extern const struct fec_preset_def ids__presets[]; /* ids_presets.c */

const struct fec_family_impl ids_family = {
    .ops = &ids_ops,
    .encoded_len = ids_encoded_len,
    .same_trellis = ids_same_trellis,
    .same_code = ids_same_trellis,
    .rate = ids_rate,
    .frame_opts = true,
    .presets = ids__presets,
};
