/*
 * The SIMD level the CPU decoders run at, chosen at run time so that one build serves every x86
 * CPU (and every other CPU, with the portable code).
 *
 * Levels, lowest first: "portable" (plain C, the reference), "sse2", "avx2", "avx512" (AVX-512
 * F/BW/VL with BMI2). At first use the level is the best the CPU has (__builtin_cpu_supports),
 * unless the environment variable FECD_SIMD=portable|sse2|avx2|avx512 names one, which is read once
 * then; a level the CPU lacks, or an unknown name, is ignored and the best level is used.
 * fec_simd_set changes the level for every decode that starts after it (tests and benchmarks
 * compare levels this way); it is safe to call while other threads decode. Every level gives
 * bit-identical results: only the speed changes.
 */
#ifndef CPU_SIMD_H
#define CPU_SIMD_H

enum fec_simd_level {
	FEC_SIMD_PORTABLE = 0,
	FEC_SIMD_SSE2 = 1,
	FEC_SIMD_AVX2 = 2,
	FEC_SIMD_AVX512 = 3,
	FEC_SIMD_LEVELS
};

/* Sets the level by name; 0, -FEC_EINVAL for an unknown name, -FEC_ENOTSUP for a level this CPU
 * (or this build) does not have. */
int fec_simd_set(const char *name);

/* The level in use, by name. */
const char *fec_simd_name(void);

/* The level in use. */
enum fec_simd_level fec_simd_level(void);

/* Name of a level ("portable", "sse2", "avx2", "avx512"); NULL past the last. */
const char *fec_simd_level_name(unsigned level);

/* Whether this CPU and build can run the level. */
int fec_simd_available(unsigned level);

#endif
