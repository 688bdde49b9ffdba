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
 *
 * SIMD. viterbi_sse2.c, viterbi_avx2.c and viterbi_avx512.c run the same stages in int16 lanes
 * and give identical decisions on every path traceback follows, identical end states and metrics;
 * cpu_simd.h picks the level at run time. At AVX2, jobs whose stages agree run two at a time
 * (K >= 5), at AVX-512 four at a time (then two, then one, for what is left), and their rows hold
 * state s's decision at bit rev(s) (the K-1 state bits reversed), which the pair's traceback
 * follows. This file is the portable pass, the traceback and the job planning that
 * every level shares.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_simd.h"
#include "viterbi_impl.h"

#define UNREACHABLE  (-(1 << 20))
#define RENORM_EVERY 32
#define ALIGN        64
/* The scratch's start is put on a page boundary, whatever the caller's allocator gives: with the
 * arrays at the same offsets within a page every time, the passes' stores never fall on 4 KiB
 * aliases of their loads by chance. Measured on the lent Xeon (fecd-bench, one core, AVX-512):
 * 150 Mb/s with a thread's malloc'd scratch, 184 with the same scratch page-aligned. */
#define BASE_ALIGN   4096

/* Scratch: two metric arrays (the portable pass's), and the traceback's path bits and the
 * decision rows of each job of a group (the group passes fill up to VITERBI_GROUP_MAX). */
struct scratch {
	int32_t *pm;
	uint64_t *path[VITERBI_GROUP_MAX];
	uint64_t *dec[VITERBI_GROUP_MAX];
};

static size_t align_up(size_t v)
{
	return (v + ALIGN - 1) / ALIGN * ALIGN;
}

/* Bytes of the traceback's path bits: one per row, and the end state past them. */
static size_t path_size(uint32_t rows)
{
	return align_up(((size_t)rows / 64 + 2) * sizeof(uint64_t));
}

static size_t dec_size(uint32_t rows, uint32_t words)
{
	return align_up((size_t)rows * words * sizeof(uint64_t));
}

static size_t scratch_size(uint32_t rows, uint32_t words)
{
	size_t pm = align_up(2 * CONV_STATES_MAX * sizeof(int32_t));

	return BASE_ALIGN + pm + VITERBI_GROUP_MAX * (path_size(rows) + dec_size(rows, words));
}

static struct scratch scratch_map(void *mem, uint32_t rows, uint32_t words)
{
	uintptr_t p = ((uintptr_t)mem + BASE_ALIGN - 1) / BASE_ALIGN * BASE_ALIGN;
	size_t at = align_up(2 * CONV_STATES_MAX * sizeof(int32_t));
	struct scratch s;

