/*
 * GPU Viterbi against the CPU decoder, bit for bit, through the public GPU API (lanes): every
 * preset and random codes (K 3..9, n 2..4, symmetric or not, punctured or not) in stream,
 * terminated and truncated modes; stream jobs of every shape the batcher makes (full, first with
 * STREAM_START, last with STREAM_END, short tails, tails past the cap, partial stages), jobs that
 * must come back ERASED, int8 and packed 4-bit input, random, all-zero (every comparison a tie)
 * and extreme (+-127, -128) symbols. Every job's status, out_bits, soft_count, iterations,
 * metric and the output bytes the CPU writes ((out_bits + 7) / 8) must match; the GPU's output
 * buffer comes from device memory the kernel alone fills, so a byte it misses shows as garbage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "prng.h"
#include "softbits.h"

#define JOBS 257 /* not a multiple of a warp or a block */

enum input_kind { IN_RANDOM, IN_ZERO, IN_EXTREME, IN_S4, IN_KINDS };
static const char *const input_names[] = {"s8 random", "s8 zero", "s8 extreme", "s4 random"};

struct gpu {
	struct fecd_cuda *ctx;
	struct fecd_cuda_lane *lane;
};

static struct fec_prng prng;

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)(fec_prng_next(&prng) % n) : 0;
}

/* Job shapes for a stream decoder: mostly valid, some at the edges, some breaking the rules. */
static void stream_job(const struct fec_info *in, struct fec_job *j, uint32_t cap)
{
	const uint32_t u = in->unit_syms, hb = in->head_syms / u, ob = in->block_syms / u;
	uint32_t head = in->head_syms, own = in->block_syms, tail = in->tail_syms;

	memset(j, 0, sizeof(*j));
	switch (rnd(10)) {
	case 0: /* first block */
		head = 0;
		j->flags = FEC_JOB_STREAM_START;
		break;
	case 1: /* last block: short, partial stage at the end */
		own = rnd(ob + 1) * u;
		tail = rnd(u);
		j->flags = FEC_JOB_STREAM_END;
		break;
	case 2: /* random parts, tail past the cap */
		head = rnd(hb + 1) * u;
		own = rnd(ob + 1) * u;
		tail = rnd(cap - head - own + 1);
		j->flags = rnd(4);
		break;
	case 3: /* broken: misaligned head, too long, or in_len too short */
		if (u > 1 && rnd(2))
			head = u + 1;
		else if (rnd(2))
			own = in->block_syms + u;
		else
			tail = 0, j->in_len = 1;
		break;
	default:
		break;
	}
	j->head_len = head;
	j->own_len = own;
	if (!j->in_len)
		j->in_len = head + own + tail;
	else
		j->in_len = head + own - 1;
	if (j->in_len > cap)
		j->in_len = cap;
}

static void frame_job(const struct fec_info *in, const struct conv_spec *cs, struct fec_job *j,
                      uint32_t cap)
{
	const uint32_t u = in->unit_syms;

	memset(j, 0, sizeof(*j));
	switch (rnd(8)) {
	case 0:
		j->in_len = in->max_frame_syms;
		break;
	case 1: /* too long */
		j->in_len = in->max_frame_syms + u;
		break;
	case 2: /* not whole periods */
		j->in_len = rnd(in->max_frame_syms) | 1u;
		break;
	case 3: /* shorter than a terminated tail */
		j->in_len = rnd(cs->k - 1) / in->unit_bits * u;
		break;
	default:
		j->in_len = rnd(in->max_frame_syms / u + 1) * u;
	}
	if (j->in_len > cap)
		j->in_len = cap;
	j->own_len = j->in_len;
}

static void fill_input(enum input_kind kind, uint8_t *p, size_t len)
{
	static const int8_t extreme[] = {127, -127, -128, 127, 127, -128};

	for (size_t i = 0; i < len; i++) {
		switch (kind) {
		case IN_ZERO:
			p[i] = 0;
			break;
		case IN_EXTREME:
			p[i] = (uint8_t)extreme[rnd(6)];
			break;
		default:
			p[i] = (uint8_t)rnd(256);
		}
	}
}

