#!/bin/bash
# Integration l: LDPC frames, one per native message. The codes are the public matrices in
# ../shared/codes, found through the codes_dir setting (the daemon runs without FECD_CODES_DIR):
#  1. WiMAX (576,288) by preset, normalized min-sum layered: 200 frames at 6 dB, every one
#     decoded and verified against the feed's seed, the daemon's counters in step.
#  2. A live algorithm change (sum-product, flooding) at a sender sequence number while a paced
#     feed runs: frames before it decoded with generation 1, from it with 2, none lost or wrong.
#  3. A live code change to MacKay (1008,504) by relative file name: the next run's frames are
#     1008 symbols and carry 504 bits, decoded with generation 3.
#  4. Float32 input (in=f32) on offset min-sum flooding: f32 and s8 wire formats into float slots.
# Skips where ../shared/codes is absent.
. "$(dirname "$0")/lib.sh"

CODES=${FECD_CODES_DIR:-}
for f in WIMAX_288_576.alist MACKAY_504_1008.alist; do
	[ -n "$CODES" ] && [ -f "$CODES/$f" ] ||
		skip "no $f in ${CODES:-../shared/codes (FECD_CODES_DIR is not set)}"
done

IT_GLOBALS="\"codes_dir\": \"$CODES\", "
write_config \
	"$(chan_json 1 wimax '{"preset": "wimax-576"}' 0 1)" \
	"$(chan_json 2 mackayf '{"family": "ldpc", "code": "MACKAY_504_1008.alist", "algo": "oms", "schedule": "flooding", "in": "f32"}' 2 3)"
unset FECD_CODES_DIR # the daemon must find the codes through codes_dir alone
start_fecd
export FECD_CODES_DIR=$CODES # the feed's encoder reads them from there
expect_eq "$(ctl config.get | jq_get codes_dir)" "$CODES" "config.get codes_dir"

# name channel in-port out-port frames k code [feed options...]
run_case() {
	frames_case "$1" "$2" "$3" "$4" "$5" "$6" "$7" $((300 + $2)) frame-bits "${@:8}"
}

# --- 1: WiMAX by preset.
run_case wimax 1 0 1 200 288 wimax-576 --ebn0 6
expect_eq "$(chan_stat 1 symbols_in)" $((200 * 576)) "wimax symbols_in"

# --- 2: live algorithm change at a sender sequence number.
NF=300
AT=150
start_sink sink-algo --endpoint "$(ep 1)" --seed 311 --frame-bits 288 --expect-frames $NF \
	--timeout 30000
spawn feed-algo "$FEED" --endpoint "$(ep 0)" --channel 1 --seed 311 --code wimax-576 \
	--frames $NF --ebn0 6 --rate 60000
FEED_PID=$LAST_PID
wait_for 20 '[ "$(chan_stat 1 msgs_in 2>/dev/null || echo 0)" -ge 220 ]' || fail "algo: no data flowing"
u=$(ctl channel.update "{\"id\": 1, \"at_seq\": $AT, \"code\": {\"preset\": \"wimax-576\", \"algo\": \"spa\", \"schedule\": \"flooding\"}}") ||
	fail "algorithm update"
log "update: $u"
seen=$(($(chan_stat 1 msgs_in) - 200))
[ "$seen" -lt $AT ] || fail "algo: the update came after message $AT had arrived ($seen); slow the feed"
wait_pid "$FEED_PID" 60 || fail "algo feed still running"
[ "$WAIT_RC" -eq 0 ] || fail "algo feed failed: $(cat "$IT_TMP/feed-algo.log")"
check_sink sink-algo 30
expect_eq "$(sink_field sink-algo frames)" $NF "algo frames"
expect_eq "$(sink_field sink-algo bit_errors)" 0 "algo bit errors"
expect_eq "$(sink_field sink-algo lost_frames)" 0 "algo lost frames"
expect_eq "$(sink_field sink-algo code_gens)" "[1,2]" "algo code generations"
expect_eq "$(sink_field sink-algo code_changed)" 1 "algo CODE_CHANGED outputs"
ctl channel.get '{"id": 1}' | jq_get config.code.algo | grep -qx spa || fail "channel.get: algo is not spa"

# --- 3: live code change to another file; the next run is MacKay (1008,504).
u=$(ctl channel.update '{"id": 1, "code": {"family": "ldpc", "code": "MACKAY_504_1008.alist"}}') ||
	fail "code update"
expect_eq "$(jq_get code_gen <<<"$u")" 3 "code update code_gen"
run_case mackay 1 0 1 100 504 "ldpc,code=MACKAY_504_1008.alist" --ebn0 5
expect_eq "$(sink_field sink-mackay code_gens)" "[3]" "mackay code generation"

# --- 4: float32 slots, from f32 and s8 wire formats (the code's llr_scale 8 = the feed's scale).
run_case f32 2 2 3 100 504 "ldpc,code=MACKAY_504_1008.alist" --ebn0 5 --format f32
run_case f32s8 2 2 3 100 504 "ldpc,code=MACKAY_504_1008.alist" --ebn0 5 --format s8 --scale 8

# Which backend decoded (on a GPU machine, the channels' GPU decoders and batch counts).
log "backend.info: $(ctl backend.info | tr -d '\n')"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
