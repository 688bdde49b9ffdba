/*
 * Attached-sync-marker search (asm_sync.h): a ring of the last `bits` symbols, tested by
 * normalised soft correlation after every symbol while searching and once after a frame while
 * locked. The sums are integers (int8 symbols, at most 64 of them), so a test costs `bits`
 * multiply-adds; only symbols outside frames go through it, and the flywheel's skipped frames
 * are not even read.
 */
#include <math.h>
#include <string.h>

#include "asm_sync.h"

static bool in_unit(float t)
{
	return t >= 0.0f && t <= 1.0f;
}

int asm_sync_config(struct asm_sync *s, const struct asm_sync_params *p, uint64_t *dropped)
{
	*dropped = 0;
	if (p->bits < 8 || p->bits > ASM_SYNC_MAX_BITS || !in_unit(p->threshold) ||
	    !in_unit(p->lock_threshold))
		return -1;
	if (p->bits != s->bits)
		*dropped = asm_sync_reset(s);
	s->bits = p->bits;
	s->threshold = p->threshold;
	s->lock_threshold = p->lock_threshold;
	s->flywheel = p->flywheel;
	s->frame_syms = p->frame_syms;
	for (unsigned j = 0; j < p->bits; j++)
		s->sign[j] = ((p->marker >> (p->bits - 1 - j)) & 1u) ? -1 : 1;
	return 0;
}

float asm_sync_corr(const struct asm_sync *s, const int8_t *x)
{
	int num = 0, den = 0;

	for (unsigned j = 0; j < s->bits; j++) {
		num += x[j] * s->sign[j];
		den += x[j] < 0 ? -x[j] : x[j];
	}
	return den ? (float)num / (float)den : 0.0f;
}

/* The ring, oldest first, tested as one window. */
static float ring_corr(const struct asm_sync *s)
{
	int num = 0, den = 0;
	unsigned k = s->head;

	for (unsigned j = 0; j < s->bits; j++) {
		int x = s->ring[k];
		num += x * s->sign[j];
		den += x < 0 ? -x : x;
		if (++k == s->bits)
			k = 0;
	}
	return den ? (float)num / (float)den : 0.0f;
}

/* A locked test failed. Within the flywheel the window and the frame behind it are given up
 * and the timing kept; past it, the window stays and the search slides on. */
static void lock_failed(struct asm_sync *s, struct asm_scan *res)
{
	res->missed++;
	if (s->misses < s->flywheel) {
		s->misses++;
		res->skipped += s->have;
		s->have = 0;
		s->head = 0;
		s->coast = s->frame_syms;
		return; /* still locked */
	}
	s->misses = 0;
	s->locked = false;
}

size_t asm_sync_scan(struct asm_sync *s, const int8_t *in, size_t n, struct asm_scan *res)
{
	size_t i = 0;

	memset(res, 0, sizeof(*res));
	if (!s->bits)
		return 0;
	while (i < n) {
		if (s->coast) {
			size_t k = n - i < s->coast ? n - i : s->coast;
			s->coast -= (uint32_t)k;
			res->skipped += k;
			i += k;
			continue;
		}
		int8_t x = in[i++];

		if (s->have == s->bits) {
			/* sliding: the oldest symbol leaves the window for good */
			s->ring[s->head] = x;
			if (++s->head == s->bits)
				s->head = 0;
			res->skipped++;
		} else {
			unsigned k = s->head + s->have;
			s->ring[k >= s->bits ? k - s->bits : k] = x;
			if (++s->have < s->bits)
				continue;
		}
		float c = ring_corr(s);
		/* Locked, the marker keeps its polarity: a 180-degree slip of the receiver's phase
		 * is rare next to junk or a slip passing the loose threshold with either sign. */
		bool lock_pass = s->locked && (s->inverted ? -c : c) >= s->lock_threshold;
		if (c != 0.0f && (lock_pass || fabsf(c) >= s->threshold)) {
			res->found = true;
			res->inverted = c < 0.0f;
			res->corr = c;
			s->inverted = res->inverted;
			s->have = 0;
			s->head = 0;
			s->locked = false;
			s->misses = 0;
			return i;
		}
		if (s->locked)
			lock_failed(s, res);
	}
	return i;
}

void asm_sync_expect(struct asm_sync *s)
{
	s->locked = true;
}

unsigned asm_sync_reset(struct asm_sync *s)
{
	unsigned held = s->have;

	s->have = 0;
	s->head = 0;
	s->locked = false;
	s->misses = 0;
	s->coast = 0;
	return held;
}
