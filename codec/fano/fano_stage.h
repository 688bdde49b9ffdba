/*
 * Internal to codec/fano/: the fast path's table of branch metrics per stage (fano_fast.c says
 * what an entry holds), written once for the compiler to vectorize and built twice: in
 * fano_fast.c for the baseline target (SSE2 on x86-64), and in fano_fast_avx2.c with AVX2, chosen
 * at run time. Both give the same entries.
 */
#ifndef FANO_STAGE_H
#define FANO_STAGE_H

#include <stdint.h>
#include <string.h>

#include "fano.h"

#define FANO_STAGE_INLINE static inline __attribute__((always_inline))

/* One direction's table: for each stage s and input-0 code word w, the entry from the metrics
 * of w and of w ^ c1 (the sums over outputs r of fano_fast_init's per-output rows at stage s's
 * LLR r). n and words are constants where it is inlined, so that it vectorizes: int16 sums
 * (every one fits: n times the metric floor at least), then each pair sorted and packed. */
FANO_STAGE_INLINE void stage_rows(const int16_t *vt, const int8_t *in, uint32_t *restrict out,
                                  uint32_t stages, unsigned n, unsigned words)
{
	for (uint32_t s = 0; s < stages; s++, in += n, out += words) {
		const int16_t *p[FANO_N_MAX];
		int16_t row[32], lo[16], hi[16];

		for (unsigned r = 0; r < n; r++)
			p[r] = vt + ((size_t)r * 256 + (uint8_t)in[r]) * 2 * words;
		for (unsigned j = 0; j < 2 * words; j++)
			row[j] = p[0][j];
		for (unsigned r = 1; r < n; r++)
			for (unsigned j = 0; j < 2 * words; j++)
				row[j] = (int16_t)(row[j] + p[r][j]);
		/* in int16 lanes: the other metric, and the better one doubled with the flag */
		for (unsigned j = 0; j < words; j++) {
			const int16_t m0 = row[j], m1 = row[words + j];
			const uint16_t best = m1 > m0;

			lo[j] = best ? m0 : m1;
			hi[j] = (int16_t)((uint16_t)((uint16_t)(best ? m1 : m0) << 1) | best);
		}
		for (unsigned j = 0; j < words; j++)
			out[j] = (uint16_t)lo[j] | (uint32_t)(uint16_t)hi[j] << 16;
	}
}

/* Defines void NAME(vt, in, out, stages, n): every stage's entries for n = 2..4. */
#define FANO_STAGE_TABLE(NAME)                                                                     \
	void NAME(const int16_t *vt, const int8_t *in, uint32_t *out, uint32_t stages, unsigned n) \
	{                                                                                          \
		if (n == 2)                                                                        \
			stage_rows(vt, in, out, stages, 2, 4);                                     \
		else if (n == 3)                                                                   \
			stage_rows(vt, in, out, stages, 3, 8);                                     \
		else                                                                               \
			stage_rows(vt, in, out, stages, 4, 16);                                    \
	}

void fano_stage_table_sse2(const int16_t *vt, const int8_t *in, uint32_t *out, uint32_t stages,
                           unsigned n);
void fano_stage_table_avx2(const int16_t *vt, const int8_t *in, uint32_t *out, uint32_t stages,
                           unsigned n);

#endif
