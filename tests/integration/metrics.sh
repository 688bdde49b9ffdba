#!/bin/bash
# Integration o: Prometheus metrics over HTTP (metrics.listen).
#  1. Bad metrics.listen values are refused with a message naming the setting and the form
#     expected; an address already in use stops fecd at start with the reason.
#  2. Three channels: a stream with the feed's 15 malformed messages between good ones, frame
#     codes with frames too long for the channel and then good ones, a SUB stream that loses
#     messages. A scrape must agree with stats.get and with what was sent, exactly: messages,
#     symbols, bytes and bits, each reason of the rejected messages and dropped frames, gaps,
#     frames by status, batches, control requests and errors; the latency histogram's +Inf
#     bucket equals its count and its buckets never decrease.
#  3. Every line of a scrape parses (HELP, TYPE, samples with valid names, labels and values,
#     each family's samples together after its TYPE); another path gets 404, POST gets 405,
#     HEAD answers without a body.
#  4. Scrapes every 50 ms while a stream runs: each one answers and parses, counters never go
#     back, and the stream arrives whole.
#  5. Idle connections up to the per-address limit: a further scrape is refused while the data
#     path carries on; the idle ones are dropped after the idle timeout and scrapes answer again.
#  6. A main loop slower than the scrape's 2 s wait (FECD_METRICS_TEST_DELAY_MS=3000, channels
#     on loop threads): the first scrape gets 503, a stream meanwhile arrives whole, a later
#     scrape gets the last snapshot and says its age.
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null || skip "curl is not installed (scripts/deps.sh installs it)"

MPORT=$(port 19)
URL=http://127.0.0.1:$MPORT

# scrape FILE [PATH]: GET the metrics into FILE; fails when the answer is not 200.
scrape() {
	curl -sS -f --max-time 10 -o "$1" "$URL${2:-/metrics}"
}

