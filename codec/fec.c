/*
 * The decoder interface's front door: error strings, the table of implemented families (as
 * fec_frame.c joins the frame families to their common block), the named presets of every family,
 * and the generic decoder/encoder calls that dispatch to a family's vtable. Specs, their text form
 * and their comparison live in fec_spec.c.
 *
 * A preset is data, in its family's table (fec_family_impl.presets): a name and that family's
 * parameters in the text form ("k=7,polys=171:133"), applied over the family's defaults by the
 * same parser that reads command lines, so presets and user input can never disagree about what a
 * parameter means.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fec_impl.h"

/* ---- Errors. */

const char *fec_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case FEC_OK:
		return "success";
#define X(name, msg)                                                                               \
	case FEC_E##name:                                                                          \
		return msg;
		FEC_ERRNO_MAP(X)
#undef X
	}
	return "unknown error";
}

int fec__err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -code;
}

/* ---- Build deadline (per thread). */

static _Thread_local uint64_t build_deadline_ns;

void fec_build_deadline_set(uint64_t deadline_ns)
{
	build_deadline_ns = deadline_ns;
}

uint64_t fec_build_deadline(void)
{
	return build_deadline_ns;
}

bool fec__build_expired(void)
{
	struct timespec ts;

	if (!build_deadline_ns)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec >= build_deadline_ns;
}

/* ---- Families: the built ones as fec_frame.c joins the frame families to their common block,
 * then the tests' family (fec__family_add_for_test; NULL in fecd). */

static const struct fec_family_impl *test_family;

void fec__family_add_for_test(const struct fec_family_impl *impl)
{
	test_family = impl;
}

static unsigned family_count(void)
{
	return fec__family_total() + (test_family != NULL);
}

static const struct fec_family_impl *family_at(unsigned i)
{
	unsigned built = fec__family_total();

	return i < built ? fec__family_joined(i) : i == built ? test_family : NULL;
}

const struct fec_family_impl *fec__family_impl(int family)
{
	for (unsigned i = 0; i < family_count(); i++)
		if ((int)family_at(i)->ops->family == family)
			return family_at(i);
	return NULL;
}

const struct fec_family_ops *fec_family_by_id(int family)
{
	const struct fec_family_impl *impl = fec__family_impl(family);

	return impl ? impl->ops : NULL;
}

const struct fec_family_ops *fec_family_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned i = 0; i < family_count(); i++)
		if (strcmp(family_at(i)->ops->name, name) == 0)
			return family_at(i)->ops;
	return NULL;
}

unsigned fec_family_count(void)
{
	return family_count();
}

const struct fec_family_ops *fec_family_at(unsigned i)
{
	return i < family_count() ? family_at(i)->ops : NULL;
}

/* ---- Presets: each family's table (fec_family_impl.presets), in family order. */

static const struct fec_preset_def *preset_def_at(unsigned i)
{
	const struct fec_family_impl *impl;

	for (unsigned f = 0; (impl = fec__family_joined(f)); f++) {
		for (const struct fec_preset_def *p = impl->presets; p && p->pub.name; p++)
			if (i-- == 0)
				return p;
	}
	return NULL;
}

unsigned fec_preset_count(void)
{
	unsigned n = 0;

	while (preset_def_at(n))
		n++;
	return n;
}

const struct fec_preset *fec_preset_at(unsigned i)
{
	const struct fec_preset_def *p = preset_def_at(i);

	return p ? &p->pub : NULL;
}

static const struct fec_preset_def *preset_find(const char *name)
{
	const struct fec_preset_def *p;

	for (unsigned i = 0; (p = preset_def_at(i)); i++)
		if (strcmp(p->pub.name, name) == 0)
			return p;
	return NULL;
}

int fec__preset_start(const char *name, struct fec_spec *spec, char *err, size_t errlen)
{
	const struct fec_preset_def *p = preset_find(name);
	const struct fec_family_ops *ops;
	char params[256];

	if (!p)
		return -FEC_EINVAL;
	ops = fec_family_by_id(p->pub.family);
	if (!ops)
		return fec__err(err, errlen, FEC_EFAMILY, "preset %s: family not built", name);
	memset(spec, 0, sizeof(*spec));
	spec->family = p->pub.family;
	ops->spec_default(spec);
	snprintf(params, sizeof(params), "%s", p->params);
	return fec__apply_params(ops, spec, params, err, errlen);
}

