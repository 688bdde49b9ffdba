#!/bin/bash
# GPU: a device fault mid-stream (FECD_CUDA_FAULT_AT=3: the third batch sent to the GPU traps, a
# sticky error). fecd must log it once, decode that batch, every one still on the GPU and every
# later one on the CPU backend, and lose nothing: all bits delivered, no error, backend.info says
# the CPU is active and why, and the metrics agree (GPU inactive, the batches redone counted, the
# channels' batches by where they ran adding up to the backend's). Skipped (77) where fecd finds
# no CUDA device.
. "$(dirname "$0")/lib.sh"

"$FECD" --print-devices >"$IT_TMP/devices.txt" 2>&1 || skip "no GPU: $(cat "$IT_TMP/devices.txt")"

BITS=3000000
NF=100
MPORT=$(port 19)
IT_GLOBALS="\"metrics\": {\"listen\": \"127.0.0.1:$MPORT\"}, "
write_config "$(chan_json 1 stream '{"preset": "ccsds"}' 0 1 '' '' ', "batch": {"jobs": 16, "inflight": 8}')" \
	"$(chan_json 2 frames '{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 4096}' 2 3)"
sed -i 's/"workers": 2,/"workers": 2, "backend": "cuda",/' "$IT_TMP/fecd.json"
export FECD_CUDA_FAULT_AT=3
start_fecd
unset FECD_CUDA_FAULT_AT

start_sink sink --endpoint "$(ep 1)" --seed 51 --expect-bits $BITS --until-eos --timeout 30000
run_feed feed 120 --endpoint "$(ep 0)" --channel 1 --seed 51 --bits $BITS --ebn0 7 --format s8
check_sink sink 60
expect_eq "$(sink_field sink bits_delivered)" $BITS "bits delivered"
expect_eq "$(sink_field sink bit_errors)" 0 "bit errors"
expect_eq "$(sink_field sink lost_bits)" 0 "lost bits"
expect_eq "$(sink_field sink duplicates)" 0 "duplicated bits"
expect_eq "$(chan_stat 1 failures)" 0 "stats failures (erased batches)"

# After the fallback a new channel's frames decode on the CPU.
start_sink fsink --endpoint "$(ep 3)" --seed 52 --frame-bits 100:4000 --expect-frames $NF \
	--timeout 30000
run_feed ffeed 60 --endpoint "$(ep 2)" --channel 2 --seed 52 \
	--code ccsds,mode=terminated,max_frame_bits=4096 --frames $NF --frame-bits 100:4000 --ebn0 7
check_sink fsink 40
expect_eq "$(sink_field fsink lost_frames)" 0 "frames lost after the fallback"
expect_eq "$(sink_field fsink bit_errors)" 0 "frame bit errors after the fallback"

INFO=$(ctl backend.info)
log "backend.info after the fault: $INFO"
expect_eq "$(jq_get active <<<"$INFO")" cpu "backend.info active"
reason=$(jq_get fallback_reason <<<"$INFO")
[ -n "$reason" ] && [ "$reason" != null ] || fail "backend.info gives no fallback reason"
[ "$(jq_get batches_redone_on_cpu <<<"$INFO")" -ge 1 ] || fail "no batch was redone on the CPU"

# The metrics, over bash's /dev/tcp (no curl needed on the GPU machine).
exec {mfd}<>/dev/tcp/127.0.0.1/$MPORT || fail "cannot connect to the metrics port"
printf 'GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n' >&$mfd
cat <&$mfd >"$IT_TMP/metrics.txt"
exec {mfd}>&-
mval() { awk -v k="$1" '$1 == k { print $2 }' "$IT_TMP/metrics.txt"; }
grep -q '^HTTP/1.[01] 200' "$IT_TMP/metrics.txt" || fail "metrics: $(head -3 "$IT_TMP/metrics.txt")"
expect_eq "$(mval fecd_gpu_active)" 0 "metrics: GPU active after the fault"
expect_eq "$(mval 'fecd_backend_info{configured="cuda",active="cpu"}')" 1 "metrics: backend"
redone=$(jq_get batches_redone_on_cpu <<<"$INFO")
expect_eq "$(mval 'fecd_gpu_fallback_batches_total{reason="cuda_error"}')" "$redone" \
	"metrics: batches redone on the CPU"
expect_eq "$(mval 'fecd_gpu_fallback_batches_total{reason="not_on_gpu"}')" \
	"$(jq_get batches_cpu <<<"$INFO")" "metrics: batches sent to the CPU"
# Each batch the backend took for the GPU either finished there or was redone on the CPU.
ran_cpu=0 ran_gpu=0
for l in '{channel="stream",id="1"' '{channel="frames",id="2"'; do
	ran_cpu=$((ran_cpu + $(mval "fecd_batches_total$l,backend=\"cpu\"}")))
	ran_gpu=$((ran_gpu + $(mval "fecd_batches_total$l,backend=\"cuda\"}")))
done
expect_eq $ran_cpu $(($(jq_get batches_cpu <<<"$INFO") + redone)) "batches that ran on the CPU"
expect_eq $ran_gpu $(($(jq_get batches_gpu <<<"$INFO") - redone)) "batches that ran on the GPU"
log "metrics: $ran_gpu batches on the GPU, $ran_cpu on the CPU ($redone redone)"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
expect_eq "$(grep -c "backend fallback" "$IT_TMP/fecd.log")" 1 "fallback lines in the log"
log "$(grep "backend fallback" "$IT_TMP/fecd.log")"
log "PASS: fault at batch 3: $BITS bits and $NF frames, no loss, no error"
