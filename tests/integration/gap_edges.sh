#!/bin/bash
# Integration i: sequence gaps at their edges (PROTOCOL.md section 6).
#  1. SUB, frames split over two messages: the feed loses the end of frame 5 and the start of
#     frame 6, so frame 6's second half (the same length as frame 5's) arrives next. A frame cut
#     by a gap is dropped, never completed with another frame's symbols: 2 frame errors, 18
#     frames out, and every published frame decodes without error.
#  2. SUB stream, a hole too large to bridge with erasures (a sender that comes back 100000
#     messages on): the stream ends at the hole and a new one starts, so the receiver sees a
#     restart instead of bits shifted into the wrong positions. Then, with nobody reading the
#     output, queue_syms counts every accepted symbol (bridged erasures are not input).
#  3. PULL: ZMQ cannot lose messages there, so a jump in seq is a sender restart: no gap counted.
#  4. A bare END_OF_STREAM marker after frames (section 5) is not taken for a frame by fecd-sink.
. "$(dirname "$0")/lib.sh"

IT_LINGER_MS=500 # part 2 leaves output nobody reads: do not wait for it at exit

write_config \
	"$(chan_json 1 subframes '{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 4096}' 0 1 ', "socket": "sub"')" \
	"$(chan_json 2 substream '{"preset": "ccsds"}' 2 3 ', "socket": "sub"')" \
	"$(chan_json 3 pull '{"preset": "ccsds"}' 4 5)" \
	"$(chan_json 4 onejob '{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 4096}' 6 7 '' '' ', "batch": {"jobs": 1}')"
start_fecd

# --- 1: a gap that cuts two frames into halves of the same length.
start_sink sink-fr --endpoint "$(ep 1)" --seed 91 --frame-bits 1024 --split 2 --timeout 2000 \
	--allow-loss
run_feed feed-fr 30 --socket pub --endpoint "$(ep 0)" --channel 1 --seed 91 \
	--code "ccsds,mode=terminated,max_frame_bits=4096" --frames 20 --frame-bits 1024 --split 2 \
	--rate 400000 --start-delay 500 --skip-seq 11,12
check_sink sink-fr 20
st=$(ctl stats.get '{"id": 1}') || fail "stats.get"
log "frames: $st"
expect_eq "$(jq_get gaps <<<"$st")" 1 "frames: gaps"
expect_eq "$(jq_get frame_errors <<<"$st")" 2 "frames: frames dropped at the gap"
expect_eq "$(jq_get frames_out <<<"$st")" 18 "frames: frames out"
expect_eq "$(sink_field sink-fr bit_errors)" 0 "frames: bit errors (a frame of two halves?)"

# --- 2: a bridged hole, then an unbridgeable one, which ends the stream.
start_sink sink-st --endpoint "$(ep 3)" --seed 92 --timeout 2000 --until-eos --allow-loss \
	--max-ber 1
run_feed feed-st1 30 --socket pub --endpoint "$(ep 2)" --channel 2 --seed 92 --bits 40000 \
	--rate 400000 --start-delay 500 --no-eos --skip-seq 3
run_feed feed-st2 30 --socket pub --endpoint "$(ep 2)" --channel 2 --seed 92 --bits 40000 \
	--rate 400000 --start-delay 500 --seq-start 100000
check_sink sink-st 20
st=$(ctl stats.get '{"id": 2}') || fail "stats.get"
log "stream: $st"
expect_eq "$(jq_get gaps <<<"$st")" 2 "stream: gaps"
expect_eq "$(sink_field sink-st restarts)" 1 "stream: restarts at the hole"
expect_eq "$(jq_get queue_syms <<<"$st")" 0 "stream: queue_syms with everything published"
# Nobody reads the output now: everything the next run sends stays queued, and queue_syms says
# so (the bridged erasures published above are not input symbols and must not offset it).
run_feed feed-st3 30 --socket pub --endpoint "$(ep 2)" --channel 2 --seed 92 --bits 40000 \
	--rate 400000 --start-delay 500
in0=$(jq_get symbols_in <<<"$st")
# fecd stops reading once its batch slots are full (backpressure): compare with what it took.
queue_ok() {
	local now
	now=$(ctl stats.get '{"id": 2}') || return 1
	local got=$(($(jq_get symbols_in <<<"$now") - in0)) q=$(jq_get queue_syms <<<"$now")
	log "stream: received $got symbols of the third run, queue_syms $q"
	[ "$got" -gt 8192 ] && [ "$q" = "$got" ]
}
wait_for 5 queue_ok || fail "stream: queue_syms does not count the symbols waiting for the output"

# --- 3: PULL counts no gaps.
start_sink sink-pull --endpoint "$(ep 5)" --seed 93 --timeout 2000 --until-eos --allow-loss \
	--max-ber 1
run_feed feed-pull 30 --endpoint "$(ep 4)" --channel 3 --seed 93 --bits 40000 --skip-seq 3
check_sink sink-pull 20
st=$(ctl stats.get '{"id": 3}') || fail "stats.get"
log "pull: $st"
expect_eq "$(jq_get gaps <<<"$st")" 0 "pull: gaps"
expect_eq "$(jq_get gap_msgs <<<"$st")" 0 "pull: gap_msgs"

# --- 4: one frame per batch, so the last frame has left when END_OF_STREAM is seen: a bare
# end-of-stream marker (payload_bits 0) follows it, and the receiver must not take it for a frame.
start_sink sink-one --endpoint "$(ep 7)" --seed 94 --frame-bits 1024 --expect-frames 5 --until-eos \
	--timeout 5000
run_feed feed-one 30 --endpoint "$(ep 6)" --channel 4 --seed 94 \
	--code "ccsds,mode=terminated,max_frame_bits=4096" --frames 5 --frame-bits 1024
check_sink sink-one 20
expect_eq "$(sink_field sink-one frames)" 5 "one job per batch: frames"
expect_eq "$(sink_field sink-one bit_errors)" 0 "one job per batch: bit errors"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
