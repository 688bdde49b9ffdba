/*
 * Specs of the Viterbi family: presets, the text form both ways, geometry rounding, spec
 * comparison, and a table of bad inputs that must each fail with a message naming the parameter
 * and saying what was expected.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "fec.h"

static void presets(void)
{
	static const struct {
		const char *name;
		unsigned k, n;
		double rate;
		uint16_t poly0, poly1;
		uint8_t invert;
	} expect[] = {
	    {"ccsds", 7, 2, 1 / 2.0, 0171, 0133, 0x2},
	    {"nasa-dsn", 7, 2, 1 / 2.0, 0133, 0171, 0x1},
	    {"voyager", 7, 2, 1 / 2.0, 0133, 0171, 0},
	    {"wifi-1/2", 7, 2, 1 / 2.0, 0133, 0171, 0},
	    {"wifi-2/3", 7, 2, 2 / 3.0, 0133, 0171, 0},
	    {"wifi-3/4", 7, 2, 3 / 4.0, 0133, 0171, 0},
	    {"wifi-5/6", 7, 2, 5 / 6.0, 0133, 0171, 0},
	    {"dvbs-1/2", 7, 2, 1 / 2.0, 0171, 0133, 0},
	    {"dvbs-2/3", 7, 2, 2 / 3.0, 0171, 0133, 0},
	    {"dvbs-3/4", 7, 2, 3 / 4.0, 0171, 0133, 0},
	    {"dvbs-5/6", 7, 2, 5 / 6.0, 0171, 0133, 0},
	    {"dvbs-7/8", 7, 2, 7 / 8.0, 0171, 0133, 0},
	    {"lte", 7, 3, 1 / 3.0, 0133, 0171, 0},
	    {"gsm", 5, 2, 1 / 2.0, 023, 033, 0},
	    {"is95-fwd", 9, 2, 1 / 2.0, 0753, 0561, 0},
	    {"is95-rev", 9, 3, 1 / 3.0, 0557, 0663, 0},
	    {"cdma2000", 9, 4, 1 / 4.0, 0765, 0671, 0},
	};
	const size_t count = sizeof(expect) / sizeof(expect[0]);

	unsigned viterbi_presets = 0;

	for (unsigned i = 0; i < fec_preset_count(); i++)
		viterbi_presets += fec_preset_at(i)->family == FECD_FAMILY_VITERBI;
	CHECK(viterbi_presets == count, "%u Viterbi presets", viterbi_presets);
	for (size_t i = 0; i < count; i++) {
		struct fec_spec spec, back;
		const struct conv_spec *c = &spec.u.conv;
		char text[256], desc[256], err[256] = "";

		CHECK(fec_preset_apply(expect[i].name, &spec) == 0, "%s", expect[i].name);
		CHECK(c->k == expect[i].k && c->n == expect[i].n &&
		          c->polys[0] == expect[i].poly0 && c->polys[1] == expect[i].poly1 &&
		          c->invert == expect[i].invert,
		      "%s: K=%u n=%u %o:%o inv %x", expect[i].name, c->k, c->n, c->polys[0],
		      c->polys[1], c->invert);
		CHECK(fabs(fec_spec_rate(&spec) - expect[i].rate) < 1e-12, "%s: rate %g",
		      expect[i].name, fec_spec_rate(&spec));
		CHECK(c->mode == CONV_MODE_STREAM && c->head_len == c->traceback_len &&
		          c->decode_len % c->punct_period == 0 &&
		          c->traceback_len % c->punct_period == 0,
		      "%s: geometry D=%u L=%u M=%u", expect[i].name, c->decode_len,
		      c->traceback_len, c->head_len);
		fec_spec_to_string(&spec, text, sizeof(text));
		CHECK(fec_spec_from_string(text, &back, err, sizeof(err)) == 0, "%s -> '%s': %s",
		      expect[i].name, text, err);
		CHECK(fec_spec_equal(&spec, &back), "%s: '%s' reads back different", expect[i].name,
		      text);
		fec_family_by_id(spec.family)->spec_describe(&spec, desc, sizeof(desc));
		CHECK(strstr(desc, "K=") != NULL, "%s: describe '%s'", expect[i].name, desc);
		CHECK(fec_preset_at((unsigned)i)->description[0] != '\0', "%s description",
		      expect[i].name);
	}
	CHECK(fec_preset_apply("no-such-code", &(struct fec_spec){0}) == -FEC_EINVAL, "unknown");
}

static void text_form(void)
{
	struct fec_spec a, b;
	char text[256], err[256] = "";

	CHECK(fec_spec_from_string("ccsds", &a, err, sizeof(err)) == 0, "%s", err);
	fec_spec_to_string(&a, text, sizeof(text));
	CHECK(strcmp(text, "ccsds") == 0, "ccsds prints as '%s'", text);
	CHECK(fec_spec_from_string("viterbi", &b, err, sizeof(err)) == 0, "%s", err);
	CHECK(!fec_spec_same_code(&a, &b) && b.u.conv.invert == 0,
	      "the family's defaults invert no output (ccsds inverts G2)");
	CHECK(fec_spec_from_string("viterbi,invert=01", &b, err, sizeof(err)) == 0 &&
	          fec_spec_equal(&a, &b),
	      "the family with invert=01 is CCSDS");
	CHECK(fec_spec_from_string("dvbs-1/2", &a, err, sizeof(err)) == 0 &&
	          fec_spec_from_string("viterbi", &b, err, sizeof(err)) == 0 &&
	          fec_spec_same_code(&a, &b),
	      "the family's defaults are DVB-S's 171, 133, the textbook code");
	CHECK(fec_spec_from_string("ccsds", &a, err, sizeof(err)) == 0, "%s", err);

	CHECK(fec_spec_from_string(" ccsds , mode=terminated, max_frame_bits=1000 ", &a, err,
	                           sizeof(err)) == 0,
	      "%s", err);
	CHECK(a.u.conv.mode == CONV_MODE_TERMINATED && a.u.conv.max_frame_bits == 1000, "fields");
	fec_spec_to_string(&a, text, sizeof(text));
	CHECK(strcmp(text, "ccsds,mode=terminated,max_frame_bits=1000") == 0, "'%s'", text);
	CHECK(!fec_spec_same_code(&a, &b), "stream and frames are different decoders");

	CHECK(fec_spec_from_string("viterbi,k=5,polys=23:35,invert=none,puncture=11:10", &a, err,
	                           sizeof(err)) == 0,
	      "%s", err);
	CHECK(a.u.conv.k == 5 && a.u.conv.n == 2 && a.u.conv.polys[1] == 035 &&
	          a.u.conv.punct_period == 2 && a.u.conv.punct[0] == 3 && a.u.conv.punct[1] == 2,
	      "custom code");
	fec_spec_to_string(&a, text, sizeof(text));
	CHECK(fec_spec_from_string(text, &b, err, sizeof(err)) == 0 && fec_spec_equal(&a, &b),
	      "custom code '%s' reads back: %s", text, err);

	/* Geometry rounds up to whole puncturing periods; head_len follows traceback_len. */
	CHECK(fec_spec_from_string("dvbs-3/4,traceback_len=100", &a, err, sizeof(err)) == 0, "%s",
	      err);
	CHECK(a.u.conv.decode_len == 2049 && a.u.conv.traceback_len == 102 &&
	          a.u.conv.head_len == 102,
	      "rounded: D=%u L=%u M=%u", a.u.conv.decode_len, a.u.conv.traceback_len,
	      a.u.conv.head_len);
	CHECK(fec_spec_from_string("dvbs-7/8,head_len=10", &a, err, sizeof(err)) == 0 &&
	          a.u.conv.head_len == 14 && a.u.conv.traceback_len == 70,
	      "7/8 head %u tail %u", a.u.conv.head_len, a.u.conv.traceback_len);

	/* Same code, other geometry: a stream carries on. */
	CHECK(fec_spec_from_string("ccsds", &a, NULL, 0) == 0 &&
	          fec_spec_from_string("ccsds,decode_len=4096", &b, NULL, 0) == 0,
	      "geometry");
	CHECK(fec_spec_same_code(&a, &b) && !fec_spec_equal(&a, &b), "same code, not equal");
	CHECK(fec_spec_from_string("nasa-dsn", &b, NULL, 0) == 0 && !fec_spec_same_code(&a, &b),
	      "ccsds vs nasa-dsn");

	/* Two presets share the Voyager code: the family form is printed, and reads back. */
	CHECK(fec_spec_from_string("wifi-1/2", &a, NULL, 0) == 0, "wifi-1/2");
	fec_spec_to_string(&a, text, sizeof(text));
	CHECK(strncmp(text, "viterbi,", 8) == 0, "wifi-1/2 prints as '%s'", text);
	CHECK(fec_spec_from_string(text, &b, NULL, 0) == 0 && fec_spec_equal(&a, &b), "'%s'", text);
}