# mval FILE SERIES: the value of one series (name{labels} exactly as written), or nothing.
mval() {
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

# Checks the text exposition format of FILE line by line; prints what is wrong.
check_format() {
	awk '
	function bad(msg) { printf "line %d: %s: %s\n", NR, msg, $0; err = 1; exit 1 }
	/^# HELP / { if (NF < 4) bad("HELP without text"); if ($3 in helped) bad("second HELP");
		helped[$3] = 1; next }
	/^# TYPE / { if ($3 in typed) bad("second TYPE")
		if ($4 !~ /^(counter|gauge|histogram|summary|untyped)$/ || NF != 4) bad("bad TYPE")
		typed[$3] = $4; cur = $3; next }
	/^#/ { bad("a comment that is neither HELP nor TYPE") }
	{
		if (!match($0, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) bad("no metric name")
		name = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1); labels = ""
		if (substr(rest, 1, 1) == "{") {
			if (!match(rest, /^\{[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")*\}/))
				bad("bad labels")
			labels = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
		}
		if (rest !~ /^ ([-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|[-+]?Inf|NaN)$/) bad("bad value")
		v = substr(rest, 2) + 0
		fam = name; base = name; sub(/_(bucket|sum|count)$/, "", base)
		if (!(name in typed) && (base in typed) && typed[base] == "histogram") fam = base
		if (!(fam in typed)) bad("sample without a TYPE line")
		if (fam != cur) bad("sample away from its family")
		if (typed[fam] == "counter" && (name !~ /_total$/ || v < 0)) bad("counter")
		if (fam != name) {
			key = labels; sub(/,?le="[^"]*"/, "", key)
			if (name ~ /_bucket$/) {
				if (labels !~ /le="/) bad("bucket without le")
				if ((key in last) && v < last[key]) bad("bucket below the one before")
				last[key] = v
				if (labels ~ /le="\+Inf"/) inf[key] = v
			} else if (name ~ /_count$/) {
				count[key] = v
			}
		}
		samples++
	}
	END {
		if (err) exit 1
		for (k in count) if (!(k in inf) || inf[k] != count[k]) {
			printf "histogram %s: +Inf bucket %s, count %s\n", k, inf[k], count[k]; exit 1 }
		if (!samples) { print "no samples"; exit 1 }
	}' "$1"
}

# --- 1: bad values, and an address in use.
for v in 'localhost:9464' '127.0.0.1' '127.0.0.1:0' '127.0.0.1:65536' '::1:9464' '[::1]9464' \
	'[nonsense]:9464' '300.1.1.1:80' '127.0.0.1:80x'; do
	printf '{"metrics": {"listen": "%s"}, "channels": []}\n' "$v" >"$IT_TMP/bad.json"
	if out=$("$FECD" --check-config --config "$IT_TMP/bad.json" 2>&1); then
		fail "metrics.listen \"$v\" was accepted: $out"
	fi
	grep -q 'metrics.listen: expected "HOST:PORT" with a numeric IPv4 address' <<<"$out" ||
		fail "metrics.listen \"$v\": unclear message: $out"
done
log "bad metrics.listen values refused: $out"
printf '{"metrics": {"listen": "[::1]:9464"}, "channels": []}\n' >"$IT_TMP/v6.json"
"$FECD" --check-config --config "$IT_TMP/v6.json" >/dev/null 2>&1 || fail "[::1]:9464 refused"

IT_GLOBALS="\"metrics\": {\"listen\": \"127.0.0.1:$MPORT\"}, "
write_config \
	"$(chan_json 1 stream '{"preset": "ccsds"}' 0 1)" \
	"$(chan_json 2 frames '{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 1024}' 2 3)" \
	"$(chan_json 3 sub '{"preset": "ccsds"}' 4 5 ', "socket": "sub"')"
start_fecd

cat >"$IT_TMP/second.json" <<EOF
{"control": {"socket": "$IT_TMP/second.sock"}, "metrics": {"listen": "127.0.0.1:$MPORT"},
 "channels": []}
EOF
if out=$(timeout 20 "$FECD" --config "$IT_TMP/second.json" 2>&1); then
	fail "a second fecd on metrics port $MPORT started"
fi
grep -q "metrics.listen 127.0.0.1:$MPORT: cannot listen there: Address already in use" <<<"$out" ||
	fail "second fecd: no clear message for the port in use: $out"
log "metrics port in use: $(grep metrics.listen <<<"$out")"

# --- 2: traffic with bad input, then the numbers.
start_sink sink1 --endpoint "$(ep 1)" --seed 71 --expect-bits 200000 --until-eos --timeout 30000
run_feed feed1 60 --endpoint "$(ep 0)" --channel 1 --seed 71 --bits 200000 --ebn0 7 --inject-bad
check_sink sink1 40
expect_eq "$(feed_field feed1 bad)" 15 "malformed messages sent"

# 5 frames of 2048 bits into a channel for at most 1024: each dropped (frame_len); then 10 good.
FCODE="ccsds,mode=terminated,max_frame_bits=4096"
run_feed feed2bad 30 --endpoint "$(ep 2)" --channel 2 --seed 72 --code "$FCODE" --frames 5 \
	--frame-bits 2048 --no-eos
start_sink sink2 --endpoint "$(ep 3)" --seed 73 --frame-bits 512 --expect-frames 10 --timeout 30000
run_feed feed2 30 --endpoint "$(ep 2)" --channel 2 --seed 73 --code "$FCODE" --frames 10 \
	--frame-bits 512
check_sink sink2 30

# SUB: messages 5, 6 and 20 never sent: two gaps, three messages lost.
start_sink sink3 --endpoint "$(ep 5)" --seed 74 --until-eos --allow-loss --max-ber 1 --timeout 3000
run_feed feed3 30 --socket pub --endpoint "$(ep 4)" --channel 3 --seed 74 --bits 100000 \
	--rate 400000 --start-delay 500 --skip-seq 5,6,20
check_sink sink3 30

for ch in 1 2 3; do
	wait_for 20 '[ "$(chan_stat '$ch' queue_syms)" = 0 ]' || fail "channel $ch: symbols left queued"
done
ST1=$(ctl stats.get '{"id": 1}')
ST2=$(ctl stats.get '{"id": 2}')
ST3=$(ctl stats.get '{"id": 3}')
M=$IT_TMP/m1.txt
L1='{channel="stream",id="1"}'
L2='{channel="frames",id="2"}'
L3='{channel="sub",id="3"}'
LBL=("" "$L1" "$L2" "$L3")
STS=("" "$ST1" "$ST2" "$ST3")
# A scrape may be up to 250 ms old: wait for one that has the last output.
wait_for 10 'scrape "$M" && [ "$(mval "$M" "fecd_output_bits_total$L3")" = "$(jq_get bits_out <<<"$ST3")" ]' ||
	fail "no scrape with channel 3's bits_out $(jq_get bits_out <<<"$ST3")"
log "scrape: $(wc -l <"$M") lines, $(wc -c <"$M") bytes"
fmt=$(check_format "$M") || fail "format: $fmt"

# same NAME LABELS STATS FIELD: the series equals the stats.get field.
same() {
	expect_eq "$(mval "$M" "$1$2")" "$(jq_get "$4" <<<"$3")" "$1$2 against stats.get $4"
}
for i in 1 2 3; do
	L=${LBL[$i]} ST=${STS[$i]}
	same fecd_input_messages_total "$L" "$ST" msgs_in
	same fecd_input_symbols_total "$L" "$ST" symbols_in
	same fecd_input_bytes_total "$L" "$ST" bytes_in
	same fecd_output_bits_total "$L" "$ST" bits_out
	same fecd_input_gaps_total "$L" "$ST" gaps
	same fecd_input_lost_messages_total "$L" "$ST" gap_msgs
	same fecd_queue_symbols "$L" "$ST" queue_syms
	same fecd_code_generation "$L" "$ST" code_gen
	same fecd_batches_total "${L%\}},backend=\"cpu\"}" "$ST" batches_cpu
	same fecd_jobs_retried_total "$L" "$ST" jobs_retried
	same fecd_input_sampled_symbols_total "$L" "$ST" in_sampled_syms
	same fecd_input_clipped_symbols_total "$L" "$ST" in_clipped_syms
	same fecd_input_health_warnings_total "$L" "$ST" in_health_warnings
	same fecd_batches_total "${L%\}},backend=\"cuda\"}" "$ST" batches_gpu
	for r in parts header format length channel framing; do
		same fecd_input_rejected_messages_total "${L%\}},reason=\"$r\"}" "$ST" \
			"bad_msgs_by_reason.$r"
	done
	for r in frame_len overrun short unstarted unfinished gap truncated; do
		same fecd_frames_dropped_total "${L%\}},reason=\"$r\"}" "$ST" \
			"frame_errors_by_reason.$r"
	done
	for s in decoded not_converged erased; do
		same fecd_output_messages_total "${L%\}},status=\"$s\"}" "$ST" "msgs_out_by_status.$s"
		same fecd_output_frames_total "${L%\}},status=\"$s\"}" "$ST" "frames_out_by_status.$s"
	done
	n=$(mval "$M" "fecd_latency_seconds_count$L")
	[ "$n" -gt 0 ] && [ "$n" -le "$(jq_get msgs_out <<<"$ST")" ] ||
		fail "channel $i: latency count $n, msgs_out $(jq_get msgs_out <<<"$ST")"
done
# ... and what was sent: the feed's good messages and symbols, and the malformed ones by reason
# (truncated header, magic, version, type, hdr_len twice, flags, empty: header; three parts,
# header only, garbage: parts; huge count and payload length: length).
expect_eq "$(mval "$M" "fecd_input_messages_total$L1")" "$(feed_field feed1 messages)" "messages sent"
expect_eq "$(mval "$M" "fecd_input_symbols_total$L1")" "$(feed_field feed1 symbols)" "symbols sent"
expect_eq "$(mval "$M" "fecd_output_bits_total$L1")" 200000 "bits decoded"
for rn in parts=3 header=8 format=1 length=2 channel=1 framing=0; do
	expect_eq "$(mval "$M" "fecd_input_rejected_messages_total${L1%\}},reason=\"${rn%=*}\"}")" \
		"${rn#*=}" "rejected messages, reason ${rn%=*}"
done
expect_eq "$(mval "$M" "fecd_frames_dropped_total${L2%\}},reason=\"frame_len\"}")" 5 "frames too long"
expect_eq "$(mval "$M" "fecd_output_frames_total${L2%\}},status=\"decoded\"}")" 10 "frames decoded"
expect_eq "$(mval "$M" "fecd_input_gaps_total$L3")" 2 "SUB gaps"
expect_eq "$(mval "$M" "fecd_input_lost_messages_total$L3")" 3 "SUB messages lost"
expect_eq "$(mval "$M" fecd_channels)" 3 "channels"
if [ "$(mval "$M" fecd_gpu_active)" = 0 ] &&
	[ "$(mval "$M" 'fecd_backend_info{configured="auto",active="cpu"}')" = 1 ]; then
	total=0
	for i in 1 2 3; do
		total=$((total + $(mval "$M" "fecd_batches_total${LBL[$i]%\}},backend=\"cpu\"}")))
	done
	expect_eq "$(mval "$M" 'fecd_gpu_fallback_batches_total{reason="not_on_gpu"}')" $total \
		"batches the GPU backend gave the CPU (no GPU here)"
