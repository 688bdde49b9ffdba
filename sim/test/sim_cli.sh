#!/bin/bash
# fecd-sim's command line: every bad option is refused with exit 2 and a message naming the
# option and what was expected; a run's table, CSV and JSON agree with each other and with the
# rules (columns, intervals around the rates, the stop rule that ended each point, max-frames
# exactly); the same seed gives the same counts with 1 and 3 threads; --esn0 converts by the
# rate; several --code give several curves; --plot draws them with their reference lines.
# Usage: sim_cli.sh FECD_SIM IT_JSONQ
set -u
SIM=$1
JQ=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# refused ARGS... : exit status 2, and stderr names WANT (the last argument)
refused() {
	local want=${!#} out rc
	out=$("$SIM" "${@:1:$#-1}" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 2 ] || ! grep -qF -- "$want" <<<"$out"; then
		fail "fecd-sim ${*:1:$#-1}: exit $rc, expected 2 naming '$want': $out"
	fi
}

refused --ebn0 3 "--code"
refused --code ccsds "--ebn0"
refused --code ccsds --ebn0 5:1:1 "--ebn0: expected START:STOP:STEP"
refused --code ccsds --ebn0 1:5:0 "--ebn0: expected START:STOP:STEP"
refused --code ccsds --ebn0 1:5:x "--ebn0"
refused --code ccsds --ebn0 0:100:0.01 "at most 1000 points"
refused --code ccsds --ebn0 1 --esn0 1 "one of --ebn0 and --esn0"
refused --code ccsds --ebn0 1 --min-fe -3 "--min-fe: expected a whole number"
refused --code ccsds --ebn0 1 --max-frames 0 "--max-frames"
refused --code ccsds --ebn0 1 --seconds soon "--seconds: expected a number"
refused --code ccsds --ebn0 1 --seed x "--seed"
refused --code ccsds --ebn0 1 --backend gpu "--backend: expected auto, cpu or cuda"
refused --code ccsds --ebn0 1 --threads 0 "--threads"
refused --code ccsds --ebn0 1 --frame-bits 64 "--frame-bits"
refused --code ccsds,mode=terminated --ebn0 1 --frame-bits 0 "--frame-bits"
refused --code ccsds --ebn0 1 --scale -1 "--scale"
refused --code ccsds --ebn0 1 --plot out.jpg "--plot"
refused --code ccsds --ebn0 1 --min-fe 0 --seconds 0 "stop rule"
refused --code ccsds --ebn0 1 --frobnicate "unknown option '--frobnicate'"
refused --code ccsds --ebn0 1 extra "unexpected argument 'extra'"
refused --code ccsds --ebn0 1 --channel rayleigh "--channel"
refused --code ccsds --ebn0 1 --channel bsid,pi=2 "pi"
refused --code ccsdz --ebn0 1 "ccsds"
refused --code 'ccsds,polys=138:133' --ebn0 1 "polys"
refused --code '{"preset": "ccsds", "k": ' --ebn0 1 "not a JSON object"
refused --code tvb-fig17 --channel bsid --all-zero --ebn0 1 "--all-zero"
refused --code ccsds --ebn0 1 --backend cuda --scale 2 "--scale"
# a codeword output whose information is not its first k bits: the engines would compare the wrong
# bits (MacKay's code: the ldpc encoder's information columns are spread)
if [ -f "${FECD_CODES_DIR:-/nonexistent}/MACKAY_504_1008.alist" ]; then
	refused --code mackay-1008,output=codeword --ebn0 3 --backend cpu "output=info"
fi
"$SIM" --help | grep -q -- "--decoder-only" || fail "--help does not document --decoder-only"
"$SIM" --help >/dev/null || fail "--help exits $?"

# A run: two points of a stream code, max-frames 200, and a frame code with min-fe.
"$SIM" --code ccsds,decode_len=256 --code '{"preset": "ccsds", "mode": "terminated"}' \
	--frame-bits 200 --ebn0 1.5:2.5:1 --max-frames 200 --min-fe 0 --seed 9 --threads 1 \
	--csv "$TMP/a.csv" --json "$TMP/a.json" >"$TMP/a.txt" || fail "run a: exit $?"
"$SIM" --code ccsds,decode_len=256 --code '{"preset": "ccsds", "mode": "terminated"}' \
	--frame-bits 200 --ebn0 1.5:2.5:1 --max-frames 200 --min-fe 0 --seed 9 --threads 3 \
	--csv "$TMP/b.csv" >/dev/null || fail "run b: exit $?"
grep -q '^"ccsds,decode_len=256",viterbi,' "$TMP/a.csv" || fail "CSV: the code not quoted"
head -1 "$TMP/a.csv" | grep -qx 'code,family,rate,channel,all_zero,backend,seed,frame_info_bits,ebn0_db,esn0_db,frames,bits,bit_errors,frame_errors,unconverged,ber,ber_lo,ber_hi,fer,fer_lo,fer_hi,info_gbps,seconds,stop,frames_wrong_bits,ber_frames_lo,ber_frames_hi' ||
	fail "CSV header: $(head -1 "$TMP/a.csv")"
[ "$(wc -l <"$TMP/a.csv")" -eq 5 ] || fail "CSV: $(wc -l <"$TMP/a.csv") lines, expected 1 + 4"
# counts (frames..unconverged) equal across thread counts
# the code's text, quoted where it has commas, as one word for awk and cut
for f in a b; do
	sed -i 's/^"[^"]*"/CODE/' "$TMP/$f.csv"
done
cut -d, -f1-15,25 "$TMP/a.csv" >"$TMP/a.cut"
cut -d, -f1-15,25 "$TMP/b.csv" >"$TMP/b.cut"
cmp -s "$TMP/a.cut" "$TMP/b.cut" || fail "1 and 3 threads differ: $(diff "$TMP/a.cut" "$TMP/b.cut")"
# every row: max-frames 200 exactly, rates = counts, intervals around them, the stop rule
awk -F, 'NR > 1 {
	if ($11 != 200 || $24 != "max-frames") { print "row " NR ": frames " $11 ", stop " $24; bad = 1 }
	if ($12 != $11 * $8) { print "row " NR ": bits " $12 " for " $11 " frames of " $8; bad = 1 }
	ber = $13 / $12; fer = $14 / $11
	if (ber - $16 > 1e-6 * ber + 1e-12 || $16 - ber > 1e-6 * ber + 1e-12) { print "row " NR ": ber " $16 " vs " ber; bad = 1 }
	if (fer - $19 > 1e-6 || $19 - fer > 1e-6) { print "row " NR ": fer " $19 " vs " fer; bad = 1 }
	if (!($17 <= $16 && $16 <= $18 && $20 <= $19 && $19 <= $21)) { print "row " NR ": interval"; bad = 1 }
	if ($25 > $14 || ($13 > 0) != ($25 > 0)) { print "row " NR ": frames_wrong_bits " $25 " of " $14 " frame errors, " $13 " bit errors"; bad = 1 }
	if ($26 > $16 || $16 > $27 || ($13 > 0 && $26 >= $27)) { print "row " NR ": BER " $16 " outside its interval by frames [" $26 ", " $27 "]"; bad = 1 }
	if ($13 == 0 || $14 == 0) { print "row " NR ": no errors at 1.5-2.5 dB over 200 frames"; bad = 1 }
	if ($5 != 0 || $6 != "cpu" || $7 != 9 || $4 != "awgn") { print "row " NR ": fields " $4 "," $5 "," $6 "," $7; bad = 1 }
} END { exit bad }' "$TMP/a.csv" || fail "CSV rows"
awk -F, 'NR == 4 && $8 != 200 { exit 1 }' "$TMP/a.csv" || fail "CSV: --frame-bits 200 not the terminated code's frame"
# the JSON holds the same counts
[ "$("$JQ" curves.1.points.1.frame_errors <"$TMP/a.json")" = "$(awk -F, 'NR == 5 { print $14 }' "$TMP/a.csv")" ] ||
	fail "JSON frame_errors differ from the CSV's"
