/*
 * Internal to the GPU nbldpc files: the code's tables as the kernels take them (device pointers,
 * the field's tables and the decoder's choices, passed by value at each launch), the per-frame
 * rules every nbldpc kernel applies exactly as codec/nbldpc/nbldpc_coder.c does (which jobs are
 * usable, the symbol log-likelihoods formed from the input, the packed information bits, the job's
 * outputs), the launch shape, and the FFT-BP kernel's launcher. The min-max kernel's launcher is
 * declared in nbldpc_gpu_minmax.h, trellis min-sum's in nbldpc_gpu_tms.h.
 */
#ifndef NBLDPC_GPU_CUH
#define NBLDPC_GPU_CUH

#include <stdint.h>

#include <cuda_runtime.h>

extern "C" {
#include "fec.h"
#include "nbldpc.h"
}
#include "gpu_family.h"

/* Everything a kernel reads about the code and the decoder's parameters. Edges are numbered in
 * row order (codec/nbldpc/nbldpc.h): row_col[e] and row_val[e] (the coefficient, vector form) of
 * edge e; col_edge lists each column's edges in row order. */
struct nbgpu_code {
	uint32_t n, m, nnz, k, q, p;
	uint32_t max_row_deg, max_col_deg;
	const uint32_t *row_start, *row_col, *col_start, *col_edge, *info_cols;
	/* per edge e, the other edges of its column in column order (the order the CPU's
	 * variable node multiplies them in): oth_edge[oth_start[e] .. oth_start[e + 1]) */
	const uint32_t *oth_start, *oth_edge;
	/* tms: the checks by stage (sched_row[stage_start[s] .. stage_start[s + 1]) is stage s):
	 * stage(r) = 1 + the latest stage of an earlier check sharing a variable with r, so the
	 * checks of a stage share no variable and stages in order give the serial order's result */
	const uint32_t *sched_row, *stage_start;
	uint32_t nstage;
	/* tms, the chip kernel's flow form: per edge e, its row's place among the rows of its
	 * column (row order) in bits 0-15 and the column's degree in bits 16-31, so that the
	 * row's update of the column in iteration it (from 0) is the column's it dv + place-th */
	const uint32_t *edge_turn;
	/* FFT-BP on chip (nbldpc_gpu_fftbp_chip.cu, struct nbgpu_chip_plan): the variables by
	 * block of the cluster (chip_var[chip_var_start[r] .. chip_var_start[r + 1]) in block r),
	 * per position there its column's two edges' slots (block << 16 | edge within the block's
	 * rows), per variable its position (block << 16 | index in that block's list), and the
	 * most variables a block holds */
	const uint32_t *chip_var, *chip_var_start, *chip_slot, *chip_pos;
	/* the rows by block (chip_row[chip_row_start[r] ..]) and each one's first slot there */
	const uint32_t *chip_row, *chip_row_start, *chip_row_slot;
	/* per block: its first chip_row_nint rows have every variable in the block (only it
	 * writes their slots), its first chip_var_nloc variables both slots in it */
	const uint32_t *chip_row_nint, *chip_var_nloc;
	/* the edge form (a lane an edge): each row's 4 slot words (block << 16 | place), in
	 * chip_row's order, slots in their variables' blocks; the fused form: 12 words a row
	 * (nbldpc_gpu_fftbp_fused.cuh), each column's slot pair in its variable's block */
	const uint32_t *chip_row_slots;
	const uint32_t *chip_pair; /* the fused form: per variable its slot pair (chip_pair_word) */
	uint32_t chip_vmax, chip_rmax, chip_emax; /* the most variables, rows, edges of a block */
	const uint8_t *row_val;
	int algo; /* enum nbldpc_algo */
	bool log; /* fft-bp: log domain */
	bool early_stop;
	uint32_t max_iters;
	uint32_t dev2, offset; /* tms: candidates of two-deviation configurations, offset */
	int in;                /* enum fec_in_kind: the input the slots hold */
	float llr_scale;       /* int8 input: LLR * llr_scale */
	uint32_t in_syms;      /* input values of a frame: n p bits, or n symbols of q values */
	bool soft_bit;         /* soft output: bit LLRs (else q-ary symbol log-probabilities) */
	uint8_t bit_shift[8];  /* bit t (0 = first sent) of a symbol a is (a >> bit_shift[t]) & 1 */
	/* GF(q) in vector form: gf_exp[i] = alpha^i for i < 2(q-1), gf_log[a] for a != 0 */
	uint8_t gf_exp[512];
	uint8_t gf_log[256];
};

