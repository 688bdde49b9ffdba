/*
 * The portable LDPC decoder: the reference for every combination of algorithm (spa, ms, nms,
 * oms), schedule (flooding, layered) and input (int8, float32), written exactly as ldpc.h's
 * header comment states the arithmetic, one frame at a time. The SIMD passes must give the same
 * bits, status and iterations on int8 min-sum; this file also plans a batch into their groups,
 * and holds the soft-in/soft-out entry (fec_decode_siso), which runs this decoder with priors.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_simd.h"
#include "ldpc_decoder.h"

#define ALIGN 64
/* Min-sum magnitude "above every message" for a row of degree 1, which has no second input. */
#define MS_FLOAT_TOP 1e30f

static size_t align_up(size_t v)
{
	return (v + ALIGN - 1) / ALIGN * ALIGN;
}

/* One frame's working arrays, the same bytes for every arithmetic (only one is in use). */
struct frame_scratch {
	void *app;     /* n values: layered a-posteriori, flooding totals (int32 or float) */
	void *chan;    /* n channel values (flooding) */
	void *c2v;     /* nnz messages */
	void *x;       /* max_deg incoming values of one row */
	float *pre;    /* spa: max_deg + 1 products */
	uint8_t *hard; /* n hard decisions */
	float *soft;   /* n soft values */
};

static size_t frame_scratch_size(const struct ldpc_decoder *d)
{
	const size_t n = d->code->h.n, nnz = d->code->h.nnz, deg = d->max_deg + 1;

	/* int32 and float are 4 bytes: size for the wider of the int8 and float layouts */
	return ALIGN + 3 * align_up(n * 4) + align_up(nnz * 4) + 2 * align_up(deg * 4) +
	       align_up(n) + align_up(n * sizeof(float));
}

static struct frame_scratch frame_scratch_map(const struct ldpc_decoder *d, void *mem)
{
	const size_t n = d->code->h.n, nnz = d->code->h.nnz, deg = d->max_deg + 1;
	uintptr_t p = ((uintptr_t)mem + ALIGN - 1) / ALIGN * ALIGN;
	struct frame_scratch s;

	s.app = (void *)p;
	p += align_up(n * 4);
	s.chan = (void *)p;
	p += align_up(n * 4);
	s.c2v = (void *)p;
	p += align_up(nnz * 4);
	s.x = (void *)p;
	p += align_up(deg * 4);
	s.pre = (float *)p;
	p += align_up(deg * 4);
	s.hard = (uint8_t *)p;
	p += align_up(n);
	s.soft = (float *)p;
	return s;
}

size_t ldpc__scratch_bytes(const struct ldpc_decoder *d)
{
	size_t bytes = frame_scratch_size(d);

#if defined(FECD_SIMD_X86)
	if (d->int8 && ldpc__avx2_scratch(d) > bytes)
		bytes = ldpc__avx2_scratch(d);
	if (d->cyc && ldpc__cyc_scratch(d) > bytes)
		bytes = ldpc__cyc_scratch(d);
#endif
	return bytes;
}

uint32_t ldpc__job_group(const struct ldpc_decoder *d)
{
#if defined(FECD_SIMD_X86)
	if (d->cyc && d->cyc->w == 64 && fec_simd_level() >= d->cyc->level)
		return 1;
	if (d->int8 && fec_simd_level() >= FEC_SIMD_AVX2)
		return LDPC_GROUP;
#else
	(void)d;
#endif
	return 1;
}

bool ldpc__job_ok(const struct ldpc_decoder *d, struct fec_job *job)
{
	job->out_bits = 0;
	job->soft_count = 0;
	job->work = 0;
	job->metric = 0.0f;
	if (job->in_len != d->code->n_tx || job->head_len != 0) {
		job->status = FECD_STATUS_ERASED;
		return false;
	}
	return true;
}

static inline int sat8(int v)
{
	return v > 127 ? 127 : v < -127 ? -127 : v;
}

/* ---- Output. */