fi

# Control: three requests, two of them failing.
wait_for 10 'scrape "$M"' || fail "scrape"
req0=$(mval "$M" fecd_control_requests_total)
e601=$(mval "$M" 'fecd_control_errors_total{code="-32601"}')
e000=$(mval "$M" 'fecd_control_errors_total{code="-32000"}')
ctl channel.list >/dev/null
timeout 10 "$FECDCTL" --socket "$CTL_SOCK" no.such.method >/dev/null 2>&1 && fail "no.such.method answered"
timeout 10 "$FECDCTL" --socket "$CTL_SOCK" channel.get '{"id": 99}' >/dev/null 2>&1 && fail "channel 99 found"
wait_for 10 'scrape "$M" && [ "$(mval "$M" fecd_control_requests_total)" = $((req0 + 3)) ]' ||
	fail "control requests $(mval "$M" fecd_control_requests_total), expected $((req0 + 3))"
expect_eq "$(mval "$M" 'fecd_control_errors_total{code="-32601"}')" $((e601 + 1)) "-32601 errors"
expect_eq "$(mval "$M" 'fecd_control_errors_total{code="-32000"}')" $((e000 + 1)) "-32000 errors"

# --- 3: the other paths and methods.
code=$(curl -s -o "$IT_TMP/404.txt" -w '%{http_code}' --max-time 10 "$URL/other")
expect_eq "$code" 404 "GET /other"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$URL/")
expect_eq "$code" 404 "GET /"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST -d x=1 "$URL/metrics")
expect_eq "$code" 405 "POST /metrics"
hdr=$(curl -sS -I --max-time 10 "$URL/metrics") || fail "HEAD /metrics"
grep -q '^HTTP/1.1 200' <<<"$hdr" || fail "HEAD /metrics: $hdr"
grep -qi '^Content-Type: text/plain; version=0.0.4' <<<"$hdr" || fail "HEAD: content type: $hdr"

