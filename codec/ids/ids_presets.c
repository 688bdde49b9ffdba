/*
 * The ids family's named presets (fec_family_impl.presets):
 *   tvb-fig17  the seed's Fig. 17 setting: N = 840 symbols of q = 16 as n = 8 bits, seeded random
 *              codebooks, the decoder assuming Pi = Pd = 1e-3, Ps = 0;
 *   dm-ldpc    a Davey-MacKay concatenation: a watermark inner code (q = 16, n = 6) under a
 *              (2,4)-regular GF(16) LDPC code of 500 symbols (fft-bp), one outer symbol per
 *              codeword, for a channel of Pi = Pd = 1e-2 (NOTES.md has its measured frame
 *              error rates).
 */
#include "fec_impl.h"

#define F FECD_FAMILY_IDS
const struct fec_preset_def ids__presets[] = {
    {{"tvb-fig17", F, "TVB code of the seed's Fig. 17: N=840, q=16, n=8, Pi=Pd=1e-3"},
     "code=random,N=840,q=16,n=8,seed=1,pi=0.001,pd=0.001,ps=0"},
    {{"dm-ldpc", F,
      "Davey-MacKay: watermark q=16 n=6 inner, (2,4) GF(16) LDPC outer of 500 symbols"},
     "code=watermark,N=500,q=16,n=6,seed=1,pi=0.01,pd=0.01,ps=0,"
     "outer=(nbldpc,code=regular,q=16,n=500,dv=2,dc=4,seed=1,iters=50)"},
    {{NULL}},
};
#undef F
