/*
 * The LDPC encoder on the device, for the simulator (cuda/sim/, gpu_family.h's
 * gpu_sim_encoder_ops). Every code: those of the IRA form here, the others by the CPU encoder's
 * plan run on the device (ldpc_gpu_sim_peel.cu); both give the CPU encoder's code bits. The one
 * thing refused is output=codeword on a code whose information bits are not its first k columns
 * (the simulator compares the output's first k bits with the information): output=info, or the
 * all-zero codeword (which the engine sends without an encoder), simulates those.
 *
 * Codes of the IRA form, as DVB-S2's are (ldpc_layers.c's "DVB-S2 form"):
 * the information bits are the first k = n - m columns and the parity part is a staircase, row r
 * holding parity columns k + r and, past row 0, k + r - 1. Then row r's check says
 * p[r] = p[r-1] ^ s[r], with s[r] the xor of the row's information bits, so the parity bits are
 * the prefix xor of s: the same code bits as the CPU encoder's (ldpc_encode), which is the unique
 * systematic codeword. (The plan encoder would take them as one chain of m levels.)
 *
 * One block per frame: the frame's information bits to shared memory; s[r] for 32 consecutive
 * rows per warp (one row a lane, its information columns from a padded column-major copy of H's
 * rows, so that a warp's loads are consecutive words, read by every frame from L2), packed by a
 * ballot; the prefix xor in 64-row chunks (shifts within a
 * word, a block-wide scan of the chunks' parities); then the code words out.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldpc_gpu_sim.cuh"

#define LSIM_THREADS 1024
#define LSIM_M_MAX   (64u * LSIM_THREADS) /* one 64-row chunk per thread */

struct lsim_enc {
	struct lpeel_enc *peel; /* not of the IRA form: the plan encoder, and nothing below */
	uint32_t n, m, k;
	uint32_t dmax; /* most information columns in a row */
	uint32_t *ell; /* device: dmax x m, ell[d * m + r] row r's d-th information column, or a
	                * column of the padding (a 0 bit) past the row's last */
	size_t smem;
};

__global__ void lsim_encode_kernel(uint32_t n, uint32_t m, uint32_t k, uint32_t dmax,
                                   const uint32_t *__restrict__ ell, const uint32_t *bits,
                                   size_t bits_words, uint32_t *code, size_t code_words)
{
	extern __shared__ uint32_t sm[];
	const uint32_t kw = (k + 31) / 32 + 1, mw = (m + 63) / 64 * 2 + 2;
	uint32_t *info = sm, *par = sm + kw;
	__shared__ uint32_t warp_par[32];
	const uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const uint32_t *fb = bits + (size_t)blockIdx.x * bits_words;
	uint32_t *fc = code + (size_t)blockIdx.x * code_words;

	for (uint32_t w = tid; w < kw; w += blockDim.x)
		info[w] = w < bits_words ? fb[w] : 0;
	for (uint32_t w = tid; w < mw; w += blockDim.x)
		par[w] = 0;
	__syncthreads();

	/* s[r] into par, 32 rows a warp */
	for (uint32_t base = warp * 32; base < m; base += blockDim.x) {
		uint32_t r = base + lane, s = 0;

		if (r < m)
			for (uint32_t d = 0; d < dmax; d++) {
				uint32_t v = ell[(size_t)d * m + r];

				s ^= info[v >> 5] >> (v & 31);
			}
		uint32_t word = __ballot_sync(0xffffffffu, s & 1u);
		if (lane == 0)
			par[base >> 5] = word;
	}
	__syncthreads();

	/* prefix xor: thread t owns rows 64t .. 64t+63 */
	uint64_t x = 0;
	if (64u * tid < m)
		x = (uint64_t)par[2 * tid] | (uint64_t)par[2 * tid + 1] << 32;
	for (unsigned sh = 1; sh < 64; sh <<= 1)
		x ^= x << sh;
	unsigned mine = (unsigned)(x >> 63);
	uint32_t votes = __ballot_sync(0xffffffffu, mine);
	unsigned before = __popc(votes & ((1u << lane) - 1)) & 1u;
	if (lane == 31)
		warp_par[warp] = __popc(votes) & 1u;
	__syncthreads();
	if (warp == 0) {
		unsigned wp = lane < blockDim.x / 32 ? warp_par[lane] : 0;
		uint32_t wv = __ballot_sync(0xffffffffu, wp);

		warp_par[lane] = __popc(wv & ((1u << lane) - 1)) & 1u;
	}
	__syncthreads();
	if (before ^ warp_par[warp])
		x = ~x;
	__syncthreads(); /* every s word read before the parity words overwrite them */
	if (64u * tid < m) {
		par[2 * tid] = (uint32_t)x;
		par[2 * tid + 1] = (uint32_t)(x >> 32);
	}
	__syncthreads();

	/* code bits: information, then parity */
	for (uint32_t w = tid; w < code_words; w += blockDim.x) {
		uint32_t pos = w * 32, out;

		if (pos + 32 <= k)
			out = lsim_bits32_at(info, pos);
		else if (pos >= k)
			out = lsim_bits32_at(par, pos - k);
		else
			out = (lsim_bits32_at(info, pos) & ((1u << (k - pos)) - 1)) |
			      (par[0] << (k - pos));
		if (pos + 32 > n)
			out &= (1u << (n - pos)) - 1;
		fc[w] = out;
	}
}

