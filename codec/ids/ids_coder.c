/*
 * The ids family's fec decoder and encoder: one frame per job, of the length the job's input has
 * (the received length varies), decoded by the MAP decoder (ids_map.h); with an outer nbldpc code
 * (Davey and MacKay's concatenation), the inner posteriors become the outer decoder's q-ary input
 * and, for iters > 0, the outer decoder's extrinsic information (its posteriors less its input)
 * goes back as the inner decoder's priors, and the inner extrinsic (posteriors less priors) to
 * the outer decoder again, until the outer decision satisfies its checks or the passes run out.
 * The outer decoder is called through fec.h alone: with soft=code (the posteriors of every code
 * symbol) for the passes back, and fec_decoder_info_ranges saying which columns carry the
 * information symbols whose posteriors the concatenation publishes.
 *
 * Output: the frame's information bits, each symbol's log2 q bits most significant first (with
 * an outer code, in its bit_order); soft output q log-probabilities per information symbol;
 * status decoded, not_converged (the outer checks unmet) or erased (the inner decoder found the
 * frame outside its drift limits, or no path); work: the outer decoder's iterations, summed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bitpack.h"
#include "ids_coder.h"

struct ids_decoder {
	struct fec_decoder base;
	struct ids_code *code;
	struct ids_map map;
	struct fec_decoder *outer; /* NULL: none */
	uint32_t *info_cols;       /* with passes back: the outer code's information columns */
	unsigned p;                /* bits per symbol */
};

/* One thread's scratch, each part 64-byte aligned. */
struct coder_scratch {
	void *map, *outer;
	int8_t *rx;
	float *post, *prior, *ext, *app, *osoft;
	uint8_t *sym, *bits, *obits;
};

static size_t round64(size_t v)
{
	return (v + 63) & ~(size_t)63;
}

static size_t coder_layout(const struct ids_decoder *d, char *base, struct coder_scratch *s)
{
	const size_t Nq = (size_t)d->code->N * d->code->q;
	const struct fec_info *oi = d->outer ? fec_decoder_info(d->outer) : NULL;
	size_t off = 0;
	struct coder_scratch tmp;

	if (!s)
		s = &tmp;
#define PART(field, bytes)                                                                         \
	do {                                                                                       \
		s->field = base ? (void *)(base + off) : NULL;                                     \
		off += round64(bytes);                                                             \
	} while (0)
	PART(map, d->map.scratch_bytes);
	PART(outer, oi ? oi->scratch_bytes : 0);
	PART(rx, d->map.rho_max);
	PART(post, Nq * sizeof(float));
	PART(prior, Nq * sizeof(float));
	PART(ext, Nq * sizeof(float));
	PART(app, Nq * sizeof(float));
	PART(osoft, (oi ? oi->max_soft : 0) * sizeof(float));
	PART(sym, d->code->N);
	PART(bits, (size_t)d->code->N * d->p);
	PART(obits, oi ? (oi->max_out_bits + 7) / 8 : 0);
#undef PART
	return off;
}

static void received_s8(const struct ids_decoder *d, const struct fec_batch *b, uint32_t j,
                        uint32_t rho, int8_t *rx)
{
	const float scale = d->base.spec.frame.llr_scale;

	if (d->base.spec.frame.in == FEC_IN_S8_LLR) {
		memcpy(rx, b->in + j * b->in_stride, rho);
		return;
	}
	for (uint32_t k = 0; k < rho; k++) {
		const float v = roundf(b->in_f32[j * b->in_stride + k] * scale);

		rx[k] = (int8_t)(v > 127.0f ? 127 : v < -127.0f ? -127 : v);
	}
}

/* Log-probabilities a less b, per value (extrinsic information). */
static void subtract(float *out, const float *a, const float *b, size_t len)
{
	for (size_t k = 0; k < len; k++)
		out[k] = a[k] - b[k];
}

/* The concatenation with passes back (iters > 0): the outer decoder (soft=code) gives the
 * posteriors of every code symbol (s->app) and its information bits (s->obits, oj's out_bits).
 * Returns the status (the outer job's, or the inner decoder's erasure); *work gets the outer
 * decoder's iterations. */
