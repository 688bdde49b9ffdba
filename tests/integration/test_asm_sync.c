/*
 * Unit test of the daemon's sync-marker search (daemon/datapath/asm_sync.c): the correlation's
 * values, a marker found after junk (the junk counted), inverted polarity, the locked test right
 * after a frame and its miss, markers split across calls of any size, markers too damaged to pass
 * the threshold never taken; the two thresholds (a marker between them taken only where a frame
 * put it, and there only with the last marker's polarity), a locked stream at 1 dB that keeps every
 * frame with the loose threshold and loses about one in ten with the strict one, slips of either
 * sign caught at the next test, and the flywheel (a damaged marker costs its own frame only; past
 * the flywheel the search takes over).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "asm_sync.h"
#include "awgn.h"
#include "check.h"

#define CCSDS_ASM 0x1ACFFC1Dull
#define AMP       100

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* Configures s: search threshold t, locked threshold lt, flywheel fw, frames of frame symbols. */
static int cfg(struct asm_sync *s, uint64_t marker, unsigned bits, float t, float lt, unsigned fw,
               uint32_t frame, uint64_t *dropped)
{
	const struct asm_sync_params p = {marker, bits, t, lt, fw, frame};

	return asm_sync_config(s, &p, dropped);
}

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

/* n random symbols of magnitude 1..AMP, either sign. */
static size_t put_junk(int8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int v = 1 + (int)(next_rand() % AMP);
		p[i] = (int8_t)((next_rand() & 1) ? v : -v);
	}
	return n;
}

/* The marker as BPSK soft symbols (bit 0 -> +AMP); flip errors sign flips at the first bits. */
static size_t put_marker(int8_t *p, uint64_t marker, unsigned bits, bool inverted, unsigned flips)
{
	for (unsigned j = 0; j < bits; j++) {
		int v = ((marker >> (bits - 1 - j)) & 1) ? -AMP : AMP;
		if (inverted)
			v = -v;
		if (j < flips)
			v = -v;
		p[j] = (int8_t)v;
	}
	return bits;
}

/* Scans buf[0..n) in calls of at most step symbols; records each marker's end position (the
 * frame start) and polarity, and skips frame_len symbols after it (the caller's frame). */
struct found {
	size_t pos[16];
	bool inv[16];
	unsigned n;
	uint64_t skipped, missed;
};

static void scan_all(struct asm_sync *s, const int8_t *buf, size_t n, size_t step, size_t frame_len,
                     struct found *f)
{
	size_t i = 0;

	memset(f, 0, sizeof(*f));
	while (i < n) {
		struct asm_scan r;
		size_t k = n - i < step ? n - i : step;
		size_t used = asm_sync_scan(s, buf + i, k, &r);

		i += used;
		f->skipped += r.skipped;
		f->missed += r.missed;
		if (!r.found)
			continue;
		if (f->n < 16) {
			f->pos[f->n] = i;
			f->inv[f->n] = r.inverted;
		}
		f->n++;
		i += frame_len;
		asm_sync_expect(s);
	}
}

static void test_corr(void)
{
	struct asm_sync s = {0};
	uint64_t dropped;
	int8_t m[64];

	CHECK(cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 0, 100, &dropped) == 0, "config");
	CHECK(s.sign[0] == 1 && s.sign[3] == -1 && s.sign[31] == -1,
	      "signs of 0x1ACFFC1D: %d %d %d", s.sign[0], s.sign[3], s.sign[31]);
	put_marker(m, CCSDS_ASM, 32, false, 0);
	CHECK(asm_sync_corr(&s, m) == 1.0f, "clean marker: %g", (double)asm_sync_corr(&s, m));
	put_marker(m, CCSDS_ASM, 32, true, 0);
	CHECK(asm_sync_corr(&s, m) == -1.0f, "inverted marker: %g", (double)asm_sync_corr(&s, m));
	put_marker(m, CCSDS_ASM, 32, false, 3);
	CHECK(fabsf(asm_sync_corr(&s, m) - 26.0f / 32.0f) < 1e-6f, "3 flips: %g",
	      (double)asm_sync_corr(&s, m));
	memset(m, 0, sizeof(m));
	CHECK(asm_sync_corr(&s, m) == 0.0f, "all-zero window");
	CHECK(cfg(&s, CCSDS_ASM, 7, 0.8f, 0.5f, 0, 100, &dropped) < 0, "7 bits refused");
	CHECK(cfg(&s, CCSDS_ASM, 65, 0.8f, 0.5f, 0, 100, &dropped) < 0, "65 bits refused");
	CHECK(cfg(&s, CCSDS_ASM, 32, 1.5f, 0.5f, 0, 100, &dropped) < 0, "threshold 1.5 refused");
	CHECK(cfg(&s, CCSDS_ASM, 32, 0.8f, -0.1f, 0, 100, &dropped) < 0,
	      "lock threshold -0.1 refused");
}

