/*
 * The GPU simulator's bsid channel and ids encoder (fecd_cuda_sim_*, SIM_GPU.md), label gpu:
 *   - the encoder: the device's code bits equal fec_encode's (the ids CPU encoder) for the same
 *     information bits, for inner codes alone (random and watermark codebooks, q 4..256) and
 *     concatenations with an outer nbldpc code (bit order msb and lsb, q 4 and 16); noiseless
 *     frames reach the decoder as hard bits (+-127) through bsid with no edits;
 *   - the channel's statistics over many frames (the device's own counts): insertions,
 *     deletions and substitutions per code bit, the received length's mean and variance, each
 *     within 5 standard deviations of what pi, pd and ps give (codec/ids/ids_code.h's model);
 *     every frame's length is the code's plus its insertions less its deletions;
 *   - the channel's bits: with substitutions alone the received bits differ from the code bits
 *     in exactly the substitutions counted; with deletions alone they are a subsequence of the
 *     code bits; with insertions alone the code bits are a subsequence of them;
 *   - frames decode: noiseless with no edits, no error; the same seed's frames split over runs
 *     and batches give the same tally;
 *   - GPU against fecd-sim's CPU engine (sim_cpu_run, the channel table's bsid): FER (Wilson)
 *     and BER (batch means over 20 runs) intervals overlap, at the Fig. 17 setting (tvb-fig17,
 *     Pi = Pd = 1e-3, Ps = 0, hard bits), with soft bits (int8 and float input), at twice the
 *     edits, and for the concatenation dm-ldpc at 5 % edits;
 *   - refusals: a stream code over bsid, the all-zero codeword over bsid, a bad parameter.
 * A failing comparison names the code, the frame and the first differing index. Exits 77
 * without a GPU.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "sim.h"
#include "sim_agree.h"

static struct fecd_cuda *ctx;

struct code {
	struct fec_spec spec;
	struct fec_decoder *dec;
	struct fecd_cuda_sim *sim;
	struct fecd_cuda_sim_geometry g;
	char text[256], channel[128];
};

static int code_open(struct code *c, const char *text, const char *channel)
{
	char err[512];
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(c->text, sizeof(c->text), "%s", text);
	snprintf(c->channel, sizeof(c->channel), "%s", channel);
	if (fec_spec_from_string(text, &c->spec, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", text, err);
		return -1;
	}
	rc = fec_decoder_create(&c->spec, &c->dec);
	if (rc) {
		fprintf(stderr, "%s: %s\n", text, fec_strerror(rc));
		return -1;
	}
	rc = fecd_cuda_sim_open(ctx, c->dec, channel, false, &c->sim, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s over %s: fecd_cuda_sim_open: %s\n", text, channel, err);
		return rc;
	}
	fecd_cuda_sim_geometry(c->sim, &c->g);
	return 0;
}

static void code_close(struct code *c)
{
	fecd_cuda_sim_close(c->sim);
	if (c->dec)
		fec_decoder_destroy(c->dec);
	memset(c, 0, sizeof(*c));
}

/* Frames made on the device, copied back: generated bits, code bits, decoder input (int8),
 * received lengths and edits. */
struct peek {
	uint32_t count;
	uint8_t *bits, *code;
	int8_t *in;
	uint32_t *rx_len, *edits;
};

static void peek_free(struct peek *p)
{
	free(p->bits);
	free(p->code);
	free(p->in);
	free(p->rx_len);
	free(p->edits);
	memset(p, 0, sizeof(*p));
}

static int peek(struct code *c, double ebn0, uint64_t seed, uint64_t first, uint32_t count,
                struct peek *p)
{
	const struct fecd_cuda_sim_geometry *g = &c->g;
	char err[512];
	int rc;

