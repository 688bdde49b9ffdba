#!/bin/bash
# Integration am: input health (issue 19's fourth item), the soft-bit mistakes a new user made,
# each sent through fecd as the user sent it, on its own channel (CCSDS Viterbi, 7 dB):
#  good:    fecd-feed's default s8 scaling: in_health "ok", no warning, the sink passes.
#  clipped: float LLRs read at input.llr_scale 100 (LLRs of about +-1000 at the int8 scale):
#           in_health "clipped", most sampled symbols clipped, one warning line naming the channel.
#  small:   s8 LLRs x 0.05 (mean |LLR| below 1): in_health "small", a warning line.
#  inverted, on an LDPC code with rows of odd weight ((3,7)-regular, frames): in_polarity and
#           in_health "inverted", most checks fail as received and few negated, a warning line;
#           the same code sent right: "normal", no warning.
#  inverted on CCSDS: the decoder cannot tell (the complement of a codeword is a codeword):
#           in_polarity "unknown" and no warning, while the sink counts every bit wrong, as
#           README's troubleshooting section says.
. "$(dirname "$0")/lib.sh"

MPORT=$(port 19)
LDPC='{"family": "ldpc", "code": "regular", "n": 1400, "dv": 3, "dc": 7, "seed": 3}'
LDPC_TEXT=ldpc,code=regular,n=1400,dv=3,dc=7,seed=3
IT_GLOBALS="\"metrics\": {\"listen\": \"127.0.0.1:$MPORT\"}, "
write_config "$(chan_json 1 good '{"preset": "ccsds"}' 0 1)" \
	"$(chan_json 2 clipped '{"preset": "ccsds"}' 2 3 ', "llr_scale": 100')" \
	"$(chan_json 3 small '{"preset": "ccsds"}' 4 5)" \
	"$(chan_json 4 ldpc "$LDPC" 6 7)" "$(chan_json 5 ldpcinv "$LDPC" 8 9)" \
	"$(chan_json 6 ccsdsinv '{"preset": "ccsds"}' 10 11)"
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

send 4 6 7 ldpc --code "$LDPC_TEXT" --frames 2000 --ebn0 5
check_health 4 ok
expect_eq "$(chan_stat 4 in_polarity)" normal "the LDPC channel's polarity"
[ "$(jq_get pass <"$IT_TMP/sink-ldpc.json")" = true ] || fail "LDPC input: the sink failed"

send 5 8 9 ldpcinv --code "$LDPC_TEXT" --frames 2000 --ebn0 5 --invert
check_health 5 inverted
expect_eq "$(chan_stat 5 in_polarity)" inverted "the inverted LDPC channel's polarity"
awk -v u="$(chan_stat 5 in_unsat_checks_frac)" -v v="$(chan_stat 5 in_unsat_checks_negated_frac)" \
	'BEGIN { exit !(u > 0.6 && v < 0.3) }' ||
	fail "inverted LDPC: checks failed $(chan_stat 5 in_unsat_checks_frac), negated $(chan_stat 5 in_unsat_checks_negated_frac)"
grep -q "channel ldpcinv: input looks inverted" "$IT_TMP/fecd.log" ||
	fail "no inverted-input warning in the log"

send 6 10 11 ccsdsinv --invert
check_health 6 ok
expect_eq "$(chan_stat 6 in_polarity)" unknown "CCSDS's polarity hint"
awk -v b="$(jq_get ber <"$IT_TMP/sink-ccsdsinv.json")" 'BEGIN { exit !(b > 0.99) }' ||
	fail "inverted CCSDS: the sink's BER $(jq_get ber <"$IT_TMP/sink-ccsdsinv.json"), expected 1"

for c in good ldpc ccsdsinv; do
	grep -q "channel $c: input looks" "$IT_TMP/fecd.log" && fail "channel $c was warned about"
done
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
awk -v u="$(mval fecd_input_unsat_checks_ratio ldpcinv)" \
	-v v="$(mval fecd_input_unsat_checks_negated_ratio ldpcinv)" 'BEGIN { exit !(u > 2 * v) }' ||
	fail "metrics: the inverted LDPC channel's check ratios"
stop_fecd
log "PASS"