	s.pm = (int32_t *)p;
	for (unsigned i = 0; i < VITERBI_GROUP_MAX; i++) {
		s.path[i] = (uint64_t *)(p + at);
		at += path_size(rows);
		s.dec[i] = (uint64_t *)(p + at);
		at += dec_size(rows, words);
	}
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

/* Works out what one job decodes from its lengths; false when they break the rules. */
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

/* The portable forward pass (viterbi_forward_fn): the reference arithmetic, every code. */
static unsigned forward_portable(const struct viterbi_decoder *v, const int8_t *in,
                                 const struct job_plan *p, int32_t *pm, uint64_t *dec,
                                 int64_t *metric)
{
	const struct conv_code *c = &v->code;
	const unsigned n = c->nstates, words = v->words;
	const uint32_t total = p->head + p->own + p->tail;
	int32_t *old = pm, *new = pm + CONV_STATES_MAX;
	int32_t m[4][CONV_STATES_MAX / 2];
	uint8_t dec8[CONV_STATES_MAX + 8] = {0};
	int64_t offset = 0;
	uint32_t pos = 0;
	unsigned step = 0, end = 0;

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
			pack_decisions(dec8, n, dec + (size_t)(t - p->head) * words);
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
	*metric = offset + old[end];
	return end;
}

/* Bits of every byte of x reversed (bit 0 <-> bit 7 ...), the bytes left in place. */
static uint64_t reverse_bits_in_bytes(uint64_t x)
{
	x = (x & 0x0f0f0f0f0f0f0f0full) << 4 | (x >> 4 & 0x0f0f0f0f0f0f0f0full);
	x = (x & 0x3333333333333333ull) << 2 | (x >> 2 & 0x3333333333333333ull);
	return (x & 0x5555555555555555ull) << 1 | (x >> 1 & 0x5555555555555555ull);
}

static void cut_bits(const struct viterbi_decoder *v, const struct job_plan *p,
                     const uint64_t *path, uint8_t *out);

/* Traceback from the end state over rows own+tail-1 .. 0; writes out_bits bits, MSB first, the
 * last byte's spare bits 0. Each step shifts the state left and brings the decision in, so the
 * states of the whole path are one bit string P (bit r: the decision read at row r; bits R ..
 * R+K-2: the end state, R = own+tail), and the bit decoded at stage r, the top bit of S_r+1, is
 * bit r+K-1 of P. The loop therefore only follows the chain and keeps P in path[] (scratch); the
 * output is cut from P afterwards, 64 bits at a time. Rows of the two-job pass are in reversed
 * state order (viterbi_impl.h) when reversed. */
static void traceback(const struct viterbi_decoder *v, const uint64_t *dec, bool reversed,
                      unsigned end, const struct job_plan *p, uint64_t *path, uint8_t *out)
{
	const unsigned words = v->words, k1 = v->code.k - 1;
	const uint64_t mask = v->code.nstates - 1;
	const uint32_t rows = p->own + p->tail;
	const uint64_t *row = dec + (size_t)rows * words;
	uint64_t x = end;

	path[rows / 64] = (uint64_t)end << (rows % 64);
	path[rows / 64 + 1] = rows % 64 ? (uint64_t)end >> (64 - rows % 64) : 0;
	if (reversed) {
		/* Rows in reversed state order: follow L = rev(S) beside the path, whose
		 * predecessor is L >> 1 with the decision as its top bit. */
		const unsigned top = k1 - 1;
		unsigned l = viterbi__reverse(end, k1);

		for (uint32_t r = rows; r-- > 0;) {
			unsigned d;

			row -= words;
			d = (unsigned)(row[words == 1 ? 0 : l / 64] >> (l % 64)) & 1u;
			x = x << 1 | d;
			l = l >> 1 | d << top;
			if (r % 64 == 0)
				path[r / 64] = x;
		}
	} else if (words == 1) {
		for (uint32_t r = rows; r-- > 0;) {
			row -= 1;
			x = x << 1 | (row[0] >> (x & mask) & 1u);
			if (r % 64 == 0)
				path[r / 64] = x;
		}
	} else {
		for (uint32_t r = rows; r-- > 0;) {
			const unsigned s = (unsigned)(x & mask);

			row -= words;
			x = x << 1 | (row[s / 64] >> (s % 64) & 1u);
			if (r % 64 == 0)
				path[r / 64] = x;
		}
	}
	cut_bits(v, p, path, out);
}

/* Both jobs of a pair (rows in reversed order, the same number of them): the chains of
 * traceback's reversed loop side by side, so that each one's latency hides the other's. */
static void traceback_pair(const struct viterbi_decoder *v, uint64_t *const dec[2],
                           const unsigned end[2], const struct job_plan *p[2],
                           uint64_t *const path[2], uint8_t *const out[2])
{
	const unsigned words = v->words, k1 = v->code.k - 1, top = k1 - 1;
	const uint32_t rows = p[0]->own + p[0]->tail;
	const uint64_t *ra = dec[0] + (size_t)rows * words, *rb = dec[1] + (size_t)rows * words;
	uint64_t xa = end[0], xb = end[1];
	unsigned la = viterbi__reverse(end[0], k1), lb = viterbi__reverse(end[1], k1);

	for (unsigned i = 0; i < 2; i++) {
		path[i][rows / 64] = (uint64_t)end[i] << (rows % 64);
		path[i][rows / 64 + 1] = rows % 64 ? (uint64_t)end[i] >> (64 - rows % 64) : 0;
	}
	for (uint32_t r = rows; r-- > 0;) {
		unsigned da, db;

		ra -= words;
		rb -= words;
		da = (unsigned)(ra[words == 1 ? 0 : la / 64] >> (la % 64)) & 1u;
		db = (unsigned)(rb[words == 1 ? 0 : lb / 64] >> (lb % 64)) & 1u;
		xa = xa << 1 | da;
		xb = xb << 1 | db;
		la = la >> 1 | da << top;
		lb = lb >> 1 | db << top;
		if (r % 64 == 0) {
			path[0][r / 64] = xa;
			path[1][r / 64] = xb;
		}
	}
	cut_bits(v, p[0], path[0], out[0]);
	cut_bits(v, p[1], path[1], out[1]);
}

/* The output bits from the path bits P that traceback wrote. */
static void cut_bits(const struct viterbi_decoder *v, const struct job_plan *p,
                     const uint64_t *path, uint8_t *out)
{
	const unsigned k1 = v->code.k - 1;

	for (uint32_t at = 0; at < p->out_bits; at += 64) {
		const uint32_t q = at + k1, left = p->out_bits - at;
		uint64_t bits = path[q / 64] >> (q % 64);

		if (q % 64)
			bits |= path[q / 64 + 1] << (64 - q % 64);
		if (left < 64)
			bits &= (1ull << left) - 1;
		bits = reverse_bits_in_bytes(bits);
		for (unsigned b = 0; b < 8 && 8 * b < left; b++)
			out[at / 8 + b] = (uint8_t)(bits >> (8 * b));
	}
}

/* The forward pass for the current SIMD level; the portable one where the level has none for
 * this code. */
static viterbi_forward_fn pick_forward(const struct viterbi_decoder *v)
{
	viterbi_forward_fn f = NULL;

#if defined(FECD_SIMD_X86)
	switch (fec_simd_level()) {
	case FEC_SIMD_AVX512: /* one job at a time: AVX-512 CPUs run the AVX2 pass */
	case FEC_SIMD_AVX2:
		f = viterbi__forward_avx2(v);
		if (f)
			break;
		/* K < 6 has no AVX2 pass; AVX2 CPUs have SSE2 */
		__attribute__((fallthrough));
	case FEC_SIMD_SSE2:
		f = viterbi__forward_sse2(v);
		break;
	default:
		break;
	}
#else
	(void)v;
#endif
	return f ? f : forward_portable;
}

static void decode_job(const struct viterbi_decoder *v, viterbi_forward_fn forward,
                       struct scratch *s, const int8_t *in, const struct job_plan *p, uint8_t *out,
                       struct fec_job *job)
{
	int64_t metric;
	unsigned end = forward(v, in, p, s->pm, s->dec[0], &metric);

