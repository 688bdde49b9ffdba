/*
 * The channel models fecd-sim's GPU engine makes (sim_channel.cuh): awgn, which sends the code
 * bits as they are (the engine's modulate kernel adds the noise), and bsid, the ids family's
 * binary substitution, insertion and deletion channel as codec/ids/ids_code.h defines it (the
 * seed's section II-B): before each code bit, insertions of a random bit with probability pi
 * each; then the bit is deleted with probability pd, or sent (pt = 1 - pi - pd) and flipped with
 * probability ps; no insertion follows the last bit.
 *
 * bsid, one block per frame: each thread takes a run of consecutive code bits and draws their
 * fates (Philox, sim_channel.cuh), counting the bits they deliver; a block-wide scan of the
 * counts gives each run its first received position; the thread draws the same fates again
 * and sets the received bits, in shared memory, which then goes out whole. A draw is a Philox
 * block: its first value against pi and pi + pd (thresholds in units of 2^-32), its second
 * against ps for a sent bit, its third's top bit for an inserted one.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "fec.h"
}
#include "gpu_family.h"
#include "sim_channel.cuh"

#define BSID_THREADS 256
#define BSID_INS_MAX 1024 /* insertions before one bit at most (pi <= 0.5: p < 2^-1024) */

/* ---- bsid */

struct bsid_thresholds {
	uint64_t ins, ins_del, sub; /* pi, pi + pd, ps as fractions of 2^32 */
};

/* Delivers one received bit at position pos + *got (WRITE: set in rx where below max_rx). */
template <bool WRITE>
__device__ static inline void bsid_emit(uint32_t bit, uint32_t pos, uint32_t *got, uint32_t max_rx,
                                        uint32_t *rx)
{
	const uint32_t at = pos + *got;

	if (WRITE && bit && at < max_rx)
		atomicOr(&rx[at >> 5], 1u << (at & 31));
	(*got)++;
}

/* The fates of code bits [t0, t1) of a frame; returns the bits they deliver. WRITE false counts
 * the edits into ed; WRITE true sets the received bits from position pos on in rx. */
template <bool WRITE>
__device__ static uint32_t bsid_run(uint64_t seed, uint64_t subseq, struct bsid_thresholds th,
                                    const uint32_t *code, uint32_t t0, uint32_t t1, uint32_t pos,
                                    uint32_t max_rx, uint32_t *rx, uint32_t *ed)
{
	uint32_t got = 0;

	for (uint32_t t = t0; t < t1; t++) {
		const uint32_t cb = code[t >> 5] >> (t & 31) & 1u;

		for (uint32_t k = 0;; k++) {
			const uint4 r = sim_philox(seed, subseq, t + ((uint64_t)(k + 1) << 32));

			if (r.x < th.ins && k < BSID_INS_MAX) {
				bsid_emit<WRITE>(r.z >> 31, pos, &got, max_rx, rx);
				if (!WRITE)
					ed[SIM_EDIT_INS]++;
				continue;
			}
			if (r.x < th.ins_del) {
				if (!WRITE)
					ed[SIM_EDIT_DEL]++;
				break;
			}
			const uint32_t flip = r.y < th.sub;

			bsid_emit<WRITE>(cb ^ flip, pos, &got, max_rx, rx);
			if (!WRITE)
				ed[SIM_EDIT_SUB] += flip;
			break;
		}
	}
	return got;
}