/* Launch shape chosen at create() from q, the code and the device. */
struct nbgpu_shape {
	int threads;       /* per block */
	int groups;        /* check (or variable) groups per block: min(q, 32) lanes each */
	int blocks_per_sm; /* resident, from the occupancy API */
	int grid;          /* blocks of a full launch: frames decoded at once */
	int regs;
	size_t smem;         /* dynamic shared memory per block */
	size_t ws_per_frame; /* workspace bytes one frame in flight needs */
	int tms_d;           /* tms: largest row of the register check (tms_reg.cuh), 0: none */
	int tms_form;        /* tms: the register check's form: 1 tms_reg.cuh, 2 tms_reg2.cuh, 3 */
	int tms_ns;          /* tms: dev2 fixed at compile time (the loop unrolled), 0: not */
	bool tms_flow;       /* tms, on chip: no barriers between stages (nbldpc_gpu_tms.cu) */
	bool tms_lb8;        /* tms, in device memory: 64 registers, 8 blocks an SM */
	bool tms_chip;       /* tms: the frame on chip, a block a frame (nbldpc_tms_chip_kernel) */
	int chip_c;         /* fft-bp on chip: blocks of a cluster (a frame); 0: in device memory */
	int chip_v, chip_d; /* fft-bp on chip: values a lane, largest row of the kernel */
	int chip_f;         /* fft-bp on chip: the kernel's variant (nbldpc_gpu_fftbp_chip.cu) */
};

/* Whether job f is decodable (codec/nbldpc/nbldpc_coder.c: the right length, no head); an unusable
 * one gets its ERASED outputs here. */
__device__ __forceinline__ bool nbgpu_job_ok(const struct nbgpu_code &c, struct fec_job *job)
{
	if (job->in_len == c.in_syms && job->head_len == 0)
		return true;
	job->out_bits = 0;
	job->soft_count = 0;
	job->work = 0;
	job->metric = 0.0f;
	job->status = FECD_STATUS_ERASED;
	return false;
}

__device__ __forceinline__ void nbgpu_job_done(const struct nbgpu_code &c,
                                               const struct gpu_batch &b, struct fec_job *job,
                                               unsigned it, bool ok)
{
	job->out_bits = c.k * c.p;
	job->soft_count = b.soft ? (c.soft_bit ? c.k * c.p : c.k * c.q) : 0;
	job->work = it;
	job->metric = 0.0f;
	job->status = ok ? FECD_STATUS_DECODED : FECD_STATUS_NOT_CONVERGED;
}

/* GF(q) product and quotient (b != 0) from the field's tables (shared-memory copies). */
__device__ __forceinline__ unsigned nbgpu_mul(const uint8_t *ex, const uint8_t *lg, unsigned a,
                                              unsigned b)
{
	return a && b ? ex[lg[a] + lg[b]] : 0u;
}

__device__ __forceinline__ unsigned nbgpu_div(const uint8_t *ex, const uint8_t *lg, unsigned q,
                                              unsigned a, unsigned b)
{
	return a ? ex[lg[a] + q - 1 - lg[b]] : 0u;
}

/* Bit LLR i of a frame's input slot (int8 scaled, or float32; non-finite: 0). */
__device__ __forceinline__ float nbgpu_llr(const struct nbgpu_code &c, const char *slot, size_t i)
{
	const float llr = c.in == FEC_IN_F32_LLR ? ((const float *)slot)[i]
	                                         : (float)((const int8_t *)slot)[i] / c.llr_scale;

	return isfinite(llr) ? llr : 0.0f;
}

/* The log-likelihood of value a of symbol x of frame f, up to a constant per symbol, as
 * nbldpc_coder.c map_in_f32 forms it: -(sum of the LLRs of a's 1 bits), in bit order; q-ary input
 * taken as it is (non-finite: -1e30). */
__device__ __forceinline__ float nbgpu_prior(const struct nbgpu_code &c, const struct gpu_batch &b,
                                             uint32_t f, uint32_t x, unsigned a)
{
	const char *slot = (const char *)b.in + (size_t)f * b.in_stride;

	if (c.in == FEC_IN_F32_SYMLOGP) {
		const float v = ((const float *)slot)[(size_t)x * c.q + a];

		return isfinite(v) ? v : -1e30f;
	}
	float v = 0.0f;

	for (unsigned t = 0; t < c.p; t++)
		if ((a >> c.bit_shift[t]) & 1u)
			v -= nbgpu_llr(c, slot, (size_t)x * c.p + t);
	return v;
}