[ "$("$JQ" curves.0.points.0.bit_errors <"$TMP/a.json")" = "$(awk -F, 'NR == 2 { print $13 }' "$TMP/a.csv")" ] ||
	fail "JSON bit_errors differ from the CSV's"
[ "$("$JQ" curves.0.frame <"$TMP/a.json")" = job ] || fail "JSON: a stream code's frame is no job"
[ "$("$JQ" curves.1.frame_info_bits <"$TMP/a.json")" = 200 ] || fail "JSON: frame_info_bits"
[ "$("$JQ" curves.1.points.0.stop <"$TMP/a.json")" = max-frames ] || fail "JSON: stop"
"$JQ" curves.0.points.0.fer_ci95.1 <"$TMP/a.json" >/dev/null || fail "JSON: no fer_ci95"
[ "$("$JQ" interval <"$TMP/a.json")" = wilson95 ] || fail "JSON: interval"
"$JQ" curves.0.points.0.ber_frames_ci95.1 <"$TMP/a.json" >/dev/null || fail "JSON: no ber_frames_ci95"
[ "$("$JQ" curves.1.points.1.frames_wrong_bits <"$TMP/a.json")" = "$(awk -F, 'NR == 5 { print $25 }' "$TMP/a.csv")" ] ||
	fail "JSON frames_wrong_bits differ from the CSV's"