static void emit(const struct ldpc_decoder *d, const uint8_t *hard, const float *softv,
                 uint8_t *out, float *soft, struct fec_job *job)
{
	memset(out, 0, (d->out_n + 7) / 8);
	for (uint32_t j = 0; j < d->out_n; j++) {
		const uint32_t v = d->out_cols ? d->out_cols[j] : j;

		out[j / 8] |= (uint8_t)(hard[v] << (7 - j % 8));
		if (soft)
			soft[j] = softv[v];
	}
	job->out_bits = d->out_n;
	job->soft_count = soft ? d->out_n : 0;
}

void ldpc__emit_i16(const struct ldpc_decoder *d, const int16_t *val, size_t stride, uint8_t *out,
                    float *soft, struct fec_job *job)
{
	if (!d->out_cols && stride == 1) {
		/* output bit j is column j: whole bytes in a loop the compiler vectorises */
		const uint32_t whole = d->out_n / 8;

		for (uint32_t j8 = 0; j8 < whole; j8++) {
			const int16_t *x = val + 8 * j8;
			unsigned byte = 0;

			for (unsigned b = 0; b < 8; b++)
				byte |= (unsigned)(x[b] < 0) << (7 - b);
			out[j8] = (uint8_t)byte;
		}
		if (d->out_n % 8) {
			out[whole] = 0;
			for (uint32_t j = whole * 8; j < d->out_n; j++)
				out[whole] |= (uint8_t)((val[j] < 0) << (7 - j % 8));
		}
		for (uint32_t j = 0; soft && j < d->out_n; j++)
			soft[j] = (float)val[j] * d->inv_scale;
		job->out_bits = d->out_n;
		job->soft_count = soft ? d->out_n : 0;
		return;
	}
	memset(out, 0, (d->out_n + 7) / 8);
	for (uint32_t j = 0; j < d->out_n; j++) {
		const uint32_t v = d->out_cols ? d->out_cols[j] : j;
		const int16_t x = val[(size_t)v * stride];

		out[j / 8] |= (uint8_t)((x < 0) << (7 - j % 8));
		if (soft)
			soft[j] = (float)x * d->inv_scale;
	}
	job->out_bits = d->out_n;
	job->soft_count = soft ? d->out_n : 0;
}

/* ---- Syndrome: whether every check is satisfied by the hard decisions (one per column, 1 where
 * the value is negative), which the schedules write into the frame scratch first. */

static bool syndrome_zero(const struct ldpc_decoder *d, const uint8_t *hard)
{
	for (uint32_t p = 0; p < d->m; p++) {
		unsigned par = 0;

		for (uint32_t e = d->sched_start[p]; e < d->sched_start[p + 1]; e++)
			par ^= hard[d->sched_col[e]];
		if (par)
			return false;
	}
	return true;
}

/* ---- Check-node rules. x: the row's incoming values; c: gets the new messages. */

static inline int ms_norm8(const struct ldpc_decoder *d, int m)
{
	switch (d->base.spec.u.ldpc.algo) {
	case LDPC_ALGO_NMS:
		return (m * d->alpha16) >> 4;
	case LDPC_ALGO_OMS:
		return m > d->offset8 ? m - d->offset8 : 0;
	default:
		return m;
	}
}

int ldpc__norm8(const struct ldpc_decoder *d, int m)
{
	return ms_norm8(d, m);
}

void ldpc__check_ms8(const struct ldpc_decoder *d, const int8_t *x, int8_t *c, uint32_t deg)
{
	int m1 = 127, m2 = 127, n1, n2;
	unsigned s = 0;

	for (uint32_t i = 0; i < deg; i++) {
		const int a = abs(x[i]);

		if (a < m1) {
			m2 = m1;
			m1 = a;
		} else if (a < m2) {
			m2 = a;
		}
		s ^= x[i] < 0;
	}
	/* The edge holding m1 is the only one whose |x| equals m1 unless two do, and then
	 * m2 = m1: comparing values picks the same magnitudes as tracking the edge. */
	n1 = ms_norm8(d, m1);
	n2 = ms_norm8(d, m2);
	for (uint32_t i = 0; i < deg; i++) {
		const int mag = abs(x[i]) == m1 ? n2 : n1;

		c[i] = (int8_t)((s ^ (x[i] < 0)) ? -mag : mag);
	}
}

