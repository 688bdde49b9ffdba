/*
 * The table of channel models (codec/channel_model.h): every model well described (a unique name,
 * help, parameters whose defaults lie in their bounds) and well behaved (no more values than
 * max_out_len says, every one finite, the same output for the same PRNG state); the text form's
 * refusals name what was wrong; and awgn gives exactly what fec_awgn_llr gives on the same noise,
 * which is what fecd-feed sent before there were models, with noise and without.
 */
#include <math.h>
#include <string.h>

#include "awgn.h"
#include "channel_model.h"
#include "check.h"
#include "fec.h"
#include "prng.h"

#define N 4096

static uint8_t bits[N];
static float out[4 * N + 64], again[4 * N + 64], ref[N];

static void table(void)
{
	const struct fec_channel_link link = {.ebn0_db = 3.0, .rate = 0.5};

	CHECK(fec_channel_model_count() >= 1, "at least one model");
	CHECK(fec_channel_model_by_name("awgn") == fec_channel_model_at(0),
	      "awgn is the first model (fecd-feed's default)");
	CHECK(!fec_channel_model_at(fec_channel_model_count()), "no model past the count");
	for (unsigned i = 0; i < fec_channel_model_count(); i++) {
		const struct fec_channel_model *m = fec_channel_model_at(i);
		struct fec_channel ch;
		struct fec_prng p1, p2;
		char err[256] = "";
		size_t n1 = 0, n2 = 0;
		unsigned np = 0;

		CHECK(m->name && m->help && m->help[0], "model %u named and described", i);
		CHECK(fec_channel_model_by_name(m->name) == m, "%s found by its name", m->name);
		CHECK(m->max_out_len && m->llr_mean && m->apply, "%s: every operation", m->name);
		for (const struct fec_channel_param *d = m->params; d->name; d++, np++)
			CHECK(d->min <= d->def && d->def <= d->max && d->help && d->help[0],
			      "%s.%s: default within its bounds, described", m->name, d->name);
		CHECK(np <= FEC_CHANNEL_MAX_PARAMS, "%s: %u parameters fit", m->name, np);
		CHECK(fec_channel_open(m->name, &link, &ch, err, sizeof(err)) == 0,
		      "%s opens on its defaults: %s", m->name, err);
		fec_prng_seed(&p1, 11);
		fec_prng_bits(&p1, bits, N);
		fec_prng_seed(&p1, 12);
		p2 = p1;
		CHECK(fec_channel_apply(&ch, &p1, bits, N, out, &n1) == 0 &&
		          fec_channel_apply(&ch, &p2, bits, N, again, &n2) == 0,
		      "%s applies", m->name);
		CHECK(n1 <= fec_channel_max_out_len(&ch, N) && n1 == n2 &&
		          !memcmp(out, again, n1 * sizeof(float)),
		      "%s: %zu values, at most max_out_len, the same for the same noise", m->name,
		      n1);
		bool finite = true;
		for (size_t j = 0; j < n1; j++)
			finite = finite && isfinite(out[j]);
		CHECK(finite && fec_channel_llr_mean(&ch) > 0.0, "%s: finite values and LLR mean",
		      m->name);
	}
}

static void refusals(void)
{
	static const struct {
		const char *text, *message;
		int code;
	} cases[] = {
	    {"nope", "unknown channel model 'nope' (expected one of awgn", -FEC_EINVAL},
	    {"", "unknown channel model '' (expected one of", -FEC_EINVAL},
	    {"awgn,pi=0.1", "channel awgn: unknown parameter 'pi' (it takes none)", -FEC_EPARAM},
	    {"awgn,pi", "channel awgn: expected KEY=VALUE, got 'pi'", -FEC_EINVAL},
	};
	const struct fec_channel_link link = {.ebn0_db = 3.0, .rate = 0.5};
	const struct fec_channel_link bad_rate = {.ebn0_db = 3.0, .rate = 0.0};
	struct fec_channel ch;
	char err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		CHECK(fec_channel_open(cases[i].text, &link, &ch, err, sizeof(err)) ==
		              cases[i].code &&
		          strstr(err, cases[i].message),
		      "'%s' refused with '%s': got '%s'", cases[i].text, cases[i].message, err);
	}
	CHECK(fec_channel_open("awgn", &bad_rate, &ch, err, sizeof(err)) == -FEC_EINVAL &&
	          strstr(err, "code rate"),
	      "a rate of 0 refused: '%s'", err);
}

/* awgn against fec_awgn_llr on the same noise, bit for bit. */
static void awgn_unchanged(void)
{
	static const struct {
		double ebn0, rate;
		bool noiseless;
	} links[] = {{4.0, 0.5}, {1.5, 0.75}, {7.0, 1.0 / 3}, {0.0, 0.5, true}};

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		const struct fec_channel_link link = {links[i].ebn0, links[i].rate,
		                                      links[i].noiseless};
		const double sigma = link.noiseless ? 0.0 : fec_awgn_sigma(link.ebn0_db, link.rate);
		struct fec_channel ch;
		struct fec_prng p1, p2;
		size_t n = 0;

		CHECK(fec_channel_open("awgn", &link, &ch, NULL, 0) == 0, "awgn opens");
		fec_prng_seed(&p1, 100 + i);
		fec_prng_bits(&p1, bits, N);
		p2 = p1;
		CHECK(fec_channel_apply(&ch, &p1, bits, N, out, &n) == 0 && n == N,
		      "awgn: one value per bit");
		fec_awgn_llr(&p2, bits, N, sigma, 1.0f, ref);
		CHECK(ch.sigma == sigma && !memcmp(out, ref, sizeof(ref)) &&
		          !memcmp(p1.s, p2.s, sizeof(p1.s)) && p1.have_spare == p2.have_spare,
		      "link %zu: awgn is fec_awgn_llr bit for bit, the noise drawn alike", i);
		CHECK(fec_channel_llr_mean(&ch) == (sigma > 0 ? 2.0 / (sigma * sigma) : 1.0),
		      "link %zu: LLR mean 2/sigma^2 (1 noiseless)", i);
		CHECK(fec_channel_max_out_len(&ch, 12345) == 12345, "awgn keeps the length");
	}
}

int main(void)
{
	table();
	refusals();
	awgn_unchanged();
	return check_done();
}
