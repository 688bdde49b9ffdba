/*
 * The Viterbi family's parameters: the schema that config files, channel.create, codes.list and
 * the command-line text form all read, and the rules that turn a set of values into a valid code
 * (spec_finish). The encoder is in conv_encode.c and the decoder in viterbi.c.
 *
 * Geometry (decode_len, traceback_len, head_len) is counted in trellis stages, that is decoded
 * bits. Blocks must start on a puncturing period, so spec_finish rounds each length UP to a whole
 * number of periods (2048 stays 2048 at rate 1/2 and becomes 2049 at 3/4); the values read back
 * after finishing are the ones in use. head_len 0 means "the same as traceback_len" (the seed's
 * M = L) and is resolved by spec_finish, so a later change of traceback_len alone leaves a
 * resolved head_len as it is.
 */
#include <stdio.h>
#include <string.h>

#include "conv_code.h"
#include "fec_impl.h"

#define LEN_MAX  (1L << 20)
#define EDGE_MAX (1L << 16)

static const char *const mode_names[] = {"stream", "terminated", "truncated", NULL};

static const struct fec_param_desc conv_params[] = {
    {"k", FEC_PARAM_INT, CONV_K_MIN, CONV_K_MAX, 0, NULL, "7",
     "constraint length K (K-1 memory bits): an integer in 3..9"},
    {"polys", FEC_PARAM_OCT_LIST, 1, 0777, CONV_N_MAX, NULL, "171:133",
     "generator polynomials in octal, 2..4 (one per output, sent in this order); the top of "
     "the K bits taps the current input bit",
     .min_items = CONV_N_MIN},
    {"invert", FEC_PARAM_STRING, 0, CONV_N_MAX, 0, NULL, "none",
     "output inversion: none (the textbook code), or one 0/1 character per output in polys "
     "order (\"01\": the second output is inverted, as CCSDS)"},
    {"puncture", FEC_PARAM_STRING, 0, CONV_N_MAX *(CONV_PUNCT_MAX + 1), 0, NULL, "none",
     "puncturing: none, a DVB-S pattern for 2 outputs (2/3, 3/4, 5/6, 7/8), or one row of "
     "0/1 per output (1 = sent, up to 16 steps) separated by ':' (',' also in JSON), e.g. "
     "101:110"},
    {"mode", FEC_PARAM_ENUM, 0, 0, 0, mode_names, "stream",
     "stream (continuous, decoded in overlapping blocks), terminated (frames ending with K-1 "
     "zero bits) or truncated (frames without tail)"},
    {"decode_len", FEC_PARAM_INT, 1, LEN_MAX, 0, NULL, "2048",
     "stream: decoded bits per block (D), rounded up to whole puncturing periods"},
    {"traceback_len", FEC_PARAM_INT, 1, EDGE_MAX, 0, NULL, "64",
     "stream: trellis stages after each block for the traceback (L, 5K or more), rounded up to "
     "whole puncturing periods"},
    {"head_len", FEC_PARAM_INT, 0, EDGE_MAX, 0, NULL, NULL,
     "stream: stages before each block to warm the path metrics up (M); 0 or absent: the same "
     "as traceback_len; rounded up to whole puncturing periods"},
    {"max_frame_bits", FEC_PARAM_INT, 1, LEN_MAX, 0, NULL, "8192",
     "frames: largest number of information bits in one frame"},
    {NULL},
};

/* DVB-S (EN 300 421) puncturing, rows X (output 1) then Y (output 2). */
static const struct {
	const char *name, *x, *y;
} dvbs_punct[] = {
    {"2/3", "10", "11"},
    {"3/4", "101", "110"},
    {"5/6", "10101", "11010"},
    {"7/8", "1000101", "1111010"},
};

static void conv_spec_default(struct fec_spec *spec)
{
	struct conv_spec *c = &spec->u.conv;

	memset(c, 0, sizeof(*c));
	spec->family = FECD_FAMILY_VITERBI;
	c->k = 7;
	c->n = 2;
	c->polys[0] = 0171;
	c->polys[1] = 0133;
	c->invert = 0; /* the textbook code: a preset such as ccsds names its inversion */
	c->punct_period = 1;
	c->punct[0] = c->punct[1] = 1;
	c->mode = CONV_MODE_STREAM;
	c->decode_len = 2048;
	c->traceback_len = 64;
	c->head_len = 0;
	c->max_frame_bits = 8192;
}

