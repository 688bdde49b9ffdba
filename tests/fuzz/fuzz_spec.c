/*
 * Fuzz harness: code specs in their text form, "PRESET[,key=value...]" or
 * "FAMILY[,key=value...]" (fec_spec_from_string), as fecd-feed, fecd-sink and fecd-bench take
 * them on their command lines and as the codec checks a preset's text.
 *
 * Properties: a spec that parses prints (fec_spec_to_string) as text that parses back to an
 * equal spec, describes itself, and has a finite rate in (0, 1]; building its code (a generated
 * one can take minutes) stops soon after the deadline (fuzz.h). The tests' composite family
 * "pair" (tests/lib/pair_family.c) is in the table, so that nested codes (FEC_PARAM_CODE,
 * "pair,inner=(ccsds,k=7)") are fuzzed too.
 */
#include <math.h>

#include "fec.h"
#include "fuzz.h"
#include "pair_family.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	pair_family_register();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fec_spec spec, back;
	char *text = fuzz_text(data, size), err[512], printed[1024], desc[256];

	fuzz_build_deadline();
	int parsed = fec_spec_from_string(text, &spec, err, sizeof(err));
	FUZZ_CHECK(fuzz_build_overrun() < FUZZ_BUILD_SLACK_SECONDS,
	           "\"%s\" took %.1f s past the build deadline", text, fuzz_build_overrun());
	if (parsed == 0) {
		const struct fec_family_ops *fam = fec_family_by_id(spec.family);

		FUZZ_CHECK(fam != NULL, "family %d", spec.family);
		fec_spec_to_string(&spec, printed, sizeof(printed));
		int rc = fec_spec_from_string(printed, &back, err, sizeof(err));
		FUZZ_CHECK(rc == 0 || rc == -FEC_ETIME,
		           "\"%s\" printed as \"%s\", which is refused: %s", text, printed, err);
		FUZZ_CHECK(rc != 0 || fec_spec_equal(&spec, &back),
		           "\"%s\" printed as \"%s\", which reads back as another spec", text,
		           printed);
		fam->spec_describe(&spec, desc, sizeof(desc));
		double rate = fec_spec_rate(&spec);
		FUZZ_CHECK(isfinite(rate) && rate > 0 && rate <= 1, "rate %g of \"%s\"", rate,
		           text);
	}
	free(text);
	return 0;
}
