# Shared by the integration tests (sourced, not run): start the real fecd on a temporary
# configuration, wait for its READY=1 on a notification socket of our own (it-notify), talk to it
# with fecdctl, run fecd-feed and fecd-sink against it, and clean everything up on any exit.
#
# Every wait has a deadline and the whole test has one (IT_LIMIT seconds, default 90), so a hung
# daemon fails the test instead of hanging CI. Processes are ended by the PIDs this file started,
# never by name. Exit status: 0 pass, 1 fail, 77 skip (ctest's SKIP_RETURN_CODE).
#
# The tests get the programs from CMake in the environment: FECD, FEED, SINK, FECDCTL, IT_NOTIFY,
# IT_JSONQ, and a port range of their own: IT_PORT (20 ports from there on are theirs).

set -u -o pipefail

IT_NAME=$(basename "$0" .sh)
IT_LIMIT=${IT_LIMIT:-90}
IT_PIDS=()
IT_FECD_PID=

for v in FECD FEED SINK FECDCTL IT_NOTIFY IT_JSONQ IT_PORT; do
	if [ -z "${!v:-}" ]; then
		echo "$IT_NAME: $v is not set (run the tests through ctest)" >&2
		exit 1
	fi
done

IT_TMP=$(mktemp -d "${TMPDIR:-/tmp}/fecd-it-$IT_NAME.XXXXXX") || exit 1
CTL_SOCK=$IT_TMP/control.sock

log() { echo "[$IT_NAME $(date +%H:%M:%S)] $*"; }

fail() {
	echo "FAIL: $IT_NAME: $*" >&2
	it_dump_logs
	exit 1
}

skip() {
	echo "SKIP: $IT_NAME: $*"
	exit 77
}