# --- 4: scrapes while a stream runs.
BITS=3000000
start_sink sinkl --endpoint "$(ep 1)" --seed 75 --expect-bits $BITS --until-eos --timeout 60000
spawn feedl "$FEED" --endpoint "$(ep 0)" --channel 1 --seed 75 --bits $BITS --ebn0 7 --rate 1500000
FEED_PID=$LAST_PID
n=0 prev=0 slowest=0
while kill -0 "$FEED_PID" 2>/dev/null || [ $n -lt 20 ]; do
	t=$(curl -sS -f --max-time 10 -o "$IT_TMP/ml.txt" -w '%{time_total}' "$URL/metrics") ||
		fail "scrape $n under load"
	fmt=$(check_format "$IT_TMP/ml.txt") || fail "scrape $n under load: $fmt"
	v=$(mval "$IT_TMP/ml.txt" "fecd_input_symbols_total$L1")
	[ "$v" -ge "$prev" ] || fail "fecd_input_symbols_total went back: $prev -> $v"
	prev=$v
	slowest=$(awk -v a="$t" -v b="$slowest" 'BEGIN { print (a > b) ? a : b }')
	n=$((n + 1))
	sleep 0.05
done
wait_pid "$FEED_PID" 60 || fail "the feed under load did not finish"
expect_eq "$WAIT_RC" 0 "feed under load exit status"
check_sink sinkl 60
expect_eq "$(sink_field sinkl bits_delivered)" $BITS "bits delivered while scraped"
expect_eq "$(sink_field sinkl bit_errors)" 0 "bit errors while scraped"
log "$n scrapes while $BITS bits streamed; slowest ${slowest}s; stream p99 $(chan_stat 1 lat_p99_ms) ms"

