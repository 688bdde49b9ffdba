#!/bin/bash
# Integration ad: the nbldpc family as a service, on the BeiDou matrices of ../shared/codes:
#  1. q-ary input and symbol soft output: bds-b1c-sf2 with in=f32v, fecd-feed sending f32v (64
#     log-probabilities per GF(64) symbol from its AWGN channel's bit LLRs), output.soft: every
#     message carries 64 log-posteriors per information symbol, which fecd-sink --code checks
#     (they sum to 1, the most probable value is the decoded symbol).
#  2. bit soft output: bds-b2a with soft=bit and truncated min-max, int8 input: one LLR per
#     information bit, signs checked against the decoded bits.
#  3. GNU Radio input: raw float32 items, one frame per message, input.gnuradio.frame_len = 576.
#  4. a live code change: channel.update turns channel 2 into bds-b1c-sf3 between frames; the
#     next frames decode with the new code (code generation 2, 264 bits, soft values to match).
#  5. codes.list names the generated presets of the seed's sizes (gf64-5040 ...).
#  6. fecd-feed --binary-image writes a code's binary image as an alist.
# Skips where ../shared/codes is absent.
. "$(dirname "$0")/lib.sh"

CODES=${FECD_CODES_DIR:-}
for f in BDS_B2A_96_48_GF64.alist BDS_B1C_200_100_GF64.alist BDS_B1C_88_44_GF64.alist; do
	[ -n "$CODES" ] && [ -f "$CODES/$f" ] ||
		skip "no $f in ${CODES:-../shared/codes (FECD_CODES_DIR is not set)}"
done

IT_GLOBALS="\"codes_dir\": \"$CODES\", "
write_config \
	"$(chan_json 1 sym '{"preset": "bds-b1c-sf2", "in": "f32v"}' 0 1 '' ', "soft": true')" \
	"$(chan_json 2 bit '{"preset": "bds-b2a", "soft": "bit", "algo": "min-max", "nm": 16}' 2 3 '' \
		', "soft": true')" \
	"$(chan_json 3 gr '{"preset": "bds-b2a"}' 4 5 \
		', "protocol": "gnuradio", "gnuradio": {"format": "f32", "tags": "off", "frame_len": 576}')"
start_fecd

# name channel in-port out-port frames k code soft-values-per-frame [feed options...]: the sink
# checks bits against the feed's seed (frames that failed to converge may hold errors) and the
# soft values against the code (--code); the feed sends frames of code.
run_case() {
	local name=$1 ch=$2 inp=$3 outp=$4 nf=$5 k=$6 code=$7 soft=$8
	shift 8
	start_sink "sink-$name" --endpoint "$(ep "$outp")" --seed $((500 + ch)) --code "$code" \
		--expect-frames "$nf" --max-ber 0.5 --timeout 30000
	run_feed "feed-$name" 60 --endpoint "$(ep "$inp")" --channel "$ch" --seed $((500 + ch)) \
		--code "$code" --frames "$nf" "$@"
	check_sink "sink-$name" 40
	expect_eq "$(sink_field "sink-$name" frames)" "$nf" "$name frames received"
	expect_eq "$(sink_field "sink-$name" lost_frames)" 0 "$name lost frames"
	expect_eq "$(sink_field "sink-$name" bits)" $((nf * k)) "$name bits"
	expect_eq "$(sink_field "sink-$name" soft.messages)" "$((soft ? nf : 0))" "$name soft messages"
	expect_eq "$(sink_field "sink-$name" soft.values)" $((nf * soft)) "$name soft values"
	expect_eq "$(sink_field "sink-$name" soft.size_errors)" 0 "$name soft size errors"
	expect_eq "$(sink_field "sink-$name" soft.sign_errors)" 0 "$name soft values off their bits"
	expect_eq "$(chan_stat "$ch" bad_msgs)" 0 "$name stats bad_msgs"
	log "$name: ok ($(sink_field "sink-$name" status.decoded) of $nf decoded," \
		"$(sink_field "sink-$name" bit_errors) bit errors)"
}

