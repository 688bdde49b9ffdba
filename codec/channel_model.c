/*
 * The table of channel models (channel_model.h) and their text form. A model added here (its
 * parameters, max_out_len, llr_mean and apply) is at once a choice of fecd-feed's
 * --channel-model and of every test that goes through the table.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awgn.h"
#include "channel_model.h"
#include "fec_impl.h"
#include "ids_code.h"

#define TEXT_MAX 256 /* longest text form accepted */

/* ---- awgn: BPSK over white Gaussian noise, one LLR 2y/sigma^2 per code bit (awgn.c). */

static const struct fec_channel_param awgn_params[] = {{NULL}};

static size_t same_len(const struct fec_channel *ch, size_t n)
{
	(void)ch;
	return n;
}

/* 2 / sigma^2, the LLR of a noiseless +1; 1, the noiseless LLR awgn gives, without noise. */
static double awgn_llr_mean(const struct fec_channel *ch)
{
	return ch->sigma > 0.0 ? 2.0 / (ch->sigma * ch->sigma) : 1.0;
}

static int awgn_apply(const struct fec_channel *ch, struct fec_prng *p, const uint8_t *bits,
                      size_t n, float *out, size_t *nout)
{
	fec_awgn_llr(p, bits, n, ch->sigma, 1.0f, out);
	*nout = n;
	return 0;
}

/* ---- bsid: the ids family's binary substitution, insertion and deletion channel (ids_code.h),
 * then BPSK over AWGN at the link's Eb/N0 on the received bits. Noiseless, its values are hard
 * bits: llr_mean makes the feed's automatic scale put them at +-127 on the wire (the ids
 * decoder's hard bits). pi stops at 0.5, pd at 0.49, so pi + pd < 1 and the received length
 * keeps within ids_bsid_max_out. */

static const struct fec_channel_param bsid_params[] = {
    {"pi", 0.0, 0.5, 0.001, "insertion probability before each bit (a random bit), 0..0.5"},
    {"pd", 0.0, 0.49, 0.001, "deletion probability of each bit, 0..0.49"},
    {"ps", 0.0, 0.5, 0.0, "substitution probability of each transmitted bit, 0..0.5"},
    {NULL},
};

static size_t bsid_max_out_len(const struct fec_channel *ch, size_t n)
{
	(void)ch;
	return ids_bsid_max_out(n);
}

static double bsid_llr_mean(const struct fec_channel *ch)
{
	return ch->sigma > 0.0 ? 2.0 / (ch->sigma * ch->sigma) : 40.0 / 127.0;
}

static int bsid_apply(const struct fec_channel *ch, struct fec_prng *p, const uint8_t *bits,
                      size_t n, float *out, size_t *nout)
{
	const struct ids_chan c = {ch->param[0], ch->param[1], ch->param[2]};
	const size_t cap = ids_bsid_max_out(n);
	uint8_t *rx = malloc(cap ? cap : 1);

	if (!rx)
		return -FEC_ENOMEM;
	ids_bsid_apply(&c, p, bits, n, rx, cap, nout);
	fec_awgn_llr(p, rx, *nout, ch->sigma, 1.0f, out);
	free(rx);
	return 0;
}

/* ---- The table. */

static const struct fec_channel_model models[] = {
    {.name = "awgn",
     .help = "BPSK over white Gaussian noise at the link's Eb/N0, one LLR per code bit",
     .params = awgn_params,
     .max_out_len = same_len,
     .llr_mean = awgn_llr_mean,
     .apply = awgn_apply},
    {.name = "bsid",
     .help = "insertions, deletions and substitutions (the ids family's BSID channel), then "
             "BPSK over AWGN at the link's Eb/N0 (hard bits when noiseless)",
     .params = bsid_params,
     .max_out_len = bsid_max_out_len,
     .llr_mean = bsid_llr_mean,
     .apply = bsid_apply},
};

#define NMODELS (sizeof(models) / sizeof(models[0]))

unsigned fec_channel_model_count(void)
{
	return NMODELS;
}