/* junk, marker, frame, marker (locked), frame, junk, inverted marker, frame, zeros */
static void test_stream(size_t step)
{
	enum { FRAME = 200, J1 = 77, J2 = 150 };
	static int8_t buf[4096];
	struct asm_sync s = {0};
	struct found f;
	uint64_t dropped;
	size_t n = 0, p1, p2, p3;

	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 0, FRAME, &dropped);
	n += put_junk(buf + n, J1);
	n += put_marker(buf + n, CCSDS_ASM, 32, false, 0);
	p1 = n;
	n += put_junk(buf + n, FRAME);
	n += put_marker(buf + n, CCSDS_ASM, 32, false, 2); /* 2 errors: corr 0.875 */
	p2 = n;
	n += put_junk(buf + n, FRAME);
	n += put_junk(buf + n, J2);
	n += put_marker(buf + n, CCSDS_ASM, 32, true, 1);
	p3 = n;
	n += put_junk(buf + n, FRAME);
	memset(buf + n, 0, 100);
	n += 100;

	scan_all(&s, buf, n, step, FRAME, &f);
	CHECK(f.n == 3, "step %zu: %u markers found, expected 3", step, f.n);
	CHECK(f.pos[0] == p1 && f.pos[1] == p2 && f.pos[2] == p3,
	      "step %zu: frames at %zu %zu %zu, expected %zu %zu %zu", step, f.pos[0], f.pos[1],
	      f.pos[2], p1, p2, p3);
	CHECK(!f.inv[0] && !f.inv[1] && f.inv[2], "step %zu: polarities %d %d %d", step, f.inv[0],
	      f.inv[1], f.inv[2]);
	CHECK(f.missed == 2, "step %zu: %llu misses, expected 2 (before the junk and the zeros)",
	      step, (unsigned long long)f.missed);
	/* Given up: the junk (J1 + J2) and the zeros after the last frame except the window the
	 * search still holds. */
	CHECK(f.skipped == J1 + J2 + 100 - 32, "step %zu: %llu skipped, expected %d", step,
	      (unsigned long long)f.skipped, J1 + J2 + 100 - 32);
	CHECK(asm_sync_held(&s) == 32, "step %zu: %u held", step, asm_sync_held(&s));
	CHECK(asm_sync_reset(&s) == 32 && asm_sync_held(&s) == 0, "reset gives back the window");
}

/* A marker with too many errors is never taken, locked or searching; the next good one is. */
static void test_threshold(void)
{
	enum { FRAME = 64 };
	static int8_t buf[1024];
	struct asm_sync s = {0};
	struct found f;
	uint64_t dropped;
	size_t n = 0, p;

	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 0, FRAME, &dropped);
	n += put_marker(buf + n, CCSDS_ASM, 32, false, 4); /* corr 0.75 < 0.8 */
	n += put_junk(buf + n, FRAME);
	n += put_marker(buf + n, CCSDS_ASM, 32, false, 0);
	p = n;
	n += put_junk(buf + n, FRAME);
	scan_all(&s, buf, n, 5, FRAME, &f);
	CHECK(f.n == 1 && f.pos[0] == p, "damaged marker skipped: %u found, first at %zu (%zu)",
	      f.n, f.n ? f.pos[0] : 0, p);
	CHECK(f.skipped == 32 + FRAME, "%llu skipped", (unsigned long long)f.skipped);
}

