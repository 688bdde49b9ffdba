#!/bin/bash
# Integration: fecd-sink cannot be made to allocate by a hostile publisher. it-craft sends output
# messages whose numbers no honest fecd sends: a frame at sender sequence 2^62 and a stream
# message at decoded-bit offset 2^60 (before, the sink grew its frame table to the frame index, and
# stepped its PRNG to the offset: gigabytes and hours). Each must be reported as out of window
# (the sink fails, saying so) while its memory stays small, and messages within the window are
# still checked. --window narrows the window, and a message part over --max-msg-bytes never
# reaches the sink.
. "$(dirname "$0")/lib.sh"

[ -n "${IT_CRAFT:-}" ] || fail "IT_CRAFT is not set (run the tests through ctest)"

# peak_rss_kb PID: the process's peak resident memory so far.
peak_rss_kb() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }

# --- 1: huge frame index and stream offset.
start_sink sink --endpoint "$(ep 0)" --frame-bits 64 --timeout 4000
timeout 20 "$IT_CRAFT" "$(ep 0)" frame:0 frame:4611686018427387904 stream:1152921504606846976 \
	frame:1 >"$IT_TMP/craft.log" 2>&1 || fail "it-craft: $(cat "$IT_TMP/craft.log")"
wait_for 10 'grep -q "bit 1152921504606846976" "$IT_TMP/sink.log"' ||
	fail "the sink did not report the stream message: $(cat "$IT_TMP/sink.log")"
rss=$(peak_rss_kb "$SINK_PID") || fail "cannot read the sink's memory"
log "sink peak RSS ${rss} kB after the hostile messages"
[ "$rss" -lt 65536 ] || fail "the sink grew to ${rss} kB on two hostile numbers"
wait_pid "$SINK_PID" 20 || fail "the sink did not end after 4 s of silence"
[ "$WAIT_RC" -eq 1 ] || fail "the sink exited $WAIT_RC on out-of-window messages; expected 1"
log "sink: $(cat "$IT_TMP/sink.json")"
expect_eq "$(sink_field sink out_of_window)" 2 "out_of_window messages"
expect_eq "$(sink_field sink frames)" 2 "frames checked (0 and 1)"
case $(sink_field sink why) in *"beyond the window"*) ;; *) fail "why: $(sink_field sink why)" ;; esac
grep -q "places itself at frame 4611686018427387904, more than 1048576 past" "$IT_TMP/sink.log" ||
	fail "no clear message for the frame: $(cat "$IT_TMP/sink.log")"

# --- 2: --window narrows it.
start_sink sink2 --endpoint "$(ep 1)" --frame-bits 64 --timeout 3000 --window 10
timeout 20 "$IT_CRAFT" "$(ep 1)" frame:0 frame:5 frame:100 >"$IT_TMP/craft2.log" 2>&1 ||
	fail "it-craft: $(cat "$IT_TMP/craft2.log")"
wait_pid "$SINK_PID" 20 || fail "sink2 did not end"
expect_eq "$(sink_field sink2 out_of_window)" 1 "--window 10: out_of_window"
expect_eq "$(sink_field sink2 frames)" 2 "--window 10: frames checked"

# --- 3: a message part over --max-msg-bytes is refused by libzmq: nothing arrives.
start_sink sink3 --endpoint "$(ep 2)" --frame-bits 64 --timeout 3000 --max-msg-bytes 64
timeout 20 "$IT_CRAFT" "$(ep 2)" frame:0 >"$IT_TMP/craft3.log" 2>&1
wait_pid "$SINK_PID" 20 || fail "sink3 did not end"
expect_eq "$(sink_field sink3 messages)" 0 "--max-msg-bytes 64: messages received"
log "PASS: out-of-window numbers reported, memory bounded"