	memset(p, 0, sizeof(*p));
	p->count = count;
	p->bits = malloc((size_t)count * g->gen_bits);
	p->code = malloc((size_t)count * g->code_syms);
	p->in = malloc((size_t)count * g->in_stride);
	p->rx_len = malloc((size_t)count * 4);
	p->edits = malloc((size_t)count * 12);
	if (!p->bits || !p->code || !p->in || !p->rx_len || !p->edits || g->in_f32) {
		peek_free(p);
		return -1;
	}
	rc = fecd_cuda_sim_peek(c->sim, ebn0, seed, first, count, p->bits, p->code, p->in, err,
	                        sizeof(err));
	if (!rc)
		rc = fecd_cuda_sim_peek_channel(c->sim, ebn0, seed, first, count, p->rx_len,
		                                p->edits, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s over %s: peek: %s\n", c->text, c->channel, err);
		peek_free(p);
	}
	return rc;
}

/* ---- Encoder */

/* The device's code bits against fec_encode's, and over bsid with no edits, noiseless, the
 * decoder's input: the code bits as hard bits. */
static void check_encoder(const char *text)
{
	struct code c;
	struct peek p;
	struct fec_encoder *enc = NULL;
	unsigned bad = 0, badin = 0;

	if (code_open(&c, text, "bsid,pi=0,pd=0,ps=0")) {
		CHECK(0, "%s: cannot open", text);
		code_close(&c);
		return;
	}
	CHECK(fec_encoder_create(&c.spec, &enc) == 0, "%s: CPU encoder", text);
	if (!enc || peek(&c, INFINITY, 7, 1000, 5, &p)) {
		CHECK(0, "%s: peek", text);
		fec_encoder_destroy(enc);
		code_close(&c);
		return;
	}
	const struct fecd_cuda_sim_geometry *g = &c.g;
	uint8_t *ref = malloc((size_t)g->code_syms + 64);

	for (uint32_t f = 0; ref && f < p.count; f++) {
		const uint8_t *fb = p.bits + (size_t)f * g->gen_bits;
		const uint8_t *fc = p.code + (size_t)f * g->code_syms;
		const int8_t *in = p.in + (size_t)f * g->in_stride;
		unsigned ones = 0;
		size_t n = 0;

		for (uint32_t j = 0; j < g->gen_bits; j++)
			ones += fb[j];
		CHECK(ones > g->gen_bits / 4 && ones < g->gen_bits * 3 / 4,
		      "%s frame %u: %u ones in %u bits: not random", text, f, ones, g->gen_bits);
		fec_encoder_reset(enc);
		CHECK(fec_encode(enc, fb, g->cmp_bits, ref, &n) == 0 && n == g->code_syms,
		      "%s frame %u: CPU encoder gave %zu code bits, device %u", text, f, n,
		      g->code_syms);
		for (uint32_t j = 0; j < g->code_syms && n == g->code_syms; j++)
			if (fc[j] != ref[j] && !bad++)
				fprintf(stderr,
				        "%s frame %u: code bit %u: device %u, fec_encode %u\n",
				        text, f, j, fc[j], ref[j]);
		CHECK(p.rx_len[f] == g->code_syms, "%s frame %u: received %u of %u bits", text, f,
		      p.rx_len[f], g->code_syms);
		for (uint32_t j = 0; j < g->code_syms; j++)
			if (in[j] != (fc[j] ? -127 : 127) && !badin++)
				fprintf(stderr, "%s frame %u: input %u: %d for code bit %u\n", text,
				        f, j, in[j], fc[j]);
	}
	CHECK(ref && bad == 0, "%s: %u code bits differ", text, bad);
	CHECK(badin == 0, "%s: %u noiseless input values are not the hard code bits", text, badin);
	printf("encoder %-60.60s %u bits -> %u code bits: %s\n", text, g->cmp_bits, g->code_syms,
	       bad || badin ? "DIFFER" : "same as fec_encode");
	free(ref);
	peek_free(&p);
	fec_encoder_destroy(enc);
	code_close(&c);
}

/* ---- Channel statistics */

/* |x - mean| within 5 standard deviations of a mean of 1 / w independent terms of variance var. */
static bool within(double x, double mean, double var, double w, const char *what, const char *ch)
{
	const double sd = sqrt(var * w);
	const bool ok = fabs(x - mean) <= 5.0 * sd + 1e-9;

	printf("  %-14s %.6g, expected %.6g +- %.3g (5 sd) %s\n", what, x, mean, 5.0 * sd,
	       ok ? "" : "OUTSIDE");
	CHECK(ok, "%s: %s %.6g outside %.6g +- 5 x %.3g", ch, what, x, mean, sd);
	return ok;
}

