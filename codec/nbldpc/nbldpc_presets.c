/*
 * The nbldpc family's named presets (fec_family_impl.presets): the non-binary matrices of the
 * codes folder. The BeiDou files are GF(64) with x^6+x+1, values in power form, 6 bits per
 * symbol most significant first (../shared/codes/README.md), all of which are the family's
 * defaults, so a preset names only its file.
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
    {{NULL}},
};
#undef F
