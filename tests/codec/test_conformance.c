/*
 * What every family and every preset must do, run from the codec's tables (the family table, each
 * family's parameter table and the presets: no list of codes here), so that a new family or
 * preset is tested by being added:
 *   - round trip: seeded bits through the family's encoder, noiseless, decoded by its CPU decoder
 *     (jobs cut as the daemon cuts them: overlapping stream blocks, or one frame per job, a SIMD
 *     group of frames and one more) come back as sent, every job DECODED, soft output (where
 *     the code gives it) one value per bit whose sign is the bit;
 *   - SIMD = portable: the same batch and a noisy one (AWGN at 4 dB) decoded at every SIMD level
 *     this CPU has, bit for bit against the portable code: status, out_bits, soft_count, work,
 *     metric, output bytes and soft values;
 *   - bad parameters refused: for each family, each parameter of its table set out of its range
 *     (past its bounds, an unknown choice, too many list items, too long a text), and an
 *     unknown parameter, must fail with a message that names the parameter.
 * Presets whose code file is absent (no codes folder: FECD_CODES_DIR) are skipped, saying so.
 * The GPU's side is tests/gpu/test_gpu_conformance.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conformance.h"
#include "cpu_simd.h"
#include "fec.h"

static unsigned ran, skipped, compared;

/* Decodes b at every SIMD level the CPU has and compares each with the portable decode. */
static void simd_levels(const struct conf_case *c, const struct conf_batch *b, const char *what)
{
	struct conf_result ref = {0}, r = {0};
	char why[400];
	const char *level;

	if (conf_result_alloc(c, b, &ref) || conf_result_alloc(c, b, &r)) {
		CHECK(0, "%s: out of memory", c->name);
		goto out;
	}
	fec_simd_set("portable");
	CHECK(conf_decode_cpu(c, b, &ref) == 0, "%s, %s: portable decode", c->name, what);
	for (unsigned l = FEC_SIMD_PORTABLE + 1; (level = fec_simd_level_name(l)) != NULL; l++) {
		if (!fec_simd_available(l))
			continue;
		fec_simd_set(level);
		CHECK(conf_decode_cpu(c, b, &r) == 0, "%s, %s: %s decode", c->name, what, level);
		CHECK(conf_compare(c, b, &ref, &r, 0.0f, why, sizeof(why)) == 0,
		      "%s, %s: %s = portable: %s", c->name, what, level, why);
		compared++;
	}
out:
	conf_result_free(&ref);
	conf_result_free(&r);
}

static void run_case(unsigned i, const char *best)
{
	struct conf_case c;
	struct conf_result r = {0};
	char why[400];
	int rc = conf_case_open(i, &c, why, sizeof(why));

	if (rc > 0) {
		printf("  %s\n", why);
		skipped++;
		return;
	}
	CHECK(rc == 0, "case %u: %s", i, why);
	if (rc)
		return;
	fec_simd_set(best);
	if (conf_result_alloc(&c, &c.clean, &r) == 0) {
		CHECK(conf_decode_cpu(&c, &c.clean, &r) == 0, "%s: decode", c.name);
		CHECK(conf_check_round_trip(&c, &c.clean, &r, why, sizeof(why)) == 0,
		      "%s: round trip: %s", c.name, why);
	}
	conf_result_free(&r);
	simd_levels(&c, &c.clean, "noiseless");
	simd_levels(&c, &c.noisy, "AWGN");
	printf("  %s: %zu bits in %u jobs%s\n", c.name, c.nbits, c.clean.count,
	       c.soft_stride ? ", soft output" : "");
	ran++;
	conf_case_close(&c);
}

/* A text the family builds alone: its own name, else its first preset that builds. */
static int family_base(const struct fec_family_ops *ops, char *base, size_t len)
{
	struct fec_spec spec;
	char err[256];

	snprintf(base, len, "%s", ops->name);
	if (!fec_spec_from_string(base, &spec, err, sizeof(err)))
		return 0;
	for (unsigned i = 0; i < fec_preset_count(); i++) {
		const struct fec_preset *p = fec_preset_at(i);

		snprintf(base, len, "%s", p->name);
		if (p->family == ops->family &&
		    !fec_spec_from_string(base, &spec, err, sizeof(err)))
			return 0;
	}
	return -1;
}

/* base,name=value must be refused with a message naming the parameter. */
static void refused(const char *base, const char *name, const char *value)
{
	struct fec_spec spec;
	char text[1400], err[256] = "";

	snprintf(text, sizeof(text), "%s,%s=%s", base, name, value);
	int rc = fec_spec_from_string(text, &spec, err, sizeof(err));
	CHECK(rc<0, "%s,%s=%.40s%s is refused", base, name, value, strlen(value)> 40 ? "..." : "");
	CHECK(rc == 0 || strstr(err, name), "%s,%s=%.40s: the message names %s: \"%s\"", base, name,
	      value, name, err);
}

