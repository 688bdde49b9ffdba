/*
 * The nbldpc decoder and encoder objects behind fec_decoder_create / fec_encoder_create: the code
 * loaded from the spec, the decoder's fec_info, the channel mapping (p bits per GF(q) symbol in
 * the spec's bit order: int8 or float32 bit LLRs become symbol log-likelihoods; or q float32
 * log-probabilities per symbol taken as they are, in=f32v), the output (information bits,
 * status, iterations, soft output as symbol log-probabilities or bit LLRs) and the systematic
 * encoder (one frame per call: k p information bits in, n p code bits out).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bitpack.h"
#include "nbldpc_decoder.h"

int nbldpc__spec_finish(struct fec_spec *spec, char *err, size_t errlen); /* nbldpc.c */

static void nbldpc_decoder_destroy(struct fec_decoder *dec)
{
	struct nbldpc_decoder *d = (struct nbldpc_decoder *)dec;

	nbldpc_code_free(d->code);
	free(d->tms_mul);
	free(d->tms_div);
	free(d->tms_sched);
	free(d);
}

/* Per frame, after the decoder's own scratch: priors or a-posteriori values (n q floats; the
 * min-max costs share them as int32), hard symbols (n), information bits (k p). */
static size_t frame_bytes(const struct nbldpc_decoder *d)
{
	const struct nbldpc_code *c = d->code;

	return (size_t)c->n * d->q * sizeof(float) + c->n + (size_t)c->k * d->p + 64;
}

/* The symbol log-likelihoods of frame in (float, for FFT-BP), from the decoder's input kind. */
static void map_in_f32(const struct nbldpc_decoder *d, const struct fec_batch *b, uint32_t j,
                       float *prior)
{
	const struct fec_spec *s = &d->base.spec;
	const struct nbldpc_code *c = d->code;
	const unsigned q = d->q, p = d->p;

	if (s->frame.in == FEC_IN_F32_SYMLOGP) {
		const float *in = b->in_f32 + j * b->in_stride;

		for (size_t i = 0; i < (size_t)c->n * q; i++)
			prior[i] = isfinite(in[i]) ? in[i] : -1e30f;
		return;
	}
	for (uint32_t x = 0; x < c->n; x++) {
		float llr[8];

		for (unsigned t = 0; t < p; t++) {
			const size_t i = (size_t)x * p + t;

			llr[t] = s->frame.in == FEC_IN_F32_LLR
			             ? b->in_f32[j * b->in_stride + i]
			             : b->in[j * b->in_stride + i] / s->frame.llr_scale;
			if (!isfinite(llr[t]))
				llr[t] = 0.0f;
		}
		/* log P(a) = -(sum of the LLRs of a's 1 bits), up to a constant */
		for (unsigned a = 0; a < q; a++) {
			float v = 0.0f;

			for (unsigned t = 0; t < p; t++)
				if ((a >> d->bit_shift[t]) & 1)
					v -= llr[t];
			prior[(size_t)x * q + a] = v;
		}
	}
}

/* The same as integer costs for min-max: llr_scale units, 0 for the likeliest value. int8 input
 * is taken exactly. */
static void map_in_cost(const struct nbldpc_decoder *d, const struct fec_batch *b, uint32_t j,
                        int32_t *cost)
{
	const struct fec_spec *s = &d->base.spec;
	const struct nbldpc_code *c = d->code;
	const unsigned q = d->q, p = d->p;
	const float sc = s->frame.llr_scale;

	for (uint32_t x = 0; x < c->n; x++) {
		int32_t *o = cost + (size_t)x * q;
		int32_t llr[8];

		if (s->frame.in == FEC_IN_F32_SYMLOGP) {
			const float *in = b->in_f32 + j * b->in_stride + (size_t)x * q;
			float mx = -INFINITY;

			for (unsigned a = 0; a < q; a++)
				if (in[a] > mx)
					mx = in[a];
			for (unsigned a = 0; a < q; a++) {
				const float v = (mx - in[a]) * sc;

				o[a] = v < NBLDPC_COST_MAX ? (int32_t)lrintf(v) : NBLDPC_COST_MAX;
			}
			continue;
		}
		for (unsigned t = 0; t < p; t++) {
			const size_t i = (size_t)x * p + t;

			if (s->frame.in == FEC_IN_F32_LLR) {
				float v = b->in_f32[j * b->in_stride + i] * sc;

				v = isfinite(v) ? v : 0.0f;
				v = v > 1e4f ? 1e4f : v < -1e4f ? -1e4f : v;
				llr[t] = (int32_t)lrintf(v);
			} else {
				llr[t] = b->in[j * b->in_stride + i];
			}
		}
		for (unsigned a = 0; a < q; a++) {
			int32_t v = 0;

			for (unsigned t = 0; t < p; t++)
				if ((a >> d->bit_shift[t]) & 1)
					v += llr[t];
			o[a] = v;
		}
	}
}