static int decode_iterative(const struct ids_decoder *d, const struct coder_scratch *s,
                            uint32_t rho, struct fec_job *oj, uint32_t *work)
{
	const struct fec_info *oi = fec_decoder_info(d->outer);
	const size_t Nq = (size_t)d->code->N * d->code->q;
	const unsigned passes = d->base.spec.u.ids.iters;
	struct fec_batch ob = {.count = 1,
	                       .jobs = oj,
	                       .in_f32 = s->ext,
	                       .in_stride = Nq,
	                       .out = s->obits,
	                       .out_stride = (oi->max_out_bits + 7) / 8,
	                       .soft = s->app,
	                       .soft_stride = Nq};
	int st;

	memset(s->prior, 0, Nq * sizeof(float));
	for (unsigned pass = 0;; pass++) {
		/* the inner extrinsic: posteriors less the priors the outer decoder gave */
		subtract(s->ext, s->post, s->prior, Nq);
		*oj = (struct fec_job){.in_len = d->code->N, .own_len = d->code->N};
		st = fec_decode(d->outer, s->outer, &ob, 0, 1);
		if (st)
			return st;
		*work += oj->work;
		if (oj->status == FECD_STATUS_DECODED || pass == passes)
			return oj->status;
		subtract(s->prior, s->app, s->ext, Nq);
		st = ids_map_decode(&d->map, s->map, s->rx, rho, s->prior, s->post, s->sym);
		if (st != FECD_STATUS_DECODED)
			return st;
	}
}

static int ids_decode_batch(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                            uint32_t first, uint32_t count)
{
	const struct ids_decoder *d = (const struct ids_decoder *)dec;
	const struct ids_spec *sp = &dec->spec.u.ids;
	const uint32_t q = d->code->q, N = d->code->N, p = d->p;
	const struct fec_info *oi = d->outer ? fec_decoder_info(d->outer) : NULL;
	struct coder_scratch s;

	if (dec->spec.frame.in == FEC_IN_S8_LLR ? !b->in : !b->in_f32)
		return -FEC_EINVAL; /* the input the decoder's in_kind names is missing */
	coder_layout(d, scratch, &s);
	for (uint32_t j = first; j < first + count; j++) {
		struct fec_job *job = &b->jobs[j];
		const uint32_t rho = job->in_len;
		int st;

		job->out_bits = 0;
		job->soft_count = 0;
		job->work = 0;
		job->metric = 0.0f;
		job->status = FECD_STATUS_ERASED;
		if (rho > d->map.rho_max || job->head_len != 0)
			continue;
		received_s8(d, b, j, rho, s.rx);
		st = ids_map_decode(&d->map, s.map, s.rx, rho, NULL, s.post, s.sym);
		if (st != FECD_STATUS_DECODED)
			continue;
		if (!d->outer) {
			for (uint32_t i = 0; i < N; i++)
				for (unsigned t = 0; t < p; t++)
					s.bits[(size_t)i * p + t] = s.sym[i] >> (p - 1 - t) & 1u;
			fec_pack_bits(s.bits, (size_t)N * p, b->out + j * b->out_stride);
			job->out_bits = N * p;
			job->status = FECD_STATUS_DECODED;
			if (b->soft) {
				memcpy(b->soft + j * b->soft_stride, s.post,
				       (size_t)N * q * sizeof(float));
				job->soft_count = N * q;
			}
			continue;
		}
		if (sp->iters == 0) {
			/* Davey and MacKay's single pass, through the outer family's own decoder */
			struct fec_job oj = {.in_len = N, .own_len = N};
			struct fec_batch ob = {.count = 1,
			                       .jobs = &oj,
			                       .in_f32 = s.post,
			                       .in_stride = (size_t)N * q,
			                       .out = s.obits,
			                       .out_stride = (oi->max_out_bits + 7) / 8,
			                       .soft = b->soft ? s.osoft : NULL,
			                       .soft_stride = oi->max_soft};
			const int ret = fec_decode(d->outer, s.outer, &ob, 0, 1);

			if (ret)
				return ret;
			memcpy(b->out + j * b->out_stride, s.obits, (oj.out_bits + 7) / 8);
			job->out_bits = oj.out_bits;
			job->status = oj.status;
			job->work = oj.work;
			if (b->soft) {
				memcpy(b->soft + j * b->soft_stride, s.osoft,
				       oj.soft_count * sizeof(float));
				job->soft_count = oj.soft_count;
			}
			continue;
		}
		{
			const uint32_t k = sp->outer_k;
			struct fec_job oj;

			st = decode_iterative(d, &s, rho, &oj, &job->work);
			if (st < 0)
				return st;
			if (st == FECD_STATUS_ERASED)
				continue;
			memcpy(b->out + j * b->out_stride, s.obits, (oj.out_bits + 7) / 8);
			job->out_bits = oj.out_bits;
			job->status = (uint8_t)st;
			for (uint32_t i = 0; b->soft && i < k; i++)
				memcpy(b->soft + j * b->soft_stride + (size_t)i * q,
				       s.app + (size_t)d->info_cols[i] * q, q * sizeof(float));
			job->soft_count = b->soft ? k * q : 0;
		}
	}
	return 0;
}

