"""fecd's codec from Python: a thin ctypes layer over libfecd.so, with numpy arrays in and out.

    import numpy as np, fecd
    code = fecd.Code("ldpc,code=regular,n=576,dv=3,dc=6")       # any text form fecd takes
    enc, dec = code.encoder(), code.decoder()
    bits = np.random.default_rng(1).integers(0, 2, (64, dec.frame_info_bits), dtype=np.uint8)
    sent = np.stack([enc.encode(b) for b in bits])             # code bits, one per byte
    llr = fecd.Channel("awgn", ebn0_db=2.5, rate=code.rate, seed=1).apply(sent)   # float32
    out = dec.decode(fecd.quantize(llr, dec.llr_scale))        # int8 for an s8 decoder
    # (dec.llr_scale is None for viterbi, which takes any scale: 40 / Channel.llr_mean())
    ber = np.mean(out.bits[:, :dec.frame_info_bits] != bits)

What it covers (docs/libfecd.md): a code from its text form, its encoder, a batch of frames
decoded (int8 or float32 LLRs in, as the decoder's input kind says; bits, status, effort out), the
channel models of codec/channel_model.h with the library's seeded PRNG, and the quantizer. Stream
decoding (viterbi mode=stream) is the daemon's; here codes decode frames.

The library is found at $FECD_LIBRARY, else as libfecd.so.0 by the dynamic loader (an installed
prefix on LD_LIBRARY_PATH, or the system's). The structs shared with C are declared here; at load
their sizes are checked against the library's own (fec_abi_size), so that a library whose structs
changed is refused instead of misread.
"""

import ctypes
import ctypes.util
import os
from collections import namedtuple

import numpy as np

__all__ = ["FecError", "Code", "Encoder", "Decoder", "Channel", "DecodeResult", "quantize",
           "version", "library_path", "STATUS_DECODED", "STATUS_NOT_CONVERGED", "STATUS_ERASED"]

# enum fecd_status (proto/fecd_proto.h)
STATUS_DECODED, STATUS_NOT_CONVERGED, STATUS_ERASED = 0, 1, 2
_KIND_STREAM, _KIND_FRAME = 1, 2
_IN_S8, _IN_F32, _IN_F32_SYMLOGP = 1, 2, 3
_FMT_S8_LLR = 2
_ERR_LEN = 1024


class FecError(Exception):
    """An error from libfecd, with its message."""


class _FrameOpts(ctypes.Structure):
    _fields_ = [("in_kind", ctypes.c_int), ("llr_scale", ctypes.c_float),
                ("framing", ctypes.c_int), ("asm_marker", ctypes.c_uint64),
                ("asm_bits", ctypes.c_uint8), ("asm_threshold", ctypes.c_float),
                ("asm_lock_threshold", ctypes.c_float), ("asm_flywheel", ctypes.c_uint8)]


class _Info(ctypes.Structure):
    _fields_ = [("family", ctypes.c_int), ("kind", ctypes.c_int),
                ("unit_syms", ctypes.c_uint32), ("unit_bits", ctypes.c_uint32),
                ("block_syms", ctypes.c_uint32), ("head_syms", ctypes.c_uint32),
                ("tail_syms", ctypes.c_uint32), ("frame_syms", ctypes.c_uint32),
                ("max_frame_syms", ctypes.c_uint32), ("max_out_bits", ctypes.c_uint32),
                ("max_soft", ctypes.c_uint32), ("in_kind", ctypes.c_int),
                ("in_q", ctypes.c_uint32), ("soft_kind", ctypes.c_int),
                ("soft_per_unit", ctypes.c_uint32), ("frame_info_bits", ctypes.c_uint32),
                ("cost_varies", ctypes.c_bool), ("frame", _FrameOpts),
                ("scratch_bytes", ctypes.c_size_t), ("job_group", ctypes.c_uint32)]


class _Job(ctypes.Structure):
    _fields_ = [("in_len", ctypes.c_uint32), ("head_len", ctypes.c_uint32),
                ("own_len", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("out_bits", ctypes.c_uint32), ("soft_count", ctypes.c_uint32),
                ("status", ctypes.c_uint8), ("work", ctypes.c_uint32),
                ("metric", ctypes.c_float)]


class _Batch(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint32), ("attempt", ctypes.c_uint32),
                ("jobs", ctypes.POINTER(_Job)), ("in_s8", ctypes.c_void_p),
                ("in_f32", ctypes.c_void_p), ("in_stride", ctypes.c_size_t),
                ("out", ctypes.c_void_p), ("out_stride", ctypes.c_size_t),
                ("soft", ctypes.c_void_p), ("soft_stride", ctypes.c_size_t)]


