/*
 * The lattice's body (ids_lattice.h), included with IDS_LATTICE_FN naming the function. For one
 * start drift m' and a block of IDS_BODY_LANES symbols, rows r = 0..n of the corridor are kept in
 * two small arrays indexed by c = j - r (slot c - cmin + 1, with zero guards at slots 0 and M_n +
 * 1): F(0, c) = (pi/2)^c for 0 <= c (insertions before the first bit), 0 for c < 0; F(r, c) = hr
 * F(r, c-1) + pd F(r-1, c+1) + Q(y_(s+j-1) | x_(r-1)) F(r-1, c),  j = r + c, where hr = pi/2 but 0
 * in the last row (eq. 10), F = 0 outside 0 <= j <= avail (the received values left after the start
 * s = n i + m'), and at j = 0 only the deletion term. Q for each row and received value is made
 * once per symbol block (q0 + (q1 - q0) x, a table in qv). The last row gives R for every drift
 * change d at once: gamma = prior[D] F(n, d), 0 where m' + d leaves the frame's limits or m' itself
 * starts outside the received frame.
 */
/* Eight floats as one value (GCC and clang vector extensions: one AVX register, two SSE ones);
 * element-wise operations, each rounded as a float. The body runs B = IDS_BODY_LANES / 8 such
 * blocks of symbols in lockstep: independent chains that hide each other's latency. */
#ifndef IDS_V8_DEFINED
#define IDS_V8_DEFINED
typedef float ids_v8 __attribute__((vector_size(8 * sizeof(float))));
#endif

void IDS_LATTICE_FN(const struct ids_lattice_in *in, float *g)
{
	enum { B = IDS_BODY_LANES / 8 };
	const uint32_t q = in->q, n = in->n, Mn = in->Mn;
	const int cmin = in->cmin, cmax = in->cmax;
	const float hpi = in->hpi, pd = in->pd;
	const ids_v8 zero = {0};
	/* received values the symbol's lattices read: k0 .. k0 + width - 1 */
	const long k0 = in->base + in->fmin + cmin;
	const long width = (long)(in->fmax - in->fmin) + (long)n + (cmax - cmin) + 1;
	ids_v8 rows[2][IDS_MN_MAX + 2][B];
	ids_v8(*qv)[B] = (ids_v8(*)[B])in->qv;

	for (uint32_t D0 = 0; D0 < in->qpad; D0 += IDS_BODY_LANES) {
		const uint32_t lanes = q - D0 < IDS_BODY_LANES ? q - D0 : IDS_BODY_LANES;
		ids_v8 prior[B];

		__builtin_memcpy(prior, in->prior + D0, sizeof(prior));
		/* Q(y_k | x_r(D)) = q0 + (q1 - q0) x for every row and received value read */
		for (uint32_t r = 0; r < n; r++) {
			ids_v8 x[B];

			__builtin_memcpy(x, in->xf + (size_t)r * in->qpad + D0, sizeof(x));
			for (long w = 0; w < width; w++) {
				const long k = k0 + w;

				for (int b = 0; b < B; b++) {
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
		for (int mp = in->fmin; mp <= in->fmax; mp++) {
			float *gm = g + (size_t)(mp - in->fmin) * Mn * q;
			const long start = in->base + mp;
			ids_v8(*prev)[B] = rows[0], (*cur)[B] = rows[1], (*t)[B];
			float h = 1.0f;
			long avail;

			if (start < 0 || start > (long)in->rho) {
				for (int d = 0; d < (int)Mn; d++)
					for (uint32_t k = 0; k < lanes; k++)
						gm[(size_t)d * q + D0 + k] = 0.0f;
				continue;
			}
			avail = (long)in->rho - start;
			for (uint32_t k = 0; k < Mn + 2; k++)
				for (int b = 0; b < B; b++)
					prev[k][b] = cur[k][b] = zero;
			for (int c = 0; c <= cmax && c <= avail; c++) {
				for (int b = 0; b < B; b++)
					prev[c - cmin + 1][b] = zero + h;
				h *= hpi;
			}
			for (uint32_t r = 1; r <= n; r++) {
				const float hr = r < n ? hpi : 0.0f;
				/* the cells with 0 <= j <= avail; the rest are 0 */
				const int lo = cmin > -(int)r ? cmin : -(int)r;
				const int hi =
				    (long)cmax < avail - (long)r ? cmax : (int)(avail - (long)r);
				/* Q for cell c (j = r + c reads y_(start + j - 1)) at qr[c] */
				ids_v8(*qr)[B] = qv + (r - 1) * width + (start + r - 1 - k0);
				ids_v8 left[B];
				int c = cmin;

				for (int b = 0; b < B; b++)
					left[b] = zero;
				for (; c < lo; c++)
					for (int b = 0; b < B; b++)
						cur[c - cmin + 1][b] = zero;
				if (c <= hi && r + c == 0) { /* j = 0: deletions only */
					for (int b = 0; b < B; b++) {
						left[b] = pd * prev[c - cmin + 2][b];
						cur[c - cmin + 1][b] = left[b];
					}
					c++;
				}
				for (; c <= hi; c++)
					for (int b = 0; b < B; b++) {
						left[b] = hr * left[b] +
						          pd * prev[c - cmin + 2][b] +
						          qr[c][b] * prev[c - cmin + 1][b];
						cur[c - cmin + 1][b] = left[b];
					}
				for (; c <= cmax; c++)
					for (int b = 0; b < B; b++)
						cur[c - cmin + 1][b] = zero;
				t = prev;
				prev = cur;
				cur = t;
			}
			for (int d = cmin; d <= cmax; d++) {
				float *o = gm + (size_t)(d - cmin) * q + D0;
				const bool inside = mp + d >= in->fmin && mp + d <= in->fmax;
				ids_v8 v[B];

				for (int b = 0; b < B; b++)
					v[b] = inside ? prior[b] * prev[d - cmin + 1][b] : zero;
				if (lanes == IDS_BODY_LANES)
					__builtin_memcpy(o, v, sizeof(v));
				else
					for (uint32_t k = 0; k < lanes; k++)
						o[k] = v[k / 8][k % 8];
			}
		}
	}
}
