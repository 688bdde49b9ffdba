/*
 * The nbldpc family's encoder on the device, for the simulator (cuda/sim/, gpu_family.h's
 * gpu_sim_encoder_ops): the codewords of codec/nbldpc's systematic encoder over GF(q), q = 2..256,
 * from random information bits (k p of them: information symbol j is bits j p .. j p + p - 1 in
 * the code's bit order, as nbldpc_coder.c maps them), sent as n p code bits in the same order.
 *
 * The encoder is the CPU's, compiled on the host into a straight-line program over a frame's
 * symbols: each step sets one symbol to a sum of coefficient times symbol over GF(q). Where H's
 * last m columns are independent (every preset and generated code) it is nbldpc_encode.c's plan:
 * the peeling, each peeled parity symbol from its check (the coefficients divided by the
 * symbol's own). Where the plan inactivated symbols (the gap, g of them), either they come first
 * from the information symbols through a dense g x k map (found on the host by encoding each
 * information symbol alone), then one peeling: chosen where that map is smaller than a second
 * peeling; or, as the CPU does it, a first peeling with them 0, the left-over checks' sums into g
 * extra symbols, the inactivated symbols through the inverted gap matrix, and the peeling again.
 * Codes whose last m columns are dependent take the dense elimination's rows (each parity symbol
 * a combination of the k information symbols). Over a field every form gives exactly the CPU's
 * symbols.
 *
 * The peeling is sequential (a zigzag parity part: two interleaved chains, each step needing the
 * step two before; 420 dependent steps of GF64_5040's 839), so a frame is
 * one thread's: a warp runs 32 frames through the program in step. Their symbols lie in a
 * scratch area in device memory (per CUDA stream, as lanes encode at once), interleaved (symbol
 * x of lane i at x 32 + i: one 32-byte sector per symbol a warp reads), as logarithms (0xff for
 * 0), so that a term costs one exponential look-up in shared memory; device memory rather than
 * shared memory, so that enough warps are in flight to hide the chain's latency (shared memory
 * would hold 135 frames of GF64_5040 an SM). The warp loads the information symbols and writes the
 * code bits frame by frame, its lanes along the frame.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbldpc_gpu.cuh"
#include "sim_encoder.cuh"

#define NBSIM_THREADS   128          /* 4 warps a block */
#define NBSIM_ZERO      0xffu        /* a symbol's logarithm when it is 0 */
#define NBSIM_SCRATCH   (256u << 20) /* most scratch bytes per stream */
#define NBSIM_STREAMS   8            /* streams with scratch of their own */
#define NBSIM_PROBE_MAX 200000000.0  /* most work spent finding the gap's dense map */

/* What the kernel reads (by value). */
struct nbsim_dev {
	uint32_t n, k, p, syms; /* syms: n, and the gap's sums past them */
	uint32_t prog_len;      /* words */
	bool msb;
	const uint32_t *info_cols; /* device: k */
	const uint32_t *prog;      /* device: steps [dst, terms, (src | log coef << 24) ...] */
	uint8_t log[256];          /* log[0] = NBSIM_ZERO */
	uint8_t exp[512];
};

/* One stream's scratch: groups of 32 frames, syms * 32 bytes each. */
struct nbsim_scratch {
	cudaStream_t s;
	uint8_t *mem;
	uint32_t groups;
};

struct nbsim_enc {
	struct nbsim_dev d;
	void *buf; /* device: info_cols then prog */
	const char *form;
	pthread_mutex_t lock;
	struct nbsim_scratch scr[NBSIM_STREAMS];
};

/* A symbol's p bits in channel order (bit t the t-th sent) to its value, or back: the same map
 * both ways (msb: reversed). */
__device__ static inline uint32_t sym_bits(uint32_t v, uint32_t p, bool msb)
{
	return msb ? __brev(v) >> (32 - p) : v;
}

