#!/bin/bash
# Integration am: a live code change between LDPC codes of different k, as a user makes it: a
# channel.update at_seq, fecd-sink --until-eos started first, fecd-feed --switch SEQ:CODE. The
# feed's frames carry the new code's k bits from the switch on, fecd-sink takes the new length
# from the first frame of the new code generation, and every frame of both codes is verified
# against the seed: none lost, none wrong, the bit total the feed's, which channel.get's k of
# either code (info.k, with where the bits sit: info.layout ranges) must add up to. Two runs, k growing
# (WiMAX (576,288) to MacKay (1008,504)) and shrinking again; where ../shared/codes is absent,
# generated regular codes of n 576 and 1008 stand in for them.
. "$(dirname "$0")/lib.sh"

CODES=${FECD_CODES_DIR:-}
if [ -n "$CODES" ] && [ -f "$CODES/WIMAX_288_576.alist" ] && [ -f "$CODES/MACKAY_504_1008.alist" ]; then
	A_JSON='{"preset": "wimax-576"}' A_TEXT=wimax-576
	B_JSON='{"family": "ldpc", "code": "MACKAY_504_1008.alist"}'
	B_TEXT=ldpc,code=MACKAY_504_1008.alist
	IT_GLOBALS="\"codes_dir\": \"$CODES\", "
else
	log "no WiMAX or MacKay matrices: generated regular codes instead"
	A_JSON='{"family": "ldpc", "code": "regular", "n": 576, "dv": 3, "dc": 6}'
	A_TEXT=ldpc,code=regular,n=576,dv=3,dc=6
	B_JSON='{"family": "ldpc", "code": "regular", "n": 1008, "dv": 3, "dc": 6}'
	B_TEXT=ldpc,code=regular,n=1008,dv=3,dc=6
fi
write_config "$(chan_json 1 sw "$A_JSON" 0 1)"
start_fecd

# name seed seq-start frames switch-seq to-json to-text first-text
run_case() {
	local name=$1 seed=$2 s0=$3 nf=$4 at=$5 to_json=$6 to_text=$7 first_text=$8
	start_sink "sink-$name" --endpoint "$(ep 1)" --seed "$seed" --seq-start "$s0" --until-eos \
		--timeout 60000
	local u
	u=$(ctl channel.update "{\"id\": 1, \"at_seq\": $at, \"code\": $to_json}")
	log "$name: update: $u"
	run_feed "feed-$name" 120 --endpoint "$(ep 0)" --channel 1 --seed "$seed" \
		--seq-start "$s0" --code "$first_text" --frames "$nf" --ebn0 8 --switch "$at:$to_text"
	check_sink "sink-$name" 60
	grep -q "puncturing" "$IT_TMP/feed-$name.log" && fail "$name: $(cat "$IT_TMP/feed-$name.log")"
	expect_eq "$(sink_field "sink-$name" frames)" "$nf" "$name frames received"
	expect_eq "$(sink_field "sink-$name" lost_frames)" 0 "$name lost frames"
	expect_eq "$(sink_field "sink-$name" bit_errors)" 0 "$name bit errors"
	expect_eq "$(sink_field "sink-$name" status.decoded)" "$nf" "$name frames decoded"
	expect_eq "$(sink_field "sink-$name" sender_end)" 1 "$name the sender's end"
	expect_eq "$(sink_field "sink-$name" frame_len_changes)" 1 "$name frame length changes"
	expect_eq "$(sink_field "sink-$name" frame_errors)" 0 "$name frame errors"
	# every bit the feed sent, of both codes, was checked
	expect_eq "$(sink_field "sink-$name" bits)" "$(feed_field "feed-$name" bits)" "$name bits"
	expect_eq "$(feed_field "feed-$name" frames)" "$nf" "$name frames sent"
	wait_for 10 '[ "$(chan_stat 1 queue_syms)" = 0 ]' || fail "$name: symbols left queued"
	log "$name: ok ($(grep 'frames of' "$IT_TMP/sink-$name.log" | tr '\n' ' '))"
}

# channel.get's info for the code in force (and after an update, the new one's): k, ranges.
info=$(ctl channel.get '{"id": 1}' | jq_get info) || fail "channel.get info"
log "channel.get info: $info"
KA=$(jq_get k <<<"$info")
expect_eq "$(jq_get layout <<<"$info")" ranges "code A info.layout"
expect_eq "$(jq_get frame_syms <<<"$info")" 576 "code A info.frame_syms"
expect_eq "$(jq_get ranges.0.0 <<<"$info")" 0 "code A's first information symbol"

# --- 1: k grows at message 60.
run_case grow 401 0 120 60 "$B_JSON" "$B_TEXT" "$A_TEXT"
expect_eq "$(sink_field sink-grow code_gens)" "[1,2]" "grow code generations"
info=$(ctl channel.get '{"id": 1}' | jq_get info) || fail "channel.get info"
log "channel.get info: $info"
KB=$(jq_get k <<<"$info")
expect_eq "$(jq_get frame_syms <<<"$info")" 1008 "code B info.frame_syms"
[ "$KA" -ne "$KB" ] || fail "codes A and B have the same k ($KA)"
expect_eq "$(feed_field feed-grow bits)" $((60 * KA + 60 * KB)) "grow bits against channel.get's k"
# --- 2: k shrinks again, in a second run whose sequence numbers continue above the first's.
run_case shrink 402 1000 120 1050 "$A_JSON" "$A_TEXT" "$B_TEXT"
expect_eq "$(sink_field sink-shrink code_gens)" "[2,3]" "shrink code generations"
expect_eq "$(feed_field feed-shrink bits)" $((50 * KB + 70 * KA)) "shrink bits against channel.get's k"
expect_eq "$(ctl channel.get '{"id": 1}' | jq_get info.k)" "$KA" "code A's k again"

st=$(ctl stats.get '{"id": 1}') || fail "stats.get"
expect_eq "$(jq_get frame_errors <<<"$st")" 0 "stats frame_errors"
expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "stats bad_msgs"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
