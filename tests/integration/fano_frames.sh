#!/bin/bash
# Integration aa: fano frames through the daemon on the CPU, one frame per native message:
#  1. WSPR (K=32, 50-bit frames) by preset: 300 frames at 5 dB, every one decoded and verified
#     against the feed's seed (fecd-feed --code wspr, fecd-sink --code wspr), the counters in step.
#  2. The seed's WirelessHD K=7 r=1/3 code, decoded bidirectionally: 200 frames at 4 dB.
#  3. A live change of the decoder (wspr to bfa with another delta) between runs: the next frames
#     are decoded with the new generation, none lost or wrong; channel.get reads it back.
#  4. A live code change (whd-k7 to nasa-k32, K=32 r=1/2 in Karn's notation): the next run's
#     frames are 2110 symbols carrying 1024 bits, decoded with generation 2.
#  5. A live code change at a sender sequence number while a paced feed runs (wspr to the
#     Pioneer code with 50-bit frames, the feed switching its encoder at the same message): the
#     frames before it decoded with generation 2, from it with 3, at the frame boundary, none
#     lost or wrong.
#  6. Bad input: frames of another code's length dropped and counted, nothing published; bad code
#     parameters refused with errors naming the parameter and its range (K=65, a polynomial
#     wider than K, five polynomials, a budget of 0), the channel's code left as it was.
#  7. GNU Radio input (raw float32 items, no header, no frame flags) into a WSPR channel cut into
#     frames by input.gnuradio.frame_len = 162: every frame decoded and verified; a frame_len that is not the code's refused when the channel is
#     created, and a code change that would leave it wrong refused with the length expected.
. "$(dirname "$0")/lib.sh"

write_config \
	"$(chan_json 1 wspr '{"preset": "wspr"}' 0 1)" \
	"$(chan_json 2 whd '{"preset": "whd-k7", "algo": "bfa"}' 2 3)" \
	"$(chan_json 3 wsprgr '{"preset": "wspr"}' 4 5 \
		', "protocol": "gnuradio", "gnuradio": {"format": "f32", "tags": "off", "frame_len": 162}')"
start_fecd

# name channel in-port out-port frames k code [feed options...]; the sink takes the code
run_case() {
	frames_case "$1" "$2" "$3" "$4" "$5" "$6" "$7" $((500 + $2)) code "${@:8}"
}

# --- 1: WSPR by preset.
run_case wspr 1 0 1 300 50 wspr --ebn0 5
expect_eq "$(chan_stat 1 symbols_in)" $((300 * 162)) "wspr symbols_in"

# --- 2: WirelessHD K=7, BFA.
run_case whd 2 2 3 200 1024 whd-k7 --ebn0 4

# --- 3: a live decoder change on the WSPR channel.
u=$(ctl channel.update '{"id": 1, "code": {"preset": "wspr", "algo": "bfa", "delta": 48}}') ||
	fail "decoder update"
log "update: $u"
ctl channel.get '{"id": 1}' | jq_get config.code.algo | grep -qx bfa || fail "channel.get: algo is not bfa"
ctl channel.get '{"id": 1}' | jq_get config.code.delta | grep -qx 48 || fail "channel.get: delta is not 48"
run_case wspr-bfa 1 0 1 200 50 wspr --ebn0 5
expect_eq "$(sink_field sink-wspr-bfa code_gens)" "[2]" "wspr-bfa code generation"

# --- 4: a live code change on the WirelessHD channel.
u=$(ctl channel.update '{"id": 2, "code": {"preset": "nasa-k32"}}') || fail "code update"
expect_eq "$(jq_get code_gen <<<"$u")" 2 "code update code_gen"
run_case nasa 2 2 3 100 1024 nasa-k32 --ebn0 4
expect_eq "$(sink_field sink-nasa code_gens)" "[2]" "nasa code generation"

# --- 5: a live code change at a sender sequence number, at a frame boundary (one frame per
# message: sequence number = frame). 40 frames a second; the update goes in after 10 have arrived,
# 2 s before frame AT is sent.
NF=200
AT=100
before=$(chan_stat 1 msgs_in)
start_sink sink-switch --endpoint "$(ep 1)" --seed 531 --code wspr --expect-frames $NF \
	--timeout 30000
spawn feed-switch "$FEED" --endpoint "$(ep 0)" --channel 1 --seed 531 --code wspr --frames $NF \
	--ebn0 5 --rate 6480 --switch "$AT:nasa-k32,frame_bits=50"
FEED_PID=$LAST_PID
wait_for 20 '[ "$(chan_stat 1 msgs_in 2>/dev/null || echo 0)" -ge $((before + 10)) ]' ||
	fail "switch: no data flowing"
u=$(ctl channel.update "{\"id\": 1, \"at_seq\": $AT, \"code\": {\"preset\": \"nasa-k32\", \"frame_bits\": 50, \"algo\": \"bfa\"}}") ||
	fail "switch update"