static void bad_inputs(void)
{
	static const struct {
		const char *text;
		int code;
		const char *message; /* must appear in the error */
	} cases[] = {
	    {"ccsds,k=12", -FEC_ERANGE, "k: expected an integer in 3..9, got 12"},
	    {"ccsds,k=abc", -FEC_EINVAL, "k: expected an integer in 3..9, got 'abc'"},
	    {"ccsds,k=", -FEC_EINVAL, "k: expected an integer"},
	    {"ccsds,k=9", -FEC_EINVAL, "polys: none taps the current input"},
	    {"ccsds,polys=171:133:165:117:155", -FEC_ERANGE, "polys: expected at most 4"},
	    {"ccsds,polys=171", -FEC_ERANGE, "polys: expected 2..4 octal numbers"},
	    {"ccsds,polys=171:138", -FEC_EINVAL, "polys: '138' is not an octal number"},
	    {"ccsds,polys=171:0", -FEC_ERANGE, "polys: 0 is out of range"},
	    {"ccsds,polys=1171:133", -FEC_ERANGE, "polys: 1171 is out of range"},
	    /* items are 64-bit now; the viterbi table still bounds them to 9 bits */
	    {"ccsds,polys=1777777777777777777777:133", -FEC_ERANGE,
	     "polys: 1777777777777777777777 is out of range 1..777 (octal)"},
	    {"ccsds,polys=2000000000000000000000:133", -FEC_EINVAL,
	     "polys: '2000000000000000000000' is not an octal number of at most 64 bits"},
	    {"ccsds,polys=0x79:133", -FEC_EINVAL, "polys: '0x79' is not an octal number"},
	    {"ccsds,polys=170:132", -FEC_EINVAL, "polys: none taps the oldest bit"},
	    {"ccsds,k=5,polys=171:133", -FEC_ERANGE, "polys: 171 has more than k=5 bits"},
	    {"ccsds,foo=1", -FEC_EPARAM, "unknown parameter 'foo' for viterbi"},
	    {"ccsds,k", -FEC_EINVAL, "expected key=value, got 'k'"},
	    {"no-such-code", -FEC_EFAMILY, "unknown code 'no-such-code'"},
	    {"", -FEC_EFAMILY, "unknown code ''"},
	    {"ccsds,puncture=101:11", -FEC_EINVAL, "puncture: all rows must have the same length"},
	    {"ccsds,puncture=101:110:011", -FEC_EINVAL,
	     "puncture: 3 rows given but the code "
	     "has 2 outputs"},
	    {"ccsds,puncture=10:10", -FEC_EINVAL, "puncture: step 2 sends no symbol"},
	    {"ccsds,puncture=00:11", -FEC_EINVAL, "puncture: output 1 sends nothing"},
	    {"ccsds,puncture=12:11", -FEC_EINVAL, "puncture: expected none, 2/3, 3/4"},
	    {"ccsds,puncture=11111111111111111:10000000000000000", -FEC_ERANGE,
	     "puncture: rows of 1..16 steps"},
	    {"lte,puncture=3/4", -FEC_EINVAL, "puncture: output 3 sends nothing"},
	    {"ccsds,invert=012", -FEC_EINVAL, "invert: expected one 0/1 character per output"},
	    {"ccsds,invert=111", -FEC_EINVAL, "invert: an output beyond the code's 2"},
	    {"ccsds,mode=bogus", -FEC_EINVAL,
	     "mode: expected one of stream, terminated, truncated, got 'bogus'"},
	    {"ccsds,decode_len=0", -FEC_ERANGE,
	     "decode_len: expected an integer in 1..1048576, "
	     "got 0"},
	    {"ccsds,decode_len=99999999999999999999", -FEC_EINVAL,
	     "decode_len: expected an "
	     "integer"},
	    {"ccsds,traceback_len=70000", -FEC_ERANGE,
	     "traceback_len: expected an integer in "
	     "1..65536"},
	    {"ccsds,head_len=-1", -FEC_ERANGE, "head_len: expected an integer in 0..65536"},
	    {"ccsds,max_frame_bits=0", -FEC_ERANGE, "max_frame_bits: expected an integer"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fec_spec spec, before;
		char err[256] = "";
		int ret;

		memset(&spec, 0x5a, sizeof(spec));
		before = spec;
		ret = fec_spec_from_string(cases[i].text, &spec, err, sizeof(err));
		CHECK(ret == cases[i].code, "'%s': returned %d (%s), expected %d", cases[i].text,
		      ret, fec_strerror(ret), cases[i].code);
		CHECK(strstr(err, cases[i].message) != NULL, "'%s': message '%s' lacks '%s'",
		      cases[i].text, err, cases[i].message);
		CHECK(memcmp(&spec, &before, sizeof(spec)) == 0, "'%s': output written on error",
		      cases[i].text);
	}
}

/* spec_set as the JSON path calls it: values of the wrong type are refused by name. */
static void typed_values(void)
{
	const struct fec_family_ops *ops = fec_family_by_name("viterbi");
	struct fec_spec spec;
	char err[256] = "";
	uint64_t items[] = {0171, 0133, 0165};
	struct fec_param_value v = {.type = FEC_PARAM_INT, .i = 133};

	CHECK(ops && fec_family_count() == 5 && fec_family_at(0) == ops &&
	          fec_family_by_name("ldpc") && fec_family_by_name("fano") &&
	          fec_family_by_name("nbldpc") && fec_family_by_name("ids") &&
	          fec_family_by_id(FECD_FAMILY_VITERBI) == ops && !fec_family_by_id(99),
	      "family table");
	if (!ops)
		return;
	ops->spec_default(&spec);
	CHECK(ops->spec_set(&spec, "polys", &v, err, sizeof(err)) == -FEC_EINVAL &&
	          strstr(err, "polys: expected a list of octal numbers"),
	      "INT for polys: '%s'", err);
	/* a value above 32 bits is refused by the table's bound, never cut to 16 bits */
	items[2] = (uint64_t)1 << 32 | 0165;
	v = (struct fec_param_value){.type = FEC_PARAM_OCT_LIST, .items = items, .nitems = 3};
	CHECK(ops->spec_set(&spec, "polys", &v, err, sizeof(err)) == -FEC_ERANGE &&
	          strstr(err, "polys: 40000000165 is out of range 1..777 (octal)"),
	      "polys above 32 bits: '%s'", err);
	v = (struct fec_param_value){.type = FEC_PARAM_HEX_LIST, .items = items, .nitems = 3};
	CHECK(ops->spec_set(&spec, "polys", &v, err, sizeof(err)) == -FEC_EINVAL &&
	          strstr(err, "polys: expected a list of octal numbers"),
	      "hex list for polys: '%s'", err);
	items[2] = 0165;
	v = (struct fec_param_value){.type = FEC_PARAM_OCT_LIST, .items = items, .nitems = 3};
	CHECK(ops->spec_set(&spec, "polys", &v, err, sizeof(err)) == 0 && spec.u.conv.n == 3,
	      "three polys");
	v = (struct fec_param_value){.type = FEC_PARAM_STRING, .s = "010"};
	CHECK(ops->spec_set(&spec, "invert", &v, err, sizeof(err)) == 0, "invert");
	v = (struct fec_param_value){.type = FEC_PARAM_ENUM, .i = 3};
	CHECK(ops->spec_set(&spec, "mode", &v, err, sizeof(err)) == -FEC_EINVAL &&
	          strstr(err, "mode: expected one of"),
	      "enum index 3: '%s'", err);
	CHECK(ops->spec_set(&spec, "nope", &v, err, sizeof(err)) == -FEC_EPARAM, "unknown name");
	CHECK(ops->spec_finish(&spec, err, sizeof(err)) == 0, "finish: %s", err);
	CHECK(spec.u.conv.invert == 0x2, "invert 010 is output 2");

	/* Every parameter has help, and every default reads as a value of its type. */
	for (const struct fec_param_desc *d = ops->params; d->name; d++) {
		char text[128];
		struct fec_spec s;

		CHECK(d->help && d->help[0], "%s: help", d->name);
		if (!d->def)
			continue;
		snprintf(text, sizeof(text), "viterbi,%s=%s", d->name, d->def);
		CHECK(fec_spec_from_string(text, &s, err, sizeof(err)) == 0, "default '%s': %s",
		      text, err);
	}
}

/* List items are 64 bits wide (a K=64 polynomial), in octal and in hexadecimal: each text
 * reads as its number, and the number writes back as its canonical text; wider or malformed
 * text is refused. */
static void items_64(void)
{
	static const struct {
		enum fec_param_type type;
		const char *text, *printed;
		uint64_t v;
		int ret;
	} cases[] = {
	    {FEC_PARAM_OCT_LIST, "171", "171", 0171, 0},
	    {FEC_PARAM_OCT_LIST, "1777777777777777777777", "1777777777777777777777", UINT64_MAX, 0},
	    {FEC_PARAM_OCT_LIST, "0001000000000000000000000", "1000000000000000000000",
	     (uint64_t)1 << 63, 0},
	    {FEC_PARAM_OCT_LIST, "2000000000000000000000", NULL, 0, -FEC_ERANGE},
	    {FEC_PARAM_OCT_LIST, "178", NULL, 0, -FEC_EINVAL},
	    {FEC_PARAM_OCT_LIST, "0x79", NULL, 0, -FEC_EINVAL},
	    {FEC_PARAM_OCT_LIST, "", NULL, 0, -FEC_EINVAL},
	    {FEC_PARAM_HEX_LIST, "0xf2d05351", "0xf2d05351", 0xf2d05351u, 0},
	    {FEC_PARAM_HEX_LIST, "F2D05351", "0xf2d05351", 0xf2d05351u, 0},
	    {FEC_PARAM_HEX_LIST, "0xFFFFFFFFFFFFFFFF", "0xffffffffffffffff", UINT64_MAX, 0},
	    {FEC_PARAM_HEX_LIST, "0x8000000000000001", "0x8000000000000001", (uint64_t)1 << 63 | 1,
	     0},
	    {FEC_PARAM_HEX_LIST, "0x10000000000000000", NULL, 0, -FEC_ERANGE},
	    {FEC_PARAM_HEX_LIST, "0x", NULL, 0, -FEC_EINVAL},
	    {FEC_PARAM_HEX_LIST, "0xg1", NULL, 0, -FEC_EINVAL},
	    {FEC_PARAM_INT, "1", NULL, 0, -FEC_EINVAL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		char out[32] = "";
		int ret = fec_param_item_parse(cases[i].type, cases[i].text, &v);

		CHECK(ret == cases[i].ret && (ret || v == cases[i].v), "'%s': %d %llx",
		      cases[i].text, ret, (unsigned long long)v);
		if (!cases[i].printed)
			continue;
		fec_param_item_format(cases[i].type, cases[i].v, out, sizeof(out));
		CHECK(!strcmp(out, cases[i].printed), "%llx prints as '%s', expected '%s'",
		      (unsigned long long)cases[i].v, out, cases[i].printed);
	}
}

int main(void)
{
	items_64();
	presets();
	text_form();
	bad_inputs();
	typed_values();
	return check_done();
}