/* One batch of JOBS on both decoders; returns the number of mismatching jobs. */
static unsigned compare(struct gpu *g, const struct fec_spec *spec, enum input_kind kind,
                        const char *name)
{
	struct fec_decoder *cpu = NULL;
	struct fecd_cuda_decoder *dec = NULL;
	const struct fec_info *info;
	char err[256];
	unsigned bad = 0, erased = 0;
	int rc;

	if (fec_decoder_create(spec, &cpu)) {
		CHECK(0, "%s: CPU decoder refused the spec", name);
		return 1;
	}
	rc = fecd_cuda_decoder_create(g->ctx, cpu, &dec, err, sizeof(err));
	CHECK(rc == 0, "%s: GPU decoder: %s", name, err);
	if (rc)
		goto out_cpu;
	info = fec_decoder_info(cpu);

	const bool s4 = kind == IN_S4;
	const uint32_t cap = info->kind == FEC_KIND_STREAM
	                         ? info->head_syms + info->block_syms + 2 * info->tail_syms + 3
	                         : info->max_frame_syms + info->unit_syms;
	const size_t stride = cap + 5, pstride = (stride + 1) / 2;
	const size_t ostride = (info->max_out_bits + 7) / 8 + 3;
	struct fec_job *jc = calloc(JOBS, sizeof(*jc)), *jg = calloc(JOBS, sizeof(*jg));
	int8_t *in = malloc(JOBS * stride);
	uint8_t *packed = malloc(JOBS * pstride), *oc = malloc(JOBS * ostride);
	uint8_t *og = malloc(JOBS * ostride);
	void *scratch = malloc(info->scratch_bytes);

	if (!jc || !jg || !in || !packed || !oc || !og || !scratch) {
		CHECK(0, "%s: out of memory", name);
		bad = 1;
		goto out_free;
	}
	for (uint32_t i = 0; i < JOBS; i++) {
		if (info->kind == FEC_KIND_STREAM)
			stream_job(info, &jc[i], cap);
		else
			frame_job(info, &spec->u.conv, &jc[i], cap);
		jc[i].status = 0xee;
		jc[i].metric = -1.0f;
		jc[i].out_bits = 0xdead;
	}
	memcpy(jg, jc, JOBS * sizeof(*jc));
	if (s4) {
		fill_input(kind, packed, JOBS * pstride);
		for (uint32_t i = 0; i < JOBS; i++)
			fec_syms_to_s8(FECD_FMT_S4_PACKED, packed + i * pstride, stride, false, 1.0f,
			               in + i * stride);
	} else {
		fill_input(kind, (uint8_t *)in, JOBS * stride);
	}
	memset(oc, 0xa5, JOBS * ostride);
	memset(og, 0xa5, JOBS * ostride);

	struct fec_batch bc = {.count = JOBS, .jobs = jc, .in = in, .in_stride = stride,
	                       .out = oc, .out_stride = ostride};
	struct fec_batch bg = {.count = JOBS, .jobs = jg, .in = s4 ? (int8_t *)packed : in,
	                       .in_stride = s4 ? pstride : stride, .out = og,
	                       .out_stride = ostride};

	CHECK(fec_decode(cpu, scratch, &bc, 0, JOBS) == 0, "%s: CPU decode", name);
	rc = fecd_cuda_lane_submit(g->lane, dec, &bg, s4 ? FECD_CUDA_IN_S4 : 0, err, sizeof(err));
	if (!rc)
		rc = fecd_cuda_lane_wait(g->lane, err, sizeof(err));
	CHECK(rc == 0, "%s: GPU decode: %s", name, err);
	if (rc) {
		bad = JOBS;
		goto out_free;
	}
	for (uint32_t i = 0; i < JOBS; i++) {
		const struct fec_job *a = &jc[i], *b = &jg[i];
		const size_t nbytes = (a->out_bits + 7) / 8;
		const bool same_bits = memcmp(oc + i * ostride, og + i * ostride, nbytes) == 0;
		bool same = a->status == b->status && a->out_bits == b->out_bits &&
		            a->soft_count == b->soft_count && a->work == b->work &&
		            memcmp(&a->metric, &b->metric, sizeof(float)) == 0 && same_bits;

		erased += a->status == FECD_STATUS_ERASED;
		if (!same && bad++ < 3)
			fprintf(stderr,
			        "%s (%s) job %u (in %u head %u own %u flags %u): CPU status %u bits "
			        "%u metric %.1f, GPU status %u bits %u metric %.1f%s\n",
			        name, input_names[kind], i, a->in_len, a->head_len, a->own_len,
			        a->flags, a->status, a->out_bits, a->metric, b->status, b->out_bits,
			        b->metric,
			        same_bits ? "" : ", bits differ");
	}
	CHECK(bad == 0, "%s (%s): %u of %d jobs differ [%s]", name, input_names[kind], bad, JOBS,
	      fecd_cuda_decoder_describe(dec));
	CHECK(erased > 0 && erased < JOBS, "%s: %u erased jobs: the batch should mix both", name,
	      erased);
out_free:
	free(jc);
	free(jg);
	free(in);
	free(packed);
	free(oc);
	free(og);
	free(scratch);
	fecd_cuda_decoder_destroy(dec);
out_cpu:
	fec_decoder_destroy(cpu);
	return bad;
}

