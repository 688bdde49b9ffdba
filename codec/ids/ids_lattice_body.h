/*
 * The lattice's body (ids_lattice.h), included with IDS_LATTICE_FN naming the function and
 * IDS_BODY_LANES the symbols it computes together (8 or 16). For one start drift m' and a block
 * of symbols, rows r = 0..n of the corridor are kept indexed by c = j - r (slot c - cmin + 1,
 * with zero guards at slots 0 and M_n + 1):
 *
 *   F(0, c) = (pi/2)^c for 0 <= c (insertions before the first bit), 0 for c < 0;
 *   F(r, c) = hr F(r, c-1) + pd F(r-1, c+1) + Q(y_(s+j-1) | x_(r-1)) F(r-1, c),  j = r + c,
 *
 * where hr = pi/2 but 0 in the last row (eq. 10), F = 0 outside 0 <= j <= avail (the received
 * values left after the start s = n i + m'), and at j = 0 only the deletion term. Q for each row
 * and received value is made once per symbol block (q0 + (q1 - q0) x, the table qv). The last
 * row gives R for every drift change d at once: gamma = prior[D] F(n, d), 0 where m' + d leaves
 * the frame's limits or m' starts outside the received frame.
 *
 * Each row is a chain (a cell needs its left neighbour), so the body runs several independent
 * lattices in lockstep to hide the chain's latency: B = IDS_BODY_LANES / 8 blocks of 8 symbols
 * and two start drifts m', m' + 1 (np = 2) where both start inside the frame. Every lattice does
 * the same operations in the same order however many run together.
 */
/* Eight floats as one value (GCC and clang vector extensions: one AVX register, two SSE ones);
 * element-wise operations, each rounded as a float. */
#ifndef IDS_V8_DEFINED
#define IDS_V8_DEFINED
typedef float ids_v8 __attribute__((vector_size(8 * sizeof(float))));
#define IDS_CAT(a, b)  a##b
#define IDS_XCAT(a, b) IDS_CAT(a, b)
#endif

#define IDS_B   (IDS_BODY_LANES / 8)
#define IDS_RUN IDS_XCAT(IDS_LATTICE_FN, _run)

/* The lattices of start drifts mp0 .. mp0 + np - 1 (np 1 or 2, both inside the frame) for the
 * symbols D0 .. D0 + lanes - 1. */
static inline __attribute__((always_inline)) void IDS_RUN(const struct ids_lattice_in *in, float *g,
                                                          const ids_v8 (*qv)[IDS_B], long k0,
                                                          long width, uint32_t D0, uint32_t lanes,
                                                          const ids_v8 *prior, int mp0, int np)
{
	const uint32_t q = in->q, n = in->n, Mn = in->Mn;
	const int cmin = in->cmin, cmax = in->cmax;
	const float hpi = in->hpi, pd = in->pd;
	const ids_v8 zero = {0};
	const size_t S = (size_t)(Mn + 2) * IDS_B; /* one lattice's row */
	ids_v8 *prev = (ids_v8 *)in->rows, *cur = prev + 2 * S, *t;
	long start[2], avail[2];

	for (int p = 0; p < np; p++) {
		float h = 1.0f;

		start[p] = in->base + mp0 + p;
		avail[p] = (long)in->rho - start[p];
		for (size_t k = 0; k < S; k++)
			prev[p * S + k] = cur[p * S + k] = zero;
		for (int c = 0; c <= cmax && c <= avail[p]; c++) {
			for (int b = 0; b < IDS_B; b++)
				prev[p * S + (size_t)(c - cmin + 1) * IDS_B + b] = zero + h;
			h *= hpi;
		}
	}
	for (uint32_t r = 1; r <= n; r++) {
		const float hr = r < n ? hpi : 0.0f;
		/* the cells with 0 <= j <= avail; the rest are 0 */
		const int lo = cmin > -(int)r ? cmin : -(int)r;
		int hi[2], hmin = cmax, c = cmin;
		const ids_v8(*qr[2])[IDS_B];
		ids_v8 left[2][IDS_B];

		for (int p = 0; p < np; p++) {
			hi[p] = (long)cmax < avail[p] - (long)r ? cmax : (int)(avail[p] - (long)r);
			hmin = hi[p] < hmin ? hi[p] : hmin;
			/* Q for cell c (j = r + c reads y_(start + j - 1)) at qr[p][c] */
			qr[p] = qv + (r - 1) * width + (start[p] + r - 1 - k0);
			for (int b = 0; b < IDS_B; b++)
				left[p][b] = zero;
		}
		for (; c < lo; c++)
			for (int p = 0; p < np; p++)
				for (int b = 0; b < IDS_B; b++)
					cur[p * S + (size_t)(c - cmin + 1) * IDS_B + b] = zero;
		if (r + c == 0) { /* j = 0: deletions only (0 <= hi: the start is in the frame) */
			for (int p = 0; p < np; p++)
				for (int b = 0; b < IDS_B; b++) {
					const size_t at =
					    p * S + (size_t)(c - cmin + 1) * IDS_B + b;

					left[p][b] = pd * prev[at + IDS_B];
					cur[at] = left[p][b];
				}
			c++;
		}
		for (; c <= hmin; c++)
			for (int p = 0; p < np; p++)
				for (int b = 0; b < IDS_B; b++) {
					const size_t at =
					    p * S + (size_t)(c - cmin + 1) * IDS_B + b;

					left[p][b] = hr * left[p][b] + pd * prev[at + IDS_B] +
					             qr[p][c][b] * prev[at];
					cur[at] = left[p][b];
				}
		for (int p = 0; p < np; p++) {
			int cc = c;

			for (; cc <= hi[p]; cc++)
				for (int b = 0; b < IDS_B; b++) {
					const size_t at =
					    p * S + (size_t)(cc - cmin + 1) * IDS_B + b;

					left[p][b] = hr * left[p][b] + pd * prev[at + IDS_B] +
					             qr[p][cc][b] * prev[at];
					cur[at] = left[p][b];
				}
			for (; cc <= cmax; cc++)
				for (int b = 0; b < IDS_B; b++)
					cur[p * S + (size_t)(cc - cmin + 1) * IDS_B + b] = zero;
		}
		t = prev;
		prev = cur;
		cur = t;
	}
	for (int p = 0; p < np; p++) {
		const int mp = mp0 + p;
		float *gm = g + (size_t)(mp - in->fmin) * Mn * q;

		for (int d = cmin; d <= cmax; d++) {
			float *o = gm + (size_t)(d - cmin) * q + D0;
			const bool inside = mp + d >= in->fmin && mp + d <= in->fmax;
			ids_v8 v[IDS_B];

			for (int b = 0; b < IDS_B; b++)
				v[b] = inside ? prior[b] *
				                    prev[p * S + (size_t)(d - cmin + 1) * IDS_B + b]
				              : zero;
			if (lanes == IDS_BODY_LANES)
				__builtin_memcpy(o, v, sizeof(v));
			else
				for (uint32_t k = 0; k < lanes; k++)
					o[k] = v[k / 8][k % 8];
		}
	}
}