/* Frames of a code of n_bits code bits through channel: the device's edit counts per code bit
 * and the received lengths against the model's distribution (ids_code.h): per code bit,
 * K ~ geometric insertions (P(K = k) = pi^k (1 - pi)), then deleted with pd / (1 - pi), else
 * sent and flipped with ps. */
static void check_channel_stats(const char *text, double pi, double pd, double ps, uint32_t runs)
{
	char channel[128];
	struct code c;
	double ins = 0, del = 0, sub = 0, len = 0, len2 = 0, frames = 0;
	unsigned badlen = 0;

	snprintf(channel, sizeof(channel), "bsid,pi=%g,pd=%g,ps=%g", pi, pd, ps);
	if (code_open(&c, text, channel)) {
		CHECK(0, "%s over %s: cannot open", text, channel);
		code_close(&c);
		return;
	}
	const uint32_t n = c.g.code_syms, per = c.g.batch < 2000 ? c.g.batch : 2000;

	for (uint32_t r = 0; r < runs; r++) {
		struct peek p;

		if (peek(&c, 30.0, 5, (uint64_t)r * per, per, &p)) {
			CHECK(0, "%s: peek", channel);
			break;
		}
		for (uint32_t f = 0; f < per; f++) {
			const uint32_t *e = p.edits + 3 * f;
			const int64_t want = (int64_t)n + e[0] - e[1];

			if ((int64_t)p.rx_len[f] != (want < c.g.max_rx ? want : c.g.max_rx) &&
			    !badlen++)
				fprintf(stderr,
				        "%s frame %u: received %u bits, %u code bits + %u - %u\n",
				        channel, r * per + f, p.rx_len[f], n, e[0], e[1]);
			ins += e[0];
			del += e[1];
			sub += e[2];
			len += p.rx_len[f];
			len2 += (double)p.rx_len[f] * p.rx_len[f];
			frames++;
		}
		peek_free(&p);
	}
	const double bits = frames * n, q = 1.0 - pi;
	const double m_ins = pi / q, v_ins = pi / (q * q);
	const double m_del = pd / q, v_del = m_del * (1 - m_del);
	const double m_sub = (1 - m_del) * ps, v_sub = m_sub * (1 - m_sub);
	const double m_len = m_ins + 1 - m_del, v_len = v_ins + v_del;
	const double mean = len / frames, var = (len2 - frames * mean * mean) / (frames - 1);

	printf("channel %s on %s: %.0f frames of %u bits (received at most %u)\n", channel, text,
	       frames, n, c.g.max_rx);
	CHECK(badlen == 0, "%s: %u frames' lengths are not code + insertions - deletions", channel,
	      badlen);
	within(ins / bits, m_ins, v_ins, 1.0 / bits, "insertions/bit", channel);
	within(del / bits, m_del, v_del, 1.0 / bits, "deletions/bit", channel);
	within(sub / bits, m_sub, v_sub, 1.0 / bits, "subst./bit", channel);
	within(mean / n, m_len, v_len, 1.0 / bits, "length/bit", channel);
	/* the sample variance of the length: relative sd sqrt(2 / (frames - 1)) for a normal */
	within(var / (n * v_len), 1.0, 2.0, 1.0 / (frames - 1), "length var.", channel);
	code_close(&c);
}

/* Whether a (alen values) is a subsequence of b (blen). */
static bool subsequence(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
	uint32_t i = 0;

	for (uint32_t j = 0; i < alen && j < blen; j++)
		i += a[i] == b[j];
	return i == alen;
}

/* The received bits themselves (hard, noiseless) against the code bits, one kind of edit at a
 * time. */