static void set_mode(struct fec_spec *s, enum conv_mode mode, uint32_t d, uint32_t l, uint32_t m,
                     uint32_t frame)
{
	s->u.conv.mode = mode;
	s->u.conv.decode_len = d;
	s->u.conv.traceback_len = l;
	s->u.conv.head_len = m;
	s->u.conv.max_frame_bits = frame;
}

static void all_modes(struct gpu *g, const struct fec_spec *base, const char *name)
{
	static const char *const modes[] = {"stream", "terminated", "truncated"};

	for (int m = 0; m < 3; m++) {
		struct fec_spec s = *base;
		char what[200];

		set_mode(&s, (enum conv_mode)(m + 1), 64 + rnd(200), 20 + rnd(50), rnd(60),
		         50 + rnd(300));
		if (fec_family_by_id(s.family)->spec_finish(&s, NULL, 0)) {
			CHECK(0, "%s: spec_finish", name);
			continue;
		}
		snprintf(what, sizeof(what), "%s %s D=%u L=%u M=%u", name, modes[m],
		         s.u.conv.decode_len, s.u.conv.traceback_len, s.u.conv.head_len);
		compare(g, &s, (enum input_kind)rnd(IN_KINDS), what);
	}
}

/* A random finished code: K, n, polynomials tapping both ends, inversion, sometimes punctured. */
static void random_code(struct fec_spec *s, unsigned k, unsigned n)
{
	struct conv_spec *c = &s->u.conv;

	fec_family_by_id(FECD_FAMILY_VITERBI)->spec_default(s);
	c->k = (uint8_t)k;
	c->n = (uint8_t)n;
	for (unsigned r = 0; r < n; r++)
		c->polys[r] = (uint16_t)(rnd(1u << k) | 1u | 1u << (k - 1));
	if (rnd(3) == 0) /* not symmetric: one output misses an end */
		c->polys[rnd(n)] &= (uint16_t)~(rnd(2) ? 1u : 1u << (k - 1));
	if (!c->polys[0])
		c->polys[0] = 1;
	c->polys[0] |= (uint16_t)(1u | 1u << (k - 1));
	c->invert = (uint8_t)rnd(1u << n);
	c->punct_period = 1;
	if (rnd(3) == 0) {
		unsigned p = 2 + rnd(4);

		c->punct_period = (uint8_t)p;
		for (unsigned r = 0; r < n; r++)
			c->punct[r] = (uint16_t)(rnd(1u << p) | 1u << rnd(p));
		c->punct[0] |= (uint16_t)((1u << p) - 1); /* every step sends something */
	}
}

