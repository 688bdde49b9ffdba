/*
 * The ids encoder on the device, for the simulator (cuda/sim/, gpu_family.h's
 * gpu_sim_encoder_ops): information bits -> (the outer code's codeword) -> q-ary symbols -> the
 * TVB code's N codewords of n bits, the same code bits as the CPU encoder (ids_coder.c's
 * ids_encode_frame): a symbol is log2 q bits, most significant first (least significant first
 * where the outer code says bit_order=lsb), codeword bits most significant first.
 *
 * The outer nbldpc code (the concatenation, `outer=`) is encoded by its binary generator: the
 * CPU encoder's codeword of each single information bit, one row each, so that a codeword is the
 * xor of the rows of its set bits (the encoder is GF(q)-linear, hence linear over GF(2) on the
 * bits; create checks that the zero word encodes to zero). That takes no knowledge of the field
 * or of nbldpc's encoder plan, and costs k x n bits of device memory (dm-ldpc: 1000 x 2000
 * bits, 250 kB) and k/2 word xors per codeword word, a few hundredth of a percent of the inner
 * decoder's work; codes whose generator would pass IDSSIM_GEN_MAX bytes are refused (simulate
 * them on the CPU).
 *
 * One block per frame: the information bits to shared memory; with an outer code the codeword's
 * words, each the xor of the generator rows of a slice of the information bits (slices xored
 * together in shared memory); then one thread per 32 code bits looks each symbol's codeword up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The codec's headers are C: their functions have C linkage. */
extern "C" {
#include "fec.h"
#include "ids_coder.h"
}
#include "gpu_family.h"
#include "sim_encoder.cuh"

#define IDSSIM_THREADS   256
#define IDSSIM_GEN_MAX   (64u << 20) /* bytes of the outer code's generator at most */
#define IDSSIM_BATCH_MAX 2048        /* frames a batch: about 60 ms of decoding at Fig. 17 */

struct idssim_enc {
	uint32_t N, q, n, p;
	uint32_t kbits;     /* information bits a frame */
	uint32_t sbits;     /* bits of the symbols: N * p */
	bool lsb;           /* a symbol's first bit is its least significant */
	uint16_t *cw;       /* device: N * q codewords */
	uint32_t *gen;      /* device: kbits rows of gen_words words, or NULL (no outer code) */
	uint32_t gen_words; /* (sbits + 31) / 32 */
	size_t smem;
};

/* ---- Kernel */

__global__ void idssim_encode_kernel(struct idssim_enc e, const uint32_t *bits, size_t bits_words,
                                     uint32_t *code, size_t code_words)
{
	extern __shared__ uint32_t sm[];
	const uint32_t kw = (e.kbits + 31) / 32, sw = (e.sbits + 31) / 32;
	uint32_t *info = sm, *sym = e.gen ? sm + kw : sm;
	const uint32_t *fb = bits + (size_t)blockIdx.x * bits_words;
	uint32_t *fc = code + (size_t)blockIdx.x * code_words;

	for (uint32_t w = threadIdx.x; w < kw; w += blockDim.x)
		info[w] = fb[w];
	if (e.gen)
		for (uint32_t w = threadIdx.x; w < sw; w += blockDim.x)
			sym[w] = 0;
	__syncthreads();
	if (e.gen) {
		/* thread t: word t % sw of the codeword over information slice t / sw */
		const uint32_t slices = blockDim.x / sw ? blockDim.x / sw : 1;
		const uint32_t per = (e.kbits + slices - 1) / slices;

		for (uint32_t t = threadIdx.x; t < sw * slices; t += blockDim.x) {
			const uint32_t w = t % sw, s = t / sw, b1 = min(e.kbits, (s + 1) * per);
			uint32_t acc = 0;

			for (uint32_t b = s * per; b < b1; b++)
				if (info[b >> 5] >> (b & 31) & 1u)
					acc ^= __ldg(&e.gen[(size_t)b * e.gen_words + w]);
			if (acc)
				atomicXor(&sym[w], acc);
		}
		__syncthreads();
	}
	/* code bit j: bit n-1 - j % n of symbol i = j / n's codeword */
	for (uint32_t w = threadIdx.x; w < code_words; w += blockDim.x) {
		uint32_t out = 0, cur = UINT32_MAX, c = 0;

		for (uint32_t k = 0; k < 32; k++) {
			const uint32_t j = w * 32 + k, i = j / e.n;

			if (i >= e.N)
				break;
			if (i != cur) {
				uint32_t a = 0;

				for (uint32_t t = 0; t < e.p; t++) {
					const uint32_t b = i * e.p + t;
					const uint32_t v = sym[b >> 5] >> (b & 31) & 1u;

					a |= v << (e.lsb ? t : e.p - 1 - t);
				}
				c = __ldg(&e.cw[(size_t)i * e.q + a]);
				cur = i;
			}
			out |= (c >> (e.n - 1 - j % e.n) & 1u) << k;
		}
		fc[w] = out;
	}
}