/* The int32 costs of n symbols to tms's int16 ones in the same memory (from the front: symbol
 * x's lie within the int32 costs of symbols up to x, already read): less each symbol's smallest,
 * capped at 32767. */
static void costs_to_i16(const int32_t *cost, int16_t *out, uint32_t n, unsigned q)
{
	for (uint32_t x = 0; x < n; x++) {
		const int32_t *v = cost + (size_t)x * q;
		int16_t tmp[NBLDPC_Q_MAX];
		int32_t mn = v[0];

		for (unsigned a = 1; a < q; a++)
			if (v[a] < mn)
				mn = v[a];
		for (unsigned a = 0; a < q; a++)
			tmp[a] = (int16_t)(v[a] - mn > 32767 ? 32767 : v[a] - mn);
		memcpy(out + (size_t)x * q, tmp, q * sizeof(int16_t));
	}
}

/* The sums of the costs of bits from..to-1 (shifts, bit 0 the lowest) over the values of those
 * bits: dst[a] for a < 2^(to - from), built up one bit at a time (the values below w so far have
 * this bit 0, their copies at + w have it 1). */
static void bit_sums(int16_t *dst, const int16_t *one, const int16_t *zero, unsigned from,
                     unsigned to)
{
	dst[0] = 0;
	for (unsigned sh = from; sh < to; sh++) {
		const unsigned w = 1u << (sh - from);

		for (unsigned a = 0; a < w; a++) {
			dst[a + w] = (int16_t)(dst[a] + one[sh]);
			dst[a] = (int16_t)(dst[a] + zero[sh]);
		}
	}
}

/* tms's costs from int8 LLRs directly: value a's cost is the sum of |LLR| over the bits where a
 * differs from the bitwise hard decision (the same as map_in_cost then costs_to_i16: the
 * smallest cost is the hard decision's, 0). It is the sum of two small tables, one over the
 * low 3 bits and one over the others, so that the q sums are rows of 8 additions (vector
 * additions for the compiler): 13 % of a B1C frame's decoding time went here when it was built
 * up one value at a time. GF(64) on the AVX-512 path takes nbldpc__tms_avx512_costs. */
static void map_in_s8_i16(const struct nbldpc_decoder *d, const int8_t *in, int16_t *app)
{
	const unsigned q = d->q, p = d->p, lb = p < 3 ? p : 3, ql = 1u << lb;

	for (uint32_t x = 0; x < d->code->n; x++) {
		int16_t *o = app + (size_t)x * q, one[8], zero[8], lo[8] = {0},
		        hi[NBLDPC_Q_MAX / 8];

		for (unsigned t = 0; t < p; t++) {
			const int v = in[(size_t)x * p + t];

			one[d->bit_shift[t]] = (int16_t)(v > 0 ? v : 0);
			zero[d->bit_shift[t]] = (int16_t)(v < 0 ? -v : 0);
		}
		bit_sums(lo, one, zero, 0, lb);
		bit_sums(hi, one, zero, lb, p);
		if (ql == 8) {
			for (unsigned j = 0; j < q / 8; j++)
				for (unsigned i = 0; i < 8; i++)
					o[j * 8 + i] = (int16_t)(lo[i] + hi[j]);
		} else {
			for (unsigned j = 0; j < q / ql; j++)
				for (unsigned i = 0; i < ql; i++)
					o[j * ql + i] = (int16_t)(lo[i] + hi[j]);
		}
	}
}

