/*
 * fecd-feed --replay: the channel simulated once, sent many times. Encoding, noise and
 * quantization cost far more than a ZeroMQ send, so a feed that simulates every message cannot
 * load a fast decoder; this one encodes a period of P seeded bits, modulates it and then sends the
 * same wire symbols over and over, which is what fecd-bench needs to measure the daemon at full
 * speed.
 *
 * The information stream is the period repeated: bit i is seeded bit i mod P, which fecd-sink
 * --replay P checks. The encoder is never reset, so the code symbols are those of that endless
 * stream: the first period is encoded from the zero state (where the daemon's stream starts) and
 * every later one from the state the period's own last bits leave, which is the second period's.
 * The buffer therefore holds two periods (with independent noise) and the stream runs through the
 * first once, then through the second forever. The channel model must keep the length (a model
 * with insertions or deletions would make the periods differ).
 */
#include <stdlib.h>
#include <string.h>

#include "channel_model.h"
#include "fec.h"
#include "fecd_proto.h"
#include "softbits.h"

#include "feed.h"

int feed_replay_build(struct feed_replay *r, const struct fec_spec *spec, uint64_t seed,
                      uint64_t period_bits, const struct fec_channel *chan, float scale, int format,
                      bool polarity_one, struct fec_prng *noise)
{
	struct fec_bitstream bs;
	struct fec_encoder *enc;
	uint8_t *bits, *cbits;
	float *llr;
	size_t syms = fec_encoded_len(spec, (size_t)period_bits), n1 = 0, n2 = 0, nrx = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if (format == FECD_FMT_S4_PACKED && (syms & 1))
		return -FEC_EINVAL; /* s4 messages start on whole bytes: the period must too */
	if (fec_channel_max_out_len(chan, 2 * syms) != 2 * syms)
		return -FEC_ENOTSUP; /* the periods must stay as long as they were sent */
	if (fec_encoder_create(spec, &enc))
		return -FEC_EINVAL;
	bits = malloc((size_t)period_bits);
	cbits = malloc(2 * syms);
	llr = malloc(2 * syms * sizeof(float));
	r->wire = malloc(fecd_format_bytes(format, 2 * syms));
	if (!bits || !cbits || !llr || !r->wire) {
		rc = -FEC_ENOMEM;
		goto out_free;
	}
	fec_bitstream_init(&bs, seed);
	fec_bitstream_read(&bs, bits, (size_t)period_bits);
	if (fec_encode(enc, bits, (size_t)period_bits, cbits, &n1) ||
	    fec_encode(enc, bits, (size_t)period_bits, cbits + n1, &n2) || n1 != syms || n2 != syms) {
		rc = -FEC_EINVAL;
		goto out_free;
	}
	rc = fec_channel_apply(chan, noise, cbits, 2 * syms, llr, &nrx);
	if (rc || nrx != 2 * syms) {
		rc = rc ? rc : -FEC_ENOTSUP;
		goto out_free;
	}
	fec_llr_quantize(format, llr, 2 * syms, polarity_one, scale, r->wire);
	r->period_syms = syms;
	r->format = format;
	rc = 0;
out_free:
	if (rc) {
		free(r->wire);
		r->wire = NULL;
	}
	free(bits);
	free(cbits);
	free(llr);
	fec_encoder_destroy(enc);
	return rc;
}

void feed_replay_read(const struct feed_replay *r, uint64_t pos, size_t n, uint8_t *dst)
{
	uint64_t s = r->period_syms;

	while (n) {
		uint64_t j = pos < 2 * s ? pos : s + (pos - s) % s;
		size_t chunk = 2 * s - j < n ? (size_t)(2 * s - j) : n;
		size_t len = fecd_format_bytes(r->format, chunk);

		memcpy(dst, r->wire + fecd_format_bytes(r->format, (size_t)j), len);
		dst += len;
		pos += chunk;
		n -= chunk;
	}
}

void feed_replay_free(struct feed_replay *r)
{
	free(r->wire);
	r->wire = NULL;
}
