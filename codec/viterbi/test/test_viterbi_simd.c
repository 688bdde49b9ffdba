/*
 * Every SIMD level of the Viterbi decoder against the portable reference, bit for bit: random
 * codes of every K and n (symmetric or not, inverted outputs, random puncturing), every preset,
 * all three modes, stream jobs with and without a known start, frames of every length including
 * ones that must come back erased, and inputs chosen to break int16 arithmetic: pure noise, all
 * +-127, all 0 (ties everywhere), and long frames of full-scale symbols. Batches come mixed (jobs
 * of every geometry) and uniform (runs of jobs whose stages agree, which the two- and four-job
 * passes of AVX2 and AVX-512 take together, with starts known or not per job). Out bits, out_bits,
 * status and metric must be identical. Skips (77) when the CPU has no SIMD level.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_simd.h"
#include "fec.h"
#include "prng.h"

#define JOBS 12

enum fill { FILL_NOISE, FILL_SIGNAL, FILL_MAX, FILL_MIN, FILL_ZERO, FILL_EXTREMES, FILL_KINDS };

static const char *const fill_names[] = {"noise",    "signal+noise", "all +127",
                                         "all -127", "all 0",        "random +-127/0"};

static unsigned levels[FEC_SIMD_LEVELS], nlevels;
static unsigned long compared;

static int8_t sym_of(struct fec_prng *p, enum fill f)
{
	switch (f) {
	case FILL_NOISE:
		return (int8_t)((int)(fec_prng_next(p) % 255) - 127);
	case FILL_SIGNAL: {
		int v = (fec_prng_next(p) & 1 ? 60 : -60) + (int)(fec_prng_next(p) % 121) - 60;

		return (int8_t)v;
	}
	case FILL_MAX:
		return 127;
	case FILL_MIN:
		return -127;
	case FILL_ZERO:
		return 0;
	default:
		return (int8_t)((int)(fec_prng_next(p) % 3) * 127 - 127);
	}
}

/* Decodes the batch at every level and compares each with the portable one. */
static void compare_levels(const struct fec_decoder *dec, struct fec_batch *b, const char *what)
{
	const size_t out_bytes = (size_t)b->count * b->out_stride;
	struct fec_job ref_jobs[JOBS], *jobs = b->jobs;
	uint8_t *ref = malloc(out_bytes), *out = b->out;
	void *scratch = malloc(fec_decoder_info(dec)->scratch_bytes);

	if (!ref || !scratch) {
		CHECK(0, "out of memory");
		goto out_free;
	}
	fec_simd_set("portable");
	memset(out, 0xA5, out_bytes);
	CHECK(fec_decode(dec, scratch, b, 0, b->count) == 0, "%s: portable decode", what);
	memcpy(ref, out, out_bytes);
	memcpy(ref_jobs, jobs, b->count * sizeof(*jobs));
	for (unsigned l = 0; l < nlevels; l++) {
		const char *name = fec_simd_level_name(levels[l]);

		fec_simd_set(name);
		memset(out, 0xA5, out_bytes);
		CHECK(fec_decode(dec, scratch, b, 0, b->count) == 0, "%s: %s decode", what, name);
		for (uint32_t i = 0; i < b->count; i++) {
			const struct fec_job *r = &ref_jobs[i], *j = &jobs[i];

			compared++;
			CHECK(j->status == r->status && j->out_bits == r->out_bits,
			      "%s, %s, job %u: status %u, %u bits; portable %u, %u bits", what,
			      name, i, j->status, j->out_bits, r->status, r->out_bits);
			CHECK(memcmp(&j->metric, &r->metric, sizeof(float)) == 0,
			      "%s, %s, job %u: metric %.1f, portable %.1f", what, name, i,
			      (double)j->metric, (double)r->metric);
			CHECK(memcmp(out + i * b->out_stride, ref + i * b->out_stride,
			             b->out_stride) == 0,
			      "%s, %s, job %u: bits differ from portable", what, name, i);
		}
	}
out_free:
	free(ref);
	free(scratch);
}

/* A batch of jobs of random geometry over random symbols of one kind, at every level; when
 * uniform, all jobs but two (the sixth and the last) share one geometry. */
