/*
 * The simulator's LDPC encoder for any code (ldpc_gpu_sim.cuh): the plan of the CPU encoder
 * (codec/ldpc/ldpc_encode.c, ldpc.h's struct ldpc_enc_tables) run on the device, one block per
 * frame with the frame's codeword in shared memory, giving the CPU encoder's code bits exactly.
 *
 * The plan's peeling steps are sequential only through the columns they read: a step reads the
 * columns its row shares with earlier steps. Each step gets a level here, one more than the
 * highest level among the steps whose columns it reads (information, q1 and q2 columns: level
 * 0), and the steps of one level run in parallel, a barrier between levels. A step sets its
 * column so that its row's parity is 0: it flips the column where the row's parity (the column
 * included) is 1, which serves the first pass (the column 0) and the second (the first pass's
 * value) alike; columns of one level sit in no row of another step of that level, so the flips
 * (atomic on the shared word) never meet a reader. Measured levels (host, this plan): 5G NR
 * BG1/BG2 z=384: 1153; WiMAX 576: 172; MacKay 8000: 820; AR4JA 4096: 1519; the DVB-S2 codes,
 * one chain of m levels, take ldpc_gpu_sim.cu's encoder of their form instead.
 *
 * The dense parts (q2 over the information, q1 over the leftover rows' syndrome) are dot products
 * of packed rows, a warp each. Where the plan has q1 columns, the CPU peels twice (first with
 * them 0, then with their values); the peeling being linear in the columns it reads, the second
 * pass adds to the first the peeling of the q1 columns alone, so the host peels each q1 column
 * alone once (64 at a time, bit-sliced) and the device xors in the codeword deltas of those
 * whose value is 1 (q1_delta; the second pass where they would pass LPEEL_DELTA_MAX bytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldpc_gpu_sim.cuh"

/* few threads a block: most levels are narrow chains, and more blocks hide their latency */
#define LPEEL_THREADS   64
#define LPEEL_NONE      0xffffffffu
#define LPEEL_DELTA_MAX (64u << 20)    /* bytes of q1 deltas, beyond which the device peels again */
#define LPEEL_STEPS_MAX (512ull << 20) /* bytes of the steps' padded lists */

/* What the kernel reads (device pointers). Lists: step i's columns are
 * step_cols[i * stride .. (i + 1) * stride), its own column first, then the rest of its row,
 * then column n (a bit that stays 0) to the stride, so that a step's loads are independent of
 * one another and of any offset; steps in level order, level l's being level_start[l] ..
 * level_start[l+1]; leftover row j's columns left_cols[left_off[j] .. left_off[j+1]). */
struct lpeel_dev {
	uint32_t n, k, punct, n_tx;
	uint32_t cw_words, s_words, q_words; /* shared memory: codeword, syndrome, q2 values */
	uint32_t nlevels;
	uint32_t stride;
	const uint32_t *level_start, *step_cols;
	uint32_t nleft, lw;
	const uint32_t *left_off, *left_cols;
	uint32_t nq1, nq2, nw;
	const uint32_t *q1_cols, *q2_cols;
	const unsigned long long *q1_rows, *q2_rows;
	const uint32_t *col_info; /* column -> information bit, or LPEEL_NONE; NULL: the first k */
	/* nq1 rows of ew words: the codeword's change where q1 column j is 1 (it and the peeled
	 * columns); NULL: peel again */
	const uint32_t *q1_delta;
	uint32_t ew;
};

struct lpeel_enc {
	struct lpeel_dev d;
	size_t smem;
	void *mem; /* every device table, one allocation */
};

/* ---- Kernels */

/* The parity of columns cols[a .. b) of the packed codeword c. */
__device__ static inline uint32_t lpeel_parity(const uint32_t *c, const uint32_t *cols, uint32_t a,
                                               uint32_t b)
{
	uint32_t x = 0;

	for (uint32_t e = a; e < b; e++) {
		uint32_t v = cols[e];

		x ^= c[v >> 5] >> (v & 31);
	}
	return x & 1u;
}

/* The parity of a warp's 64-bit partial products, in every lane. */
__device__ static inline uint32_t lpeel_warp_parity(unsigned long long x)
{
	uint32_t p = __popcll(x) & 1u;

	for (int sh = 16; sh > 0; sh >>= 1)
		p ^= __shfl_xor_sync(0xffffffffu, p, sh);
	return p;
}

