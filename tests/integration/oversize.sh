#!/bin/bash
# Integration: a message over the input's size limit is counted and logged. fecd's input socket
# sets ZMQ_MAXMSGSIZE; libzmq drops the connection of a sender whose message part is larger, and
# says nothing but "disconnected". fecd-feed --inject-oversize sends one 65 MiB message between
# good ones.
#  1. fecd binds, the feed connects: conn_drops counts the drop, a log line names the limit and
#     what to do, the feed connects again and every good message is decoded (zero loss).
#  2. fecd connects, the feed binds: libzmq ends the session for good after such a drop; fecd
#     must connect again itself, or the channel stays deaf. A clean run afterwards decodes.
#  3. A feed that closes normally is not counted as a drop.
. "$(dirname "$0")/lib.sh"

BITS=300000
IT_GLOBALS='"metrics": {"listen": "127.0.0.1:'$(port 19)'"}, ' write_config \
	"$(chan_json 1 bound '{"preset": "ccsds"}' 0 1)" \
	"$(chan_json 2 connecting '{"preset": "ccsds"}' 2 3 ', "bind": false')"
start_fecd

# --- 1: fecd binds.
start_sink sink --endpoint "$(ep 1)" --seed 81 --expect-bits $BITS --until-eos --timeout 30000
run_feed feed 60 --endpoint "$(ep 0)" --channel 1 --seed 81 --bits $BITS --ebn0 7 --inject-oversize 10
check_sink sink 40
expect_eq "$(feed_field feed oversize)" 1 "oversized messages sent"
expect_eq "$(sink_field sink bits_delivered)" $BITS "bits delivered"
expect_eq "$(sink_field sink bit_errors)" 0 "bit errors"
st=$(ctl stats.get '{"id": 1}')
expect_eq "$(jq_get conn_drops <<<"$st")" 1 "conn_drops"
expect_eq "$(jq_get msgs_in <<<"$st")" "$(feed_field feed messages)" "msgs_in (every good message)"
expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "bad_msgs"
if command -v curl >/dev/null; then
	curl -sS -f --max-time 10 -o "$IT_TMP/metrics.txt" "http://127.0.0.1:$(port 19)/metrics" ||
		fail "metrics scrape"
	expect_eq "$(awk '$1 == "fecd_dropped_connections_total{channel=\"bound\",id=\"1\"}" { print $2 }' "$IT_TMP/metrics.txt")" \
		1 "fecd_dropped_connections_total"
fi
grep -q "channel bound: input $(ep 0): libzmq dropped a connection whose sender was still sending: a message part over 67175424 bytes (FECD_MAX_PAYLOAD_BYTES, 67108864 bytes of symbols" "$IT_TMP/fecd.log" ||
	fail "no log line naming the limit"

# --- 3 (on channel 1): a feed that ends normally is no drop.
start_sink sink3 --endpoint "$(ep 1)" --seed 83 --expect-bits 50000 --until-eos --timeout 30000
run_feed feed3 30 --endpoint "$(ep 0)" --channel 1 --seed 83 --bits 50000 --ebn0 7
check_sink sink3 30
sleep 0.5
expect_eq "$(chan_stat 1 conn_drops)" 1 "conn_drops after a feed that closed normally"

# --- 2: fecd connects to a feed that binds.
start_sink sink2 --endpoint "$(ep 3)" --seed 82 --until-eos --timeout 30000 --allow-loss --max-ber 1
run_feed feed2 60 --endpoint "$(ep 2)" --bind --channel 2 --seed 82 --bits $BITS --ebn0 7 \
	--inject-oversize 5
wait_pid "$SINK_PID" 40 || fail "sink2 did not see the end of the stream"
expect_eq "$(chan_stat 2 conn_drops)" 1 "connecting channel: conn_drops"
grep -q "channel connecting: input: connecting to $(ep 2) again" "$IT_TMP/fecd.log" ||
	fail "the connecting channel did not connect again"
start_sink sink4 --endpoint "$(ep 3)" --seed 85 --expect-bits 50000 --until-eos --timeout 30000
run_feed feed4 30 --endpoint "$(ep 2)" --bind --channel 2 --seed 85 --bits 50000 --ebn0 7
check_sink sink4 30
expect_eq "$(sink_field sink4 bit_errors)" 0 "connecting channel after the drop: bit errors"

fecd_alive || fail "fecd died"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS: oversized messages counted and logged, both ends keep serving"
