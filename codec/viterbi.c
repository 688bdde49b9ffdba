/*
 * The CPU Viterbi decoder: the reference that every other implementation (SIMD, CUDA) must match
 * bit for bit, so its arithmetic is written down here exactly.
 *
 * Trellis. N = 2^(K-1) states; a state holds the K-1 previous inputs, the most recent in bit K-2.
 * Input b moves state s to ns = b << (K-2) | s >> 1 through the register reg = b << (K-1) | s,
 * whose code word is word[reg] (bit r = parity(reg & poly_r) ^ invert_r). The predecessors of ns
 * are p0 = (ns << 1) & (N-1) and p1 = p0 | 1, and ns carries b = ns >> (K-2).
 *
 * Symbols. Stage t of a job consumes, in output order, the symbols of the outputs sent at
 * puncturing step t mod P (a job's first symbol is at step 0); an output not sent reads y = 0.
 * Symbols are int8 LLRs in -127..127, positive favouring 0.
 *
 * Metrics, all exact integers, maximised:
 *   BM(w)       = sum over outputs r of (w_r ? -y_r : +y_r)                      |BM| <= 508
 *   cand_j      = PM_t(p_j) + BM(word[b << (K-1) | p_j])                          j = 0, 1
 *   PM_t+1(ns)  = max(cand_0, cand_1); decision d_t(ns) = 1 iff cand_1 > cand_0 (ties: p0,
 *                 the lower state index).
 *   Start: all states 0 when the state is unknown (stream blocks); when it is known to be 0
 *   (frames, a stream's first block) PM_0(0) = 0 and every other state -2^20. Any constant
 *   below -(2 * 508 * K) gives the same decisions on every path that reaches the end state,
 *   because states unreachable from state 0 only compare with each other until stage K-1.
 *   End state: state 0 for terminated frames; otherwise the state of largest PM_T, the lowest
 *   index among equals.
 *   Every 32 stages the largest metric is subtracted from all of them (renormalisation); that
 *   changes no comparison, so decisions are those of the exact metrics, and job.metric is the
 *   exact PM_T(end state), the subtracted amounts added back, converted to float.
 * Traceback. From S_T = the end state, for t = T-1 down to 0: bit_t = S_t+1 >> (K-2), then
 *   S_t = (S_t+1 << 1 & (N-1)) | d_t(S_t+1).
 *
 * Jobs. A stream job runs the stages of its head, owned part and tail and outputs the owned
 * stages' bits. The tail counts only whole stages of its symbols, and at most decode_len +
 * traceback_len - owned stages of them (the decision rows a job may fill); the rest is ignored.
 * Frames output T - (K-1) bits (terminated) or T (truncated) for T = in_len / U * P stages.
 * Decisions are stored only for stages that traceback reads, one bit per state, packed in 64-bit
 * words (bit ns % 64 of word ns / 64) per stage, in caller scratch. A job that breaks the
 * geometry rules (lengths not whole periods, too long, a terminated frame shorter than its tail)
 * is returned ERASED with no bits; the batch goes on.
 */
#include <stdlib.h>
#include <string.h>

#include "conv_code.h"
#include "fec_impl.h"

#define UNREACHABLE  (-(1 << 20))
#define RENORM_EVERY 32
#define ALIGN        64

struct viterbi_decoder {
	struct fec_decoder base;
	struct conv_code code;
	/* -1 where word[2j] has output r set, else 0: (y ^ sign) - sign is +-y without a multiply
	 */
	int32_t sign[CONV_N_MAX][CONV_STATES_MAX / 2];
	unsigned bmask, tmask; /* outputs whose polynomial taps the oldest bit / the input bit */
	bool symmetric;        /* bmask and tmask are every output */
	uint32_t rows;         /* decision rows available in scratch: most stages traceback reads */
	uint32_t words;        /* 64-bit words per decision row */
};

/* Scratch: two metric arrays, then the decision rows. */
struct scratch {
	int32_t *pm[2];
	uint64_t *dec;
};

static size_t align_up(size_t v)
{
	return (v + ALIGN - 1) / ALIGN * ALIGN;
}

