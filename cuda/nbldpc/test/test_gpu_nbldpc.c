/*
 * The GPU nbldpc decoder against the CPU one, through the public GPU API (a lane), job by job.
 * Cases: generated (2,4)-regular codes over GF(q) for every q = 2..256, the BeiDou presets and
 * nb60-gf64 from the codes folder; FFT-BP in the probability and the log domain, and trellis
 * min-sum (algo=tms: every frame's status, iterations and bits equal, being integer; each of its
 * kernels on GF(64), see test_tms; run alone with `test_gpu_nbldpc tms`, under some kernels
 * only with `test_gpu_nbldpc tms v2`, the choices whose name holds "v2"); int8 and
 * float32 bit LLRs and q-ary (f32v) input; soft output as symbol log-probabilities and as bit
 * LLRs; early stop on and off. FFT-BP in the probability domain runs, where every column has
 * degree 2, the kernel with the messages on chip (nbldpc_gpu_fftbp_chip.cu; the case must name
 * it), and test_fftbp_kernels runs GF(64) under each FECD_FFTBP_KERNEL choice (in device memory;
 * on chip with 2, 4 or 8 values a lane, clusters of 1 to 16 blocks) and the seed's GF64_5040
 * size. `test_gpu_nbldpc fftbp` runs the FFT-BP cases alone, `test_gpu_nbldpc chip` the
 * kernel choices alone. Frames are seeded codewords through
 * BPSK over AWGN at a point where some frames fail, plus jobs of the wrong length that must come
 * back ERASED.
 *
 * What must agree. FFT-BP is float arithmetic and the GPU's sums (tree reductions) and fast-math
 * expf/logf round differently from the CPU's, so values differ in the last bits and a frame on
 * the edge of decoding can, rarely, take another iteration or another decision. So:
 *   - every job: out_bits and soft_count equal; ERASED jobs equal;
 *   - status, iterations (work) and the output bytes equal on all but FLIP_MAX of the frames of
 *     a case, and the case's frame-error counts (not DECODED or a wrong bit) differ by at most
 *     that many: decisions agree, as the issue asks of float FFT-BP;
 *   - on the frames that agree, soft values within SOFT_ABS + SOFT_REL |value| of the CPU's,
 *     and where both are beyond SOFT_TAIL (a symbol probability or a bit's below 3e-4) of the
 *     same sign. Measured on an H200: rounding that compounds over 10-15 iterations moved an
 *     LLR of 0.89 to 0.86 (q = 128, log domain); values in the tails, from magnitude 10 on,
 *     moved by up to a few units and, at the probability domain's floor (1e-30), from -18 to
 *     -65: float32 products of probabilities that small are rounding on the CPU as well. One
 *     soft value in 2000 of a case may be off by more: the log domain's signed transform
 *     cancels where a transform value is near zero, its sign then follows rounding, and one
 *     side floors a check message the other keeps (measured: one value of 1292 in a frame of
 *     GF(64), -2.6 on the CPU and -63 on the GPU, in one case of the 42).
 * Every difference is printed: case, job, field, first differing index. Exits 77 without a GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "awgn.h"
#include "bitpack.h"
#include "check.h"
#include "fec.h"
#include "fecd_cuda.h"
#include "gpu_test.h"
#include "nbldpc.h"
#include "prng.h"
#include "twin_batch.h"

#define FLIP_MAX  1     /* frames of a case whose decision may differ (see above) */
#define SOFT_ABS  0.05f /* soft values: absolute tolerance */
#define SOFT_REL  0.1f  /* and relative */
#define SOFT_TAIL 8.0f  /* magnitude from which soft values need only agree in sign */
/* soft values of a case allowed outside those bounds: one in 2000, at least 1 */
#define SOFT_OFF_MAX(n) ((n) / 2000 > 0 ? (n) / 2000 : 1ul)

/* A batch of frames and both decodes of it. */
struct run {
	struct twin_batch b;
	const struct fec_info *info;
	const struct nbldpc_code *code;
	uint32_t kb;
	uint8_t *sent; /* information bits, one per byte */
};