static void random_batch(const struct fec_spec *spec, struct fec_prng *p, enum fill f,
                         const char *name, bool uniform)
{
	struct fec_decoder *dec = NULL;
	const struct fec_info *info;
	struct fec_job jobs[JOBS];
	struct fec_batch b = {.count = JOBS, .jobs = jobs};
	char what[300];
	size_t slot;
	uint32_t common;

	snprintf(what, sizeof(what), "%s, %s%s", name, fill_names[f], uniform ? ", uniform" : "");
	if (fec_decoder_create(spec, &dec)) {
		CHECK(0, "%s: decoder", what);
		return;
	}
	info = fec_decoder_info(dec);
	slot = info->kind == FEC_KIND_STREAM ? info->head_syms + info->block_syms + info->tail_syms
	                                     : info->max_frame_syms;
	b.in_stride = slot + 8;
	b.out_stride = (info->max_out_bits + 7) / 8 + 1;
	b.in = malloc(JOBS * b.in_stride);
	b.out = malloc(JOBS * b.out_stride);
	if (!b.in || !b.out)
		goto out_free;
	for (size_t i = 0; i < JOBS * b.in_stride; i++)
		((int8_t *)b.in)[i] = sym_of(p, f);
	common = (uint32_t)(fec_prng_next(p) % (info->max_frame_syms + 1));
	common -= common % info->unit_syms;
	for (unsigned i = 0; i < JOBS; i++) {
		const uint32_t u = info->unit_syms;
		uint64_t r = fec_prng_next(p);
		const bool varied = !uniform || i == 5;

		memset(&jobs[i], 0, sizeof(jobs[i]));
		if (info->kind == FEC_KIND_STREAM) {
			/* Mostly full jobs; some with a short head (stream start), own part or
			 * tail (stream end), one with a head that is not whole periods. */
			uint32_t head = info->head_syms, own = info->block_syms,
			         tail = info->tail_syms;

			if (varied && r % 4 == 0)
				head = (uint32_t)(fec_prng_next(p) % (head / u + 1)) * u;
			if ((varied && r % 5 == 1) || (uniform && i == 5))
				own = (uint32_t)(fec_prng_next(p) % (own / u) + 1) * u;
			if (varied && r % 3 == 2)
				tail = (uint32_t)(fec_prng_next(p) % (tail + 1));
			if (i == JOBS - 1 && u > 1 && head)
				head -= 1;
			jobs[i].head_len = head;
			jobs[i].own_len = own;
			jobs[i].in_len = head + own + tail;
			jobs[i].flags = (r >> 8 & 1 ? FEC_JOB_STREAM_START : 0) |
			                (tail < info->tail_syms ? FEC_JOB_STREAM_END : 0);
		} else {
			/* Lengths anywhere up to the largest frame, and a few at the edges
			 * (uniform: one length, the sixth job's whole periods, the last's any). */
			uint32_t len = (uint32_t)(fec_prng_next(p) % (info->max_frame_syms + 1));

			if (uniform) {
				if (i == 5)
					len -= len % u;
				else if (i != JOBS - 1)
					len = common;
			} else if (i == 0)
				len = info->max_frame_syms;
			else if (i == 1)
				len = 0;
			else if (i < 4)
				len = (uint32_t)(i * u);
			else if (i != JOBS - 1)
				len -= len % u;
			jobs[i].in_len = jobs[i].own_len = len;
		}
	}
	compare_levels(dec, &b, what);
out_free:
	free((void *)b.in);
	free(b.out);
	fec_decoder_destroy(dec);
}

static void all_modes(const struct fec_spec *base, struct fec_prng *p, const char *name,
                      bool every_fill)
{
	static const char *const modes[] = {"stream", "terminated", "truncated"};

	for (unsigned m = 0; m < 3; m++) {
		struct fec_spec spec = *base;
		char what[200];

		spec.u.conv.mode = (enum conv_mode)(m + 1);
		spec.u.conv.decode_len = 96 + (uint32_t)(fec_prng_next(p) % 200);
		spec.u.conv.traceback_len = 20 + (uint32_t)(fec_prng_next(p) % 60);
		spec.u.conv.head_len = (uint32_t)(fec_prng_next(p) % 60);
		spec.u.conv.max_frame_bits = 50 + (uint32_t)(fec_prng_next(p) % 400);
		if (fec_family_by_id(spec.family)->spec_finish(&spec, NULL, 0)) {
			CHECK(0, "%s %s: spec", name, modes[m]);
			continue;
		}
		snprintf(what, sizeof(what), "%s %s", name, modes[m]);
		for (unsigned f = 0; f < FILL_KINDS; f++)
			if (every_fill || f == FILL_NOISE || f == FILL_SIGNAL ||
			    fec_prng_next(p) % 3 == 0)
				random_batch(&spec, p, (enum fill)f, what, false);
		random_batch(&spec, p, FILL_NOISE, what, true);
		random_batch(&spec, p, FILL_SIGNAL, what, true);
	}
}