static void check_ms_float(const struct ldpc_decoder *d, const float *x, float *c, uint32_t deg)
{
	const struct ldpc_spec *ls = &d->base.spec.u.ldpc;
	float m1 = MS_FLOAT_TOP, m2 = MS_FLOAT_TOP, n1, n2;
	unsigned s = 0;

	for (uint32_t i = 0; i < deg; i++) {
		const float a = fabsf(x[i]);

		if (a < m1) {
			m2 = m1;
			m1 = a;
		} else if (a < m2) {
			m2 = a;
		}
		s ^= x[i] < 0;
	}
	n1 = m1;
	n2 = m2;
	if (ls->algo == LDPC_ALGO_NMS) {
		n1 *= ls->alpha;
		n2 *= ls->alpha;
	} else if (ls->algo == LDPC_ALGO_OMS) {
		n1 = fmaxf(n1 - ls->offset, 0.0f);
		n2 = fmaxf(n2 - ls->offset, 0.0f);
	}
	for (uint32_t i = 0; i < deg; i++) {
		const float mag = fabsf(x[i]) == m1 ? n2 : n1;

		c[i] = (s ^ (x[i] < 0)) ? -mag : mag;
	}
}

/* The tanh rule over the other edges from prefix and suffix products (no division, so an
 * input of 0 is no special case). pre holds deg + 1 floats. */
static void check_spa(const float *x, float *c, float *pre, uint32_t deg)
{
	const float top = 1.0f - 1e-7f;
	float suf = 1.0f;

	pre[0] = 1.0f;
	for (uint32_t i = 0; i < deg; i++) {
		const float v = fminf(fmaxf(x[i], -LDPC_SPA_CLAMP), LDPC_SPA_CLAMP);

		c[i] = tanhf(0.5f * v); /* c holds the tanh values until the second loop */
		pre[i + 1] = pre[i] * c[i];
	}
	for (uint32_t i = deg; i-- > 0;) {
		const float t = c[i];
		float p = pre[i] * suf;

		p = fminf(fmaxf(p, -top), top);
		c[i] = 2.0f * atanhf(p);
		suf *= t;
	}
}

static void check_float(const struct ldpc_decoder *d, const float *x, float *c, float *pre,
                        uint32_t deg)
{
	if (d->base.spec.u.ldpc.algo == LDPC_ALGO_SPA)
		check_spa(x, c, pre, deg);
	else
		check_ms_float(d, x, c, deg);
}

/* ---- Frames. Each returns the iterations run and sets *ok to the final syndrome's verdict;
 * values are left in s->app (int8 or int32 or float by arithmetic and schedule). */

static void load_int8(const struct ldpc_decoder *d, const int8_t *in, int8_t *chan)
{
	const uint32_t punct = d->code->punct;

	memset(chan, 0, punct);
	for (uint32_t t = 0; t < d->code->n_tx; t++)
		chan[punct + t] = (int8_t)(in[t] < -127 ? -127 : in[t]);
}

static void load_float(const struct ldpc_decoder *d, const struct fec_batch *b, uint32_t i,
                       float *chan)
{
	const uint32_t punct = d->code->punct;

	for (uint32_t v = 0; v < punct; v++)
		chan[v] = 0.0f;
	if (d->base.spec.frame.in == FEC_IN_F32_LLR) {
		const float *in = b->in_f32 + (size_t)i * b->in_stride;

		memcpy(chan + punct, in, d->code->n_tx * sizeof(float));
	} else {
		const int8_t *in = b->in + (size_t)i * b->in_stride;

		for (uint32_t t = 0; t < d->code->n_tx; t++)
			chan[punct + t] = (float)(in[t] < -127 ? -127 : in[t]) * d->inv_scale;
	}
}

/* app is int16 and exact (app = L + the sum of the column's messages, at most
 * 127 (1 + LDPC_DEG_MAX) in magnitude); only the check rule sees it saturated to int8. */
