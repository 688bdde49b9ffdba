#!/bin/bash
# Integration n: bad input to LDPC channels, none of which may stop the daemon.
#  1. Frames of the wrong length (MacKay 1008-symbol frames into a WiMAX 576 channel): each one
#     dropped and counted (frame_errors), nothing published; then good frames still decode.
#  2. channel.create with a malformed alist file: a JSON-RPC error that names the file and the
#     line; with a file that does not exist: one that names the path looked at (codes_dir).
#     The codes folder is a temporary one holding a copy of the WiMAX matrix and the bad file
#     (the default codes_paths reads no file outside it; code_paths.sh tests that).
#  3. Bad code parameters in channel.create and channel.update: errors naming the parameter and
#     what was expected; a refused update leaves the channel's code as it was.
# Skips where ../shared/codes is absent.
. "$(dirname "$0")/lib.sh"

CODES=${FECD_CODES_DIR:-}
for f in WIMAX_288_576.alist MACKAY_504_1008.alist; do
	[ -n "$CODES" ] && [ -f "$CODES/$f" ] ||
		skip "no $f in ${CODES:-../shared/codes (FECD_CODES_DIR is not set)}"
done

mkdir "$IT_TMP/codes" && cp "$CODES/WIMAX_288_576.alist" "$IT_TMP/codes/" ||
	fail "cannot make the codes folder"
IT_GLOBALS="\"codes_dir\": \"$IT_TMP/codes\", "
write_config "$(chan_json 1 wimax '{"preset": "wimax-576"}' 0 1)"
start_fecd

# --- 1: wrong frame length.
run_feed wrong 30 --endpoint "$(ep 0)" --channel 1 --seed 61 --code mackay-1008 --frames 20 --ebn0 6
wait_for 10 '[ "$(chan_stat 1 frame_errors)" = 20 ]' ||
	fail "frame_errors $(chan_stat 1 frame_errors), expected 20"
expect_eq "$(chan_stat 1 frames_out)" 0 "frames published from wrong-length input"
grep -q "frame_len 1008; this code's frames are 576 symbols" "$IT_TMP/fecd.log" ||
	fail "no log line naming the wrong frame_len"
start_sink sink --endpoint "$(ep 1)" --seed 62 --frame-bits 288 --expect-frames 50 --timeout 30000
run_feed good 30 --endpoint "$(ep 0)" --channel 1 --seed 62 --code wimax-576 --frames 50 --ebn0 6
check_sink sink 30
expect_eq "$(sink_field sink bit_errors)" 0 "good frames after bad: bit errors"
expect_eq "$(chan_stat 1 frame_errors)" 20 "frame_errors after the good run"

# --- 2: code files.
printf '# a made-up code\n4 2\n2 4\n1 1 1 1\n2 2\n1 x\n' >"$IT_TMP/codes/bad.alist"
CH='"input": {"endpoint": "'$(ep 4)'"}, "output": {"endpoint": "'$(ep 5)'"}'
ctl_err channel.create '{"id": 9, "code": {"family": "ldpc", "code": "bad.alist"}, '"$CH"'}' \
	'params\.code' 'bad\.alist:6: expected a number, found a word'
ctl_err channel.create '{"id": 9, "code": {"family": "ldpc", "code": "no-such-code.alist"}, '"$CH"'}' \
	"$IT_TMP/codes/no-such-code.alist"
# --- 3: parameters.
ctl_err channel.create '{"id": 9, "code": {"preset": "wimax-576", "algo": "bp"}, '"$CH"'}' \
	'params\.code\.algo' '"nms"'
ctl_err channel.create '{"id": 9, "code": {"preset": "wimax-576", "iters": 0}, '"$CH"'}' \
	'params\.code\.iters' '1\.\.1000'
ctl_err channel.create '{"id": 9, "code": {"preset": "wimax-576", "framing": "asm", "asm": "1ACFZC1D"}, '"$CH"'}' \
	'params\.code\.asm' 'hex'
ctl_err channel.create '{"id": 9, "code": {"preset": "wimax-576", "asm_threshold": 1.5}, '"$CH"'}' \
	'params\.code\.asm_threshold' '0\.\.1'
ctl_err channel.update '{"id": 1, "code": {"family": "ldpc", "code": "bad.alist"}}' \
	'bad\.alist:6'
expect_eq "$(chan_stat 1 code_gen)" 1 "code_gen after refused updates"
ctl channel.get '{"id": 1}' | jq_get config.code.code | grep -qx WIMAX_288_576.alist ||
	fail "the refused update changed the code"
ctl channel.list | "$IT_JSONQ" channels.1 >/dev/null 2>&1 && fail "a refused channel.create left a channel"

fecd_alive || fail "fecd died on bad input"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
