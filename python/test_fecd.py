"""Tests of python/fecd.py against the built libfecd.so (ctest libfecd.python sets FECD_LIBRARY):
codes from text and their errors, encoding and decoding frames of ldpc (int8 and float32
input), fano and viterbi (terminated) without noise back to the bits sent, FER at a low and a high
Eb/N0, the channel's determinism for a seed, the quantizer's rules, and the refusals (wrong dtype,
stream codes, rows too long). Exits 77 (skipped) where numpy is missing.
"""

import sys
import unittest

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed (Debian: apt-get install python3-numpy)")
    sys.exit(77)

import fecd

LDPC = "ldpc,code=regular,n=576,dv=3,dc=6"


def roundtrip(test, text, frames=16, seed=3, k=None):
    """Frames of random bits (k each where frames vary) encoded, sent without noise, decoded:
    the same bits back."""
    code = fecd.Code(text)
    enc, dec = code.encoder(), code.decoder()
    k = k or dec.frame_info_bits
    test.assertGreater(k, 0, text)
    bits = np.random.default_rng(seed).integers(0, 2, (frames, k), dtype=np.uint8)
    sent = np.stack([enc.encode(b) for b in bits])
    ch = fecd.Channel("awgn", ebn0_db=0.0, rate=code.rate, noiseless=True)
    llr = ch.apply(sent)
    scale = dec.llr_scale or 40 / ch.llr_mean()
    x = fecd.quantize(llr, scale) if dec.in_kind == "s8" else llr.astype(np.float32)
    out = dec.decode(x)
    test.assertTrue((out.status == fecd.STATUS_DECODED).all(), f"{text}: {out.status}")
    test.assertTrue((out.out_bits == k).all(), f"{text}: {out.out_bits}")
    np.testing.assert_array_equal(out.bits[:, :k], bits, err_msg=text)
    return code, dec


class TestFecd(unittest.TestCase):
    def test_version(self):
        v = fecd.version()
        self.assertRegex(v, r"^\d+\.\d+\.\d+$")

    def test_code_text(self):
        code = fecd.Code("ccsds")
        self.assertEqual(code.family, "viterbi")
        self.assertAlmostEqual(code.rate, 0.5)
        self.assertTrue(code.text.startswith("ccsds"), code.text)
        self.assertAlmostEqual(fecd.Code("dvbs-3/4").rate, 0.75)
        self.assertEqual(fecd.Code(LDPC).family, "ldpc")
        with self.assertRaises(fecd.FecError) as e:
            fecd.Code("ccsdss")
        self.assertIn("ccsds", str(e.exception))  # "did you mean"
        with self.assertRaises(fecd.FecError) as e:
            fecd.Code("viterbi,k=99")
        self.assertIn("k", str(e.exception))

    def test_ldpc_roundtrip(self):
        _, dec = roundtrip(self, LDPC)
        self.assertEqual(dec.in_kind, "s8")
        self.assertEqual(dec.frame_syms, 576)
        self.assertEqual(dec.frame_info_bits, 288)
        _, dec = roundtrip(self, LDPC + ",in=f32")
        self.assertEqual(dec.in_kind, "f32")

    def test_fano_and_terminated_viterbi(self):
        roundtrip(self, "whd-k7,frame_bits=200", frames=4)
        _, dec = roundtrip(self, "ccsds,mode=terminated,max_frame_bits=256", frames=4, k=200)
        self.assertEqual(dec.frame_syms, 0)  # frames vary, up to max_frame_bits
        self.assertIsNone(dec.llr_scale)

    def test_fer_low_and_high(self):
        code = fecd.Code(LDPC)
        enc, dec = code.encoder(), code.decoder()
        bits = np.random.default_rng(5).integers(0, 2, (64, dec.frame_info_bits),
                                                 dtype=np.uint8)
        sent = np.stack([enc.encode(b) for b in bits])
        fer = {}
        for ebn0 in (0.5, 6.0):
            llr = fecd.Channel("awgn", ebn0_db=ebn0, rate=code.rate, seed=7).apply(sent)
            out = dec.decode(fecd.quantize(llr, dec.llr_scale))
            wrong = (out.bits[:, :dec.frame_info_bits] != bits).any(axis=1)
            fer[ebn0] = np.mean(wrong | (out.status != fecd.STATUS_DECODED))
        # Far below this code's threshold (about 1.1 dB for (3,6)) most frames fail; far
        # above, none.
        self.assertGreater(fer[0.5], 0.5, fer)
        self.assertEqual(fer[6.0], 0.0, fer)
        # The same batch decodes the same way twice.
        llr = fecd.Channel("awgn", ebn0_db=1.5, rate=code.rate, seed=9).apply(sent)
        a = dec.decode(fecd.quantize(llr, dec.llr_scale))
        b = dec.decode(fecd.quantize(llr, dec.llr_scale))
        np.testing.assert_array_equal(a.bits, b.bits)
        np.testing.assert_array_equal(a.work, b.work)

    def test_channel(self):
        zeros = np.zeros(20000, dtype=np.uint8)
        a = fecd.Channel("awgn", ebn0_db=3.0, rate=0.5, seed=11).apply(zeros)
        b = fecd.Channel("awgn", ebn0_db=3.0, rate=0.5, seed=11).apply(zeros)
        c = fecd.Channel("awgn", ebn0_db=3.0, rate=0.5, seed=12).apply(zeros)
        self.assertEqual(a.dtype, np.float32)
        np.testing.assert_array_equal(a, b)
        self.assertFalse(np.array_equal(a, c))
        # LLR = 2y/sigma^2 with y ~ N(1, sigma^2): mean 2/sigma^2, sigma^2 = 1/(2 R Eb/N0).
        sigma2 = 1.0 / (2 * 0.5 * 10 ** 0.3)
        self.assertAlmostEqual(float(np.mean(a)), 2 / sigma2, delta=0.05 * 2 / sigma2)
        ones = fecd.Channel("awgn", ebn0_db=20, rate=0.5, seed=1).apply(np.ones(100))
        self.assertTrue((ones < 0).all())
        # insertions and deletions change the length
        bsid = fecd.Channel("bsid,pi=0.05,pd=0.05,ps=0", ebn0_db=10, rate=0.5, seed=2)
        rows = bsid.apply(np.zeros((8, 500), dtype=np.uint8))
        self.assertIsInstance(rows, list)
        self.assertGreater(len({r.size for r in rows}), 1)
        with self.assertRaises(fecd.FecError):
            fecd.Channel("nosuch")

    def test_quantize(self):
        q = fecd.quantize(np.array([0.24, 0.26, -0.26, 1000, -1000, np.nan], np.float32), 2.0)
        np.testing.assert_array_equal(q, np.array([0, 1, -1, 127, -127, 0], np.int8))

    def test_refusals(self):
        code = fecd.Code(LDPC)
        dec = code.decoder()
        with self.assertRaises(fecd.FecError) as e:
            dec.decode(np.zeros((2, 576), np.float32))  # an s8 decoder
        self.assertIn("int8", str(e.exception))
        with self.assertRaises(fecd.FecError):
            dec.decode(np.zeros((2, 577), np.int8))
        with self.assertRaises(fecd.FecError):
            dec.decode(np.zeros((2, 576), np.int8), lengths=[576])
        with self.assertRaises(fecd.FecError) as e:
            fecd.Code("ccsds").decoder().decode(np.zeros((1, 100), np.int8))
        self.assertIn("stream", str(e.exception))


if __name__ == "__main__":
    print(f"libfecd {fecd.version()} from {fecd.library_path()}")
    unittest.main(verbosity=2)
