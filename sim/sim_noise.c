/*
 * The ziggurat of sim_noise.h: 256 layers of equal area under the normal density exp(-x^2/2),
 * the base layer holding the tail beyond R. A draw picks a layer from its low 7 bits and a signed
 * position across the layer's width from the rest; inside the layer's rectangle under the next
 * layer (the common case) the sample is that position. Otherwise it is tested against the curve
 * (the wedge), or drawn from the tail by Marsaglia's exponential method. A draw is 32 bits, two
 * to a 64-bit word: the layer from its low 8 bits, the position from the other 24 (the low 8
 * cleared), so that the two are independent (Doornik's correction of the original, which took
 * the layer from bits of the position); 24 bits are what a float sample holds. 256 layers (R and
 * V from Marsaglia and Tsang's paper) leave a draw outside its rectangle half as often as 128.
 */
#include <math.h>
#include <pthread.h>

#include "sim_noise.h"

#define LAYERS 256
#define ZIG_R  3.6541528853610088 /* where the tail starts */
#define ZIG_V  0.00492867323399   /* each layer's area */
#define SCALE  2147483648.0       /* 2^31: positions are signed 32-bit */

static uint32_t kn[LAYERS]; /* |position| below which a draw lies inside the rectangle */
static double wn[LAYERS];   /* layer width per unit of position */
static float wnf[LAYERS];   /* the same in float, for the common case */
static double fn[LAYERS];   /* the density at the layer's outer edge */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build(void)
{
	double dn = ZIG_R, tn = dn;
	const double q = ZIG_V / exp(-0.5 * dn * dn);

	kn[0] = (uint32_t)((dn / q) * SCALE);
	kn[1] = 0;
	wn[0] = q / SCALE;
	wn[LAYERS - 1] = dn / SCALE;
	fn[0] = 1.0;
	fn[LAYERS - 1] = exp(-0.5 * dn * dn);
	for (int i = LAYERS - 2; i >= 1; i--) {
		dn = sqrt(-2.0 * log(ZIG_V / dn + exp(-0.5 * dn * dn)));
		kn[i + 1] = (uint32_t)((dn / tn) * SCALE);
		tn = dn;
		fn[i] = exp(-0.5 * dn * dn);
		wn[i] = dn / SCALE;
	}
	for (int i = 0; i < LAYERS; i++)
		wnf[i] = (float)wn[i];
}

void sim_noise_init(void)
{
	pthread_once(&once, build);
}

/* A sample whose draw (layer iz, position hz) fell outside its layer's rectangle. */
static double slow(struct fec_prng *p, uint32_t iz, int32_t hz)
{
	for (;;) {
		uint32_t mag = hz < 0 ? (uint32_t) - (int64_t)hz : (uint32_t)hz;
		double x;

		if (mag < kn[iz])
			return hz * wn[iz];
		x = hz * wn[iz];
		if (iz == 0) {
			/* the tail beyond R */
			double y;

			do {
				x = -log(1.0 - fec_prng_uniform(p)) / ZIG_R;
				y = -log(1.0 - fec_prng_uniform(p));
			} while (y + y < x * x);
			return hz > 0 ? ZIG_R + x : -ZIG_R - x;
		}
		if (fn[iz] + fec_prng_uniform(p) * (fn[iz - 1] - fn[iz]) < exp(-0.5 * x * x))
			return x;
		uint32_t u = (uint32_t)(fec_prng_next(p) >> 32);

		iz = u & (LAYERS - 1);
		hz = (int32_t)(u & ~(uint32_t)(LAYERS - 1));
	}
}

static inline float one(struct fec_prng *p, uint32_t u)
{
	uint32_t iz = u & (LAYERS - 1);
	int32_t hz = (int32_t)(u & ~(uint32_t)(LAYERS - 1));
	uint32_t mag = hz < 0 ? (uint32_t) - (int64_t)hz : (uint32_t)hz;

	/* hz has 24 significant bits: exact as a float */
	return mag < kn[iz] ? (float)hz * wnf[iz] : (float)slow(p, iz, hz);
}

void sim_noise_gauss(struct fec_prng *p, float *out, size_t n)
{
	size_t i = 0;

	sim_noise_init();
	for (; i + 2 <= n; i += 2) {
		uint64_t w = fec_prng_next(p);

		out[i] = one(p, (uint32_t)w);
		out[i + 1] = one(p, (uint32_t)(w >> 32));
	}
	if (i < n)
		out[i] = one(p, (uint32_t)fec_prng_next(p));
}