static void lsim_free(struct lsim_enc *l)
{
	if (!l)
		return;
	lpeel_destroy(l->peel);
	cudaFree(l->ell);
	free(l);
}

/* Whether the code is of the IRA form above; why not in err. */
static bool ira_form(const struct ldpc_code *code, char *err, size_t errlen)
{
	const struct ldpc_matrix *h = &code->h;
	const uint32_t k = h->n - h->m;

	if (h->n <= h->m || code->k != k || code->punct != 0) {
		snprintf(err, errlen, "ldpc: %s: k is not n - m, or columns are punctured",
		         code->name);
		return false;
	}
	for (uint32_t j = 0; j < k; j++)
		if (code->info_cols[j] != j) {
			snprintf(err, errlen, "ldpc: %s: the information bits are not the first k",
			         code->name);
			return false;
		}
	for (uint32_t r = 0; r < h->m; r++) {
		unsigned want = r ? 2 : 1, have = 0;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
			uint32_t v = h->row_col[e];

			if (v < k)
				continue;
			if (v != k + r && !(r && v == k + r - 1))
				want = 0;
			have++;
		}
		if (have != want) {
			snprintf(err, errlen, "ldpc: %s: the parity part is no staircase (row %u)",
			         code->name, r);
			return false;
		}
	}
	if (h->m > LSIM_M_MAX) {
		snprintf(err, errlen, "ldpc: %s: more than %u rows", code->name, LSIM_M_MAX);
		return false;
	}
	return true;
}

/* Whether the decoder's first k output bits are the information bits (output=info; output=
 * codeword where they are the first k columns); why not in err. */
static bool output_comparable(const struct ldpc_code *code, const struct ldpc_spec *l, char *err,
                              size_t errlen)
{
	if (l->output != LDPC_OUT_CODEWORD || code->info_cols[code->k - 1] == code->k - 1)
		return true;
	snprintf(err, errlen,
	         "ldpc: %.60s: its information bits are not the first k of output=codeword, "
	         "which the simulator compares: use output=info, or --all-zero",
	         code->name);
	return false;
}

/* The IRA form's tables (ell) on the device; the code is of that form. */
static int ira_build(struct lsim_enc *l, const struct ldpc_code *code, char *err, size_t errlen)
{
	const struct ldpc_matrix *h = &code->h;
	uint32_t *ell;
	cudaError_t e;

	l->n = h->n;
	l->m = h->m;
	l->k = h->n - h->m;
	for (uint32_t r = 0; r < h->m; r++) {
		uint32_t d = 0;

		for (uint32_t x = h->row_start[r]; x < h->row_start[r + 1]; x++)
			d += h->row_col[x] < l->k;
		l->dmax = d > l->dmax ? d : l->dmax;
	}
	/* the padding column: the first bit of the zero word after the information bits */
	const uint32_t pad = (l->k + 31) / 32 * 32;
	const size_t cells = (size_t)l->dmax * h->m;

	ell = (uint32_t *)malloc((cells ? cells : 1) * sizeof(uint32_t));
	if (!ell) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	for (size_t i = 0; i < cells; i++)
		ell[i] = pad;
	for (uint32_t r = 0; r < h->m; r++) {
		uint32_t d = 0;

		for (uint32_t x = h->row_start[r]; x < h->row_start[r + 1]; x++)
			if (h->row_col[x] < l->k)
				ell[(size_t)d++ * h->m + r] = h->row_col[x];
	}
	e = cudaMalloc((void **)&l->ell, (cells ? cells : 1) * sizeof(uint32_t));
	if (e == cudaSuccess)
		e = cudaMemcpy(l->ell, ell, cells * sizeof(uint32_t), cudaMemcpyHostToDevice);
	free(ell);
	if (e != cudaSuccess)
		return gpu_error(e, "ldpc simulator encoder: uploading H", err, errlen);
	l->smem = ((size_t)(l->k + 31) / 32 + 1 + (size_t)(l->m + 63) / 64 * 2 + 2) * 4;
	e = cudaFuncSetAttribute(lsim_encode_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                         (int)l->smem);
	if (e != cudaSuccess)
		return gpu_error(e, "ldpc simulator encoder: cudaFuncSetAttribute", err, errlen);
	return 0;
}