static void run_free(struct run *r)
{
	twin_batch_free(&r->b);
	free(r->sent);
	memset(r, 0, sizeof(*r));
}

/* bit_shift of the decoder's bit order: bit t of a symbol's p bits (0 = first sent). */
static unsigned bit_shift(const struct fec_spec *spec, unsigned p, unsigned t)
{
	return spec->u.nbldpc.bit_order == NBLDPC_MSB_FIRST ? p - 1 - t : t;
}

/* count frames of the decoder's code at ebn0 dB in its input kind; every 7th job from 5 on has
 * the wrong length. 0, or -1. */
static int run_make(const struct fec_spec *spec, const struct fec_decoder *dec, uint32_t count,
                    double ebn0, uint64_t seed, struct run *r)
{
	const struct fec_info *info = fec_decoder_info(dec);
	const struct nbldpc_code *c = nbldpc_decoder_code(dec);
	const unsigned p = c->gf.p, q = c->gf.q;
	const double sigma = fec_awgn_sigma(ebn0, (double)c->k / c->n);
	struct fec_encoder *enc = NULL;
	struct fec_prng rng;
	uint8_t *cw;
	size_t nout;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->info = info;
	r->code = c;
	r->kb = c->k * p;
	if (twin_batch_alloc(&r->b, info, count, (size_t)info->frame_syms * info->in_q,
	                     (r->kb + 7) / 8))
		return -1;
	r->sent = malloc((size_t)count * r->kb);
	cw = malloc((size_t)c->n * p);
	if (!r->sent || !cw)
		goto out;
	if (fec_encoder_create(spec, &enc))
		goto out;
	fec_prng_seed(&rng, seed);
	for (uint32_t j = 0; j < count; j++) {
		uint8_t *bits = r->sent + (size_t)j * r->kb;

		fec_prng_bits(&rng, bits, r->kb);
		if (fec_encode(enc, bits, r->kb, cw, &nout) || nout != (size_t)c->n * p)
			goto out;
		for (uint32_t x = 0; x < c->n; x++) {
			float llr[8];

			for (unsigned t = 0; t < p; t++) {
				const double y =
				    (cw[x * p + t] ? -1.0 : 1.0) + sigma * fec_prng_gauss(&rng);
				const double l = 2.0 * y / (sigma * sigma);
				const double s = l * spec->frame.llr_scale;

				llr[t] = (float)l;
				r->b.in[j * r->b.in_stride + x * p + t] =
				    (int8_t)(s > 127    ? 127
				             : s < -128 ? -128
				                        : lrint(s));
				if (info->in_kind == FEC_IN_F32_LLR)
					r->b.in_f[j * r->b.in_stride + x * p + t] = llr[t];
			}
			if (info->in_kind != FEC_IN_F32_SYMLOGP)
				continue;
			for (unsigned a = 0; a < q; a++) {
				float v = 0.0f;

				for (unsigned t = 0; t < p; t++)
					if ((a >> bit_shift(spec, p, t)) & 1)
						v -= llr[t];
				r->b.in_f[j * r->b.in_stride + (size_t)x * q + a] = v;
			}
		}
		r->b.jobs[j] =
		    (struct fec_job){.in_len = info->frame_syms, .own_len = info->frame_syms};
		if (j % 7 == 5)
			r->b.jobs[j].in_len = info->frame_syms - 1;
	}
	rc = 0;
out:
	fec_encoder_destroy(enc);
	free(cw);
	return rc;
}

/* Whether job j of a decode is a frame error (not DECODED, or a wrong bit). */
static bool frame_error(const struct run *r, const struct fec_job *job, const uint8_t *out,
                        uint32_t j)
{
	uint8_t packed[4096];

	if (job->status != FECD_STATUS_DECODED || job->out_bits != r->kb || r->b.out_stride > 4096)
		return true;
	fec_pack_bits(r->sent + (size_t)j * r->kb, r->kb, packed);
	return fec_count_bit_errors(packed, out + j * r->b.out_stride, r->kb) != 0;
}

