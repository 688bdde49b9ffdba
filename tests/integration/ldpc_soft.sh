#!/bin/bash
# Integration y: soft output checked end to end. An LDPC channel (WiMAX (576,288) from
# ../shared/codes) publishes soft values (output.soft): fecd-sink --code wimax-576 takes the frame
# length (288 bits) from the code and checks every frame's soft values, one LLR per decoded bit
# whose sign is its bit's, at an Eb/N0 where some frames fail to converge, and --frame-bits that
# contradict the code are refused. Then it-craft sends soft values that disagree with their bits
# and a count that does not fit them: the sink counts each and fails, saying why. The second part
# runs without the codes folder too.
. "$(dirname "$0")/lib.sh"

[ -n "${IT_CRAFT:-}" ] || fail "IT_CRAFT is not set (run the tests through ctest)"

# --- 1: soft values an LDPC channel publishes (needs the codes folder).
CODES=${FECD_CODES_DIR:-}
if [ -n "$CODES" ] && [ -f "$CODES/WIMAX_288_576.alist" ]; then
	IT_GLOBALS="\"codes_dir\": \"$CODES\", "
	write_config "$(chan_json 1 wimax '{"preset": "wimax-576"}' 0 1 '' ', "soft": true')"
	start_fecd
	NF=60
	start_sink sink --endpoint "$(ep 1)" --seed 41 --code wimax-576 --expect-frames $NF \
		--max-ber 0.5 --timeout 30000
	run_feed feed 60 --endpoint "$(ep 0)" --seed 41 --code wimax-576 --frames $NF --ebn0 1.5
	wait_pid "$SINK_PID" 40 || fail "sink still running"
	log "sink: $(cat "$IT_TMP/sink.json")"
	[ "$WAIT_RC" -eq 0 ] || fail "sink failed: $(sink_field sink why)"
	expect_eq "$(sink_field sink frames)" $NF "frames received"
	expect_eq "$(sink_field sink bits)" $((NF * 288)) "bits: 288 per frame, from --code"
	expect_eq "$(sink_field sink soft.messages)" $NF "messages with soft values"
	expect_eq "$(sink_field sink soft.values)" $((NF * 288)) "soft values"
	expect_eq "$(sink_field sink soft.size_errors)" 0 "soft size errors"
	expect_eq "$(sink_field sink soft.sign_errors)" 0 "soft sign errors"
	[ "$(sink_field sink status.not_converged)" -gt 0 ] ||
		log "note: every frame converged at 1.5 dB; the signs were checked on decoded frames only"
	stop_fecd
	expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
	out=$(timeout 10 "$SINK" --code wimax-576 --frame-bits 300 2>&1) &&
		fail "--frame-bits 300 with --code wimax-576 was accepted"
	case $out in *"this code's frames carry 288 bits"*) ;; *) fail "message: $out" ;; esac
else
	log "no WIMAX_288_576.alist in ${CODES:-../shared/codes}: the LDPC part skipped"
fi

# --- 2: soft values that disagree with their bits, or do not fit them.
start_sink sink2 --endpoint "$(ep 2)" --frame-bits 64 --timeout 3000
timeout 20 "$IT_CRAFT" "$(ep 2)" soft:0 softsign:1 softcount:2 >"$IT_TMP/craft.log" 2>&1 ||
	fail "it-craft: $(cat "$IT_TMP/craft.log")"
wait_pid "$SINK_PID" 20 || fail "sink2 did not end"
log "sink2: $(cat "$IT_TMP/sink2.json")"
[ "$WAIT_RC" -eq 1 ] || fail "sink2 exited $WAIT_RC on wrong soft values; expected 1"
expect_eq "$(sink_field sink2 soft.messages)" 3 "crafted messages with soft values"
expect_eq "$(sink_field sink2 soft.zero)" 2 "LLRs of exactly 0 (checked messages)"
expect_eq "$(sink_field sink2 soft.sign_errors)" 1 "LLRs of the wrong sign"
expect_eq "$(sink_field sink2 soft.size_errors)" 1 "messages with a count that does not fit"
case $(sink_field sink2 why) in *"disagree with their decoded bits"*) ;; *) fail "why" ;; esac
case $(sink_field sink2 why) in *"do not fit their decoded bits"*) ;; *) fail "why" ;; esac
grep -q "1 of 64 soft values disagree in sign" "$IT_TMP/sink2.log" ||
	fail "no clear message: $(cat "$IT_TMP/sink2.log")"
log "PASS"
