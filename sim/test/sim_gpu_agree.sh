#!/bin/bash
# fecd-sim on the GPU against the CPU (label gpu): the same codes (viterbi, ldpc: DVB-S2 and a
# plan-encoder code, fano, nbldpc) and points with --backend cuda and --backend cpu; each point's
# FER (Wilson) and BER (frames as the trials: ber_frames_lo/hi) 95 % intervals must overlap (the
# engines draw different random numbers, so they agree within their intervals, not bit for bit),
# as must the FER of frames with a wrong bit, and the GPU run's table says it ran on the device.
# Skips (77) where fecd-sim has no GPU engine or there is no device. Usage: sim_gpu_agree.sh
# FECD_SIM
set -u
SIM=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

# agree CODE EBN0-RANGE RULES... : both backends, intervals overlap point by point
agree() {
	local code=$1 range=$2 out
	shift 2
	out=$("$SIM" --code "$code" --ebn0 "$range" "$@" --backend cuda --csv "$TMP/g.csv" 2>&1)
	case $? in
	0) ;;
	2) echo "SKIP: $out"; exit 77 ;;
	*) echo "FAIL: $code on the GPU: $out"; fails=$((fails + 1)); return ;;
	esac
	echo "$out"
	"$SIM" --code "$code" --ebn0 "$range" "$@" --backend cpu --csv "$TMP/c.csv" ||
		{ echo "FAIL: $code on the CPU"; fails=$((fails + 1)); return; }
	sed -i 's/^"[^"]*"/CODE/' "$TMP/g.csv" "$TMP/c.csv"
	paste -d, "$TMP/g.csv" "$TMP/c.csv" | awk -F, -v code="$code" '
	# Wilson 95 % interval of k in n
	function wlo(k, n,  p, z, d, m, h) { z = 1.96; p = k / n; d = 1 + z * z / n; m = (p + z * z / (2 * n)) / d; h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d; return m - h }
	function whi(k, n,  p, z, d, m, h) { z = 1.96; p = k / n; d = 1 + z * z / n; m = (p + z * z / (2 * n)) / d; h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d; return m + h }
	NR > 1 {
		# g: fields 1..27, c: 28..54; frames 11, fer_lo 20, fer_hi 21, frames_wrong_bits 25,
		# ber_frames_lo 26, ber_frames_hi 27
		if ($6 != "cuda" || $33 != "cpu") { print code " row " NR ": backends " $6 ", " $33; bad = 1 }
		printf "%s at %s dB: FER GPU [%s,%s] CPU [%s,%s]; BER by frames GPU [%s,%s] CPU [%s,%s]; wrong-bit frames GPU %s/%s CPU %s/%s\n", code, $9, $20, $21, $47, $48, $26, $27, $53, $54, $25, $11, $52, $38
		if ($20 > $48 || $47 > $21) { print code " at " $9 " dB: FER intervals apart"; bad = 1 }
		if ($26 > $54 || $53 > $27) { print code " at " $9 " dB: BER intervals (frames as trials) apart"; bad = 1 }
		if (wlo($25, $11) > whi($52, $38) || wlo($52, $38) > whi($25, $11)) { print code " at " $9 " dB: wrong-bit FER intervals apart"; bad = 1 }
	} END { exit bad }' || fails=$((fails + 1))
}

agree ccsds 3:4:1 --min-fe 300 --seconds 60
agree ccsds,mode=terminated 3 --min-fe 300 --seconds 60 --frame-bits 512
agree dvbs-3/4 4 --min-fe 300 --seconds 60
if [ -d "${FECD_CODES_DIR:-/nonexistent}" ]; then
	# an LDPC frame that fails takes hundreds of wrong bits with it, so a BER interval with bits as
	# the trials is far narrower than the spread between runs (on the CPU alone, seeds 1, 2 and 3
	# at 1.0 dB gave BER 5.37e-2, 5.70e-2 and 5.46e-2, each interval about 0.3 % wide): the
	# intervals compared take frames as the trials
	agree dvbs2-1/2,algo=nms,iters=10 1.0:1.2:0.2 --min-fe 100 --max-frames 20000 --seconds 60
	# a code of the plan encoder (not the DVB-S2 form)
	agree wimax-576 1.5:2.0:0.5 --min-fe 200 --seconds 60
fi
# fano and nbldpc: a frame the Fano search or belief propagation gets wrong carries a burst of
# wrong bits (CPU FER 0.06 at 3 dB and 0.047 at 1.5 dB, 625 and 827 bit errors in 2000 and 640
# frames), which the BER intervals with frames as the trials allow for
agree whd-k7 3 --min-fe 300 --seconds 60
agree nbldpc,code=regular,q=64,n=200,dv=2,dc=4,algo=tms 1.5 --min-fe 200 --seconds 60
[ $fails -eq 0 ] && echo "sim_gpu_agree: all agree"
exit $((fails ? 1 : 0))
