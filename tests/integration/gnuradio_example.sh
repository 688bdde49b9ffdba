#!/bin/bash
# Integration g: clients/examples/gnuradio_loop.py for real — gr-fec's encoder, gr-zeromq's PUSH
# sink into fecd (gnuradio f32 input, connecting to the flowgraph's bound sink), PDUs back through
# gr-zeromq's PULL message source — with the channel README.md documents. Skipped (77) when the
# system Python cannot import GNU Radio's fec and zeromq modules.
. "$(dirname "$0")/lib.sh"

PY=${IT_GR_PYTHON:-/usr/bin/python3}
# The sinks stop once they have their bits; what fecd decodes from the held-back tail at SIGTERM
# then has no reader, and waiting the default 10 s linger for it would only slow the test.
IT_LINGER_MS=500
[ -x "$PY" ] || skip "no $PY"
"$PY" -c 'import gnuradio.zeromq, gnuradio.fec, pmt, numpy' 2>/dev/null ||
	skip "$PY cannot import gnuradio.zeromq / gnuradio.fec (GNU Radio 3.10 not installed)"

# The example's PUSH sink binds (gr-zeromq stream sinks always do), so fecd's input connects.
write_config "$(chan_json 1 gr-voyager '{"preset": "voyager", "mode": "stream"}' 0 1 \
	', "bind": false, "protocol": "gnuradio", "gnuradio": {"format": "f32", "tags": "auto"}' \
	', "protocol": "pdu"')"
start_fecd

for tags in "" --tags; do
	timeout 60 "$PY" "$IT_EXAMPLES/gnuradio_loop.py" --tx "$(ep 0)" --rx "$(ep 1)" --bits 100000 \
		--ebn0 7 $tags >"$IT_TMP/example$tags.log" 2>&1
	rc=$?
	log "example $tags: $(tail -n 1 "$IT_TMP/example$tags.log")"
	[ $rc -eq 0 ] || fail "gnuradio_loop.py $tags exited $rc: $(tail -n 5 "$IT_TMP/example$tags.log")"
	fecd_alive || fail "fecd died"
	# The next run restarts the stream: a fresh fecd keeps offsets simple.
	stop_fecd
	expect_eq "$FECD_RC" 0 "fecd exit status"
	if [ -z "$tags" ]; then start_fecd; fi
done
log "PASS"
