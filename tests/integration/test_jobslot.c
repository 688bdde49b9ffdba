/*
 * The daemon's job slots from fec_info alone (daemon/datapath/jobslot.c is pure code): the layout
 * for the decoders of both families as they report themselves (int8 and float32 LLRs, sync-marker
 * framing, each one's LLR scale), made-up fec_info values that no family has yet (q-ary symbol
 * input, which the next families bring) and those refused with their messages, which wire
 * formats fill which slots, and the bytes a job counts against the batch memory limit.
 */
#include <string.h>

#include "check.h"
#include "fec.h"
#include "fecd_proto.h"
#include "jobslot.h"

/* The layout the daemon gets for a real decoder of the code in text. */
static int layout_for(const char *text, float chan_scale, bool gnuradio, struct slot_layout *l,
                      char *err, size_t errlen)
{
	struct fec_spec spec;
	struct fec_decoder *dec;
	int rc;

	if (fec_spec_from_string(text, &spec, err, errlen) || fec_decoder_create(&spec, &dec))
		return -2;
	rc = slot_layout_of(fec_decoder_info(dec), chan_scale, gnuradio, l, err, errlen);
	fec_decoder_destroy(dec);
	return rc;
}

static void test_families(void)
{
	struct slot_layout l;
	char err[256] = "";

	CHECK(layout_for("ccsds", 3.0f, false, &l, err, sizeof(err)) == 0, "ccsds: %s", err);
	CHECK(l.kind == FEC_IN_S8_LLR && l.vals == 1 && l.elem == 1 && !l.asm_framing &&
	          l.llr_scale == 3.0f,
	      "viterbi: int8, the channel's scale (%g)", l.llr_scale);
	CHECK(layout_for("ldpc,code=peg,n=96,dv=3,llr_scale=6", 3.0f, true, &l, err, sizeof(err)) ==
	          0,
	      "ldpc s8: %s", err);
	CHECK(l.kind == FEC_IN_S8_LLR && l.elem == 1 && !l.asm_framing && l.llr_scale == 6.0f,
	      "ldpc: int8, the code's scale (%g)", l.llr_scale);
	CHECK(layout_for("ldpc,code=peg,n=96,dv=3,in=f32,framing=asm,asm=FAF320", 8.0f, false, &l,
	                 err, sizeof(err)) == 0,
	      "ldpc f32 asm: %s", err);
	CHECK(l.kind == FEC_IN_F32_LLR && l.vals == 1 && l.elem == 4 && l.asm_framing &&
	          l.llr_scale == 8.0f,
	      "ldpc: float32 slots, sync-marker framing");
}

static void test_made_up(void)
{
	struct fec_info in = {.kind = FEC_KIND_FRAME, .in_kind = FEC_IN_F32_SYMLOGP, .in_q = 16};
	struct slot_layout l;
	char err[256] = "";

	in.frame.framing = FEC_FRAMING_MESSAGE;
	in.frame.llr_scale = 8.0f;
	CHECK(slot_layout_of(&in, 1.0f, false, &l, err, sizeof(err)) == 0, "q=16: %s", err);
	CHECK(l.kind == FEC_IN_F32_SYMLOGP && l.vals == 16 && l.elem == 64 && !l.asm_framing,
	      "q=16: 16 floats per symbol, %zu bytes", l.elem);
	in.in_q = SLOT_Q_MAX;
	CHECK(slot_layout_of(&in, 1.0f, false, &l, err, sizeof(err)) == 0 &&
	          l.elem == 4 * (size_t)SLOT_Q_MAX,
	      "the largest q");

	static const struct {
		const char *what, *want;
		enum fec_kind kind;
		enum fec_in_kind in_kind;
		uint32_t q;
		enum fec_framing framing;
		bool gnuradio;
	} bad[] = {
	    {"q 1", "q = 1; expected 2..65535", FEC_KIND_FRAME, FEC_IN_F32_SYMLOGP, 1, 1, false},
	    {"q too large", "q = 65536", FEC_KIND_FRAME, FEC_IN_F32_SYMLOGP, 65536, 1, false},
	    {"no input kind", "no input kind", FEC_KIND_FRAME, 0, 1, 1, false},
	    {"a float stream", "stream decoder must take int8", FEC_KIND_STREAM, FEC_IN_F32_LLR, 1,
	     0, false},
	    {"q-ary with sync markers", "code.framing", FEC_KIND_FRAME, FEC_IN_F32_SYMLOGP, 4,
	     FEC_FRAMING_ASM, false},
	    {"q-ary from GNU Radio", "input.protocol", FEC_KIND_FRAME, FEC_IN_F32_SYMLOGP, 4,
	     FEC_FRAMING_MESSAGE, true},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fec_info b = {
		    .kind = bad[i].kind, .in_kind = bad[i].in_kind, .in_q = bad[i].q};

		b.frame.framing = bad[i].framing;
		err[0] = '\0';
		CHECK(slot_layout_of(&b, 1.0f, bad[i].gnuradio, &l, err, sizeof(err)) == -1,
		      "%s accepted", bad[i].what);
		CHECK(strstr(err, bad[i].want) != NULL, "%s: message '%s' lacks '%s'", bad[i].what,
		      err, bad[i].want);
	}
}

static void test_formats(void)
{
	struct slot_layout bits = {.kind = FEC_IN_S8_LLR, .vals = 1, .elem = 1};
	struct slot_layout f32 = {.kind = FEC_IN_F32_LLR, .vals = 1, .elem = 4};
	struct slot_layout sym = {.kind = FEC_IN_F32_SYMLOGP, .vals = 8, .elem = 32};
	static const int bit_fmts[] = {FECD_FMT_F32_LLR, FECD_FMT_S8_LLR, FECD_FMT_U8_OFFSET,
	                               FECD_FMT_S4_PACKED};
	char err[256];

	for (size_t i = 0; i < sizeof(bit_fmts) / sizeof(bit_fmts[0]); i++) {
		CHECK(slot_format_check(&bits, bit_fmts[i], err, sizeof(err)) == 0 &&
		          slot_format_check(&f32, bit_fmts[i], err, sizeof(err)) == 0,
		      "%s fills bit LLR slots", fecd_format_name(bit_fmts[i]));
		err[0] = '\0';
		CHECK(slot_format_check(&sym, bit_fmts[i], err, sizeof(err)) == -1 &&
		          strstr(err, "f32v, 8 float32") != NULL,
		      "%s refused for q-ary slots: '%s'", fecd_format_name(bit_fmts[i]), err);
	}
	CHECK(slot_format_check(&sym, FECD_FMT_F32V, err, sizeof(err)) == 0, "f32v fills q-ary");
	err[0] = '\0';
	CHECK(slot_format_check(&bits, FECD_FMT_F32V, err, sizeof(err)) == -1 &&
	          strstr(err, "format f32v carries q-ary") != NULL,
	      "f32v refused for bit LLR slots: '%s'", err);
}

/* What a job counts against BATCH_BYTES_MAX: input, packed output and soft output. */
static void test_job_bytes(void)
{
	CHECK(slot_job_bytes(64832, 1, 4096, 0) == 64832 + 4096, "int8, no soft output");
	CHECK(slot_job_bytes(64832, 4, 4096, 32768) == 4 * 64832 + 4096 + 4 * 32768,
	      "float32 with soft output");
	CHECK(slot_job_bytes(1000, 4 * 256, 128, 256 * 500) ==
	          1000ull * 1024 + 128 + 4ull * 256 * 500,
	      "q-ary in and out");
}

int main(void)
{
	test_families();
	test_made_up();
	test_formats();
	test_job_bytes();
	return check_done();
}