# --- 5: idle connections up to the per-address limit (4), then one more scrape.
exec {c1}<>/dev/tcp/127.0.0.1/$MPORT {c2}<>/dev/tcp/127.0.0.1/$MPORT \
	{c3}<>/dev/tcp/127.0.0.1/$MPORT {c4}<>/dev/tcp/127.0.0.1/$MPORT || fail "idle connections"
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&$c4 # a request that never ends
sleep 0.3
if curl -s -f --max-time 5 -o /dev/null "$URL/metrics"; then
	fail "a fifth connection from one address was served"
fi
start_sink sinki --endpoint "$(ep 1)" --seed 76 --expect-bits 100000 --until-eos --timeout 30000
run_feed feedi 30 --endpoint "$(ep 0)" --channel 1 --seed 76 --bits 100000 --ebn0 7
check_sink sinki 30
ctl stats.get '{"id": 1}' >/dev/null
# The idle ones are dropped after 10 s without progress.
wait_for 20 'curl -s -f --max-time 5 -o /dev/null "$URL/metrics"' ||
	fail "idle connections still block scrapes after 20 s"
exec {c1}>&- {c2}>&- {c3}>&- {c4}>&-
fecd_alive || fail "fecd died"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"

# --- 6: a busy main loop.
IT_GLOBALS="\"metrics\": {\"listen\": \"127.0.0.1:$MPORT\"}, \"loop_threads\": 2, "
write_config "$(chan_json 1 stream '{"preset": "ccsds"}' 0 1)"
: >"$IT_TMP/notify.out"
export FECD_METRICS_TEST_DELAY_MS=3000
start_fecd
unset FECD_METRICS_TEST_DELAY_MS
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$URL/metrics")
expect_eq "$code" 503 "scrape with no snapshot yet and the main loop busy"
start_sink sinkb --endpoint "$(ep 1)" --seed 77 --expect-bits 200000 --until-eos --timeout 30000
run_feed feedb 30 --endpoint "$(ep 0)" --channel 1 --seed 77 --bits 200000 --ebn0 7
check_sink sinkb 30
expect_eq "$(sink_field sinkb bits_delivered)" 200000 "bits delivered while the main loop was busy"
# Control answers once the main loop has made that first snapshot; the next scrape makes it
# work on another for 3 s, and gets the first one after its 2 s wait.
ctl channel.list >/dev/null
scrape "$M" || fail "no scrape after the main loop's first snapshot"
fmt=$(check_format "$M") || fail "stale scrape: $fmt"
age=$(mval "$M" fecd_metrics_snapshot_age_seconds)
awk -v a="$age" 'BEGIN { exit !(a >= 2) }' || fail "stale scrape's age $age, expected 2 s or more"
grep -q "metrics: the main loop did not answer within 2000 ms; serving the last snapshot" \
	"$IT_TMP/fecd.log" || fail "no log line for the stale snapshot"
log "busy main loop: 503 first, then a snapshot ${age}s old; the stream went through"
stop_fecd 30
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM (busy main loop)"
log "PASS: metrics agree with stats.get and the feeds, the format parses, scrapes under load, idle connections and a busy main loop hold"
