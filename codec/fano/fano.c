/*
 * The fano family's parameters: the schema that config files, channel.create, codes.list and the
 * command-line text form all read (the codec appends the frame families' common block: in,
 * llr_scale, framing and the sync marker), the rules that turn values into a valid code
 * (spec_finish), and the family's entry in fec.c's table. The encoder and the code tables are in
 * fano_encode.c, the decoders in fano_decode.c, the presets in fano_presets.c.
 *
 * The polynomials are kept in both notations (fano.h): the user chooses one by the parameter given,
 * polys (octal) or polys_karn (Karn's), the spec remembers which was given last (notation, not a
 * parameter), and spec_finish derives the other list from it, so that a finished spec reads back
 * the same code both ways, a spec read back from its parameters is the same code whichever list
 * comes last, and equal codes compare equal.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fano_code.h"

static const char *const algo_names[] = {"ufa", "bfa", NULL};

static const struct fec_param_desc fano_params[] = {
    {"k", FEC_PARAM_INT, FANO_K_MIN, FANO_K_MAX, 0, NULL, "7",
     "constraint length K (K-1 memory bits): an integer in 3..64"},
    {"polys", FEC_PARAM_OCT_LIST, 1, FEC_PARAM_U64_MAX, FANO_N_MAX, NULL, "133:171:165",
     "generator polynomials in octal, 2..4 (one per output, sent in this order), as the "
     "viterbi family writes them: the top of the K bits taps the current input bit; or give "
     "polys_karn instead",
     .min_items = FANO_N_MIN},
    {"polys_karn", FEC_PARAM_HEX_LIST, 1, FEC_PARAM_U64_MAX, FANO_N_MAX, NULL, NULL,
     "the same in Karn's and WSJT-X's notation, hexadecimal, 2..4: bit 0 taps the current "
     "input bit (WSPR: 0xf2d05351:0xe4613c47); the list given last is the code's, the other "
     "is derived from it",
     .min_items = FANO_N_MIN},
    {"frame_bits", FEC_PARAM_INT, 1, FANO_FRAME_BITS_MAX, 0, NULL, "1024",
     "information bits per frame, 1..65536 (K-1 zero tail bits follow)"},
    {"algo", FEC_PARAM_ENUM, 0, 0, 0, algo_names, "ufa",
     "ufa (one Fano decoder from the frame's start) or bfa (a forward and a backward decoder "
     "in turn until their paths merge)"},
    {"delta", FEC_PARAM_INT, 1, FANO_DELTA_MAX, 0, NULL, "32",
     "threshold step in metric units of 1/16 bit, 1..65536"},
    {"cycles", FEC_PARAM_INT, 1, FANO_CYCLES_MAX, 0, NULL, "1000",
     "search budget: cycles per trellis stage (information and tail bits), 1..65000; a frame "
     "that uses them all is not_converged"},
    {"merge", FEC_PARAM_INT, 1, FANO_MERGE_MAX, 0, NULL, "2",
     "bfa: consecutive trellis states the two decoders' paths must share to merge, 1..16"},
    {NULL},
};

static void fano_spec_default(struct fec_spec *spec)
{
	struct fano_spec *f = &spec->u.fano;

	memset(f, 0, sizeof(*f));
	spec->family = FECD_FAMILY_FANO;
	f->k = 7;
	f->n = 3;
	f->notation = FANO_NOTATION_OCTAL;
	f->polys[0] = 0133;
	f->polys[1] = 0171;
	f->polys[2] = 0165;
	for (unsigned r = 0; r < 3; r++)
		f->polys_karn[r] = fano_bitrev(f->polys[r], f->k);
	f->frame_bits = 1024;
	f->algo = FANO_ALGO_UFA;
	f->delta = 32;
	f->cycles = 1000;
	f->merge = 2;
}

static int fano_spec_set(struct fec_spec *spec, const char *name, const struct fec_param_value *v,
                         char *err, size_t errlen)
{
	const struct fec_param_desc *d = fec__param_find(fano_params, name);
	struct fano_spec *f = &spec->u.fano;
	int ret;

	if (!d)
		return fec__err(err, errlen, FEC_EPARAM, "unknown parameter '%s' for fano",
		                name ? name : "(null)");
	ret = fec__param_check(d, v, err, errlen);
	if (ret)
		return ret;
	if (!strcmp(name, "k")) {
		f->k = (uint8_t)v->i;
	} else if (!strcmp(name, "polys") || !strcmp(name, "polys_karn")) {
		const bool karn = !strcmp(name, "polys_karn");
		uint64_t *list = karn ? f->polys_karn : f->polys;

		memset(f->polys, 0, sizeof(f->polys));
		memset(f->polys_karn, 0, sizeof(f->polys_karn));
		for (unsigned r = 0; r < v->nitems; r++)
			list[r] = v->items[r];
		f->n = (uint8_t)v->nitems;
		f->notation = karn ? FANO_NOTATION_KARN : FANO_NOTATION_OCTAL;
	} else if (!strcmp(name, "frame_bits")) {
		f->frame_bits = (uint32_t)v->i;
	} else if (!strcmp(name, "algo")) {
		f->algo = (enum fano_algo)(v->i + 1);
	} else if (!strcmp(name, "delta")) {
		f->delta = (uint32_t)v->i;
	} else if (!strcmp(name, "cycles")) {
		f->cycles = (uint32_t)v->i;
	} else if (!strcmp(name, "merge")) {
		f->merge = (uint8_t)v->i;
	}
	return 0;
}

static int fano_spec_get(const struct fec_spec *spec, const char *name, struct fec_param_value *v,
                         void *buf, size_t buflen)
{
	const struct fec_param_desc *d = fec__param_find(fano_params, name);
	const struct fano_spec *f = &spec->u.fano;

	if (!d || !v || !buf)
		return -FEC_EPARAM;
	memset(v, 0, sizeof(*v));
	v->type = d->type;
	if (!strcmp(name, "k")) {
		v->i = f->k;
	} else if (!strcmp(name, "polys") || !strcmp(name, "polys_karn")) {
		const uint64_t *list = !strcmp(name, "polys") ? f->polys : f->polys_karn;
		uint64_t *items = buf;

		if (buflen < FANO_N_MAX * sizeof(uint64_t) || f->n > FANO_N_MAX)
			return -FEC_ERANGE;
		for (unsigned r = 0; r < f->n; r++)
			items[r] = list[r];
		v->items = items;
		v->nitems = f->n;
	} else if (!strcmp(name, "frame_bits")) {
		v->i = f->frame_bits;
	} else if (!strcmp(name, "algo")) {
		v->i = (long)f->algo - 1;
	} else if (!strcmp(name, "delta")) {
		v->i = f->delta;
	} else if (!strcmp(name, "cycles")) {
		v->i = f->cycles;
	} else if (!strcmp(name, "merge")) {
		v->i = f->merge;
	}
	return 0;
}

int fano_spec_finish(struct fec_spec *spec, char *err, size_t errlen)
{
	struct fano_spec *f = &spec->u.fano;
	const bool karn = f->notation == FANO_NOTATION_KARN;
	const char *list = karn ? "polys_karn" : "polys";
	uint64_t *given = karn ? f->polys_karn : f->polys;
	uint64_t *derived = karn ? f->polys : f->polys_karn;
	unsigned cur = 0, old = 0;
	int ret;

	if (spec->family != FECD_FAMILY_FANO)
		return fec__err(err, errlen, FEC_EFAMILY, "not a fano spec");
	if (f->notation != FANO_NOTATION_OCTAL && f->notation != FANO_NOTATION_KARN)
		return fec__err(err, errlen, FEC_EINVAL, "polys: no polynomials given");
	if (f->n < FANO_N_MIN || f->n > FANO_N_MAX)
		return fec__err(err, errlen, FEC_ERANGE,
		                "%s: expected %d..%d polynomials (one per output), got %u", list,
		                FANO_N_MIN, FANO_N_MAX, f->n);
	for (const struct fec_param_desc *d = fano_params; d->name; d++) {
		uint64_t buf[FANO_N_MAX];
		struct fec_param_value v;

		if (!strcmp(d->name, karn ? "polys" : "polys_karn"))
			continue; /* derived below */
		ret = fano_spec_get(spec, d->name, &v, buf, sizeof(buf));
		if (ret || (ret = fec__param_check(d, &v, err, errlen)))
			return ret;
	}
	for (unsigned r = 0; r < f->n; r++) {
		if (f->k < 64 && given[r] >> f->k) {
			char text[24];

			fec_param_item_format(karn ? FEC_PARAM_HEX_LIST : FEC_PARAM_OCT_LIST,
			                      given[r], text, sizeof(text));
			return fec__err(err, errlen, FEC_ERANGE,
			                "%s: %s is wider than k=%u bits (k is 3..64)", list, text,
			                f->k);
		}
		derived[r] = fano_bitrev(given[r], f->k);
		/* Karn's notation: bit 0 taps the current input, bit k-1 the oldest */
		cur |= (unsigned)(f->polys_karn[r] & 1u);
		old |= (unsigned)(f->polys_karn[r] >> (f->k - 1) & 1u);
	}
	for (unsigned r = f->n; r < FANO_N_MAX; r++)
		f->polys[r] = f->polys_karn[r] = 0;
	if (!cur)
		return fec__err(err, errlen, FEC_EINVAL, "%s: none taps the current input bit: %s",
		                list,
		                karn ? "Karn's notation taps it with bit 0 (octal: polys)"
		                     : "octal taps it with the top of the k bits (Karn's: "
		                       "polys_karn)");
	if (!old)
		return fec__err(err, errlen, FEC_EINVAL,
		                "%s: none taps the oldest of k=%u bits: is k too large for these "
		                "polynomials?",
		                list, f->k);
	return 0;
}

