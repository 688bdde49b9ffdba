/*
 * The same K=7 code (171, 133, rate 1/2, terminated) decoded by the fano family and by the
 * viterbi family, on the same frames: the same bits on noiseless and on mildly noisy frames
 * (5 dB, where both decode every frame), and the frame error rate at 3 dB, where Viterbi (maximum
 * likelihood) must not be beaten by more than chance and Fano may lose a little. Measured on these
 * 2000 frames of 200 bits (seed 62), delta 32: viterbi 0.0205, fano UFA 0.0320, BFA 0.0340 (41,
 * 64 and 68 frames); the bound, FER_FACTOR x viterbi's errors + FER_SLACK frames (92), leaves a
 * margin of about a third.
 */
#include <stdio.h>

#include "check.h"
#include "fano_frames.h"

#define FANO_UFA   "fano,k=7,polys=171:133,frame_bits=200,cycles=2000"
#define FANO_BFA   FANO_UFA ",algo=bfa"
#define FER_FACTOR 2
#define FER_SLACK  10
#define VITERBI    "viterbi,k=7,polys=171:133,mode=terminated,max_frame_bits=200"

/* Frames on which the two decodes' bits differ. */
static unsigned differ(const struct frames *f, const struct result *a, const struct result *b)
{
	unsigned n = 0;

	for (uint32_t j = 0; j < f->count; j++)
		n += a->jobs[j].out_bits != b->jobs[j].out_bits ||
		     memcmp(a->out + j * a->out_stride, b->out + j * b->out_stride,
		            (f->nbits + 7) / 8);
	return n;
}

static void same_bits(double ebn0, uint32_t count)
{
	struct frames f;
	struct result v, u, b;
	struct tally tv, tu, tb;

	if (frames_make(&f, FANO_UFA, count, ebn0, 61) || frames_decode(&f, VITERBI, &v) ||
	    frames_decode(&f, FANO_UFA, &u) || frames_decode(&f, FANO_BFA, &b)) {
		CHECK(0, "frames at %g dB", ebn0);
		return;
	}
	frames_tally(&f, &v, &tv);
	frames_tally(&f, &u, &tu);
	frames_tally(&f, &b, &tb);
	printf("%g dB, %u frames: viterbi %u errors, fano ufa %u, bfa %u; bits differ on %u "
	       "(ufa) and %u (bfa) frames\n",
	       ebn0, count, tv.frame_errors, tu.frame_errors, tb.frame_errors, differ(&f, &v, &u),
	       differ(&f, &v, &b));
	CHECK(tv.frame_errors == 0 && tu.decoded == count && tb.decoded == count,
	      "%g dB: every frame decoded", ebn0);
	CHECK(differ(&f, &v, &u) == 0 && differ(&f, &v, &b) == 0, "%g dB: the same bits", ebn0);
	result_free(&v);
	result_free(&u);
	result_free(&b);
	frames_free(&f);
}

static void fer(void)
{
	const uint32_t count = 2000;
	struct frames f;
	struct result v, u, b;
	struct tally tv, tu, tb;

	if (frames_make(&f, FANO_UFA, count, 3.0, 62) || frames_decode(&f, VITERBI, &v) ||
	    frames_decode(&f, FANO_UFA, &u) || frames_decode(&f, FANO_BFA, &b)) {
		CHECK(0, "frames at 3 dB");
		return;
	}
	frames_tally(&f, &v, &tv);
	frames_tally(&f, &u, &tu);
	frames_tally(&f, &b, &tb);
	printf("3 dB, %u frames of 200 bits: FER viterbi %.4f, fano ufa %.4f, bfa %.4f\n", count,
	       tv.frame_errors / (double)count, tu.frame_errors / (double)count,
	       tb.frame_errors / (double)count);
	CHECK(tv.frame_errors > 0, "3 dB has errors to compare");
	CHECK(tu.frame_errors <= FER_FACTOR * tv.frame_errors + FER_SLACK &&
	          tb.frame_errors <= FER_FACTOR * tv.frame_errors + FER_SLACK,
	      "fano loses at most the bound: %u, %u against %u", tu.frame_errors, tb.frame_errors,
	      tv.frame_errors);
	CHECK(tu.frame_errors + FER_SLACK >= tv.frame_errors &&
	          tb.frame_errors + FER_SLACK >= tv.frame_errors,
	      "viterbi is maximum likelihood: %u, %u against %u", tu.frame_errors, tb.frame_errors,
	      tv.frame_errors);
	result_free(&v);
	result_free(&u);
	result_free(&b);
	frames_free(&f);
}

int main(void)
{
	same_bits(FRAMES_NOISELESS, 50);
	same_bits(5.0, 300);
	fer();
	return check_done();
}