static unsigned layered_int8(const struct ldpc_decoder *d, struct frame_scratch *s, bool *ok)
{
	const struct ldpc_spec *ls = &d->base.spec.u.ldpc;
	const int8_t *chan = s->chan;
	int16_t *app = s->app, *xe = (int16_t *)s->pre;
	int8_t *c2v = s->c2v, *x = s->x;
	unsigned it = 0;

	for (uint32_t v = 0; v < d->code->h.n; v++)
		app[v] = chan[v];
	memset(c2v, 0, d->code->h.nnz);
	*ok = false;
	while (it < ls->max_iters) {
		for (uint32_t p = 0; p < d->m; p++) {
			const uint32_t e0 = d->sched_start[p], deg = d->sched_start[p + 1] - e0;
			const uint32_t *col = d->sched_col + e0;

			for (uint32_t i = 0; i < deg; i++) {
				xe[i] = (int16_t)(app[col[i]] - c2v[e0 + i]);
				x[i] = (int8_t)sat8(xe[i]);
			}
			ldpc__check_ms8(d, x, c2v + e0, deg);
			for (uint32_t i = 0; i < deg; i++)
				app[col[i]] = (int16_t)(xe[i] + c2v[e0 + i]);
		}
		it++;
		for (uint32_t v = 0; v < d->code->h.n; v++)
			s->hard[v] = app[v] < 0;
		*ok = syndrome_zero(d, s->hard);
		if (*ok && ls->early_stop)
			break;
	}
	return it;
}

static unsigned flooding_int8(const struct ldpc_decoder *d, struct frame_scratch *s, bool *ok)
{
	const struct ldpc_spec *ls = &d->base.spec.u.ldpc;
	const struct ldpc_matrix *h = &d->code->h;
	const int8_t *chan = s->chan;
	int32_t *tot = s->app;
	int8_t *c2v = s->c2v, *x = s->x;
	unsigned it = 0;

	memset(c2v, 0, h->nnz);
	for (uint32_t v = 0; v < h->n; v++)
		tot[v] = chan[v];
	*ok = false;
	while (it < ls->max_iters) {
		for (uint32_t r = 0; r < h->m; r++) {
			const uint32_t e0 = h->row_start[r], deg = h->row_start[r + 1] - e0;

			for (uint32_t i = 0; i < deg; i++)
				x[i] = (int8_t)sat8(tot[h->row_col[e0 + i]] - c2v[e0 + i]);
			ldpc__check_ms8(d, x, c2v + e0, deg);
		}
		for (uint32_t v = 0; v < h->n; v++) {
			int32_t t = chan[v];

			for (uint32_t j = h->col_start[v]; j < h->col_start[v + 1]; j++)
				t += c2v[h->col_edge[j]];
			tot[v] = t;
		}
		it++;
		for (uint32_t v = 0; v < d->code->h.n; v++)
			s->hard[v] = tot[v] < 0;
		*ok = syndrome_zero(d, s->hard);
		if (*ok && ls->early_stop)
			break;
	}
	return it;
}

static unsigned layered_float(const struct ldpc_decoder *d, struct frame_scratch *s, bool *ok)
{
	const struct ldpc_spec *ls = &d->base.spec.u.ldpc;
	float *app = s->app, *c2v = s->c2v, *x = s->x;
	unsigned it = 0;

	memset(c2v, 0, d->code->h.nnz * sizeof(float));
	*ok = false;
	while (it < ls->max_iters) {
		for (uint32_t p = 0; p < d->m; p++) {
			const uint32_t e0 = d->sched_start[p], deg = d->sched_start[p + 1] - e0;
			const uint32_t *col = d->sched_col + e0;

			for (uint32_t i = 0; i < deg; i++)
				x[i] = app[col[i]] - c2v[e0 + i];
			check_float(d, x, c2v + e0, s->pre, deg);
			for (uint32_t i = 0; i < deg; i++)
				app[col[i]] = x[i] + c2v[e0 + i];
		}
		it++;
		for (uint32_t v = 0; v < d->code->h.n; v++)
			s->hard[v] = app[v] < 0;
		*ok = syndrome_zero(d, s->hard);
		if (*ok && ls->early_stop)
			break;
	}
	return it;
}

