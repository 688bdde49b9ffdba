#!/bin/bash
# Integration x: fecd-feed's channel models (codec/channel_model.h, --channel-model). The default
# (awgn) must send what the feed sent before there were models, byte for byte: it-feedcheck
# rebuilds that from the codec's primitives (seeded bits, encoder, fec_awgn_llr on the feed's
# noise seed, the quantizer at the automatic scale) and compares every message's header and
# payload. Streams and frames, int8, f32 (the LLRs' own bits), u8 and s4, with noise and without;
# then names and parameters the table does not have are refused with a message naming them. No
# daemon: the feed sends to it-feedcheck directly.
. "$(dirname "$0")/lib.sh"

[ -n "${IT_FEEDCHECK:-}" ] || fail "IT_FEEDCHECK is not set (run the tests through ctest)"

# check NAME MESSAGES SEED CODE EBN0|noiseless FORMAT MSG_SYMS FRAME_BITS PORT [FEED OPTIONS...]
check() {
	local name=$1 msgs=$2 seed=$3 code=$4 ebn0=$5 fmt=$6 msg_syms=$7 frame_bits=$8 p=$9
	shift 9
	local noise=(--ebn0 "$ebn0")
	[ "$ebn0" = noiseless ] && noise=(--noiseless)
	spawn "check-$name" "$IT_FEEDCHECK" "$(ep "$p")" "$msgs" "$seed" "$code" "$ebn0" "$fmt" \
		"$msg_syms" "$frame_bits"
	local pid=$LAST_PID
	run_feed "feed-$name" 60 --endpoint "$(ep "$p")" --seed "$seed" --code "$code" \
		"${noise[@]}" --format "$fmt" --msg-syms "$msg_syms" "$@"
	wait_pid "$pid" 30 || fail "$name: it-feedcheck still running"
	[ "$WAIT_RC" -eq 0 ] || fail "$name: $(cat "$IT_TMP/check-$name.log")"
	log "$name: $(cat "$IT_TMP/check-$name.log")"
}

# Streams: CCSDS at 4 dB in 20 messages of 2048 bits, by default and with the model named.
check default 20 5 ccsds 4 s8 4096 0 0 --bits 40960
check awgn-f32 20 6 ccsds 2.5 f32 4096 0 1 --bits 40960 --channel-model awgn
check punctured-u8 12 7 dvbs-3/4 5 u8 3000 0 2 --bits 27000 --channel-model awgn
check noiseless-s4 8 8 ccsds noiseless s4 1024 0 3 --bits 4096
# Frames: a terminated code with the given lengths, and an LDPC code's own k where the codes are.
check frames-s8 10 9 "ccsds,mode=terminated" 3 s8 4096 1000 4 --frames 10 --frame-bits 1000
if [ -n "${FECD_CODES_DIR:-}" ] && [ -f "$FECD_CODES_DIR/WIMAX_288_576.alist" ]; then
	check ldpc-f32 10 10 wimax-576 2 f32 4096 0 5 --frames 10 --channel-model awgn
else
	log "no WIMAX_288_576.alist in ${FECD_CODES_DIR:-../shared/codes}: LDPC frames not checked"
fi

# refused TEXT EXPECTED-MESSAGE-PART
refused() {
	local out
	out=$(timeout 10 "$FEED" --endpoint "$(ep 6)" --bits 2048 --channel-model "$1" 2>&1) &&
		fail "--channel-model $1 was accepted"
	case $out in *"$2"*) ;; *) fail "--channel-model $1: message lacks '$2': $out" ;; esac
	log "--channel-model $1 refused: $out"
}
refused nope "unknown channel model 'nope' (expected one of awgn"
refused "awgn,pi=0.1" "channel awgn: unknown parameter 'pi' (it takes none)"
refused "awgn,0.1" "channel awgn: expected KEY=VALUE, got '0.1'"
log "PASS"
