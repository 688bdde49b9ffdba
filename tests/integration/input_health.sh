#!/bin/bash
# Integration am: input health (issue 19's fourth item), the soft-bit mistakes a new user made,
# each sent through fecd as the user sent it, on its own channel (CCSDS Viterbi, 7 dB):
#  good:    fecd-feed's default s8 scaling: in_health "ok", no warning, the sink passes.
#  clipped: float LLRs read at input.llr_scale 100 (LLRs of about +-1000 at the int8 scale):
#           in_health "clipped", most sampled symbols clipped, one warning line naming the channel.
#  small:   s8 LLRs x 0.05 (mean |LLR| below 1): in_health "small", a warning line.
# An inverted polarity cannot be told on this code (CCSDS is transparent: the complement of a
# codeword is a codeword); README's troubleshooting section says what shows it instead.
. "$(dirname "$0")/lib.sh"

MPORT=$(port 19)
IT_GLOBALS="\"metrics\": {\"listen\": \"127.0.0.1:$MPORT\"}, "
write_config "$(chan_json 1 good '{"preset": "ccsds"}' 0 1)" \
	"$(chan_json 2 clipped '{"preset": "ccsds"}' 2 3 ', "llr_scale": 100')" \
	"$(chan_json 3 small '{"preset": "ccsds"}' 4 5)"
start_fecd

BITS=1000000
# Runs one feed and its sink on channel ID (ports IN, OUT) and waits until stats.get has a verdict.
send() {
	local id=$1 inp=$2 outp=$3 name=$4
	shift 4
	start_sink "sink-$name" --endpoint "$(ep "$outp")" --seed "$id" --until-eos --timeout 60000
	run_feed "feed-$name" 90 --endpoint "$(ep "$inp")" --channel "$id" --seed "$id" \
		--bits "$BITS" "$@"
	wait_pid "$SINK_PID" 90 || fail "$name: sink still running"
	log "sink-$name: $(cat "$IT_TMP/sink-$name.json")"
	wait_for 20 '[ "$(chan_stat "$id" in_health)" != unknown ]' ||
		fail "$name: no input health verdict: $(ctl stats.get "{\"id\": $id}")"
	log "$name: $(ctl stats.get "{\"id\": $id}" | tr -d ' \n' | grep -o '"in_[a-z_]*":[^,]*' | tr '\n' ' ')"
}

send 1 0 1 good
check_health() { # ID VERDICT
	expect_eq "$(chan_stat "$1" in_health)" "$2" "channel $1's in_health"
}
check_health 1 ok
expect_eq "$(chan_stat 1 in_health_warnings)" 0 "good input's warnings"
[ "$(jq_get pass <"$IT_TMP/sink-good.json")" = true ] || fail "good input: the sink failed"
awk -v m="$(chan_stat 1 in_mean_abs_llr)" 'BEGIN { exit !(m > 20 && m < 80) }' ||
	fail "good input: mean |LLR| $(chan_stat 1 in_mean_abs_llr), expected about 40"

send 2 2 3 clipped --format f32
check_health 2 clipped
awk -v f="$(chan_stat 2 in_clipped_frac)" 'BEGIN { exit !(f > 0.5) }' ||
	fail "clipped input: clipped fraction $(chan_stat 2 in_clipped_frac)"
grep -q "channel clipped: input looks clipped" "$IT_TMP/fecd.log" ||
	fail "no clipping warning in the log"

send 3 4 5 small --scale 0.05
check_health 3 small
awk -v m="$(chan_stat 3 in_mean_abs_llr)" 'BEGIN { exit !(m < 1) }' ||
	fail "small input: mean |LLR| $(chan_stat 3 in_mean_abs_llr)"
grep -q "channel small: input looks far too small" "$IT_TMP/fecd.log" ||
	fail "no small-input warning in the log"

grep -q "channel good: input looks" "$IT_TMP/fecd.log" && fail "good input was warned about"
# The metrics say the same (over bash's /dev/tcp).
exec {mfd}<>/dev/tcp/127.0.0.1/$MPORT || fail "cannot connect to the metrics port"
printf 'GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n' >&$mfd
cat <&$mfd >"$IT_TMP/metrics.txt"
exec {mfd}>&-
mval() { grep "^$1{.*\"$2\"" "$IT_TMP/metrics.txt" | awk '{ print $2 }'; }
log "metrics: $(grep '^fecd_input_\(clipped\|mean\|health\)' "$IT_TMP/metrics.txt" | tr '\n' ' ')"
awk -v f="$(mval fecd_input_clipped_ratio clipped)" 'BEGIN { exit !(f > 0.5) }' ||
	fail "metrics: fecd_input_clipped_ratio of the clipped channel: $(mval fecd_input_clipped_ratio clipped)"
[ "$(mval fecd_input_health_warnings_total small)" -ge 1 ] || fail "metrics: no warning counted for small"
expect_eq "$(mval fecd_input_health_warnings_total good)" 0 "metrics: warnings of the good channel"
stop_fecd
log "PASS"