static void fano_spec_describe(const struct fec_spec *spec, char *buf, size_t len)
{
	const struct fano_spec *f = &spec->u.fano;
	const struct fec_preset *preset;
	char polys[80] = "";
	unsigned matches, used = 0;
	const bool karn = f->notation == FANO_NOTATION_KARN;

	if (f->n < FANO_N_MIN || f->n > FANO_N_MAX || f->k < FANO_K_MIN || f->k > FANO_K_MAX) {
		snprintf(buf, len, "fano (invalid: K=%u, %u outputs)", f->k, f->n);
		return;
	}
	preset = fec__preset_for_code(spec, &matches);
	for (unsigned r = 0; r < f->n; r++) {
		char item[24];

		fec_param_item_format(karn ? FEC_PARAM_HEX_LIST : FEC_PARAM_OCT_LIST,
		                      karn ? f->polys_karn[r] : f->polys[r], item, sizeof(item));
		used += (unsigned)snprintf(polys + used, sizeof(polys) - used, "%s%s", r ? ":" : "",
		                           item);
		if (used >= sizeof(polys))
			break;
	}
	snprintf(buf, len, "%s K=%u r=1/%u %s frames of %u bits, %s delta=%u cycles=%u%s",
	         matches == 1 ? preset->name : "fano", f->k, f->n, polys, f->frame_bits,
	         f->algo == FANO_ALGO_BFA ? "bfa" : "ufa", f->delta, f->cycles,
	         spec->frame.in == FEC_IN_F32_LLR ? " f32" : "");
}