log "update: $u"
seen=$(($(chan_stat 1 msgs_in) - before))
[ "$seen" -lt $AT ] || fail "switch: the update came after message $AT had arrived ($seen); slow the feed"
expect_eq "$(jq_get code_gen <<<"$u")" 3 "switch code_gen"
wait_pid "$FEED_PID" 60 || fail "switch feed still running"
[ "$WAIT_RC" -eq 0 ] || fail "switch feed failed: $(cat "$IT_TMP/feed-switch.log")"
check_sink sink-switch 30
expect_eq "$(sink_field sink-switch frames)" $NF "switch frames"
expect_eq "$(sink_field sink-switch lost_frames)" 0 "switch lost frames"
expect_eq "$(sink_field sink-switch bit_errors)" 0 "switch bit errors"
expect_eq "$(sink_field sink-switch status.decoded)" $NF "switch frames decoded"
expect_eq "$(sink_field sink-switch code_gens)" "[2,3]" "switch code generations"
expect_eq "$(sink_field sink-switch code_changed)" 1 "switch CODE_CHANGED outputs"
ctl channel.get '{"id": 1}' | jq_get config.code.polys_karn | grep -q bbef6bb7 ||
	fail "channel.get: the code is not the Pioneer code"

# --- 6: bad input.
errs=$(chan_stat 1 frame_errors)
outs=$(chan_stat 1 frames_out)
run_feed wrong 30 --endpoint "$(ep 0)" --channel 1 --seed 71 --code whd-k7 --frames 20 --ebn0 6
wait_for 10 '[ "$(chan_stat 1 frame_errors)" = $((errs + 20)) ]' ||
	fail "frame_errors $(chan_stat 1 frame_errors), expected $((errs + 20))"
expect_eq "$(chan_stat 1 frames_out)" "$outs" "frames published from wrong-length input"
grep -q "frame_len 3090; this code's frames are 162 symbols" "$IT_TMP/fecd.log" ||
	fail "no log line naming the wrong frame_len"
ctl_err channel.update '{"id": 1, "code": {"preset": "wspr", "k": 65}}' 'params\.code\.k' '3\.\.64'
ctl_err channel.update '{"id": 1, "code": {"family": "fano", "k": 7, "polys": ["377", "133"]}}' \
	'polys' 'wider than k=7' '3\.\.64'
ctl_err channel.update '{"id": 1, "code": {"family": "fano", "polys": ["133", "171", "165", "117", "127"]}}' \
	'params\.code\.polys: expected an array of 2\.\.4 octal numbers'
ctl_err channel.update '{"id": 1, "code": {"preset": "wspr", "cycles": 0}}' \
	'params\.code\.cycles' '1\.\.65000'
ctl channel.get '{"id": 1}' | jq_get config.code.algo | grep -qx bfa || fail "a refused update changed the code"
fecd_alive || fail "fecd died on bad input"

# --- 7: GNU Radio raw items cut into frames by frame_len.
start_sink sink-gr --endpoint "$(ep 5)" --seed 503 --code wspr --frame-index count \
	--expect-frames 150 --timeout 30000
run_feed feed-gr 60 --endpoint "$(ep 4)" --gnuradio --format f32 --seed 503 --code wspr \
	--frames 150 --ebn0 5
check_sink sink-gr 40
expect_eq "$(sink_field sink-gr frames)" 150 "gnuradio frames received"
expect_eq "$(sink_field sink-gr lost_frames)" 0 "gnuradio lost frames"
expect_eq "$(sink_field sink-gr bit_errors)" 0 "gnuradio bit errors"
expect_eq "$(sink_field sink-gr status.decoded)" 150 "gnuradio frames decoded"
wait_for 10 '[ "$(chan_stat 3 queue_syms)" = 0 ]' || fail "gnuradio: symbols left queued"
st=$(ctl stats.get '{"id": 3}') || fail "stats.get"
expect_eq "$(jq_get symbols_in <<<"$st")" $((150 * 162)) "gnuradio symbols_in"
expect_eq "$(jq_get frames_out <<<"$st")" 150 "gnuradio frames_out"
expect_eq "$(jq_get frame_errors <<<"$st")" 0 "gnuradio frame_errors"
expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "gnuradio bad_msgs"
gr_chan() { # id frame_len
	chan_json "$1" "gr$1" '{"preset": "wspr"}' 6 7 \
		', "protocol": "gnuradio", "gnuradio": {"format": "f32", "frame_len": '"$2"'}'
}
if out=$(timeout 10 "$FECDCTL" --socket "$CTL_SOCK" channel.create "$(gr_chan 4 160)" 2>&1); then
	fail "a frame_len of 160 for 162-symbol frames was accepted: $out"
fi
log "refused as expected: $out"
grep -q "input.gnuradio.frame_len: expected 162 (the symbols in one frame of this code), got 160" \
	<<<"$out" || fail "channel.create: the error does not name frame_len and 162: $out"
if out=$(timeout 10 "$FECDCTL" --socket "$CTL_SOCK" channel.update \
	'{"id": 3, "code": {"preset": "whd-k7"}}' 2>&1); then
	fail "a code of 3090-symbol frames was accepted with frame_len 162: $out"
fi
log "refused as expected: $out"
grep -q "frame_len: expected 3090" <<<"$out" || fail "channel.update: the error does not say 3090: $out"
ctl channel.get '{"id": 3}' | jq_get config.code.polys_karn | grep -q f2d05351 ||
	fail "a refused update changed the GNU Radio channel's code"
fecd_alive || fail "fecd died"

log "backend.info: $(ctl backend.info | tr -d '\n')"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
