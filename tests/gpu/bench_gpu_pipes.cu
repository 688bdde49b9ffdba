/*
 * How many warp instructions per clock an SM sustains for the instruction kinds the fast LDPC
 * kernel is made of (16x2 integer add/min, PRMT, LOP3, IMAD) and for the float ones it could use
 * instead (f16x2 add/min/fma, f32 add), alone and in pairs: a pair that sums its members' rates
 * runs on two pipes. By hand on the GPU machine (cuda/ldpc/LDPC_GPU.md keeps the figures):
 *     bench_gpu_pipes
 * Each thread runs 8 chains, each step combining a chain with its neighbour (so that ptxas can
 * neither fold nor drop a step), 2048 threads per SM; the second of two launches is timed.
 */
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>

#define CHAINS 8
#define STEPS  2048

enum op_kind { ADD16, MIN16, LOP3, PRMT, IMAD, ADDH2, MINH2, FMAH2, ADDF32, NKINDS };
static const char *const kind_name[NKINDS] = {"add.s16x2", "min.s16x2", "lop3 (xor)", "prmt",
                                              "mad.lo.u32", "add.f16x2", "min.f16x2",
                                              "fma.f16x2", "add.f32"};

template <int K> __device__ __forceinline__ uint32_t step(uint32_t a, uint32_t b)
{
	uint32_t d;

	if (K == ADD16)
		asm volatile("add.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	else if (K == MIN16)
		asm volatile("min.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	else if (K == LOP3)
		asm volatile("lop3.b32 %0, %1, %2, 0x5a5a5a5a, 0x6a;" : "=r"(d) : "r"(a), "r"(b));
	else if (K == PRMT)
		asm volatile("prmt.b32 %0, %1, %2, 0x6541;" : "=r"(d) : "r"(a), "r"(b));
	else if (K == IMAD)
		asm volatile("mad.lo.u32 %0, %1, %2, 0x9e3779b9;" : "=r"(d) : "r"(a), "r"(b));
	else if (K == ADDH2)
		asm volatile("add.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	else if (K == MINH2)
		asm volatile("min.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	else if (K == FMAH2)
		asm volatile("fma.rn.f16x2 %0, %1, %2, %1;" : "=r"(d) : "r"(a), "r"(b));
	else
		asm volatile("add.f32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
	return d;
}

/* Even chains take kind A, odd ones kind B. */
template <int A, int B> __global__ void pipes_kernel(uint32_t *out, uint32_t seed)
{
	uint32_t x[CHAINS];

	for (int i = 0; i < CHAINS; i++)
		x[i] = (seed + threadIdx.x * 7u + (uint32_t)i * 0x01010101u) & 0x3bff3bffu;
	for (int s = 0; s < STEPS; s++) {
#pragma unroll
		for (int i = 0; i < CHAINS; i++)
			x[i] = (i & 1) ? step<B>(x[i], x[(i + 1) % CHAINS])
			               : step<A>(x[i], x[(i + 1) % CHAINS]);
	}
	uint32_t r = 0;
	for (int i = 0; i < CHAINS; i++)
		r ^= x[i];
	out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

template <int A, int B> static int measure(uint32_t *out, int sms, double hz)
{
	const int blocks = 2 * sms, threads = 1024;
	cudaEvent_t e0, e1;
	float ms = 0;

	if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
		return -1;
	pipes_kernel<A, B><<<blocks, threads>>>(out, 1);
	cudaEventRecord(e0);
	pipes_kernel<A, B><<<blocks, threads>>>(out, 2);
	cudaEventRecord(e1);
	if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
		return -1;
	const double warp_instr = (double)blocks * threads / 32 * STEPS * CHAINS;
	printf("  %-11s + %-11s %5.2f warp instructions/clock/SM\n", kind_name[A], kind_name[B],
	       warp_instr / (ms * 1e-3 * hz) / sms);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	return 0;
}

int main(void)
{
	cudaDeviceProp p;
	uint32_t *out;
	int khz = 0, bad = 0;

	if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
		fprintf(stderr, "bench_gpu_pipes: no CUDA device\n");
		return 77;
	}
	cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
	if (cudaMalloc(&out, (size_t)p.multiProcessorCount * 2 * 1024 * sizeof(uint32_t)) !=
	    cudaSuccess)
		return 1;
	printf("%s, %d SMs at %d MHz (the clock the rates are counted at)\n", p.name,
	       p.multiProcessorCount, khz / 1000);
	const double hz = khz * 1e3;
	const int sms = p.multiProcessorCount;
	bad |= measure<ADD16, ADD16>(out, sms, hz);
	bad |= measure<MIN16, MIN16>(out, sms, hz);
	bad |= measure<LOP3, LOP3>(out, sms, hz);
	bad |= measure<PRMT, PRMT>(out, sms, hz);
	bad |= measure<IMAD, IMAD>(out, sms, hz);
	bad |= measure<ADDH2, ADDH2>(out, sms, hz);
	bad |= measure<MINH2, MINH2>(out, sms, hz);
	bad |= measure<FMAH2, FMAH2>(out, sms, hz);
	bad |= measure<ADDF32, ADDF32>(out, sms, hz);
	bad |= measure<MIN16, ADD16>(out, sms, hz);
	bad |= measure<LOP3, ADD16>(out, sms, hz);
	bad |= measure<MIN16, ADDH2>(out, sms, hz);
	bad |= measure<LOP3, ADDH2>(out, sms, hz);
	bad |= measure<PRMT, FMAH2>(out, sms, hz);
	bad |= measure<IMAD, LOP3>(out, sms, hz);
	bad |= measure<MINH2, ADDH2>(out, sms, hz);
	cudaFree(out);
	return bad ? 1 : 0;
}
