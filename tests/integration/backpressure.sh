#!/bin/bash
# Integration j: backpressure. Nobody reads the PUSH output at first, so fecd's batch slots fill
# and it stops reading its input. While it waits it must be idle (ZMQ_FD stays readable while
# ZMQ holds unprocessed commands: watching it then would spin the loop), and once a reader comes
# everything accepted and everything still queued upstream must flow: no bit lost, none wrong.
. "$(dirname "$0")/lib.sh"

write_config "$(chan_json 1 bp '{"preset": "ccsds"}' 0 1)"
start_fecd

BITS=1000000
spawn feed "$FEED" --endpoint "$(ep 0)" --channel 1 --seed 61 --bits $BITS --ebn0 7
FEED_PID=$LAST_PID
wait_for 10 '[ "$(chan_stat 1 queue_syms 2>/dev/null || echo 0)" -gt 0 ]' || fail "no input accepted"
sleep 1.5
st=$(ctl stats.get '{"id": 1}') || fail "stats.get"
expect_eq "$(jq_get msgs_out <<<"$st")" 0 "messages out with nobody reading"

# CPU time (user + system clock ticks) fecd spends in 2 s of waiting.
ticks() { awk '{print $14 + $15}' "/proc/$IT_FECD_PID/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks)
sleep 2
used=$(($(ticks) - t0))
log "fecd used $used ticks of $((2 * hz)) in 2 s while blocked"
[ "$used" -le $((hz / 2)) ] || fail "fecd is busy ($used ticks in 2 s) while its output is blocked"

start_sink sink --endpoint "$(ep 1)" --seed 61 --expect-bits $BITS --until-eos --timeout 20000
wait_pid "$FEED_PID" 60 || fail "feed still running after a reader came"
[ "$WAIT_RC" -eq 0 ] || fail "feed failed: $(cat "$IT_TMP/feed.log")"
check_sink sink 60
expect_eq "$(sink_field sink bits_delivered)" $BITS "bits delivered"
expect_eq "$(sink_field sink bit_errors)" 0 "bit errors"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
