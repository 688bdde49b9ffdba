/*
 * Internal to the ids family: the receiver-metric lattice of one symbol at every start drift
 * (gamma, eq. 6-10 of the seed), the decoder's inner loop. The body is in ids_lattice_body.h,
 * compiled for 8 and 16 symbols at once, portable (ids_lattice.c) and for AVX2
 * (ids_lattice_avx2.c); both do the
 * same float operations in the same order (ISO C: no contraction into FMA), so every level
 * gives the same gammas bit for bit; ids_map.c picks one from cpu_simd.h's level.
 */
#ifndef IDS_LATTICE_H
#define IDS_LATTICE_H

#include <stddef.h>
#include <stdint.h>

#define IDS_LANES_MAX 16  /* symbols computed together: 8 for q <= 8, else 16 */
#define IDS_MN_MAX    256 /* widest corridor (drift change over one codeword) */

struct ids_lattice_in {
	uint32_t q, qpad; /* symbols, and rounded up to ids_lattice_lanes(q) */
	uint32_t n, Mn;
	int cmin, cmax, fmin, fmax;
	long base;          /* n i: the symbol's first bit */
	uint32_t rho;       /* received values */
	float hpi, pd;      /* 1/2 pi, pd */
	const float *qrx;   /* 2 per received value: Q(y|0), Q(y|1) */
	const float *xf;    /* n * qpad: bit r of symbol D's codeword, 0 or 1 (0 past q) */
	const float *prior; /* qpad: the symbol's priors (0 past q) */
	/* M_tau values: the start drifts m' with act[m' - fmin] != 0 get gammas, the others are
	 * not written (their alpha is 0: the decoder reads none of them); NULL: every m' */
	const double *act;
	float *qv;   /* workspace: ids_lattice_qv_floats() floats, 32-byte aligned */
	float *rows; /* workspace: ids_lattice_rows_floats() floats, 32-byte aligned */
};

static inline size_t ids_lattice_qv_floats(uint32_t n, uint32_t Mtau, uint32_t Mn)
{
	return (size_t)n * (Mtau + n + Mn) * IDS_LANES_MAX;
}

/* Two rows of two lattices of M_n + 2 cells of up to 16 symbols. */
static inline size_t ids_lattice_rows_floats(uint32_t Mn)
{
	return (size_t)2 * 2 * (Mn + 2) * IDS_LANES_MAX;
}

/* Whether start drift mp gets gammas (in->act). */
static inline int ids_lattice_on(const struct ids_lattice_in *in, int mp)
{
	return !in->act || in->act[mp - in->fmin] != 0.0;
}

/* Symbols a lattice computes together: 16 (two independent chains of AVX operations, which hide
 * each other's latency) where q fills them, else 8. */
static inline uint32_t ids_lattice_lanes(uint32_t q)
{
	return q >= 16 ? 16 : 8;
}

/* g[((m' - fmin) M_n + d - cmin) q + D] for every active m' in [fmin, fmax] (in->act), d in
 * [cmin, cmax], D < q. */
void ids__lattice8_portable(const struct ids_lattice_in *in, float *g);
void ids__lattice16_portable(const struct ids_lattice_in *in, float *g);
void ids__lattice8_avx2(const struct ids_lattice_in *in, float *g);
void ids__lattice16_avx2(const struct ids_lattice_in *in, float *g);

#endif
