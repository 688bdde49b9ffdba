#!/bin/bash
# Integration o: codes that take minutes to build are built off the loop thread, within
# control.build_timeout_ms, and the daemon goes on meanwhile (issue 14, item 2).
#  1. With loop_threads 1 (every channel on the main loop) and control.build_timeout_ms 2000, a
#     regular code of 2^20 columns and PEG at n = 10^5 (minutes, and over 10 min, to build) are
#     asked for on two connections. While they build, stats.get and channel.list on others
#     answer within a second and a stream through another channel moves; then both get -32004
#     naming the limit, about 2 s after they were sent, and the stream is decoded with nothing
#     lost.
#  2. Requests in one write on one connection, the slow one first and 800 stats.get after it (57
#     KiB: more than fecd holds while a request is in flight, so it stops reading and starts
#     again): the answers keep that order.
#  3. The limit is live: a reload raises it. Two creates of one id at once: exactly one wins, the
#     other gets -32001.
#  4. A client that asks for a slow code and closes at once: the channel is created, the dropped
#     answer is logged, and fecd goes on serving.
. "$(dirname "$0")/lib.sh"
[ -n "${IT_RPC:-}" ] || fail "IT_RPC is not set (run the tests through ctest)"

ms() { echo $(($(date +%s%N) / 1000000)); }
# request ID METHOD PARAMS-JSON: one JSON-RPC request line.
request() { printf '{"jsonrpc": "2.0", "id": "%s", "method": "%s", "params": %s}' "$1" "$2" "$3"; }
# rpc_bg NAME LINE...: it-rpc in the background, answers in NAME.log, its end time (ms) in
# NAME.done; sets LAST_PID.
rpc_bg() {
	local name=$1
	shift
	spawn "$name" bash -c '"$@"; rc=$?; echo $(($(date +%s%N) / 1000000)) >"'"$IT_TMP/$name.done"'"; exit $rc' \
		it-rpc "$IT_RPC" "$CTL_SOCK" "$@"
}
REGULAR_1M='{"family": "ldpc", "code": "regular", "n": 1048576}'
PEG_100K='{"family": "ldpc", "code": "peg", "n": 100000}'
LIMIT_MSG='control.build_timeout_ms (2000 ms)'

IT_GLOBALS='"loop_threads": 1, ' IT_CONTROL=', "build_timeout_ms": 2000' write_config \
	"$(chan_json 1 stream '{"preset": "ccsds"}' 0 1)"
start_fecd

# --- 1: two huge builds while a stream runs and control is polled.
BITS=800000
start_sink sink --endpoint "$(ep 1)" --seed 41 --expect-bits $BITS --until-eos --timeout 30000
spawn feed "$FEED" --endpoint "$(ep 0)" --channel 1 --seed 41 --bits $BITS --ebn0 7 --rate 200000
FEED_PID=$LAST_PID
wait_for 20 '[ "$(chan_stat 1 msgs_out 2>/dev/null || echo 0)" -ge 5 ]' || fail "no data flowing"
out_before=$(chan_stat 1 msgs_out)
t0=$(ms)
rpc_bg huge-regular "$(request regular channel.create "$(chan_json 2 regular "$REGULAR_1M" 2 3)")"
REG_PID=$LAST_PID
rpc_bg huge-peg "$(request peg channel.create "$(chan_json 3 peg "$PEG_100K" 4 5)")"
PEG_PID=$LAST_PID
worst=0 polls=0
while kill -0 "$REG_PID" 2>/dev/null || kill -0 "$PEG_PID" 2>/dev/null; do
	for m in stats.get channel.list; do
		a=$(ms)
		timeout 5 "$FECDCTL" --socket "$CTL_SOCK" --timeout 5 $m >/dev/null ||
			fail "$m did not answer while the codes were being built"
		b=$(ms)
		[ $((b - a)) -gt "$worst" ] && worst=$((b - a))
		polls=$((polls + 1))
	done
	[ $(($(ms) - t0)) -lt 30000 ] || fail "the builds were not answered within 30 s"
done
out_during=$(chan_stat 1 msgs_out)
log "while building: $polls control answers, the slowest in $worst ms; published messages $out_before -> $out_during"
[ "$polls" -ge 4 ] || fail "only $polls control answers while the builds ran: they ended too early to tell"
[ "$worst" -le 1000 ] || fail "a control answer took $worst ms while codes were being built"
[ "$out_during" -gt "$out_before" ] || fail "the stream did not move while codes were being built"
kill -0 "$FEED_PID" 2>/dev/null || fail "the feed ended before the builds did; slow it down"
for job in huge-regular:$REG_PID huge-peg:$PEG_PID; do
	name=${job%:*}
	wait_pid "${job#*:}" 5 || fail "$name: it-rpc still running"
	[ "$WAIT_RC" -eq 0 ] || fail "$name: no answer: $(cat "$IT_TMP/$name.log")"
	answer=$(cat "$IT_TMP/$name.log")
	took=$(($(cat "$IT_TMP/$name.done") - t0))
	log "$name: answered after $took ms: $answer"
	expect_eq "$(jq_get error.code <<<"$answer")" -32004 "$name: error code"
	case $(jq_get error.message <<<"$answer") in
	*"$LIMIT_MSG"*) ;;
	*) fail "$name: the message does not name the limit: $answer" ;;
	esac
	[ "$took" -ge 1900 ] && [ "$took" -le 10000 ] ||
		fail "$name: answered after $took ms; expected the 2000 ms limit, give or take"