# the table: two headings, four rows
[ "$(grep -c '^# frame:' "$TMP/a.txt")" -eq 2 ] || fail "table: $(cat "$TMP/a.txt")"
[ "$(grep -c 'max-frames$' "$TMP/a.txt")" -eq 4 ] || fail "table rows: $(cat "$TMP/a.txt")"
# the table's wrong_bit column (6th) is the CSV's frames_wrong_bits, row by row
[ "$(awk '$NF == "max-frames" { print $6 }' "$TMP/a.txt")" = "$(awk -F, 'NR > 1 { print $25 }' "$TMP/a.csv")" ] ||
	fail "table wrong_bit against the CSV: $(cat "$TMP/a.txt")"

# --esn0: Eb/N0 = Es/N0 - 10 log10(R), the same frames as --ebn0 at that value
"$SIM" --code ccsds,decode_len=256 --esn0 -1 --max-frames 64 --min-fe 0 --csv "$TMP/e.csv" \
	>/dev/null || fail "esn0 run: exit $?"
sed -i 's/^"[^"]*"/CODE/' "$TMP/e.csv"
awk -F, 'NR == 2 && ($9 < 2.0102 || $9 > 2.0104 || $10 != "-1.0000") { exit 1 }' "$TMP/e.csv" ||
	fail "esn0 -1 at rate 1/2: $(sed -n 2p "$TMP/e.csv" | cut -d, -f9,10)"

# min-fe: stops at it (or later in the same batch)
"$SIM" --code ccsds,decode_len=256 --ebn0 2 --min-fe 30 --csv "$TMP/m.csv" >/dev/null ||
	fail "min-fe run: exit $?"
sed -i 's/^"[^"]*"/CODE/' "$TMP/m.csv"
awk -F, 'NR == 2 && ($14 < 30 || $24 != "min-fe") { exit 1 }' "$TMP/m.csv" ||
	fail "min-fe 30: $(sed -n 2p "$TMP/m.csv")"

# a file that cannot be written: exit 1, the option named
out=$("$SIM" --code ccsds,decode_len=256 --ebn0 2 --max-frames 64 --csv "$TMP/no/such.csv" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && grep -q -- "--csv" <<<"$out" || fail "unwritable --csv: exit $rc: $out"

# --plot: two codes on one plot with their reference lines (uncoded BPSK drawn once, each code's
# union bound and limit), a PNG of gnuplot's; over bsid no reference line. Where gnuplot is
# missing, a clear message and exit 1 instead.
if command -v gnuplot >/dev/null; then
	"$SIM" --code ccsds,decode_len=256 --code dvbs-3/4,decode_len=256 --ebn0 2:3:1 --max-frames 64 \
		--min-fe 0 --plot "$TMP/p.png" >/dev/null || fail "--plot run: exit $?"
	[ "$(head -c 8 "$TMP/p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "--plot: $TMP/p.png is no PNG"
	[ "$(stat -c %s "$TMP/p.png" 2>/dev/null || echo 0)" -gt 8000 ] || fail "--plot: PNG too small"
	for want in "'uncoded BPSK'" "union bound ccsds,decode_len=256 (dfree 10)" \
		"union bound dvbs-3/4,decode_len=258 (dfree 5)" "BI-AWGN limit R=0.75 (1.63 dB)" \
		"fecd-sim: awgn, seed 1"; do
		grep -qF -- "$want" "$TMP/p.gp" || fail "--plot: the script lacks $want"
	done
	[ "$(grep -c "'uncoded BPSK' noenhanced" "$TMP/p.gp")" -eq 1 ] || fail "--plot: BPSK twice"
	"$SIM" --code tvb-fig17,N=64 --channel bsid,pi=0.001,pd=0.001 --ebn0 6 --max-frames 16 \
		--min-fe 0 --plot "$TMP/b.png" >/dev/null || fail "--plot bsid run: exit $?"
	grep -q 'uncoded BPSK\|union bound\|limit' "$TMP/b.gp" && fail "--plot: references over bsid"
else
	out=$(PATH=/nonexistent "$SIM" --code ccsds,decode_len=256 --ebn0 2 --max-frames 64 \
		--plot "$TMP/p.png" 2>&1 >/dev/null)
	grep -q "install gnuplot-nox" <<<"$out" || fail "--plot without gnuplot: $out"
	echo "gnuplot is not installed: --plot checked for its message only"
fi

[ $fails -eq 0 ] && echo "sim_cli: all passed"
exit $((fails ? 1 : 0))
