/*
 * The frame families' common block (codec/fec_frame.c: in, llr_scale, framing, asm,
 * asm_threshold, asm_lock_threshold, asm_flywheel): appended once to each frame family's
 * parameter table and to no other family's; set, printed and read back through the text form
 * like a family's own parameters; bad values refused with a message that names the parameter;
 * handed to the decoder's fec_info (the daemon's only view of it); and the framing part of "the
 * same code". Uses a built LDPC code (peg), so that it needs no code files.
 */
#include <string.h>

#include "check.h"
#include "fec.h"

/* A small LDPC code the family builds itself (no files). */
#define LDPC_BASE "ldpc,code=peg,n=96,dv=3"

static const char *const block_names[] = {
    "llr_scale", "in", "framing", "asm", "asm_threshold", "asm_lock_threshold", "asm_flywheel",
};
#define NBLOCK ((unsigned)(sizeof(block_names) / sizeof(block_names[0])))

static unsigned table_len(const struct fec_param_desc *t)
{
	unsigned n = 0;

	while (t[n].name)
		n++;
	return n;
}

/* Field by field: the struct has padding, which assignment need not copy. */
static bool same_block(const struct fec_frame_opts *x, const struct fec_frame_opts *y)
{
	return x->in == y->in && x->llr_scale == y->llr_scale && x->framing == y->framing &&
	       x->asm_marker == y->asm_marker && x->asm_bits == y->asm_bits &&
	       x->asm_threshold == y->asm_threshold &&
	       x->asm_lock_threshold == y->asm_lock_threshold && x->asm_flywheel == y->asm_flywheel;
}

/* ldpc's table ends with the block, each name once; viterbi's holds none of it. */
static void test_tables(void)
{
	const struct fec_family_ops *l = fec_family_by_name("ldpc");
	const struct fec_family_ops *v = fec_family_by_name("viterbi");

	CHECK(l && v, "both families are there");
	if (!l || !v)
		return;
	unsigned n = table_len(l->params);
	CHECK(n > NBLOCK, "ldpc's table has %u parameters", n);
	for (unsigned i = 0; i < NBLOCK && n > NBLOCK; i++)
		CHECK(!strcmp(l->params[n - NBLOCK + i].name, block_names[i]),
		      "ldpc parameter %u is %s, expected %s", n - NBLOCK + i,
		      l->params[n - NBLOCK + i].name, block_names[i]);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			CHECK(strcmp(l->params[i].name, l->params[j].name) != 0,
			      "ldpc parameter %s appears twice", l->params[i].name);
	for (const struct fec_param_desc *d = v->params; d->name; d++)
		for (unsigned i = 0; i < NBLOCK; i++)
			CHECK(strcmp(d->name, block_names[i]) != 0,
			      "viterbi's table holds the frame block's %s", d->name);
}

/* Defaults, a round trip through the text form with every block parameter set, and the values
 * as the spec and the decoder's fec_info hold them. */
static void test_round_trip(void)
{
	struct fec_spec a, b, def;
	struct fec_decoder *dec = NULL;
	char err[256] = "", text[512];

	CHECK(fec_spec_from_string(LDPC_BASE, &def, err, sizeof(err)) == 0, "%s", err);
	CHECK(def.frame.in == FEC_IN_S8_LLR && def.frame.llr_scale == 8.0f &&
	          def.frame.framing == FEC_FRAMING_MESSAGE && def.frame.asm_marker == 0x1ACFFC1Du &&
	          def.frame.asm_bits == 32 && def.frame.asm_threshold == 0.8f &&
	          def.frame.asm_lock_threshold == 0.5f && def.frame.asm_flywheel == 0,
	      "defaults: in %d scale %g framing %d marker %llx/%u thresholds %g %g flywheel %u",
	      def.frame.in, def.frame.llr_scale, def.frame.framing,
	      (unsigned long long)def.frame.asm_marker, def.frame.asm_bits, def.frame.asm_threshold,
	      def.frame.asm_lock_threshold, def.frame.asm_flywheel);
	fec_spec_to_string(&def, text, sizeof(text));
	CHECK(strstr(text, "llr_scale") == NULL && strstr(text, "asm") == NULL &&
	          strstr(text, "framing") == NULL,
	      "defaults are not printed: %s", text);

	CHECK(fec_spec_from_string(LDPC_BASE ",in=f32,llr_scale=4.5,framing=asm,asm=0xfaf320,"
	                                     "asm_threshold=0.75,asm_lock_threshold=0.25,"
	                                     "asm_flywheel=3",
	                           &a, err, sizeof(err)) == 0,
	      "%s", err);
	CHECK(a.frame.in == FEC_IN_F32_LLR && a.frame.llr_scale == 4.5f &&
	          a.frame.framing == FEC_FRAMING_ASM && a.frame.asm_marker == 0xFAF320 &&
	          a.frame.asm_bits == 24 && a.frame.asm_threshold == 0.75f &&
	          a.frame.asm_lock_threshold == 0.25f && a.frame.asm_flywheel == 3,
	      "values set");
	fec_spec_to_string(&a, text, sizeof(text));
	CHECK(strstr(text, "in=f32") && strstr(text, "llr_scale=4.5") &&
	          strstr(text, "framing=asm") && strstr(text, "asm=FAF320") &&
	          strstr(text, "asm_threshold=0.75") && strstr(text, "asm_lock_threshold=0.25") &&
	          strstr(text, "asm_flywheel=3"),
	      "printed: %s", text);
	CHECK(fec_spec_from_string(text, &b, err, sizeof(err)) == 0, "%s: %s", text, err);
	CHECK(fec_spec_equal(&a, &b), "read back equal: %s", text);

	/* the decoder's fec_info carries the block: the daemon reads nothing else */
	CHECK(fec_decoder_create(&a, &dec) == 0, "decoder");
	if (dec) {
		const struct fec_info *in = fec_decoder_info(dec);

		CHECK(in->in_kind == FEC_IN_F32_LLR && in->in_q == 1, "in_kind %d q %u",
		      in->in_kind, in->in_q);
		CHECK(same_block(&in->frame, &a.frame), "info.frame = spec.frame");
		CHECK(in->frame_info_bits > 0 && in->frame_info_bits < in->frame_syms,
		      "frame_info_bits %u of %u", in->frame_info_bits, in->frame_syms);
		fec_decoder_destroy(dec);
	}
	/* a family without the block: zero in its spec and its fec_info */
	CHECK(fec_spec_from_string("ccsds", &b, err, sizeof(err)) == 0, "%s", err);
	CHECK(b.frame.framing == 0 && b.frame.llr_scale == 0 && b.frame.asm_bits == 0,
	      "viterbi spec holds no block");
	dec = NULL;
	CHECK(fec_decoder_create(&b, &dec) == 0, "viterbi decoder");
	if (dec) {
		const struct fec_info *in = fec_decoder_info(dec);

		CHECK(in->frame.framing == 0 && in->frame.llr_scale == 0 && in->frame.asm_bits == 0,
		      "viterbi fec_info holds no block");
		CHECK(in->in_kind == FEC_IN_S8_LLR, "viterbi takes int8 LLRs");
		fec_decoder_destroy(dec);
	}
}

