#!/bin/bash
# Integration ad: fecd-sink's verdict means what it says (issue 19's first item).
#  1. What the user did: LDPC frames (a generated (576,288) code, no files needed) through fecd,
#     and fecd-sink without --frame-bits or --code. The frame length (288) comes from the first
#     frame's header, so every bit is checked where it belongs: no bit error at 6 dB (before: 1024
#     bits a frame assumed, BER 1 or above).
#  2. The same at 1 dB, where frames fail: BER and FER stay within 0..1, and the frame errors are
#     the frames with a wrong bit plus those not converged with every bit right.
#  3. Hand-made outputs (it-craft) against an all-zero --input: a not-converged frame whose bits
#     are right is a frame error "status only"; a frame shorter than the feed's counts every bit
#     of the longer as wrong and checked (BER exactly 1 for it, never above); --until-eos stops at
#     the sender's END_OF_STREAM only.
. "$(dirname "$0")/lib.sh"

[ -n "${IT_CRAFT:-}" ] || fail "IT_CRAFT is not set (run the tests through ctest)"

CODE='{"family": "ldpc", "code": "regular", "n": 576, "dv": 3, "dc": 6, "seed": 1}'
FEEDCODE="ldpc,code=regular,n=576,dv=3,dc=6,seed=1"
write_config "$(chan_json 1 ldpc "$CODE" 0 1)"
start_fecd

# --- 1: frame lengths from the header.
NF=40
start_sink sink-hdr --endpoint "$(ep 1)" --seed 51 --until-eos --timeout 30000
run_feed feed-hdr 60 --endpoint "$(ep 0)" --seed 51 --code "$FEEDCODE" --frames $NF --ebn0 6
check_sink sink-hdr 40
expect_eq "$(sink_field sink-hdr frames)" $NF "header lengths: frames"
expect_eq "$(sink_field sink-hdr bits)" $((NF * 288)) "header lengths: 288 bits a frame"
expect_eq "$(sink_field sink-hdr bit_errors)" 0 "header lengths: bit errors"
grep -q "frames of 288 bits, as the first frame's header says" "$IT_TMP/sink-hdr.log" ||
	fail "the sink did not say where the frame length came from: $(cat "$IT_TMP/sink-hdr.log")"

# --- 2: a noisy channel: rates stay rates, frame errors add up.
start_sink sink-noisy --endpoint "$(ep 1)" --seed 52 --until-eos --timeout 30000 --max-ber 1
run_feed feed-noisy 60 --endpoint "$(ep 0)" --seed 52 --code "$FEEDCODE" --frames $NF --ebn0 1
check_sink sink-noisy 40
ber=$(sink_field sink-noisy ber)
fer=$(sink_field sink-noisy fer)
fe=$(sink_field sink-noisy frame_errors)
wrong=$(sink_field sink-noisy frame_errors_wrong_bits)
status_only=$(sink_field sink-noisy frame_errors_status_only)
log "noisy: ber $ber fer $fer frame_errors $fe = $wrong wrong + $status_only status only"
awk -v b="$ber" -v f="$fer" 'BEGIN { exit !(b > 0 && b <= 1 && f > 0 && f <= 1) }' ||
	fail "noisy: BER $ber or FER $fer outside (0, 1]"
expect_eq $((wrong + status_only)) "$fe" "noisy: frame errors = wrong bits + status only"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"

# --- 3: hand-made outputs with known answers.
head -c 64 /dev/zero >"$IT_TMP/zeros.bin"
start_sink sink-craft --endpoint "$(ep 2)" --input "$IT_TMP/zeros.bin" --until-eos \
	--timeout 5000 --max-ber 1
timeout 20 "$IT_CRAFT" "$(ep 2)" frame:0 unconv:1 short:2 frame:3 eos:4 \
	>"$IT_TMP/craft.log" 2>&1 || fail "it-craft: $(cat "$IT_TMP/craft.log")"
wait_pid "$SINK_PID" 20 || fail "the crafted sink did not stop at the sender's END_OF_STREAM"
log "crafted: $(cat "$IT_TMP/sink-craft.json")"
[ "$WAIT_RC" -eq 0 ] || fail "crafted: the sink failed: $(sink_field sink-craft why)"
# Frames 0..4, the last with the sender's END_OF_STREAM: 64 bits each from the first header;
# frame 2 has 32, so its 64 count as wrong: 320 checked, 64 wrong.
expect_eq "$(sink_field sink-craft frames)" 5 "crafted: frames"
expect_eq "$(sink_field sink-craft bits)" 320 "crafted: bits checked"
expect_eq "$(sink_field sink-craft bit_errors)" 64 "crafted: bit errors (the short frame, whole)"
expect_eq "$(sink_field sink-craft ber)" 0.2 "crafted: BER"
expect_eq "$(sink_field sink-craft frame_errors)" 2 "crafted: frame errors"
expect_eq "$(sink_field sink-craft frame_errors_wrong_bits)" 1 "crafted: frames with wrong bits"
expect_eq "$(sink_field sink-craft frame_errors_status_only)" 1 \
	"crafted: frames not converged with their bits right"
expect_eq "$(sink_field sink-craft sender_end)" 1 "crafted: the sender's ends"
grep -q "frame 2 has 32 bits where the feed sent 64" "$IT_TMP/sink-craft.log" ||
	fail "crafted: no message for the short frame: $(cat "$IT_TMP/sink-craft.log")"
log "PASS"
