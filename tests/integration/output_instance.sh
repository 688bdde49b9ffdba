#!/bin/bash
# Integration ai: the output header's instance tells a channel's output from an earlier channel's
# on the same endpoint (issue 19's third item). What the user did: channel.delete, then
# channel.create on the same endpoints, and a new sink, which received the deleted channel's held
# output first and failed on it.
#  1. channel.get names the instance (16 hex digits), and the output carries it: a sink with
#     --instance passes; with another instance it checks nothing (every message stale) and fails.
#  2. Frames held for nobody (20), channel.delete, channel.create on the same endpoints (a new
#     instance), a new feed (seed 62) and a sink with the new instance: the deleted channel's 20
#     frames reach it first and are stale; the new channel's frames are all checked and right.
. "$(dirname "$0")/lib.sh"

FRAMES='{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 4096}'
FEEDCODE="ccsds,mode=terminated,max_frame_bits=4096"
IT_LINGER_MS=20000
write_config "$(chan_json 1 frames "$FRAMES" 0 1)"
start_fecd

instance_of() { ctl channel.get "{\"id\": $1}" | jq_get instance; }

# --- 1: the instance, from channel.get to the output.
I1=$(instance_of 1)
[[ $I1 =~ ^[0-9a-f]{16}$ ]] || fail "channel.get: instance '$I1' is not 16 hex digits"
start_sink sink-own --endpoint "$(ep 1)" --seed 61 --frame-bits 1024 --instance "$I1" --until-eos \
	--timeout 20000
run_feed feed-own 30 --endpoint "$(ep 0)" --seed 61 --code "$FEEDCODE" --frames 10 --frame-bits 1024 --ebn0 7
check_sink sink-own 30
expect_eq "$(sink_field sink-own frames)" 10 "own instance: frames checked"
expect_eq "$(sink_field sink-own stale)" 0 "own instance: stale"
start_sink sink-other --endpoint "$(ep 1)" --seed 61 --frame-bits 1024 --instance 1234abcd \
	--timeout 3000
run_feed feed-other 30 --endpoint "$(ep 0)" --seed 61 --code "$FEEDCODE" --frames 10 --frame-bits 1024 --ebn0 7
wait_pid "$SINK_PID" 20 || fail "other instance: sink still running"
[ "$WAIT_RC" -ne 0 ] || fail "a sink for another instance passed: $(cat "$IT_TMP/sink-other.json")"
expect_eq "$(sink_field sink-other stale)" 10 "other instance: every message stale"
expect_eq "$(sink_field sink-other frames)" 0 "other instance: frames checked"

# --- 2: delete and create on the same endpoints, with output held for nobody.
run_feed feed-old 30 --endpoint "$(ep 0)" --seed 60 --code "$FEEDCODE" --frames 20 --frame-bits 1024 --ebn0 7
wait_for 10 '[ "$(chan_stat 1 msgs_in)" -ge 40 ]' ||
	fail "the old channel did not take its 20 frames"
ctl channel.delete '{"id": 1}' >/dev/null
ctl channel.create "$(chan_json 1 frames "$FRAMES" 0 1)" >/dev/null
I2=$(instance_of 1)
[ "$I2" != "$I1" ] || fail "the new channel has the old one's instance $I1"
start_sink sink-new --endpoint "$(ep 1)" --seed 62 --frame-bits 1024 --instance "$I2" --until-eos \
	--timeout 30000
run_feed feed-new 30 --endpoint "$(ep 0)" --seed 62 --code "$FEEDCODE" --frames 10 --frame-bits 1024 --ebn0 7
check_sink sink-new 40
expect_eq "$(sink_field sink-new frames)" 10 "new channel: frames checked"
expect_eq "$(sink_field sink-new bit_errors)" 0 "new channel: bit errors"
expect_eq "$(sink_field sink-new stale)" 20 "new channel: the deleted channel's frames, stale"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