static void check_channel_bits(const char *text, const char *channel, char kind)
{
	struct code c;
	struct peek p;
	unsigned bad = 0;
	uint64_t edits = 0;

	if (code_open(&c, text, channel) || peek(&c, INFINITY, 9, 0, 200, &p)) {
		CHECK(0, "%s over %s: cannot open or peek", text, channel);
		code_close(&c);
		return;
	}
	const uint32_t n = c.g.code_syms;
	uint8_t *rx = malloc(c.g.in_stride);

	for (uint32_t f = 0; rx && f < p.count; f++) {
		const uint8_t *fc = p.code + (size_t)f * n;
		const int8_t *in = p.in + (size_t)f * c.g.in_stride;
		const uint32_t *e = p.edits + 3 * f, len = p.rx_len[f];
		uint32_t diff = 0;
		bool ok = true;

		for (uint32_t j = 0; j < len; j++)
			rx[j] = in[j] < 0;
		switch (kind) {
		case 's':
			for (uint32_t j = 0; j < n && len == n; j++)
				diff += rx[j] != fc[j];
			ok = len == n && diff == e[2] && !e[0] && !e[1];
			edits += diff;
			break;
		case 'd':
			ok = len == n - e[1] && !e[0] && subsequence(rx, len, fc, n);
			edits += e[1];
			break;
		case 'i':
			ok = len == n + e[0] && !e[1] && subsequence(fc, n, rx, len);
			edits += e[0];
			break;
		}
		if (!ok && !bad++)
			fprintf(
			    stderr,
			    "%s frame %u: %u bits received of %u, edits %u %u %u, %u differ: not "
			    "the code bits with %s alone\n",
			    channel, f, len, n, e[0], e[1], e[2], diff,
			    kind == 's'   ? "substitutions"
			    : kind == 'd' ? "deletions"
			                  : "insertions");
	}
	CHECK(rx && bad == 0, "%s: %u frames' received bits do not follow their edits", channel,
	      bad);
	CHECK(edits > 0, "%s: no edits in %u frames", channel, p.count);
	printf("channel bits %s: %u frames, %llu edits, received bits as edited: %s\n", channel,
	       p.count, (unsigned long long)edits, bad ? "NO" : "yes");
	free(rx);
	peek_free(&p);
	code_close(&c);
}

/* ---- Runs */

static void check_noiseless(const char *text, uint64_t frames)
{
	struct fecd_cuda_sim_tally t = {0};
	struct code c;

	if (code_open(&c, text, "bsid,pi=0,pd=0,ps=0")) {
		CHECK(0, "%s: cannot open", text);
		code_close(&c);
		return;
	}
	CHECK(sim_run_print(c.sim, c.text, INFINITY, 3, 0, frames, &t) == 0, "%s: run", text);
	sim_tally_print(text, &t);
	CHECK(t.frames == frames && t.bit_errors == 0 && t.frame_errors == 0,
	      "%s noiseless, no edits: %llu bit errors, %llu frame errors in %llu frames", text,
	      (unsigned long long)t.bit_errors, (unsigned long long)t.frame_errors,
	      (unsigned long long)t.frames);
	code_close(&c);
}

/* One run against three runs over the same frames, and against batches of 37 frames. */
static void check_split(const char *text, const char *channel, double ebn0, uint64_t count)
{
	struct fecd_cuda_sim_tally one = {0}, three = {0}, small = {0};
	struct code c, d;
	const uint64_t a = count / 3, b = count / 2;

	if (code_open(&c, text, channel)) {
		CHECK(0, "%s: cannot open", text);
		code_close(&c);
		return;
	}
	CHECK(sim_run_print(c.sim, c.text, ebn0, 11, 500, count, &one) == 0, "run");
	CHECK(sim_run_print(c.sim, c.text, ebn0, 11, 500, a, &three) == 0, "run");
	CHECK(sim_run_print(c.sim, c.text, ebn0, 11, 500 + a, b, &three) == 0, "run");
	CHECK(sim_run_print(c.sim, c.text, ebn0, 11, 500 + a + b, count - a - b, &three) == 0,
	      "run");
	setenv("FECD_SIM_BATCH", "37", 1);
	int rc = code_open(&d, text, channel);
	unsetenv("FECD_SIM_BATCH");
	CHECK(rc == 0 && d.g.batch == 37, "%s: small batches: %u", text, d.g.batch);
	if (rc == 0)
		CHECK(sim_run_print(d.sim, d.text, ebn0, 11, 500, count, &small) == 0, "run");
	printf("split %s over %s at %.1f dB, batches of %u and 37:\n", text, channel, ebn0,
	       c.g.batch);
	sim_tally_print("one run", &one);
	sim_tally_print("three runs", &three);
	sim_tally_print("batches of 37", &small);
	CHECK(one.frame_errors > 0, "%s: no frame errors: the split test sees nothing", text);
	CHECK(sim_tally_same(&one, &three), "%s over %s: one run and three runs differ", text,
	      channel);
	CHECK(sim_tally_same(&one, &small), "%s over %s: batches of %u and of 37 differ", text,
	      channel, c.g.batch);
	code_close(&d);
	code_close(&c);
}