int fec_preset_apply(const char *name, struct fec_spec *spec)
{
	struct fec_spec tmp;
	int ret;

	if (!name || !spec)
		return -FEC_EINVAL;
	ret = fec__preset_start(name, &tmp, NULL, 0);
	if (ret)
		return ret;
	ret = fec_family_by_id(tmp.family)->spec_finish(&tmp, NULL, 0);
	if (ret)
		return ret;
	*spec = tmp;
	return 0;
}

/* Edit distance with swaps of neighbours (optimal string alignment), without case; names longer
 * than NAME_CMP_MAX count as far. */
#define NAME_CMP_MAX 64
static unsigned name_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[NAME_CMP_MAX + 1][NAME_CMP_MAX + 1];

	if (la > NAME_CMP_MAX || lb > NAME_CMP_MAX)
		return UINT32_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost =
			    tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			unsigned v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

const char *fec_code_name_nearest(const char *name)
{
	const char *best = NULL;
	unsigned best_d = UINT32_MAX, limit;

	if (!name || !*name)
		return NULL;
	limit = (unsigned)(strlen(name) / 3);
	if (limit < 1)
		limit = 1;
	for (unsigned i = 0; i < fec_preset_count(); i++) {
		unsigned d = name_distance(name, fec_preset_at(i)->name);
		if (d < best_d) {
			best_d = d;
			best = fec_preset_at(i)->name;
		}
	}
	for (unsigned i = 0; i < fec_family_count(); i++) {
		unsigned d = name_distance(name, fec_family_at(i)->name);
		if (d < best_d) {
			best_d = d;
			best = fec_family_at(i)->name;
		}
	}
	return best_d <= limit ? best : NULL;
}

const struct fec_preset *fec__preset_for_code(const struct fec_spec *spec, unsigned *matches)
{
	const struct fec_family_impl *impl = fec__family_impl(spec->family);
	const struct fec_preset *first = NULL;
	unsigned n = 0;

	for (const struct fec_preset_def *p = impl ? impl->presets : NULL; p && p->pub.name; p++) {
		struct fec_spec tmp;

		if (fec_preset_apply(p->pub.name, &tmp))
			continue;
		if (impl->same_trellis(spec, &tmp)) {
			if (!first)
				first = &p->pub;
			n++;
		}
	}
	if (matches)
		*matches = n;
	return first;
}

/* ---- Decoders and encoders: checks common to every family, then the family's vtable. */

int fec_decoder_create(const struct fec_spec *spec, struct fec_decoder **out)
{
	const struct fec_family_ops *ops;
	int rc;

	if (!spec || !out)
		return -FEC_EINVAL;
	ops = fec_family_by_id(spec->family);
	if (!ops)
		return -FEC_EFAMILY;
	rc = ops->decoder_create(spec, out);
	if (rc == 0) {
		(*out)->extra_holders = 0;
		(*out)->info.all_zero_valid = fec__family_impl(spec->family)->all_zero_valid;
	}
	return rc;
}

struct fec_decoder *fec_decoder_hold(const struct fec_decoder *dec)
{
	/* Immutable but for its count of holders. */
	struct fec_decoder *d = (struct fec_decoder *)dec;

	__atomic_add_fetch(&d->extra_holders, 1, __ATOMIC_RELAXED);
	return d;
}

void fec_decoder_destroy(struct fec_decoder *dec)
{
	/* The last holder frees it: acquire-release, so that whatever other holders did with it
	 * happens before the free. */
	if (dec && __atomic_fetch_sub(&dec->extra_holders, 1, __ATOMIC_ACQ_REL) == 0)
		dec->vt->destroy(dec);
}

const struct fec_info *fec_decoder_info(const struct fec_decoder *dec)
{
	return &dec->info;
}

const struct fec_spec *fec_decoder_spec(const struct fec_decoder *dec)
{
	return &dec->spec;
}

int fec_decoder_info_ranges(const struct fec_decoder *dec, struct fec_info_range *ranges,
                            size_t max, uint32_t *unsent)
{
	*unsent = 0;
	if (!dec->vt->info_ranges)
		return 0;
	return dec->vt->info_ranges(dec, ranges, max, unsent);
}

void fec_info_ranges_add(struct fec_info_range *ranges, size_t max, size_t *n, uint32_t pos)
{
	if (*n > max)
		return; /* they did not fit: max + 1 says so */
	if (*n && ranges[*n - 1].last + 1 == pos) {
		ranges[*n - 1].last = pos;
		return;
	}
	if (*n < max)
		ranges[*n] = (struct fec_info_range){pos, pos};
	++*n;
}