/* "101" -> 0b101: step t is bit (len - 1 - t), as struct conv_spec stores it. */
static uint16_t row_bits(const char *row, size_t len)
{
	uint16_t bits = 0;

	for (size_t t = 0; t < len; t++)
		bits = (uint16_t)(bits << 1 | (row[t] == '1'));
	return bits;
}

static int set_puncture(struct conv_spec *c, const char *s, char *err, size_t errlen)
{
	static const char expected[] = "expected none, 2/3, 3/4, 5/6, 7/8 or one row of 0/1 per "
	                               "output like 101:110";
	unsigned rows = 0;
	size_t period = 0;

	if (!strcmp(s, "none") || !strcmp(s, "1/2") || !*s) {
		c->punct_period = 1;
		memset(c->punct, 0, sizeof(c->punct));
		return 0;
	}
	for (size_t i = 0; i < sizeof(dvbs_punct) / sizeof(dvbs_punct[0]); i++) {
		if (strcmp(s, dvbs_punct[i].name))
			continue;
		memset(c->punct, 0, sizeof(c->punct));
		c->punct_period = (uint8_t)strlen(dvbs_punct[i].x);
		c->punct[0] = row_bits(dvbs_punct[i].x, c->punct_period);
		c->punct[1] = row_bits(dvbs_punct[i].y, c->punct_period);
		return 0;
	}
	if (strspn(s, "01:,") != strlen(s))
		return fec__err(err, errlen, FEC_EINVAL, "puncture: %s, got '%s'", expected, s);

	uint16_t punct[CONV_N_MAX] = {0};

	for (const char *p = s;; p++) {
		size_t len = strcspn(p, ":,");

		if (rows == CONV_N_MAX)
			return fec__err(err, errlen, FEC_ERANGE,
			                "puncture: at most %d rows (one per output), got more in "
			                "'%s'",
			                CONV_N_MAX, s);
		if (len == 0 || len > CONV_PUNCT_MAX)
			return fec__err(err, errlen, FEC_ERANGE,
			                "puncture: rows of 1..%d steps expected, got one of %zu in "
			                "'%s'",
			                CONV_PUNCT_MAX, len, s);
		if (period && len != period)
			return fec__err(err, errlen, FEC_EINVAL,
			                "puncture: all rows must have the same length, got %zu and "
			                "%zu in '%s'",
			                period, len, s);
		period = len;
		punct[rows++] = row_bits(p, len);
		p += len;
		if (!*p)
			break;
	}
	c->punct_period = (uint8_t)period;
	memcpy(c->punct, punct, sizeof(punct));
	return 0;
}

static int set_invert(struct conv_spec *c, const char *s, char *err, size_t errlen)
{
	size_t len = strlen(s);
	uint8_t mask = 0;

	if (!strcmp(s, "none") || len == 0) {
		c->invert = 0;
		return 0;
	}
	if (len > CONV_N_MAX || strspn(s, "01") != len)
		return fec__err(err, errlen, FEC_EINVAL,
		                "invert: expected one 0/1 character per output (e.g. 01) or none, "
		                "got '%s'",
		                s);
	for (size_t r = 0; r < len; r++)
		if (s[r] == '1')
			mask |= (uint8_t)(1u << r);
	c->invert = mask;
	return 0;
}

static int conv_spec_set(struct fec_spec *spec, const char *name, const struct fec_param_value *v,
                         char *err, size_t errlen)
{
	const struct fec_param_desc *d = fec__param_find(conv_params, name);
	struct conv_spec *c = &spec->u.conv;
	int ret;

	if (!d)
		return fec__err(err, errlen, FEC_EPARAM, "unknown parameter '%s' for viterbi",
		                name ? name : "(null)");
	ret = fec__param_check(d, v, err, errlen);
	if (ret)
		return ret;
	if (!strcmp(name, "k")) {
		c->k = (uint8_t)v->i;
	} else if (!strcmp(name, "polys")) {
		if (v->nitems < CONV_N_MIN)
			return fec__err(err, errlen, FEC_ERANGE,
			                "polys: expected %d..%d octal numbers (one per output), "
			                "got %u",
			                CONV_N_MIN, CONV_N_MAX, v->nitems);
		memset(c->polys, 0, sizeof(c->polys));
		for (unsigned r = 0; r < v->nitems; r++)
			c->polys[r] = (uint16_t)v->items[r];
		c->n = (uint8_t)v->nitems;
	} else if (!strcmp(name, "invert")) {
		return set_invert(c, v->s, err, errlen);
	} else if (!strcmp(name, "puncture")) {
		return set_puncture(c, v->s, err, errlen);
	} else if (!strcmp(name, "mode")) {
		c->mode = (enum conv_mode)(v->i + 1);
	} else if (!strcmp(name, "decode_len")) {
		c->decode_len = (uint32_t)v->i;
	} else if (!strcmp(name, "traceback_len")) {
		c->traceback_len = (uint32_t)v->i;
	} else if (!strcmp(name, "head_len")) {
		c->head_len = (uint32_t)v->i;
	} else if (!strcmp(name, "max_frame_bits")) {
		c->max_frame_bits = (uint32_t)v->i;
	}
	return 0;
}

