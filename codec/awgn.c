/*
 * BPSK over AWGN for the feed, the tests and the benchmarks. Symbols have unit energy, so a code of
 * rate R spends Es = R * Eb per symbol and the noise per real dimension is N0 / 2 with
 * sigma^2 = 1 / (2 R Eb/N0). The receiver's LLR log(P0/P1) for y = s + n is 2 y / sigma^2.
 */
#include <math.h>

#include "awgn.h"

double fec_awgn_sigma(double ebn0_db, double rate)
{
	return sqrt(1.0 / (2.0 * rate * pow(10.0, ebn0_db / 10.0)));
}

void fec_awgn_llr(struct fec_prng *p, const uint8_t *bits, size_t n, double sigma,
                  float noiseless_llr, float *llr)
{
	if (sigma <= 0.0) {
		for (size_t i = 0; i < n; i++)
			llr[i] = bits[i] ? -noiseless_llr : noiseless_llr;
		return;
	}
	double gain = 2.0 / (sigma * sigma);

	for (size_t i = 0; i < n; i++) {
		double y = (bits[i] ? -1.0 : 1.0) + sigma * fec_prng_gauss(p);

		llr[i] = (float)(gain * y);
	}
}
