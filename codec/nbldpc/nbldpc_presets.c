/*
 * The nbldpc family's named presets (fec_family_impl.presets): the non-binary matrices of the
 * codes folder. The BeiDou files are GF(64) with x^6+x+1, values in power form, 6 bits per
 * symbol most significant first (../shared/codes/README.md), all of which are the family's
 * defaults, so a preset names only its file. The gfQ-5040 presets are generated codes of the
 * sizes of the seed thesis (Monzó 2010, table 4.4: 5040 information bits, rate 1/2) with its
 * degree profile (code=irregular, nbldpc_gen.c), the codes of its speed tables.
 */
#include "fec_impl.h"

#define F FECD_FAMILY_NBLDPC
const struct fec_preset_def nbldpc__presets[] = {
    {{"nb60-gf64", F, "a small non-binary LDPC code over GF(64), N=60 M=40"},
     "code=NB_60_40_GF64.alist"},
    {{"bds-b1c-sf2", F, "BeiDou B1C B-CNAV1 subframe 2, GF(64) LDPC (200,100)"},
     "code=BDS_B1C_200_100_GF64.alist"},
    {{"bds-b1c-sf3", F, "BeiDou B1C B-CNAV1 subframe 3, GF(64) LDPC (88,44)"},
     "code=BDS_B1C_88_44_GF64.alist"},
    {{"bds-b2a", F, "BeiDou B2a B-CNAV2, GF(64) LDPC (96,48)"}, "code=BDS_B2A_96_48_GF64.alist"},
    {{"bds-b2b", F, "BeiDou B2b B-CNAV3, GF(64) LDPC (162,81)"}, "code=BDS_B2B_162_81_GF64.alist"},
    {{"gf8-5040", F,
      "generated GF(8) LDPC (3360,1680) symbols, Monzo 2010's GF8_5040 size and profile"},
     "code=irregular,q=8,n=3360"},
    {{"gf16-5040", F,
      "generated GF(16) LDPC (2520,1260) symbols, Monzo 2010's GF16_5040 size and profile"},
     "code=irregular,q=16,n=2520"},
    {{"gf32-5040", F,
      "generated GF(32) LDPC (2016,1008) symbols, Monzo 2010's GF32_5040 size and profile"},
     "code=irregular,q=32,n=2016"},
    {{"gf64-5040", F,
      "generated GF(64) LDPC (1680,840) symbols, Monzo 2010's GF64_5040 size and profile"},
     "code=irregular,q=64,n=1680"},
    {{"gf256-5040", F,
      "generated GF(256) LDPC (1260,630) symbols, Monzo 2010's GF256_5040 size and profile"},
     "code=irregular,q=256,n=1260"},
    {{NULL}},
};
#undef F
