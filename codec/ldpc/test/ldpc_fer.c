/*
 * Frame error rates of LDPC decoder settings side by side, by hand (not a ctest test): the
 * measurements behind the LDPC presets' decoder settings (codec/fec.c) and test_ldpc_fer's bounds.
 *     ldpc_fer EBN0 FRAMES SEED SPEC [SPEC...]
 *     e.g. ldpc_fer 1.0 300 1 nr-bg1,z=32,algo=spa nr-bg1,z=32,algo=oms,offset=0.5
 * Every SPEC (the text form) gets the same frames and noise for a given SEED when the codes are
 * the same (util_ldpc_frame_errors). Prints frame errors, the mean iterations and this thread's
 * CPU time per frame in fec_decode (one core; the int8 min-sum kinds take the SIMD passes).
 * The codes folder: FECD_CODES_DIR, else the project's ../shared/codes (set at build time).
 * Exit status 1 when a SPEC cannot be built.
 */
#include <stdio.h>
#include <stdlib.h>

#include "codec_util.h"
#include "fec.h"

int main(int argc, char **argv)
{
	double ebn0;
	unsigned frames;
	unsigned long long seed;
	int status = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: %s EBN0 FRAMES SEED SPEC [SPEC...]\n", argv[0]);
		return 2;
	}
#ifdef FECD_CODES_DIR_DEFAULT
	if (!getenv("FECD_CODES_DIR"))
		fec_codes_dir_set(FECD_CODES_DIR_DEFAULT);
#endif
	ebn0 = atof(argv[1]);
	frames = (unsigned)strtoul(argv[2], NULL, 10);
	seed = strtoull(argv[3], NULL, 10);
	for (int i = 4; i < argc; i++) {
		struct util_fer r;

		if (util_ldpc_frame_errors(argv[i], ebn0, frames, seed, &r)) {
			status = 1;
			continue;
		}
		printf("%-50s Eb/N0 %.2f dB seed %llu: %4u/%u frames wrong (FER %.4f), %.1f "
		       "iterations, %.2f ms/frame\n",
		       argv[i], ebn0, seed, r.errors, r.frames, (double)r.errors / r.frames,
		       r.mean_iters, 1e3 * r.cpu_s / r.frames);
		fflush(stdout);
	}
	return status;
}