/* One pass over the peeling steps, level by level. */
__device__ static void lpeel_pass(const struct lpeel_dev &d, uint32_t *c)
{
	for (uint32_t lv = 0; lv < d.nlevels; lv++) {
		const uint32_t a = d.level_start[lv], b = d.level_start[lv + 1];

		for (uint32_t i = a + threadIdx.x; i < b; i += blockDim.x) {
			const uint32_t *sc = d.step_cols + (size_t)i * d.stride;
			uint32_t x = 0;

#pragma unroll 4
			for (uint32_t e = 0; e < d.stride; e++) {
				uint32_t u = sc[e];

				x ^= c[u >> 5] >> (u & 31);
			}
			if (x & 1u)
				atomicXor(&c[sc[0] >> 5], 1u << (sc[0] & 31));
		}
		__syncthreads();
	}
}

__global__ void __launch_bounds__(LPEEL_THREADS)
    lpeel_encode_kernel(const struct lpeel_dev d, const uint32_t *bits, size_t bits_words,
                        uint32_t *code, size_t code_words)
{
	extern __shared__ uint32_t sm[];
	uint32_t *c = sm, *s = c + d.cw_words, *q = s + d.s_words;
	uint32_t *q1v = q + (d.nq2 + 31) / 32 + 1; /* the q1 columns' values */
	const uint32_t tid = threadIdx.x, nt = blockDim.x, lane = tid & 31;
	const uint32_t warp = tid >> 5, nwarps = nt >> 5;
	const uint32_t *fb = bits + (size_t)blockIdx.x * bits_words;
	uint32_t *fc = code + (size_t)blockIdx.x * code_words;

	/* 1. the information bits in their columns */
	for (uint32_t w = tid; w < d.cw_words; w += nt) {
		uint32_t v = 0, base = w * 32;

		if (!d.col_info) {
			if (base < d.k) {
				v = fb[w];
				if (d.k - base < 32)
					v &= (1u << (d.k - base)) - 1;
			}
		} else {
			for (uint32_t b = 0; b < 32 && base + b < d.n; b++) {
				uint32_t i = d.col_info[base + b];

				if (i != LPEEL_NONE)
					v |= (fb[i >> 5] >> (i & 31) & 1u) << b;
			}
		}
		c[w] = v;
	}
	for (uint32_t w = tid; w < d.s_words + d.q_words; w += nt)
		s[w] = 0;
	__syncthreads();

	/* 2. the q2 columns, each from the information alone */
	if (d.nq2) {
		for (uint32_t j = warp; j < d.nq2; j += nwarps) {
			const unsigned long long *row = d.q2_rows + (size_t)j * d.nw;
			unsigned long long x = 0;

			for (uint32_t w = lane; w < d.nw; w += 32)
				x ^= row[w] & ((unsigned long long)c[2 * w] |
				               (unsigned long long)c[2 * w + 1] << 32);
			if (lpeel_warp_parity(x) && lane == 0)
				atomicOr(&q[j >> 5], 1u << (j & 31));
		}
		__syncthreads();
		for (uint32_t j = tid; j < d.nq2; j += nt)
			if (q[j >> 5] >> (j & 31) & 1u) {
				uint32_t v = d.q2_cols[j];

				atomicOr(&c[v >> 5], 1u << (v & 31));
			}
		__syncthreads();
	}

	/* 3. peeling; 4. the q1 columns from the leftover rows' syndrome, and peeling again */
	lpeel_pass(d, c);
	if (d.nq1) {
		for (uint32_t base = warp * 32; base < d.nleft; base += nt) {
			uint32_t j = base + lane, p = 0;

			if (j < d.nleft)
				p = lpeel_parity(c, d.left_cols, d.left_off[j], d.left_off[j + 1]);
			uint32_t word = __ballot_sync(0xffffffffu, p);
			if (lane == 0)
				s[base >> 5] = word;
		}
		__syncthreads();
		for (uint32_t j = warp; j < d.nq1; j += nwarps) {
			const unsigned long long *row = d.q1_rows + (size_t)j * d.lw;
			unsigned long long x = 0;

			for (uint32_t w = lane; w < d.lw; w += 32)
				x ^= row[w] & ((unsigned long long)s[2 * w] |
				               (unsigned long long)s[2 * w + 1] << 32);
			if (lpeel_warp_parity(x) && lane == 0)
				atomicOr(&q1v[j >> 5], 1u << (j & 31));
		}
		__syncthreads();
		if (d.q1_delta) {
			for (uint32_t w = tid; w < d.ew; w += nt) {
				uint32_t acc = 0;

				for (uint32_t jw = 0; jw < (d.nq1 + 31) / 32; jw++)
					for (uint32_t m = q1v[jw]; m; m &= m - 1) {
						uint32_t j = jw * 32 + __ffs(m) - 1;

						acc ^= d.q1_delta[(size_t)j * d.ew + w];
					}
				c[w] ^= acc;
			}
			__syncthreads();
		} else {
			/* an inactivated column: 0 until now */
			for (uint32_t j = tid; j < d.nq1; j += nt)
				if (q1v[j >> 5] >> (j & 31) & 1u) {
					uint32_t v = d.q1_cols[j];

					atomicOr(&c[v >> 5], 1u << (v & 31));
				}
			__syncthreads();
			lpeel_pass(d, c);
		}
	}

	/* 5. the sent columns */
	for (uint32_t w = tid; w < code_words; w += nt) {
		uint32_t out = lsim_bits32_at(c, d.punct + w * 32);

		if (w * 32 + 32 > d.n_tx)
			out &= (1u << (d.n_tx - w * 32)) - 1;
		fc[w] = out;
	}
}

