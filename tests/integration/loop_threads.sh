#!/bin/bash
# Integration k: four channels spread over four data-path loop threads (loop_threads 4), so every
# channel operation crosses from the control loop to another thread.
#  1. A paced CCSDS stream with two live geometry updates (the stream carries on: no restart, no
#     loss, no error), beside terminated frames of varying length on a second channel, at once.
#  2. Two unpaced streams under load on the other two channels, then SIGTERM: fecd drains every
#     loop and exits 0, and each sink holds one contiguous error-free prefix with exactly the
#     bits fecd says it published, which are exactly the accepted symbols / 2 (sigterm.sh says
#     why that is the zero-loss check).
. "$(dirname "$0")/lib.sh"

IT_GLOBALS='"loop_threads": 4, ' write_config \
	"$(chan_json 1 geo '{"preset": "ccsds", "decode_len": 2048, "traceback_len": 64}' 0 1)" \
	"$(chan_json 2 frames '{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 4096}' 2 3)" \
	"$(chan_json 3 load3 '{"preset": "ccsds"}' 4 5 ', "hwm": 4')" \
	"$(chan_json 4 load4 '{"preset": "ccsds"}' 6 7 ', "hwm": 4')"
start_fecd
grep -q "data path: 4 loop threads" "$IT_TMP/fecd.log" || fail "fecd did not start 4 loop threads"

# --- 1: an updated stream and frames, concurrently.
BITS=600000 NF=150
start_sink sink-geo --endpoint "$(ep 1)" --seed 51 --expect-bits $BITS --until-eos --timeout 30000
SINK_GEO=$SINK_PID
start_sink sink-fr --endpoint "$(ep 3)" --seed 52 --frame-bits 100:4000 --expect-frames $NF \
	--timeout 30000
SINK_FR=$SINK_PID
spawn feed-geo "$FEED" --endpoint "$(ep 0)" --channel 1 --seed 51 --bits $BITS --ebn0 7 --rate 400000
FEED_GEO=$LAST_PID
spawn feed-fr "$FEED" --endpoint "$(ep 2)" --channel 2 --seed 52 \
	--code "ccsds,mode=terminated,max_frame_bits=4096" --frames $NF --frame-bits 100:4000 --ebn0 7
FEED_FR=$LAST_PID
wait_for 20 '[ "$(chan_stat 1 msgs_in 2>/dev/null || echo 0)" -ge 40 ]' || fail "geo: no data flowing"
ctl channel.update '{"id": 1, "code": {"preset": "ccsds", "decode_len": 512, "traceback_len": 48}}' \
	>/dev/null
wait_for 20 '[ "$(chan_stat 1 msgs_in 2>/dev/null || echo 0)" -ge 120 ]' || fail "geo: data stopped"
ctl channel.update '{"id": 1, "code": {"preset": "ccsds", "decode_len": 4096, "traceback_len": 96}}' \
	>/dev/null
kill -0 "$FEED_GEO" 2>/dev/null || fail "geo: the feed ended before the updates were made"
for f in geo fr; do
	pid=FEED_${f^^}
	wait_pid "${!pid}" 60 || fail "feed-$f still running"
	[ "$WAIT_RC" -eq 0 ] || fail "feed-$f failed: $(cat "$IT_TMP/feed-$f.log")"
done
SINK_PID=$SINK_GEO check_sink sink-geo 30
expect_eq "$(sink_field sink-geo bits_delivered)" $BITS "geo bits delivered"
expect_eq "$(sink_field sink-geo bit_errors)" 0 "geo bit errors"
expect_eq "$(sink_field sink-geo restarts)" 0 "geo stream restarts"
expect_eq "$(chan_stat 1 code_gen)" 3 "geo code_gen after two updates"
SINK_PID=$SINK_FR check_sink sink-fr 30
expect_eq "$(sink_field sink-fr frames)" $NF "frames received"
expect_eq "$(sink_field sink-fr lost_frames)" 0 "lost frames"
expect_eq "$(sink_field sink-fr bit_errors)" 0 "frame bit errors"
expect_eq "$(chan_stat 2 frames_out)" $NF "stats frames_out"
expect_eq "$(chan_stat 2 symbols_in)" "$(feed_field feed-fr symbols)" "frames symbols_in"

# --- 2: two channels under load, then SIGTERM.
for c in 3 4; do
	start_sink "sink-$c" --endpoint "$(ep $((2 * c - 1)))" --seed $((50 + c)) --timeout 4000 \
		--hwm 100000
	eval "SINK_$c=$SINK_PID"
	spawn "feed-$c" "$FEED" --endpoint "$(ep $((2 * c - 2)))" --channel $c --seed $((50 + c)) \
		--bits 400000000 --ebn0 7 --hwm 4 --send-timeout 3000
	eval "FEED_$c=$LAST_PID"
done
for c in 3 4; do
	wait_for 30 "[ \"\$(chan_stat $c bits_out 2>/dev/null || echo 0)\" -ge 300000 ]" ||
		fail "channel $c: no output flowing under load"
done
stop_fecd 30
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM under load"
for c in 3 4; do
	pid=SINK_$c
	SINK_PID=${!pid} check_sink "sink-$c" 20
	pid=FEED_$c
	wait_pid "${!pid}" 10 || fail "feed $c did not give up after fecd left"
	got=$(sink_field "sink-$c" bits_delivered)
	expect_eq "$(sink_field "sink-$c" lost_bits)" 0 "channel $c lost bits"
	expect_eq "$(sink_field "sink-$c" duplicates)" 0 "channel $c duplicated bits"
	expect_eq "$(sink_field "sink-$c" bit_errors)" 0 "channel $c bit errors"
	closed=$(sed -n "s/.*channel load$c closed: [0-9]* messages and \([0-9]*\) symbols accepted, [0-9]* messages and \([0-9]*\) bits published.*/\1 \2/p" "$IT_TMP/fecd.log")
	[ -n "$closed" ] || fail "channel $c: fecd logged no closing counts"
	read -r acc pub <<<"$closed"
	log "channel $c: $acc symbols accepted, $pub bits published, $got received"
	[ "$pub" -gt 0 ] || fail "channel $c published nothing"
	expect_eq "$pub" $((acc / 2)) "channel $c bits published for the symbols accepted"
	expect_eq "$got" "$pub" "channel $c bits received of those published"
done
for n in geo frames; do
	grep -q "channel $n closed" "$IT_TMP/fecd.log" || fail "channel $n did not close in the drain"
done
log "PASS"