/* The same taps (compared in Karn's notation, which finish derives whatever was given). */
static bool fano_same_trellis(const struct fec_spec *a, const struct fec_spec *b)
{
	const struct fano_spec *x = &a->u.fano, *y = &b->u.fano;

	if (x->k != y->k || x->n != y->n || x->n > FANO_N_MAX)
		return false;
	for (unsigned r = 0; r < x->n; r++)
		if (x->polys_karn[r] != y->polys_karn[r])
			return false;
	return true;
}

/* Frames of the same length carry on across a change of decoder settings. */
static bool fano_same_code(const struct fec_spec *a, const struct fec_spec *b)
{
	return fano_same_trellis(a, b) && a->u.fano.frame_bits == b->u.fano.frame_bits;
}

/* Information bits per code bit, the tail included in the code bits. */
static double fano_rate(const struct fec_spec *spec)
{
	const struct fano_spec *f = &spec->u.fano;

	if (f->n < FANO_N_MIN || f->n > FANO_N_MAX || f->k < FANO_K_MIN || !f->frame_bits)
		return 0.0;
	return (double)f->frame_bits / ((double)f->n * (f->frame_bits + f->k - 1));
}

/* One frame per fec_encode call. */
static size_t fano_encoded_len(const struct fec_spec *spec, size_t nbits)
{
	const struct fano_spec *f = &spec->u.fano;

	(void)nbits;
	if (f->n > FANO_N_MAX || f->k > FANO_K_MAX)
		return 0;
	return (size_t)f->n * (f->frame_bits + f->k - 1);
}

static const struct fec_family_ops fano_ops = {
    .family = FECD_FAMILY_FANO,
    .name = "fano",
    .params = fano_params,
    .spec_default = fano_spec_default,
    .spec_set = fano_spec_set,
    .spec_finish = fano_spec_finish,
    .spec_get = fano_spec_get,
    .spec_describe = fano_spec_describe,
    .decoder_create = fano_decoder_create,
    .encoder_create = fano_encoder_create,
};

extern const struct fec_preset_def fano__presets[]; /* fano_presets.c */

const struct fec_family_impl fano_family = {
    .ops = &fano_ops,
    .encoded_len = fano_encoded_len,
    .same_trellis = fano_same_trellis,
    .same_code = fano_same_code,
    .rate = fano_rate,
    .frame_opts = true,
    .presets = fano__presets,
    .all_zero_valid = true,
};