/* Bad values: refused, and the message names the parameter and what is expected. */
static void test_refused(void)
{
	static const struct {
		const char *params, *want; /* appended to LDPC_BASE; text the message must hold */
	} bad[] = {
	    {",in=f16", "in"},
	    {",llr_scale=0", "llr_scale"},
	    {",llr_scale=2000", "llr_scale"},
	    {",framing=slip", "framing"},
	    {",asm=1", "asm: expected the marker as 2..16 hex digits"},
	    {",asm=1ACFFC1DG", "asm: expected the marker as 2..16 hex digits"},
	    {",asm=0123456789ABCDEF01", "asm"},
	    {",asm_threshold=1.5", "asm_threshold"},
	    {",asm_lock_threshold=-0.1", "asm_lock_threshold"},
	    {",asm_flywheel=17", "asm_flywheel"},
	    {",asm_flywheel=x", "asm_flywheel"},
	    /* the family's own rule on a block value: offset * llr_scale fits int8 */
	    {",algo=oms,offset=100,llr_scale=2", "offset * llr_scale"},
	};
	struct fec_spec s;
	char err[256], text[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "%s%s", LDPC_BASE, bad[i].params);
		err[0] = '\0';
		CHECK(fec_spec_from_string(text, &s, err, sizeof(err)) < 0, "%s accepted", text);
		CHECK(strstr(err, bad[i].want) != NULL, "%s: message '%s' lacks '%s'", text, err,
		      bad[i].want);
	}
	/* the block is not viterbi's */
	err[0] = '\0';
	CHECK(fec_spec_from_string("ccsds,framing=asm", &s, err, sizeof(err)) < 0,
	      "viterbi took framing");
	CHECK(strstr(err, "framing") != NULL, "message '%s'", err);
}

/* The framing and the marker are part of "the same code" (a stream or a marker search may carry
 * on across a change only without them changing); the input kind and the scale are not. */
static void test_same_code(void)
{
	struct fec_spec a, b;
	char err[256] = "";

	CHECK(fec_spec_from_string(LDPC_BASE, &a, err, sizeof(err)) == 0, "%s", err);
	CHECK(fec_spec_from_string(LDPC_BASE ",in=f32,llr_scale=4,asm_threshold=0.6", &b, err,
	                           sizeof(err)) == 0,
	      "%s", err);
	CHECK(fec_spec_same_code(&a, &b), "input kind, scale and thresholds keep the code");
	CHECK(fec_spec_from_string(LDPC_BASE ",framing=asm", &b, err, sizeof(err)) == 0, "%s", err);
	CHECK(!fec_spec_same_code(&a, &b), "framing changes it");
	CHECK(fec_spec_from_string(LDPC_BASE ",framing=asm,asm=FAF320", &a, err, sizeof(err)) == 0,
	      "%s", err);
	CHECK(!fec_spec_same_code(&a, &b), "the marker changes it");
}

int main(void)
{
	test_tables();
	test_round_trip();
	test_refused();
	test_same_code();
	return check_done();
}
