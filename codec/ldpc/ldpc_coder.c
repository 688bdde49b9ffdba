/*
 * The LDPC decoder and encoder objects behind fec_decoder_create / fec_encoder_create: the code
 * loaded from the spec, the flattened layered schedule the decoders walk (ldpc_decoder.h), the
 * decoder's fec_info, and the systematic encoder (one frame per call: k information bits in,
 * n_tx code bits out, punctured columns dropped).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_simd.h"
#include "ldpc_decoder.h"

static void ldpc_decoder_destroy(struct fec_decoder *dec)
{
	struct ldpc_decoder *d = (struct ldpc_decoder *)dec;

	free(d->sched_start);
	free(d->sched_col);
	free(d->sched_off);
#if defined(FECD_SIMD_X86)
	ldpc__cyc_plan_free(d->cyc);
#endif
	ldpc_code_free(d->code);
	free(d);
}

/* fec_input_polarity: the syndrome of the input's hard decisions and of their complement. A row
 * of odd weight changes its parity when every symbol is negated, one of even weight keeps it:
 * that difference is what tells inverted input (most codes have rows of odd weight; one whose
 * rows all have even weight gives equal counts and so no hint). */
static int ldpc_input_polarity(const struct fec_decoder *dec, const int8_t *in, uint32_t n,
                               struct fec_polarity *out)
{
	const struct ldpc_code *code = ((const struct ldpc_decoder *)dec)->code;
	const struct ldpc_matrix *h = &code->h;

	if (n != code->n_tx)
		return -FEC_EINVAL;
	for (uint32_t r = 0; r < h->m; r++) {
		unsigned ones = 0, weight = 0;
		bool decided = true;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1] && decided; e++) {
			uint32_t c = h->row_col[e];

			decided = c >= code->punct && in[c - code->punct] != 0;
			if (decided)
				ones += in[c - code->punct] < 0;
			weight++;
		}
		if (!decided)
			continue;
		out->checks++;
		out->unsat += ones & 1;
		out->unsat_negated += (ones + weight) & 1;
	}
	return 0;
}

/* fec_decoder_info_ranges: information bit j is column info_cols[j] (whatever the output
 * gives: with output=codeword too), sent as symbol column - punct; columns below punct are not
 * sent. */
static int ldpc_info_ranges(const struct fec_decoder *dec, struct fec_info_range *ranges,
                            size_t max, uint32_t *unsent)
{
	const struct ldpc_decoder *d = (const struct ldpc_decoder *)dec;
	const uint32_t punct = d->code->punct;
	size_t n = 0;

	for (uint32_t j = 0; j < d->code->k; j++) {
		uint32_t col = d->code->info_cols[j];

		if (col < punct)
			++*unsent;
		else
			fec_info_ranges_add(ranges, max, &n, col - punct);
	}
	return (int)n;
}

static const struct fec_decoder_vtbl ldpc_vtbl = {
    .decode = ldpc__decode,
    .destroy = ldpc_decoder_destroy,
    .decode_siso = ldpc__decode_siso,
    .input_polarity = ldpc_input_polarity,
    .info_ranges = ldpc_info_ranges,
};

struct row_key {
	uint32_t key, row;
};

