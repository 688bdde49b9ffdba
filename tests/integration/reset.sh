#!/bin/bash
# Integration ag: channel.reset, for a sender that starts again (issue 19's third item). What the
# user did: a GNU Radio flowgraph run on a channel, then a second run of another flowgraph on it.
#  1. Raw GNU Radio stream, run 1 (seed 81): its sink gets every bit (the idle flush publishes the
#     tail). channel.reset, then run 2 (seed 82): a new sink gets every bit of run 2 from bit 0,
#     no error, no loss: the stream started again, nothing of run 1 mixed in.
#  2. The same without channel.reset (run 3, seed 83): the stream goes on from run 2's end, so a
#     sink that expects run 3 from bit 0 fails: what the reset is for.
#  3. Frames: half a frame is in assembly when channel.reset comes: it is dropped and counted
#     (truncated), and the next frames decode.
#  4. channel.reset of a channel that does not exist: -32000.
. "$(dirname "$0")/lib.sh"

N=60000
IT_LINGER_MS=500
gr_in=', "protocol": "gnuradio", "gnuradio": {"format": "f32", "tags": "off"}'
FRAMES='{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 4096}'
write_config \
	"$(chan_json 1 gr '{"preset": "ccsds"}' 0 1 "$gr_in")" \
	"$(chan_json 2 frames "$FRAMES" 2 3)"
start_fecd

# gr_run NAME SEED: a flowgraph run of N bits.
gr_run() {
	run_feed "$1" 60 --endpoint "$(ep 0)" --gnuradio --format f32 --code ccsds --seed "$2" \
		--bits $N --ebn0 7
}

# --- 1: run, reset, run.
start_sink sink-run1 --endpoint "$(ep 1)" --seed 81 --expect-bits $N --timeout 20000
gr_run feed-run1 81
check_sink sink-run1 30
expect_eq "$(sink_field sink-run1 bits_delivered)" $N "run 1: bits delivered"
res=$(ctl channel.reset '{"id": 1}')
log "reset: $res"
case $res in *'"reset": true'*) ;; *) fail "channel.reset answered $res" ;; esac
start_sink sink-run2 --endpoint "$(ep 1)" --seed 82 --expect-bits $N --timeout 20000
gr_run feed-run2 82
check_sink sink-run2 30
expect_eq "$(sink_field sink-run2 bit_errors)" 0 "run 2 after the reset: bit errors"
expect_eq "$(sink_field sink-run2 bits_delivered)" $N "run 2 after the reset: bits delivered"
expect_eq "$(sink_field sink-run2 lost_bits)" 0 "run 2 after the reset: bits lost"
expect_eq "$(sink_field sink-run2 sender_end)" 0 "run 2: the reset's end is not a sender's"
# Run 1's stream, ended by the reset when nobody read the output, reached this sink first: its
# end (at bit N, end_cause reset) is another run's, reported and not placed among run 2's bits.
expect_eq "$(sink_field sink-run2 stale)" 1 "run 2: run 1's end, stale"
grep -q "channel gr: reset: the next message starts a new stream" "$IT_TMP/fecd.log" ||
	fail "no log line for the reset"

# --- 2: no reset: run 3 continues run 2's stream, and a sink that takes it from bit 0 fails.
start_sink sink-run3 --endpoint "$(ep 1)" --seed 83 --expect-bits $N --timeout 3000
gr_run feed-run3 83
wait_pid "$SINK_PID" 30 || fail "run 3: sink still running"
log "run 3 without a reset: $(cat "$IT_TMP/sink-run3.json")"
[ "$WAIT_RC" -ne 0 ] || fail "run 3 without a reset passed: the test cannot tell a reset from none"

# --- 3: half a frame when the reset comes.
run_feed feed-half 30 --endpoint "$(ep 2)" --channel 2 --seed 84 --code "ccsds,mode=terminated,max_frame_bits=4096" \
	--frames 1 --frame-bits 1024 --split 2 --skip-seq 1 --no-eos
wait_for 10 '[ "$(chan_stat 2 msgs_in)" -ge 1 ]' || fail "frames: the half frame did not arrive"
ctl channel.reset '{"name": "frames"}' >/dev/null
wait_for 10 '[ "$(chan_stat 2 frame_errors)" -eq 1 ]' ||
	fail "frames: the half frame was not dropped at the reset: $(ctl stats.get '{"id": 2}')"
expect_eq "$(chan_stat 2 frame_errors_by_reason.truncated)" 1 "frames: dropped as truncated"
start_sink sink-frames --endpoint "$(ep 3)" --seed 85 --frame-bits 1024 --split 2 --until-eos \
	--timeout 20000
run_feed feed-frames 30 --endpoint "$(ep 2)" --channel 2 --seed 85 \
	--code "ccsds,mode=terminated,max_frame_bits=4096" --frames 10 --frame-bits 1024 --split 2 --ebn0 7
check_sink sink-frames 30
expect_eq "$(sink_field sink-frames frames)" 10 "frames after the reset"

# --- 4: an unknown channel.
out=$(timeout 10 "$FECDCTL" --socket "$CTL_SOCK" channel.reset '{"id": 9}' 2>&1) &&
	fail "channel.reset of channel 9 succeeded: $out"
case $out in *"error -32000"*) ;; *) fail "channel.reset of channel 9: $out" ;; esac

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
