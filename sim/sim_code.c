/*
 * A code under simulation (sim.h): the code from the command line's text (a preset, the one-line
 * text form, or a JSON code object as channel.create takes it, rewritten into the text form so
 * that one parser checks both and names the parameter in its messages), its decoder and encoder
 * geometry, and what one simulated frame is. The channel's text is checked here too, on a
 * placeholder link, so that a bad --channel fails before any point runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim.h"

#define LONGEST_DEFAULT_FRAME 1024 /* frame_bits 0, for codes whose frames vary */
#define STREAM_PREFIX_BITS    64   /* at least K - 1 of any stream code: a random encoder state */

/* Appends text to buf (of len) at *used; -1 when it does not fit. */
static int put(char *buf, size_t len, size_t *used, const char *text)
{
	size_t n = strlen(text);

	if (*used + n >= len)
		return -1;
	memcpy(buf + *used, text, n + 1);
	*used += n;
	return 0;
}

static int json_to_text(const cJSON *obj, char *buf, size_t len, size_t *used, char *err,
                        size_t errlen);

/* Whether a string value keeps the text form's structure: its parentheses balanced (a child
 * code's text form), so that it stays one value; "7),x=(1" would add a parameter. */
static bool value_balanced(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		depth += *s == '(';
		depth -= *s == ')';
		if (depth < 0)
			return false;
	}
	return depth == 0;
}

/* Whether a key or a preset or family name is one word of the text form: not empty, none of
 * the characters that separate its parts. */
static bool name_plain(const char *s)
{
	return *s && !strpbrk(s, ",=():");
}

/* One JSON value in the text form: lists joined by ':', a nested code in parentheses, a string
 * with commas (a child code's text form) in parentheses too. */
static int value_to_text(const char *key, const cJSON *v, char *buf, size_t len, size_t *used,
                         char *err, size_t errlen)
{
	char num[64];

	if (cJSON_IsString(v)) {
		bool wrap = strchr(v->valuestring, ',') != NULL;

		if (!value_balanced(v->valuestring)) {
			snprintf(err, errlen, "code.%s: unbalanced parentheses in \"%.40s\"", key,
			         v->valuestring);
			return -1;
		}

		if ((wrap && put(buf, len, used, "(")) || put(buf, len, used, v->valuestring) ||
		    (wrap && put(buf, len, used, ")")))
			goto too_long;
		return 0;
	}
	if (cJSON_IsBool(v))
		return put(buf, len, used, cJSON_IsTrue(v) ? "true" : "false") ? -1 : 0;
	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;

		if (d == floor(d) && fabs(d) < 9007199254740992.0)
			snprintf(num, sizeof(num), "%.0f", d);
		else
			snprintf(num, sizeof(num), "%.17g", d);
		return put(buf, len, used, num) ? -1 : 0;
	}
	if (cJSON_IsArray(v)) {
		const cJSON *item;
		bool first = true;

		cJSON_ArrayForEach(item, v)
		{
			if (cJSON_IsArray(item) || cJSON_IsObject(item)) {
				snprintf(err, errlen,
				         "code.%s: expected a list of numbers or strings", key);
				return -1;
			}
			if ((!first && put(buf, len, used, ":")) ||
			    value_to_text(key, item, buf, len, used, err, errlen))
				goto too_long;
			first = false;
		}
		return 0;
	}
	if (cJSON_IsObject(v)) {
		if (put(buf, len, used, "(") || json_to_text(v, buf, len, used, err, errlen) ||
		    put(buf, len, used, ")"))
			goto too_long;
		return 0;
	}
	snprintf(err, errlen, "code.%s: expected a string, number, boolean, list or code object",
	         key);
	return -1;
too_long:
	if (!*err)
		snprintf(err, errlen, "code: longer than %zu characters as text", len - 1);
	return -1;
}