static bool soft_near(float a, float b)
{
	const float ma = fabsf(a), mb = fabsf(b);

	if (ma >= SOFT_TAIL && mb >= SOFT_TAIL)
		return (a < 0) == (b < 0);
	return fabsf(a - b) <= SOFT_ABS + SOFT_REL * fmaxf(ma, mb);
}

/* Decodes one case on both and compares; prints the case's line. flip_max: frames whose decision
 * may differ (FLIP_MAX for FFT-BP, 0 for tms, whose integer arithmetic the GPU gives exactly);
 * want: text the GPU decoder's description must hold (the kernel expected), NULL for any. */
static void run_case_want(struct gpu_test *g, const char *text, uint32_t count, double ebn0,
                          bool soft, unsigned flip_max, const char *want)
{
	struct fec_spec spec;
	struct fec_decoder *dec = NULL;
	struct fecd_cuda_decoder *gdec = NULL;
	struct run r = {0};
	char err[400];
	unsigned flips = 0, fe_cpu = 0, fe_gpu = 0, iters = 0, erased = 0;
	unsigned long nsoft = 0, soft_off = 0;

	if (fec_spec_from_string(text, &spec, err, sizeof(err)) ||
	    fec_decoder_create(&spec, &dec)) {
		CHECK(0, "%s: no CPU decoder: %s", text, err);
		goto out;
	}
	if (!fecd_cuda_supports(&spec)) {
		CHECK(0, "%s: the GPU should decode it", text);
		goto out;
	}
	if (fecd_cuda_decoder_create(g->ctx, dec, &gdec, err, sizeof(err))) {
		CHECK(0, "%s: GPU decoder: %s", text, err);
		goto out;
	}
	CHECK(!want || strstr(fecd_cuda_decoder_describe(gdec), want), "%s: kernel %s, not %s",
	      text, fecd_cuda_decoder_describe(gdec), want);
	if (run_make(&spec, dec, count, ebn0, 17 + count, &r)) {
		CHECK(0, "%s: frames", text);
		goto out;
	}
	if (twin_batch_decode(&r.b, dec, g, gdec, soft, err, sizeof(err))) {
		CHECK(0, "%s: %s", text, err);
		goto out;
	}
	const struct twin_side *cs = &r.b.cpu, *gs = &r.b.gpu;
	const size_t ostride = r.b.out_stride, sstride = r.b.soft_stride;

	for (uint32_t j = 0; j < count; j++) {
		const struct fec_job *a = &cs->jobs[j], *b = &gs->jobs[j];
		const bool erase = a->status == FECD_STATUS_ERASED;

		erased += erase;
		if (erase || b->status == FECD_STATUS_ERASED) {
			CHECK(a->status == b->status && b->out_bits == 0 && b->soft_count == 0,
			      "%s: job %u: status %u (CPU) / %u (GPU), out_bits %u", text, j,
			      a->status, b->status, b->out_bits);
			continue;
		}
		CHECK(a->out_bits == b->out_bits && a->soft_count == b->soft_count,
		      "%s: job %u: out_bits %u / %u, soft_count %u / %u", text, j, a->out_bits,
		      b->out_bits, a->soft_count, b->soft_count);
		fe_cpu += frame_error(&r, a, cs->out, j);
		fe_gpu += frame_error(&r, b, gs->out, j);
		iters += a->work;
		if (a->status != b->status || a->work != b->work ||
		    memcmp(cs->out + j * ostride, gs->out + j * ostride, ostride)) {
			uint32_t byte = 0;

			while (byte < ostride &&
			       cs->out[j * ostride + byte] == gs->out[j * ostride + byte])
				byte++;
			printf("  %s: job %u differs: status %u / %u, work %u / %u, first output "
			       "byte differing %d\n",
			       text, j, a->status, b->status, a->work, b->work,
			       byte < ostride ? (int)byte : -1);
			flips++;
			continue;
		}
		for (uint32_t k = 0; soft && k < a->soft_count; k++) {
			const float x = cs->soft[j * sstride + k];
			const float y = gs->soft[j * sstride + k];

			nsoft++;
			if (!soft_near(x, y)) {
				printf("  %s: job %u: soft value %u: %g (CPU) / %g (GPU)\n", text,
				       j, k, (double)x, (double)y);
				soft_off++;
			}
		}
	}
	CHECK(soft_off <= SOFT_OFF_MAX(nsoft), "%s: %lu of %lu soft values off (at most %lu)", text,
	      soft_off, nsoft, SOFT_OFF_MAX(nsoft));
	CHECK(flips <= flip_max, "%s: %u frames decided differently (at most %u)", text, flips,
	      flip_max);
	CHECK((fe_cpu > fe_gpu ? fe_cpu - fe_gpu : fe_gpu - fe_cpu) <= flip_max,
	      "%s: frame errors %u (CPU) / %u (GPU)", text, fe_cpu, fe_gpu);
	printf("%s at %.1f dB: %u frames (%u erased), frame errors %u / %u, %.2f iterations a "
	       "frame, %u decided differently; %s\n",
	       text, ebn0, count, erased, fe_cpu, fe_gpu,
	       count > erased ? (double)iters / (count - erased) : 0.0, flips,
	       fecd_cuda_decoder_describe(gdec));
out:
	run_free(&r);
	fecd_cuda_decoder_destroy(gdec);
	fec_decoder_destroy(dec);
}

