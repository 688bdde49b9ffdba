#!/bin/bash
# Integration p: the SIGHUP reload reads the file and builds its codes off the loop thread, and is
# applied on it afterwards (issue 14, item 2).
#  1. With loop_threads 1, a reload that adds a channel with a slow code (a regular code of 2^18
#     columns: seconds to build) while a stream runs: control answers within a second and the
#     stream moves while it builds; a second SIGHUP meanwhile makes one more pass after the first
#     (never two at once), systemd hears RELOADING=1 for each and READY=1 once, after the last;
#     the new channel is then running and the stream was decoded with nothing lost.
#  2. The build limit came down to 1500 ms with that reload: a reload whose code takes longer
#     keeps the running configuration and the log says which limit it ran into.
. "$(dirname "$0")/lib.sh"

ms() { echo $(($(date +%s%N) / 1000000)); }
STREAM=$(chan_json 1 stream '{"preset": "ccsds"}' 0 1)
SLOW=$(chan_json 2 slow '{"family": "ldpc", "code": "regular", "n": 262144}' 2 3)
HUGE=$(chan_json 3 huge '{"family": "ldpc", "code": "regular", "n": 1048576}' 4 5)

IT_GLOBALS='"loop_threads": 1, ' IT_CONTROL=', "build_timeout_ms": 30000' write_config "$STREAM"
start_fecd

# --- 1: a slow reload, asked for twice, while a stream runs.
BITS=800000
start_sink sink --endpoint "$(ep 1)" --seed 51 --expect-bits $BITS --until-eos --timeout 30000
spawn feed "$FEED" --endpoint "$(ep 0)" --channel 1 --seed 51 --bits $BITS --ebn0 7 --rate 200000
FEED_PID=$LAST_PID
wait_for 20 '[ "$(chan_stat 1 msgs_out 2>/dev/null || echo 0)" -ge 5 ]' || fail "no data flowing"
IT_GLOBALS='"loop_threads": 1, ' IT_CONTROL=', "build_timeout_ms": 1500' write_config "$STREAM" "$SLOW"
out_before=$(chan_stat 1 msgs_out)
t0=$(ms)
kill -HUP "$IT_FECD_PID"
wait_for 10 'grep -q "SIGHUP: reloading" "$IT_TMP/fecd.log"' || fail "the first SIGHUP was not seen"
kill -HUP "$IT_FECD_PID"
worst=0 polls=0
while [ "$(grep -c "reload: done" "$IT_TMP/fecd.log")" -lt 2 ]; do
	a=$(ms)
	timeout 5 "$FECDCTL" --socket "$CTL_SOCK" --timeout 5 stats.get >/dev/null ||
		fail "stats.get did not answer during the reload"
	b=$(ms)
	[ $((b - a)) -gt "$worst" ] && worst=$((b - a))
	polls=$((polls + 1))
	[ $((b - t0)) -lt 60000 ] || fail "the reloads did not finish within 60 s"
	fecd_alive || fail "fecd died during the reload"
done
out_during=$(chan_stat 1 msgs_out)
log "reloads done after $(($(ms) - t0)) ms: $polls stats.get answers, the slowest in $worst ms; published messages $out_before -> $out_during"
[ "$polls" -ge 3 ] || fail "only $polls answers during the reload: it ended too early to tell"
[ "$worst" -le 1000 ] || fail "stats.get took $worst ms during the reload"
[ "$out_during" -gt "$out_before" ] || fail "the stream did not move during the reload"
grep -q "reload: one is being built; reading .* again when it is done" "$IT_TMP/fecd.log" ||
	fail "the second SIGHUP was not held for after the first reload"
expect_eq "$(grep -c "reload: channel 2 (slow) created" "$IT_TMP/fecd.log")" 1 "channel 2 creations"
expect_eq "$(grep -c '^RELOADING=1' "$IT_TMP/notify.out")" 2 "RELOADING=1 notifications"
expect_eq "$(grep -c '^READY=1' "$IT_TMP/notify.out")" 2 "READY=1 notifications (start-up, last reload)"
expect_eq "$(ctl channel.get '{"id": 2}' | jq_get name)" slow "the new channel"
expect_eq "$(ctl config.get | jq_get control.build_timeout_ms)" 1500 "build limit after the reload"
wait_pid "$FEED_PID" 60 || fail "feed still running"
[ "$WAIT_RC" -eq 0 ] || fail "feed failed: $(cat "$IT_TMP/feed.log")"
check_sink sink 30
expect_eq "$(sink_field sink bits_delivered)" $BITS "bits delivered"
expect_eq "$(sink_field sink bit_errors)" 0 "bit errors"

# --- 2: a code past the limit keeps the running configuration.
IT_GLOBALS='"loop_threads": 1, ' IT_CONTROL=', "build_timeout_ms": 1500' write_config \
	"$STREAM" "$SLOW" "$HUGE"
t0=$(ms)
kill -HUP "$IT_FECD_PID"
wait_for 30 'grep -q "control.build_timeout_ms (1500 ms).*keeping the running configuration" "$IT_TMP/fecd.log"' ||
	fail "the reload with a code past the limit did not fail saying so"
took=$(($(ms) - t0))
log "refused after $took ms: $(grep "control.build_timeout_ms (1500 ms)" "$IT_TMP/fecd.log")"
[ "$took" -le 10000 ] || fail "the reload took $took ms to give up; the limit is 1500 ms"
ctl channel.list | "$IT_JSONQ" channels.2 >/dev/null 2>&1 && fail "channel 3 was created"
expect_eq "$(ctl channel.get '{"id": 2}' | jq_get name)" slow "channel 2 after the refused reload"
wait_for 10 '[ "$(grep -c "^READY=1" "$IT_TMP/notify.out")" -ge 3 ]' ||
	fail "no READY=1 after the refused reload"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