/* Warp w < groups encodes the groups of 32 frames w, w + groups, ... in scratch area w. */
__global__ void nbsim_encode_kernel(const struct nbsim_dev d, const uint32_t *bits,
                                    size_t bits_words, uint32_t *code, size_t code_words,
                                    uint32_t count, uint8_t *scratch, uint32_t groups)
{
	__shared__ uint8_t lg[256], ex[512];
	const uint32_t lane = threadIdx.x & 31, pmask = (1u << d.p) - 1, nbits = d.n * d.p;
	const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;

	for (uint32_t i = threadIdx.x; i < 256; i += blockDim.x)
		lg[i] = d.log[i];
	for (uint32_t i = threadIdx.x; i < 512; i += blockDim.x)
		ex[i] = d.exp[i];
	__syncthreads();
	if (warp >= groups)
		return;
	uint8_t *cw = scratch + (size_t)warp * d.syms * 32;

	for (uint32_t f0 = warp * 32; f0 < count; f0 += groups * 32) {
		const uint32_t nf = min(32u, count - f0);

		/* every symbol 0, then the information symbols from the generated bits */
		for (uint32_t i = lane; i < d.syms * 8; i += 32)
			((uint32_t *)cw)[i] = 0xffffffffu;
		__syncwarp();
		for (uint32_t fi = 0; fi < nf; fi++) {
			const uint32_t *fb = bits + (size_t)(f0 + fi) * bits_words;

			for (uint32_t j = lane; j < d.k; j += 32) {
				const uint32_t pos = j * d.p;
				const uint64_t two =
				    (uint64_t)fb[pos >> 5] | (uint64_t)fb[(pos >> 5) + 1] << 32;
				const uint32_t v = (uint32_t)(two >> (pos & 31)) & pmask;

				cw[__ldg(d.info_cols + j) * 32 + fi] = lg[sym_bits(v, d.p, d.msb)];
			}
		}
		__syncwarp();

		/* the program, a frame a lane (lanes past the frames run it on zeros). The symbols
		 * the last two steps set come from registers, not read back: a read after a store
		 * waits for the device memory round trip, and the peeling of the generated codes
		 * and the BeiDou files is two interleaved chains, each step needing the step two
		 * before */
		uint32_t dst1 = UINT32_MAX, dst2 = UINT32_MAX, v1 = NBSIM_ZERO, v2 = NBSIM_ZERO;

		for (uint32_t i = 0; i < d.prog_len;) {
			const uint32_t dst = __ldg(d.prog + i), nt = __ldg(d.prog + i + 1);
			uint32_t acc = 0;

			i += 2;
			for (uint32_t e = 0; e < nt; e++, i++) {
				const uint32_t t = __ldg(d.prog + i), src = t & 0xffffffu;
				const uint32_t l = src == dst1   ? v1
				                   : src == dst2 ? v2
				                                 : cw[src * 32 + lane];

				if (l != NBSIM_ZERO)
					acc ^= ex[l + (t >> 24)];
			}
			dst2 = dst1;
			v2 = v1;
			dst1 = dst;
			v1 = lg[acc];
			cw[dst * 32 + lane] = (uint8_t)v1;
		}
		__syncwarp();

		/* code bits: word w holds bits 32w .. 32w+31 of symbols x p + t */
		for (uint32_t fi = 0; fi < nf; fi++) {
			uint32_t *fc = code + (size_t)(f0 + fi) * code_words;

			for (uint32_t w = lane; w < code_words; w += 32) {
				const uint32_t b0 = w * 32, x0 = b0 / d.p;
				const uint32_t x1 = min((b0 + 31) / d.p, d.n - 1), base = x0 * d.p;
				uint64_t acc = 0;

				for (uint32_t x = x0; x <= x1; x++) {
					const uint32_t l = cw[x * 32 + fi];
					const uint32_t sym = l == NBSIM_ZERO ? 0 : ex[l];

					acc |= (uint64_t)sym_bits(sym, d.p, d.msb)
					       << (x * d.p - base);
				}
				uint32_t out = (uint32_t)(acc >> (b0 - base));
				if (b0 + 32 > nbits)
					out &= (1u << (nbits - b0)) - 1;
				fc[w] = out;
			}
		}
		__syncwarp();
	}
}

/* ---- The program, built on the host */

struct prog {
	uint32_t *w;
	size_t len, cap;
	bool oom;
};

