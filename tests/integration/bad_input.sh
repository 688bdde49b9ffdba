#!/bin/bash
# Integration e: malformed native messages while serving. The feed sends its table of 15 bad
# messages (truncated header, bad magic, wrong version, wrong type, hdr_len too small and past the
# end, unknown format, unknown flags, payload length mismatch, wrong channel, 3 parts, header only,
# huge symbol count, garbage, empty parts), one after each of the first good messages. The good
# data must decode with zero loss and zero errors, stats.get must count exactly the bad messages
# in bad_msgs, and the daemon must keep serving (a second clean run afterwards).
. "$(dirname "$0")/lib.sh"

BITS=200000
write_config "$(chan_json 1 ccsds '{"preset": "ccsds"}' 0 1)"
start_fecd

start_sink sink --endpoint "$(ep 1)" --seed 51 --expect-bits $BITS --until-eos --timeout 30000
run_feed feed 60 --endpoint "$(ep 0)" --channel 1 --seed 51 --bits $BITS --ebn0 7 --inject-bad
check_sink sink 40
nbad=$(feed_field feed bad)
[ "$nbad" -ge 15 ] || fail "the feed sent only $nbad malformed messages"
expect_eq "$(sink_field sink bit_errors)" 0 "bit errors"
expect_eq "$(sink_field sink bits_delivered)" $BITS "bits delivered"
fecd_alive || fail "fecd died on malformed input"
st=$(ctl stats.get '{"id": 1}') || fail "stats.get"
expect_eq "$(jq_get bad_msgs <<<"$st")" "$nbad" "stats bad_msgs"
expect_eq "$(jq_get msgs_in <<<"$st")" "$(feed_field feed messages)" "stats msgs_in (good messages)"
expect_eq "$(jq_get symbols_in <<<"$st")" "$(feed_field feed symbols)" "stats symbols_in"

# Still serving: a second clean stream.
start_sink sink2 --endpoint "$(ep 1)" --seed 52 --expect-bits 50000 --until-eos --timeout 30000
run_feed feed2 30 --endpoint "$(ep 0)" --channel 1 --seed 52 --bits 50000 --ebn0 7
check_sink sink2 30
expect_eq "$(chan_stat 1 bad_msgs)" "$nbad" "bad_msgs after the clean run"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS: $nbad malformed messages counted, good data intact"