static int row_key_cmp(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The layered walk, flattened: layer by layer, each row's columns in edge order. Rows of a layer
 * share no column, so their order changes no result; they go by their lowest column, which puts
 * rows that touch neighbouring columns side by side (DVB-S2's rows r, r+q, r+2q... of one
 * 360-column group; a QC block row's circulant rows) and lets the SIMD passes read the
 * a-posteriori values almost in sequence. */
static int build_schedule(struct ldpc_decoder *d)
{
	const struct ldpc_code *c = d->code;
	const struct ldpc_matrix *h = &c->h;
	struct row_key *keys;
	uint32_t p = 0, e = 0;

	d->m = h->m;
	d->sched_start = malloc(((size_t)h->m + 1) * sizeof(uint32_t));
	d->sched_col = malloc(((size_t)h->nnz + 1) * sizeof(uint32_t));
	d->sched_off = malloc(((size_t)h->nnz + 1) * sizeof(uint32_t));
	keys = malloc(((size_t)h->m + 1) * sizeof(*keys));
	if (!d->sched_start || !d->sched_col || !d->sched_off || !keys) {
		free(keys);
		return -FEC_ENOMEM;
	}
	for (uint32_t l = 0; l < c->nlayers; l++) {
		const uint32_t first = c->layer_start[l], count = c->layer_start[l + 1] - first;

		if (count > h->m - p)
			break;
		for (uint32_t i = 0; i < count; i++) {
			const uint32_t r = c->layer_rows[first + i];

			keys[i].row = r;
			keys[i].key = UINT32_MAX;
			for (uint32_t j = h->row_start[r]; j < h->row_start[r + 1]; j++)
				if (h->row_col[j] < keys[i].key)
					keys[i].key = h->row_col[j];
		}
		qsort(keys, count, sizeof(*keys), row_key_cmp);
		for (uint32_t i = 0; i < count; i++) {
			const uint32_t r = keys[i].row;
			const uint32_t deg = h->row_start[r + 1] - h->row_start[r];

			d->sched_start[p++] = e;
			memcpy(d->sched_col + e, h->row_col + h->row_start[r],
			       deg * sizeof(uint32_t));
			e += deg;
			if (deg > d->max_deg)
				d->max_deg = deg;
		}
	}
	free(keys);
	if (p != h->m || e != h->nnz)
		return -FEC_EINVAL; /* the layers must hold every row once */
	d->sched_start[p] = e;
	for (uint32_t i = 0; i < e; i++)
		d->sched_off[i] = d->sched_col[i] * 2 * LDPC_GROUP;
	for (uint32_t v = 0; v < h->n; v++)
		if (h->col_start[v + 1] - h->col_start[v] > d->max_col_deg)
			d->max_col_deg = h->col_start[v + 1] - h->col_start[v];
	return 0;
}

static bool env_is_zero(const char *name)
{
	const char *v = getenv(name);

	return v && strcmp(v, "0") == 0;
}

static void fill_info(struct ldpc_decoder *d)
{
	struct fec_info *info = &d->base.info;
	const uint32_t n_tx = d->code->n_tx;

	memset(info, 0, sizeof(*info));
	info->family = FECD_FAMILY_LDPC;
	info->kind = FEC_KIND_FRAME;
	info->unit_syms = n_tx;
	info->unit_bits = d->out_n;
	info->frame_syms = n_tx;
	info->max_frame_syms = n_tx;
	info->max_out_bits = d->out_n;
	info->max_soft = d->out_n;
	info->in_kind = d->base.spec.frame.in; /* the common block's in: s8 or f32 */
	info->in_q = 1;
	info->soft_kind = FEC_SOFT_BIT_LLR;
	info->soft_per_unit = 1;
	info->frame_info_bits = d->code->k;
	info->scratch_bytes = ldpc__scratch_bytes(d);
	info->job_group = ldpc__job_group(d);
}

int ldpc__decoder_create(const struct fec_spec *spec, struct fec_decoder **out)
{
	struct ldpc_decoder *d;
	struct fec_spec s = *spec;
	const struct ldpc_spec *l = &s.u.ldpc;
	int ret;

	ret = ldpc__spec_finish(&s, NULL, 0);
	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FEC_ENOMEM;
	d->base.vt = &ldpc_vtbl;
	d->base.spec = s;
	ret = ldpc_code_load(l, &d->code, NULL, 0);
	if (ret)
		goto out_free;
	ret = build_schedule(d);
	if (ret)
		goto out_destroy;
	d->int8 = l->algo != LDPC_ALGO_SPA && s.frame.in != FEC_IN_F32_LLR;
	d->alpha16 = (int)lroundf(16.0f * l->alpha);
	d->offset8 = (int)lroundf(l->offset * s.frame.llr_scale);
	if (d->offset8 > 127)
		d->offset8 = 127;
	d->inv_scale = 1.0f / s.frame.llr_scale;
	if (l->output == LDPC_OUT_CODEWORD) {
		d->out_n = d->code->h.n;
		d->out_cols = NULL;
	} else {
		d->out_n = d->code->k;
		d->out_cols = d->code->info_cols;
		/* information bits that are the first k columns (DVB-S2, 5G NR, WiMAX...): output
		 * straight from columns 0..k-1 */
		if (d->code->info_cols[d->out_n - 1] == d->out_n - 1)
			d->out_cols = NULL;
	}
#if defined(FECD_SIMD_X86)
	if (fec_simd_level() >= FEC_SIMD_AVX2 && !env_is_zero("FECD_LDPC_CYC")) {
		ret = ldpc__cyc_plan_build(d);
		if (ret)
			goto out_destroy;
	}
#endif
	fill_info(d);
	*out = &d->base;
	return 0;

out_destroy:
	ldpc_decoder_destroy(&d->base);
	return ret;
out_free:
	free(d);
	return ret;
}

const struct ldpc_code *ldpc_decoder_code(const struct fec_decoder *dec)
{
	return dec && dec->vt == &ldpc_vtbl ? ((const struct ldpc_decoder *)dec)->code : NULL;
}

struct ldpc_encoder {
	struct fec_encoder base;
	struct ldpc_code *code;
	uint8_t *info, *cw; /* k and n bits, one per byte */
};

static int ldpc_encode_frame(struct fec_encoder *enc, const uint8_t *bits, size_t nbits,
                             uint8_t *out, size_t *nout)
{
	struct ldpc_encoder *e = (struct ldpc_encoder *)enc;
	const struct ldpc_code *c = e->code;
	int ret;

	if (nbits != c->k)
		return nbits < c->k ? -FEC_ESHORT : -FEC_ELONG;
	uint8_t *info = e->info; /* a local: the loop then need not reload it after each store */

	for (size_t i = 0; i < nbits; i++)
		info[i] = bits[i] != 0;
	ret = ldpc_encode(e->code, e->info, e->cw);
	if (ret)
		return ret;
	memcpy(out, e->cw + c->punct, c->n_tx);
	*nout = c->n_tx;
	return 0;
}

static void ldpc_encoder_reset(struct fec_encoder *enc)
{
	(void)enc; /* frames carry no state from one to the next */
}

static void ldpc_encoder_destroy(struct fec_encoder *enc)
{
	struct ldpc_encoder *e = (struct ldpc_encoder *)enc;

	free(e->info);
	free(e->cw);
	ldpc_code_free(e->code);
	free(e);
}

static const struct fec_encoder_vtbl ldpc_encoder_vtbl = {
    .encode = ldpc_encode_frame,
    .reset = ldpc_encoder_reset,
    .destroy = ldpc_encoder_destroy,
};

int ldpc__encoder_create(const struct fec_spec *spec, struct fec_encoder **out)
{
	struct ldpc_encoder *e;
	struct fec_spec s = *spec;
	int ret;

	ret = ldpc__spec_finish(&s, NULL, 0);
	if (ret)
		return ret;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FEC_ENOMEM;
	e->base.vt = &ldpc_encoder_vtbl;
	e->base.spec = s;
	ret = ldpc_code_load(&s.u.ldpc, &e->code, NULL, 0);
	if (ret)
		goto out_free;
	e->info = malloc(e->code->k + 1);
	e->cw = malloc(e->code->h.n);
	if (!e->info || !e->cw) {
		ret = -FEC_ENOMEM;
		goto out_destroy;
	}
	*out = &e->base;
	return 0;

out_destroy:
	ldpc_encoder_destroy(&e->base);
	return ret;
out_free:
	free(e);
	return ret;
}
