#!/bin/bash
# Integration: an idle stream's tail is flushed (input.idle_flush_ms), and the stream goes on.
# A GNU Radio raw stream never sends END_OF_STREAM, so the last traceback span of what was sent
# would wait for more input forever. Channel 1 keeps the default idle time: fecd-feed --gnuradio
# sends N bits and stops; a first sink must get all N (BER 0 at 7 dB) while nothing more is sent.
# Then a second run continues the same stream (fecd-feed --bit-start N: the encoder as after the
# first N bits) and a second sink (--bit-start N) must get bits N..2N-1 at the next offsets: no
# gap, no duplicate, no restart, no END_OF_STREAM. The channel's code is given by its polynomials
# alone ({"family": "viterbi", "k": 7, "polys": [171, 133]}) and the feed encodes dvbs-1/2:
# the textbook code, with no output inverted.
# Channel 2 has idle_flush_ms 0: its tail stays held well past the default idle time, until a
# live channel.update sets an idle time. Channel 3 is a native stream that ends with
# END_OF_STREAM, as before: every bit, one END_OF_STREAM, no restart.
. "$(dirname "$0")/lib.sh"

N=100000
IT_LINGER_MS=500
gr_in() { echo ', "protocol": "gnuradio", "gnuradio": {"format": "f32", "tags": "off"}'"$1"; }
write_config \
	"$(chan_json 1 grflush '{"family": "viterbi", "k": 7, "polys": [171, 133]}' 0 1 "$(gr_in '')")" \
	"$(chan_json 2 grhold '{"preset": "ccsds"}' 2 3 "$(gr_in ', "idle_flush_ms": 0')")" \
	"$(chan_json 3 native '{"preset": "ccsds"}' 4 5)"
start_fecd

st=$(ctl channel.get '{"id": 1}') || fail "channel.get"
expect_eq "$(jq_get config.input.idle_flush_ms <<<"$st")" 500 "the default idle_flush_ms"

# Channel 1, first run: N bits, then nothing. The sink must have them all within the idle time
# and some margin, before the second run starts.
start_sink sink-first --endpoint "$(ep 1)" --seed 71 --expect-bits $N --timeout 20000
run_feed feed-first 60 --endpoint "$(ep 0)" --gnuradio --format f32 --code dvbs-1/2 \
	--seed 71 --bits $N --ebn0 7
check_sink sink-first 30
expect_eq "$(sink_field sink-first bit_errors)" 0 "first run: bit errors"
expect_eq "$(sink_field sink-first bits_delivered)" $N "first run: bits delivered"
expect_eq "$(sink_field sink-first lost_bits)" 0 "first run: lost bits"
expect_eq "$(sink_field sink-first end_of_stream)" 0 "first run: END_OF_STREAM seen"
expect_eq "$(chan_stat 1 bits_out)" $N "first run: bits published"

# Second run: the stream goes on from bit N.
start_sink sink-second --endpoint "$(ep 1)" --seed 71 --bit-start $N --expect-bits $((2 * N)) \
	--timeout 20000
run_feed feed-second 60 --endpoint "$(ep 0)" --gnuradio --format f32 --code dvbs-1/2 \
	--seed 71 --bit-start $N --bits $N --ebn0 7
check_sink sink-second 30
expect_eq "$(sink_field sink-second bit_errors)" 0 "second run: bit errors"
expect_eq "$(sink_field sink-second bits_delivered)" $N "second run: bits delivered"
expect_eq "$(sink_field sink-second lost_bits)" 0 "second run: lost bits"
expect_eq "$(sink_field sink-second duplicates)" 0 "second run: duplicated bits"
expect_eq "$(sink_field sink-second restarts)" 0 "second run: stream restarts"
expect_eq "$(sink_field sink-second end_of_stream)" 0 "second run: END_OF_STREAM seen"
expect_eq "$(chan_stat 1 bits_out)" $((2 * N)) "second run: bits published"
log "grflush: $N bits, an idle flush, $N more at the next offsets: ok"

# Channel 2, idle_flush_ms 0: all but the held tail arrive, and the tail stays held.
start_sink sink-hold --endpoint "$(ep 3)" --seed 72 --expect-bits $N --timeout 20000
run_feed feed-hold 60 --endpoint "$(ep 2)" --gnuradio --format f32 --code ccsds \
	--seed 72 --bits $N --ebn0 7
wait_for 20 '[ "$(chan_stat 2 bits_out)" -ge $((N - 200)) ]' ||
	fail "grhold: the bits before the tail were not published"
sleep 1.5
held=$(chan_stat 2 bits_out)
[ "$held" -lt $N ] || fail "grhold: idle_flush_ms 0 flushed the tail ($held of $N bits out)"
ctl channel.update '{"id": 2, "input": {"idle_flush_ms": 200}}' >/dev/null
check_sink sink-hold 30
expect_eq "$(sink_field sink-hold bit_errors)" 0 "grhold: bit errors"
expect_eq "$(sink_field sink-hold bits_delivered)" $N "grhold: bits delivered"
log "grhold: $((N - held)) bits held with idle_flush_ms 0, published after a live update: ok"

# Channel 3: a native stream that ends with END_OF_STREAM.
start_sink sink-native --endpoint "$(ep 5)" --seed 73 --until-eos --expect-bits $N --timeout 20000
run_feed feed-native 60 --endpoint "$(ep 4)" --channel 3 --seed 73 --bits $N --ebn0 7
check_sink sink-native 30
expect_eq "$(sink_field sink-native bit_errors)" 0 "native: bit errors"
expect_eq "$(sink_field sink-native bits_delivered)" $N "native: bits delivered"
expect_eq "$(sink_field sink-native end_of_stream)" 1 "native: END_OF_STREAM seen"
expect_eq "$(sink_field sink-native restarts)" 0 "native: stream restarts"
expect_eq "$(chan_stat 3 bits_out)" $N "native: bits published"

stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