/* A 16-bit marker of another value: sign order follows the first sent bit. */
static void test_other_marker(void)
{
	static int8_t buf[512];
	struct asm_sync s = {0};
	struct found f;
	uint64_t dropped;
	size_t n = 0, p;

	cfg(&s, 0xB5E4, 16, 0.9f, 0.9f, 0, 40, &dropped);
	n += put_junk(buf + n, 33);
	n += put_marker(buf + n, 0xB5E4, 16, false, 0);
	p = n;
	n += put_junk(buf + n, 40);
	scan_all(&s, buf, n, 1000, 40, &f);
	CHECK(f.n == 1 && f.pos[0] == p, "16-bit marker at %zu (%u found)", p, f.n);
	/* Same length: what the ring holds stays across a change of marker. */
	asm_sync_scan(&s, buf, 5, &(struct asm_scan){0});
	cfg(&s, 0x1234, 16, 0.9f, 0.9f, 0, 40, &dropped);
	CHECK(dropped == 0 && asm_sync_held(&s) == 5, "kept: dropped %llu held %u",
	      (unsigned long long)dropped, asm_sync_held(&s));
	cfg(&s, CCSDS_ASM, 32, 0.9f, 0.9f, 0, 40, &dropped);
	CHECK(dropped == 5 && asm_sync_held(&s) == 0, "new length empties: dropped %llu",
	      (unsigned long long)dropped);
}

/* A marker between the two thresholds is taken where a frame put it, never while searching. */
static void test_two_thresholds(void)
{
	enum { FRAME = 120 };
	static int8_t buf[2048];
	struct asm_sync s = {0};
	struct found f;
	uint64_t dropped;
	size_t n = 0, p1, p2, p3;

	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 0, FRAME, &dropped);
	n += put_marker(buf + n, CCSDS_ASM, 32, false, 0);
	p1 = n;
	n += put_junk(buf + n, FRAME);
	n += put_marker(buf + n, CCSDS_ASM, 32, false, 6); /* corr 0.625: locked, taken */
	p2 = n;
	n += put_junk(buf + n, FRAME);
	n += put_junk(buf + n, 10);
	n += put_marker(buf + n, CCSDS_ASM, 32, false, 6); /* 0.625 while searching: not taken */
	n += put_junk(buf + n, FRAME);
	n += put_marker(buf + n, CCSDS_ASM, 32, false, 0);
	p3 = n;
	n += put_junk(buf + n, FRAME);
	scan_all(&s, buf, n, 9, FRAME, &f);
	CHECK(f.n == 3 && f.pos[0] == p1 && f.pos[1] == p2 && f.pos[2] == p3,
	      "%u found at %zu %zu %zu, expected %zu %zu %zu", f.n, f.pos[0], f.pos[1], f.pos[2],
	      p1, p2, p3);
	CHECK(f.missed == 1, "%llu misses, expected 1", (unsigned long long)f.missed);
	CHECK(f.skipped == 10 + 32 + FRAME, "%llu skipped", (unsigned long long)f.skipped);
}

/* Locked, the loose threshold holds for the last marker's polarity only; the other polarity
 * passes as a search would take it (the strict threshold), at the same position. */
static void test_lock_polarity(void)
{
	enum { FRAME = 100 };
	static int8_t buf[2048];
	struct asm_sync s = {0};
	struct found f;
	uint64_t dropped;
	size_t n = 0, pos[5];
	const bool inv[5] = {false, true, true, true, false};
	const unsigned flips[5] = {0, 6, 0, 6, 0}; /* 6: |corr| 0.625, between the thresholds */

	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 0, FRAME, &dropped);
	for (int k = 0; k < 5; k++) {
		n += put_marker(buf + n, CCSDS_ASM, 32, inv[k], flips[k]);
		pos[k] = n;
		n += put_junk(buf + n, FRAME);
	}
	scan_all(&s, buf, n, 11, FRAME, &f);
	/* 1 (inverted, 0.625) missed; 2 found searching; 3 (same polarity as 2) locked; 4 taken
	 * at its place by the strict threshold */
	CHECK(f.n == 4 && f.pos[0] == pos[0] && f.pos[1] == pos[2] && f.pos[2] == pos[3] &&
	          f.pos[3] == pos[4],
	      "%u found at %zu %zu %zu %zu", f.n, f.pos[0], f.pos[1], f.pos[2], f.pos[3]);
	CHECK(!f.inv[0] && f.inv[1] && f.inv[2] && !f.inv[3], "polarities %d %d %d %d", f.inv[0],
	      f.inv[1], f.inv[2], f.inv[3]);
	CHECK(f.missed == 1, "%llu misses, expected 1", (unsigned long long)f.missed);
}

