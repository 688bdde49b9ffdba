#!/bin/bash
# Integration z: the decoder contract on the wire. A small LDPC code the family builds (no code
# files) with soft output; a Python sender (pyzmq) writes native messages by hand:
#  1. q-ary symbols (format f32v) to a code of bit LLRs: refused whole, counted under reason
#     "format", and the log says why; the channel goes on.
#  2. All-zero codewords as s8 and as f32 frames: decoded to zero bits, and the output header's
#     new fields as PROTOCOL.md 3.1 and 3.2 give them: work (32 bits) equal to iterations (its
#     16-bit saturation), soft_kind bit_llr with one value per bit, soft_count the decoded bits, every
#     soft value favouring 0, end_cause set only with END_OF_STREAM, the reserved bytes zero, and
#     the channel's instance (appended at 80: not 0, the same in both).
# (A code of q-ary input, which would take f32v, comes with the nbldpc family; the daemon's slot
# layout for one is unit-tested in daemon.jobslot.)
# Skips where the system Python has no zmq module.
. "$(dirname "$0")/lib.sh"

PY=${IT_GR_PYTHON:-/usr/bin/python3}
"$PY" -c 'import zmq' 2>/dev/null || skip "no pyzmq for $PY"

CODE='{"family": "ldpc", "code": "peg", "n": 96, "dv": 3}'
write_config "$(chan_json 1 peg "$CODE" 0 1 '' ', "soft": true')"
start_fecd

# send.py IN-ENDPOINT OUT-ENDPOINT N: sends two f32v messages, then one s8 and one f32 all-zero
# frame, and checks the two outputs; prints one line per output and "ok" at the end.
cat >"$IT_TMP/send.py" <<'EOF'
import struct, sys, time, zmq
inp, outp, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
ctx = zmq.Context()
push = ctx.socket(zmq.PUSH); push.connect(inp)
pull = ctx.socket(zmq.PULL); pull.connect(outp)
F32, S8, F32V = 1, 2, 5
FRAME = 0x0001 | 0x0002
def hdr(fmt, seq, count, frame_len):
    return struct.pack('<IBBHIBBHQII', 0x44434546, 1, 1, 32, 1, fmt, 0, FRAME, seq, count,
                       frame_len)
time.sleep(0.2)  # PUSH connects asynchronously; the daemon drops nothing it has accepted
push.send_multipart([hdr(F32V, 0, n, n), b'\0' * (4 * n)])      # q = 1
push.send_multipart([hdr(F32V, 1, n, n), b'\0' * (4 * 4 * n)])  # q = 4
push.send_multipart([hdr(S8, 2, n, n), bytes([100]) * n])        # all zeros, strong
push.send_multipart([hdr(F32, 3, n, n), struct.pack('<%df' % n, *([9.0] * n))])
first_instance = 0
for want_seq in (2, 3):
    if not pull.poll(20000):
        sys.exit('no output for seq %d' % want_seq)
    parts = pull.recv_multipart()
    h = parts[0]
    (magic, ver, typ, hlen, chan, fam, status, flags, code_gen, work, frame_seq, in_first,
     in_seq, out_off, in_count, bits, soft_count, iters, per_unit, metric,
     soft_kind) = struct.unpack_from('<IBBHIBBHIIQQQQIIIHHfB', h)
    print('seq %d: status %d bits %d work %d iterations %d soft %d kind %d per %d' %
          (in_seq, status, bits, work, iters, soft_count, soft_kind, per_unit))
    assert len(h) == 88 and magic == 0x44434546 and hlen == 88, 'header'
    assert in_seq == want_seq and status == 0 and in_count == n and 0 < bits < n, 'frame'
    assert parts[1] == b'\0' * ((bits + 7) // 8), 'zero bits'
    assert 1 <= work <= 20 and work == iters, 'work %d = iterations %d' % (work, iters)
    assert flags & 0x0004 and len(parts) == 3, 'soft part'
    assert soft_kind == 1 and per_unit == 1 and soft_count == bits, 'soft layout'
    soft = struct.unpack('<%df' % soft_count, parts[2])
    assert all(v > 0 for v in soft), 'soft values favour 0'
    end_cause = h[77]
    assert end_cause == (1 if flags & 0x0002 else 0), 'end_cause %d' % end_cause
    assert h[78:80] == b'\0\0', 'reserved'
    instance = struct.unpack_from('<Q', h, 80)[0]
    assert instance != 0 and instance == (first_instance or instance), 'instance'
    first_instance = instance
print('ok')
EOF

timeout 60 "$PY" "$IT_TMP/send.py" "$(ep 0)" "$(ep 1)" 96 >"$IT_TMP/send.log" 2>&1 ||
	fail "send.py: $(cat "$IT_TMP/send.log")"
log "$(tr '\n' ';' <"$IT_TMP/send.log")"
grep -q '^ok$' "$IT_TMP/send.log" || fail "send.py did not finish"

wait_for 10 '[ "$(chan_stat 1 bad_msgs)" = 2 ]' || fail "bad_msgs: $(chan_stat 1 bad_msgs), expected 2"
st=$(ctl stats.get '{"id": 1}')
expect_eq "$(jq_get bad_msgs_by_reason.format <<<"$st")" 2 "refused for their format"
expect_eq "$(jq_get frames_out <<<"$st")" 2 "frames out"
grep -q 'format f32v carries q-ary symbol log-probabilities' "$IT_TMP/fecd.log" ||
	fail "the log does not say why f32v was refused"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS: f32v refused for bit LLRs; work, soft kind and layout in the output header"