/* Random codes: any polynomials the spec accepts (catastrophic ones too: only equality is
 * checked), random inversion, and for some a random puncturing pattern. */
static void random_codes(struct fec_prng *p)
{
	for (unsigned k = CONV_K_MIN; k <= CONV_K_MAX; k++) {
		for (unsigned n = CONV_N_MIN; n <= CONV_N_MAX; n++) {
			for (unsigned variant = 0; variant < 3; variant++) {
				struct fec_spec spec;
				struct conv_spec *c = &spec.u.conv;
				char name[120];

				fec_spec_from_string("viterbi", &spec, NULL, 0);
				c->k = (uint8_t)k;
				c->n = (uint8_t)n;
				for (unsigned r = 0; r < n; r++) {
					c->polys[r] =
					    (uint16_t)(fec_prng_next(p) & ((1u << k) - 1));
					/* variant 0: every polynomial taps both ends (symmetric) */
					if (variant == 0 || r == 0)
						c->polys[r] |= (uint16_t)(1u | 1u << (k - 1));
					if (!c->polys[r])
						c->polys[r] = 1;
				}
				c->invert = (uint8_t)(fec_prng_next(p) & ((1u << n) - 1));
				c->punct_period = 1;
				if (variant == 2) {
					unsigned period = 2 + (unsigned)(fec_prng_next(p) % 7);

					c->punct_period = (uint8_t)period;
					for (unsigned r = 0; r < n; r++)
						c->punct[r] = (uint16_t)(fec_prng_next(p) &
						                         ((1u << period) - 1));
					/* every step sends output 0's symbol */
					c->punct[0] = (uint16_t)((1u << period) - 1);
					for (unsigned r = 1; r < n; r++)
						if (!c->punct[r])
							c->punct[r] = 1;
				}
				snprintf(name, sizeof(name),
				         "K=%u n=%u polys %o:%o:%o:%o inv %x punct %u", k, n,
				         c->polys[0], c->polys[1], c->polys[2], c->polys[3],
				         c->invert, c->punct_period);
				all_modes(&spec, p, name, variant == 0);
			}
		}
	}
}

/* Long frames of full-scale symbols, where metrics grow fastest and int16 renormalisation is
 * exercised most: K=9 with 4 outputs, and CCSDS. */
static void long_frames(struct fec_prng *p)
{
	static const char *const codes[] = {
	    "k=9,polys=753:561:711:657,invert=01,mode=truncated,max_frame_bits=60000",
	    "k=9,polys=753:561:711:657,invert=01,mode=terminated,max_frame_bits=60000",
	    "ccsds,mode=truncated,max_frame_bits=60000",
	    "k=9,polys=753:561,invert=01,mode=stream,decode_len=30000,traceback_len=200",
	};

	for (unsigned i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct fec_spec spec;
		char text[160];

		snprintf(text, sizeof(text), "viterbi,%s", codes[i]);
		if (fec_spec_from_string(strstr(codes[i], "ccsds") ? codes[i] : text, &spec, NULL,
		                         0)) {
			CHECK(0, "spec %s", codes[i]);
			continue;
		}
		random_batch(&spec, p, FILL_MAX, codes[i], false);
		random_batch(&spec, p, FILL_MIN, codes[i], false);
		random_batch(&spec, p, FILL_EXTREMES, codes[i], false);
		random_batch(&spec, p, FILL_EXTREMES, codes[i], true);
	}
}

int main(void)
{
	struct fec_prng prng;

	for (unsigned l = 1; fec_simd_level_name(l); l++)
		if (fec_simd_available(l))
			levels[nlevels++] = l;
	if (!nlevels)
		check_skip("this CPU or build has no SIMD level to compare with portable");
	fec_prng_seed(&prng, 2024);
	for (unsigned i = 0; i < fec_preset_count(); i++) {
		const struct fec_preset *pr = fec_preset_at(i);
		struct fec_spec spec;

		if (pr->family != FECD_FAMILY_VITERBI)
			continue;
		CHECK(fec_preset_apply(pr->name, &spec) == 0, "preset %s", pr->name);
		all_modes(&spec, &prng, pr->name, true);
	}
	random_codes(&prng);
	long_frames(&prng);
	printf("%lu jobs compared over %u SIMD level(s):", compared, nlevels);
	for (unsigned l = 0; l < nlevels; l++)
		printf(" %s", fec_simd_level_name(levels[l]));
	printf("\n");
	return check_done();
}