/* ---- GPU against the CPU engine */

/* text over channel at ebn0: gpu_frames on the device, cpu_frames through fecd-sim's CPU engine
 * (every core; SIM_AGREE_CHUNKS points of cpu_frames / SIM_AGREE_CHUNKS frames each, for the
 * batch means). */
static void check_agree(const char *text, const char *channel, double ebn0, uint64_t gpu_frames,
                        uint64_t cpu_frames)
{
	struct sim_estimate ge = {0}, ce = {0};
	struct sim_code sc;
	struct sim_cpu *cpu = NULL;
	struct code c;
	char err[512] = "", what[512], why[1024];
	int rc;

	if (code_open(&c, text, channel)) {
		CHECK(0, "%s over %s: cannot open", text, channel);
		code_close(&c);
		return;
	}
	rc = sim_estimate_gpu(c.sim, ebn0, gpu_frames, &ge, err, sizeof(err));
	if (!rc && sim_code_open(&sc, text, channel, false, 0, err, sizeof(err)) == 0) {
		const struct sim_stop stop = {.max_frames = cpu_frames / SIM_AGREE_CHUNKS};
		volatile int flag = 0;

		rc = sim_cpu_open(&sc, 0, &cpu, err, sizeof(err));
		for (int i = 0; !rc && i < SIM_AGREE_CHUNKS; i++) {
			struct sim_result r;

			rc = sim_cpu_run(cpu, ebn0, 4242, (uint32_t)i, &stop, &flag, NULL, NULL, &r,
			                 err, sizeof(err));
			if (!rc)
				sim_estimate_add(&ce, r.t.frames, r.t.frame_errors, r.t.bits,
				                 r.t.bit_errors);
		}
		if (!rc)
			rc = sim_estimate_finish(&ce);
		sim_cpu_close(cpu);
		sim_code_close(&sc);
	} else if (!rc) {
		rc = -1;
	}
	CHECK(rc == 0, "%s over %s: simulation failed: %s", text, channel, rc ? err : "");
	if (rc == 0) {
		printf("agree %s over %s at %.1f dB\n", text, channel, ebn0);
		snprintf(what, sizeof(what), "%s over %s at %.1f dB", text, channel, ebn0);
		CHECK(sim_agree(what, &ge, &ce, why, sizeof(why)) == 0, "%s", why);
	}
	code_close(&c);
}

/* ---- Refusals */

