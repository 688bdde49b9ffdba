#!/bin/bash
# Integration: ipc:// endpoints in use are refused like TCP ones. libzmq unlinks an ipc:// path
# before binding it, so without fecd's own check a second daemon would silently take the first
# one's endpoints and leave it "ready" and deaf.
#  1. Daemon A runs a channel on ipc:// input and output.
#  2. Daemon B with the same channel refuses to start, with a log line naming the endpoint.
#  3. Daemon B without channels: channel.create on A's endpoints gets -32001 naming the endpoint;
#     an ipc:// path that is a regular file is refused and left in place.
#  4. A still decodes a stream end to end over its ipc:// endpoints.
#  5. A channel deleted and created again on the same ipc:// endpoints works (fecd's own closing
#     channel releasing the endpoint is waited for, not refused).
#  6. A stale socket file left by a killed daemon is taken over.
. "$(dirname "$0")/lib.sh"

IN=ipc://$IT_TMP/in.sock
OUT=ipc://$IT_TMP/out.sock
ipc_chan() { # ID NAME IN OUT
	printf '{"id": %s, "name": "%s", "code": {"preset": "ccsds"}, "input": {"endpoint": "%s"}, "output": {"endpoint": "%s"}}' "$@"
}

# Writes a configuration of its own for a second daemon: NAME CHANNELS-JSON.
second_config() {
	cat >"$IT_TMP/$1.json" <<EOF
{"control": {"socket": "$IT_TMP/$1.sock"}, "workers": 1, "stats_interval_ms": 200, "channels": [$2]}
EOF
}

# --- 1: daemon A.
write_config "$(ipc_chan 1 a "$IN" "$OUT")"
start_fecd

# --- 2: daemon B with the same endpoints must not start.
second_config b "$(ipc_chan 1 b "$IN" "$OUT")"
spawn fecd-b "$FECD" --config "$IT_TMP/b.json"
B_PID=$LAST_PID
wait_pid "$B_PID" 15 || fail "a second daemon on A's ipc:// endpoints kept running"
[ "$WAIT_RC" -ne 0 ] || fail "a second daemon on A's ipc:// endpoints exited 0"
grep -q "output.endpoint: cannot bind $OUT: Address already in use" "$IT_TMP/fecd-b.log" ||
	fail "daemon B's log does not say why: $(cat "$IT_TMP/fecd-b.log")"
log "daemon B refused: $(grep -o "cannot bind.*" "$IT_TMP/fecd-b.log" | head -n 1)"
[ -S "$IT_TMP/in.sock" ] || fail "daemon B removed A's input socket file"

# --- 3: daemon B running without channels; channel.create on A's endpoints.
second_config c ""
spawn fecd-c "$FECD" --config "$IT_TMP/c.json"
C_PID=$LAST_PID
wait_for 15 '[ -S "$IT_TMP/c.sock" ]' || fail "daemon C did not start: $(cat "$IT_TMP/fecd-c.log")"
out=$(timeout 10 "$FECDCTL" --socket "$IT_TMP/c.sock" channel.create "$(ipc_chan 5 c "$IN" "ipc://$IT_TMP/c-out.sock")" 2>&1) &&
	fail "channel.create on A's input endpoint succeeded: $out"
case $out in
*"error -32001"*"cannot bind $IN: Address already in use"*) log "channel.create refused: $out" ;;
*) fail "channel.create on A's input endpoint: expected -32001 naming $IN, got: $out" ;;
esac
echo "not a socket" >"$IT_TMP/plain"
out=$(timeout 10 "$FECDCTL" --socket "$IT_TMP/c.sock" channel.create "$(ipc_chan 6 d "ipc://$IT_TMP/plain" "ipc://$IT_TMP/d-out.sock")" 2>&1) &&
	fail "channel.create on a regular file succeeded: $out"
case $out in
*"exists and is not a socket"*) ;;
*) fail "channel.create on a regular file: got: $out" ;;
esac
[ "$(cat "$IT_TMP/plain")" = "not a socket" ] || fail "the regular file at an ipc:// path was changed"

# --- 4: A still serves its endpoints.
start_sink sink --endpoint "$OUT" --seed 71 --expect-bits 200000 --until-eos --timeout 30000
run_feed feed 60 --endpoint "$IN" --channel 1 --seed 71 --bits 200000 --ebn0 7
check_sink sink 40
expect_eq "$(sink_field sink bits_delivered)" 200000 "A: bits delivered"
expect_eq "$(sink_field sink bit_errors)" 0 "A: bit errors"

# --- 5: delete and create again on the same endpoints while the deleted channel still holds its
# output (decoded bits nobody has read yet): the new channel binds once it is released.
run_feed feed1b 60 --endpoint "$IN" --channel 1 --seed 74 --bits 50000 --ebn0 7
wait_for 20 '[ "$(chan_stat 1 msgs_in)" -ge "$(feed_field feed1b messages)" ]' ||
	fail "channel a did not take the second stream in"
ctl channel.delete '{"id": 1}' >/dev/null
ctl channel.create "$(ipc_chan 2 a2 "$IN" "$OUT")" >/dev/null
grep -q "channel a2: output endpoint $OUT is still held by a closing channel" "$IT_TMP/fecd.log" ||
	fail "the output endpoint was not waited for: $(tail -n 5 "$IT_TMP/fecd.log")"
start_sink sink1b --endpoint "$OUT" --seed 74 --expect-bits 50000 --until-eos --timeout 30000
check_sink sink1b 40 # the deleted channel's output, published before it let go
wait_for 20 'grep -q "channel a2: bound $OUT" "$IT_TMP/fecd.log"' ||
	fail "the recreated channel never bound $OUT"
start_sink sink2 --endpoint "$OUT" --seed 72 --expect-bits 100000 --until-eos --timeout 30000
run_feed feed2 60 --endpoint "$IN" --channel 2 --seed 72 --bits 100000 --ebn0 7
check_sink sink2 40
expect_eq "$(sink_field sink2 bit_errors)" 0 "recreated channel: bit errors"

# --- 6: a stale socket file from a killed daemon is taken over.
STALE_IN=ipc://$IT_TMP/stale-in.sock
STALE_OUT=ipc://$IT_TMP/stale-out.sock
second_config e "$(ipc_chan 1 e "$STALE_IN" "$STALE_OUT")"
spawn fecd-e "$FECD" --config "$IT_TMP/e.json"
E_PID=$LAST_PID
wait_for 15 '[ -S "$IT_TMP/e.sock" ]' || fail "daemon E did not start: $(cat "$IT_TMP/fecd-e.log")"
kill -KILL "$E_PID"
wait_pid "$E_PID" 10 || fail "daemon E did not die"
[ -S "$IT_TMP/stale-in.sock" ] || fail "no stale socket file left to test with"
rm -f "$IT_TMP/e.sock"
spawn fecd-f "$FECD" --config "$IT_TMP/e.json"
F_PID=$LAST_PID
wait_for 15 '[ -S "$IT_TMP/e.sock" ] || ! kill -0 $F_PID 2>/dev/null' || fail "daemon F did not start"
kill -0 "$F_PID" 2>/dev/null || fail "daemon F refused the stale endpoint: $(cat "$IT_TMP/fecd-f.log")"
start_sink sink3 --endpoint "$STALE_OUT" --seed 73 --expect-bits 100000 --until-eos --timeout 30000
run_feed feed3 60 --endpoint "$STALE_IN" --channel 1 --seed 73 --bits 100000 --ebn0 7
check_sink sink3 40

fecd_alive || fail "daemon A died"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS: ipc:// endpoints in use refused, stale ones taken over"