/* ---- Tables */

/* Each peeling step's level (1 + the highest among the steps whose columns its row holds) and
 * the steps' order by level (stable); returns the number of levels, 0 when out of memory. */
static uint32_t lpeel_levels(const struct ldpc_code *code, const struct ldpc_enc_tables *t,
                             uint32_t *order, uint32_t *level_count)
{
	const struct ldpc_matrix *h = &code->h;
	uint32_t *step_of = (uint32_t *)malloc(((size_t)h->n + 1) * sizeof(uint32_t));
	uint32_t *lv = (uint32_t *)malloc(((size_t)t->t + 1) * sizeof(uint32_t));
	uint32_t nlevels = 0;

	if (!step_of || !lv)
		goto out;
	for (uint32_t v = 0; v < h->n; v++)
		step_of[v] = LPEEL_NONE;
	for (uint32_t i = 0; i < t->t; i++)
		step_of[t->peel_col[i]] = i;
	for (uint32_t i = 0; i < t->t; i++) {
		uint32_t r = t->peel_row[i], l = 0;

		for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++) {
			uint32_t j = step_of[h->row_col[e]];

			if (j != LPEEL_NONE && j < i && lv[j] + 1 > l)
				l = lv[j] + 1;
		}
		lv[i] = l;
		nlevels = l + 1 > nlevels ? l + 1 : nlevels;
	}
	/* counting sort by level */
	memset(level_count, 0, ((size_t)nlevels + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < t->t; i++)
		level_count[lv[i] + 1]++;
	for (uint32_t l = 0; l < nlevels; l++)
		level_count[l + 1] += level_count[l];
	{
		uint32_t *next = step_of; /* reused: the next slot per level */

		memcpy(next, level_count, (size_t)nlevels * sizeof(uint32_t));
		for (uint32_t i = 0; i < t->t; i++)
			order[next[lv[i]]++] = i;
	}
out:
	free(step_of);
	free(lv);
	return nlevels;
}

/* The codeword's change where q1 column j alone is 1: the column and the peeled columns, as the
 * plan's steps set them (64 columns at a time, bit j % 64 of each column's word); nq1 rows of
 * ew words, or NULL when out of memory. */
static uint32_t *lpeel_q1_deltas(const struct ldpc_code *code, const struct ldpc_enc_tables *t,
                                 uint32_t ew)
{
	const struct ldpc_matrix *h = &code->h;
	uint32_t *delta = (uint32_t *)calloc((size_t)t->nq1 * ew + 1, 4);
	uint64_t *x = (uint64_t *)malloc(((size_t)h->n + 1) * 8);

	if (!delta || !x) {
		free(delta);
		free(x);
		return NULL;
	}
	for (uint32_t g = 0; g < t->nq1; g += 64) {
		memset(x, 0, (size_t)h->n * 8);
		for (uint32_t b = 0; b < 64 && g + b < t->nq1; b++)
			x[t->q1_cols[g + b]] |= 1ull << b;
		for (uint32_t i = 0; i < t->t; i++) {
			uint32_t r = t->peel_row[i], v = t->peel_col[i];
			uint64_t acc = 0;

			for (uint32_t e = h->row_start[r]; e < h->row_start[r + 1]; e++)
				if (h->row_col[e] != v)
					acc ^= x[h->row_col[e]];
			x[v] = acc;
		}
		for (uint32_t v = 0; v < h->n; v++)
			for (uint64_t m = x[v]; m; m &= m - 1)
				delta[(size_t)(g + __builtin_ctzll(m)) * ew + v / 32] |=
				    1u << (v % 32);
	}
	free(x);
	return delta;
}