int fec_decode(const struct fec_decoder *dec, void *scratch, struct fec_batch *b, uint32_t first,
               uint32_t count)
{
	if (!dec || !b || (count && (!b->jobs || (!b->in && !b->in_f32) || !b->out)))
		return -FEC_EINVAL;
	if (first > b->count || count > b->count - first)
		return -FEC_EINVAL;
	if (count && dec->info.scratch_bytes && !scratch)
		return -FEC_EINVAL;
	if (count == 0)
		return 0;
	return dec->vt->decode(dec, scratch, b, first, count);
}

bool fec_decoder_has_siso(const struct fec_decoder *dec)
{
	return dec && dec->vt->decode_siso;
}

int fec_decode_siso(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                    const float *prior, size_t prior_stride, uint32_t first, uint32_t count,
                    char *err, size_t errlen)
{
	const struct fec_family_ops *ops;

	if (!dec)
		return fec__err(err, errlen, FEC_EINVAL, "no decoder");
	if (!dec->vt->decode_siso) {
		ops = fec_family_by_id(dec->info.family);
		return fec__err(err, errlen, FEC_ENOTSUP,
		                "the %s decoder has no soft-in/soft-out entry (decode_siso): use "
		                "fec_decode, or a family with one as the child of a composite code",
		                ops ? ops->name : "unknown");
	}
	if (!b || (count && (!b->jobs || (!b->in && !b->in_f32) || !b->out)) || first > b->count ||
	    count > b->count - first || (count && dec->info.scratch_bytes && !scratch))
		return fec__err(err, errlen, FEC_EINVAL,
		                "bad batch: jobs %u..+%u of %u, with input, output and scratch",
		                first, count, b ? b->count : 0);
	if (!b->soft)
		return fec__err(err, errlen, FEC_EINVAL,
		                "no soft output buffer: the posteriors go to fec_batch.soft");
	if (count == 0)
		return 0;
	return dec->vt->decode_siso(dec, scratch, b, prior, prior_stride, first, count, err,
	                            errlen);
}

int fec_input_polarity(const struct fec_decoder *dec, const int8_t *in, uint32_t n,
                       struct fec_polarity *out)
{
	if (!dec || !out || (n && !in))
		return -FEC_EINVAL;
	*out = (struct fec_polarity){0};
	if (!dec->vt->input_polarity)
		return -FEC_ENOTSUP;
	return dec->vt->input_polarity(dec, in, n, out);
}

int fec_encoder_create(const struct fec_spec *spec, struct fec_encoder **out)
{
	const struct fec_family_ops *ops;

	if (!spec || !out)
		return -FEC_EINVAL;
	ops = fec_family_by_id(spec->family);
	if (!ops)
		return -FEC_EFAMILY;
	return ops->encoder_create(spec, out);
}

void fec_encoder_destroy(struct fec_encoder *enc)
{
	if (enc)
		enc->vt->destroy(enc);
}

int fec_encode(struct fec_encoder *enc, const uint8_t *bits, size_t nbits, uint8_t *out,
               size_t *nout)
{
	if (!enc || !nout || (nbits && !bits) || !out)
		return -FEC_EINVAL;
	return enc->vt->encode(enc, bits, nbits, out, nout);
}

void fec_encoder_reset(struct fec_encoder *enc)
{
	if (enc)
		enc->vt->reset(enc);
}

size_t fec_encoded_len(const struct fec_spec *spec, size_t nbits)
{
	const struct fec_family_impl *impl = spec ? fec__family_impl(spec->family) : NULL;

	return impl ? impl->encoded_len(spec, nbits) : 0;
}

double fec_spec_rate(const struct fec_spec *spec)
{
	const struct fec_family_impl *impl = spec ? fec__family_impl(spec->family) : NULL;

	return impl ? impl->rate(spec) : 0.0;
}

bool fec_spec_same_code(const struct fec_spec *a, const struct fec_spec *b)
{
	const struct fec_family_impl *impl;

	if (!a || !b || a->family != b->family)
		return false;
	impl = fec__family_impl(a->family);
	return impl && impl->same_code(a, b) &&
	       (!impl->frame_opts || fec__frame_same_framing(&a->frame, &b->frame));
}