static void ids_decoder_destroy(struct fec_decoder *dec)
{
	struct ids_decoder *d = (struct ids_decoder *)dec;

	fec_decoder_destroy(d->outer);
	free(d->info_cols);
	ids_code_free(d->code);
	free(d);
}

static const struct fec_decoder_vtbl ids_vtbl = {
    .decode = ids_decode_batch,
    .destroy = ids_decoder_destroy,
};

static void fill_info(struct ids_decoder *d)
{
	struct fec_info *info = &d->base.info;
	const uint32_t syms = d->outer ? d->base.spec.u.ids.outer_k : d->code->N;
	const uint32_t bits = syms * d->p;

	memset(info, 0, sizeof(*info));
	info->family = FECD_FAMILY_IDS;
	info->kind = FEC_KIND_FRAME;
	/* frames vary in length: one unit is the longest frame, and carries all the bits */
	info->unit_syms = d->map.rho_max;
	info->unit_bits = bits;
	info->frame_syms = 0;
	info->max_frame_syms = d->map.rho_max;
	info->max_out_bits = bits;
	info->in_kind = d->base.spec.frame.in;
	info->in_q = 1;
	info->soft_kind = FEC_SOFT_SYM_LOGP;
	info->soft_per_unit = d->code->q;
	info->max_soft = syms * d->code->q;
	info->frame_info_bits = bits;
	info->scratch_bytes = coder_layout(d, NULL, NULL);
	info->job_group = 1;
}

void ids__map_params(const struct fec_spec *spec, struct ids_map_params *par)
{
	const struct ids_spec *is = &spec->u.ids;

	*par = (struct ids_map_params){.ch = {is->pi, is->pd, is->ps},
	                               .p_excl = pow(10.0, -(double)is->drift_excl),
	                               .llr_scale = spec->frame.llr_scale,
	                               .storage = is->storage,
	                               .prune = is->prune ? pow(10.0, -(double)is->prune) : 0.0};
}

/* The outer code's information columns, in order (its input is one value per column), from
 * fec_decoder_info_ranges: where the passes back find the information symbols' posteriors. */
static int find_info_cols(struct ids_decoder *d)
{
	const uint32_t k = d->base.spec.u.ids.outer_k;
	struct fec_info_range *r = calloc(k + 1, sizeof(*r));
	uint32_t unsent = 0, got = 0;
	int nr = r ? fec_decoder_info_ranges(d->outer, r, k + 1, &unsent) : -FEC_ENOMEM;

	d->info_cols = calloc(k ? k : 1, sizeof(*d->info_cols));
	if (nr >= 0 && d->info_cols)
		for (int i = 0; i < nr && i <= (int)k; i++)
			for (uint32_t c = r[i].first; c <= r[i].last && got < k; c++)
				d->info_cols[got++] = c;
	free(r);
	if (nr < 0 || !d->info_cols)
		return nr < 0 ? nr : -FEC_ENOMEM;
	/* every information symbol sent, one column each: nbldpc's layout */
	return got == k && unsent == 0 && nr <= (int)k ? 0 : -FEC_EINVAL;
}

