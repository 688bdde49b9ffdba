#!/bin/bash
# Integration: the GPU backend's start-up fallback. With "backend": "auto" and with "cuda", where
# CUDA cannot be used, fecd must start, say so in exactly one log line, report the CPU as the
# active backend with the reason in backend.info, and decode a CCSDS stream without an error or a
# lost bit. "cpu" must log no fallback at all. CI has no GPU, so there the fallback is the real
# one; on a machine with a GPU, device 63 (absent) forces it.
. "$(dirname "$0")/lib.sh"

BITS=200000
GPU=
if "$FECD" --print-devices >"$IT_TMP/devices.txt" 2>&1; then
	GPU=', "gpu": {"device": 63}'
	log "a CUDA device is present: gpu.device 63 (absent) forces the fallback"
else
	log "$(cat "$IT_TMP/devices.txt")"
fi

# run_mode BACKEND SEED: one fecd with that backend, one stream through it.
run_mode() {
	local mode=$1 seed=$2
	write_config "$(chan_json 1 ccsds '{"preset": "ccsds"}' 0 1)"
	sed -i "s/\"workers\": 2,/\"workers\": 2, \"backend\": \"$mode\"$GPU,/" "$IT_TMP/fecd.json"
	start_fecd
	start_sink "sink-$mode" --endpoint "$(ep 1)" --seed "$seed" --expect-bits $BITS \
		--until-eos --timeout 30000
	run_feed "feed-$mode" 60 --endpoint "$(ep 0)" --channel 1 --seed "$seed" --bits $BITS \
		--ebn0 7 --format s8
	check_sink "sink-$mode" 40
	expect_eq "$(sink_field "sink-$mode" bits_delivered)" $BITS "$mode: bits delivered"
	expect_eq "$(sink_field "sink-$mode" bit_errors)" 0 "$mode: bit errors"
	expect_eq "$(sink_field "sink-$mode" lost_bits)" 0 "$mode: lost bits"
	expect_eq "$(chan_stat 1 failures)" 0 "$mode: stats failures"
	INFO=$(ctl backend.info)
	echo "$INFO" >"$IT_TMP/info-$mode.json"
	expect_eq "$(jq_get configured <<<"$INFO")" "$mode" "$mode: backend.info configured"
	expect_eq "$(jq_get name <<<"$INFO")" cpu "$mode: backend.info name"
	stop_fecd
	expect_eq "$FECD_RC" 0 "$mode: fecd exit status after SIGTERM"
	FALLBACKS=$(grep -c "backend fallback" "$IT_TMP/fecd.log")
	cp "$IT_TMP/fecd.log" "$IT_TMP/fecd-$mode.txt"
}

for mode in auto cuda; do
	run_mode $mode 21
	expect_eq "$FALLBACKS" 1 "$mode: fallback lines in the log"
	expect_eq "$(jq_get active <<<"$INFO")" cpu "$mode: backend.info active"
	reason=$(jq_get fallback_reason <<<"$INFO")
	[ -n "$reason" ] && [ "$reason" != null ] || fail "$mode: backend.info gives no fallback reason"
	grep "backend fallback" "$IT_TMP/fecd-$mode.txt" | grep -qF "$reason" ||
		fail "$mode: the log line does not give backend.info's reason \"$reason\""
	log "$mode: $(grep "backend fallback" "$IT_TMP/fecd-$mode.txt")"
done

run_mode cpu 22
expect_eq "$FALLBACKS" 0 "cpu: fallback lines in the log"
log "PASS: auto and cuda fall back to the CPU with one line each; cpu logs none"