/* nf frames of frame random symbols, each behind the CCSDS marker, over AWGN at Eb/N0 (rate 1/2),
 * int8 at llr scale 8 as the feed sends them. */
static size_t noisy_stream(int8_t *buf, unsigned nf, unsigned frame, double ebn0)
{
	const double sigma = fec_awgn_sigma(ebn0, 0.5);
	struct fec_prng p;
	uint8_t bits[32 + 256];
	float llr[32 + 256];
	size_t n = 0;

	fec_prng_seed(&p, 77);
	for (unsigned j = 0; j < 32; j++)
		bits[j] = (uint8_t)((CCSDS_ASM >> (31 - j)) & 1u);
	for (unsigned f = 0; f < nf; f++) {
		fec_prng_bits(&p, bits + 32, frame);
		fec_awgn_llr(&p, bits, 32 + frame, sigma, 1.0f, llr);
		for (unsigned j = 0; j < 32 + frame; j++) {
			float v = llr[j] * 8.0f;
			v = v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v;
			buf[n++] = (int8_t)lrintf(v);
		}
	}
	return n;
}

/* Frames found at their true places (the stream is marker + frame repeated) and elsewhere. */
static void count_aligned(struct asm_sync *s, const int8_t *buf, size_t n, size_t frame,
                          unsigned *aligned, unsigned *wrong, uint64_t *missed)
{
	size_t i = 0;

	*aligned = *wrong = 0;
	*missed = 0;
	asm_sync_reset(s);
	while (i < n) {
		struct asm_scan r;

		i += asm_sync_scan(s, buf + i, n - i, &r);
		*missed += r.missed;
		if (!r.found)
			continue;
		if (i % (32 + frame) == 32)
			(*aligned)++;
		else
			(*wrong)++;
		i += frame;
		asm_sync_expect(s);
	}
}

/* A locked stream at 1 dB: the loose threshold keeps every frame; the strict one used at the
 * expected position as well (as before asm_lock_threshold) loses about one in ten. */
static void test_low_snr(void)
{
	enum { FRAME = 200, NF = 2000 };
	static int8_t buf[NF * (32 + FRAME)];
	struct asm_sync s = {0};
	uint64_t dropped, missed;
	unsigned aligned, wrong;
	size_t n = noisy_stream(buf, NF, FRAME, 1.0);

	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 0, FRAME, &dropped);
	count_aligned(&s, buf, n, FRAME, &aligned, &wrong, &missed);
	CHECK(aligned >= NF - 2 && wrong == 0 && missed <= 1,
	      "1 dB, lock 0.5: %u of %d frames, %u false, %llu misses", aligned, NF, wrong,
	      (unsigned long long)missed);
	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.8f, 0, FRAME, &dropped);
	count_aligned(&s, buf, n, FRAME, &aligned, &wrong, &missed);
	CHECK(aligned < NF - NF / 20 && missed > NF / 20,
	      "1 dB, lock 0.8: %u of %d frames, %llu misses (expected about 10%% lost)", aligned,
	      NF, (unsigned long long)missed);
}

/* A slip (symbols lost or added in a frame) fails the locked test; the search finds the marker
 * again: where symbols were added, at once; where lost, the marker was partly eaten by the frame
 * before it and the frame after it is lost. */
static void test_slip(int d)
{
	enum { FRAME = 200 };
	static int8_t buf[4096];
	struct asm_sync s = {0};
	struct found f;
	uint64_t dropped;
	size_t n = 0, pos[6];

	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 0, FRAME, &dropped);
	for (int k = 0; k < 6; k++) {
		if (k == 3 && d > 0)
			n += put_junk(buf + n, (size_t)d);
		if (k == 3 && d < 0)
			n -= (size_t)-d;
		n += put_marker(buf + n, CCSDS_ASM, 32, false, 0);
		pos[k] = n;
		n += put_junk(buf + n, FRAME);
	}
	scan_all(&s, buf, n, 13, FRAME, &f);
	CHECK(f.missed == 1, "slip %+d: %llu misses, expected 1", d, (unsigned long long)f.missed);
	if (d > 0)
		CHECK(f.n == 6 && f.pos[3] == pos[3] && f.pos[5] == pos[5],
		      "slip %+d: %u found, the 4th at %zu (%zu)", d, f.n, f.pos[3], pos[3]);
	else
		CHECK(f.n == 5 && f.pos[2] == pos[2] && f.pos[3] == pos[4] && f.pos[4] == pos[5],
		      "slip %+d: %u found, the 4th at %zu (%zu)", d, f.n, f.pos[3], pos[4]);
}