	job->metric = (float)metric;
	traceback(v, s->dec[0], false, end, p, s->path[0], out);
	job->out_bits = p->out_bits;
	job->status = FECD_STATUS_DECODED;
}

/* The passes of the current SIMD level: one job, two and four at a time (NULL where the level or
 * the code has none). */
struct passes {
	viterbi_forward_fn one;
	viterbi_forward2_fn two;
	viterbi_forward4_fn four;
};

static struct passes pick_passes(const struct viterbi_decoder *v)
{
	struct passes f = {pick_forward(v), NULL, NULL};

#if defined(FECD_SIMD_X86)
	switch (fec_simd_level()) {
	case FEC_SIMD_AVX512:
		f.four = viterbi__forward4_avx512(v);
		/* AVX-512 CPUs have AVX2: its pair pass takes what a four would leave */
		__attribute__((fallthrough));
	case FEC_SIMD_AVX2:
		f.two = viterbi__forward2_avx2(v);
		break;
	default:
		break;
	}
#endif
	return f;
}

/* Jobs held[0 .. count-1] of b (count 2 or 4, plans of equal head, own and tail) through the
 * group pass; the tracebacks two at a time (rows in reversed order). */
static void decode_group(const struct viterbi_decoder *v, const struct passes *f, struct scratch *s,
                         struct fec_batch *b, const uint32_t *held, const struct job_plan *plan,
                         unsigned count)
{
	const int8_t *in[VITERBI_GROUP_MAX];
	const struct job_plan *p[VITERBI_GROUP_MAX];
	uint8_t *out[VITERBI_GROUP_MAX];
	int64_t metric[VITERBI_GROUP_MAX];
	unsigned end[VITERBI_GROUP_MAX];

	for (unsigned i = 0; i < count; i++) {
		in[i] = b->in + (size_t)held[i] * b->in_stride;
		out[i] = b->out + (size_t)held[i] * b->out_stride;
		p[i] = &plan[i];
	}
	if (count == 4)
		f->four(v, in, p, s->dec, metric, end);
	else
		f->two(v, in, p, s->dec, metric, end);
	for (unsigned i = 0; i < count; i += 2)
		traceback_pair(v, s->dec + i, end + i, p + i, s->path + i, out + i);
	for (unsigned i = 0; i < count; i++) {
		struct fec_job *job = &b->jobs[held[i]];

		job->metric = (float)metric[i];
		job->out_bits = p[i]->out_bits;
		job->status = FECD_STATUS_DECODED;
	}
}

/* Jobs held[0 .. count-1], whose stages agree: four at a time, then two, then one, as far as the
 * level has passes for them. */
static void decode_held(const struct viterbi_decoder *v, const struct passes *f, struct scratch *s,
                        struct fec_batch *b, const uint32_t *held, const struct job_plan *plan,
                        unsigned count)
{
	unsigned at = 0;

	for (; f->four && count - at >= 4; at += 4)
		decode_group(v, f, s, b, held + at, plan + at, 4);
	for (; f->two && count - at >= 2; at += 2)
		decode_group(v, f, s, b, held + at, plan + at, 2);
	for (; at < count; at++)
		decode_job(v, f->one, s, b->in + (size_t)held[at] * b->in_stride, &plan[at],
		           b->out + (size_t)held[at] * b->out_stride, &b->jobs[held[at]]);
}

static bool same_stages(const struct job_plan *a, const struct job_plan *b)
{
	return a->head == b->head && a->own == b->own && a->tail == b->tail;
}

/* Jobs are held until as many as the level's widest pass takes have come whose stages agree (as
 * they do for every block of a stream but its ends); a job that disagrees sends the held ones
 * on first. */
static int viterbi_decode(const struct fec_decoder *dec, void *scratch, struct fec_batch *b,
                          uint32_t first, uint32_t count)
{
	const struct viterbi_decoder *v = (const struct viterbi_decoder *)dec;
	const struct passes f = pick_passes(v);
	const unsigned group = f.four ? 4 : f.two ? 2 : 1;
	struct scratch s = scratch_map(scratch, v->rows, v->words);
	struct job_plan plan[VITERBI_GROUP_MAX];
	uint32_t held[VITERBI_GROUP_MAX];
	unsigned nheld = 0;

	for (uint32_t i = first; i < first + count; i++) {
		struct fec_job *job = &b->jobs[i];
		struct job_plan p;

		job->out_bits = 0;
		job->soft_count = 0;
		job->work = 0;
		job->metric = 0.0f;
		if (!plan_job(v, job, &p)) {
			job->status = FECD_STATUS_ERASED;
			continue;
		}
		if (nheld && !same_stages(&plan[0], &p)) {
			decode_held(v, &f, &s, b, held, plan, nheld);
			nheld = 0;
		}
		plan[nheld] = p;
		held[nheld++] = i;
		if (nheld == group) {
			decode_held(v, &f, &s, b, held, plan, nheld);
			nheld = 0;
		}
	}
	decode_held(v, &f, &s, b, held, plan, nheld);
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
	info->in_kind = FEC_IN_S8_LLR;
	info->in_q = 1;
	info->soft_kind = FEC_SOFT_NONE; /* frames vary in length: frame_info_bits stays 0 */
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
	/* aligned for wquad's whole-line tables (sizeof is a multiple of the alignment) */
	v = aligned_alloc(_Alignof(struct viterbi_decoder), sizeof(*v));
	if (!v)
		return -FEC_ENOMEM;
	memset(v, 0, sizeof(*v));
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
	for (unsigned q = 0; q < 4; q++)
		for (unsigned r = 0; r < v->code.n; r++)
			for (unsigned j = 0; j < v->code.nstates / 2; j++) {
				unsigned reg = (q >> 1) << (v->code.k - 1) | 2 * j | (q & 1);
				bool set = v->code.word[reg] >> r & 1u;

				v->mask16[q][r][j] = set ? -1 : 0;
				v->unit16[q][r][j] = set ? -1 : 1;
				v->wbits[q][r / 2][2 * j + r % 2] = set;
			}
	/* group g, lane e of a half: butterfly L = 8g + e, whose even predecessor is rev(L) */
	for (unsigned l = 0; v->code.nstates >= 16 && l < v->code.nstates / 2; l++) {
		unsigned j = viterbi__reverse(l, v->code.k - 1) / 2;

		for (unsigned q = 0; q < 4; q++)
			for (unsigned h = 0; h < 2; h++)
				for (unsigned b = 0; b < 2; b++) {
					uint8_t w = v->wbits[q][h][2 * j + b];

					v->wpair[l / 8][q][h][2 * (l % 8) + b] = w;
					v->wpair[l / 8][q][h][16 + 2 * (l % 8) + b] = w;
				}
	}
	/* the four-job pass's tables: the two-job pass's twice over */
	for (unsigned g = 0; g < CONV_STATES_MAX / 16; g++)
		for (unsigned q = 0; q < 4; q++)
			for (unsigned h = 0; h < 2; h++) {
				memcpy(v->wquad[g][q][h], v->wpair[g][q][h], 32);
				memcpy(v->wquad[g][q][h] + 32, v->wpair[g][q][h], 32);
			}
	v->symmetric = v->bmask == (1u << v->code.n) - 1 && v->tmask == v->bmask;
	fill_info(v);
	*out = &v->base;
	return 0;
}
