#!/usr/bin/env python3
"""GNU Radio interoperability of fecd_proto, checked against GNU Radio itself.

1. PDUs written by fecd are read by GNU Radio's pmt library as PDUs with the expected metadata,
   and are byte-for-byte what pmt.serialize_str writes for the same dict built with dict_add.
2. PDUs that GNU Radio builds (other integer types, other key orders, extra keys) parse in fecd.
3. A real flowgraph's gr-zeromq PUSH and PUB sinks with pass_tags: fecd measures the tag header
   and finds the items right after it, in the same frame; a PUB key arrives as a separate frame
   before it; without pass_tags the frame holds only the item bytes.

Usage: gr_interop.py PROTO_TOOL. Exits 77 (skip) when GNU Radio's Python modules are missing.
"""
import os
import struct
import subprocess
import sys
import tempfile
import time

try:
    import pmt
    import zmq
    from gnuradio import blocks, gr, zeromq
except ImportError as e:
    print("SKIP: GNU Radio Python modules not available (%s)" % e)
    sys.exit(77)

TOOL = sys.argv[1]
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def tool(*args):
    return subprocess.run([TOOL] + [str(a) for a in args], capture_output=True, text=True)


# The order fecd writes its keys in; a dict_add of them in reverse rebuilds the same list.
KEY_ORDER = ["channel", "frame_seq", "status", "family", "in_first", "in_count", "in_seq",
             "payload_bits", "code_gen", "iterations", "metric", "packed", "out_bit_offset",
             "end_of_stream", "code_changed", "work", "end_cause"]
OUT_STREAM, OUT_EOS, OUT_CODE_CHANGED = 1, 2, 8


def expected_meta(c):
    m = {"channel": c["channel"], "frame_seq": c["seq"], "status": c["status"],
         "family": c["family"], "in_first": c["in_first"], "in_count": c["in_count"],
         "in_seq": c["in_seq"], "payload_bits": c["bits"], "code_gen": c["gen"],
         "iterations": min(c["iters"], 65535), "metric": c["metric"],
         "packed": not c["unpacked"]}
    if c["flags"] & OUT_STREAM:
        m["out_bit_offset"] = c["obo"]
    if c["flags"] & OUT_EOS:
        m["end_of_stream"] = True
    if c["flags"] & OUT_CODE_CHANGED:
        m["code_changed"] = True
    if c["iters"] > 65535:  # the 32-bit work counter, sent where iterations saturates
        m["work"] = c["iters"]
    if c["flags"] & OUT_EOS:  # why the stream ended (PROTOCOL.md 3.3)
        m["end_cause"] = c.get("cause", 0)
    return m


def to_pmt(k, v):
    if isinstance(v, bool):
        return pmt.from_bool(v)
    if isinstance(v, str):
        return pmt.intern(v)
    if isinstance(v, float):
        return pmt.from_double(v)
    return pmt.from_uint64(v)