static unsigned flooding_float(const struct ldpc_decoder *d, struct frame_scratch *s, bool *ok)
{
	const struct ldpc_spec *ls = &d->base.spec.u.ldpc;
	const struct ldpc_matrix *h = &d->code->h;
	const float *chan = s->chan;
	float *tot = s->app, *c2v = s->c2v, *x = s->x;
	unsigned it = 0;

	memset(c2v, 0, h->nnz * sizeof(float));
	memcpy(tot, chan, h->n * sizeof(float));
	*ok = false;
	while (it < ls->max_iters) {
		for (uint32_t r = 0; r < h->m; r++) {
			const uint32_t e0 = h->row_start[r], deg = h->row_start[r + 1] - e0;

			for (uint32_t i = 0; i < deg; i++)
				x[i] = tot[h->row_col[e0 + i]] - c2v[e0 + i];
			check_float(d, x, c2v + e0, s->pre, deg);
		}
		for (uint32_t v = 0; v < h->n; v++) {
			float t = chan[v];

			for (uint32_t j = h->col_start[v]; j < h->col_start[v + 1]; j++)
				t += c2v[h->col_edge[j]];
			tot[v] = t;
		}
		it++;
		for (uint32_t v = 0; v < d->code->h.n; v++)
			s->hard[v] = tot[v] < 0;
		*ok = syndrome_zero(d, s->hard);
		if (*ok && ls->early_stop)
			break;
	}
	return it;
}

/* fec_decode_siso's priors (one per output bit, in LLR units) added to the channel values of
 * their columns, in the decoder's arithmetic: int8, the prior at llr_scale rounded and the sum
 * saturated as an input value is (-127..127); float, added as they are. */
static void add_priors_int8(const struct ldpc_decoder *d, const float *prior, int8_t *chan)
{
	const float scale = d->base.spec.frame.llr_scale;

	for (uint32_t j = 0; j < d->out_n; j++) {
		const uint32_t v = d->out_cols ? d->out_cols[j] : j;
		const long q = lroundf(fminf(fmaxf(prior[j] * scale, -254.0f), 254.0f));

		chan[v] = (int8_t)sat8(chan[v] + (int)q);
	}
}

static void add_priors_float(const struct ldpc_decoder *d, const float *prior, float *chan)
{
	for (uint32_t j = 0; j < d->out_n; j++)
		chan[d->out_cols ? d->out_cols[j] : j] += prior[j];
}

/* One frame through the portable decoder; prior: its priors (fec_decode_siso), or NULL. */
static void decode_frame(const struct ldpc_decoder *d, struct frame_scratch *s, struct fec_batch *b,
                         uint32_t i, const float *prior)
{
	const bool layered = d->base.spec.u.ldpc.schedule == LDPC_SCHED_LAYERED;
	const uint32_t n = d->code->h.n;
	struct fec_job *job = &b->jobs[i];
	uint8_t *out = b->out + (size_t)i * b->out_stride;
	float *soft = b->soft ? b->soft + (size_t)i * b->soft_stride : NULL;
	unsigned it;
	bool ok;

	if (d->int8) {
		load_int8(d, b->in + (size_t)i * b->in_stride, s->chan);
		if (prior)
			add_priors_int8(d, prior, s->chan);
		if (layered) {
			it = layered_int8(d, s, &ok);
			ldpc__emit_i16(d, s->app, 1, out, soft, job);
		} else {
			const int32_t *tot = s->app;

			it = flooding_int8(d, s, &ok);
			for (uint32_t v = 0; v < n; v++) {
				s->hard[v] = tot[v] < 0;
				s->soft[v] = (float)tot[v] * d->inv_scale;
			}
			emit(d, s->hard, s->soft, out, soft, job);
		}
	} else {
		const float *val = s->app;

		load_float(d, b, i, layered ? s->app : s->chan);
		if (prior)
			add_priors_float(d, prior, layered ? s->app : s->chan);
		it = layered ? layered_float(d, s, &ok) : flooding_float(d, s, &ok);
		for (uint32_t v = 0; v < n; v++)
			s->hard[v] = val[v] < 0;
		emit(d, s->hard, val, out, soft, job);
	}
	job->work = it;
	job->status = ok ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
}

/* Usable jobs of a code with a cyclic structure go one by one through the cyclic pass at
 * AVX-512 with VBMI (its plan's w is 64); otherwise to the 32-frame pass LDPC_GROUP at a time, the last group padded, or where
 * fewer than half a group are left and the code has a cyclic structure (AVX2, where the 32-frame
 * pass is the faster on one core: 61 against 45 Mb/s), one by one through the cyclic pass;
 * without SIMD one by one through the portable decoder. */
