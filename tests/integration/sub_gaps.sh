#!/bin/bash
# Integration h: a SUB input counts the sender's sequence gaps. A PUB feed (paced, so that PUB
# never drops for want of a reader) skips sequence numbers 10, 20-22 and 50 on purpose: stats.get
# must show 3 gaps and 5 missing messages, every sent message counted in, none bad. fecd bridges
# each hole with erasures the size of the lost messages, so every bit position is delivered, the
# bits of the 5 lost messages (5 x 2048) decode to guesses, and everything else decodes right:
# a misaligned bridge would put errors into half of the ~190000 bits after the first hole.
. "$(dirname "$0")/lib.sh"

write_config "$(chan_json 1 sub '{"preset": "ccsds"}' 0 1 ', "socket": "sub"')"
start_fecd

start_sink sink --endpoint "$(ep 1)" --seed 81 --timeout 2000 --allow-loss --allow-reorder --max-ber 1
run_feed feed 60 --socket pub --endpoint "$(ep 0)" --channel 1 --seed 81 --bits 200000 \
	--ebn0 7 --rate 1000000 --hwm 100000 --start-delay 500 --skip-seq 10,20,21,22 --skip-seq 50
expect_eq "$(feed_field feed skipped)" 5 "messages the feed skipped"
wait_for 10 '[ "$(chan_stat 1 msgs_in 2>/dev/null || echo 0)" -ge "$(feed_field feed messages)" ]' ||
	fail "fecd received $(chan_stat 1 msgs_in) of $(feed_field feed messages) messages"
st=$(ctl stats.get '{"id": 1}') || fail "stats.get"
log "stats: $st"
expect_eq "$(jq_get gaps <<<"$st")" 3 "stats gaps"
expect_eq "$(jq_get gap_msgs <<<"$st")" 5 "stats gap_msgs"
expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "stats bad_msgs"
expect_eq "$(jq_get msgs_in <<<"$st")" "$(feed_field feed messages)" "stats msgs_in"
check_sink sink 20
expect_eq "$(sink_field sink bits_delivered)" 200000 "bit positions delivered"
errs=$(sink_field sink bit_errors)
log "bit errors: $errs (lost messages held 10240 bits)"
[ "$errs" -gt 1000 ] || fail "only $errs bit errors: the lost messages cannot have been decoded"
[ "$errs" -le 11000 ] || fail "$errs bit errors: more than the lost messages can explain"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
