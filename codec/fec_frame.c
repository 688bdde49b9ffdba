/*
 * The block of channel-level settings every frame family shares (struct fec_frame_opts in fec.h:
 * the decoder's input kind, the one LLR scale, framing and the sync marker), and how the codec
 * joins it to each frame family: one parameter table, appended to the family's own, with
 * spec_default, spec_set, spec_get, spec_finish and decoder_create wrapped so that the block's
 * parameters are set, read, checked and handed to the decoder's fec_info by the codec, and the
 * rest by the family. Everything that reads a family's table (config files, channel.create, the
 * text form, codes.list, the README's reference) sees one table per family, the block's rows at
 * its end. Families that are not frame families (fec_family_impl.frame_opts false) are left as
 * they are.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "fec_impl.h"

static const char *const in_names[] = {"s8", "f32", "f32v", NULL};
static const char *const framing_names[] = {"message", "asm", NULL};

#define R(x) ((long)((x) * (double)FEC_PARAM_REAL_UNIT))

const struct fec_param_desc fec__frame_params[] = {
    {"llr_scale", FEC_PARAM_REAL, R(0.01), R(1000), 0, NULL, "8",
     "int8 input = LLR * llr_scale (as the channel's input.llr_scale)"},
    {"in", FEC_PARAM_ENUM, 0, 0, 0, in_names, "s8",
     "decoder input: s8 (int8 LLRs; min-sum runs in int8), f32 (float32 LLRs) or f32v (q "
     "float32 log-probabilities per q-ary symbol: nbldpc only)"},
    {"framing", FEC_PARAM_ENUM, 0, 0, 0, framing_names, "message",
     "message (one frame per input message) or asm (frames found after a sync marker in a "
     "raw stream)"},
    {"asm", FEC_PARAM_STRING, 2, 18, 0, NULL, "1ACFFC1D",
     "asm framing: the sync marker in hex, 2..16 digits (8..64 bits), first sent bit first"},
    {"asm_threshold", FEC_PARAM_REAL, 0, R(1), 0, NULL, "0.8",
     "asm framing: normalised soft correlation (0..1) needed to accept a marker while "
     "searching"},
    {"asm_lock_threshold", FEC_PARAM_REAL, 0, R(1), 0, NULL, "0.5",
     "asm framing: the same where a frame's end puts the next marker (locked), with the last "
     "marker's polarity"},
    {"asm_flywheel", FEC_PARAM_INT, 0, 16, 0, NULL, "0",
     "asm framing: failed locked tests in a row that keep the timing (each gives up its "
     "frame) before searching"},
    {NULL},
};

#undef R

#define FRAME_NPARAMS (sizeof(fec__frame_params) / sizeof(fec__frame_params[0]) - 1)

void fec__frame_default(struct fec_frame_opts *f)
{
	memset(f, 0, sizeof(*f));
	f->in = FEC_IN_S8_LLR;
	f->llr_scale = 8.0f;
	f->framing = FEC_FRAMING_MESSAGE;
	f->asm_marker = 0x1ACFFC1Du;
	f->asm_bits = 32;
	f->asm_threshold = 0.8f;
	f->asm_lock_threshold = 0.5f;
}

static int set_asm(struct fec_frame_opts *f, const char *s, char *err, size_t errlen)
{
	const char *h = s;
	uint64_t v = 0;
	size_t len;

	if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
		h += 2;
	len = strlen(h);
	if (len < 2 || len > 16 || strspn(h, "0123456789abcdefABCDEF") != len)
		return fec__err(err, errlen, FEC_EINVAL,
		                "asm: expected the marker as 2..16 hex digits (8..64 bits), e.g. "
		                "1ACFFC1D, got '%s'",
		                s);
	for (size_t i = 0; i < len; i++) {
		const char c = h[i];

		v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	f->asm_marker = v;
	f->asm_bits = (uint8_t)(4 * len);
	return 0;
}

int fec__frame_set(struct fec_frame_opts *f, const char *name, const struct fec_param_value *v,
                   char *err, size_t errlen)
{
	const struct fec_param_desc *d = name ? fec__param_find(fec__frame_params, name) : NULL;
	int ret;

	if (!d)
		return -FEC_EPARAM;
	ret = fec__param_check(d, v, err, errlen);
	if (ret)
		return ret;
	if (!strcmp(name, "llr_scale"))
		f->llr_scale = (float)v->r;
	else if (!strcmp(name, "in"))
		f->in = v->i == 2 ? FEC_IN_F32_SYMLOGP : v->i == 1 ? FEC_IN_F32_LLR : FEC_IN_S8_LLR;
	else if (!strcmp(name, "framing"))
		f->framing = (enum fec_framing)(v->i + 1);
	else if (!strcmp(name, "asm"))
		return set_asm(f, v->s, err, errlen);
	else if (!strcmp(name, "asm_threshold"))
		f->asm_threshold = (float)v->r;
	else if (!strcmp(name, "asm_lock_threshold"))
		f->asm_lock_threshold = (float)v->r;
	else if (!strcmp(name, "asm_flywheel"))
		f->asm_flywheel = (uint8_t)v->i;
	return 0;
}

int fec__frame_get(const struct fec_frame_opts *f, const char *name, struct fec_param_value *v,
                   void *buf, size_t buflen)
{
	const struct fec_param_desc *d = name ? fec__param_find(fec__frame_params, name) : NULL;

	if (!d)
		return -FEC_EPARAM;
	if (!v || !buf)
		return -FEC_EINVAL;
	memset(v, 0, sizeof(*v));
	v->type = d->type;
	if (!strcmp(name, "llr_scale")) {
		v->r = f->llr_scale;
	} else if (!strcmp(name, "in")) {
		v->i = f->in == FEC_IN_F32_SYMLOGP ? 2 : f->in == FEC_IN_F32_LLR;
	} else if (!strcmp(name, "framing")) {
		v->i = (long)f->framing - 1;
	} else if (!strcmp(name, "asm")) {
		if (buflen < 17 || f->asm_bits < 8 || f->asm_bits > FEC_ASM_MAX_BITS)
			return -FEC_ERANGE;
		snprintf(buf, buflen, "%0*llX", (int)(f->asm_bits + 3) / 4,
		         (unsigned long long)f->asm_marker);
		v->s = buf;
	} else if (!strcmp(name, "asm_threshold")) {
		v->r = f->asm_threshold;
	} else if (!strcmp(name, "asm_lock_threshold")) {
		v->r = f->asm_lock_threshold;
	} else if (!strcmp(name, "asm_flywheel")) {
		v->i = f->asm_flywheel;
	}
	return 0;
}

int fec__frame_check(const struct fec_frame_opts *f, char *err, size_t errlen)
{
	if (f->in != FEC_IN_S8_LLR && f->in != FEC_IN_F32_LLR && f->in != FEC_IN_F32_SYMLOGP)
		return fec__err(err, errlen, FEC_EINVAL, "in: expected one of s8, f32, f32v");
	for (const struct fec_param_desc *d = fec__frame_params; d->name; d++) {
		char buf[32];
		struct fec_param_value v;
		int ret = fec__frame_get(f, d->name, &v, buf, sizeof(buf));

		if (ret)
			return fec__err(err, errlen, FEC_EINVAL, "%s: no valid value", d->name);
		ret = fec__param_check(d, &v, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

bool fec__frame_same_framing(const struct fec_frame_opts *a, const struct fec_frame_opts *b)
{
	return a->framing == b->framing && a->asm_bits == b->asm_bits &&
	       a->asm_marker == b->asm_marker;
}

/* ---- Joining the block to the frame families. */

