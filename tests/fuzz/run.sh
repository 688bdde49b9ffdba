#!/bin/bash
# Runs one fuzz harness (a libFuzzer program of a FECD_FUZZ=ON build) for a bounded time, from its
# committed corpus (tests/fuzz/corpus/NAME, read only) and, for the code-file harnesses, the
# matching files of ../shared/codes when that folder is there. New inputs go to WORK/NAME/corpus,
# a failing input to WORK/NAME/crash-* (leak-*, timeout-*, oom-*), the log to WORK/NAME/log.
# Exits non-zero when the harness fails: a crash, a sanitizer report, a leak, a timeout.
#
#   run.sh HARNESS NAME SECONDS [WORK [LIBFUZZER-OPTIONS...]]
#   e.g. tests/fuzz/run.sh build-fuzz/tests/fuzz/fuzz_rpc rpc 14400 /var/tmp/fecd-fuzz -jobs=4
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
harness=$(realpath "$1")
name=$2
secs=$3
src=$(cd "$(dirname "$0")" && pwd)
work=$(realpath -m "${4:-$PWD/fuzz-work}")/$name
shift $(($# < 4 ? $# : 4))

mkdir -p "$work/corpus" "$work/shared-seeds"
seeds=("$src/corpus/$name")
[ -f "$src/dict/$name.dict" ] && dict=(-dict="$src/dict/$name.dict") || dict=()

# The standard matrices beside the project: extra seeds for the code-file harnesses (the small
# ones: a seed of megabytes would slow every mutation of it), and the codes folder for presets.
codes=$(realpath -m "$src/../../../shared/codes")
if [ -d "$codes" ]; then
	export FECD_CODES_DIR=${FECD_CODES_DIR:-$codes}
	case $name in
	ldpc_alist) pattern='*.alist' ;;
	ldpc_qc) pattern='*.qc' ;;
	ldpc_nr) pattern='5G_bg*.csv' ;;
	nbldpc_alist) pattern='*_GF*.alist' ;;
	*) pattern='' ;;
	esac
	if [ -n "$pattern" ]; then
		find "$codes" -maxdepth 1 -name "$pattern" -size -64k \
			-exec ln -sf {} "$work/shared-seeds/" \;
		seeds+=("$work/shared-seeds")
	fi
fi

# Every sanitizer report with its stack; ASan's and UBSan's reports end the run.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$work"
echo "fuzz $name: ${secs}s, corpus $work/corpus, seeds ${seeds[*]}"
set +e
"$harness" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="$work/" "${dict[@]}" "$@" \
	"$work/corpus" "${seeds[@]}" >"$work/log" 2>&1
rc=$?
set -e
# The coverage line of the last report, then the final statistics.
grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$work/log" | tail -n 1
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
	"$work/log" || true
if [ $rc -ne 0 ]; then
	echo "fuzz $name FAILED (exit $rc); the log's end:"
	tail -n 60 "$work/log"
	ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null || true
fi
exit $rc