static int conv_spec_get(const struct fec_spec *spec, const char *name, struct fec_param_value *v,
                         void *buf, size_t buflen)
{
	const struct fec_param_desc *d = fec__param_find(conv_params, name);
	const struct conv_spec *c = &spec->u.conv;
	char *s = buf;

	if (!d || !v || !buf)
		return -FEC_EPARAM;
	memset(v, 0, sizeof(*v));
	v->type = d->type;
	if (!strcmp(name, "k")) {
		v->i = c->k;
	} else if (!strcmp(name, "polys")) {
		uint64_t *items = buf;

		if (buflen < CONV_N_MAX * sizeof(uint64_t) || c->n > CONV_N_MAX)
			return -FEC_ERANGE;
		for (unsigned r = 0; r < c->n; r++)
			items[r] = c->polys[r];
		v->items = items;
		v->nitems = c->n;
	} else if (!strcmp(name, "invert")) {
		if (buflen < CONV_N_MAX + 1 || c->n > CONV_N_MAX)
			return -FEC_ERANGE;
		for (unsigned r = 0; r < c->n; r++)
			s[r] = (c->invert >> r & 1) ? '1' : '0';
		s[c->n] = '\0';
		v->s = s;
	} else if (!strcmp(name, "puncture")) {
		size_t used = 0;

		if (buflen < CONV_N_MAX * (CONV_PUNCT_MAX + 1) + 1 || c->n > CONV_N_MAX ||
		    c->punct_period > CONV_PUNCT_MAX)
			return -FEC_ERANGE;
		if (c->punct_period <= 1)
			used = (size_t)sprintf(s, "none");
		for (unsigned r = 0; c->punct_period > 1 && r < c->n; r++) {
			if (r)
				s[used++] = ':';
			for (unsigned t = 0; t < c->punct_period; t++)
				s[used++] =
				    (c->punct[r] >> (c->punct_period - 1 - t) & 1) ? '1' : '0';
		}
		s[used] = '\0';
		v->s = s;
	} else if (!strcmp(name, "mode")) {
		v->i = (long)c->mode - 1;
	} else if (!strcmp(name, "decode_len")) {
		v->i = c->decode_len;
	} else if (!strcmp(name, "traceback_len")) {
		v->i = c->traceback_len;
	} else if (!strcmp(name, "head_len")) {
		v->i = c->head_len;
	} else if (!strcmp(name, "max_frame_bits")) {
		v->i = c->max_frame_bits;
	}
	return 0;
}

static uint32_t round_up(uint32_t v, unsigned period)
{
	return (v + period - 1) / period * period;
}

static int check_puncture(struct conv_spec *c, char *err, size_t errlen)
{
	unsigned p = c->punct_period;

	if (p <= 1) {
		c->punct_period = 1;
		memset(c->punct, 0, sizeof(c->punct));
		for (unsigned r = 0; r < c->n; r++)
			c->punct[r] = 1;
		return 0;
	}
	if (p > CONV_PUNCT_MAX)
		return fec__err(err, errlen, FEC_ERANGE, "puncture: period %u is above %d", p,
		                CONV_PUNCT_MAX);
	for (unsigned r = 0; r < CONV_N_MAX; r++) {
		c->punct[r] &= (uint16_t)((1u << p) - 1);
		if (r < c->n && !c->punct[r])
			return fec__err(err, errlen, FEC_EINVAL,
			                "puncture: output %u sends nothing: expected one row per "
			                "output (%u rows)",
			                r + 1, c->n);
		if (r >= c->n && c->punct[r])
			return fec__err(err, errlen, FEC_EINVAL,
			                "puncture: %u rows given but the code has %u outputs",
			                r + 1, c->n);
	}
	for (unsigned t = 0; t < p; t++) {
		unsigned any = 0;

		for (unsigned r = 0; r < c->n; r++)
			any |= c->punct[r] >> (p - 1 - t) & 1u;
		if (!any)
			return fec__err(err, errlen, FEC_EINVAL,
			                "puncture: step %u sends no symbol: every column needs a 1",
			                t + 1);
	}
	return 0;
}

