/*
 * Frame error rates of the LDPC decoders at fixed Eb/N0 and seed (BPSK over AWGN, rate k/n_tx,
 * int8 LLRs at the spec's llr_scale), against published performance, with wide margins so that
 * the test says "this decoder works" and not "this seed is lucky":
 *   - DVB-S2 normal frame r1/2: EN 302 307 puts quasi-error-free operation (PER 1e-7, with the
 *     outer BCH code, 50 iterations) at Es/N0 = 1.0 dB for QPSK 1/2, i.e. Eb/N0 = 1.0 dB; the
 *     LDPC code alone has its waterfall around 0.7..1.0 dB (the seed thesis and AFF3CT's BER/FER
 *     curves). At 1.2 dB, 50 layered nms iterations must decode (FER <= 1/32); at 0.3 dB, close to
 *     the Shannon limit of rate 1/2 BPSK (0.19 dB), nearly every frame must fail (FER >= 0.9).
 *   - MacKay (3,6)-regular N=8000: the (3,6) ensemble's belief-propagation threshold is
 *     Eb/N0 = 1.1 dB (Richardson & Urbanke, sigma* = 0.88), and MacKay & Neal's N ~ 10^4 (3,6)
 *     codes reach BER 1e-5 near 1.5..2 dB. At 2.0 dB FER <= 2/64 (layered nms int8) and <= 1/16
 *     (flooding spa, float); at 0.5 dB, below the threshold, FER >= 0.9.
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

int main(void)
{
	const char *dir = getenv("FECD_CODES_DIR");
	struct stat st;
	long e;

	if (!dir || stat(dir, &st) || !S_ISDIR(st.st_mode))
		check_skip("the LDPC matrices (../shared/codes, FECD_CODES_DIR) are not here");

	/* alpha 0.875: rows of degree 7 want a milder normalisation than the default 0.75 */
	e = frame_errors("dvbs2-1/2,iters=50,alpha=0.875", 1.2, 32, 1);
	CHECK(e >= 0 && e <= 1, "DVB-S2 r1/2 at 1.2 dB: %ld/32 frames wrong, expected <= 1", e);
	e = frame_errors("dvbs2-1/2,iters=50,alpha=0.875", 0.3, 32, 2);
	CHECK(e >= 29, "DVB-S2 r1/2 at 0.3 dB: %ld/32 frames wrong, expected >= 29", e);

	e = frame_errors("mackay-8000,iters=50", 2.0, 64, 3);
	CHECK(e >= 0 && e <= 2, "MacKay N=8000 nms at 2.0 dB: %ld/64 frames wrong, expected <= 2",
	      e);
	e = frame_errors("mackay-8000,iters=50,algo=spa,schedule=flooding,in=f32", 2.0, 16, 4);
	CHECK(e >= 0 && e <= 1, "MacKay N=8000 spa at 2.0 dB: %ld/16 frames wrong, expected <= 1",
	      e);
	e = frame_errors("mackay-8000,iters=50", 0.5, 32, 5);
	CHECK(e >= 29, "MacKay N=8000 at 0.5 dB: %ld/32 frames wrong, expected >= 29", e);
	return check_done();
}
