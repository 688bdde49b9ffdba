#!/bin/bash
# Integration c: channel.update while data flows.
#  1. Same code, new block geometry (decode_len / traceback_len), twice, while a paced feed runs:
#     the stream carries on (the sink sees no restart), no bit lost, none wrong.
#  2. A code switch: ccsds -> dvbs-3/4 at sender sequence AT, sent while the feed is already
#     running, with the feed switching its encoder at the same message (--switch AT:dvbs-3/4).
#     Symbols before AT must be decoded with the old code and from AT on with the new one: the
#     sink sees one stream restart, two code generations, no bit lost, none wrong.
. "$(dirname "$0")/lib.sh"

write_config \
	"$(chan_json 1 geometry '{"preset": "ccsds", "decode_len": 2048, "traceback_len": 64}' 0 1)" \
	"$(chan_json 2 switch '{"preset": "ccsds"}' 2 3)"
start_fecd

# --- 1: geometry changes mid-stream.
BITS=600000
start_sink sink-geo --endpoint "$(ep 1)" --seed 31 --expect-bits $BITS --until-eos --timeout 30000
spawn feed-geo "$FEED" --endpoint "$(ep 0)" --channel 1 --seed 31 --bits $BITS --ebn0 7 --rate 400000
FEED_PID=$LAST_PID
wait_for 20 '[ "$(chan_stat 1 msgs_in 2>/dev/null || echo 0)" -ge 40 ]' || fail "geometry: no data flowing"
u1=$(ctl channel.update '{"id": 1, "code": {"preset": "ccsds", "decode_len": 512, "traceback_len": 48}}') ||
	fail "first update"
log "update 1: $u1"
wait_for 20 '[ "$(chan_stat 1 msgs_in 2>/dev/null || echo 0)" -ge 120 ]' || fail "geometry: data stopped"
u2=$(ctl channel.update '{"id": 1, "code": {"preset": "ccsds", "decode_len": 4096, "traceback_len": 96}}') ||
	fail "second update"
log "update 2: $u2"
kill -0 "$FEED_PID" 2>/dev/null || fail "geometry: the feed ended before the updates were made; slow it down"
wait_pid "$FEED_PID" 60 || fail "geometry feed still running"
[ "$WAIT_RC" -eq 0 ] || fail "geometry feed failed: $(cat "$IT_TMP/feed-geo.log")"
check_sink sink-geo 30
expect_eq "$(sink_field sink-geo bits_delivered)" $BITS "geometry bits delivered"
expect_eq "$(sink_field sink-geo bit_errors)" 0 "geometry bit errors"
expect_eq "$(sink_field sink-geo restarts)" 0 "geometry stream restarts"
expect_eq "$(chan_stat 1 code_gen)" 3 "geometry code_gen after two updates"
expect_eq "$(chan_stat 1 bad_msgs)" 0 "geometry bad_msgs"

# --- 2: code switch at a sender sequence number.
BITS=400000
AT=150
# fecd ends the first stream at the switch (END_OF_STREAM, end_cause code_change); the sink follows
# it and stops at the feed's own end.
start_sink sink-sw --endpoint "$(ep 3)" --seed 32 --expect-bits $BITS --until-eos --timeout 30000
spawn feed-sw "$FEED" --endpoint "$(ep 2)" --channel 2 --seed 32 --bits $BITS --ebn0 7 \
	--rate 200000 --switch "$AT:dvbs-3/4"
FEED_PID=$LAST_PID
wait_for 20 '[ "$(chan_stat 2 msgs_in 2>/dev/null || echo 0)" -ge 20 ]' || fail "switch: no data flowing"
u3=$(ctl channel.update "{\"id\": 2, \"at_seq\": $AT, \"code\": {\"preset\": \"dvbs-3/4\"}}") ||
	fail "switch update"
log "update 3: $u3"
seen=$(chan_stat 2 msgs_in)
[ "$seen" -lt $AT ] || fail "switch: the update came after message $AT had arrived ($seen); slow the feed"
wait_pid "$FEED_PID" 60 || fail "switch feed still running"
[ "$WAIT_RC" -eq 0 ] || fail "switch feed failed: $(cat "$IT_TMP/feed-sw.log")"
check_sink sink-sw 30
expect_eq "$(sink_field sink-sw bits_delivered)" "$(feed_field feed-sw bits)" "switch bits delivered"
expect_eq "$(sink_field sink-sw bit_errors)" 0 "switch bit errors"
expect_eq "$(sink_field sink-sw code_gens)" "[1,2]" "switch code generations"
expect_eq "$(sink_field sink-sw restarts)" 1 "switch stream restarts"
expect_eq "$(chan_stat 2 bad_msgs)" 0 "switch bad_msgs"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
