#!/bin/bash
# Integration ac: ids frames through the daemon on the CPU, one frame of varying received length
# per native message (the header's frame_len; fecd-feed's bsid channel model makes the
# insertions and deletions), both channels publishing soft output (output.soft: q
# log-probabilities per information symbol), which fecd-sink --code checks in every frame (each
# symbol's sum to 1, the most probable is its decoded bits):
#  1. dm-ldpc (a watermark inner code under a GF(16) LDPC code) by preset: 40 frames through
#     insertions and deletions at pi = pd = 0.01, every one decoded and verified against the
#     feed's seed, the frames' lengths varying (symbols_in is not 40 times 3000).
#  2. tvb-fig17 (the seed's Fig. 17 code alone): 10 frames without edits, decoded exactly.
#  3. A live channel change: pi and pd of the dm-ldpc channel raised to 0.03 by channel.update;
#     the next 20 frames, through that channel, decoded with generation 2.
#  4. Bad input: frames longer than the code's longest (tvb-fig17's into the dm-ldpc channel)
#     dropped and counted; bad parameters refused naming what was wrong (pi + pd >= 1, q not a
#     power of two, 2^n < q, an outer code over another field); codes.list names the family.
#  5. fecd-sink's symbol check can fail: it-craft sends an ids frame whose soft symbols agree,
#     and one where a symbol favours another value than its bits and another sums to 2.
. "$(dirname "$0")/lib.sh"

write_config \
	"$(chan_json 1 dm '{"preset": "dm-ldpc"}' 0 1 '' ', "soft": true')" \
	"$(chan_json 2 tvb '{"preset": "tvb-fig17"}' 2 3 '' ', "soft": true')"
start_fecd

# name channel in-port out-port frames k q code [feed options...]: k information bits a frame,
# q soft values per symbol of log2 q bits
run_case() {
	local name=$1 ch=$2 inp=$3 outp=$4 nf=$5 k=$6 q=$7 code=$8
	shift 8
	local before
	before=$(chan_stat "$ch" frames_out)
	start_sink "sink-$name" --endpoint "$(ep "$outp")" --seed $((700 + ch)) --code "$code" \
		--expect-frames "$nf" --timeout 60000
	run_feed "feed-$name" 90 --endpoint "$(ep "$inp")" --channel "$ch" --seed $((700 + ch)) \
		--code "$code" --frames "$nf" --noiseless "$@"
	check_sink "sink-$name" 70
	expect_frames_ok "$name" "$ch" "$nf" "$k" "$before"
	local p=0
	while [ $((1 << p)) -lt "$q" ]; do p=$((p + 1)); done
	expect_eq "$(sink_field "sink-$name" soft.messages)" "$nf" "$name soft messages"
	expect_eq "$(sink_field "sink-$name" soft.values)" $((nf * k / p * q)) "$name soft values"
	expect_eq "$(sink_field "sink-$name" soft.size_errors)" 0 "$name soft size errors"
	expect_eq "$(sink_field "sink-$name" soft.sign_errors)" 0 "$name soft symbols against bits"
}

# --- 1: 250 information symbols of GF(16) (1000 bits) in 500 codewords of 6 bits.
run_case dm 1 0 1 40 1000 16 dm-ldpc --channel-model bsid,pi=0.01,pd=0.01
syms=$(chan_stat 1 symbols_in)
[ "$syms" != $((40 * 3000)) ] || fail "every frame arrived 3000 symbols long: no insertions or deletions"
log "dm: $syms symbols in 40 frames"

# --- 2: 840 symbols of 4 bits in 8-bit codewords, no edits.
run_case tvb 2 2 3 10 3360 16 tvb-fig17 --channel-model bsid,pi=0,pd=0
expect_eq "$(chan_stat 2 symbols_in)" $((10 * 6720)) "tvb symbols_in"

# --- 3: the channel the decoder assumes, changed live.
u=$(ctl channel.update '{"id": 1, "code": {"preset": "dm-ldpc", "pi": 0.03, "pd": 0.03}}') ||
	fail "channel update"
expect_eq "$(jq_get code_gen <<<"$u")" 2 "update code_gen"
ctl channel.get '{"id": 1}' | jq_get config.code.pi | grep -qx 0.03 || fail "channel.get: pi is not 0.03"
run_case dm-03 1 0 1 20 1000 16 dm-ldpc --channel-model bsid,pi=0.03,pd=0.03
expect_eq "$(sink_field sink-dm-03 code_gens)" "[2]" "dm-03 code generation"

# --- 4: bad input.
errs=$(chan_stat 1 frame_errors)
outs=$(chan_stat 1 frames_out)
run_feed wrong 60 --endpoint "$(ep 0)" --channel 1 --seed 71 --code tvb-fig17 --frames 5 \
	--noiseless --channel-model bsid,pi=0,pd=0
wait_for 10 '[ "$(chan_stat 1 frame_errors)" = $((errs + 5)) ]' ||
	fail "frame_errors $(chan_stat 1 frame_errors), expected $((errs + 5))"
expect_eq "$(chan_stat 1 frames_out)" "$outs" "frames published from too long input"
ctl_err channel.update '{"id": 2, "code": {"preset": "tvb-fig17", "pi": 0.6, "pd": 0.5}}' 'pi \+ pd'
ctl_err channel.update '{"id": 2, "code": {"preset": "tvb-fig17", "q": 12}}' 'q: expected a power of two'
ctl_err channel.update '{"id": 2, "code": {"preset": "tvb-fig17", "n": 3}}' '2\^n must be at least q'
ctl_err channel.update '{"id": 1, "code": {"preset": "dm-ldpc", "outer": {"family": "nbldpc", "code": "regular", "q": 64, "n": 500}}}' \
	'outer: its field GF\(64\)'
fecd_alive || fail "fecd died on bad input"
list=$(ctl codes.list) || fail "codes.list"
for name in '"ids"' '"tvb-fig17"' '"dm-ldpc"'; do
	grep -q "$name" <<<"$list" || fail "codes.list lacks $name"
done

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"

# --- 5: soft symbols that disagree with their bits, or do not sum to 1 (16 symbols of GF(16)).
start_sink sink-craft --endpoint "$(ep 4)" --code ids,N=16,q=16,n=8 --timeout 3000
timeout 20 "$IT_CRAFT" "$(ep 4)" softsym:0 softsymbad:1 >"$IT_TMP/craft.log" 2>&1 ||
	fail "it-craft: $(cat "$IT_TMP/craft.log")"
wait_pid "$SINK_PID" 20 || fail "sink-craft did not end"
log "sink-craft: $(cat "$IT_TMP/sink-craft.json")"
[ "$WAIT_RC" -eq 1 ] || fail "sink-craft exited $WAIT_RC on wrong soft symbols; expected 1"
expect_eq "$(sink_field sink-craft soft.messages)" 2 "crafted messages with soft symbols"
expect_eq "$(sink_field sink-craft soft.size_errors)" 0 "crafted soft size errors"
expect_eq "$(sink_field sink-craft soft.sign_errors)" 2 "soft symbols against their bits"
grep -q "2 of 16 soft symbols disagree" "$IT_TMP/sink-craft.log" ||
	fail "no clear message: $(cat "$IT_TMP/sink-craft.log")"
log "PASS"
