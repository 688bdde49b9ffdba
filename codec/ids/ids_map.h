/*
 * The ids family's MAP decoder, exactly the seed's (Briffa 2014, section II-C): forward-backward
 * over drift states for a TVB code (ids_code.h) received through the BSID channel, giving each
 * message symbol's a-posteriori probabilities.
 *
 * States are the drift m (received less transmitted bits) at codeword boundaries, within the
 * frame's limits [fmin, fmax] (M_tau states); a codeword changes it by d within [cmin, cmax] (M_n
 * values). For symbol i, start drift m' and symbol D, gamma = Pr{D_i = D} R(y | C_i(D)) (eq. 6),
 * where the receiver metric R comes from the lattice of eq. 7-10 kept to the corridor
 * cmin <= j - r <= cmax, computed once per (i, m', D) for every d at once (its last row). alpha
 * starts at drift 0, beta at the frame's final drift rho - tau (both are known: the frame's
 * boundaries), each normalised at every step (eq. 11-12); the posterior of eq. 1-3 is normalised
 * over D. A final drift outside [fmin, fmax], or a frame no path explains, is erased.
 *
 * Precision (what a GPU decoder must reproduce): the lattice and gamma in float (single), as the
 * seed; alpha, beta, the sums over D and the posteriors in double, summed in the orders of
 * ids_map.c. Received values are int8 LLRs: +-127 is a hard bit (the seed's Q of eq. 8 exactly),
 * other values v give the received bit's probability p0 = 1 / (1 + exp(-v / llr_scale)) and
 * Q(y | x) = pt ((1 - ps) p_x + ps (1 - p_x)); an insertion's random bit is 1/2 pi either way.
 *
 * Storage: global keeps every gamma of the frame (computed once, N M_tau M_n q floats); local
 * keeps one symbol's (computed in the forward pass and again in the backward pass, which computes
 * the posteriors as it goes: the seed's Fig. 3). Both give the same posteriors bit for bit.
 */
#ifndef IDS_MAP_H
#define IDS_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ids.h"
#include "ids_code.h"

/* Automatic storage is global while one frame's gammas take at most this many bytes. */
#define IDS_GLOBAL_AUTO_BYTES (64u << 20)
/* Posteriors are written as log-probabilities no smaller than this (a symbol no path explains). */
#define IDS_LOGP_FLOOR (-200.0f)

struct ids_map_params {
	struct ids_chan ch;
	double p_excl;            /* drift limits: probability of leaving them (frame, codeword) */
	float llr_scale;          /* int8 LLR = round(LLR * llr_scale) */
	enum ids_storage storage; /* auto: global while it fits IDS_GLOBAL_AUTO_BYTES */
	/* pruning: after each forward step, alpha below this (alpha is normalised to sum 1) is
	 * set to 0, and start drifts whose alpha is 0 get no gamma, no beta and no share of the
	 * posteriors; 0 keeps every state (the exact decoder) */
	double prune;
};

/* Built once per code and channel; read-only afterwards (threads share it). */
struct ids_map {
	const struct ids_code *code; /* not owned */
	struct ids_map_params par;
	int fmin, fmax;     /* frame drift limits: alpha and beta states */
	int cmin, cmax;     /* drift change over one codeword */
	uint32_t Mtau, Mn;  /* fmax - fmin + 1, cmax - cmin + 1 */
	uint32_t tau;       /* transmitted bits, n N */
	uint32_t rho_max;   /* longest frame decoded: tau + fmax */
	float hpi, pd;      /* lattice weights: 1/2 pi (insertion), pd (deletion) */
	float qtab[256][2]; /* Q(y | x = 0), Q(y | x = 1) for received int8 value y (index y+128) */
	bool global;        /* the storage chosen */
	size_t scratch_bytes;
};

int ids_map_init(struct ids_map *m, const struct ids_code *code, const struct ids_map_params *par,
                 char *err, size_t errlen);

/* Decodes one frame of rho received values (int8 LLRs). prior: N * q log-probabilities (any
 * offset per symbol), NULL for uniform. Writes post (N * q log-probabilities, normalised per
 * symbol; may be NULL), sym (N hard symbols) and returns the status: FECD_STATUS_DECODED, or
 * FECD_STATUS_ERASED (final drift outside the limits, rho > rho_max, or no path), where post is
 * uniform and sym 0. scratch: m->scratch_bytes, 16-byte aligned. */
int ids_map_decode(const struct ids_map *m, void *scratch, const int8_t *rx, uint32_t rho,
                   const float *prior, float *post, uint8_t *sym);

/* For the tests: symbol i's gamma slice of a frame (rx, rho <= rho_max), as the decoder computes
 * it: g[((m' - fmin) M_n + d - cmin) q + D], M_tau M_n q floats. */
void ids_map_gamma(const struct ids_map *m, void *scratch, const int8_t *rx, uint32_t rho,
                   uint32_t i, const float *prior, float *g);

/* For the bench: start drifts with a non-zero alpha, summed over the symbols, in the last frame
 * ids_map_decode decoded with this scratch (N M_tau without pruning, far fewer with it): the
 * gammas that frame computed. */
uint64_t ids_map_states_kept(const struct ids_map *m, void *scratch);

/* Floating-point operations one frame's decode does (lattice, alpha, beta, posteriors), as
 * counted in ids_map.c's loops for a frame of length tau: the measure behind the bench's figure
 * of operations per decoded bit. */
double ids_map_flops(const struct ids_map *m);

#endif