void IDS_LATTICE_FN(const struct ids_lattice_in *in, float *g)
{
	const uint32_t q = in->q, n = in->n, Mn = in->Mn;
	const int cmin = in->cmin, cmax = in->cmax;
	const ids_v8 zero = {0};
	/* received values the symbol's lattices read: k0 .. k0 + width - 1 */
	const long k0 = in->base + in->fmin + cmin;
	const long width = (long)(in->fmax - in->fmin) + (long)n + (cmax - cmin) + 1;
	ids_v8(*qv)[IDS_B] = (ids_v8(*)[IDS_B])in->qv;
	int alo = in->fmin, ahi = in->fmax;
	/* the table qv is made only where the active start drifts alo..ahi read it */
	long wlo, whi;

	while (alo <= ahi && !ids_lattice_on(in, alo))
		alo++;
	while (ahi >= alo && !ids_lattice_on(in, ahi))
		ahi--;
	if (alo > ahi)
		return;
	wlo = alo - in->fmin;
	whi = (long)(ahi - in->fmin) + (long)n + (cmax - cmin);

	for (uint32_t D0 = 0; D0 < in->qpad; D0 += IDS_BODY_LANES) {
		const uint32_t lanes = q - D0 < IDS_BODY_LANES ? q - D0 : IDS_BODY_LANES;
		ids_v8 prior[IDS_B];

		__builtin_memcpy(prior, in->prior + D0, sizeof(prior));
		/* Q(y_k | x_r(D)) = q0 + (q1 - q0) x for every row and received value read */
		for (uint32_t r = 0; r < n; r++) {
			ids_v8 x[IDS_B];

			__builtin_memcpy(x, in->xf + (size_t)r * in->qpad + D0, sizeof(x));
			for (long w = wlo; w <= whi; w++) {
				const long k = k0 + w;

				for (int b = 0; b < IDS_B; b++) {
					if (k < 0 || k >= (long)in->rho) {
						qv[r * width + w][b] = zero;
					} else {
						const float q0 = in->qrx[2 * k],
						            dq = in->qrx[2 * k + 1] - q0;

						qv[r * width + w][b] = q0 + dq * x[b];
					}
				}
			}
		}
		for (int mp = alo; mp <= ahi;) {
			const long start = in->base + mp;

			if (!ids_lattice_on(in, mp)) {
				mp++;
			} else if (start < 0 || start > (long)in->rho) {
				float *gm = g + (size_t)(mp - in->fmin) * Mn * q;

				for (int d = 0; d < (int)Mn; d++)
					for (uint32_t k = 0; k < lanes; k++)
						gm[(size_t)d * q + D0 + k] = 0.0f;
				mp++;
			} else if (mp < ahi && ids_lattice_on(in, mp + 1) &&
			           start + 1 <= (long)in->rho) {
				IDS_RUN(in, g, (const ids_v8(*)[IDS_B])qv, k0, width, D0, lanes,
				        prior, mp, 2);
				mp += 2;
			} else {
				IDS_RUN(in, g, (const ids_v8(*)[IDS_B])qv, k0, width, D0, lanes,
				        prior, mp, 1);
				mp++;
			}
		}
	}
}

#undef IDS_B
#undef IDS_RUN