static void run_case_flips(struct gpu_test *g, const char *text, uint32_t count, double ebn0,
                           bool soft, unsigned flip_max)
{
	run_case_want(g, text, count, ebn0, soft, flip_max, NULL);
}

/* FFT-BP: the kernel with the messages on chip where the code takes it (probability domain,
 * columns of degree 2: every case here but the log domain's and the denser codes'). */
static void run_case(struct gpu_test *g, const char *text, uint32_t count, double ebn0, bool soft)
{
	const bool chip = !strstr(text, "domain=log") && !strstr(text, "dv=3") &&
	                  !strstr(text, "dv=4") && !getenv("FECD_FFTBP_KERNEL");

	run_case_want(g, text, count, ebn0, soft, FLIP_MAX, chip ? "fftbp_chip_kernel" : NULL);
}

/* Trellis min-sum (algo=tms): every q, each input kind and soft output kind, early stop on and
 * off, other dev2 and offset, the presets; status, iterations and bits equal on every frame.
 * GF(64) (the presets, p = 6) runs once per kernel: FECD_TMS_KERNEL unset (the frame on chip where
 * it fits a block, else the register check in device memory), chip4 (on chip, 4 warps a block),
 * reg, smem (the shared-memory check), chip8,v1 (the first register check), reg,dyn (dev2
 * not unrolled), chip8,bar (barriers between stages, not the default flow form; form 2), reg,lb8
 * (64 registers; form 2) and form 2 where form 3 is the default (chip8,v2, reg,v2,
 * chip8,v2,dyn); the case's line names the kernel that ran. */