static size_t scratch_size(uint32_t rows, uint32_t words)
{
	size_t pm = align_up(CONV_STATES_MAX * sizeof(int32_t));

	return ALIGN + 2 * pm + (size_t)rows * words * sizeof(uint64_t);
}

static struct scratch scratch_map(void *mem)
{
	uintptr_t p = ((uintptr_t)mem + ALIGN - 1) / ALIGN * ALIGN;
	size_t pm = align_up(CONV_STATES_MAX * sizeof(int32_t));
	struct scratch s;

	s.pm[0] = (int32_t *)p;
	s.pm[1] = (int32_t *)(p + pm);
	s.dec = (uint64_t *)(p + 2 * pm);
	return s;
}

/* Branch metrics of one stage for every butterfly, in the four shapes a butterfly needs. Branch
 * j's code word for input 0 from state 2j is a_j = word[2j]; from 2j+1 it is a_j ^ B and with
 * input 1 it is a_j ^ T or a_j ^ T ^ B (B, T: the outputs whose polynomial taps the oldest bit,
 * the input bit). BM is linear in the symbols with signs from the code word, so each shape is a
 * sum over outputs of +-y_r with signs sign_r[j] fixed per decoder. When every polynomial taps both
 * ends (all presets), B = T = every output and the shapes are m, -m, -m, m: one sum serves the
 * butterfly. */
static void stage_metrics(const struct viterbi_decoder *v, const int32_t y[CONV_N_MAX],
                          int32_t (*restrict m)[CONV_STATES_MAX / 2])
{
	const unsigned half = v->code.nstates / 2, n = v->code.n;
	const unsigned shapes = v->symmetric ? 1 : 4;

	for (unsigned q = 0; q < shapes; q++) {
		int32_t *restrict mq = m[q];

		for (unsigned j = 0; j < half; j++)
			mq[j] = 0;
		for (unsigned r = 0; r < n; r++) {
			const int32_t *restrict sr = v->sign[r];
			int32_t yr = y[r];

			if ((q & 1) && (v->bmask >> r & 1))
				yr = -yr;
			if ((q & 2) && (v->tmask >> r & 1))
				yr = -yr;
			for (unsigned j = 0; j < half; j++)
				mq[j] += (yr ^ sr[j]) - sr[j];
		}
	}
}

/* One add-compare-select stage over butterflies: states 2j and 2j+1 feed j (input 0) and
 * j + N/2 (input 1); decisions go to dec8 as one byte per state. */
static void acs_stage(unsigned nstates, const int32_t (*restrict m)[CONV_STATES_MAX / 2],
                      const int32_t *restrict old, int32_t *restrict new, uint8_t *restrict dec8)
{
	const unsigned half = nstates / 2;

	for (unsigned j = 0; j < half; j++) {
		int32_t a = old[2 * j], b = old[2 * j + 1];
		int32_t c00 = a + m[0][j], c01 = b + m[1][j];
		int32_t c10 = a + m[2][j], c11 = b + m[3][j];

		dec8[j] = c01 > c00;
		dec8[j + half] = c11 > c10;
		new[j] = c01 > c00 ? c01 : c00;
		new[j + half] = c11 > c10 ? c11 : c10;
	}
}

/* The same for symmetric codes, with shapes m, -m, -m, m. */
static void acs_stage_symmetric(unsigned nstates, const int32_t *restrict m,
                                const int32_t *restrict old, int32_t *restrict new,
                                uint8_t *restrict dec8)
{
	const unsigned half = nstates / 2;

	for (unsigned j = 0; j < half; j++) {
		int32_t a = old[2 * j], b = old[2 * j + 1];
		int32_t c00 = a + m[j], c01 = b - m[j];
		int32_t c10 = a - m[j], c11 = b + m[j];

		dec8[j] = c01 > c00;
		dec8[j + half] = c11 > c10;
		new[j] = c01 > c00 ? c01 : c00;
		new[j + half] = c11 > c10 ? c11 : c10;
	}
}