/* Each parameter of the family's table out of its range. */
static void bad_params(const struct fec_family_ops *ops)
{
	char base[64], v[1100];
	unsigned n = 0;

	if (family_base(ops, base, sizeof(base))) {
		printf("  %s: bad parameters skipped: no code of the family builds here\n",
		       ops->name);
		skipped++;
		return;
	}
	for (const struct fec_param_desc *p = ops->params; p->name; p++, n++) {
		switch (p->type) {
		case FEC_PARAM_INT:
			if (p->max < LONG_MAX) {
				snprintf(v, sizeof(v), "%ld", p->max + 1);
				refused(base, p->name, v);
			}
			if (p->min > LONG_MIN) {
				snprintf(v, sizeof(v), "%ld", p->min - 1);
				refused(base, p->name, v);
			}
			break;
		case FEC_PARAM_REAL:
			if (p->max < LONG_MAX - FEC_PARAM_REAL_UNIT) {
				snprintf(v, sizeof(v), "%.6f",
				         (double)(p->max + FEC_PARAM_REAL_UNIT) /
				             FEC_PARAM_REAL_UNIT);
				refused(base, p->name, v);
			}
			if (p->min > LONG_MIN + FEC_PARAM_REAL_UNIT) {
				snprintf(v, sizeof(v), "%.6f",
				         (double)(p->min - FEC_PARAM_REAL_UNIT) /
				             FEC_PARAM_REAL_UNIT);
				refused(base, p->name, v);
			}
			break;
		case FEC_PARAM_ENUM:
			refused(base, p->name, "no-such-choice");
			break;
		case FEC_PARAM_BOOL:
			refused(base, p->name, "maybe");
			break;
		case FEC_PARAM_OCT_LIST:
		case FEC_PARAM_HEX_LIST: {
			char item[24];
			size_t at = 0;

			/* an item above the bound (none is, for a bound of 2^64 - 1), one item
			 * too many, and one too few where more than one is needed */
			if (fec_param_umax(p) < UINT64_MAX) {
				fec_param_item_format(p->type, fec_param_umax(p) + 1, v, sizeof(v));
				refused(base, p->name, v);
			}
			fec_param_item_format(p->type, fec_param_umax(p), item, sizeof(item));
			if (fec_param_min_items(p) > 1) {
				at = 0;
				for (unsigned k = 0; k + 1 < fec_param_min_items(p); k++)
					at += (size_t)snprintf(v + at, sizeof(v) - at, "%s%s",
					                       k ? ":" : "", item);
				refused(base, p->name, v);
				at = 0;
			}
			for (unsigned k = 0; k <= p->max_items && at + 32 < sizeof(v); k++)
				at += (size_t)snprintf(v + at, sizeof(v) - at, "%s%s", k ? ":" : "",
				                       item);
			refused(base, p->name, v);
			break;
		}
		case FEC_PARAM_CODE:
			refused(base, p->name, "(no-such-code)");
			if (p->max + 4 < (long)sizeof(v)) {
				v[0] = '(';
				memset(v + 1, 'x', (size_t)p->max + 1);
				v[p->max + 2] = ')';
				v[p->max + 3] = '\0';
				refused(base, p->name, v);
			}
			break;
		case FEC_PARAM_STRING:
			if (p->max + 2 < (long)sizeof(v)) {
				memset(v, 'x', (size_t)p->max + 1);
				v[p->max + 1] = '\0';
				refused(base, p->name, v);
			}
			break;
		}
	}
	refused(base, "no_such_parameter", "1");
	printf("  %s: %u parameters out of range refused (from %s)\n", ops->name, n, base);
}

int main(void)
{
	char best[32];

	snprintf(best, sizeof(best), "%s", fec_simd_name());
	printf("%u families, %u presets; codes folder %s; SIMD levels against portable up to %s\n",
	       fec_family_count(), fec_preset_count(), fec_codes_dir(), best);
	for (unsigned i = 0; i < conf_case_count(); i++)
		run_case(i, best);
	fec_simd_set(best);
	for (unsigned f = 0; f < fec_family_count(); f++)
		bad_params(fec_family_at(f));
	printf("%u cases ran, %u skipped; %u SIMD comparisons\n", ran, skipped, compared);
	CHECK(ran > 0, "some case ran");
	return check_done();
}