/* {"preset": P, KEY: VALUE...} or {"family": F, ...} -> "P,KEY=VALUE,...". */
static int json_to_text(const cJSON *obj, char *buf, size_t len, size_t *used, char *err,
                        size_t errlen)
{
	const cJSON *base = cJSON_GetObjectItemCaseSensitive(obj, "preset"), *v;

	if (!base)
		base = cJSON_GetObjectItemCaseSensitive(obj, "family");
	if (!cJSON_IsString(base) || !name_plain(base->valuestring)) {
		snprintf(err, errlen,
		         "code: expected \"preset\" or \"family\" as a name (a string without "
		         "',', '=', '(', ')' or ':')");
		return -1;
	}
	if (put(buf, len, used, base->valuestring))
		goto too_long;
	cJSON_ArrayForEach(v, obj)
	{
		if (v == base)
			continue;
		if (!strcmp(v->string, "preset") || !strcmp(v->string, "family")) {
			snprintf(err, errlen,
			         "code: expected one of \"preset\" and \"family\", not both");
			return -1;
		}
		if (!name_plain(v->string)) {
			snprintf(
			    err, errlen,
			    "code: expected parameter names without ',', '=', '(', ')' or ':', "
			    "found \"%.40s\"",
			    v->string);
			return -1;
		}
		if (put(buf, len, used, ",") || put(buf, len, used, v->string) ||
		    put(buf, len, used, "="))
			goto too_long;
		if (value_to_text(v->string, v, buf, len, used, err, errlen))
			return -1;
	}
	return 0;
too_long:
	snprintf(err, errlen, "code: longer than %zu characters as text", len - 1);
	return -1;
}

int sim_code_text(const char *text, char *buf, size_t len, char *err, size_t errlen)
{
	const char *p = text;
	size_t used = 0;
	cJSON *obj;
	int rc;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p != '{') {
		if (strlen(text) >= len) {
			snprintf(err, errlen, "code: longer than %zu characters", len - 1);
			return -1;
		}
		strcpy(buf, text);
		return 0;
	}
	obj = cJSON_Parse(p);
	if (!obj || !cJSON_IsObject(obj)) {
		snprintf(err, errlen, "code: not a JSON object (near '%.20s')",
		         cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : p);
		cJSON_Delete(obj);
		return -1;
	}
	buf[0] = '\0';
	err[0] = '\0';
	rc = json_to_text(obj, buf, len, &used, err, errlen);
	cJSON_Delete(obj);
	return rc;
}

/* A frame of a code whose frames vary (viterbi terminated or truncated): exactly want bits, or
 * (want 0) the longest of at most LONGEST_DEFAULT_FRAME bits that the encoder takes (a punctured
 * code's frames fill whole periods, tail included; at most max_frame_bits), the length the GPU
 * engine is told (fecd_cuda_sim_set_frame_bits). */
static int pick_frame_bits(struct sim_code *c, uint32_t want, char *err, size_t errlen)
{
	struct fec_encoder *enc;
	uint32_t top = want ? want : LONGEST_DEFAULT_FRAME;
	uint32_t low = want ? want : (top > 64 ? top - 64 : 1);
	uint8_t *bits, *out;
	int rc = fec_encoder_create(&c->spec, &enc);

	if (rc) {
		snprintf(err, errlen, "code '%s': no encoder: %s", c->text, fec_strerror(rc));
		return -1;
	}
	if (!want && c->info.max_out_bits < top) {
		top = c->info.max_out_bits;
		low = top > 64 ? top - 64 : 1;
	}
	bits = calloc(top + 1, 1);
	out = malloc(fec_encoded_len(&c->spec, top) + 1);
	rc = -1;
	for (uint32_t n = top; bits && out && n >= low; n--) {
		size_t nout = 0;

		if (fec_encode(enc, bits, n, out, &nout) == 0 &&
		    (!c->info.max_frame_syms || nout <= c->info.max_frame_syms)) {
			c->frame_bits = c->info_bits = n;
			c->code_syms = (uint32_t)nout;
			rc = 0;
			break;
		}
	}
	if (rc && want)
		snprintf(err, errlen,
		         "--frame-bits %u: code '%s' takes no frame of that length (frames of a "
		         "punctured code fill whole periods, tail included; at most its "
		         "max_frame_bits)",
		         want, c->text);
	else if (rc)
		snprintf(err, errlen, "code '%s': found no frame length near %u bits that it takes",
		         c->text, top);
	free(bits);
	free(out);
	fec_encoder_destroy(enc);
	return rc;
}