def unpack_bits(data, nbits):
    return [(data[i // 8] >> (7 - i % 8)) & 1 for i in range(nbits)]


CASES = [
    dict(channel=0, seq=41, status="decoded", family="viterbi", in_first=672, in_count=32,
         in_seq=20, bits=16, gen=1, iters=0, metric=1.5, flags=OUT_STREAM, obo=336,
         unpacked=False, data=bytes([0xCA, 0xFE])),
    dict(channel=4294967295, seq=2**64 - 1, status="not_converged", family="ldpc",
         in_first=2**40, in_count=64800, in_seq=2**63, bits=13, gen=7, iters=50,
         metric=-0.25, flags=OUT_EOS | OUT_CODE_CHANGED, obo=0, unpacked=True,
         data=bytes([0xA5, 0x5A]), cause=1),
    dict(channel=3, seq=0, status="erased", family="ids", in_first=0, in_count=0, in_seq=0,
         bits=0, gen=1, iters=0, metric=0.0, flags=OUT_STREAM | OUT_EOS, obo=99, unpacked=False,
         data=b""),
    dict(channel=5, seq=9, status="decoded", family="fano", in_first=0, in_count=2048, in_seq=3,
         bits=8, gen=2, iters=4000000000, metric=0.0, flags=0, obo=0, unpacked=False,
         data=bytes([0x3C])),
]


def test_pdu_write():
    for i, c in enumerate(CASES):
        r = tool("pdu-write", c["channel"], c["seq"], c["status"], c["family"], c["in_first"],
                 c["in_count"], c["in_seq"], c["bits"], c["gen"], c["iters"], repr(c["metric"]),
                 c["flags"], c["obo"], int(c["unpacked"]), c["data"].hex() or "00",
                 c.get("cause", 0))
        check(r.returncode == 0, "case %d: pdu-write: %s" % (i, r.stderr))
        raw = bytes.fromhex(r.stdout.strip())
        msg = pmt.deserialize_str(raw)
        check(pmt.is_pdu(msg), "case %d: GNU Radio sees a PDU" % i)
        check(pmt.is_dict(pmt.car(msg)), "case %d: metadata is a dict" % i)
        meta = pmt.to_python(pmt.car(msg))
        want = expected_meta(c)
        check(meta == want, "case %d: metadata %r != %r" % (i, meta, want))
        vec = list(pmt.u8vector_elements(pmt.cdr(msg)))
        bits = unpack_bits(c["data"], c["bits"])
        want_vec = bits if c["unpacked"] else list(
            bytes(sum(b << (7 - j) for j, b in enumerate(bits[k:k + 8]))
                  for k in range(0, len(bits), 8)))
        check(vec == want_vec, "case %d: vector %r != %r" % (i, vec, want_vec))

        d = pmt.make_dict()
        for k in reversed([k for k in KEY_ORDER if k in want]):
            d = pmt.dict_add(d, pmt.intern(k), to_pmt(k, want[k]))
        ref = pmt.serialize_str(pmt.cons(d, pmt.init_u8vector(len(vec), vec)))
        check(ref == raw, "case %d: bytes differ from pmt.serialize_str" % i)


def test_pdu_parse(tmp):
    # A PDU a flowgraph might build: from_long integers, its own key order, extra keys.
    d = pmt.make_dict()
    d = pmt.dict_add(d, pmt.intern("payload_bits"), pmt.from_long(12))
    d = pmt.dict_add(d, pmt.intern("rx_time"), pmt.make_tuple(pmt.from_uint64(5),
                                                              pmt.from_double(0.5)))
    d = pmt.dict_add(d, pmt.intern("family"), pmt.intern("fano"))
    d = pmt.dict_add(d, pmt.intern("status"), pmt.intern("decoded"))
    d = pmt.dict_add(d, pmt.intern("frame_seq"), pmt.from_long(7000000000))
    d = pmt.dict_add(d, pmt.intern("channel"), pmt.from_long(9))
    d = pmt.dict_add(d, pmt.intern("end_of_stream"), pmt.PMT_T)
    d = pmt.dict_add(d, pmt.intern("snr"), pmt.from_float(3.5))
    raw = pmt.serialize_str(pmt.cons(d, pmt.init_u8vector(2, [0xAB, 0xC0])))
    path = os.path.join(tmp, "gr_pdu.bin")
    with open(path, "wb") as f:
        f.write(raw)
    r = tool("pdu-parse", path)
    check(r.returncode == 0, "GNU Radio PDU parses: %s" % r.stdout)
    got = dict(line.split("=", 1) for line in r.stdout.split())
    check(got.get("channel") == "9" and got.get("frame_seq") == "7000000000" and
          got.get("family") == "fano" and got.get("payload_bits") == "12" and
          got.get("flags") == str(OUT_EOS) and got.get("bytes") == "abc0",
          "GNU Radio PDU fields: %r" % got)


def capture(tmp, kind, pass_tags, key=""):
    tags = [
        gr.tag_utils.python_to_tag((0, pmt.intern("packet_len"), pmt.from_long(256), pmt.PMT_F)),
        gr.tag_utils.python_to_tag((3, pmt.intern("rx_time"),
                                    pmt.make_tuple(pmt.from_uint64(1700000000),
                                                   pmt.from_double(0.25)),
                                    pmt.intern("usrp"))),
        gr.tag_utils.python_to_tag((5, pmt.intern("burst"), pmt.PMT_T, pmt.PMT_NIL)),
        gr.tag_utils.python_to_tag((6, pmt.intern("v"), pmt.init_c32vector(2, [1 + 2j, 3j]),
                                    pmt.from_long(-5000000000))),
        gr.tag_utils.python_to_tag((9, pmt.intern("meta"),
                                    pmt.dict_add(pmt.make_dict(), pmt.intern("a"),
                                                 pmt.init_f64vector(1, [2.5])),
                                    pmt.from_complex(1.0, -1.0))),
    ]
    items = [float(i) for i in range(32)]
    addr = "ipc://%s/%s%d" % (tmp, kind, int(pass_tags))
    tb = gr.top_block()
    src = blocks.vector_source_f(items, False, 1, tags)
    if kind == "push":
        sink = zeromq.push_sink(gr.sizeof_float, 1, addr, 100, pass_tags, -1)
    else:
        sink = zeromq.pub_sink(gr.sizeof_float, 1, addr, 100, pass_tags, -1, key)
    tb.connect(src, sink)
    ctx = zmq.Context()
    s = ctx.socket(zmq.PULL if kind == "push" else zmq.SUB)
    if kind == "pub":
        s.setsockopt(zmq.SUBSCRIBE, b"")
    s.setsockopt(zmq.RCVTIMEO, 5000)
    # The sink bound when it was made; a SUB that joins after the items went out misses them.
    s.connect(addr)
    time.sleep(0.5)
    tb.start()
    frames = []
    try:
        frames.append(s.recv_multipart())
    except zmq.Again:
        pass
    tb.stop()
    tb.wait()
    s.close(0)
    ctx.term()
    return frames, struct.pack("<%df" % len(items), *items)


def test_tag_header(tmp):
    for kind, key in (("push", ""), ("pub", ""), ("pub", "chan0")):
        frames, item_bytes = capture(tmp, kind, True, key)
        check(len(frames) >= 1, "%s: received a message" % kind)
        if not frames:
            continue
        parts = frames[0]
        check(len(parts) == (2 if key else 1),
              "%s key=%r: %d frames (header and items share one)" % (kind, key, len(parts)))
        if key:
            check(parts[0] == key.encode(), "%s: the key is its own first frame" % kind)
        data = parts[-1]
        path = os.path.join(tmp, "tags.bin")
        with open(path, "wb") as f:
            f.write(data)
        r = tool("taghdr", path)
        check(r.returncode == 0, "%s: taghdr: %s" % (kind, r.stdout))
        if r.returncode == 0:
            hl = int(r.stdout.split()[0].split("=")[1])
            # GNU Radio may send the run in several messages; the first starts at item 0.
            check(data[hl:] == item_bytes[:len(data) - hl] and len(data) > hl,
                  "%s: items follow the header (hdr_len %d of %d)" % (kind, hl, len(data)))
            check(r.stdout.split()[1] == "offset=0", "%s: offset %s" % (kind, r.stdout))

    frames, item_bytes = capture(tmp, "push", False)
    check(frames and frames[0] == [item_bytes[:len(frames[0][0])]],
          "push without pass_tags carries only the items")


def test_msg_source(tmp):
    """A flowgraph's ZMQ PULL Message Source hands fecd's PDU on as a PDU message."""
    c = CASES[0]
    r = tool("pdu-write", c["channel"], c["seq"], c["status"], c["family"], c["in_first"],
             c["in_count"], c["in_seq"], c["bits"], c["gen"], c["iters"], repr(c["metric"]),
             c["flags"], c["obo"], 0, c["data"].hex())
    raw = bytes.fromhex(r.stdout.strip())
    addr = "ipc://%s/pdu" % tmp
    ctx = zmq.Context()
    push = ctx.socket(zmq.PUSH)
    push.bind(addr)
    tb = gr.top_block()
    srcb = zeromq.pull_msg_source(addr, 100, False)
    dbg = blocks.message_debug()
    tb.msg_connect(srcb, "out", dbg, "store")
    tb.start()
    push.send(raw)
    deadline = time.time() + 5
    while dbg.num_messages() < 1 and time.time() < deadline:
        time.sleep(0.05)
    tb.stop()
    tb.wait()
    push.close(0)
    ctx.term()
    check(dbg.num_messages() == 1, "the message source received the PDU")
    if dbg.num_messages() == 1:
        m = dbg.get_message(0)
        check(pmt.is_pdu(m) and pmt.to_python(pmt.car(m))["frame_seq"] == c["seq"],
              "received message is our PDU")


with tempfile.TemporaryDirectory() as tmp:
    test_pdu_write()
    test_pdu_parse(tmp)
    test_tag_header(tmp)
    test_msg_source(tmp)

print("%s" % ("ok" if failures == 0 else "%d failures" % failures))
sys.exit(1 if failures else 0)
