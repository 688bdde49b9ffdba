#!/bin/bash
# Integration aa: fano frames through the daemon on the CPU, one frame per native message:
#  1. WSPR (K=32, 50-bit frames) by preset: 300 frames at 5 dB, every one decoded and verified
#     against the feed's seed (fecd-feed --code wspr, fecd-sink --code wspr), the counters in step.
#  2. The seed's WirelessHD K=7 r=1/3 code, decoded bidirectionally: 200 frames at 4 dB.
#  3. A live change of the decoder (wspr to bfa with another delta) between runs: the next frames
#     are decoded with the new generation, none lost or wrong; channel.get reads it back.
#  4. A live code change (whd-k7 to nasa-k32, K=32 r=1/2 in Karn's notation): the next run's
#     frames are 2110 symbols carrying 1024 bits, decoded with generation 2.
#  5. Bad input: frames of another code's length dropped and counted, nothing published; bad code
#     parameters refused with errors naming the parameter and its range (K=65, a polynomial
#     wider than K, five polynomials, a budget of 0), the channel's code left as it was.
. "$(dirname "$0")/lib.sh"

write_config \
	"$(chan_json 1 wspr '{"preset": "wspr"}' 0 1)" \
	"$(chan_json 2 whd '{"preset": "whd-k7", "algo": "bfa"}' 2 3)"
start_fecd

# name channel in-port out-port frames k code sink-code [feed options...]
run_case() {
	local name=$1 ch=$2 inp=$3 outp=$4 nf=$5 k=$6 code=$7
	shift 7
	local before
	before=$(chan_stat "$ch" frames_out)
	start_sink "sink-$name" --endpoint "$(ep "$outp")" --seed $((500 + ch)) --code "$code" \
		--expect-frames "$nf" --timeout 30000
	run_feed "feed-$name" 60 --endpoint "$(ep "$inp")" --channel "$ch" --seed $((500 + ch)) \
		--code "$code" --frames "$nf" "$@"
	check_sink "sink-$name" 40
	expect_eq "$(sink_field "sink-$name" frames)" "$nf" "$name frames received"
	expect_eq "$(sink_field "sink-$name" lost_frames)" 0 "$name lost frames"
	expect_eq "$(sink_field "sink-$name" bit_errors)" 0 "$name bit errors"
	expect_eq "$(sink_field "sink-$name" status.decoded)" "$nf" "$name frames decoded"
	expect_eq "$(sink_field "sink-$name" bits)" $((nf * k)) "$name bits"
	wait_for 10 '[ "$(chan_stat '"$ch"' queue_syms)" = 0 ]' || fail "$name: symbols left queued"
	st=$(ctl stats.get "{\"id\": $ch}") || fail "stats.get"
	expect_eq "$(jq_get frames_out <<<"$st")" $((before + nf)) "$name stats frames_out"
	expect_eq "$(jq_get frame_errors <<<"$st")" 0 "$name stats frame_errors"
	expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "$name stats bad_msgs"
	log "$name: ok"
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

# --- 5: bad input.
# ctl_err METHOD PARAMS PATTERN...: the call must fail with -32602 and a message matching every
# PATTERN (grep -E).
ctl_err() {
	local method=$1 params=$2 out
	shift 2
	if out=$(timeout 10 "$FECDCTL" --socket "$CTL_SOCK" "$method" "$params" 2>&1); then
		fail "$method $params succeeded: $out"
	fi
	log "refused as expected: $out"
	grep -q -- "-32602" <<<"$out" || fail "$method: expected error -32602, got: $out"
	for p in "$@"; do
		grep -Eq -- "$p" <<<"$out" || fail "$method: the error does not match '$p': $out"
	done
}
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

log "backend.info: $(ctl backend.info | tr -d '\n')"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
