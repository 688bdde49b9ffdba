/*
 * Frame error rates of the LDPC decoders at fixed Eb/N0 and seed (BPSK over AWGN, rate k/n_tx,
 * int8 LLRs at the spec's llr_scale), against published performance, with wide margins so that
 * the test says "this decoder works" and not "this seed is lucky":
 *   - DVB-S2 normal frame r1/2: EN 302 307 puts quasi-error-free operation (PER 1e-7, with the
 *     outer BCH code, 50 iterations) at Es/N0 = 1.0 dB for QPSK 1/2, i.e. Eb/N0 = 1.0 dB; the
 *     LDPC code alone has its waterfall around 0.7..1.0 dB (the seed thesis and AFF3CT's BER/FER
 *     curves). At 1.2 dB the preset (layered oms, 50 iterations) must decode (FER <= 1/32); at
 *     0.3 dB, close to the Shannon limit of rate 1/2 BPSK (0.19 dB), nearly every frame must fail
 *     (FER >= 0.9).
 *   - MacKay (3,6)-regular N=8000: the (3,6) ensemble's belief-propagation threshold is
 *     Eb/N0 = 1.1 dB (Richardson & Urbanke, sigma* = 0.88), and MacKay & Neal's N ~ 10^4 (3,6)
 *     codes reach BER 1e-5 near 1.5..2 dB. At 2.0 dB FER <= 2/64 (layered nms int8) and <= 1/16
 *     (flooding spa, float); at 0.5 dB, below the threshold, FER >= 0.9.
 * The LDPC presets' decoder settings (codec/fec.c, measured there with ldpc_fer), each at a point
 * of its waterfall against the family's defaults (layered nms alpha 0.875, 20 iterations) on the
 * same frames, so that a preset that loses its settings fails; bounds are about twice the error
 * counts measured here, and the defaults' at most half theirs:
 *   - nr-bg1, nr-bg2 (spa, 50 iterations) at 0.1 / -0.3 dB (z=384): 0 / 0 of 24 frames fail
 *     (oms 0.5 with 50 iterations, the best min-sum, 20 / 24), the defaults' 24 / 24; at the
 *     issue's point, bg1 with z=32 at 1.0 dB, 0 of 300 with the preset's settings and 150 with
 *     the defaults;
 *   - dvbs2-1/2 (oms 0.5, 50 iterations) at 0.9 dB: 2 of 64, the defaults' 64;
 *   - ar4ja-4096 (nms 0.75, 50 iterations) at 1.2 dB: 5 of 128, the defaults' 101;
 *   - 10gbase-t (nms 0.625) at 3.5 dB: 12 of 256, the defaults' 66.
 * A frame counts as an error when it is not DECODED or any information bit differs. The int8
 * min-sum runs take the SIMD path where the CPU has it (groups of 32 frames).
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "check.h"
#include "codec_util.h"
#include "fec.h"

/* Frame errors over `frames` frames of `text` at ebn0 dB; -1 when the code cannot be built. */
static long frame_errors(const char *text, double ebn0, unsigned frames, uint64_t seed)
{
	struct util_fer r;

	if (util_ldpc_frame_errors(text, ebn0, frames, seed, &r))
		return -1;
	printf("%-45s Eb/N0 %.2f dB: %u/%u frames wrong\n", text, ebn0, r.errors, r.frames);
	return r.errors;
}

/* A preset (with extra settings such as ",z=32") at one point, against the family's defaults
 * on the same frames: the preset fails at most max_preset of them, the defaults at least
 * min_defaults. */
static void preset_point(const char *preset, const char *extra, double ebn0, unsigned frames,
                         uint64_t seed, long max_preset, long min_defaults)
{
	char text[128];
	long e;

	snprintf(text, sizeof(text), "%s%s", preset, extra);
	e = frame_errors(text, ebn0, frames, seed);
	CHECK(e >= 0 && e <= max_preset, "%s at %.1f dB: %ld/%u frames wrong, expected <= %ld",
	      text, ebn0, e, frames, max_preset);
	snprintf(text, sizeof(text), "%s%s,algo=nms,alpha=0.875,iters=20,schedule=layered", preset,
	         extra);
	e = frame_errors(text, ebn0, frames, seed);
	CHECK(e >= min_defaults, "%s at %.1f dB: %ld/%u frames wrong, expected >= %ld", text, ebn0,
	      e, frames, min_defaults);
}

int main(void)
{
	const char *dir = getenv("FECD_CODES_DIR");
	struct stat st;
	long e;

	if (!dir || stat(dir, &st) || !S_ISDIR(st.st_mode))
		check_skip("the LDPC matrices (../shared/codes, FECD_CODES_DIR) are not here");

	e = frame_errors("dvbs2-1/2", 1.2, 32, 1);
	CHECK(e >= 0 && e <= 1, "DVB-S2 r1/2 at 1.2 dB: %ld/32 frames wrong, expected <= 1", e);
	e = frame_errors("dvbs2-1/2", 0.3, 32, 2);
	CHECK(e >= 29, "DVB-S2 r1/2 at 0.3 dB: %ld/32 frames wrong, expected >= 29", e);

	e = frame_errors("mackay-8000,iters=50", 2.0, 64, 3);
	CHECK(e >= 0 && e <= 2, "MacKay N=8000 nms at 2.0 dB: %ld/64 frames wrong, expected <= 2",
	      e);
	e = frame_errors("mackay-8000,iters=50,algo=spa,schedule=flooding,in=f32", 2.0, 16, 4);
	CHECK(e >= 0 && e <= 1, "MacKay N=8000 spa at 2.0 dB: %ld/16 frames wrong, expected <= 1",
	      e);
	e = frame_errors("mackay-8000,iters=50", 0.5, 32, 5);
	CHECK(e >= 29, "MacKay N=8000 at 0.5 dB: %ld/32 frames wrong, expected >= 29", e);

	preset_point("nr-bg1", "", 0.1, 24, 6, 2, 12);
	preset_point("nr-bg2", "", -0.3, 24, 7, 2, 12);
	preset_point("nr-bg1", ",z=32", 1.0, 300, 8, 3, 75);
	preset_point("dvbs2-1/2", "", 0.9, 64, 9, 5, 32);
	preset_point("ar4ja-4096", "", 1.2, 128, 10, 10, 50);
	preset_point("10gbase-t", "", 3.5, 256, 11, 24, 33);
	return check_done();
}