/* The flywheel: a damaged marker in a locked stream costs its own frame, and the next marker is
 * tested where the timing puts it (with the loose threshold); past the flywheel, the search. */
static void test_flywheel(size_t step)
{
	enum { FRAME = 150 };
	static int8_t buf[4096];
	struct asm_sync s = {0};
	struct found f;
	uint64_t dropped;
	size_t n = 0, pos[6];
	/* sign flips of markers 0..5: 20 (|corr| 0.25) fails both thresholds, 6 (0.625) passes only
	 * the locked one */
	const unsigned flips[6] = {0, 20, 6, 20, 20, 6};

	for (int k = 0; k < 6; k++) {
		n += put_marker(buf + n, CCSDS_ASM, 32, false, flips[k]);
		pos[k] = n;
		n += put_junk(buf + n, FRAME);
	}
	n += put_marker(buf + n, CCSDS_ASM, 32, false, 0);
	size_t last = n;
	n += put_junk(buf + n, FRAME);

	/* flywheel 1: 1 missed, 2 taken; 3 and 4 missed in a row: searching, 5 not taken; last */
	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 1, FRAME, &dropped);
	scan_all(&s, buf, n, step, FRAME, &f);
	CHECK(f.n == 3 && f.pos[0] == pos[0] && f.pos[1] == pos[2] && f.pos[2] == last,
	      "flywheel 1, step %zu: %u found at %zu %zu %zu", step, f.n, f.pos[0], f.pos[1],
	      f.pos[2]);
	CHECK(f.missed == 3, "flywheel 1, step %zu: %llu misses, expected 3", step,
	      (unsigned long long)f.missed);
	/* given up: marker 1 and its frame (flywheel), marker 3 and its frame (flywheel), then
	 * marker 4 and everything to the last marker (searching) */
	CHECK(f.skipped == 2 * (32 + FRAME) + 2 * (32 + FRAME),
	      "flywheel 1, step %zu: %llu skipped", step, (unsigned long long)f.skipped);
	/* flywheel 2: 1 missed, 2 taken, 3 and 4 missed, 5 taken at its place, last */
	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 2, FRAME, &dropped);
	asm_sync_reset(&s);
	scan_all(&s, buf, n, step, FRAME, &f);
	CHECK(f.n == 4 && f.pos[1] == pos[2] && f.pos[2] == pos[5] && f.pos[3] == last,
	      "flywheel 2, step %zu: %u found", step, f.n);
	/* no flywheel: after marker 1 the search; 2 and 5 never taken */
	cfg(&s, CCSDS_ASM, 32, 0.8f, 0.5f, 0, FRAME, &dropped);
	asm_sync_reset(&s);
	scan_all(&s, buf, n, step, FRAME, &f);
	CHECK(f.n == 2 && f.pos[0] == pos[0] && f.pos[1] == last && f.missed == 1,
	      "flywheel 0, step %zu: %u found, %llu misses", step, f.n,
	      (unsigned long long)f.missed);
	asm_sync_reset(&s);
}

int main(void)
{
	test_corr();
	test_stream(1);
	test_stream(7);
	test_stream(31);
	test_stream(4096);
	test_threshold();
	test_other_marker();
	test_two_thresholds();
	test_lock_polarity();
	test_low_snr();
	const int slips[] = {1, 2, 3, 5, 8, 16, 31, 40, -1, -2, -3, -5, -8, -16, -31};
	for (unsigned i = 0; i < sizeof(slips) / sizeof(slips[0]); i++)
		test_slip(slips[i]);
	test_flywheel(1);
	test_flywheel(7);
	test_flywheel(4096);
	return check_done();
}
