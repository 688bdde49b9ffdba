/*
 * The fano family's named presets (fec_family_impl.presets): each a name, a description and its
 * parameters in the text form, applied over the family's defaults (fano.c). Sources:
 *   - wspr: WSJT-X's WSPR encoder (lib/wsprd/wsprsim_utils.c, encode232 with the
 *     Layland-Lushbaugh K=32 r=1/2 polynomials POLY1 = 0xf2d05351, POLY2 = 0xe4613c47 of
 *     fano.h, Karn's notation: the register shifts left and takes the new bit in bit 0); the
 *     50-bit message and 31 zero tail bits make 81 stages and 162 code bits, sent POLY1's bit
 *     then POLY2's for each input bit; WSPR's interleaver and sync vector belong to the modem.
 *     cycles=10000 is wsprd's maxcycles, per bit as here;
 *   - nasa-k32: the Massey-Costello K=32 r=1/2 code of Pioneer 10-12 and Helios, Karn's libfec
 *     fano.c (POLY1 0xbbef6bb7, POLY2 0xbbef6bb5), in frames of 1024 bits;
 *   - whd-k7: the WirelessHD K=7 r=1/3 code of the seed (Ates 2014, equation 4.1:
 *     g0 = 1011011, g1 = 1111001, g2 = 1110101, the top bit tapping the current input, as
 *     equation 4.2 spells out), octal 133, 171, 165, in frames of 1024 bits.
 */
#include "fec_impl.h"

#define F FECD_FAMILY_FANO
const struct fec_preset_def fano__presets[] = {
    {{"wspr", F,
      "WSPR K=32 r=1/2 (WSJT-X): 0xf2d05351 then 0xe4613c47 in Karn's notation, 50 bits + 31 "
      "tail bits = 162 code bits"},
     "k=32,polys_karn=f2d05351:e4613c47,frame_bits=50,cycles=10000"},
    {{"nasa-k32", F,
      "Pioneer/Helios K=32 r=1/2 (Massey-Costello): 0xbbef6bb7 then 0xbbef6bb5 in Karn's "
      "notation, 1024-bit frames"},
     "k=32,polys_karn=bbef6bb7:bbef6bb5,frame_bits=1024"},
    {{"whd-k7", F,
      "WirelessHD K=7 r=1/3 (the seed's equation 4.1): 133, 171, 165 in octal, 1024-bit "
      "frames"},
     "k=7,polys=133:171:165,frame_bits=1024"},
    {{NULL}},
};
#undef F
