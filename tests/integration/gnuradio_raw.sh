#!/bin/bash
# Integration f: GNU Radio compatible input and output. fecd-feed sends raw items the way a
# gr-zeromq PUSH sink does: float32 LLRs without a header, float32 with the pass_tags header
# (built from the format, with a tag now and then), and uint8 offset-binary items. fecd publishes
# GNU Radio PDUs (packed, and unpacked one bit per byte), and fecd-sink --pdu checks every bit.
# Raw items carry no end of stream, so the feed sends PAD bits past those checked: fecd holds the
# last traceback span back until more data comes or input.idle_flush_ms passes (idle_flush.sh).
. "$(dirname "$0")/lib.sh"

BITS=200000
# The sinks stop once they have their bits; what fecd decodes from the held-back tail at SIGTERM
# then has no reader, and waiting the default 10 s linger for it would only slow the test.
IT_LINGER_MS=500
PAD=8192
gr_in() { echo ', "protocol": "gnuradio", "gnuradio": {"format": "'"$1"'", "tags": "'"$2"'"}'; }
write_config \
	"$(chan_json 1 f32 '{"preset": "ccsds"}' 0 1 "$(gr_in f32 off)" ', "protocol": "pdu"')" \
	"$(chan_json 2 f32tags '{"preset": "ccsds"}' 2 3 "$(gr_in f32 on)" ', "protocol": "pdu", "pdu_unpacked": true')" \
	"$(chan_json 3 u8auto '{"preset": "ccsds"}' 4 5 "$(gr_in u8 auto)" ', "protocol": "pdu"')"
start_fecd

# name channel in-port out-port format [feed options...]
run_case() {
	local name=$1 ch=$2 inp=$3 outp=$4 fmt=$5
	shift 5
	start_sink "sink-$name" --pdu --endpoint "$(ep "$outp")" --seed $((600 + ch)) \
		--expect-bits $BITS --timeout 20000
	run_feed "feed-$name" 60 --endpoint "$(ep "$inp")" --gnuradio --format "$fmt" \
		--seed $((600 + ch)) --bits $((BITS + PAD)) --ebn0 7 "$@"
	check_sink "sink-$name" 30
	expect_eq "$(sink_field "sink-$name" bit_errors)" 0 "$name bit errors"
	expect_eq "$(sink_field "sink-$name" lost_bits)" 0 "$name lost bits"
	st=$(ctl stats.get "{\"id\": $ch}") || fail "stats.get"
	expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "$name bad_msgs"
	expect_eq "$(jq_get symbols_in <<<"$st")" "$(feed_field "feed-$name" symbols)" "$name symbols_in"
	log "$name: ok ($(sink_field "sink-$name" bits_delivered) bits)"
}

run_case f32 1 0 1 f32
run_case f32tags 2 2 3 f32 --gr-tags
run_case u8auto 3 4 5 u8 --gr-tags

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
