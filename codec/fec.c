/*
 * The decoder interface's front door: error strings, the table of implemented families, the named
 * presets, and the generic decoder/encoder calls that dispatch to a family's vtable. Specs, their
 * text form and their comparison live in fec_spec.c.
 *
 * A preset is data: a family and that family's parameters in the text form ("k=7,polys=171:133"),
 * applied over the family's defaults by the same parser that reads command lines, so presets and
 * user input can never disagree about what a parameter means.
 */
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

/* ---- Families. */

static const struct fec_family_impl *const families[] = {
#define X(fam, impl) &impl,
    FEC_FAMILY_IMPL_MAP(X)
#undef X
};

#define NBUILT (sizeof(families) / sizeof(families[0]))

/* The tests' family (fec__family_add_for_test), after the built ones; NULL in fecd. */
static const struct fec_family_impl *test_family;

void fec__family_add_for_test(const struct fec_family_impl *impl)
{
	test_family = impl;
}

static unsigned family_count(void)
{
	return NBUILT + (test_family != NULL);
}

static const struct fec_family_impl *family_at(unsigned i)
{
	return i < NBUILT ? families[i] : i == NBUILT ? test_family : NULL;
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

/* ---- Presets. Polynomials are octal with the top bit tapping the current input (conv.h).
 *
 * Convolutional presets name their output inversion, since the family's default inverts
 * nothing (the textbook code). Only CCSDS and NASA-DSN invert an output:
 *   - ccsds: CCSDS 131.0-B (TM Synchronization and Channel Coding), section 3, the rate-1/2
 *     basic convolutional code: G1 = 1111001 (171) then G2 = 1011011 (133), the G2 output
 *     inverted; libfec's "CCSDS/NASA-GSFC convention" (V27POLYB, then V27POLYA inverted);
 *   - nasa-dsn: libfec's "NASA-DSN convention": the same polynomials the other way round, the
 *     first inverted (V27POLYA = 133 inverted, then V27POLYB = 171);
 *   - voyager: libfec's viterbi27 and gr-fec's cc_encoder default ([109, 79], LSB first): 133
 *     then 171, nothing inverted;
 *   - wifi-*: IEEE 802.11 (OFDM PHY, clause 17; 5/6 from the HT PHY, 802.11n): g0 = 133 (output
 *     A) and g1 = 171 (B), nothing inverted, punctured as the standard's figures show;
 *   - dvbs-*: ETSI EN 300 421 (DVB-S) 4.4.3: G1 = 171 (X) and G2 = 133 (Y), nothing inverted,
 *     its table 2 puncturing;
 *   - lte: 3GPP TS 36.212 5.1.3.1: G0 = 133, G1 = 171, G2 = 165, nothing inverted (its
 *     tail-biting is not done here);
 *   - gsm: 3GPP TS 45.003 (GSM 05.03): G0 = 1 + D3 + D4 (23), G1 = 1 + D + D3 + D4 (33);
 *   - is95-fwd, is95-rev, cdma2000: TIA/EIA-95 (forward 753, 561; reverse 557, 663, 711) and
 *     3GPP2 C.S0002 (rate 1/4 K=9: 765, 671, 513, 473), nothing inverted. */

struct preset_entry {
	struct fec_preset pub;
	const char *params; /* text form applied over the family's defaults */
};

#define V FECD_FAMILY_VITERBI
static const struct preset_entry presets[] = {
    {{"ccsds", V, "CCSDS 131.0-B K=7 r=1/2: G1=171 then G2=133, G2 inverted"},
     "k=7,polys=171:133,invert=01,puncture=none"},
    {{"nasa-dsn", V, "NASA-DSN K=7 r=1/2, libfec's NASA-DSN convention: 133 inverted, then 171"},
     "k=7,polys=133:171,invert=10,puncture=none"},
    {{"voyager", V,
      "Voyager K=7 r=1/2 as libfec's viterbi27 and gr-fec's default: 133 then 171, no "
      "inversion (the polynomials of ccsds and nasa-dsn)"},
     "k=7,polys=133:171,invert=none,puncture=none"},
    {{"wifi-1/2", V, "IEEE 802.11 K=7 r=1/2: A=133, B=171"},
     "k=7,polys=133:171,invert=none,puncture=none"},
    {{"wifi-2/3", V, "IEEE 802.11 K=7 r=2/3: A=133 B=171 punctured A=11 B=10"},
     "k=7,polys=133:171,invert=none,puncture=11:10"},
    {{"wifi-3/4", V, "IEEE 802.11 K=7 r=3/4: A=133 B=171 punctured A=110 B=101"},
     "k=7,polys=133:171,invert=none,puncture=110:101"},
    {{"wifi-5/6", V, "IEEE 802.11n K=7 r=5/6: A=133 B=171 punctured A=11010 B=10101"},
     "k=7,polys=133:171,invert=none,puncture=11010:10101"},
    {{"dvbs-1/2", V, "DVB-S (EN 300 421) K=7 r=1/2: X=171, Y=133"},
     "k=7,polys=171:133,invert=none,puncture=none"},
    {{"dvbs-2/3", V, "DVB-S K=7 r=2/3: X=171 Y=133 punctured X=10 Y=11"},
     "k=7,polys=171:133,invert=none,puncture=2/3"},
    {{"dvbs-3/4", V, "DVB-S K=7 r=3/4: X=171 Y=133 punctured X=101 Y=110"},
     "k=7,polys=171:133,invert=none,puncture=3/4"},
    {{"dvbs-5/6", V, "DVB-S K=7 r=5/6: X=171 Y=133 punctured X=10101 Y=11010"},
     "k=7,polys=171:133,invert=none,puncture=5/6"},
    {{"dvbs-7/8", V, "DVB-S K=7 r=7/8: X=171 Y=133 punctured X=1000101 Y=1111010"},
     "k=7,polys=171:133,invert=none,puncture=7/8"},
    {{"lte", V, "3GPP LTE K=7 r=1/3: 133, 171, 165 (here without tail-biting)"},
     "k=7,polys=133:171:165,invert=none,puncture=none"},
    {{"gsm", V, "GSM K=5 r=1/2: G0=23, G1=33"}, "k=5,polys=23:33,invert=none,puncture=none"},
    {{"is95-fwd", V, "IS-95 forward link K=9 r=1/2: 753, 561"},
     "k=9,polys=753:561,invert=none,puncture=none"},
    {{"is95-rev", V, "IS-95 reverse link K=9 r=1/3: 557, 663, 711"},
     "k=9,polys=557:663:711,invert=none,puncture=none"},
    {{"cdma2000", V, "cdma2000 K=9 r=1/4: 765, 671, 513, 473"},
     "k=9,polys=765:671:513:473,invert=none,puncture=none"},
#define L FECD_FAMILY_LDPC
    /* LDPC presets name matrices in the codes folder (ldpc.h) or the codes the family builds,
     * with the decoder settings that suit them, where the family's defaults (layered nms alpha
     * 0.875, 20 iterations) do not. Measured on the CPU decoder (the GPU's gives the same bits):
     *     build/tests/ldpc_fer EBN0 300 1 PRESET,SETTINGS...
     * BPSK over AWGN, int8 LLRs at llr_scale 8, seed 1, 300 frames per point, points 0.1 dB
     * apart; "x dB" is where FER crosses 0.1, interpolated in log FER between two points. The
     * rule: a min-sum kind where it comes within 0.25 dB of spa at the same iterations (min-sum
     * is the fast path: the CPU's SIMD passes, the GPU's fast kernel, both layered int8; spa
     * runs on the GPU's generic kernel and takes 50-300 times as long on a CPU core), spa
     * where it does not. Layered beat flooding on every code at equal iterations.
     *   - dvbs2-*: 50 iterations, as EN 302 307's reference figures; at 20 they lose 0.21 /
     *     0.10 / 0.02 dB (r1/2 oms 1.07 dB, r3/4 nms 2.23, r9/10 nms 0.8125 3.73).
     *     r1/2: oms offset 0.5, 0.86 dB (spa 0.73; nms 0.8125 0.99; at 0.9 dB nms 0.875 fails
     *     179 of 300 frames, oms 0.5 9). r3/4, r9/10: nms 0.875, 2.13 / 3.71 dB (spa 2.09 /
     *     3.67; oms 0.375 2.13 / 3.72).
     *   - nr-bg1, nr-bg2 (z=384): spa, 50 iterations, -0.06 / -0.44 dB: the best min-sum, oms
     *     offset 0.5, is 0.34 / 0.40 dB behind (0.27 / -0.04 dB at 50 iterations, 0.44 / 0.18
     *     at 20, where spa is at 0.12 / -0.24), nms 0.6875 no nearer, and nms 0.875 fails all 300
     *     frames at 0.4 / 0.1 dB (z=32 at 1.0 dB: 136 of 300, spa none, oms 0.5 six). 50
     *     iterations gain spa 0.18 / 0.20 dB over 20 and cost little where frames decode (mean
     *     17.7 against 17.1 at 0.1 dB, bg1). Fast instead: algo=oms,offset=0.5.
     *   - ar4ja-4096: nms alpha 0.75, 50 iterations, 1.12 dB: 0.22 dB behind spa (0.90; oms
     *     0.375 1.13; nms 0.875 fails 120 of 300 at 1.2 dB where 0.75 fails 9); 20 iterations
     *     lose 0.23 dB.
     *   - 10gbase-t: nms alpha 0.625, 3.40 dB (spa 3.37; nms 0.875 3.65, 0.5625 3.43).
     *   - the others keep the defaults: mackay-8000 1.47 dB, 0.09 behind spa (1.39; nms 0.8125
     *     1.45); the small codes fail about as often as with spa at one point (1000 frames,
     *     seed 2; spa / nms 0.875): mackay-1008 2.0 dB 18 / 22, wimax-576 1.5 dB 140 / 182,
     *     wifi-648-5/6 3.2 dB 237 / 252, ccsds-128 2.5 dB 138 / 146. */
    {{"dvbs2-1/2", L, "DVB-S2 normal frame LDPC r=1/2 (64800,32400); oms 0.5, 50 iterations"},
     "code=DVB-S2_64800x32400.alist,algo=oms,offset=0.5,iters=50"},
    {{"dvbs2-3/4", L, "DVB-S2 normal frame LDPC r=3/4 (64800,48600); 50 iterations"},
     "code=DVB-S2_64800x16200.alist,iters=50"},
    {{"dvbs2-9/10", L, "DVB-S2 normal frame LDPC r=9/10 (64800,58320); 50 iterations"},
     "code=DVB-S2_64800x6480.alist,iters=50"},
    {{"mackay-8000", L, "MacKay (3,6)-regular LDPC, N=8000 r=1/2"}, "code=MACKAY_4000_8000.alist"},
    {{"mackay-1008", L, "MacKay (3,6)-regular LDPC, N=1008 r=1/2"}, "code=MACKAY_504_1008.alist"},
    {{"wimax-576", L, "IEEE 802.16e LDPC N=576 r=1/2"}, "code=WIMAX_288_576.alist"},
    {{"wifi-648-5/6", L, "IEEE 802.11n LDPC N=648 r=5/6"}, "code=WIFI_540_648.alist"},
    {{"ccsds-128", L, "CCSDS telecommand LDPC (128,64)"}, "code=CCSDS_64_128.alist"},
    {{"10gbase-t", L, "IEEE 802.3an 10GBASE-T LDPC (2048,1723); nms alpha 0.625"},
     "code=10GBPS-ETHERNET_1723_2048.alist,algo=nms,alpha=0.625"},
    {{"ar4ja-4096", L,
      "CCSDS AR4JA LDPC k=4096 r=1/2 (the 2z punctured columns not sent); nms alpha 0.75, 50 "
      "iterations"},
     "code=AR4JA_4096_8192.qc,algo=nms,alpha=0.75,iters=50"},
    {{"nr-bg1", L,
      "3GPP 5G NR LDPC base graph 1, Z=384 (k=8448; first 2Z columns punctured); spa, 50 "
      "iterations (oms 0.5 for speed: 0.34 dB worse)"},
     "code=nr-bg1,z=384,algo=spa,iters=50"},
    {{"nr-bg2", L,
      "3GPP 5G NR LDPC base graph 2, Z=384 (k=3840; first 2Z columns punctured); spa, 50 "
      "iterations (oms 0.5 for speed: 0.40 dB worse)"},
     "code=nr-bg2,z=384,algo=spa,iters=50"},
#undef L
};
#undef V

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

unsigned fec_preset_count(void)
{
	return NPRESETS;
}

const struct fec_preset *fec_preset_at(unsigned i)
{
	return i < NPRESETS ? &presets[i].pub : NULL;
}

static const struct preset_entry *preset_find(const char *name)
{
	for (unsigned i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].pub.name, name) == 0)
			return &presets[i];
	return NULL;
}

int fec__preset_start(const char *name, struct fec_spec *spec, char *err, size_t errlen)
{
	const struct preset_entry *p = preset_find(name);
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

const struct fec_preset *fec__preset_for_code(const struct fec_spec *spec, unsigned *matches)
{
	const struct fec_family_impl *impl = fec__family_impl(spec->family);
	const struct fec_preset *first = NULL;
	unsigned n = 0;

	for (unsigned i = 0; impl && i < NPRESETS; i++) {
		struct fec_spec tmp;

		if (presets[i].pub.family != spec->family)
			continue;
		if (fec_preset_apply(presets[i].pub.name, &tmp))
			continue;
		if (impl->same_trellis(spec, &tmp)) {
			if (!first)
				first = &presets[i].pub;
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
	if (rc == 0)
		(*out)->extra_holders = 0;
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
	return impl && impl->same_code(a, b);
}