static void test_tms(struct gpu_test *g, bool presets, const char *only)
{
	static const char *const ins[] = {"s8", "f32", "f32v"};
	static const char *const names[] = {"bds-b1c-sf2", "bds-b1c-sf3", "bds-b2a", "bds-b2b",
	                                    "nb60-gf64"};
	static const char *const kernels[] = {NULL,       "chip4",   "reg",         "smem",
	                                      "chip8,v1", "reg,dyn", "chip8,bar",   "reg,lb8",
	                                      "chip8,v2", "reg,v2",  "chip8,v2,dyn"};
	char text[256];

	for (unsigned kk = 0; kk < sizeof(kernels) / sizeof(kernels[0]); kk++) {
		if (only && !strstr(kernels[kk] ? kernels[kk] : "(unset)", only))
			continue;
		if (kernels[kk])
			setenv("FECD_TMS_KERNEL", kernels[kk], 1);
		else
			unsetenv("FECD_TMS_KERNEL");
		printf("tms, FECD_TMS_KERNEL=%s\n", kernels[kk] ? kernels[kk] : "(unset)");
		for (unsigned p = kk ? 6 : 1; p <= (kk ? 6u : 8u); p++) {
			const unsigned q = 1u << p, n = q >= 128 ? 48 : q >= 32 ? 96 : 192;

			for (unsigned v = 0; v < 3; v++) {
				snprintf(text, sizeof(text),
				         "nbldpc,code=regular,q=%u,n=%u,dv=2,dc=4,seed=%u,algo=tms,"
				         "in=%s,soft=%s,iters=%u,early_stop=%s,bit_order=%s%s",
				         q, n, p + v, ins[(p + v) % 3], v & 1 ? "bit" : "sym",
				         10 + 5 * v, v == 2 ? "false" : "true",
				         v == 1 ? "lsb" : "msb",
				         v == 1   ? ",dev2=3,offset=20"
				         : v == 2 ? ",dev2=63,offset=0"
				                  : "");
				run_case_flips(g, text, 40, p <= 2 ? 2.5 : 1.5, true, 0);
			}
		}
		/* GF(64) rows of 6 and 8: the register check with D = 8; rows of 9: the
		 * shared-memory check whatever the variable says; 1680 symbols: too big for a
		 * block's shared memory */
		run_case_flips(g, "nbldpc,code=regular,q=64,n=96,dv=3,dc=6,seed=2,algo=tms", 64,
		               2.0, false, 0);
		run_case_flips(g,
		               "nbldpc,code=regular,q=64,n=120,dv=4,dc=8,seed=3,algo=tms,soft=bit",
		               64, 2.0, true, 0);
		if (!kernels[kk]) {
			run_case_flips(g, "nbldpc,code=regular,q=64,n=90,dv=3,dc=9,seed=3,algo=tms",
			               64, 3.0, false, 0);
			run_case_flips(g,
			               "nbldpc,code=regular,q=64,n=1680,dv=2,dc=4,seed=1,algo=tms,"
			               "soft=bit",
			               24, 1.5, true, 0);
		}
		/* dev2 = 3, 4, 5 and 8 on rows of 4: the register check with dev2 unrolled (forms 2
		 * and 3; dev2 3 also in the generated cases above) */
		run_case_flips(g,
		               "nbldpc,code=regular,q=64,n=96,dv=2,dc=4,seed=5,algo=tms,dev2=4,"
		               "iters=10,early_stop=false",
		               64, 1.5, false, 0);
		if (presets) {
			run_case_flips(g, "bds-b1c-sf2,algo=tms,dev2=4,soft=bit", 64, 2.0, true, 0);
			run_case_flips(g, "bds-b1c-sf2,algo=tms,dev2=5,offset=6", 64, 2.0, false,
			               0);
			run_case_flips(g, "bds-b1c-sf2,algo=tms,dev2=5,iters=10,early_stop=false",
			               64, 1.75, true, 0);
			run_case_flips(g, "bds-b1c-sf2,algo=tms,dev2=3,iters=10,early_stop=false",
			               64, 1.75, false, 0);
		}
		for (unsigned i = 0; presets && i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(text, sizeof(text), "%s,algo=tms,soft=%s", names[i],
			         i & 1 ? "bit" : "sym");
			run_case_flips(g, text, kernels[kk] ? 64 : 256, 1.5, true, 0);
		}
	}
	unsetenv("FECD_TMS_KERNEL");
}