int main(void)
{
	struct gpu g = {0};
	char msg[256] = "";
	int rc;

	if (fecd_cuda_device_count(msg, sizeof(msg)) <= 0) {
		char why[300];

		snprintf(why, sizeof(why), "no CUDA device (%s)", msg[0] ? msg : "none found");
		check_skip(why);
	}
	rc = fecd_cuda_open(0, &g.ctx, msg, sizeof(msg));
	if (!rc)
		rc = fecd_cuda_lane_create(g.ctx, &g.lane, msg, sizeof(msg));
	CHECK(rc == 0, "open: %s", msg);
	if (rc)
		return check_done();
	fec_prng_seed(&prng, 20261122);

	for (unsigned i = 0; i < fec_preset_count(); i++) {
		const struct fec_preset *p = fec_preset_at(i);
		struct fec_spec s;

		if (p->family != FECD_FAMILY_VITERBI || fec_preset_apply(p->name, &s))
			continue;
		all_modes(&g, &s, p->name);
		for (int kind = 0; kind < IN_KINDS; kind++) {
			set_mode(&s, CONV_MODE_STREAM, 256, 48, 48, 100);
			if (!fec_family_by_id(s.family)->spec_finish(&s, NULL, 0))
				compare(&g, &s, (enum input_kind)kind, p->name);
		}
	}
	for (unsigned k = 3; k <= 9; k++)
		for (unsigned n = 2; n <= 4; n++)
			for (unsigned rep = 0; rep < 3; rep++) {
				struct fec_spec s;
				char name[64];

				random_code(&s, k, n);
				snprintf(name, sizeof(name), "random K=%u n=%u #%u", k, n, rep);
				all_modes(&g, &s, name);
			}
	/* The daemon's CCSDS default geometry. */
	{
		struct fec_spec s;

		fec_preset_apply("ccsds", &s);
		set_mode(&s, CONV_MODE_STREAM, 2048, 64, 64, 100);
		fec_family_by_id(s.family)->spec_finish(&s, NULL, 0);
		compare(&g, &s, IN_RANDOM, "ccsds D=2048 L=64");
		compare(&g, &s, IN_S4, "ccsds D=2048 L=64");
	}
	/* Several jobs per thread, traced back at once and one job late (the path a batch larger
	 * than the device takes): the fast kernel's FAST_THIN flag (1024) limits the grid to 64
	 * threads; 512 also makes every warp trace back at once. 27 = the default options. */
	for (int v = 0; v < 2; v++) {
		setenv("FECD_VITERBI_GPU_OPT", v ? "1563" : "1051", 1);
		for (unsigned i = 0; i < fec_preset_count(); i++) {
			const struct fec_preset *p = fec_preset_at(i);
			struct fec_spec s;

			if (p->family != FECD_FAMILY_VITERBI || fec_preset_apply(p->name, &s))
				continue;
			all_modes(&g, &s, p->name);
			set_mode(&s, CONV_MODE_STREAM, 256, 48, 48, 100);
			if (!fec_family_by_id(s.family)->spec_finish(&s, NULL, 0))
				compare(&g, &s, (enum input_kind)rnd(IN_KINDS), p->name);
		}
		for (unsigned k = 3; k <= 8; k++) {
			struct fec_spec s;
			char name[64];

			random_code(&s, k, 2 + rnd(3));
			snprintf(name, sizeof(name), "thin random K=%u", k);
			all_modes(&g, &s, name);
		}
	}
	unsetenv("FECD_VITERBI_GPU_OPT");
	fecd_cuda_lane_destroy(g.lane);
	fecd_cuda_close(g.ctx);
	return check_done();
}
