/*
 * The viterbi family's named presets (fec_family_impl.presets): each a name, a description and
 * its parameters in the text form, applied over the family's defaults (conv.c).
 *
 * Polynomials are octal with the top bit tapping the current input (conv.h).
 *
 * The presets name their output inversion, since the family's default inverts nothing (the
 * textbook code). Only CCSDS and NASA-DSN invert an output:
 *   - ccsds: CCSDS 131.0-B (TM Synchronization and Channel Coding), section 3, the rate-1/2
 *     basic convolutional code: G1 = 1111001 (171) then G2 = 1011011 (133), the G2 output
 *     inverted; libfec's "CCSDS/NASA-GSFC convention" (V27POLYB, then V27POLYA inverted);
 *   - nasa-dsn: libfec's "NASA-DSN convention": the same polynomials the other way round, the
 *     first inverted (V27POLYA = 133 inverted, then V27POLYB = 171);
 *   - voyager: libfec's viterbi27 and gr-fec's cc_encoder default ([109, 79], LSB first): 133
 *     then 171, nothing inverted;
 *   - wifi-*: IEEE 802.11 (OFDM PHY, clause 17; 5/6 from the HT PHY, 802.11n): g0 = 133 (output
 *     A) and g1 = 171 (B), nothing inverted, punctured as the standard's figures show;
 *   - dvbs-*: ETSI EN 300 421 (DVB-S) 4.4.3: G1 = 171 (X) and G2 = 133 (Y), nothing inverted,
 *     its table 2 puncturing;
 *   - lte: 3GPP TS 36.212 5.1.3.1: G0 = 133, G1 = 171, G2 = 165, nothing inverted (its
 *     tail-biting is not done here);
 *   - gsm: 3GPP TS 45.003 (GSM 05.03): G0 = 1 + D3 + D4 (23), G1 = 1 + D + D3 + D4 (33);
 *   - is95-fwd, is95-rev, cdma2000: TIA/EIA-95 (forward 753, 561; reverse 557, 663, 711) and
 *     3GPP2 C.S0002 (rate 1/4 K=9: 765, 671, 513, 473), nothing inverted.
 */
#include "fec_impl.h"

#define V FECD_FAMILY_VITERBI
const struct fec_preset_def conv__presets[] = {
    {{"ccsds", V, "CCSDS 131.0-B K=7 r=1/2: G1=171 then G2=133, G2 inverted"},
     "k=7,polys=171:133,invert=01,puncture=none"},
    {{"nasa-dsn", V, "NASA-DSN K=7 r=1/2, libfec's NASA-DSN convention: 133 inverted, then 171"},
     "k=7,polys=133:171,invert=10,puncture=none"},
    {{"voyager", V,
      "Voyager K=7 r=1/2 as libfec's viterbi27 and gr-fec's default: 133 then 171, no "
      "inversion (the polynomials of ccsds and nasa-dsn)"},
     "k=7,polys=133:171,invert=none,puncture=none"},
    {{"wifi-1/2", V, "IEEE 802.11 K=7 r=1/2: A=133, B=171"},
     "k=7,polys=133:171,invert=none,puncture=none"},
    {{"wifi-2/3", V, "IEEE 802.11 K=7 r=2/3: A=133 B=171 punctured A=11 B=10"},
     "k=7,polys=133:171,invert=none,puncture=11:10"},
    {{"wifi-3/4", V, "IEEE 802.11 K=7 r=3/4: A=133 B=171 punctured A=110 B=101"},
     "k=7,polys=133:171,invert=none,puncture=110:101"},
    {{"wifi-5/6", V, "IEEE 802.11n K=7 r=5/6: A=133 B=171 punctured A=11010 B=10101"},
     "k=7,polys=133:171,invert=none,puncture=11010:10101"},
    {{"dvbs-1/2", V, "DVB-S (EN 300 421) K=7 r=1/2: X=171, Y=133"},
     "k=7,polys=171:133,invert=none,puncture=none"},
    {{"dvbs-2/3", V, "DVB-S K=7 r=2/3: X=171 Y=133 punctured X=10 Y=11"},
     "k=7,polys=171:133,invert=none,puncture=2/3"},
    {{"dvbs-3/4", V, "DVB-S K=7 r=3/4: X=171 Y=133 punctured X=101 Y=110"},
     "k=7,polys=171:133,invert=none,puncture=3/4"},
    {{"dvbs-5/6", V, "DVB-S K=7 r=5/6: X=171 Y=133 punctured X=10101 Y=11010"},
     "k=7,polys=171:133,invert=none,puncture=5/6"},
    {{"dvbs-7/8", V, "DVB-S K=7 r=7/8: X=171 Y=133 punctured X=1000101 Y=1111010"},
     "k=7,polys=171:133,invert=none,puncture=7/8"},
    {{"lte", V, "3GPP LTE K=7 r=1/3: 133, 171, 165 (here without tail-biting)"},
     "k=7,polys=133:171:165,invert=none,puncture=none"},
    {{"gsm", V, "GSM K=5 r=1/2: G0=23, G1=33"}, "k=5,polys=23:33,invert=none,puncture=none"},
    {{"is95-fwd", V, "IS-95 forward link K=9 r=1/2: 753, 561"},
     "k=9,polys=753:561,invert=none,puncture=none"},
    {{"is95-rev", V, "IS-95 reverse link K=9 r=1/3: 557, 663, 711"},
     "k=9,polys=557:663:711,invert=none,puncture=none"},
    {{"cdma2000", V, "cdma2000 K=9 r=1/4: 765, 671, 513, 473"},
     "k=9,polys=765:671:513:473,invert=none,puncture=none"},
    {{NULL}},
};
#undef V
