/*
 * fecd-sink --replay P: checks a stream whose information bit i is source bit i mod P (what
 * fecd-feed --replay P sends), at memory speed. Regenerating seeded bits one per byte for every
 * message would cap the sink below the daemon it measures, so the period is packed once into
 * eight copies, copy s starting at period bit s: a message starting at bit o of the period is
 * then compared byte by byte against copy o % 8 from byte o / 8, whatever its length (the copies
 * run on past the period's end, as long as the longest message needs).
 */
#include <stdlib.h>
#include <string.h>

#include "bitpack.h"

#include "sink.h"

/* Makes the copies cover at least `need` bits past any start within the period. */
static int replay_reserve(struct sink *s, uint64_t need)
{
	uint64_t p = s->o.replay, len = p + need;
	uint8_t *period, *bits;

	if (s->rp_len >= len)
		return 0;
	len += len / 2;
	period = malloc((size_t)p);
	bits = malloc((size_t)len + 7);
	if (!period || !bits)
		goto out_free;
	if (info_source_read(&s->src, 0, (size_t)p, period))
		goto out_free;
	for (unsigned c = 0; c < 8; c++) {
		uint8_t *pk = realloc(s->rp_ref[c], (size_t)(len + 7) / 8);
		uint64_t done = 0, from = c % p;

		if (!pk)
			goto out_free;
		s->rp_ref[c] = pk;
		while (done < len) { /* the period from bit c, over and over */
			uint64_t n = p - from < len - done ? p - from : len - done;

			memcpy(bits + done, period + from, (size_t)n);
			done += n;
			from = 0;
		}
		fec_pack_bits(bits, (size_t)len, pk);
	}
	s->rp_len = len;
	free(period);
	free(bits);
	return 0;
out_free:
	free(period);
	free(bits);
	return -1;
}

int sink_replay_prepare(struct sink *s)
{
	return replay_reserve(s, SINK_REPLAY_PREPARED_BITS);
}

int sink_replay_compare(struct sink *s, uint64_t pos, const uint8_t *rx, size_t n, uint64_t *errors)
{
	uint64_t o = pos % s->o.replay;

	if (replay_reserve(s, n + 8))
		return -1;
	const uint8_t *ref = s->rp_ref[o % 8] + o / 8;
	size_t whole = n / 8;

	if (memcmp(rx, ref, whole) == 0)
		*errors = fec_count_bit_errors(rx + whole, ref + whole, n % 8);
	else
		*errors = fec_count_bit_errors(rx, ref, n);
	return 0;
}

void sink_replay_free(struct sink *s)
{
	for (unsigned c = 0; c < 8; c++) {
		free(s->rp_ref[c]);
		s->rp_ref[c] = NULL;
	}
}