const struct fec_channel_model *fec_channel_model_at(unsigned i)
{
	return i < NMODELS ? &models[i] : NULL;
}

const struct fec_channel_model *fec_channel_model_by_name(const char *name)
{
	for (unsigned i = 0; name && i < NMODELS; i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

/* ---- Text form. */

/* "a, b, c" of the models' names, or of a model's parameters ("none"). */
static void list_models(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < NMODELS && used < len; i++)
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", models[i].name);
}

static void list_params(const struct fec_channel_model *m, char *buf, size_t len)
{
	size_t used = 0;

	snprintf(buf, len, "it takes none");
	for (unsigned i = 0; m->params[i].name && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "expected ",
		                         m->params[i].name);
}

/* One "KEY=VALUE" of model m into ch. */
static int set_param(const struct fec_channel_model *m, char *tok, struct fec_channel *ch,
                     char *err, size_t errlen)
{
	char *eq = strchr(tok, '='), *end, list[160];
	double v;

	if (!eq)
		return fec__err(err, errlen, FEC_EINVAL, "channel %s: expected KEY=VALUE, got '%s'",
		                m->name, tok);
	*eq = '\0';
	for (unsigned i = 0; m->params[i].name; i++) {
		const struct fec_channel_param *d = &m->params[i];

		if (strcmp(d->name, tok))
			continue;
		errno = 0;
		v = strtod(eq + 1, &end);
		if (!eq[1] || *end || errno || !isfinite(v) || v < d->min || v > d->max)
			return fec__err(err, errlen, FEC_ERANGE,
			                "channel %s: %s: expected a number in %g..%g, got '%s'",
			                m->name, d->name, d->min, d->max, eq + 1);
		ch->param[i] = v;
		return 0;
	}
	list_params(m, list, sizeof(list));
	return fec__err(err, errlen, FEC_EPARAM, "channel %s: unknown parameter '%s' (%s)", m->name,
	                tok, list);
}

int fec_channel_open(const char *text, const struct fec_channel_link *link, struct fec_channel *out,
                     char *err, size_t errlen)
{
	const struct fec_channel_model *m;
	struct fec_channel ch = {0};
	char buf[TEXT_MAX], list[160], *save = NULL, *tok;
	int rc;

	if (!text || !link || !out)
		return fec__err(err, errlen, FEC_EINVAL, "no channel model given");
	if (strlen(text) >= sizeof(buf))
		return fec__err(err, errlen, FEC_ELONG, "channel text longer than %zu characters",
		                sizeof(buf) - 1);
	if (!(link->rate > 0.0) || !isfinite(link->ebn0_db))
		return fec__err(err, errlen, FEC_EINVAL,
		                "channel: expected a code rate > 0 and a finite Eb/N0");
	strcpy(buf, text);
	tok = strtok_r(buf, ",", &save);
	m = fec_channel_model_by_name(tok);
	if (!m) {
		list_models(list, sizeof(list));
		return fec__err(err, errlen, FEC_EINVAL,
		                "unknown channel model '%s' (expected one of %s)", tok ? tok : "",
		                list);
	}
	ch.model = m;
	ch.link = *link;
	ch.sigma = link->noiseless ? 0.0 : fec_awgn_sigma(link->ebn0_db, link->rate);
	for (unsigned i = 0; m->params[i].name; i++)
		ch.param[i] = m->params[i].def;
	while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
		rc = set_param(m, tok, &ch, err, errlen);
		if (rc)
			return rc;
	}
	*out = ch;
	return 0;
}

size_t fec_channel_max_out_len(const struct fec_channel *ch, size_t n)
{
	return ch->model->max_out_len(ch, n);
}

double fec_channel_llr_mean(const struct fec_channel *ch)
{
	return ch->model->llr_mean(ch);
}

int fec_channel_apply(const struct fec_channel *ch, struct fec_prng *p, const uint8_t *bits,
                      size_t n, float *out, size_t *nout)
{
	if (!ch || !ch->model || !p || !nout || (n && (!bits || !out)))
		return -FEC_EINVAL;
	return ch->model->apply(ch, p, bits, n, out, nout);
}