# --- 1: 100 information symbols of 64 log-posteriors; the feed sends 200 f32v symbols a frame.
# At 2 dB a few frames may fail: their symbols are checked all the same.
run_case sym 1 0 1 60 600 bds-b1c-sf2,in=f32v $((100 * 64)) --ebn0 2
expect_eq "$(chan_stat 1 symbols_in)" $((60 * 200)) "sym symbols_in (q-ary symbols)"
expect_eq "$(chan_stat 1 bytes_in)" $((60 * 200 * 64 * 4)) "sym bytes_in (f32v)"
[ "$(sink_field sink-sym status.decoded)" -ge 50 ] || fail "sym: fewer than 50 of 60 frames decoded"

# --- 2: an LLR per information bit.
run_case bit 2 2 3 60 288 bds-b2a,soft=bit,algo=min-max,nm=16 288 --ebn0 3
[ "$(sink_field sink-bit status.decoded)" -ge 50 ] || fail "bit: fewer than 50 of 60 frames decoded"

# --- 3: GNU Radio items: 576 float32 LLRs a frame, frame_len from the channel's settings.
run_case gr 3 4 5 50 288 bds-b2a 0 --gnuradio --format f32 --ebn0 4
expect_eq "$(sink_field sink-gr status.decoded)" 50 "gr frames decoded"
expect_eq "$(chan_stat 3 symbols_in)" $((50 * 576)) "gr symbols_in"

# --- 4: channel 2 becomes B1C subframe 3 (88,44): 264 information bits a frame.
u=$(ctl channel.update '{"id": 2, "code": {"preset": "bds-b1c-sf3", "soft": "bit", "algo": "min-max", "nm": 16}}') ||
	fail "code update"
expect_eq "$(jq_get code_gen <<<"$u")" 2 "code update code_gen"
ctl channel.get '{"id": 2}' | jq_get config.code.code | grep -qx BDS_B1C_88_44_GF64.alist ||
	fail "channel.get: the code is not bds-b1c-sf3"
run_case sf3 2 2 3 60 264 bds-b1c-sf3,soft=bit,algo=min-max,nm=16 264 --ebn0 3
expect_eq "$(sink_field sink-sf3 code_gens)" "[2]" "sf3 code generation"

# --- 5: codes.list: the generated presets of the seed's sizes.
list=$(ctl codes.list) || fail "codes.list"
for name in '"gf8-5040"' '"gf16-5040"' '"gf32-5040"' '"gf64-5040"' '"gf256-5040"'; do
	grep -q "$name" <<<"$list" || fail "codes.list lacks $name"
done
log "codes.list: ok"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"

# --- 6: fecd-feed --binary-image writes the (600 x 1200)-bit image of B1C subframe 2 as an alist
# (test_nbldpc_image decodes such files through the ldpc family); other families are refused.
FECD_CODES_DIR=$CODES "$FEED" --code bds-b1c-sf2 --binary-image "$IT_TMP/img.alist" \
	>"$IT_TMP/img.log" 2>&1 || fail "--binary-image: $(cat "$IT_TMP/img.log")"
expect_eq "$(head -n 1 "$IT_TMP/img.alist")" "1200 600" "image alist: N M"
expect_eq "$(wc -l <"$IT_TMP/img.alist")" $((4 + 1200 + 600)) "image alist: lines"
case $(cat "$IT_TMP/img.log") in *"note:"*) fail "B1C's image: $(cat "$IT_TMP/img.log")" ;; esac
# A generated code too large for the ldpc encoder to keep its information first is told apart.
"$FEED" --code nbldpc,code=regular,q=64,n=6000,dv=2,dc=4,seed=1 \
	--binary-image "$IT_TMP/big.alist" >"$IT_TMP/big.log" 2>&1 ||
	fail "--binary-image n=6000: $(cat "$IT_TMP/big.log")"
case $(cat "$IT_TMP/big.log") in
*"information bits on it are not nbldpc's"*) ;;
*) fail "n=6000 image without the note: $(cat "$IT_TMP/big.log")" ;;
esac
out=$("$FEED" --code ccsds --binary-image "$IT_TMP/no.alist" 2>&1) &&
	fail "--binary-image of a convolutional code was accepted"
case $out in *"is no nbldpc code"*) ;; *) fail "message: $out" ;; esac
log "PASS"