/* Whether a frame code's output starts with its information bits, which the engines compare:
 * true where the output is the information alone, or a codeword whose information is its first
 * info_bits bits, all sent (fec_decoder_info_ranges). */
static bool output_info_first(const struct sim_code *c)
{
	struct fec_info_range r[2];
	uint32_t unsent = 0;

	if (c->info.max_out_bits <= c->info_bits)
		return true;
	return fec_decoder_info_ranges(c->dec, r, 2, &unsent) == 1 && !unsent && r[0].first == 0 &&
	       r[0].last + 1 >= c->info_bits;
}

/* Stream geometry: a random prefix (encoder state), the head, the counted bits, the tail. */
static int stream_geometry(struct sim_code *c, char *err, size_t errlen)
{
	const struct fec_info *in = &c->info;
	uint32_t units = (STREAM_PREFIX_BITS + in->unit_bits - 1) / in->unit_bits;

	if (!in->unit_syms || !in->unit_bits || !in->block_syms) {
		snprintf(err, errlen, "code '%s': a stream code without block geometry", c->text);
		return -1;
	}
	c->skip_syms = units * in->unit_syms;
	c->head_bits = in->head_syms / in->unit_syms * in->unit_bits;
	c->info_bits = in->block_syms / in->unit_syms * in->unit_bits;
	c->frame_bits = units * in->unit_bits + c->head_bits + c->info_bits +
	                in->tail_syms / in->unit_syms * in->unit_bits;
	c->code_syms = in->head_syms + in->block_syms + in->tail_syms;
	c->info_at = units * in->unit_bits + c->head_bits;
	return 0;
}

int sim_code_open(struct sim_code *c, const char *text, const char *channel, bool all_zero,
                  uint32_t frame_bits, char *err, size_t errlen)
{
	struct fec_channel ch;
	const struct fec_channel_link link = {.ebn0_db = 0.0, .rate = 0.5};
	char msg[1024];
	int rc;

	memset(c, 0, sizeof(*c));
	if (sim_code_text(text, c->text, sizeof(c->text), err, errlen))
		return -1;
	if (fec_spec_from_string(c->text, &c->spec, msg, sizeof(msg))) {
		snprintf(err, errlen, "code '%s': %s", text, msg);
		return -1;
	}
	fec_spec_to_string(&c->spec, c->text, sizeof(c->text));
	fec_family_by_id(c->spec.family)->spec_describe(&c->spec, c->describe, sizeof(c->describe));
	rc = fec_decoder_create(&c->spec, &c->dec);
	if (rc) {
		snprintf(err, errlen, "code '%s': %s", text, fec_strerror(rc));
		return -1;
	}
	c->info = *fec_decoder_info(c->dec);
	c->rate = fec_spec_rate(&c->spec);
	c->stream = c->info.kind == FEC_KIND_STREAM;
	if (snprintf(c->channel, sizeof(c->channel), "%s", channel) >= (int)sizeof(c->channel) ||
	    fec_channel_open(channel, &link, &ch, msg, sizeof(msg))) {
		snprintf(err, errlen, "--channel: %s",
		         strlen(channel) >= sizeof(c->channel) ? "too long" : msg);
		goto fail;
	}
	if (all_zero && !c->info.all_zero_valid) {
		snprintf(err, errlen,
		         "--all-zero: the %s family does not declare the all-zero codeword valid "
		         "for its codes (it is no linear code with a decoder symmetric in its "
		         "input); simulate random information bits instead",
		         fec_family_by_id(c->spec.family)->name);
		goto fail;
	}
	if (all_zero && strcmp(ch.model->name, "awgn")) {
		snprintf(err, errlen,
		         "--all-zero: only over awgn (channel %s treats the bits it "
		         "carries unequally)",
		         ch.model->name);
		goto fail;
	}
	c->all_zero = all_zero;
	if (c->stream) {
		if (stream_geometry(c, err, errlen))
			goto fail;
	} else if (c->info.frame_info_bits) {
		c->frame_bits = c->info_bits = c->info.frame_info_bits;
		c->code_syms = (uint32_t)fec_encoded_len(&c->spec, c->frame_bits);
		if (!output_info_first(c)) {
			snprintf(err, errlen,
			         "code '%s': its decoder outputs whole codewords whose first %u bits "
			         "are not the information bits (ldpc output=codeword on a code whose "
			         "information columns are not the first k); simulate it with "
			         "output=info",
			         c->text, c->info_bits);
			goto fail;
		}
	} else {
		c->frames_vary = true;
		if (pick_frame_bits(c, frame_bits, err, errlen))
			goto fail;
	}
	/* Eb/N0 counts the energy of every code bit sent per information bit: a frame's rate is
	 * its information bits over its code bits (a terminated frame's tail included); a stream
	 * job's is the code's */
	if (!c->stream && c->code_syms)
		c->rate = (double)c->info_bits / (double)c->code_syms;
	c->max_rx = (uint32_t)fec_channel_max_out_len(&ch, c->code_syms);
	return 0;
fail:
	fec_decoder_destroy(c->dec);
	c->dec = NULL;
	return -1;
}