/* ---- Setup */

static void idssim_free(struct idssim_enc *e)
{
	if (!e)
		return;
	cudaFree(e->cw);
	cudaFree(e->gen);
	free(e);
}

static bool idssim_supports(const struct fec_spec *spec)
{
	return spec->family == FECD_FAMILY_IDS;
}

/* The outer code's binary generator (kbits rows of gen_words words) on the device; the spec is
 * the finished ids spec. */
static int build_generator(struct idssim_enc *e, const struct fec_spec *spec, char *err,
                           size_t errlen)
{
	struct fec_spec child;
	struct fec_encoder *enc = NULL;
	uint8_t *in = NULL, *out = NULL;
	uint32_t *gen = NULL;
	size_t bytes, got = 0;
	cudaError_t ce;
	int rc;

	rc = ids__outer_spec(&spec->u.ids, &child, NULL, 0, err, errlen);
	if (rc)
		return rc;
	e->lsb = child.u.nbldpc.bit_order == NBLDPC_LSB_FIRST;
	e->gen_words = (e->sbits + 31) / 32;
	bytes = (size_t)e->kbits * e->gen_words * 4;
	if (bytes > IDSSIM_GEN_MAX) {
		snprintf(err, errlen,
		         "ids simulator encoder: the outer code's generator would take %.0f MiB "
		         "(at most %u): simulate this code on the CPU",
		         bytes / 1048576.0, IDSSIM_GEN_MAX >> 20);
		return -FEC_ENOTSUP;
	}
	rc = fec_encoder_create(&child, &enc);
	if (rc) {
		snprintf(err, errlen, "ids simulator encoder: the outer code's encoder: %s",
		         fec_strerror(rc));
		return rc;
	}
	in = (uint8_t *)calloc(e->kbits, 1);
	out = (uint8_t *)malloc(e->sbits + 64);
	gen = (uint32_t *)calloc((size_t)e->kbits * e->gen_words, 4);
	rc = -FEC_ENOMEM;
	if (!in || !out || !gen)
		goto out;
	/* the zero word first: a linear encoder gives zero */
	for (uint32_t b = 0; b <= e->kbits; b++) {
		if (b)
			in[b - 1] = 1;
		fec_encoder_reset(enc);
		rc = fec_encode(enc, in, e->kbits, out, &got);
		if (b)
			in[b - 1] = 0;
		if (!rc && got != e->sbits)
			rc = -FEC_EINVAL;
		if (rc) {
			snprintf(err, errlen, "ids simulator encoder: encoding the outer code: %s",
			         fec_strerror(rc));
			goto out;
		}
		for (uint32_t j = 0; j < e->sbits; j++) {
			if (!out[j])
				continue;
			if (!b) {
				snprintf(err, errlen,
				         "ids simulator encoder: the outer code's encoder is not "
				         "linear (the zero word encodes to bit %u set)",
				         j);
				rc = -FEC_ENOTSUP;
				goto out;
			}
			gen[(size_t)(b - 1) * e->gen_words + j / 32] |= 1u << (j % 32);
		}
	}
	ce = cudaMalloc((void **)&e->gen, bytes ? bytes : 4);
	if (ce == cudaSuccess)
		ce = cudaMemcpy(e->gen, gen, bytes, cudaMemcpyHostToDevice);
	rc = ce == cudaSuccess ? 0
	                       : gpu_error(ce, "ids simulator encoder: the generator", err, errlen);
out:
	if (rc == -FEC_ENOMEM)
		snprintf(err, errlen, "out of memory");
	fec_encoder_destroy(enc);
	free(in);
	free(out);
	free(gen);
	return rc;
}