static void emit(struct prog *pr, uint32_t v)
{
	if (pr->len == pr->cap) {
		size_t cap = pr->cap ? 2 * pr->cap : 4096;
		uint32_t *w = (uint32_t *)realloc(pr->w, cap * sizeof(uint32_t));

		if (!w) {
			pr->oom = true;
			return;
		}
		pr->w = w;
		pr->cap = cap;
	}
	pr->w[pr->len++] = v;
}

/* A step's header; its term count is patched by step_end. */
static size_t step_begin(struct prog *pr, uint32_t dst)
{
	emit(pr, dst);
	emit(pr, 0);
	return pr->len - 1;
}

static void step_end(struct prog *pr, size_t at)
{
	if (!pr->oom)
		pr->w[at] = (uint32_t)(pr->len - at - 1);
}

/* A term: log coef (coef != 0) times symbol src. */
static void term(struct prog *pr, const struct nbldpc_gf *gf, uint32_t src, unsigned lc)
{
	emit(pr, src | (uint32_t)(lc % (gf->q - 1)) << 24);
}

/* Column v from check r (the plan's peel step): the other symbols' coefficients over v's. */
static void peel_step(struct prog *pr, const struct nbldpc_code *c, uint32_t r, uint32_t v)
{
	const struct nbldpc_gf *gf = &c->gf;
	unsigned lhv = 0;

	for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
		if (c->row_col[e] == v)
			lhv = gf->log[c->row_val[e]];
	size_t at = step_begin(pr, v);
	for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
		if (c->row_col[e] != v && c->row_val[e])
			term(pr, gf, c->row_col[e], gf->log[c->row_val[e]] + gf->q - 1 - lhv);
	step_end(pr, at);
}

/* The inactivated symbols' dense map from the information symbols: map[i * k + j] is
 * inactivated symbol i when information symbol j is 1 and the others 0 (the encoder is linear
 * over GF(q)). NULL when out of memory. */
static uint8_t *gap_map(const struct nbldpc_code *c, const struct nbldpc_enc_plan_view *v)
{
	uint8_t *map = (uint8_t *)malloc((size_t)v->g * c->k + 1);
	uint8_t *info = (uint8_t *)calloc(c->k + 1, 1), *cw = (uint8_t *)malloc(c->n + 1);

	if (map && info && cw)
		for (uint32_t j = 0; j < c->k; j++) {
			info[j] = 1;
			nbldpc__enc_plan_encode(c, c->plan, info, cw);
			info[j] = 0;
			for (uint32_t i = 0; i < v->g; i++)
				map[(size_t)i * c->k + j] = cw[v->inact_col[i]];
		}
	free(info);
	free(cw);
	if (!info || !cw) {
		free(map);
		return NULL;
	}
	return map;
}

/* The plan's program; its form in *form. */
static void build_plan(struct prog *pr, const struct nbldpc_code *c, uint32_t *syms,
                       const char **form)
{
	const struct nbldpc_gf *gf = &c->gf;
	struct nbldpc_enc_plan_view v;
	uint8_t *map = NULL;

	nbldpc__enc_plan_view(c->plan, &v);
	*syms = c->n;
	*form = v.g ? "peeling twice around the gap" : "peeling";
	/* the gap's map where it costs less than the first peeling and is quick to find */
	if (v.g && (double)v.g * c->k <= (double)c->nnz &&
	    (double)c->k * (c->nnz + (double)v.g * v.g) <= NBSIM_PROBE_MAX)
		map = gap_map(c, &v);
	if (map) {
		*form = "the gap's symbols from a dense map, then peeling";
		for (uint32_t i = 0; i < v.g; i++) {
			size_t at = step_begin(pr, v.inact_col[i]);

			for (uint32_t j = 0; j < c->k; j++)
				if (map[(size_t)i * c->k + j])
					term(pr, gf, c->info_cols[j],
					     gf->log[map[(size_t)i * c->k + j]]);
			step_end(pr, at);
		}
		free(map);
	} else if (v.g) {
		/* the first pass, inactivated symbols 0; the left-over checks' sums; the gap */
		*syms = c->n + v.g;
		for (uint32_t i = 0; i < v.npeel; i++)
			peel_step(pr, c, v.peel_row[i], v.peel_col[i]);
		for (uint32_t j = 0; j < v.g; j++) {
			const uint32_t r = v.left_row[j];
			size_t at = step_begin(pr, c->n + j);

			for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
				if (c->row_val[e])
					term(pr, gf, c->row_col[e], gf->log[c->row_val[e]]);
			step_end(pr, at);
		}
		for (uint32_t i = 0; i < v.g; i++) {
			size_t at = step_begin(pr, v.inact_col[i]);

			for (uint32_t j = 0; j < v.g; j++)
				if (v.ainv[(size_t)i * v.g + j])
					term(pr, gf, c->n + j,
					     gf->log[v.ainv[(size_t)i * v.g + j]]);
			step_end(pr, at);
		}
	}
	for (uint32_t i = 0; i < v.npeel; i++)
		peel_step(pr, c, v.peel_row[i], v.peel_col[i]);
}

