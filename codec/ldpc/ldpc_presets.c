/*
 * The ldpc family's named presets (fec_family_impl.presets): each a name, a description and its
 * parameters in the text form, applied over the family's defaults (ldpc.c).
 *
 * The presets name matrices in the codes folder (ldpc.h) or the codes the family builds, with
 * the decoder settings that suit them, where the family's defaults (layered nms alpha 0.875, 20
 * iterations) do not. Measured on the CPU decoder (the GPU's gives the same bits):
 *     build/tests/ldpc_fer EBN0 300 1 PRESET,SETTINGS...
 * BPSK over AWGN, int8 LLRs at llr_scale 8, seed 1, 300 frames per point, points 0.1 dB
 * apart; "x dB" is where FER crosses 0.1, interpolated in log FER between two points. The
 * rule: a min-sum kind where it comes within 0.25 dB of spa at the same iterations (min-sum
 * is the fast path: the CPU's SIMD passes, the GPU's fast kernel, both layered int8; spa
 * runs on the GPU's generic kernel and takes 50-300 times as long on a CPU core), spa
 * where it does not. Layered beat flooding on every code at equal iterations.
 *   - dvbs2-*: 50 iterations, as EN 302 307's reference figures; at 20 they lose 0.21 /
 *     0.10 / 0.02 dB (r1/2 oms 1.07 dB, r3/4 nms 2.23, r9/10 nms 0.8125 3.73).
 *     r1/2: oms offset 0.5, 0.86 dB (spa 0.73; nms 0.8125 0.99; at 0.9 dB nms 0.875 fails
 *     179 of 300 frames, oms 0.5 9). r3/4, r9/10: nms 0.875, 2.13 / 3.71 dB (spa 2.09 /
 *     3.67; oms 0.375 2.13 / 3.72).
 *   - nr-bg1, nr-bg2 (z=384): spa, 50 iterations, -0.06 / -0.44 dB: the best min-sum, oms
 *     offset 0.5, is 0.34 / 0.40 dB behind (0.27 / -0.04 dB at 50 iterations, 0.44 / 0.18
 *     at 20, where spa is at 0.12 / -0.24), nms 0.6875 no nearer, and nms 0.875 fails all 300
 *     frames at 0.4 / 0.1 dB (z=32 at 1.0 dB: 136 of 300, spa none, oms 0.5 six). 50
 *     iterations gain spa 0.18 / 0.20 dB over 20 and cost little where frames decode (mean
 *     17.7 against 17.1 at 0.1 dB, bg1). Fast instead: algo=oms,offset=0.5.
 *   - ar4ja-4096: nms alpha 0.75, 50 iterations, 1.12 dB: 0.22 dB behind spa (0.90; oms
 *     0.375 1.13; nms 0.875 fails 120 of 300 at 1.2 dB where 0.75 fails 9); 20 iterations
 *     lose 0.23 dB.
 *   - 10gbase-t: nms alpha 0.625, 3.40 dB (spa 3.37; nms 0.875 3.65, 0.5625 3.43).
 *   - the others keep the defaults: mackay-8000 1.47 dB, 0.09 behind spa (1.39; nms 0.8125
 *     1.45); the small codes fail about as often as with spa at one point (1000 frames,
 *     seed 2; spa / nms 0.875): mackay-1008 2.0 dB 18 / 22, wimax-576 1.5 dB 140 / 182,
 *     wifi-648-5/6 3.2 dB 237 / 252, ccsds-128 2.5 dB 138 / 146.
 */
#include "fec_impl.h"

#define L FECD_FAMILY_LDPC
const struct fec_preset_def ldpc__presets[] = {
    {{"dvbs2-1/2", L, "DVB-S2 normal frame LDPC r=1/2 (64800,32400); oms 0.5, 50 iterations"},
     "code=DVB-S2_64800x32400.alist,algo=oms,offset=0.5,iters=50"},
    {{"dvbs2-3/4", L, "DVB-S2 normal frame LDPC r=3/4 (64800,48600); 50 iterations"},
     "code=DVB-S2_64800x16200.alist,iters=50"},
    {{"dvbs2-9/10", L, "DVB-S2 normal frame LDPC r=9/10 (64800,58320); 50 iterations"},
     "code=DVB-S2_64800x6480.alist,iters=50"},
    {{"mackay-8000", L, "MacKay (3,6)-regular LDPC, N=8000 r=1/2"}, "code=MACKAY_4000_8000.alist"},
    {{"mackay-1008", L, "MacKay (3,6)-regular LDPC, N=1008 r=1/2"}, "code=MACKAY_504_1008.alist"},
    {{"wimax-576", L, "IEEE 802.16e LDPC N=576 r=1/2"}, "code=WIMAX_288_576.alist"},
    {{"wifi-648-5/6", L, "IEEE 802.11n LDPC N=648 r=5/6"}, "code=WIFI_540_648.alist"},
    {{"ccsds-128", L, "CCSDS telecommand LDPC (128,64)"}, "code=CCSDS_64_128.alist"},
    {{"10gbase-t", L, "IEEE 802.3an 10GBASE-T LDPC (2048,1723); nms alpha 0.625"},
     "code=10GBPS-ETHERNET_1723_2048.alist,algo=nms,alpha=0.625"},
    {{"ar4ja-4096", L,
      "CCSDS AR4JA LDPC k=4096 r=1/2 (the 2z punctured columns not sent); nms alpha 0.75, 50 "
      "iterations"},
     "code=AR4JA_4096_8192.qc,algo=nms,alpha=0.75,iters=50"},
    {{"nr-bg1", L,
      "3GPP 5G NR LDPC base graph 1, Z=384 (k=8448; first 2Z columns punctured); spa, 50 "
      "iterations (oms 0.5 for speed: 0.34 dB worse)"},
     "code=nr-bg1,z=384,algo=spa,iters=50"},
    {{"nr-bg2", L,
      "3GPP 5G NR LDPC base graph 2, Z=384 (k=3840; first 2Z columns punctured); spa, 50 "
      "iterations (oms 0.5 for speed: 0.40 dB worse)"},
     "code=nr-bg2,z=384,algo=spa,iters=50"},
    {{NULL}},
};
#undef L