int conv_spec_finish(struct fec_spec *spec, char *err, size_t errlen)
{
	struct conv_spec *c = &spec->u.conv;
	unsigned top = 0, bottom = 0;
	int ret;

	if (spec->family != FECD_FAMILY_VITERBI)
		return fec__err(err, errlen, FEC_EFAMILY, "not a viterbi spec");
	if (c->n < CONV_N_MIN || c->n > CONV_N_MAX)
		return fec__err(err, errlen, FEC_ERANGE,
		                "polys: expected %d..%d octal numbers (one per output), got %u",
		                CONV_N_MIN, CONV_N_MAX, c->n);
	ret = check_puncture(c, err, errlen);
	if (ret)
		return ret;
	for (const struct fec_param_desc *d = conv_params; d->name; d++) {
		union {
			uint64_t items[CONV_N_MAX];
			char s[CONV_N_MAX * (CONV_PUNCT_MAX + 1) + 1];
		} buf;
		struct fec_param_value v;

		ret = conv_spec_get(spec, d->name, &v, &buf, sizeof(buf));
		if (ret || (ret = fec__param_check(d, &v, err, errlen)))
			return ret;
	}
	for (unsigned r = 0; r < c->n; r++) {
		if (c->polys[r] >> c->k)
			return fec__err(err, errlen, FEC_ERANGE,
			                "polys: %o has more than k=%u bits", c->polys[r], c->k);
		top |= c->polys[r] >> (c->k - 1) & 1u;
		bottom |= c->polys[r] & 1u;
	}
	for (unsigned r = c->n; r < CONV_N_MAX; r++)
		c->polys[r] = 0;
	if (!top)
		return fec__err(
		    err, errlen, FEC_EINVAL,
		    "polys: none taps the current input (bit %u of k=%u bits): is k too "
		    "large for these polynomials?",
		    c->k - 1, c->k);
	if (!bottom)
		return fec__err(
		    err, errlen, FEC_EINVAL,
		    "polys: none taps the oldest bit (the lowest of k=%u bits): is k too "
		    "large for these polynomials?",
		    c->k);
	if (c->invert >> c->n)
		return fec__err(err, errlen, FEC_EINVAL,
		                "invert: an output beyond the code's %u is inverted", c->n);
	if (c->head_len == 0)
		c->head_len = c->traceback_len;
	c->decode_len = round_up(c->decode_len, c->punct_period);
	c->traceback_len = round_up(c->traceback_len, c->punct_period);
	c->head_len = round_up(c->head_len, c->punct_period);
	return 0;
}

/* Enough of a spec to build its tables without undefined behaviour (finished specs always are). */
static bool conv_spec_sane(const struct conv_spec *c)
{
	return c->k >= CONV_K_MIN && c->k <= CONV_K_MAX && c->n >= CONV_N_MIN &&
	       c->n <= CONV_N_MAX && c->punct_period <= CONV_PUNCT_MAX;
}

static void rate_text(const struct conv_spec *c, char *buf, size_t len)
{
	struct conv_code code;
	unsigned a, b, x, y;

	conv_code_init(&code, c);
	a = code.period;
	b = code.unit_syms;
	for (x = a, y = b; y;) {
		unsigned t = x % y;

		x = y;
		y = t;
	}
	snprintf(buf, len, "%u/%u", a / x, b / x);
}