/* nbgpu_prior of V values a0 .. a0 + V - 1 of symbol x at once: its p LLRs read once. */
template <int V>
__device__ __forceinline__ void nbgpu_priors(const struct nbgpu_code &c, const struct gpu_batch &b,
                                             uint32_t f, uint32_t x, unsigned a0, float (&r)[V])
{
	const char *slot = (const char *)b.in + (size_t)f * b.in_stride;

#pragma unroll
	for (int v = 0; v < V; v++)
		r[v] = c.in == FEC_IN_F32_SYMLOGP ? nbgpu_prior(c, b, f, x, a0 + v) : 0.0f;
	if (c.in == FEC_IN_F32_SYMLOGP)
		return;
	for (unsigned t = 0; t < c.p; t++) { /* each value's sum in bit order, as nbgpu_prior */
		const float llr = nbgpu_llr(c, slot, (size_t)x * c.p + t);
		const unsigned sh = c.bit_shift[t];

#pragma unroll
		for (int v = 0; v < V; v++)
			if (((a0 + v) >> sh) & 1u)
				r[v] -= llr;
	}
}

/* Packs the information bits of the hard decision (n symbols in hard) into the frame's output
 * slot, first bit in the top of the first byte (codec bitpack.h), one thread per byte. */
__device__ __forceinline__ void nbgpu_out_bits(const struct nbgpu_code &c,
                                               const struct gpu_batch &b, uint32_t f,
                                               const uint8_t *hard, unsigned tid, unsigned nt)
{
	uint8_t *out = b.out + (size_t)f * b.out_stride;
	const uint32_t nbits = c.k * c.p;

	for (uint32_t j8 = tid; j8 < (nbits + 7) / 8; j8 += nt) {
		unsigned byte = 0;

		for (uint32_t j = j8 * 8; j < j8 * 8 + 8 && j < nbits; j++) {
			const unsigned sym = hard[c.info_cols[j / c.p]];

			byte |= ((sym >> c.bit_shift[j % c.p]) & 1u) << (7 - j % 8);
		}
		out[j8] = (uint8_t)byte;
	}
}

/* FFT-BP (nbldpc_gpu_fftbp.cu): prepare fills the shape (false in *ok where the code's rows need
 * more shared memory than a block has), launch enqueues a batch. */
int nbgpu_fftbp_prepare(const struct nbgpu_code *c, const struct fecd_cuda_device *dev,
                        struct nbgpu_shape *sh, bool *ok);
int nbgpu_fftbp_launch(const struct nbgpu_code *c, const struct nbgpu_shape *sh,
                       const struct gpu_batch *b, void *ws, cudaStream_t s);

/* FFT-BP with the messages on chip (nbldpc_gpu_fftbp_chip.cu). A plan places a frame on a
 * cluster of c blocks: the host arrays of nbgpu_code's chip_ tables (the caller uploads them)
 * and the shared memory a block needs. nbgpu_chip_takes: whether the code and decoder suit the
 * kernel at all (probability domain, columns of degree 2, rows of at most 8); plan_make returns
 * -FEC_ENOTSUP where a column's degree is not 2. prepare: false in *ok where the device cannot
 * hold the plan's cluster. part: rows partitioned across the blocks (else m / C in order); f:
 * the variant (nbgpu_chip_flags), whose slots may be padded.
 * nbgpu_chip_flags: the variant FECD_FFTBP_KERNEL's options ask for. */
struct nbgpu_chip_plan {
	unsigned c;
	uint32_t vmax, emax, rmax; /* most variables, edges, rows of a block */
	uint32_t remote;           /* variables' slots in another block than theirs */
	size_t smem;
	uint32_t *var, *var_start, *slot, *pos, *row, *row_start, *row_slot;
	uint32_t *row_nint, *var_nloc; /* per block (nbgpu_code.chip_row_nint, chip_var_nloc) */
	uint32_t *row_slots;           /* the edge and fused forms: row_words slot words a row */
	unsigned row_words;            /* (nbgpu_code.chip_row_slots): 4 or 12 */
	uint32_t *pair;                /* the fused form: per variable (nbgpu_code.chip_pair) */
	uint32_t pmax;                 /* the fused form: the most slot pairs a block holds */
};

bool nbgpu_chip_takes(const struct nbgpu_code *c);
int nbgpu_chip_default_v(unsigned q);
int nbgpu_chip_plan_make(const struct nbldpc_code *code, unsigned q, unsigned cs, bool part,
                         int f, struct nbgpu_chip_plan *p);
void nbgpu_chip_plan_free(struct nbgpu_chip_plan *p);
int nbgpu_chip_flags(const struct nbgpu_code *c, int v, const char *opt);
int nbgpu_fftbp_chip_prepare(const struct nbgpu_code *c, const struct fecd_cuda_device *dev,
                             const struct nbgpu_chip_plan *p, int v, int f, struct nbgpu_shape *sh,
                             bool *ok);
int nbgpu_fftbp_chip_launch(const struct nbgpu_code *c, const struct nbgpu_shape *sh,
                            const struct gpu_batch *b, cudaStream_t s);

/* The simulator's encoder (nbldpc_gpu_sim.cu), nbldpc_gpu_family's sim_encoder. */
extern "C" const struct gpu_sim_encoder_ops nbldpc_gpu_sim_encoder;

#endif