/* One byte per state (0/1) -> one bit per state, bit s % 64 of word s / 64. */
static void pack_decisions(const uint8_t *dec8, unsigned nstates, uint64_t *row)
{
	for (unsigned w = 0; w < (nstates + 63) / 64; w++) {
		uint64_t bits = 0;

		for (unsigned k = 0; k < 64 && 64 * w + k < nstates; k += 8) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			uint64_t x;

			/* Eight 0/1 bytes to eight bits in one multiply: byte i lands on bit
			 * 56 + i and no two partial products meet there. */
			memcpy(&x, dec8 + 64 * w + k, 8);
			bits |= ((x * 0x0102040810204080ull) >> 56) << k;
#else
			for (unsigned i = 0; i < 8; i++)
				bits |= (uint64_t)dec8[64 * w + k + i] << (k + i);
#endif
		}
		row[w] = bits;
	}
}

static int32_t renormalise(int32_t *pm, unsigned nstates)
{
	int32_t top = pm[0];

	for (unsigned s = 1; s < nstates; s++)
		if (pm[s] > top)
			top = pm[s];
	for (unsigned s = 0; s < nstates; s++)
		pm[s] -= top;
	return top;
}

/* What one job decodes, worked out from its lengths; false when they break the rules. */
struct job_plan {
	uint32_t head, own, tail; /* stages */
	uint32_t out_bits;
	bool start_known, end_zero;
};

static bool plan_job(const struct viterbi_decoder *v, const struct fec_job *job, struct job_plan *p)
{
	const struct conv_code *c = &v->code;
	const uint32_t u = c->unit_syms, per = c->period;

	memset(p, 0, sizeof(*p));
	if (c->mode == CONV_MODE_STREAM) {
		uint64_t tail;

		if (job->head_len % u || job->own_len % u ||
		    (uint64_t)job->head_len + job->own_len > job->in_len)
			return false;
		p->head = job->head_len / u * per;
		p->own = job->own_len / u * per;
		if (p->own > v->base.info.max_out_bits)
			return false;
		tail = conv_stages_in_syms(c, job->in_len - job->head_len - job->own_len);
		p->tail = (uint32_t)(tail < v->rows - p->own ? tail : v->rows - p->own);
		p->out_bits = p->own;
		p->start_known = job->flags & FEC_JOB_STREAM_START;
		return true;
	}
	if (job->in_len % u)
		return false;
	p->own = job->in_len / u * per;
	if (p->own > v->rows)
		return false;
	p->start_known = true;
	p->out_bits = p->own;
	if (c->mode == CONV_MODE_TERMINATED) {
		if (p->own < c->k - 1)
			return false;
		p->out_bits = p->own - (c->k - 1);
		p->end_zero = true;
	}
	return true;
}

static void decode_job(const struct viterbi_decoder *v, struct scratch *s, const int8_t *in,
                       const struct job_plan *p, uint8_t *out, struct fec_job *job)
{
	const struct conv_code *c = &v->code;
	const unsigned n = c->nstates, words = v->words;
	const uint32_t total = p->head + p->own + p->tail;
	int32_t *old = s->pm[0], *new = s->pm[1];
	int32_t m[4][CONV_STATES_MAX / 2];
	uint8_t dec8[CONV_STATES_MAX + 8] = {0};
	int64_t offset = 0;
	uint32_t pos = 0, end = 0;
	unsigned step = 0;

	for (unsigned st = 0; st < n; st++)
		old[st] = p->start_known && st ? UNREACHABLE : 0;
	for (uint32_t t = 0; t < total; t++) {
		int32_t y[CONV_N_MAX] = {0}, *tmp;
		unsigned sent = c->sent[step];

		for (unsigned r = 0; r < c->n; r++)
			if (sent >> r & 1u)
				y[r] = in[pos++];
		stage_metrics(v, y, m);
		if (v->symmetric)
			acs_stage_symmetric(n, m[0], old, new, dec8);
		else
			acs_stage(n, (const int32_t(*)[CONV_STATES_MAX / 2]) m, old, new, dec8);
		if (t >= p->head)
			pack_decisions(dec8, n, s->dec + (size_t)(t - p->head) * words);
		tmp = old;
		old = new;
		new = tmp;
		step = step + 1 == c->period ? 0 : step + 1;
		if (t % RENORM_EVERY == RENORM_EVERY - 1)
			offset += renormalise(old, n);
	}
	if (!p->end_zero)
		for (unsigned st = 1; st < n; st++)
			if (old[st] > old[end])
				end = st;
	job->metric = (float)(offset + old[end]);

	memset(out, 0, (p->out_bits + 7) / 8);
	for (uint32_t r = p->own + p->tail; r-- > 0;) {
		const uint64_t *row = s->dec + (size_t)r * words;

		if (r < p->out_bits && (end >> (c->k - 2) & 1u))
			out[r / 8] |= (uint8_t)(0x80u >> (r % 8));
		end = ((end << 1) & (n - 1)) | (unsigned)(row[end / 64] >> (end % 64) & 1u);
	}
	job->out_bits = p->out_bits;
	job->status = FECD_STATUS_DECODED;
}

