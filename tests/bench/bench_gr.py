#!/usr/bin/python3
"""fecd-bench's GNU Radio anchor: gr-fec's cc_decoder on fecd-bench's data.

usage: bench_gr.py IN.u8 OUT.u8 FRAME_BITS

IN holds the code symbols as offset binary bytes (0 = strong 0, 255 = strong 1), K=7 r=1/2 in
gr-fec's default convention (polys [109, 79]: 133 then 171, LSB first). The flowgraph is
file source -> fec.decoder(cc_decoder, streaming) -> file sink of one bit per byte; only its run
is timed. Prints one line: seconds=S bits=N.
"""
import os
import sys
import time

from gnuradio import blocks, fec, gr


def main():
    src_path, out_path, frame = sys.argv[1], sys.argv[2], int(sys.argv[3])
    dec = fec.cc_decoder.make(frame, 7, 2, [109, 79], 0, -1, fec.CC_STREAMING, False)
    tb = gr.top_block()
    src = blocks.file_source(gr.sizeof_char, src_path, False)
    decoder = fec.decoder(dec, gr.sizeof_char, gr.sizeof_char)
    sink = blocks.file_sink(gr.sizeof_char, out_path, False)
    sink.set_unbuffered(False)
    tb.connect(src, decoder, sink)
    t0 = time.monotonic()
    tb.run()
    secs = time.monotonic() - t0
    sink.close()
    print("seconds=%.6f bits=%d" % (secs, os.path.getsize(out_path)), flush=True)


if __name__ == "__main__":
    main()