static void conv_spec_describe(const struct fec_spec *spec, char *buf, size_t len)
{
	const struct conv_spec *c = &spec->u.conv;
	const struct fec_preset *preset;
	char rate[16], polys[40] = "";
	unsigned matches, used = 0;

	if (!conv_spec_sane(c)) {
		snprintf(buf, len, "viterbi (invalid: K=%u, %u outputs)", c->k, c->n);
		return;
	}
	rate_text(c, rate, sizeof(rate));
	preset = fec__preset_for_code(spec, &matches);
	for (unsigned r = 0; r < c->n && r < CONV_N_MAX; r++)
		used +=
		    (unsigned)snprintf(polys + used, sizeof(polys) - used, "%s%o%s", r ? ":" : "",
		                       c->polys[r], (c->invert >> r & 1) ? "~" : "");
	if (c->mode == CONV_MODE_STREAM)
		snprintf(buf, len, "%s K=%u r=%s %s stream D=%u L=%u M=%u",
		         matches == 1 ? preset->name : "viterbi", c->k, rate, polys, c->decode_len,
		         c->traceback_len, c->head_len);
	else
		snprintf(buf, len, "%s K=%u r=%s %s %s frames up to %u bits",
		         matches == 1 ? preset->name : "viterbi", c->k, rate, polys,
		         c->mode == CONV_MODE_TERMINATED ? "terminated" : "truncated",
		         c->max_frame_bits);
}

static bool conv_same_trellis(const struct fec_spec *a, const struct fec_spec *b)
{
	const struct conv_spec *x = &a->u.conv, *y = &b->u.conv;

	if (x->k != y->k || x->n != y->n || x->n > CONV_N_MAX || x->invert != y->invert ||
	    x->punct_period != y->punct_period)
		return false;
	for (unsigned r = 0; r < x->n; r++)
		if (x->polys[r] != y->polys[r] || x->punct[r] != y->punct[r])
			return false;
	return true;
}

static bool conv_same_code(const struct fec_spec *a, const struct fec_spec *b)
{
	return conv_same_trellis(a, b) && a->u.conv.mode == b->u.conv.mode;
}

static double conv_rate(const struct fec_spec *spec)
{
	struct conv_code code;

	if (!conv_spec_sane(&spec->u.conv))
		return 0.0;
	conv_code_init(&code, &spec->u.conv);
	return code.unit_syms ? (double)code.period / code.unit_syms : 0.0;
}

static size_t conv_encoded_len(const struct fec_spec *spec, size_t nbits)
{
	const struct conv_spec *c = &spec->u.conv;
	struct conv_code code;

	if (!conv_spec_sane(c))
		return 0;
	conv_code_init(&code, c);
	switch (c->mode) {
	case CONV_MODE_STREAM:
		/* Any run of `period` stages sends unit_syms symbols, whatever the phase. */
		return (nbits + code.period - 1) / code.period * code.unit_syms;
	case CONV_MODE_TERMINATED:
		return conv_syms_for_stages(&code, nbits + code.k - 1);
	case CONV_MODE_TRUNCATED:
		return conv_syms_for_stages(&code, nbits);
	}
	return 0;
}

void conv_code_init(struct conv_code *c, const struct conv_spec *s)
{
	memset(c, 0, sizeof(*c));
	c->k = s->k;
	c->n = s->n;
	c->nstates = 1u << (s->k - 1);
	c->mode = s->mode;
	c->period = s->punct_period > 1 ? s->punct_period : 1;
	for (unsigned reg = 0; reg < 2 * c->nstates; reg++) {
		unsigned w = 0;

		for (unsigned r = 0; r < c->n; r++)
			w |= ((unsigned)__builtin_parity(reg & s->polys[r]) ^ (s->invert >> r & 1u))
			     << r;
		c->word[reg] = (uint8_t)w;
	}
	for (unsigned t = 0; t < c->period; t++) {
		unsigned mask = 0;

		for (unsigned r = 0; r < c->n; r++)
			if (c->period == 1 || (s->punct[r] >> (c->period - 1 - t) & 1u))
				mask |= 1u << r;
		c->sent[t] = (uint8_t)mask;
		c->cum[t + 1] = (uint8_t)(c->cum[t] + __builtin_popcount(mask));
	}
	c->unit_syms = c->cum[c->period];
}

static const struct fec_family_ops conv_ops = {
    .family = FECD_FAMILY_VITERBI,
    .name = "viterbi",
    .params = conv_params,
    .spec_default = conv_spec_default,
    .spec_set = conv_spec_set,
    .spec_finish = conv_spec_finish,
    .spec_get = conv_spec_get,
    .spec_describe = conv_spec_describe,
    .decoder_create = conv_decoder_create,
    .encoder_create = conv_encoder_create,
};

extern const struct fec_preset_def conv__presets[]; /* conv_presets.c */

const struct fec_family_impl conv_family = {
    .ops = &conv_ops,
    .encoded_len = conv_encoded_len,
    .same_trellis = conv_same_trellis,
    .same_code = conv_same_code,
    .rate = conv_rate,
    .presets = conv__presets,
    .all_zero_valid = true,
};