class _Prng(ctypes.Structure):
    _fields_ = [("s", ctypes.c_uint64 * 4), ("spare", ctypes.c_double),
                ("have_spare", ctypes.c_int)]


class _Link(ctypes.Structure):
    _fields_ = [("ebn0_db", ctypes.c_double), ("rate", ctypes.c_double),
                ("noiseless", ctypes.c_bool)]


class _Channel(ctypes.Structure):
    _fields_ = [("model", ctypes.c_void_p), ("link", _Link), ("sigma", ctypes.c_double),
                ("param", ctypes.c_double * 8)]


_lib = None
_lib_path = None
_spec_size = 0


def _load():
    global _lib, _lib_path, _spec_size
    if _lib is not None:
        return _lib
    path = os.environ.get("FECD_LIBRARY") or ctypes.util.find_library("fecd") or "libfecd.so.0"
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise FecError(f"cannot load libfecd ({path}): {e}; set FECD_LIBRARY to the library, "
                       "or install it (cmake --install BUILD --component libfecd)") from e
    P, c = ctypes.POINTER, ctypes
    sigs = {
        "fec_version": (c.c_char_p, []),
        "fec_abi_size": (c.c_size_t, [c.c_char_p]),
        "fec_strerror": (c.c_char_p, [c.c_int]),
        "fecd_family_name": (c.c_char_p, [c.c_int]),
        "fec_spec_from_string": (c.c_int, [c.c_char_p, c.c_void_p, c.c_char_p, c.c_size_t]),
        "fec_spec_to_string": (None, [c.c_void_p, c.c_char_p, c.c_size_t]),
        "fec_spec_rate": (c.c_double, [c.c_void_p]),
        "fec_decoder_create": (c.c_int, [c.c_void_p, P(c.c_void_p)]),
        "fec_decoder_destroy": (None, [c.c_void_p]),
        "fec_decoder_info": (P(_Info), [c.c_void_p]),
        "fec_decode": (c.c_int, [c.c_void_p, c.c_void_p, P(_Batch), c.c_uint32, c.c_uint32]),
        "fec_encoder_create": (c.c_int, [c.c_void_p, P(c.c_void_p)]),
        "fec_encoder_destroy": (None, [c.c_void_p]),
        "fec_encoder_reset": (None, [c.c_void_p]),
        "fec_encode": (c.c_int, [c.c_void_p, c.c_void_p, c.c_size_t, c.c_void_p,
                                 P(c.c_size_t)]),
        "fec_encoded_len": (c.c_size_t, [c.c_void_p, c.c_size_t]),
        "fec_prng_seed": (None, [P(_Prng), c.c_uint64]),
        "fec_channel_open": (c.c_int, [c.c_char_p, P(_Link), P(_Channel), c.c_char_p,
                                       c.c_size_t]),
        "fec_channel_max_out_len": (c.c_size_t, [P(_Channel), c.c_size_t]),
        "fec_channel_llr_mean": (c.c_double, [P(_Channel)]),
        "fec_channel_apply": (c.c_int, [P(_Channel), P(_Prng), c.c_void_p, c.c_size_t,
                                        c.c_void_p, P(c.c_size_t)]),
        "fec_llr_quantize": (c.c_int, [c.c_int, c.c_void_p, c.c_size_t, c.c_bool, c.c_float,
                                       c.c_void_p]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    for cname, pytype in (("fec_info", _Info), ("fec_job", _Job), ("fec_batch", _Batch),
                          ("fec_prng", _Prng), ("fec_channel", _Channel),
                          ("fec_channel_link", _Link)):
        want = lib.fec_abi_size(cname.encode())
        if want != ctypes.sizeof(pytype):
            raise FecError(f"{path}: struct {cname} is {want} bytes there, "
                           f"{ctypes.sizeof(pytype)} here: this fecd.py does not match the "
                           "library")
    _spec_size = lib.fec_abi_size(b"fec_spec")
    if _spec_size == 0:
        raise FecError(f"{path}: no size for struct fec_spec")
    _lib, _lib_path = lib, path
    return lib


def version():
    """The library's version, "MAJOR.MINOR.PATCH"."""
    return _load().fec_version().decode()


def library_path():
    """Where the library was loaded from (as given to the loader)."""
    _load()
    return _lib_path


def _check(rc, what, err=None):
    if rc < 0:
        msg = err.value.decode(errors="replace") if err is not None and err.value else ""
        raise FecError(f"{what}: {msg or _lib.fec_strerror(rc).decode()}")


class Code:
    """A code from its text form ("ccsds", "ldpc,code=regular,n=576,dv=3,dc=6",
    "ccsds,mode=terminated"): a preset or a family with parameters, as fecd takes it."""

    def __init__(self, text):
        lib = _load()
        self._spec = (ctypes.c_uint64 * ((_spec_size + 7) // 8))()
        err = ctypes.create_string_buffer(_ERR_LEN)
        _check(lib.fec_spec_from_string(text.encode(), self._spec, err, _ERR_LEN),
               f"code '{text}'", err)
        buf = ctypes.create_string_buffer(2048)
        lib.fec_spec_to_string(self._spec, buf, len(buf))
        self.text = buf.value.decode()
        self.rate = lib.fec_spec_rate(self._spec)
        self.family = lib.fecd_family_name(ctypes.cast(self._spec, ctypes.POINTER(
            ctypes.c_int))[0]).decode()

    def __repr__(self):
        return f"fecd.Code({self.text!r})"

    def encoder(self):
        return Encoder(self)

    def decoder(self):
        return Decoder(self)


class Encoder:
    """The code's encoder: information bits (0/1, any integer dtype) -> code bits (uint8), one
    frame per call for frame codes; a stream code keeps its state between calls."""

    def __init__(self, code):
        self._lib = _load()
        self._code = code
        self._enc = ctypes.c_void_p()
        _check(self._lib.fec_encoder_create(code._spec, ctypes.byref(self._enc)),
               f"encoder for {code.text}")

    def encode(self, bits):
        bits = np.ascontiguousarray(np.asarray(bits).ravel() != 0, dtype=np.uint8)
        out = np.empty(self._lib.fec_encoded_len(self._code._spec, bits.size), dtype=np.uint8)
        nout = ctypes.c_size_t()
        _check(self._lib.fec_encode(self._enc, bits.ctypes.data, bits.size, out.ctypes.data,
                                    ctypes.byref(nout)),
               f"encode {bits.size} bits with {self._code.text}")
        return out[:nout.value]

    def reset(self):
        self._lib.fec_encoder_reset(self._enc)

    def __del__(self):
        if getattr(self, "_enc", None):
            self._lib.fec_encoder_destroy(self._enc)
            self._enc = None


DecodeResult = namedtuple("DecodeResult", "bits status out_bits work")
DecodeResult.__doc__ = """bits: uint8 [frames, max_out_bits], one decoded bit per byte (0 past a
frame's out_bits); status: uint8 [frames] (STATUS_*); out_bits, work: uint32 [frames]."""


class Decoder:
    """The code's decoder, for batches of frames. Its input kind (in_kind: "s8" int8 LLRs,
    "f32" float32 LLRs, "f32v" in_q float32 log-probabilities per q-ary symbol) is the array
    dtype decode takes. Not for use by two threads at once (one scratch area)."""

    def __init__(self, code):
        self._lib = _load()
        self._code = code
        self._dec = ctypes.c_void_p()
        _check(self._lib.fec_decoder_create(code._spec, ctypes.byref(self._dec)),
               f"decoder for {code.text}")
        info = self._lib.fec_decoder_info(self._dec).contents
        self.kind = "frame" if info.kind == _KIND_FRAME else "stream"
        self.in_kind = {_IN_S8: "s8", _IN_F32: "f32", _IN_F32_SYMLOGP: "f32v"}[info.in_kind]
        self.in_q = info.in_q
        self.frame_syms = info.frame_syms
        self.max_frame_syms = info.max_frame_syms
        self.frame_info_bits = info.frame_info_bits
        self.max_out_bits = info.max_out_bits
        # The scale an s8 frame family reads its int8 LLRs with (LLR = value / llr_scale);
        # None for the others (viterbi), which take any scale (fecd-feed's: 40 / the channel's
        # mean LLR, Channel.llr_mean).
        self.llr_scale = info.frame.llr_scale if info.frame.llr_scale > 0 else None
        self._scratch = ctypes.create_string_buffer(max(1, info.scratch_bytes))

    def decode(self, llr, lengths=None):
        """Decodes frames: llr is [frames, symbols] (times in_q values for f32v), int8 for an
        s8 decoder, float32 otherwise; lengths (optional, [frames]) gives each frame's symbols
        where frames vary (the rest of its row is ignored)."""
        if self.kind != "frame":
            raise FecError(f"{self._code.text}: a stream code; fecd.py decodes frames (use "
                           "mode=terminated or truncated)")
        want = np.int8 if self.in_kind == "s8" else np.float32
        llr = np.asarray(llr)
        if llr.ndim == 1:
            llr = llr[np.newaxis, :]
        if llr.ndim != 2 or llr.dtype != want:
            raise FecError(f"decode: a 2-D {np.dtype(want).name} array is needed for "
                           f"{self.in_kind} input (got {llr.ndim}-D {llr.dtype}); "
                           "fecd.quantize makes int8 LLRs")
        q = self.in_q if self.in_kind == "f32v" else 1
        frames, width = llr.shape
        if width % q or width // q > self.max_frame_syms:
            raise FecError(f"decode: rows of {width} values; frames take up to "
                           f"{self.max_frame_syms} symbols of {q} value(s)")
        if lengths is None:
            lengths = np.full(frames, width // q, dtype=np.uint32)
        lengths = np.asarray(lengths, dtype=np.int64).ravel()
        if lengths.size != frames or (lengths < 0).any() or (lengths > width // q).any():
            raise FecError(f"decode: lengths must give 0..{width // q} symbols for each of "
                           f"{frames} frames")
        llr = np.ascontiguousarray(llr)
        out_stride = (self.max_out_bits + 7) // 8
        out = np.zeros((frames, out_stride), dtype=np.uint8)
        jobs = (_Job * max(1, frames))()
        for i, n in enumerate(lengths):
            jobs[i].in_len = jobs[i].own_len = int(n)
        b = _Batch(count=frames, jobs=jobs, in_stride=width, out=out.ctypes.data,
                   out_stride=out_stride)
        if want is np.int8:
            b.in_s8 = llr.ctypes.data
        else:
            b.in_f32 = llr.ctypes.data
        _check(self._lib.fec_decode(self._dec, self._scratch, ctypes.byref(b), 0, frames),
               f"decode {frames} frames of {self._code.text}")
        out_bits = np.array([jobs[i].out_bits for i in range(frames)], dtype=np.uint32)
        bits = np.unpackbits(out, axis=1)[:, :self.max_out_bits]
        for i in range(frames):
            bits[i, out_bits[i]:] = 0
        return DecodeResult(bits, np.array([jobs[i].status for i in range(frames)],
                                           dtype=np.uint8),
                            out_bits, np.array([jobs[i].work for i in range(frames)],
                                               dtype=np.uint32))

    def __del__(self):
        if getattr(self, "_dec", None):
            self._lib.fec_decoder_destroy(self._dec)
            self._dec = None


class Channel:
    """A channel model ("awgn", "bsid,pi=0.01,pd=0.01,ps=0") on a link (Eb/N0 in dB and the
    code's rate), drawing from the library's PRNG seeded with seed: the same output for the
    same seed on every machine, as fecd-feed's."""

    def __init__(self, text="awgn", ebn0_db=0.0, rate=0.5, seed=1, noiseless=False):
        self._lib = _load()
        link = _Link(ebn0_db=ebn0_db, rate=rate, noiseless=noiseless)
        self._ch = _Channel()
        err = ctypes.create_string_buffer(_ERR_LEN)
        _check(self._lib.fec_channel_open(text.encode(), ctypes.byref(link),
                                          ctypes.byref(self._ch), err, _ERR_LEN),
               f"channel '{text}'", err)
        self._prng = _Prng()
        self._lib.fec_prng_seed(ctypes.byref(self._prng), seed)

    def llr_mean(self):
        """The mean LLR of a received 0: what a quantizer scales to its range."""
        return self._lib.fec_channel_llr_mean(ctypes.byref(self._ch))

    def apply(self, bits):
        """Code bits (0/1; a 2-D array is taken row by row, each row a frame) -> float32
        LLRs (log(P0/P1)); a model that changes lengths returns a list of arrays."""
        bits = np.asarray(bits)
        rows = [bits] if bits.ndim == 1 else list(bits)
        outs = []
        for row in rows:
            row = np.ascontiguousarray(row.ravel() != 0, dtype=np.uint8)
            out = np.empty(self._lib.fec_channel_max_out_len(ctypes.byref(self._ch), row.size),
                           dtype=np.float32)
            nout = ctypes.c_size_t()
            _check(self._lib.fec_channel_apply(ctypes.byref(self._ch), ctypes.byref(self._prng),
                                               row.ctypes.data, row.size, out.ctypes.data,
                                               ctypes.byref(nout)), "channel")
            outs.append(out[:nout.value])
        if bits.ndim == 1:
            return outs[0]
        if len({o.size for o in outs}) == 1:
            return np.stack(outs)
        return outs


def quantize(llr, scale):
    """float LLRs -> int8 as fecd does (round(llr * scale) half away from zero, clamped to
    +-127, NaN -> 0): what an s8 decoder takes, with scale its llr_scale."""
    lib = _load()
    llr = np.ascontiguousarray(llr, dtype=np.float32)
    out = np.empty(llr.shape, dtype=np.int8)
    _check(lib.fec_llr_quantize(_FMT_S8_LLR, llr.ctypes.data, llr.size, False, scale,
                                out.ctypes.data), "quantize")
    return out