int ldpc__decode(const struct fec_decoder *dec, void *scratch, struct fec_batch *b, uint32_t first,
                 uint32_t count)
{
	const struct ldpc_decoder *d = (const struct ldpc_decoder *)dec;
	struct frame_scratch s;

	if (d->base.spec.frame.in == FEC_IN_F32_LLR ? !b->in_f32 : !b->in)
		return -FEC_EINVAL;
#if defined(FECD_SIMD_X86)
	if (d->cyc && d->cyc->w == 64 && fec_simd_level() >= d->cyc->level) {
		/* the AVX-512 single-frame pass beats the 32-frame one (AVX2): 74 against 61 Mb/s
		 * on one core, 32 frames per call (DVB-S2 r1/2, bench_cpu_ldpc, the same minute on
		 * an H100 host's Xeon, 2026-11-22) */
		for (uint32_t i = first; i < first + count; i++)
			if (ldpc__job_ok(d, &b->jobs[i]))
				ldpc__decode_frame_cyc(d, scratch, b, i);
		return 0;
	}
	if (d->int8 && fec_simd_level() >= FEC_SIMD_AVX2) {
		const bool cyc = d->cyc && fec_simd_level() >= d->cyc->level;
		uint32_t idx[LDPC_GROUP];
		unsigned held = 0;

		for (uint32_t i = first; i < first + count; i++) {
			if (!ldpc__job_ok(d, &b->jobs[i]))
				continue;
			idx[held++] = i;
			if (held == LDPC_GROUP) {
				ldpc__decode_group_avx2(d, scratch, b, idx, held);
				held = 0;
			}
		}
		/* A few frames left over go one by one through the cyclic pass where the code
		 * has one: a group costs the same for 1 frame as for 32, a frame there about
		 * 1/18 of a group (DVB-S2 r1/2, 10 iterations, AVX2: 39 Mb/s for a frame alone,
		 * 2.2 in a padded group). */
		if (cyc && held < LDPC_GROUP / 2)
			for (unsigned j = 0; j < held; j++)
				ldpc__decode_frame_cyc(d, scratch, b, idx[j]);
		else if (held)
			ldpc__decode_group_avx2(d, scratch, b, idx, held);
		return 0;
	}
#endif
	s = frame_scratch_map(d, scratch);
	for (uint32_t i = first; i < first + count; i++)
		if (ldpc__job_ok(d, &b->jobs[i]))
			decode_frame(d, &s, b, i, NULL);
	return 0;
}

/* Soft in, soft out: the portable decoder, frame by frame, with the priors added to the channel
 * values (add_priors_*). The SIMD passes give the same bits as the portable decoder, so with
 * zero priors this is fec_decode's result; they are not used here since a group of frames would
 * need its priors laid out per lane, and a composite decoder calls its child on one frame at a
 * time. */
int ldpc__decode_siso(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                      const float *prior, size_t prior_stride, uint32_t first, uint32_t count,
                      char *err, size_t errlen)
{
	const struct ldpc_decoder *d = (const struct ldpc_decoder *)dec;
	struct frame_scratch s;

	if (d->base.spec.frame.in == FEC_IN_F32_LLR ? !b->in_f32 : !b->in)
		return fec__err(err, errlen, FEC_EINVAL, "no %s input in the batch",
		                d->base.spec.frame.in == FEC_IN_F32_LLR ? "float32 (in_f32)" : "int8 (in)");
	if (prior && prior_stride < d->out_n && count > 1)
		return fec__err(err, errlen, FEC_EINVAL,
		                "prior_stride %zu is below the %u priors of a job", prior_stride,
		                d->out_n);
	for (uint32_t i = first; prior && i < first + count; i++)
		for (uint32_t j = 0; j < d->out_n; j++)
			if (!isfinite(prior[(size_t)i * prior_stride + j]))
				return fec__err(err, errlen, FEC_EINVAL,
				                "prior %u of job %u is not a finite number", j, i);
	s = frame_scratch_map(d, scratch);
	for (uint32_t i = first; i < first + count; i++)
		if (ldpc__job_ok(d, &b->jobs[i]))
			decode_frame(d, &s, b, i, prior ? prior + (size_t)i * prior_stride : NULL);
	return 0;
}