/* Appends count bytes of src to the host image at *at (8-byte aligned); returns the offset. */
static size_t lpeel_put(uint8_t *img, size_t *at, const void *src, size_t bytes)
{
	size_t off = *at;

	if (img && bytes)
		memcpy(img + off, src, bytes);
	*at = (off + bytes + 7) / 8 * 8;
	return off;
}

int lpeel_create(const struct ldpc_code *code, struct lpeel_enc **out, char *err, size_t errlen)
{
	const struct ldpc_matrix *h = &code->h;
	struct ldpc_enc_tables t;
	uint32_t *order = NULL, *level_start = NULL, *step_cols = NULL, stride = 1;
	uint32_t *left_off = NULL, *left_cols = NULL, *col_info = NULL, *q1_delta = NULL;
	uint8_t *img = NULL;
	struct lpeel_enc *p = NULL;
	struct lpeel_dev *d;
	size_t ne = 0;
	uint32_t nl = 0;
	size_t off[11], at = 0;
	int dev, optin = 0, rc = -FEC_ENOMEM;
	cudaError_t e;

	if (ldpc_enc_tables_get(code, &t)) {
		snprintf(err, errlen, "ldpc: %s: no encoder plan", code->name);
		return -FEC_ENOTSUP;
	}
	for (uint32_t i = 0; i < t.t; i++) {
		uint32_t r = t.peel_row[i], deg = h->row_start[r + 1] - h->row_start[r];

		stride = deg > stride ? deg : stride;
	}
	if ((size_t)t.t * stride * 4 > LPEEL_STEPS_MAX) {
		snprintf(err, errlen,
		         "ldpc: %.60s: %u peeling steps of rows of up to %u columns: too large a "
		         "table for the device encoder (--all-zero needs none)",
		         code->name, t.t, stride);
		return -FEC_ENOTSUP;
	}
	p = (struct lpeel_enc *)calloc(1, sizeof(*p));
	order = (uint32_t *)malloc(((size_t)t.t + 1) * sizeof(uint32_t));
	level_start = (uint32_t *)malloc(((size_t)t.t + 2) * sizeof(uint32_t));
	step_cols = (uint32_t *)malloc(((size_t)t.t * stride + 1) * sizeof(uint32_t));
	left_off = (uint32_t *)malloc(((size_t)t.nleft + 1) * sizeof(uint32_t));
	left_cols = (uint32_t *)malloc(((size_t)h->nnz + 1) * sizeof(uint32_t));
	if (!p || !order || !level_start || !step_cols || !left_off || !left_cols)
		goto fail_mem;
	d = &p->d;

	d->n = h->n;
	d->k = code->k;
	d->punct = code->punct;
	d->n_tx = code->n_tx;
	d->nlevels = t.t ? lpeel_levels(code, &t, order, level_start) : 0;
	if (t.t && !d->nlevels)
		goto fail_mem;
	if (!t.t)
		level_start[0] = 0;
	/* the steps' lists, in level order: the step's column, its row's others, column n */
	d->stride = stride;
	for (uint32_t i = 0; i < t.t; i++) {
		uint32_t s = order[i], r = t.peel_row[s], v = t.peel_col[s];

		ne = (size_t)i * stride;
		step_cols[ne++] = v;
		for (uint32_t x = h->row_start[r]; x < h->row_start[r + 1]; x++)
			if (h->row_col[x] != v)
				step_cols[ne++] = h->row_col[x];
		while (ne < ((size_t)i + 1) * stride)
			step_cols[ne++] = h->n;
	}
	for (uint32_t j = 0; j < t.nleft; j++) {
		uint32_t r = t.left_rows[j];

		left_off[j] = nl;
		for (uint32_t x = h->row_start[r]; x < h->row_start[r + 1]; x++)
			left_cols[nl++] = h->row_col[x];
	}
	left_off[t.nleft] = nl;
	if (code->info_cols[code->k - 1] != code->k - 1) {
		col_info = (uint32_t *)malloc((size_t)h->n * sizeof(uint32_t));
		if (!col_info)
			goto fail_mem;
		for (uint32_t v = 0; v < h->n; v++)
			col_info[v] = LPEEL_NONE;
		for (uint32_t i = 0; i < code->k; i++)
			col_info[code->info_cols[i]] = i;
	}
	d->ew = (h->n + 31) / 32;
	if (t.nq1 && (size_t)t.nq1 * d->ew * 4 <= LPEEL_DELTA_MAX &&
	    !(q1_delta = lpeel_q1_deltas(code, &t, d->ew)))
		goto fail_mem;
	d->nleft = t.nleft;
	d->lw = t.lw;
	d->nq1 = t.nq1;
	d->nq2 = t.nq2;
	d->nw = t.nw;

	/* one device image: offsets first (img NULL), then the copy */
	for (int pass = 0; pass < 2; pass++) {
		at = 0;
		off[0] = lpeel_put(img, &at, level_start, ((size_t)d->nlevels + 1) * 4);
		off[1] = 0;
		off[2] = lpeel_put(img, &at, step_cols, (size_t)t.t * stride * 4);
		off[3] = lpeel_put(img, &at, left_off, ((size_t)t.nleft + 1) * 4);
		off[4] = lpeel_put(img, &at, left_cols, (size_t)nl * 4);
		off[5] = lpeel_put(img, &at, t.q1_cols, (size_t)t.nq1 * 4);
		off[6] = lpeel_put(img, &at, t.q2_cols, (size_t)t.nq2 * 4);
		off[7] = lpeel_put(img, &at, t.q1_rows, (size_t)t.nq1 * t.lw * 8);
		off[8] = lpeel_put(img, &at, t.q2_rows, (size_t)t.nq2 * t.nw * 8);
		off[9] = lpeel_put(img, &at, col_info, col_info ? (size_t)h->n * 4 : 0);
		off[10] = lpeel_put(img, &at, q1_delta, q1_delta ? (size_t)t.nq1 * d->ew * 4 : 0);
		if (pass == 0 && !(img = (uint8_t *)calloc(at + 8, 1)))
			goto fail_mem;
	}
	e = cudaMalloc(&p->mem, at + 8);
	if (e == cudaSuccess)
		e = cudaMemcpy(p->mem, img, at + 8, cudaMemcpyHostToDevice);
	if (e != cudaSuccess) {
		rc = gpu_error(e, "ldpc simulator encoder: uploading the plan", err, errlen);
		goto fail;
	}
	{
		const uint8_t *m = (const uint8_t *)p->mem;

		d->level_start = (const uint32_t *)(m + off[0]);
		d->step_cols = (const uint32_t *)(m + off[2]);
		d->left_off = (const uint32_t *)(m + off[3]);
		d->left_cols = (const uint32_t *)(m + off[4]);
		d->q1_cols = (const uint32_t *)(m + off[5]);
		d->q2_cols = (const uint32_t *)(m + off[6]);
		d->q1_rows = (const unsigned long long *)(m + off[7]);
		d->q2_rows = (const unsigned long long *)(m + off[8]);
		d->col_info = col_info ? (const uint32_t *)(m + off[9]) : NULL;
		d->q1_delta = q1_delta ? (const uint32_t *)(m + off[10]) : NULL;
	}
	d->cw_words = 2 * ((h->n + 63) / 64) + 2;
	d->s_words = 2 * t.lw + 2;
	d->q_words = (t.nq2 + 31) / 32 + 1 + (t.nq1 + 31) / 32 + 1;
	p->smem = ((size_t)d->cw_words + d->s_words + d->q_words) * 4;
	e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
	if (e == cudaSuccess && p->smem > (size_t)optin) {
		snprintf(
		    err, errlen,
		    "ldpc: %s: a frame's codeword and syndrome take %zu bytes of shared memory, "
		    "more than the device's %d",
		    code->name, p->smem, optin);
		rc = -FEC_ENOTSUP;
		goto fail;
	}
	if (e == cudaSuccess)
		e = cudaFuncSetAttribute(lpeel_encode_kernel,
		                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p->smem);
	if (e != cudaSuccess) {
		rc = gpu_error(e, "ldpc simulator encoder: shared memory", err, errlen);
		goto fail;
	}
	rc = 0;
	*out = p;
	p = NULL;
	goto done;

fail_mem:
	snprintf(err, errlen, "out of memory");
	rc = -FEC_ENOMEM;
fail:
	lpeel_destroy(p);
	p = NULL;
done:
	free(order);
	free(level_start);
	free(step_cols);
	free(left_off);
	free(left_cols);
	free(col_info);
	free(q1_delta);
	free(img);
	return rc;
}

int lpeel_encode(const struct lpeel_enc *p, const uint32_t *bits, size_t bits_words, uint32_t *code,
                 size_t code_words, uint32_t count, cudaStream_t s, char *err, size_t errlen)
{
	/* one block a frame */
	return sim_encode_launch(lpeel_encode_kernel, "lpeel_encode_kernel", count, LPEEL_THREADS,
	                         p->smem, s, err, errlen, p->d, bits, bits_words, code, code_words);
}

void lpeel_destroy(struct lpeel_enc *p)
{
	if (!p)
		return;
	cudaFree(p->mem);
	free(p);
}
