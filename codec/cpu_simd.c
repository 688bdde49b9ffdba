/*
 * Run-time choice of the SIMD level (see cpu_simd.h): what the CPU has, what the environment asks
 * for, and what a test or benchmark forces. The level is one atomic integer, so decoders on any
 * thread read it without a lock.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_simd.h"
#include "fec.h"

static const char *const level_names[FEC_SIMD_LEVELS] = {"portable", "sse2", "avx2", "avx512"};

/* -1 until first use. */
static atomic_int current_level = -1;

int fec_simd_available(unsigned level)
{
#if defined(FECD_SIMD_X86)
	__builtin_cpu_init();
#endif
	switch (level) {
	case FEC_SIMD_PORTABLE:
		return 1;
#if defined(FECD_SIMD_X86)
	case FEC_SIMD_SSE2:
		return __builtin_cpu_supports("sse2");
	case FEC_SIMD_AVX2:
		return __builtin_cpu_supports("avx2");
	case FEC_SIMD_AVX512:
		/* the pass also uses AVX2 (the passes it falls back to) and BMI2's pdep */
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("bmi2");
#endif
	default:
		return 0;
	}
}

static int level_by_name(const char *name)
{
	for (int l = 0; l < FEC_SIMD_LEVELS; l++)
		if (name && !strcmp(name, level_names[l]))
			return l;
	return -1;
}

/* Best level, or FECD_SIMD's when the CPU has it. Racing first uses all compute the same. */
static int initial_level(void)
{
	int best = FEC_SIMD_PORTABLE, asked;

	for (int l = FEC_SIMD_LEVELS - 1; l > 0; l--)
		if (fec_simd_available((unsigned)l)) {
			best = l;
			break;
		}
	asked = level_by_name(getenv("FECD_SIMD"));
	return asked >= 0 && fec_simd_available((unsigned)asked) ? asked : best;
}

enum fec_simd_level fec_simd_level(void)
{
	int l = atomic_load_explicit(&current_level, memory_order_relaxed);

	if (l < 0) {
		int expected = -1;

		l = initial_level();
		/* A fec_simd_set that won the race keeps its level. */
		if (!atomic_compare_exchange_strong(&current_level, &expected, l))
			l = expected;
	}
	return (enum fec_simd_level)l;
}

int fec_simd_set(const char *name)
{
	int l = level_by_name(name);

	if (l < 0)
		return -FEC_EINVAL;
	if (!fec_simd_available((unsigned)l))
		return -FEC_ENOTSUP;
	atomic_store(&current_level, l);
	return 0;
}

const char *fec_simd_name(void)
{
	return level_names[fec_simd_level()];
}

const char *fec_simd_level_name(unsigned level)
{
	return level < FEC_SIMD_LEVELS ? level_names[level] : NULL;
}