static void check_refusals(void)
{
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	struct fecd_cuda_sim *sim = NULL;
	char err[512];
	int rc;

	/* a stream code's jobs have fixed lengths */
	CHECK(fec_spec_from_string("ccsds", &spec, err, sizeof(err)) == 0 &&
	          fec_decoder_create(&spec, &dec) == 0,
	      "ccsds: %s", err);
	if (dec) {
		rc = fecd_cuda_sim_open(ctx, dec, "bsid,pi=0.01", false, &sim, err, sizeof(err));
		CHECK(rc == -FEC_ENOTSUP, "ccsds over bsid: open returned %d", rc);
		CHECK(!fecd_cuda_sim_supports(&spec, "bsid"), "ccsds over bsid: supported");
		printf("ccsds over bsid: %s\n", err);
		fecd_cuda_sim_close(sim);
		fec_decoder_destroy(dec);
		dec = NULL;
		sim = NULL;
	}
	CHECK(fec_spec_from_string("tvb-fig17", &spec, err, sizeof(err)) == 0 &&
	          fec_decoder_create(&spec, &dec) == 0,
	      "tvb-fig17: %s", err);
	if (dec) {
		CHECK(fecd_cuda_sim_supports(&spec, "bsid,pi=0.001,pd=0.001"),
		      "tvb-fig17 over bsid: not supported");
		CHECK(fecd_cuda_sim_supports(&spec, "awgn"), "tvb-fig17 over awgn: not supported");
		rc = fecd_cuda_sim_open(ctx, dec, "bsid", true, &sim, err, sizeof(err));
		CHECK(rc == -FEC_EINVAL, "all-zero over bsid: open returned %d", rc);
		printf("all-zero over bsid: %s\n", err);
		fecd_cuda_sim_close(sim);
		sim = NULL;
		rc = fecd_cuda_sim_open(ctx, dec, "bsid,pq=1", false, &sim, err, sizeof(err));
		CHECK(rc == -FEC_EINVAL, "bsid,pq=1: open returned %d", rc);
		printf("bsid,pq=1: %s\n", err);
		fecd_cuda_sim_close(sim);
		fec_decoder_destroy(dec);
	}
}

int main(void)
{
	const char *fig17 = "tvb-fig17";
	const char *fig17_ch = "bsid,pi=0.001,pd=0.001,ps=0";
	const char *wide = "ids,code=random,N=250,q=16,n=8,seed=2,pi=0.05,pd=0.05";
	char msg[256], err[512];

	if (fecd_cuda_device_count(msg, sizeof(msg)) <= 0)
		check_skip(msg);
	if (fecd_cuda_open(0, &ctx, err, sizeof(err))) {
		fprintf(stderr, "fecd_cuda_open: %s\n", err);
		return 1;
	}
	check_refusals();

	check_encoder(fig17);
	check_encoder("dm-ldpc");
	check_encoder("ids,code=random,N=300,q=4,n=5,seed=3");
	check_encoder("ids,code=watermark,N=100,q=256,n=10,seed=4");
	check_encoder("ids,code=watermark,N=200,q=4,n=3,seed=5,"
	              "outer=(nbldpc,code=regular,q=4,n=200,dv=2,dc=4,seed=6)");
	check_encoder("ids,code=watermark,N=500,q=16,n=6,seed=1,pi=0.01,pd=0.01,"
	              "outer=(nbldpc,code=regular,q=16,n=500,dv=2,dc=4,seed=1,bit_order=lsb)");

	check_channel_stats(wide, 0.01, 0.02, 0.03, 8);
	check_channel_stats(wide, 0.02, 0.0, 0.0, 4);
	check_channel_stats(fig17, 0.001, 0.001, 0.0, 8);
	check_channel_bits(wide, "bsid,pi=0,pd=0,ps=0.05", 's');
	check_channel_bits(wide, "bsid,pi=0,pd=0.02,ps=0", 'd');
	check_channel_bits(wide, "bsid,pi=0.02,pd=0,ps=0", 'i');

	check_noiseless(fig17, 2000);
	check_noiseless("dm-ldpc", 2000);
	check_split(fig17, "bsid,pi=0.003,pd=0.003,ps=0", 20.0, 600);

	/* the Fig. 17 setting (hard bits at 20 dB; FER 0.84 on the CPU), the same with soft bits
	 * at 10 dB (0.95), a shorter code at twice the edits (0.63), and the concatenation at
	 * 5 % edits, past its waterfall (0.18) */
	check_agree(fig17, fig17_ch, 20.0, 8000, 4000);
	check_agree(fig17, fig17_ch, 10.0, 8000, 4000);
	check_agree("tvb-fig17,in=f32", fig17_ch, 10.0, 4000, 2000);
	check_agree("ids,code=random,N=200,q=16,n=8,seed=1,pi=0.002,pd=0.002",
	            "bsid,pi=0.002,pd=0.002", 20.0, 8000, 4000);
	check_agree("dm-ldpc,pi=0.05,pd=0.05", "bsid,pi=0.05,pd=0.05", 20.0, 4000, 2000);

	fecd_cuda_close(ctx);
	return check_done();
}