static int viterbi_decode(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                          uint32_t first, uint32_t count)
{
	const struct viterbi_decoder *v = (const struct viterbi_decoder *)dec;
	struct scratch s = scratch_map(scratch);

	for (uint32_t i = first; i < first + count; i++) {
		struct fec_job *job = &b->jobs[i];
		struct job_plan plan;

		job->out_bits = 0;
		job->soft_count = 0;
		job->iterations = 0;
		job->metric = 0.0f;
		if (!plan_job(v, job, &plan)) {
			job->status = FECD_STATUS_ERASED;
			continue;
		}
		decode_job(v, &s, b->in + (size_t)i * b->in_stride, &plan,
		           b->out + (size_t)i * b->out_stride, job);
	}
	return 0;
}

static void viterbi_destroy(struct fec_decoder *dec)
{
	free(dec);
}

static const struct fec_decoder_vtbl viterbi_vtbl = {
    .decode = viterbi_decode,
    .destroy = viterbi_destroy,
};

static void fill_info(struct viterbi_decoder *v)
{
	const struct conv_spec *cs = &v->base.spec.u.conv;
	const struct conv_code *c = &v->code;
	struct fec_info *info = &v->base.info;
	const uint32_t u = c->unit_syms, per = c->period;

	memset(info, 0, sizeof(*info));
	info->family = FECD_FAMILY_VITERBI;
	info->unit_syms = u;
	info->unit_bits = per;
	if (c->mode == CONV_MODE_STREAM) {
		info->kind = FEC_KIND_STREAM;
		info->block_syms = cs->decode_len / per * u;
		info->head_syms = cs->head_len / per * u;
		info->tail_syms = cs->traceback_len / per * u;
		info->max_out_bits = cs->decode_len;
		v->rows = cs->decode_len + cs->traceback_len;
	} else {
		uint32_t stages = cs->max_frame_bits;

		if (c->mode == CONV_MODE_TERMINATED)
			stages += c->k - 1;
		stages = (stages + per - 1) / per * per;
		info->kind = FEC_KIND_FRAME;
		info->max_frame_syms = stages / per * u;
		info->max_out_bits = stages - (c->mode == CONV_MODE_TERMINATED ? c->k - 1 : 0);
		v->rows = stages;
	}
	v->words = c->nstates > 64 ? c->nstates / 64 : 1;
	info->scratch_bytes = scratch_size(v->rows, v->words);
}

int conv_decoder_create(const struct fec_spec *spec, struct fec_decoder **out)
{
	struct viterbi_decoder *v;
	struct fec_spec s = *spec;
	int ret;

	ret = conv_spec_finish(&s, NULL, 0);
	if (ret)
		return ret;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -FEC_ENOMEM;
	v->base.vt = &viterbi_vtbl;
	v->base.spec = s;
	conv_code_init(&v->code, &s.u.conv);
	for (unsigned r = 0; r < v->code.n; r++) {
		if (s.u.conv.polys[r] & 1u)
			v->bmask |= 1u << r;
		if (s.u.conv.polys[r] >> (v->code.k - 1) & 1u)
			v->tmask |= 1u << r;
		for (unsigned j = 0; j < v->code.nstates / 2; j++)
			v->sign[r][j] = (v->code.word[2 * j] >> r & 1u) ? -1 : 0;
	}
	v->symmetric = v->bmask == (1u << v->code.n) - 1 && v->tmask == v->bmask;
	fill_info(v);
	*out = &v->base;
	return 0;
}
