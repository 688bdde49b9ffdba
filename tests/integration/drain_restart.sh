#!/bin/bash
# Integration ah: fecd started again while the old one drains (issue 19's third item). What the
# user did: systemctl restart, or a fecd started by hand right after a SIGTERM, while the old
# fecd still held output nobody had read.
#  1. fecd A accepts a stream whose output nobody reads, and gets SIGTERM: it drains, holding its
#     output port (linger_ms 20 s). fecd B, started on the same endpoints, says that fecd (A's
#     pid) holds it and waits. A sink then takes A's output (every bit), A exits 0, and B binds both
#     endpoints and decodes a new stream.
#  2. A port held by another program (it-craft) is refused at once, naming its pid and name.
. "$(dirname "$0")/lib.sh"

[ -n "${IT_CRAFT:-}" ] || fail "IT_CRAFT is not set (run the tests through ctest)"

N=50000
IT_LINGER_MS=20000
write_config "$(chan_json 1 ccsds '{"preset": "ccsds"}' 0 1)"
start_fecd
A=$IT_FECD_PID

# --- 1: A drains while B starts.
run_feed feed-a 30 --endpoint "$(ep 0)" --seed 21 --bits $N --ebn0 7
SYMS=$(feed_field feed-a symbols)
wait_for 10 '[ "$(chan_stat 1 symbols_in)" -eq "$SYMS" ]' || fail "A did not take the stream"
kill -TERM "$A"
wait_for 10 'grep -q "draining" "$IT_TMP/fecd.log"' || fail "A did not start draining"
sed "s|$CTL_SOCK|$IT_TMP/control-b.sock|" "$IT_TMP/fecd.json" >"$IT_TMP/fecd-b.json"
spawn fecd-b "$FECD" --config "$IT_TMP/fecd-b.json"
B=$LAST_PID
wait_for 15 'grep -q "held by fecd (pid $A), still draining" "$IT_TMP/fecd-b.log"' ||
	fail "B did not say that fecd $A holds the endpoints: $(cat "$IT_TMP/fecd-b.log")"
kill -0 "$B" 2>/dev/null || fail "B exited while A drained: $(cat "$IT_TMP/fecd-b.log")"
kill -0 "$A" 2>/dev/null || fail "A exited before anyone read its output"
start_sink sink-a --endpoint "$(ep 1)" --seed 21 --expect-bits $N --until-eos --timeout 20000
check_sink sink-a 30
wait_pid "$A" 30 || fail "A did not exit once its output was read"
expect_eq "$WAIT_RC" 0 "A's exit status"
# A drains with its input closed already: B binds that at once, and the output when A exits.
wait_for 15 'grep -q "bound $(ep 1)" "$IT_TMP/fecd-b.log"' ||
	fail "B did not bind once A let go: $(cat "$IT_TMP/fecd-b.log")"
start_sink sink-b --endpoint "$(ep 1)" --seed 22 --expect-bits $N --until-eos --timeout 20000
run_feed feed-b 30 --endpoint "$(ep 0)" --seed 22 --bits $N --ebn0 7
check_sink sink-b 30
kill -TERM "$B"
wait_pid "$B" 20 || fail "B did not exit after SIGTERM"
expect_eq "$WAIT_RC" 0 "B's exit status"

# --- 2: a port another program holds.
spawn craft "$IT_CRAFT" "$(ep 5)" frame:0
HEXPORT=$(printf '%04X' "$(port 5)")
wait_for 10 'grep -q ":$HEXPORT [0-9A-F]*:0000 0A" /proc/net/tcp /proc/net/tcp6' ||
	fail "it-craft did not listen on $(ep 5)"
write_config "$(chan_json 1 ccsds '{"preset": "ccsds"}' 4 5)"
out=$(timeout 20 "$FECD" --config "$IT_TMP/fecd.json" 2>&1) && fail "fecd started on a port it-craft holds"
log "held port: $(tail -n 1 <<<"$out")"
case $out in *"cannot bind $(ep 5): Address already in use (held by process $LAST_PID, it-craft)"*) ;;
*) fail "no holder named: $out" ;; esac
log "PASS"