/* The dense elimination's encoder: parity column par_cols[r] from the information symbols. */
static void build_dense(struct prog *pr, const struct nbldpc_code *c, uint32_t *syms)
{
	*syms = c->n;
	for (uint32_t r = 0; r < c->rank; r++) {
		size_t at = step_begin(pr, c->par_cols[r]);

		for (uint32_t j = 0; j < c->k; j++)
			if (c->enc[(size_t)r * c->k + j])
				term(pr, &c->gf, c->info_cols[j],
				     c->gf.log[c->enc[(size_t)r * c->k + j]]);
		step_end(pr, at);
	}
}

/* ---- The encoder's operations */

static bool nbsim_supports(const struct fec_spec *spec)
{
	return spec->family == FECD_FAMILY_NBLDPC && spec->frame.in != FEC_IN_F32_SYMLOGP;
}

static void nbsim_free(struct nbsim_enc *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < NBSIM_STREAMS; i++)
		cudaFree(s->scr[i].mem);
	cudaFree(s->buf);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static int nbsim_create(const struct fec_decoder *cpu_dec, uint32_t frame_bits, void **enc,
                        struct gpu_sim_code *sc, char *err, size_t errlen)
{
	const struct fec_spec *spec = fec_decoder_spec(cpu_dec);
	const struct nbldpc_code *c = nbldpc_decoder_code(cpu_dec);
	struct prog pr = {NULL, 0, 0, false};
	struct nbsim_enc *s;
	uint32_t syms = 0;
	cudaError_t e;