/* log of the sum of exp(v[a]) over the values a with (a & mask) == want */
static float logsumexp(const float *v, unsigned q, unsigned mask, unsigned want)
{
	float mx = -INFINITY, sum = 0.0f;

	for (unsigned a = 0; a < q; a++)
		if ((a & mask) == want && v[a] > mx)
			mx = v[a];
	for (unsigned a = 0; a < q; a++)
		if ((a & mask) == want)
			sum += expf(v[a] - mx);
	return mx + logf(sum);
}

/* The largest v[a] over the values a with (a & mask) == want. */
static float max_sel(const float *v, unsigned q, unsigned mask, unsigned want)
{
	float mx = -INFINITY;

	for (unsigned a = 0; a < q; a++)
		if ((a & mask) == want && v[a] > mx)
			mx = v[a];
	return mx;
}

static int nbldpc_decode_batch(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                               uint32_t first, uint32_t count)
{
	const struct nbldpc_decoder *d = (const struct nbldpc_decoder *)dec;
	const struct nbldpc_spec *s = &dec->spec.u.nbldpc;
	const struct nbldpc_code *c = d->code;
	const unsigned q = d->q, p = d->p;
	const uint32_t want = dec->info.frame_syms;
	/* 64-byte aligned (scratch_bytes has room): the tms paths' vector loads of R and P
	 * would otherwise split cache lines (1.13x slower with malloc's alignment) */
	uint8_t *own = (uint8_t *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
	float *vals = (float *)(own + ((nbldpc__scratch_bytes(d) + 63) & ~(size_t)63));
	uint8_t *hard = (uint8_t *)(vals + (size_t)c->n * q);
	uint8_t *bits = hard + c->n;

	if (dec->spec.frame.in == FEC_IN_S8_LLR ? !b->in : !b->in_f32)
		return -FEC_EINVAL; /* the input the decoder's in_kind names is missing */
	for (uint32_t j = first; j < first + count; j++) {
		struct fec_job *job = &b->jobs[j];
		unsigned it;
		bool ok;

		job->out_bits = 0;
		job->soft_count = 0;
		job->work = 0;
		job->metric = 0.0f;
		if (job->in_len != want || job->head_len != 0) {
			job->status = FECD_STATUS_ERASED;
			continue;
		}
		if (s->algo == NBLDPC_ALGO_FFTBP) {
			map_in_f32(d, b, j, vals);
			it = nbldpc__fftbp(d, own, vals, vals, hard, &ok);
		} else if (s->algo == NBLDPC_ALGO_TMS) {
			int32_t *cost = (int32_t *)vals;
			int16_t *app = (int16_t *)vals;

			if (dec->spec.frame.in == FEC_IN_S8_LLR) {
#if defined(FECD_SIMD_X86)
				if (d->tms_avx512)
					nbldpc__tms_avx512_costs(d, b->in + j * b->in_stride, app);
				else
#endif
					map_in_s8_i16(d, b->in + j * b->in_stride, app);
			} else {
				map_in_cost(d, b, j, cost);
				costs_to_i16(cost, app, c->n, q);
			}
			it = nbldpc__tms(d, own, app, hard, &ok);
			/* back to log-likelihoods (for soft output) from the last value down: float
			 * i covers the int16 costs 2i and 2i + 1, which are read by then */
			for (size_t i = (size_t)c->n * q; b->soft && i-- > 0;)
				vals[i] = -(float)app[i] / dec->spec.frame.llr_scale;
		} else {
			int32_t *cost = (int32_t *)vals;

			map_in_cost(d, b, j, cost);
			it = nbldpc__minmax(d, own, cost, hard, &ok);
			/* costs to log-likelihoods, normalised below */
			for (size_t i = 0; i < (size_t)c->n * q; i++)
				vals[i] = -(float)cost[i] / dec->spec.frame.llr_scale;
		}
		for (uint32_t i = 0; i < c->k; i++) {
			const uint8_t sym = hard[c->info_cols[i]];

			for (unsigned t = 0; t < p; t++)
				bits[(size_t)i * p + t] = (sym >> d->bit_shift[t]) & 1;
		}
		fec_pack_bits(bits, (size_t)c->k * p, b->out + j * b->out_stride);
		job->out_bits = c->k * p;
		job->work = it;
		job->status = ok ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
		if (!b->soft)
			continue;
		if (s->soft == NBLDPC_SOFT_CODE) { /* every column's, normalised */
			float *o = b->soft + j * b->soft_stride;

			for (uint32_t i = 0; i < c->n; i++) {
				const float *ap = vals + (size_t)i * q;
				const float norm = logsumexp(ap, q, 0, 0);

				for (unsigned a = 0; a < q; a++)
					o[(size_t)i * q + a] = ap[a] - norm;
			}
			job->soft_count = c->n * q;
			continue;
		}
		for (uint32_t i = 0; i < c->k; i++) {
			float *ap = vals + (size_t)c->info_cols[i] * q;
			float *o = b->soft + j * b->soft_stride;
			const float norm = logsumexp(ap, q, 0, 0);

			for (unsigned a = 0; a < q; a++)
				ap[a] -= norm;
			if (s->soft == NBLDPC_SOFT_SYM) {
				memcpy(o + (size_t)i * q, ap, q * sizeof(float));
				continue;
			}
			for (unsigned t = 0; t < p; t++) {
				const unsigned m = 1u << d->bit_shift[t];

				/* FFT-BP's posteriors are probabilities: the exact marginal.
				 * Min-max's are costs: the max-log one, whose sign is always the
				 * decided symbol's bit (the exact marginal of costs is not). */
				o[(size_t)i * p + t] =
				    s->algo == NBLDPC_ALGO_FFTBP
				        ? logsumexp(ap, q, m, 0) - logsumexp(ap, q, m, m)
				        : max_sel(ap, q, m, 0) - max_sel(ap, q, m, m);
			}
		}
		job->soft_count = s->soft == NBLDPC_SOFT_SYM ? c->k * q : c->k * p;
	}
	return 0;
}

/* fec_decoder_info_ranges: the information symbols are columns info_cols, sent in column order;
 * with bit input each symbol is p received values in a row. */
static int nbldpc_info_ranges(const struct fec_decoder *dec, struct fec_info_range *ranges,
                              size_t max, uint32_t *unsent)
{
	const struct nbldpc_decoder *d = (const struct nbldpc_decoder *)dec;
	const bool sym_in = dec->spec.frame.in == FEC_IN_F32_SYMLOGP;
	const uint32_t per = sym_in ? 1 : d->p;
	size_t n = 0;

	(void)unsent; /* every column is sent */
	for (uint32_t i = 0; i < d->code->k; i++)
		for (uint32_t b = 0; b < per; b++)
			fec_info_ranges_add(ranges, max, &n, d->code->info_cols[i] * per + b);
	return (int)n;
}

static const struct fec_decoder_vtbl nbldpc_vtbl = {
    .decode = nbldpc_decode_batch,
    .destroy = nbldpc_decoder_destroy,
    .info_ranges = nbldpc_info_ranges,
};

static void fill_info(struct nbldpc_decoder *d)
{
	struct fec_info *info = &d->base.info;
	const struct nbldpc_spec *s = &d->base.spec.u.nbldpc;
	const struct nbldpc_code *c = d->code;
	const bool sym_in = d->base.spec.frame.in == FEC_IN_F32_SYMLOGP;
	const uint32_t syms = sym_in ? c->n : c->n * d->p;

	memset(info, 0, sizeof(*info));
	info->family = FECD_FAMILY_NBLDPC;
	info->kind = FEC_KIND_FRAME;
	info->unit_syms = syms;
	info->unit_bits = c->k * d->p;
	info->frame_syms = syms;
	info->max_frame_syms = syms;
	info->max_out_bits = c->k * d->p;
	info->in_kind = d->base.spec.frame.in;
	info->in_q = sym_in ? d->q : 1;
	if (s->soft == NBLDPC_SOFT_SYM || s->soft == NBLDPC_SOFT_CODE) {
		info->soft_kind = FEC_SOFT_SYM_LOGP;
		info->soft_per_unit = d->q;
		info->max_soft = (s->soft == NBLDPC_SOFT_CODE ? c->n : c->k) * d->q;
	} else {
		info->soft_kind = FEC_SOFT_BIT_LLR;
		info->soft_per_unit = 1;
		info->max_soft = c->k * d->p;
	}
	info->frame_info_bits = c->k * d->p;
	info->scratch_bytes = 64 + ((nbldpc__scratch_bytes(d) + 63) & ~(size_t)63) + frame_bytes(d);
	info->job_group = 1;
}

static void set_bit_shift(uint8_t *shift, unsigned p, enum nbldpc_bit_order order)
{
	for (unsigned t = 0; t < p; t++)
		shift[t] = (uint8_t)(order == NBLDPC_MSB_FIRST ? p - 1 - t : t);
}

int nbldpc__decoder_create(const struct fec_spec *spec, struct fec_decoder **out)
{
	struct nbldpc_decoder *d;
	struct fec_spec s = *spec;
	int ret = nbldpc__spec_finish(&s, NULL, 0);

	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FEC_ENOMEM;
	d->base.vt = &nbldpc_vtbl;
	d->base.spec = s;
	ret = nbldpc_code_load(&s.u.nbldpc, &d->code, NULL, 0);
	if (ret) {
		free(d);
		return ret;
	}
	d->q = d->code->gf.q;
	d->p = d->code->gf.p;
	set_bit_shift(d->bit_shift, d->p, s.u.nbldpc.bit_order);
	ret = nbldpc__tms_prepare(d);
	if (ret) {
		nbldpc_code_free(d->code);
		free(d);
		return ret;
	}
	fill_info(d);
	*out = &d->base;
	return 0;
}

const struct nbldpc_code *nbldpc_decoder_code(const struct fec_decoder *dec)
{
	return dec && dec->vt == &nbldpc_vtbl ? ((const struct nbldpc_decoder *)dec)->code : NULL;
}

struct nbldpc_encoder {
	struct fec_encoder base;
	struct nbldpc_code *code;
	uint8_t shift[8];
	uint8_t *info, *cw; /* k and n symbols */
};

static int nbldpc_encode_frame(struct fec_encoder *enc, const uint8_t *bits, size_t nbits,
                               uint8_t *out, size_t *nout)
{
	struct nbldpc_encoder *e = (struct nbldpc_encoder *)enc;
	const struct nbldpc_code *c = e->code;
	const unsigned p = c->gf.p;

	if (nbits != (size_t)c->k * p)
		return nbits < (size_t)c->k * p ? -FEC_ESHORT : -FEC_ELONG;
	for (uint32_t i = 0; i < c->k; i++) {
		uint8_t sym = 0;

		for (unsigned t = 0; t < p; t++)
			sym |= (uint8_t)((bits[(size_t)i * p + t] ? 1u : 0u) << e->shift[t]);
		e->info[i] = sym;
	}
	nbldpc_encode(c, e->info, e->cw);
	for (uint32_t x = 0; x < c->n; x++)
		for (unsigned t = 0; t < p; t++)
			out[(size_t)x * p + t] = (e->cw[x] >> e->shift[t]) & 1;
	*nout = (size_t)c->n * p;
	return 0;
}

static void nbldpc_encoder_reset(struct fec_encoder *enc)
{
	(void)enc; /* frames carry no state from one to the next */
}

static void nbldpc_encoder_destroy(struct fec_encoder *enc)
{
	struct nbldpc_encoder *e = (struct nbldpc_encoder *)enc;

	free(e->info);
	free(e->cw);
	nbldpc_code_free(e->code);
	free(e);
}

static const struct fec_encoder_vtbl nbldpc_encoder_vtbl = {
    .encode = nbldpc_encode_frame,
    .reset = nbldpc_encoder_reset,
    .destroy = nbldpc_encoder_destroy,
};

int nbldpc__encoder_create(const struct fec_spec *spec, struct fec_encoder **out)
{
	struct nbldpc_encoder *e;
	struct fec_spec s = *spec;
	int ret = nbldpc__spec_finish(&s, NULL, 0);

	if (ret)
		return ret;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FEC_ENOMEM;
	e->base.vt = &nbldpc_encoder_vtbl;
	e->base.spec = s;
	ret = nbldpc_code_load(&s.u.nbldpc, &e->code, NULL, 0);
	if (ret) {
		free(e);
		return ret;
	}
	set_bit_shift(e->shift, e->code->gf.p, s.u.nbldpc.bit_order);
	e->info = malloc(e->code->k + 1);
	e->cw = malloc(e->code->n + 1);
	if (!e->info || !e->cw) {
		nbldpc_encoder_destroy(&e->base);
		return -FEC_ENOMEM;
	}
	*out = &e->base;
	return 0;
}