/* Room for a family's parameters and the block's in one table; fec__family_joined leaves the
 * block out of a table that would not fit (test_frame_opts checks that ldpc's holds it). */
#define JOINED_PARAMS_MAX 64

#define X(fam, impl) +1
enum { NFAMILIES = 0 FEC_FAMILY_IMPL_MAP(X) };
#undef X

static const struct fec_family_impl *const own_impls[] = {
#define X(fam, impl) &impl,
    FEC_FAMILY_IMPL_MAP(X)
#undef X
};

static struct fec_param_desc joined_params[NFAMILIES][JOINED_PARAMS_MAX];
static struct fec_family_ops joined_ops[NFAMILIES];
static struct fec_family_impl joined_impls[NFAMILIES];
static const struct fec_family_impl *joined[NFAMILIES];
static atomic_int joined_state; /* 0: not built, 1: being built, 2: ready */

static void joined_default(const struct fec_family_impl *impl, struct fec_spec *spec)
{
	impl->ops->spec_default(spec);
	fec__frame_default(&spec->frame);
}

static int joined_set(const struct fec_family_impl *impl, struct fec_spec *spec, const char *name,
                      const struct fec_param_value *v, char *err, size_t errlen)
{
	int ret = fec__frame_set(&spec->frame, name, v, err, errlen);

	return ret == -FEC_EPARAM ? impl->ops->spec_set(spec, name, v, err, errlen) : ret;
}

static int joined_get(const struct fec_family_impl *impl, const struct fec_spec *spec,
                      const char *name, struct fec_param_value *v, void *buf, size_t buflen)
{
	int ret = fec__frame_get(&spec->frame, name, v, buf, buflen);

	return ret == -FEC_EPARAM ? impl->ops->spec_get(spec, name, v, buf, buflen) : ret;
}