	if (!c || !nbsim_supports(spec)) {
		snprintf(err, errlen,
		         "nbldpc: the GPU simulator sends bit LLRs (in=s8 or f32), not q-ary "
		         "symbols");
		return -FEC_ENOTSUP;
	}
	const uint32_t p = c->gf.p, kbits = c->k * p;
	if (frame_bits && frame_bits != kbits) {
		snprintf(err, errlen, "nbldpc: a frame of %s carries %u bits, not %u", c->name,
		         kbits, frame_bits);
		return -FEC_EINVAL;
	}
	s = (struct nbsim_enc *)calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->form = "the dense elimination's rows";
	if (c->plan)
		build_plan(&pr, c, &syms, &s->form);
	else
		build_dense(&pr, c, &syms);
	if (pr.oom) {
		free(pr.w);
		nbsim_free(s);
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	struct nbsim_dev *d = &s->d;
	d->n = c->n;
	d->k = c->k;
	d->p = p;
	d->syms = syms;
	d->prog_len = (uint32_t)pr.len;
	d->msb = spec->u.nbldpc.bit_order == NBLDPC_MSB_FIRST;
	memcpy(d->log, c->gf.log, sizeof(d->log));
	memcpy(d->exp, c->gf.exp, sizeof(d->exp));
	d->log[0] = NBSIM_ZERO;

	e = cudaMalloc(&s->buf, ((size_t)c->k + pr.len) * sizeof(uint32_t));
	if (e == cudaSuccess)
		e = cudaMemcpy(s->buf, c->info_cols, (size_t)c->k * sizeof(uint32_t),
		               cudaMemcpyHostToDevice);
	if (e == cudaSuccess && pr.len)
		e = cudaMemcpy((uint32_t *)s->buf + c->k, pr.w, pr.len * sizeof(uint32_t),
		               cudaMemcpyHostToDevice);
	free(pr.w);
	if (e != cudaSuccess) {
		nbsim_free(s);
		return gpu_error(e, "nbldpc simulator encoder: uploading the program", err, errlen);
	}
	d->info_cols = (const uint32_t *)s->buf;
	d->prog = (const uint32_t *)s->buf + c->k;

	memset(sc, 0, sizeof(*sc));
	sc->gen_bits = kbits;
	sc->cmp_bits = kbits;
	sc->code_syms = c->n * p;
	sc->job.in_len = fec_decoder_info(cpu_dec)->frame_syms;
	sc->job.own_len = sc->job.in_len;
	*enc = s;
	return 0;
}

/* Stream st's scratch, for at least `groups` groups of 32 frames where NBSIM_SCRATCH allows
 * (made or grown on first use: lanes encode on their own streams at once). */
static int scratch_for(struct nbsim_enc *s, cudaStream_t st, uint32_t groups,
                       struct nbsim_scratch *out, char *err, size_t errlen)
{
	const size_t group_bytes = (size_t)s->d.syms * 32;
	uint32_t most = (uint32_t)(NBSIM_SCRATCH / group_bytes);
	struct nbsim_scratch *x = NULL;
	cudaError_t e = cudaSuccess;
	int rc = 0;

	if (most < 1)
		most = 1;
	if (groups > most)
		groups = most;
	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < NBSIM_STREAMS && !x; i++)
		if (s->scr[i].mem && s->scr[i].s == st)
			x = &s->scr[i];
	for (unsigned i = 0; i < NBSIM_STREAMS && !x; i++)
		if (!s->scr[i].mem)
			x = &s->scr[i];
	if (!x) {
		snprintf(err, errlen, "nbldpc simulator encoder: more than %u streams",
		         NBSIM_STREAMS);
		rc = -FEC_EINVAL;
	} else if (x->groups < groups) {
		/* the stream's earlier kernels may still use the old area */
		if (x->mem)
			e = cudaStreamSynchronize(st);
		if (e == cudaSuccess) {
			cudaFree(x->mem);
			x->mem = NULL;
			x->groups = 0;
			e = cudaMalloc((void **)&x->mem, groups * group_bytes);
		}
		if (e == cudaSuccess) {
			x->s = st;
			x->groups = groups;
		}
		rc = e == cudaSuccess
		         ? 0
		         : gpu_error(e, "nbldpc simulator encoder: scratch", err, errlen);
	}
	if (!rc)
		*out = *x;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int nbsim_encode(const void *enc, const uint32_t *bits, size_t bits_words, uint32_t *code,
                        size_t code_words, uint32_t count, cudaStream_t st, char *err,
                        size_t errlen)
{
	/* the scratch areas change; the code and the program do not */
	struct nbsim_enc *s = (struct nbsim_enc *)enc;
	const uint32_t warps_per_block = NBSIM_THREADS / 32;
	struct nbsim_scratch x;
	int rc;

	if (count == 0)
		return 0;
	rc = scratch_for(s, st, (count + 31) / 32, &x, err, errlen);
	if (rc)
		return rc;
	const uint32_t warps = x.groups < (count + 31) / 32 ? x.groups : (count + 31) / 32;
	return sim_encode_launch(nbsim_encode_kernel, "nbsim_encode_kernel",
	                         sim_blocks(warps, warps_per_block), NBSIM_THREADS, 0, st, err,
	                         errlen, s->d, bits, bits_words, code, code_words, count, x.mem,
	                         warps);
}

static void nbsim_destroy(void *enc)
{
	nbsim_free((struct nbsim_enc *)enc);
}

extern "C" const struct gpu_sim_encoder_ops nbldpc_gpu_sim_encoder = {nbsim_supports, nbsim_create,
                                                                      nbsim_encode, nbsim_destroy};