done
wait_pid "$FEED_PID" 60 || fail "feed still running"
[ "$WAIT_RC" -eq 0 ] || fail "feed failed: $(cat "$IT_TMP/feed.log")"
check_sink sink 30
expect_eq "$(sink_field sink bits_delivered)" $BITS "bits delivered"
expect_eq "$(sink_field sink bit_errors)" 0 "bit errors"
ctl channel.list | "$IT_JSONQ" channels.1 >/dev/null 2>&1 && fail "a channel was created by a build that failed"

# --- 2: answers on one connection keep the order of its requests.
after=()
for i in $(seq 1 800); do
	after+=("{\"jsonrpc\": \"2.0\", \"id\": $i, \"method\": \"stats.get\", \"params\": {\"id\": 1}}")
done
"$IT_RPC" "$CTL_SOCK" "$(request slow channel.create "$(chan_json 4 slow "$REGULAR_1M" 6 7)")" \
	"${after[@]}" >"$IT_TMP/pipelined.out" || fail "pipelined requests: not every answer came"
first=$(sed -n 1p "$IT_TMP/pipelined.out")
expect_eq "$(jq_get id <<<"$first")" slow "first answer's id"
expect_eq "$(jq_get error.code <<<"$first")" -32004 "first answer's error"
ids=$(tail -n +2 "$IT_TMP/pipelined.out" | while read -r line; do "$IT_JSONQ" id <<<"$line"; done | tr '\n' ' ')
expect_eq "$ids" "$(seq 1 800 | tr '\n' ' ')" "ids of the answers after the slow one"
expect_eq "$(sed -n 801p "$IT_TMP/pipelined.out" | jq_get result.name)" stream "the last answer"

# --- 3: the limit changes live; two creates of one id at once.
IT_GLOBALS='"loop_threads": 1, ' IT_CONTROL=', "build_timeout_ms": 30000' write_config \
	"$(chan_json 1 stream '{"preset": "ccsds"}' 0 1)"
kill -HUP "$IT_FECD_PID"
wait_for 20 'grep -q "reload: done" "$IT_TMP/fecd.log"' || fail "the reload did not finish"
expect_eq "$(ctl config.get | jq_get control.build_timeout_ms)" 30000 "build limit after the reload"
MID='{"family": "ldpc", "code": "regular", "n": 131072}'
rpc_bg twin-a "$(request a channel.create "$(chan_json 7 twin_a "$MID" 8 9)")"
A_PID=$LAST_PID
rpc_bg twin-b "$(request b channel.create "$(chan_json 7 twin_b "$MID" 10 11)")"
B_PID=$LAST_PID
wait_pid "$A_PID" 60 || fail "twin a not answered"
wait_pid "$B_PID" 60 || fail "twin b not answered"
ok=0 exists=0
for name in twin-a twin-b; do
	answer=$(cat "$IT_TMP/$name.log")
	log "$name: $answer"
	if "$IT_JSONQ" result.id <<<"$answer" >/dev/null 2>&1; then
		ok=$((ok + 1))
		winner=${name/-/_}
	elif [ "$("$IT_JSONQ" error.code <<<"$answer")" = -32001 ]; then
		exists=$((exists + 1))
	fi
done
[ $ok -eq 1 ] && [ $exists -eq 1 ] || fail "two creates of id 7: $ok succeeded, $exists got -32001"
expect_eq "$(ctl channel.get '{"id": 7}' | jq_get name)" "$winner" "channel 7's name"

# --- 4: a client that closes at once.
"$IT_RPC" "$CTL_SOCK" --close \
	"$(request gone channel.create "$(chan_json 8 gone '{"family": "ldpc", "code": "regular", "n": 262144}' 12 13)")" ||
	fail "it-rpc --close"
wait_for 60 '"$FECDCTL" --socket "$CTL_SOCK" channel.get "{\"id\": 8}" >/dev/null 2>&1' ||
	fail "channel 8 was not created"
grep -q "was closed before the answer to its channel.create, which succeeded" "$IT_TMP/fecd.log" ||
	fail "the dropped answer was not logged"
ctl stats.get >/dev/null
fecd_alive || fail "fecd died"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