it_dump_logs() {
	for f in "$IT_TMP"/*.log; do
		[ -s "$f" ] || continue
		echo "---- $(basename "$f") (last 30 lines) ----" >&2
		tail -n 30 "$f" >&2
	done
}

# Ends every process we started (by PID), then removes the temporary folder (kept with IT_KEEP=1).
it_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[ -n "${IT_TIMER_PID:-}" ] && kill "$IT_TIMER_PID" 2>/dev/null
	for pid in "${IT_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	sleep 0.2
	for pid in "${IT_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	if [ "${IT_KEEP:-0}" = 1 ]; then
		echo "$IT_NAME: kept $IT_TMP"
	else
		rm -rf "$IT_TMP"
	fi
	exit $rc
}
trap it_cleanup EXIT
trap 'echo "FAIL: $IT_NAME: interrupted" >&2; exit 1' INT
trap 'echo "FAIL: $IT_NAME: ran past its limit of ${IT_LIMIT}s" >&2; it_dump_logs; exit 1' TERM

# The whole-test deadline: a timer that sends us SIGTERM. Its output goes nowhere, and ending it
# ends its sleep too, so nothing holds ctest's pipe open after the test.
(
	trap 'kill "$sp" 2>/dev/null; exit 0' TERM
	sleep "$IT_LIMIT" &
	sp=$!
	wait "$sp" && kill -TERM $$
) >/dev/null 2>&1 &
IT_TIMER_PID=$!

# Starts a background command (stdout and stderr to $IT_TMP/NAME.log); sets LAST_PID.
spawn() {
	local name=$1
	shift
	"$@" >"$IT_TMP/$name.log" 2>&1 &
	LAST_PID=$!
	IT_PIDS+=("$LAST_PID")
}

# Waits for a PID to exit, at most SECONDS; sets WAIT_RC (124 on timeout, the process left alive).
wait_pid() {
	local pid=$1 secs=$2 end=$((SECONDS + $2))
	while kill -0 "$pid" 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			WAIT_RC=124
			return 1
		fi
		sleep 0.1
	done
	wait "$pid"
	WAIT_RC=$?
	return 0
}

# Polls a shell condition every 0.1 s for at most SECONDS. Returns 0 when it held.
wait_for() {
	local secs=$1 end=$((SECONDS + $1))
	shift
	until eval "$*"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.1
	done
}

port() { echo $((IT_PORT + $1)); }
ep() { echo "tcp://127.0.0.1:$(port "$1")"; }

# A channel object for the configuration:
#   chan_json ID NAME CODE-JSON IN-PORT OUT-PORT [IN-EXTRA [OUT-EXTRA [EXTRA]]]
# Input PULL bound, output PUSH bound, both native, unless the extras (more members, each
# starting with a comma: ', "socket": "sub"') say otherwise.
chan_json() {
	local id=$1 name=$2 code=$3 inp=$4 outp=$5 inx=${6:-} outx=${7:-} extra=${8:-}
	local ins='' outs=''
	case $inx in *'"socket"'*) ;; *) ins="$ins"', "socket": "pull"' ;; esac
	case $inx in *'"bind"'*) ;; *) ins="$ins"', "bind": true' ;; esac
	case $outx in *'"socket"'*) ;; *) outs="$outs"', "socket": "push"' ;; esac
	case $outx in *'"bind"'*) ;; *) outs="$outs"', "bind": true' ;; esac
	printf '{"id": %s, "name": "%s", "code": %s, "input": {"endpoint": "%s"%s%s}, "output": {"endpoint": "%s"%s%s}%s}' \
		"$id" "$name" "$code" "$(ep "$inp")" "$ins" "$inx" "$(ep "$outp")" "$outs" "$outx" "$extra"
}

# Writes $IT_TMP/fecd.json with the given channel objects (comma-joined); IT_GLOBALS adds global
# members (each ending with a comma: '"loop_threads": 4, '), IT_CONTROL members of "control"
# (each starting with a comma: ', "build_timeout_ms": 2000').
write_config() {
	local chans=""
	for c in "$@"; do
		chans="${chans:+$chans, }$c"
	done
	cat >"$IT_TMP/fecd.json" <<EOF
{${IT_GLOBALS:-}"control": {"socket": "$CTL_SOCK"${IT_CONTROL:-}}, "log_level": "${IT_LOG_LEVEL:-info}", "workers": 2,
 "linger_ms": ${IT_LINGER_MS:-10000}, "stats_interval_ms": 200, "channels": [$chans]}
EOF
}

# Starts fecd on $IT_TMP/fecd.json with our notification socket and a 2 s watchdog, and waits
# for READY=1 (at most 15 s). Extra arguments go to fecd.
start_fecd() {
	local notify=$IT_TMP/notify.sock
	: >"$IT_TMP/notify.out"
	spawn notify "$IT_NOTIFY" "$notify" "$IT_TMP/notify.out"
	wait_for 5 '[ -S "$notify" ]' || fail "it-notify did not create $notify"
	# WATCHDOG_PID must be fecd's own PID: the subshell execs fecd, so $BASHPID is that PID.
	(export NOTIFY_SOCKET=$notify WATCHDOG_USEC=2000000 WATCHDOG_PID=$BASHPID
	 exec "$FECD" --config "$IT_TMP/fecd.json" "$@") >"$IT_TMP/fecd.log" 2>&1 &
	IT_FECD_PID=$!
	IT_PIDS+=("$IT_FECD_PID")
	if ! wait_for 15 'grep -q "^READY=1" "$IT_TMP/notify.out" || ! kill -0 $IT_FECD_PID 2>/dev/null'; then
		fail "fecd did not report READY=1 within 15 s"
	fi
	kill -0 "$IT_FECD_PID" 2>/dev/null || fail "fecd exited during start-up"
	grep -q "^READY=1" "$IT_TMP/notify.out" || fail "fecd exited before READY=1"
	log "fecd ready (pid $IT_FECD_PID)"
}

# Sends SIGTERM and waits (at most SECONDS, default 20) for fecd to exit; sets FECD_RC.
stop_fecd() {
	local secs=${1:-20}
	kill -TERM "$IT_FECD_PID" 2>/dev/null
	wait_pid "$IT_FECD_PID" "$secs" || fail "fecd did not exit within ${secs}s of SIGTERM"
	FECD_RC=$WAIT_RC
}

fecd_alive() { kill -0 "$IT_FECD_PID" 2>/dev/null; }

# ctl METHOD [PARAMS-JSON]: prints the result; fails the test on an error answer.
ctl() {
	local out
	out=$(timeout 10 "$FECDCTL" --socket "$CTL_SOCK" "$@" 2>&1) || fail "fecdctl $*: $out"
	echo "$out"
}

# jq_get PATH <<< JSON: the value at PATH (see jsonq.c); fails the test when absent.
jq_get() {
	"$IT_JSONQ" "$1" || fail "no $1 in JSON"
}

# chan_stat CHANNEL-ID FIELD: one field of stats.get for a channel.
chan_stat() {
	ctl stats.get "{\"id\": $1}" | jq_get "$2"
}

# Runs the sink in the background with its JSON report in $IT_TMP/NAME.json; sets SINK_PID.
start_sink() {
	local name=$1
	shift
	"$SINK" --json "$@" >"$IT_TMP/$name.json" 2>"$IT_TMP/$name.log" &
	SINK_PID=$!
	IT_PIDS+=("$SINK_PID")
}

# Waits for a sink started by start_sink (at most SECONDS) and checks that it passed.
check_sink() {
	local name=$1 secs=$2
	wait_pid "$SINK_PID" "$secs" || fail "$name: sink still running after ${secs}s"
	local rc=$WAIT_RC
	log "$name: $(cat "$IT_TMP/$name.json")"
	[ $rc -eq 0 ] || fail "$name: sink failed (exit $rc): $(jq_get why <"$IT_TMP/$name.json" 2>/dev/null)"
}

# sink_field NAME PATH: a field of a finished sink's JSON report.
sink_field() {
	jq_get "$2" <"$IT_TMP/$1.json"
}

# Runs the feed in the foreground (at most SECONDS) with its summary in $IT_TMP/NAME.log.
run_feed() {
	local name=$1 secs=$2
	shift 2
	timeout "$secs" "$FEED" "$@" >"$IT_TMP/$name.log" 2>&1
	local rc=$?
	log "$name: $(tail -n 1 "$IT_TMP/$name.log")"
	[ $rc -eq 0 ] || fail "$name: feed failed (exit $rc): $(cat "$IT_TMP/$name.log")"
}

# The value of KEY=N in a feed's summary line.
feed_field() {
	tail -n 1 "$IT_TMP/$1.log" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

expect_eq() {
	[ "$1" = "$2" ] || fail "$3: expected $2, got $1"
}

# expect_frames_ok NAME CH NF K BEFORE: after the sink sink-NAME has run on channel CH: NF frames
# of K bits received, every one decoded and right, none lost; the channel's queue drained and its
# counters in step (frames_out grown from BEFORE by NF; no frame errors, failures or bad messages).
expect_frames_ok() {
	local name=$1 ch=$2 nf=$3 k=$4 before=$5 st
	expect_eq "$(sink_field "sink-$name" frames)" "$nf" "$name frames received"
	expect_eq "$(sink_field "sink-$name" lost_frames)" 0 "$name lost frames"
	expect_eq "$(sink_field "sink-$name" bit_errors)" 0 "$name bit errors"
	expect_eq "$(sink_field "sink-$name" status.decoded)" "$nf" "$name frames decoded"
	expect_eq "$(sink_field "sink-$name" bits)" $((nf * k)) "$name bits"
	wait_for 10 '[ "$(chan_stat '"$ch"' queue_syms)" = 0 ] &&
		[ "$(chan_stat '"$ch"' frames_out)" = '"$((before + nf))"' ]' ||
		fail "$name: symbols left queued, or frames_out is not $((before + nf))"
	st=$(ctl stats.get "{\"id\": $ch}") || fail "stats.get"
	expect_eq "$(jq_get frame_errors <<<"$st")" 0 "$name stats frame_errors"
	expect_eq "$(jq_get failures <<<"$st")" 0 "$name stats failures"
	expect_eq "$(jq_get bad_msgs <<<"$st")" 0 "$name stats bad_msgs"
	log "$name: ok"
}

# frames_case NAME CH INP OUTP NF K CODE SEED LEN [FEED OPTIONS...]: NF frames of CODE, K
# information bits each, from fecd-feed into channel CH's input (port INP) to a sink on its output
# (port OUTP), both seeded SEED; the sink takes the frame length from K (LEN frame-bits) or from
# CODE (LEN code). Then expect_frames_ok.
frames_case() {
	local name=$1 ch=$2 inp=$3 outp=$4 nf=$5 k=$6 code=$7 seed=$8 len=$9
	shift 9
	local before sink_len=(--frame-bits "$k")
	[ "$len" = code ] && sink_len=(--code "$code")
	before=$(chan_stat "$ch" frames_out)
	start_sink "sink-$name" --endpoint "$(ep "$outp")" --seed "$seed" "${sink_len[@]}" \
		--expect-frames "$nf" --timeout 30000
	run_feed "feed-$name" 60 --endpoint "$(ep "$inp")" --channel "$ch" --seed "$seed" \
		--code "$code" --frames "$nf" "$@"
	check_sink "sink-$name" 40
	expect_frames_ok "$name" "$ch" "$nf" "$k" "$before"
}

# ctl_err METHOD PARAMS PATTERN...: the call must fail with -32602 and a message matching every
# PATTERN (grep -E).
ctl_err() {
	local method=$1 params=$2 out
	shift 2
	if out=$(timeout 10 "$FECDCTL" --socket "$CTL_SOCK" "$method" "$params" 2>&1); then
		fail "$method $params succeeded: $out"
	fi
	log "refused as expected: $out"
	grep -q -- "-32602" <<<"$out" || fail "$method: expected error -32602, got: $out"
	for p in "$@"; do
		grep -Eq -- "$p" <<<"$out" || fail "$method: the error does not match '$p': $out"
	done
}