static int idssim_create(const struct fec_decoder *cpu_dec, uint32_t frame_bits, void **encp,
                         struct gpu_sim_code *sc, char *err, size_t errlen)
{
	struct fec_spec spec = *fec_decoder_spec(cpu_dec);
	struct ids_code *code = NULL;
	struct idssim_enc *e;
	cudaError_t ce;
	int rc;

	if (spec.family != FECD_FAMILY_IDS) {
		snprintf(err, errlen, "ids simulator encoder: not an ids decoder");
		return -FEC_ENOTSUP;
	}
	rc = ids__spec_finish(&spec, err, errlen);
	if (rc)
		return rc;
	e = (struct idssim_enc *)calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	rc = ids__code_build(&spec.u.ids, &code, err, errlen);
	if (rc)
		goto fail;
	e->N = code->N;
	e->q = code->q;
	e->n = code->n;
	e->p = ids__log2(code->q);
	e->sbits = e->N * e->p;
	e->kbits = ids__has_outer(&spec.u.ids) ? spec.u.ids.outer_k * e->p : e->sbits;
	if (frame_bits && frame_bits != e->kbits) {
		snprintf(err, errlen, "ids: a frame of this code carries %u bits, not %u", e->kbits,
		         frame_bits);
		rc = -FEC_EINVAL;
		goto fail;
	}
	if (ids__has_outer(&spec.u.ids)) {
		rc = build_generator(e, &spec, err, errlen);
		if (rc)
			goto fail;
	}
	ce = cudaMalloc((void **)&e->cw, (size_t)e->N * e->q * sizeof(uint16_t));
	if (ce == cudaSuccess)
		ce = cudaMemcpy(e->cw, code->cw, (size_t)e->N * e->q * sizeof(uint16_t),
		                cudaMemcpyHostToDevice);
	if (ce != cudaSuccess) {
		rc = gpu_error(ce, "ids simulator encoder: the codebooks", err, errlen);
		goto fail;
	}
	e->smem = ((size_t)(e->kbits + 31) / 32 + (e->gen ? (e->sbits + 31) / 32 : 0)) * 4;
	if (e->smem > 48u << 10) {
		snprintf(err, errlen, "ids simulator encoder: %zu bytes of shared memory a frame",
		         e->smem);
		rc = -FEC_ENOTSUP;
		goto fail;
	}
	ids_code_free(code);
	memset(sc, 0, sizeof(*sc));
	sc->gen_bits = e->kbits;
	sc->cmp_bits = e->kbits;
	sc->code_syms = e->N * e->n;
	sc->job.in_len = sc->code_syms;
	sc->job.own_len = sc->code_syms;
	sc->batch_max = IDSSIM_BATCH_MAX;
	*encp = e;
	return 0;
fail:
	ids_code_free(code);
	idssim_free(e);
	return rc;
}

static int idssim_encode(const void *encp, const uint32_t *bits, size_t bits_words, uint32_t *code,
                         size_t code_words, uint32_t count, cudaStream_t s, char *err,
                         size_t errlen)
{
	const struct idssim_enc *e = (const struct idssim_enc *)encp;

	/* one block a frame */
	return sim_encode_launch(idssim_encode_kernel, "idssim_encode_kernel", count,
	                         IDSSIM_THREADS, e->smem, s, err, errlen, *e, bits, bits_words,
	                         code, code_words);
}

static void idssim_destroy(void *encp)
{
	idssim_free((struct idssim_enc *)encp);
}

extern "C" const struct gpu_sim_encoder_ops ids_gpu_sim_encoder = {
    idssim_supports,
    idssim_create,
    idssim_encode,
    idssim_destroy,
};