static int joined_finish(const struct fec_family_impl *impl, struct fec_spec *spec, char *err,
                         size_t errlen)
{
	int ret = fec__frame_check(&spec->frame, err, errlen);

	return ret ? ret : impl->ops->spec_finish(spec, err, errlen);
}

/* The decoder gets the block through its spec; its fec_info gets it from here. */
static int joined_decoder_create(const struct fec_family_impl *impl, const struct fec_spec *spec,
                                 struct fec_decoder **out)
{
	int ret = fec__frame_check(&spec->frame, NULL, 0);

	if (ret)
		return ret;
	ret = impl->ops->decoder_create(spec, out);
	if (ret)
		return ret;
	(*out)->info.frame = (*out)->spec.frame;
	return 0;
}

/* One set of entry points per family, since an operation gets no pointer to its own table. */
#define X(fam, impl)                                                                               \
	static void impl##_joined_default(struct fec_spec *s)                                      \
	{                                                                                          \
		joined_default(&impl, s);                                                          \
	}                                                                                          \
	static int impl##_joined_set(struct fec_spec *s, const char *n,                            \
	                             const struct fec_param_value *v, char *e, size_t el)          \
	{                                                                                          \
		return joined_set(&impl, s, n, v, e, el);                                          \
	}                                                                                          \
	static int impl##_joined_get(const struct fec_spec *s, const char *n,                      \
	                             struct fec_param_value *v, void *b, size_t bl)                \
	{                                                                                          \
		return joined_get(&impl, s, n, v, b, bl);                                          \
	}                                                                                          \
	static int impl##_joined_finish(struct fec_spec *s, char *e, size_t el)                    \
	{                                                                                          \
		return joined_finish(&impl, s, e, el);                                             \
	}                                                                                          \
	static int impl##_joined_decoder_create(const struct fec_spec *s, struct fec_decoder **o)  \
	{                                                                                          \
		return joined_decoder_create(&impl, s, o);                                         \
	}
FEC_FAMILY_IMPL_MAP(X)
#undef X

static const struct fec_family_ops joined_entries[] = {
#define X(fam, impl)                                                                               \
	{.spec_default = impl##_joined_default,                                                    \
	 .spec_set = impl##_joined_set,                                                            \
	 .spec_get = impl##_joined_get,                                                            \
	 .spec_finish = impl##_joined_finish,                                                      \
	 .decoder_create = impl##_joined_decoder_create},
    FEC_FAMILY_IMPL_MAP(X)
#undef X
};

static void join(unsigned i)
{
	const struct fec_family_impl *own = own_impls[i];
	struct fec_param_desc *t = joined_params[i];
	unsigned n = 0, own_n = 0;

	joined[i] = own;
	if (!own->frame_opts)
		return;
	while (own->ops->params[own_n].name)
		own_n++;
	if (own_n + FRAME_NPARAMS + 1 > JOINED_PARAMS_MAX)
		return;
	for (unsigned j = 0; j < own_n; j++)
		t[n++] = own->ops->params[j];
	for (unsigned j = 0; j < FRAME_NPARAMS; j++)
		t[n++] = fec__frame_params[j];
	t[n] = (struct fec_param_desc){NULL};
	joined_ops[i] = *own->ops;
	joined_ops[i].params = t;
	joined_ops[i].spec_default = joined_entries[i].spec_default;
	joined_ops[i].spec_set = joined_entries[i].spec_set;
	joined_ops[i].spec_get = joined_entries[i].spec_get;
	joined_ops[i].spec_finish = joined_entries[i].spec_finish;
	joined_ops[i].decoder_create = joined_entries[i].decoder_create;
	joined_impls[i] = *own;
	joined_impls[i].ops = &joined_ops[i];
	joined[i] = &joined_impls[i];
}

const struct fec_family_impl *fec__family_joined(unsigned i)
{
	int state = atomic_load_explicit(&joined_state, memory_order_acquire);

	if (state != 2) {
		int expected = 0;

		if (atomic_compare_exchange_strong_explicit(
		        &joined_state, &expected, 1, memory_order_acq_rel, memory_order_acquire)) {
			for (unsigned j = 0; j < NFAMILIES; j++)
				join(j);
			atomic_store_explicit(&joined_state, 2, memory_order_release);
		} else {
			while (atomic_load_explicit(&joined_state, memory_order_acquire) != 2)
				;
		}
	}
	return i < NFAMILIES ? joined[i] : NULL;
}

unsigned fec__family_total(void)
{
	return NFAMILIES;
}