int ids__decoder_create(const struct fec_spec *spec, struct fec_decoder **out)
{
	struct ids_decoder *d;
	struct fec_spec s = *spec;
	const struct ids_spec *is = &s.u.ids;
	struct ids_map_params par;
	int ret = ids__spec_finish(&s, NULL, 0);

	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FEC_ENOMEM;
	d->base.vt = &ids_vtbl;
	d->base.spec = s;
	d->p = ids__log2(is->q);
	ret = ids__code_build(is, &d->code, NULL, 0);
	if (ret)
		goto out_free;
	ids__map_params(&s, &par);
	ret = ids_map_init(&d->map, d->code, &par, NULL, 0);
	if (ret)
		goto out_free;
	if (ids__has_outer(is)) {
		struct fec_spec child;

		ret = ids__outer_spec(is, &child, NULL, 0, NULL, 0);
		if (!ret)
			ret = fec_decoder_create(&child, &d->outer);
		if (!ret && is->iters)
			ret = find_info_cols(d);
		if (ret)
			goto out_free;
	}
	fill_info(d);
	*out = &d->base;
	return 0;
out_free:
	ids_decoder_destroy(&d->base);
	return ret;
}

/* ---- The encoder: information bits -> (outer codeword) -> symbols -> N codewords. */

struct ids_encoder {
	struct fec_encoder base;
	struct ids_code *code;
	struct fec_encoder *outer; /* NULL: none */
	uint8_t shift[8];          /* bit t of a symbol a is (a >> shift[t]) & 1 */
	unsigned p;
	uint8_t *obits, *sym; /* the outer codeword's bits, N symbols */
};

static int ids_encode_frame(struct fec_encoder *enc, const uint8_t *bits, size_t nbits,
                            uint8_t *out, size_t *nout)
{
	struct ids_encoder *e = (struct ids_encoder *)enc;
	const uint32_t N = e->code->N;
	const uint8_t *src = bits;
	size_t want = (size_t)(e->outer ? enc->spec.u.ids.outer_k : N) * e->p, got;
	int ret;

	if (nbits != want)
		return -FEC_EINVAL;
	if (e->outer) {
		ret = fec_encode(e->outer, bits, nbits, e->obits, &got);
		if (ret)
			return ret;
		if (got != (size_t)N * e->p)
			return -FEC_EINVAL;
		src = e->obits;
	}
	for (uint32_t i = 0; i < N; i++) {
		uint8_t v = 0;

		for (unsigned t = 0; t < e->p; t++)
			v |= (uint8_t)((src[(size_t)i * e->p + t] & 1u) << e->shift[t]);
		e->sym[i] = v;
	}
	ids_code_encode(e->code, e->sym, out);
	*nout = (size_t)N * e->code->n;
	return 0;
}

static void ids_encoder_reset(struct fec_encoder *enc)
{
	(void)enc;
}

static void ids_encoder_destroy(struct fec_encoder *enc)
{
	struct ids_encoder *e = (struct ids_encoder *)enc;

	if (!e)
		return;
	fec_encoder_destroy(e->outer);
	ids_code_free(e->code);
	free(e->obits);
	free(e->sym);
	free(e);
}

static const struct fec_encoder_vtbl ids_encoder_vtbl = {
    .encode = ids_encode_frame,
    .reset = ids_encoder_reset,
    .destroy = ids_encoder_destroy,
};

int ids__encoder_create(const struct fec_spec *spec, struct fec_encoder **out)
{
	struct ids_encoder *e;
	struct fec_spec s = *spec;
	int ret = ids__spec_finish(&s, NULL, 0);

	if (ret)
		return ret;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FEC_ENOMEM;
	e->base.vt = &ids_encoder_vtbl;
	e->base.spec = s;
	e->p = ids__log2(s.u.ids.q);
	for (unsigned t = 0; t < e->p; t++)
		e->shift[t] = (uint8_t)(e->p - 1 - t);
	ret = ids__code_build(&s.u.ids, &e->code, NULL, 0);
	if (ret)
		goto out_free;
	e->sym = malloc(e->code->N);
	e->obits = malloc((size_t)e->code->N * e->p);
	if (!e->sym || !e->obits) {
		ret = -FEC_ENOMEM;
		goto out_free;
	}
	if (ids__has_outer(&s.u.ids)) {
		struct fec_spec child;

		ret = ids__outer_spec(&s.u.ids, &child, NULL, 0, NULL, 0);
		if (!ret)
			ret = fec_encoder_create(&child, &e->outer);
		if (ret)
			goto out_free;
		if (child.u.nbldpc.bit_order == NBLDPC_LSB_FIRST)
			for (unsigned t = 0; t < e->p; t++)
				e->shift[t] = (uint8_t)t;
	}
	*out = &e->base;
	return 0;
out_free:
	ids_encoder_destroy(&e->base);
	return ret;
}