void sim_code_close(struct sim_code *c)
{
	if (c->dec)
		fec_decoder_destroy(c->dec);
	c->dec = NULL;
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t sim_frame_seed(uint64_t seed, uint32_t point, uint64_t i)
{
	uint64_t h = mix64(seed + 0x9e3779b97f4a7c15ull);

	h = mix64(h ^ ((uint64_t)point * 0xd1b54a32d192ed03ull + 0x8cb92ba72f3d8dd7ull));
	return mix64(h ^ (i * 0x9e3779b97f4a7c15ull));
}

double sim_esn0_to_ebn0(double esn0_db, double rate)
{
	return esn0_db - 10.0 * log10(rate);
}

void sim_wilson95(uint64_t k, uint64_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054, z2 = z * z;

	if (n == 0) {
		*lo = 0.0;
		*hi = 1.0;
		return;
	}
	double p = (double)k / (double)n, nn = (double)n;
	double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
	double half = z / (1 + z2 / nn) * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));

	*lo = k == 0 ? 0.0 : fmax(0.0, centre - half);
	*hi = k == n ? 1.0 : fmin(1.0, centre + half);
}

void sim_ber_frames95(const struct sim_tally *t, double *lo, double *hi)
{
	/* Student t's 97.5 % quantiles for 1 .. 29 degrees of freedom */
	static const double t975[30] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
	                                2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
	                                2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
	                                2.064, 2.060,  2.056, 2.052, 2.048, 2.045};

	*lo = 0.0;
	*hi = 1.0;
	if (t->frames < 2 || t->bits == 0)
		return;
	double n = (double)t->frames, per = (double)t->bits / n; /* bits per frame */
	double e = (double)t->bit_errors, mean = e / (double)t->bits;
	/* the frames' bit errors: sum of squares less n times the squared mean, over n - 1 */
	double var = ((double)t->bit_errors_sq - e * e / n) / (n - 1.0) / (per * per);
	double q = t->frames < 30 ? t975[t->frames - 1] : 1.959963984540054;
	double half = q * sqrt(fmax(var, 0.0) / n);

	*lo = fmax(0.0, mean - half);
	*hi = fmin(1.0, mean + half);
}

const char *sim_stop_name(enum sim_stop_why why)
{
	switch (why) {
	case SIM_STOP_MIN_FE:
		return "min-fe";
	case SIM_STOP_MAX_FRAMES:
		return "max-frames";
	case SIM_STOP_SECONDS:
		return "seconds";
	case SIM_STOP_SIGNAL:
		return "signal";
	}
	return "?";
}