static int lsim_create(const struct fec_decoder *cpu_dec, uint32_t frame_bits, void **enc,
                       struct gpu_sim_code *sc, char *err, size_t errlen)
{
	const struct ldpc_code *code = ldpc_decoder_code(cpu_dec);
	struct lsim_enc *l;
	char why[256];
	int rc;

	if (!code) {
		snprintf(err, errlen, "ldpc: not an ldpc decoder");
		return -FEC_ENOTSUP;
	}
	if (!output_comparable(code, &fec_decoder_spec(cpu_dec)->u.ldpc, err, errlen))
		return -FEC_ENOTSUP;
	if (frame_bits && frame_bits != code->k) {
		snprintf(err, errlen, "ldpc: a frame of %s carries %u bits, not %u", code->name,
		         code->k, frame_bits);
		return -FEC_EINVAL;
	}
	l = (struct lsim_enc *)calloc(1, sizeof(*l));
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return -FEC_ENOMEM;
	}
	if (ira_form(code, why, sizeof(why))) {
		rc = ira_build(l, code, err, errlen);
	} else {
		rc = lpeel_create(code, &l->peel, err, errlen);
		l->n = code->h.n;
		l->k = code->k;
	}
	if (rc) {
		lsim_free(l);
		return rc;
	}
	memset(sc, 0, sizeof(*sc));
	sc->gen_bits = l->k;
	sc->cmp_bits = l->k; /* output info: k bits; codeword: its first k are the information */
	sc->code_syms = code->n_tx;
	sc->job.in_len = code->n_tx;
	sc->job.own_len = code->n_tx;
	*enc = l;
	return 0;
}

static int lsim_encode(const void *enc, const uint32_t *bits, size_t bits_words, uint32_t *code,
                       size_t code_words, uint32_t count, cudaStream_t s, char *err, size_t errlen)
{
	const struct lsim_enc *l = (const struct lsim_enc *)enc;
	unsigned threads = (l->m + 63) / 64;

	if (l->peel)
		return lpeel_encode(l->peel, bits, bits_words, code, code_words, count, s, err,
		                    errlen);
	threads = (threads + 31) / 32 * 32;
	if (threads < 64)
		threads = 64;
	if (threads > LSIM_THREADS)
		threads = LSIM_THREADS;
	/* one block a frame */
	return sim_encode_launch(lsim_encode_kernel, "lsim_encode_kernel", count, threads, l->smem,
	                         s, err, errlen, l->n, l->m, l->k, l->dmax, l->ell, bits,
	                         bits_words, code, code_words);
}

static void lsim_destroy(void *enc)
{
	lsim_free((struct lsim_enc *)enc);
}

/* Every code with output=info; with output=codeword, this loads the code (the decoder does too:
 * a second load, once per code asked about) to see where its information bits are; the last
 * answer is remembered for the same code text and parameters. */
static bool lsim_supports(const struct fec_spec *spec)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct ldpc_spec last;
	static bool last_ok, have_last;
	const struct ldpc_spec *l = &spec->u.ldpc;
	struct ldpc_code *code = NULL;
	char err[256];
	bool ok;

	if (l->output != LDPC_OUT_CODEWORD)
		return true;
	pthread_mutex_lock(&lock);
	if (have_last && !strcmp(last.code, l->code) && last.z == l->z && last.gen_n == l->gen_n &&
	    last.gen_dv == l->gen_dv && last.gen_dc == l->gen_dc && last.seed == l->seed) {
		ok = last_ok;
		pthread_mutex_unlock(&lock);
		return ok;
	}
	pthread_mutex_unlock(&lock);
	ok = ldpc_code_load(l, &code, err, sizeof(err)) == 0 &&
	     output_comparable(code, l, err, sizeof(err));
	ldpc_code_free(code);
	pthread_mutex_lock(&lock);
	last = *l;
	last_ok = ok;
	have_last = true;
	pthread_mutex_unlock(&lock);
	return ok;
}

extern "C" const struct gpu_sim_encoder_ops ldpc_gpu_sim_encoder = {lsim_supports, lsim_create,
                                                                    lsim_encode, lsim_destroy};
