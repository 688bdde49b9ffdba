#!/bin/bash
# GPU: stream and frame channels through the CUDA backend. At Eb/N0 = 7 dB no bit error; at a
# noisy Eb/N0 the same bit and frame errors as the CPU backend on the same seeds (the GPU decoder
# is bit-exact with the CPU one, so any difference is a bug); backend.info says the GPU decoded.
# Skipped (77) where fecd finds no CUDA device.
. "$(dirname "$0")/lib.sh"

"$FECD" --print-devices >"$IT_TMP/devices.txt" 2>&1 || skip "no GPU: $(cat "$IT_TMP/devices.txt")"
log "$(cat "$IT_TMP/devices.txt")"

BITS=2000000
NF=200
FRAME='{"preset": "ccsds", "mode": "terminated", "max_frame_bits": 4096}'
FCODE=ccsds,mode=terminated,max_frame_bits=4096

# run_backend BACKEND: one fecd, four runs (clean and noisy stream, clean and noisy frames).
run_backend() {
	local be=$1
	# No idle flush on the streams: a pause in the input longer than idle_flush_ms (a GPU's
	# first batches) cuts a stream's last block without its tail, and the comparison with the
	# CPU's bit errors needs the same cuts in both runs.
	local noidle=', "idle_flush_ms": 0'
	write_config "$(chan_json 1 stream '{"preset": "ccsds"}' 0 1 "$noidle")" \
		"$(chan_json 2 noisy '{"preset": "ccsds"}' 2 3 "$noidle")" \
		"$(chan_json 3 frames "$FRAME" 4 5)" \
		"$(chan_json 4 dvbs '{"preset": "dvbs-3/4"}' 6 7 "$noidle")"
	sed -i "s/\"workers\": 2,/\"workers\": 2, \"backend\": \"$be\",/" "$IT_TMP/fecd.json"
	start_fecd

	start_sink "clean-$be" --endpoint "$(ep 1)" --seed 31 --expect-bits $BITS --until-eos \
		--timeout 30000
	run_feed "feed-clean-$be" 120 --endpoint "$(ep 0)" --channel 1 --seed 31 --bits $BITS \
		--ebn0 7 --format s8
	check_sink "clean-$be" 60
	expect_eq "$(sink_field "clean-$be" bits_delivered)" $BITS "$be: clean stream bits"
	expect_eq "$(sink_field "clean-$be" bit_errors)" 0 "$be: clean stream bit errors"
	expect_eq "$(sink_field "clean-$be" lost_bits)" 0 "$be: clean stream lost bits"

	start_sink "noisy-$be" --endpoint "$(ep 3)" --seed 32 --expect-bits $BITS --until-eos \
		--timeout 30000 --max-ber 1
	run_feed "feed-noisy-$be" 120 --endpoint "$(ep 2)" --channel 2 --seed 32 --bits $BITS \
		--ebn0 2.5 --format s8
	check_sink "noisy-$be" 60
	expect_eq "$(sink_field "noisy-$be" bits_delivered)" $BITS "$be: noisy stream bits"
	NOISY_BITS=$(sink_field "noisy-$be" bit_errors)

	start_sink "punct-$be" --endpoint "$(ep 7)" --seed 34 --expect-bits 999999 --until-eos \
		--timeout 30000 --max-ber 1
	run_feed "feed-punct-$be" 120 --endpoint "$(ep 6)" --channel 4 --seed 34 --bits 999999 \
		--code dvbs-3/4 --ebn0 4 --format s8
	check_sink "punct-$be" 60
	PUNCT_BITS=$(sink_field "punct-$be" bit_errors)

	for snr in 7 2; do
		start_sink "frames$snr-$be" --endpoint "$(ep 5)" --seed 33 --frame-bits 100:4000 \
			--expect-frames $NF --timeout 30000 --max-ber 1
		run_feed "feed-frames$snr-$be" 120 --endpoint "$(ep 4)" --channel 3 --seed 33 \
			--code $FCODE --frames $NF --frame-bits 100:4000 --ebn0 $snr
		check_sink "frames$snr-$be" 60
		expect_eq "$(sink_field "frames$snr-$be" lost_frames)" 0 "$be: frames lost at $snr dB"
	done
	expect_eq "$(sink_field "frames7-$be" bit_errors)" 0 "$be: frame bit errors at 7 dB"
	FRAME_BITS=$(sink_field "frames2-$be" bit_errors)

	INFO=$(ctl backend.info)
	echo "$INFO" >"$IT_TMP/info-$be.json"
	for ch in 1 2 3 4; do
		expect_eq "$(chan_stat $ch bad_msgs)" 0 "$be: channel $ch bad messages"
		# Where its batches ran (stats.get; metrics' fecd_batches_total).
		ran_gpu=$(chan_stat $ch batches_gpu) ran_cpu=$(chan_stat $ch batches_cpu)
		if [ "$be" = cuda ]; then
			[ "$ran_gpu" -gt 0 ] && [ "$ran_cpu" = 0 ] ||
				fail "$be: channel $ch batches on the GPU $ran_gpu, on the CPU $ran_cpu"
		else
			[ "$ran_cpu" -gt 0 ] && [ "$ran_gpu" = 0 ] ||
				fail "$be: channel $ch batches on the GPU $ran_gpu, on the CPU $ran_cpu"
		fi
	done
	stop_fecd
	expect_eq "$FECD_RC" 0 "$be: fecd exit status after SIGTERM"
	cp "$IT_TMP/fecd.log" "$IT_TMP/fecd-$be.txt"
	log "$be: noisy stream $NOISY_BITS bit errors, punctured $PUNCT_BITS, noisy frames $FRAME_BITS"
}

run_backend cuda
GPU_NOISY=$NOISY_BITS GPU_PUNCT=$PUNCT_BITS GPU_FRAMES=$FRAME_BITS
log "backend.info (cuda): $INFO"
expect_eq "$(jq_get active <<<"$INFO")" cuda "backend.info active"
expect_eq "$(jq_get batches_cpu <<<"$INFO")" 0 "batches the CPU decoded"
[ "$(jq_get batches_gpu <<<"$INFO")" -gt 0 ] || fail "no batch went to the GPU"
for ch in 1 2 3 4; do
	dec=$(jq_get "gpu_channels.[channel=$ch].decoder" <<<"$INFO")
	[ -n "$dec" ] || fail "backend.info: no GPU decoder described for channel $ch"
done
grep -q "backend fallback" "$IT_TMP/fecd-cuda.txt" && fail "the cuda run fell back to the CPU"

run_backend cpu
[ "$GPU_NOISY" -gt 0 ] || fail "the noisy stream had no error: the comparison would prove nothing"
expect_eq "$GPU_NOISY" "$NOISY_BITS" "noisy stream bit errors, GPU vs CPU"
expect_eq "$GPU_PUNCT" "$PUNCT_BITS" "punctured stream bit errors, GPU vs CPU"
expect_eq "$GPU_FRAMES" "$FRAME_BITS" "noisy frame bit errors, GPU vs CPU"
log "PASS: GPU and CPU agree: $GPU_NOISY, $GPU_PUNCT and $GPU_FRAMES bit errors"