/* Every q, both domains, each input kind and soft output kind; early stop on and off. */
static void test_generated(struct gpu_test *g)
{
	static const char *const ins[] = {"s8", "f32", "f32v"};
	char text[256];

	for (unsigned p = 1; p <= 8; p++) {
		const unsigned q = 1u << p;
		/* smaller codes for large q: the CPU's cost grows as q log q a message */
		const unsigned n = q >= 128 ? 48 : q >= 32 ? 96 : 192;

		for (unsigned v = 0; v < 4; v++) {
			snprintf(text, sizeof(text),
			         "nbldpc,code=regular,q=%u,n=%u,dv=2,dc=4,seed=%u,domain=%s,in=%s,"
			         "soft=%s,iters=%u,early_stop=%s,bit_order=%s",
			         q, n, p + v, v & 1 ? "log" : "prob", ins[(p + v) % 3],
			         v & 2 ? "bit" : "sym", 10 + 5 * (v & 1), v == 2 ? "false" : "true",
			         v == 3 ? "lsb" : "msb");
			run_case(g, text, 40, p <= 2 ? 2.5 : 1.5, true);
		}
	}
	/* a denser code (rows of 8, columns of 4), soft output off */
	run_case(g, "nbldpc,code=regular,q=16,n=120,dv=4,dc=8,seed=2,domain=prob", 40, 2.0, false);
	run_case(g, "nbldpc,code=regular,q=64,n=96,dv=3,dc=6,seed=2,domain=log,in=f32", 40, 2.0,
	         false);
}