__global__ void bsid_kernel(uint64_t seed, uint64_t first, uint32_t count,
                            struct bsid_thresholds th, uint32_t code_syms, const uint32_t *code,
                            size_t code_words, uint32_t max_rx, uint32_t *rx, size_t rx_words,
                            uint32_t *rx_len, uint32_t *edits)
{
	extern __shared__ uint32_t srx[];
	__shared__ uint32_t warp_sum[BSID_THREADS / 32], sed[SIM_EDITS];
	const uint32_t f = blockIdx.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const uint32_t nwarps = blockDim.x / 32, words = (max_rx + 31) / 32;
	const uint32_t per = (code_syms + blockDim.x - 1) / blockDim.x;
	const uint32_t t0 = min(code_syms, tid * per), t1 = min(code_syms, t0 + per);
	const uint64_t subseq = 2 * (first + f) + 1;
	const uint32_t *fc = code + (size_t)f * code_words;
	uint32_t ed[SIM_EDITS] = {0, 0, 0};

	if (f >= count)
		return;
	for (uint32_t w = tid; w < words; w += blockDim.x)
		srx[w] = 0;
	if (tid < SIM_EDITS)
		sed[tid] = 0;
	const uint32_t mine = bsid_run<false>(seed, subseq, th, fc, t0, t1, 0, max_rx, NULL, ed);

	/* exclusive scan of the runs' counts: within the warp, then over the warps' sums */
	uint32_t x = mine;
	for (uint32_t o = 1; o < 32; o <<= 1) {
		const uint32_t y = __shfl_up_sync(0xffffffffu, x, o);

		if (lane >= o)
			x += y;
	}
	if (lane == 31)
		warp_sum[warp] = x;
	__syncthreads();
	if (warp == 0) {
		uint32_t v = lane < nwarps ? warp_sum[lane] : 0;

		for (uint32_t o = 1; o < 32; o <<= 1) {
			const uint32_t y = __shfl_up_sync(0xffffffffu, v, o);

			if (lane >= o)
				v += y;
		}
		if (lane < nwarps)
			warp_sum[lane] = v;
	}
	for (unsigned e = 0; e < SIM_EDITS; e++)
		if (ed[e])
			atomicAdd(&sed[e], ed[e]);
	__syncthreads();
	const uint32_t pos = x - mine + (warp ? warp_sum[warp - 1] : 0);
	const uint32_t total = warp_sum[nwarps - 1];

	bsid_run<true>(seed, subseq, th, fc, t0, t1, pos, max_rx, srx, NULL);
	__syncthreads();
	uint32_t *frx = rx + (size_t)f * rx_words;
	for (uint32_t w = tid; w < rx_words; w += blockDim.x)
		frx[w] = w < words ? srx[w] : 0;
	if (tid == 0)
		rx_len[f] = min(total, max_rx);
	if (tid < SIM_EDITS)
		edits[(size_t)SIM_EDITS * f + tid] = sed[tid];
}

/* A model's parameter by name (the channel table's order is its own). */
static double param_of(const struct fec_channel *ch, const char *name)
{
	for (unsigned i = 0; ch->model->params[i].name; i++)
		if (!strcmp(ch->model->params[i].name, name))
			return ch->param[i];
	return 0.0;
}

static uint64_t fraction_2_32(double p)
{
	return (uint64_t)llround(ldexp(p < 0 ? 0 : p > 1 ? 1 : p, 32));
}

static int bsid_edit(const struct fec_channel *ch, uint64_t seed, uint64_t first, uint32_t count,
                     uint32_t code_syms, const uint32_t *code, size_t code_words, uint32_t max_rx,
                     uint32_t *rx, size_t rx_words, uint32_t *rx_len, uint32_t *edits,
                     cudaStream_t s, char *err, size_t errlen)
{
	const double pi = param_of(ch, "pi"), pd = param_of(ch, "pd"), ps = param_of(ch, "ps");
	const struct bsid_thresholds th = {fraction_2_32(pi), fraction_2_32(pi + pd),
	                                   fraction_2_32(ps)};
	const size_t smem = (size_t)(max_rx + 31) / 32 * 4;
	cudaError_t e;

	if (count == 0)
		return 0;
	if (smem > 48u << 10 || (max_rx + 31) / 32 > rx_words) {
		snprintf(err, errlen, "bsid channel: %u received bits a frame: at most %u", max_rx,
		         48u << 13);
		return -FEC_ENOTSUP;
	}
	bsid_kernel<<<count, BSID_THREADS, smem, s>>>(seed, first, count, th, code_syms, code,
	                                              code_words, max_rx, rx, rx_words, rx_len,
	                                              edits);
	e = cudaGetLastError();
	return e == cudaSuccess ? 0 : gpu_error(e, "bsid_kernel", err, errlen);
}

/* ---- The table */

static const struct sim_channel_ops sim_channels[] = {
    {"awgn", NULL},
    {"bsid", bsid_edit},
};

const struct sim_channel_ops *sim_channel_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(sim_channels) / sizeof(sim_channels[0]); i++)
		if (name && !strcmp(sim_channels[i].name, name))
			return &sim_channels[i];
	return NULL;
}
