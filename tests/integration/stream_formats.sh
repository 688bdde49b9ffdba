#!/bin/bash
# Integration a, variants: the CCSDS stream in every other wire format — u8 offset binary, f32
# LLRs (the channel's llr_scale converts them), 4-bit packed s4 — and s8 with inverted polarity
# (FECD_IN_POLARITY_ONE), each at 7 dB on a channel of its own: zero errors, zero loss.
. "$(dirname "$0")/lib.sh"

BITS=200000
write_config \
	"$(chan_json 1 u8 '{"preset": "ccsds"}' 0 1)" \
	"$(chan_json 2 f32 '{"preset": "ccsds"}' 2 3 ', "llr_scale": 4')" \
	"$(chan_json 3 s4 '{"preset": "ccsds"}' 4 5)" \
	"$(chan_json 4 s8inv '{"preset": "ccsds"}' 6 7)"
start_fecd

# format channel in-port out-port extra-feed-options
run_case() {
	local fmt=$1 ch=$2 inp=$3 outp=$4
	shift 4
	start_sink "sink-$ch" --endpoint "$(ep "$outp")" --seed $((100 + ch)) --expect-bits $BITS \
		--until-eos --timeout 30000
	run_feed "feed-$ch" 60 --endpoint "$(ep "$inp")" --channel "$ch" --seed $((100 + ch)) \
		--bits $BITS --ebn0 7 --format "$fmt" "$@"
	check_sink "sink-$ch" 40
	expect_eq "$(sink_field "sink-$ch" bits_delivered)" $BITS "$fmt bits delivered"
	expect_eq "$(sink_field "sink-$ch" bit_errors)" 0 "$fmt bit errors"
	st=$(ctl stats.get "{\"id\": $ch}") || fail "stats.get"
	expect_eq "$(jq_get symbols_in <<<"$st")" "$(feed_field "feed-$ch" symbols)" "$fmt symbols_in"
	expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "$fmt bad_msgs"
	log "$fmt: ok"
}

run_case u8 1 0 1
run_case f32 2 2 3
run_case s4 3 4 5
run_case s8 4 6 7 --polarity one

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