/* The codes from files: the BeiDou presets and nb60-gf64. */
static void test_presets(struct gpu_test *g)
{
	static const char *const presets[] = {"bds-b1c-sf2", "bds-b1c-sf3", "bds-b2a", "bds-b2b",
	                                      "nb60-gf64"};
	char text[128];

	for (unsigned i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		for (unsigned d = 0; d < 2; d++) {
			snprintf(text, sizeof(text), "%s,domain=%s,soft=%s", presets[i],
			         d ? "log" : "prob", d ? "bit" : "sym");
			run_case(g, text, 64, 1.5, true);
		}
}

/* FFT-BP, probability domain, GF(64) under each kernel FECD_FFTBP_KERNEL names: in device memory
 * (dram), on chip with 2 and 8 values a lane (v2, v8; the default is 4) and in clusters of 2, 8
 * and 16 blocks (c2, c8, c16: a frame's rows partitioned across the blocks' shared memory, some
 * of the variables' messages in another block's; c8,p0: rows split in order, most of them in
 * another block's; c6: a size not a power of 2), and the on-chip kernel's variants: the code's
 * tables read from device memory (s0), cluster barriers in a cluster of one block (b0), per-edge
 * degree tests (d0), all three (old: the kernel before the variants), and the split cluster
 * barrier (split: on GF64_5040's cluster of 8; c8,split: on the small code's too), .aligned
 * cluster barriers (al), the group form's check phase (e0) and the edge form's two phases (f0)
 * where the fused form (a lane an edge, the variable's products folded into the check: one
 * phase an iteration) is the default (q = 64, rows of at most 4: c2, c6, c8 and c16 run the
 * fused form across a cluster).
 * c16 needs a non-portable cluster size: where
 * the device declines it the kernel in device memory runs (the line names it). The seed's
 * GF64_5040 size (a cluster of 8 by default) and the presets as well (s0 and b0 exist for rows of
 * at most 4 only: the presets with longer rows run in device memory under them). */
static void test_fftbp_kernels(struct gpu_test *g, bool presets, const char *only)
{
	static const char *const kernels[] = {
	    "dram",       "chip,v2",       "chip,v8", "chip,c2", "chip,c6", "chip,c8",
	    "chip,c16",   "chip,c8,p0",    "chip,s0", "chip,b0", "chip,d0", "chip,old",
	    "chip,split", "chip,c8,split", "chip,al", "chip,e0", "chip,f0"};
	static const char *const names[] = {"bds-b1c-sf2", "bds-b1c-sf3", "bds-b2a", "bds-b2b",
	                                    "nb60-gf64"};
	char text[256];

	unsetenv("FECD_FFTBP_KERNEL");
	run_case_want(g,
	              "nbldpc,code=regular,q=64,n=1680,dv=2,dc=4,seed=1,soft=bit,iters=10,"
	              "early_stop=false",
	              24, 1.5, true, FLIP_MAX, "cluster of 8 blocks");
	/* early stop: the decisions and syndrome across the cluster every iteration */
	run_case_want(g, "nbldpc,code=regular,q=64,n=1680,dv=2,dc=4,seed=3,soft=sym", 12, 1.5, true,
	              FLIP_MAX, "cluster of 8 blocks");
	if (presets)
		run_case_want(g, "bds-b1c-sf2,iters=10,early_stop=false", 64, 1.5, false, FLIP_MAX,
		              "cluster of 1 blocks");
	for (unsigned kk = 0; kk < sizeof(kernels) / sizeof(kernels[0]); kk++) {
		const bool chip = strncmp(kernels[kk], "chip", 4) == 0;

		if (only && strcmp(kernels[kk], only))
			continue;
		setenv("FECD_FFTBP_KERNEL", kernels[kk], 1);
		printf("fft-bp, FECD_FFTBP_KERNEL=%s\n", kernels[kk]);
		for (unsigned v = 0; v < 3; v++) {
			snprintf(text, sizeof(text),
			         "nbldpc,code=regular,q=64,n=96,dv=2,dc=4,seed=%u,in=%s,soft=%s,"
			         "iters=%u,early_stop=%s",
			         7 + v,
			         v == 0   ? "s8"
			         : v == 1 ? "f32"
			                  : "f32v",
			         v & 1 ? "bit" : "sym", 10 + 5 * v, v == 2 ? "false" : "true");
			run_case_want(g, text, 40, 1.5, true, FLIP_MAX,
			              !chip                             ? "nbldpc_fftbp_kernel"
			              : strcmp(kernels[kk], "chip,c16") ? "fftbp_chip_kernel"
			                                                : NULL);
		}
		if (strcmp(kernels[kk], "chip,c16")) /* the large code: c16 as c8 on it */
			run_case_want(g,
			              "nbldpc,code=regular,q=64,n=1680,dv=2,dc=4,seed=2,iters=10,"
			              "early_stop=false",
			              16, 1.5, false, FLIP_MAX, NULL);
		for (unsigned i = 0; presets && i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(text, sizeof(text), "%s,soft=%s", names[i], i & 1 ? "bit" : "sym");
			run_case_want(g, text, 64, 1.5, true, FLIP_MAX, NULL);
		}
	}
	unsetenv("FECD_FFTBP_KERNEL");
}

int main(int argc, char **argv)
{
	struct gpu_test g = {0};
	bool have_dir;
	const char *dir = getenv("FECD_CODES_DIR");
	struct stat st;
	int rc;

	rc = gpu_test_open(&g);
	if (rc)
		return rc;
	have_dir = dir && *dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	{ /* soft=code (every code symbol's posteriors, for ids's passes back) is the CPU's alone */
		struct fec_spec spec;
		char err[256] = "";

		CHECK(fec_spec_from_string("nbldpc,code=regular,q=16,n=96,soft=code", &spec, err,
		                           sizeof(err)) == 0 &&
		          !fecd_cuda_supports(&spec),
		      "soft=code: the GPU backend should decline it (%s)", err);
	}
	/* test_gpu_nbldpc tms [KERNELS]: the tms cases alone (under the FECD_TMS_KERNEL choices
	 * whose name holds KERNELS, "(unset)" for the default); test_gpu_nbldpc fftbp: FFT-BP's
	 * alone; test_gpu_nbldpc chip [KERNEL]: FFT-BP's kernel choices alone (test_fftbp_kernels; only
	 * the FECD_FFTBP_KERNEL value KERNEL where given) */
	if (!(argc > 1 && (!strcmp(argv[1], "fftbp") || !strcmp(argv[1], "chip"))))
		test_tms(&g, have_dir, argc > 2 && !strcmp(argv[1], "tms") ? argv[2] : NULL);
	if (argc > 1 && !strcmp(argv[1], "tms"))
		goto out;
	test_fftbp_kernels(&g, have_dir,
	                   argc > 2 && !strcmp(argv[1], "chip") ? argv[2] : NULL);
	if (argc > 1 && !strcmp(argv[1], "chip"))
		goto out;
	test_generated(&g);
	if (have_dir)
		test_presets(&g);
	else
		printf("SKIPPED (FECD_CODES_DIR %s): the presets from files\n",
		       dir && *dir ? dir : "unset");
out:
	gpu_test_close(&g);
	return check_done();
}
