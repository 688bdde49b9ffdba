#!/bin/bash
# Integration b: frame codes. Terminated CCSDS frames of varying length (a seeded schedule of 100
# to 4000 bits, one message per frame), the same code with each frame split over three messages,
# DVB-S 3/4 punctured terminated frames (lengths in steps of 3, so that bits plus the 6 tail bits
# fill whole puncturing periods), and truncated 802.11 2/3 frames (noiseless: a truncated
# frame's last bits are weakly protected by design). Zero bit errors, zero lost frames, and the
# daemon's frame counters agree.
. "$(dirname "$0")/lib.sh"

NF=150
write_config \
	"$(chan_json 1 term '{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 4096}' 0 1)" \
	"$(chan_json 2 split '{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 4096}' 2 3)" \
	"$(chan_json 3 dvbs34 '{"preset": "dvbs-3/4", "mode": "terminated", "max_frame_bits": 2048}' 4 5)" \
	"$(chan_json 4 wifi23 '{"preset": "wifi-2/3", "mode": "truncated", "max_frame_bits": 2048}' 6 7)"
start_fecd

# name channel in-port out-port frame-bits code-text [feed options...]
run_case() {
	local name=$1 ch=$2 inp=$3 outp=$4 fb=$5 code=$6
	shift 6
	local split=1
	for a in "$@"; do case $a in --split=*) split=${a#--split=} ;; esac; done
	start_sink "sink-$name" --endpoint "$(ep "$outp")" --seed $((200 + ch)) --frame-bits "$fb" \
		--split "$split" --expect-frames $NF --timeout 30000
	run_feed "feed-$name" 60 --endpoint "$(ep "$inp")" --channel "$ch" --seed $((200 + ch)) \
		--code "$code" --frames $NF --frame-bits "$fb" --ebn0 7 "$@"
	check_sink "sink-$name" 40
	expect_eq "$(sink_field "sink-$name" frames)" $NF "$name frames received"
	expect_eq "$(sink_field "sink-$name" lost_frames)" 0 "$name lost frames"
	expect_eq "$(sink_field "sink-$name" bit_errors)" 0 "$name bit errors"
	expect_eq "$(sink_field "sink-$name" bits)" "$(feed_field "feed-$name" bits)" "$name bits"
	st=$(ctl stats.get "{\"id\": $ch}") || fail "stats.get"
	expect_eq "$(jq_get frames_out <<<"$st")" $NF "$name stats frames_out"
	expect_eq "$(jq_get frame_errors <<<"$st")" 0 "$name stats frame_errors"
	expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "$name stats bad_msgs"
	expect_eq "$(jq_get symbols_in <<<"$st")" "$(feed_field "feed-$name" symbols)" "$name symbols_in"
	log "$name: ok"
}

run_case term 1 0 1 100:4000 "ccsds,mode=terminated,max_frame_bits=4096"
run_case split 2 2 3 2000 "ccsds,mode=terminated,max_frame_bits=4096" --split=3
run_case dvbs34 3 4 5 300:2046:3 "dvbs-3/4,mode=terminated,max_frame_bits=2048"
run_case wifi23 4 6 7 1000 "wifi-2/3,mode=truncated,max_frame_bits=2048" --noiseless

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
