#!/bin/bash
# Sets everything up and runs fecd on its defaults with a demo stream through it:
#   dependencies -> Release build -> fecd (no config file: one CCSDS K=7 r=1/2 stream channel,
#   input PULL tcp://127.0.0.1:5550, output PUSH tcp://127.0.0.1:5551) -> fecd-sink listening ->
#   fecd-feed sending 10^6 random bits, CCSDS-encoded, BPSK over AWGN at 4.5 dB, 8-bit soft symbols.
# Prints the sink's report and the daemon's statistics, then leaves fecd running in the foreground
# (Ctrl-C stops it; --once stops it after the demo).
set -euo pipefail
cd "$(dirname "$0")/.."
once=0
[ "${1:-}" = "--once" ] && once=1

bash scripts/deps.sh
build=${FECD_BUILD:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
bin=$build/bin

work=$(mktemp -d)
# Without /etc/fecd/fecd.json fecd starts on its defaults; a control socket of our own keeps the
# demo clear of any installed instance.
export RUNTIME_DIRECTORY=$work
"$bin/fecd" &
fecd_pid=$!
trap 'kill $fecd_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
	[ -S "$work/control.sock" ] && break
	sleep 0.1
done

echo "== fecd is running (pid $fecd_pid); control socket $work/control.sock"
"$bin/fecd-sink" --until-eos --max-ber 1e-4 --timeout 10000 &
sink_pid=$!
sleep 0.3
"$bin/fecd-feed" --bits 1000000 --ebn0 4.5 --format s8
wait $sink_pid || echo "(the sink reported a failure)"
echo "== stats.get"
"$bin/fecdctl" --socket "$work/control.sock" stats.get '{"id":1}'

if [ $once = 1 ]; then
	kill -TERM $fecd_pid
	wait $fecd_pid
	trap 'rm -rf "$work"' EXIT
	exit 0
fi
echo "== fecd keeps running on its defaults; try: $bin/fecdctl --socket $work/control.sock channel.list"
echo "== Ctrl-C stops it"
wait $fecd_pid
