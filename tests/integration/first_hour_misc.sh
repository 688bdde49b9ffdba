#!/bin/bash
# Integration aj: the smaller things a new user ran into (issue 19's fifth item), each done as
# the user did it.
#  1. fecd-feed to an endpoint nobody listens on: it says that no peer connected and exits 1
#     (before, it printed its summary and exited 0 while every message was lost).
#  2. fecdctl stats.get --watch 0.5 while a paced feed runs: a line per call, rates per second,
#     msgs_in/s above 0 while data flows.
#  3. A preset typo in channel.create: the error suggests the nearest preset and lists them all
#     (the last one included, no name cut off); fecd-feed --code with a typo too.
#  4. A configuration file with a JSON syntax error: the line, the column and what was found.
. "$(dirname "$0")/lib.sh"

write_config "$(chan_json 1 ccsds '{"preset": "ccsds"}' 0 1)"
start_fecd

# --- 1: nobody listening.
t0=$SECONDS
out=$(timeout 30 "$FEED" --endpoint "$(ep 9)" --bits 20000 2>&1) && fail "the feed passed with no peer: $out"
log "no peer ($((SECONDS - t0)) s): $(tail -n 1 <<<"$out")"
case $out in *"no peer connected to $(ep 9) within 10 s"*"not delivered"*) ;;
*) fail "no peer: $out" ;; esac

# --- 2: --watch.
start_sink sink-watch --endpoint "$(ep 1)" --seed 3 --until-eos --timeout 20000
spawn feed-watch "$FEED" --endpoint "$(ep 0)" --seed 3 --bits 400000 --ebn0 7 --rate 200000
FEED_PID=$LAST_PID
spawn watch "$FECDCTL" --socket "$CTL_SOCK" --watch 0.5 stats.get
WATCH_PID=$LAST_PID
wait_for 20 '[ "$(grep -c "ccsds:" "$IT_TMP/watch.log")" -ge 4 ]' ||
	fail "--watch printed too little: $(cat "$IT_TMP/watch.log")"
kill -TERM "$WATCH_PID"
wait_pid "$FEED_PID" 60 || fail "the paced feed did not end"
check_sink sink-watch 30
log "watch: $(head -n 3 "$IT_TMP/watch.log")"
head -n 1 "$IT_TMP/watch.log" | grep -q " msgs_in=[0-9]" || fail "--watch: the first line has no totals"
grep -q " msgs_in/s=[1-9]" "$IT_TMP/watch.log" || fail "--watch: no rate above 0 while data flowed"
grep -q " bits_out/s=" "$IT_TMP/watch.log" || fail "--watch: no bits_out rate"

# --- 3: a preset typo.
out=$(timeout 10 "$FECDCTL" --socket "$CTL_SOCK" channel.create \
	"$(chan_json 2 typo '{"preset": "dvbs-34"}' 2 3)" 2>&1) && fail "preset dvbs-34 accepted"
log "typo: $out"
case $out in *'unknown preset "dvbs-34" (did you mean "dvbs-3/4"?); expected one of "ccsds"'*) ;;
*) fail "preset typo: $out" ;; esac
last=$(ctl codes.list | grep -o '"name": *"[^"]*"' | tail -n 1 | sed 's/.*: *"//; s/"$//')
case $out in *"\"$last\""*) ;; *) fail "the preset list is cut: the last preset '$last' is missing" ;; esac
out=$(timeout 10 "$FEED" --code wifi-34 --bits 10 2>&1) && fail "fecd-feed took --code wifi-34"
case $out in *"unknown code 'wifi-34' (did you mean 'wifi-3/4'?)"*) ;; *) fail "feed typo: $out" ;; esac

# --- 4: a JSON syntax error in the configuration.
printf '{"workers": 2,\n "log_level": "info"\n "channels": []}\n' >"$IT_TMP/bad.json"
out=$(timeout 10 "$FECD" --config "$IT_TMP/bad.json" --check-config 2>&1) &&
	fail "a broken configuration passed --check-config"
log "bad JSON: $out"
case $out in *"invalid JSON at line 3, column 2: found '\"channels\"'"*) ;;
*) fail "JSON error: $out" ;; esac

stop_fecd
log "PASS"
