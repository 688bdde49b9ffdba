#!/bin/bash
# Integration ab: nbldpc (GF(64) LDPC) frames, one per native message, from the BeiDou matrices
# in ../shared/codes through the codes_dir setting:
#  1. bds-b2a (96,48) by preset with layered min-max truncated to nm=16, int8 input: 100 frames
#     at 4 dB, every one decoded and verified against the feed's seed, the counters in step.
#  2. bds-b1c-sf2 (200,100) with FFT-BP and float32 input (in=f32): the same.
#  3. bds-b1c-sf2 with the trellis min-sum (algo=tms, dev2=5: the bench's setting), int8 input:
#     the same (on a GPU daemon its layered kernel on chip).
#  4. codes.list names the family and its presets.
# Skips where ../shared/codes is absent.
. "$(dirname "$0")/lib.sh"

CODES=${FECD_CODES_DIR:-}
for f in BDS_B2A_96_48_GF64.alist BDS_B1C_200_100_GF64.alist; do
	[ -n "$CODES" ] && [ -f "$CODES/$f" ] ||
		skip "no $f in ${CODES:-../shared/codes (FECD_CODES_DIR is not set)}"
done

IT_GLOBALS="\"codes_dir\": \"$CODES\", "
write_config \
	"$(chan_json 1 b2a '{"preset": "bds-b2a", "algo": "min-max", "nm": 16}' 0 1)" \
	"$(chan_json 2 sf2 '{"preset": "bds-b1c-sf2", "in": "f32"}' 2 3)" \
	"$(chan_json 3 tms '{"preset": "bds-b1c-sf2", "algo": "tms", "dev2": 5}' 4 5)"
unset FECD_CODES_DIR # the daemon must find the codes through codes_dir alone
start_fecd
export FECD_CODES_DIR=$CODES # the feed's encoder reads them from there

# name channel in-port out-port frames k code [feed options...]
run_case() {
	frames_case "$1" "$2" "$3" "$4" "$5" "$6" "$7" $((300 + $2)) frame-bits "${@:8}"
}

# --- 1 and 2: 6 bits per GF(64) symbol, so 48 and 100 symbols carry 288 and 600 bits.
run_case b2a 1 0 1 100 288 bds-b2a,algo=min-max,nm=16 --ebn0 4
expect_eq "$(chan_stat 1 symbols_in)" $((100 * 576)) "b2a symbols_in"
run_case sf2 2 2 3 100 600 bds-b1c-sf2,in=f32 --ebn0 4
# --- 3: tms, the family's reduced-complexity decoder.
run_case tms 3 4 5 100 600 bds-b1c-sf2,algo=tms,dev2=5 --ebn0 4

# --- 4: the family and its presets in codes.list.
list=$(ctl codes.list) || fail "codes.list"
for name in '"nbldpc"' '"bds-b1c-sf2"' '"bds-b1c-sf3"' '"bds-b2a"' '"bds-b2b"' '"nb60-gf64"'; do
	grep -q "$name" <<<"$list" || fail "codes.list lacks $name"
done
log "codes.list: ok"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
