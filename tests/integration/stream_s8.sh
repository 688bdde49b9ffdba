#!/bin/bash
# Integration a: 10^6 information bits of the CCSDS stream code at Eb/N0 = 7 dB, s8 soft symbols,
# through PUSH -> fecd (PULL in, PUSH out) -> PULL. Every bit must come back, in order, without an
# error; the daemon's counters must match what the feed sent; the daemon must have said READY=1,
# STATUS= and WATCHDOG=1 to its notification socket, and exit 0 on SIGTERM.
. "$(dirname "$0")/lib.sh"

BITS=1000000
write_config "$(chan_json 1 ccsds '{"preset": "ccsds"}' 0 1)"
start_fecd

start_sink sink --endpoint "$(ep 1)" --seed 11 --expect-bits $BITS --until-eos --timeout 30000 \
	--stamps "$IT_TMP/stamps"
run_feed feed 60 --endpoint "$(ep 0)" --channel 1 --seed 11 --bits $BITS --ebn0 7 --format s8 \
	--stamps "$IT_TMP/stamps"
check_sink sink 40

expect_eq "$(sink_field sink bits_delivered)" $BITS "bits delivered"
expect_eq "$(sink_field sink bit_errors)" 0 "bit errors"
expect_eq "$(sink_field sink lost_bits)" 0 "lost bits"
expect_eq "$(sink_field sink out_of_order)" 0 "out-of-order messages"
expect_eq "$(sink_field sink duplicates)" 0 "duplicated bits"
expect_eq "$(sink_field sink code_gens)" "[1]" "code generations"

syms=$(feed_field feed symbols)
msgs=$(feed_field feed messages)
st=$(ctl stats.get '{"id": 1}') || fail "stats.get"
expect_eq "$(jq_get symbols_in <<<"$st")" "$syms" "stats symbols_in"
expect_eq "$(jq_get msgs_in <<<"$st")" "$msgs" "stats msgs_in"
expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "stats bad_msgs"
expect_eq "$(jq_get bits_out <<<"$st")" $BITS "stats bits_out"
expect_eq "$(jq_get failures <<<"$st")" 0 "stats failures"
expect_eq "$(jq_get queue_syms <<<"$st")" 0 "stats queue_syms after the stream ended"

grep -q '^STATUS=' "$IT_TMP/notify.out" || fail "no STATUS= line on the notification socket"
wait_for 5 'grep -q "^WATCHDOG=1" "$IT_TMP/notify.out"' ||
	fail "no WATCHDOG=1 within 5 s with WATCHDOG_USEC=2 s"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS: $BITS bits, latency p50 $(sink_field sink latency_ms.p50) ms p99 $(sink_field sink latency_ms.p99) ms"
