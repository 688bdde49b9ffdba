#!/usr/bin/python3
"""Headless GNU Radio 3.10 loop through fecd: gr-fec encodes, fecd decodes, GNU Radio checks.

Transmit flowgraph: seeded random bits -> gr-fec's convolutional encoder (cc_encoder with its
default polynomials [109, 79] in streaming mode) -> BPSK (bit 0 -> +1) -> Gaussian noise at the
given Eb/N0 -> channel LLRs 2y/sigma^2 (float32) -> ZMQ PUSH sink (float items, optionally with
pass_tags). gr-fec writes polynomials LSB-first: 109 and 79 are octal 133 and 171 bit-reversed, sent
133 first and neither inverted, which is fecd's "voyager" preset (not "ccsds", which sends 171
first and inverts 133).

Receive flowgraph: ZMQ PULL message source -> a small Python block that takes fecd's PDUs
(metadata dict + u8 vector, bits packed MSB first unless the dict says "packed": false) and
places each at its out_bit_offset.

The stream never ends (GNU Radio raw items carry no end-of-stream), so fecd holds back the last
traceback span until more comes or the channel's input.idle_flush_ms passes; the transmitter sends
--pad bits more than it checks, so every checked bit has a full traceback. Prints one summary line and
exits 0 when the first --bits bits all arrived with at most --max-ber errors, 1 otherwise. The fecd
channel this needs is in README.md beside this file.
"""

import argparse
import sys
import threading
import time

import numpy as np

try:
    import pmt
    from gnuradio import analog, blocks, fec, gr, zeromq
except ImportError as e:  # not a GNU Radio Python
    print(f"gnuradio_loop: GNU Radio 3.10 with gr-fec and gr-zeromq is needed: {e}", file=sys.stderr)
    sys.exit(77)


class PduCollector(gr.basic_block):
    """Collects decoded bits from fecd PDUs by out_bit_offset."""

    def __init__(self, nbits):
        gr.basic_block.__init__(self, name="fecd_pdu_collector", in_sig=None, out_sig=None)
        self.bits = np.zeros(nbits, dtype=np.uint8)
        self.have = np.zeros(nbits, dtype=bool)
        self.pdus = 0
        self.bad = 0
        self.statuses = {}
        self.lock = threading.Lock()
        self.message_port_register_in(pmt.intern("in"))
        self.set_msg_handler(pmt.intern("in"), self.handle)

    def handle(self, msg):
        with self.lock:
            self.pdus += 1
            if not pmt.is_pair(msg) or not pmt.is_u8vector(pmt.cdr(msg)):
                self.bad += 1
                return
            meta = pmt.to_python(pmt.car(msg)) or {}
            vec = np.array(pmt.u8vector_elements(pmt.cdr(msg)), dtype=np.uint8)
            nbits = int(meta.get("payload_bits", 0))
            status = str(meta.get("status", "?"))
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if "out_bit_offset" not in meta:
                self.bad += 1  # a frame code: this example feeds a stream channel
                return
            bits = np.unpackbits(vec)[:nbits] if meta.get("packed", True) else vec[:nbits]
            if len(bits) != nbits:
                self.bad += 1
                return
            first = int(meta["out_bit_offset"])
            end = min(first + nbits, len(self.bits))
            if first < end:
                self.bits[first:end] = bits[: end - first]
                self.have[first:end] = True

    def delivered(self):
        with self.lock:
            return int(self.have.sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tx", default="tcp://127.0.0.1:5570",
                    help="where the ZMQ PUSH sink binds (fecd's input connects here)")
    ap.add_argument("--rx", default="tcp://127.0.0.1:5571",
                    help="fecd's PDU output that the PULL message source connects to")
    ap.add_argument("--bits", type=int, default=100000, help="information bits checked")
    ap.add_argument("--pad", type=int, default=8192,
                    help="bits sent after them so fecd can decode the last checked ones")
    ap.add_argument("--ebn0", type=float, default=7.0, help="Eb/N0 in dB")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tags", action="store_true", help="push_sink with pass_tags (and one tag)")
    ap.add_argument("--max-ber", type=float, default=0.0)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the bits")
    a = ap.parse_args()

    rng = np.random.default_rng(a.seed)
    total = a.bits + a.pad
    data = rng.integers(0, 2, total, dtype=np.uint8)
    rate = 0.5
    sigma = np.sqrt(1.0 / (2.0 * rate * 10.0 ** (a.ebn0 / 10.0)))

    tx = gr.top_block("fecd_loop_tx")
    tags = []
    if a.tags:
        tags = [gr.tag_utils.python_to_tag((0, pmt.intern("burst_start"), pmt.from_long(a.seed),
                                            pmt.intern("gnuradio_loop")))]
    src = blocks.vector_source_b(data.tolist(), False, 1, tags)
    # Streaming mode keeps the encoder state across work calls: one continuous code stream.
    enc = fec.extended_encoder(fec.cc_encoder_make(8192, 7, 2, [109, 79], 0, fec.CC_STREAMING,
                                                   False), threading=None, puncpat="11")
    to_f = blocks.char_to_float(1, 1.0)
    bpsk = blocks.multiply_const_ff(-2.0)
    one = blocks.add_const_ff(1.0)
    noise = analog.noise_source_f(analog.GR_GAUSSIAN, sigma, a.seed)
    add = blocks.add_ff(1)
    llr = blocks.multiply_const_ff(2.0 / sigma ** 2)
    push = zeromq.push_sink(gr.sizeof_float, 1, a.tx, 100, a.tags, -1)
    tx.connect(src, enc, to_f, bpsk, one, (add, 0))
    tx.connect(noise, blocks.head(gr.sizeof_float, 2 * total), (add, 1))
    tx.connect(add, llr, push)

    rx = gr.top_block("fecd_loop_rx")
    pull = zeromq.pull_msg_source(a.rx, 100, False)
    coll = PduCollector(a.bits)
    rx.msg_connect((pull, "out"), (coll, "in"))

    t0 = time.monotonic()
    rx.start()
    tx.start()
    tx.wait()
    while coll.delivered() < a.bits and time.monotonic() - t0 < a.timeout:
        time.sleep(0.05)
    secs = time.monotonic() - t0
    rx.stop()
    rx.wait()
    tx.stop()

    got = coll.delivered()
    errors = int(np.count_nonzero(coll.bits[coll.have] != data[: a.bits][coll.have]))
    ber = errors / got if got else 1.0
    ok = got == a.bits and coll.bad == 0 and ber <= a.max_ber and (errors == 0 or a.max_ber > 0)
    print(f"gnuradio_loop: pdus={coll.pdus} bits={got}/{a.bits} errors={errors} ber={ber:.3g} "
          f"bad_pdus={coll.bad} statuses={coll.statuses} seconds={secs:.2f} "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
