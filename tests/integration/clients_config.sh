#!/bin/bash
# Integration af: every client follows fecd's configuration file given with -c, and fecd-feed and
# fecd-sink take --codes-dir (issue 19's second item). A codes folder of this test's own holds a
# (7,4) Hamming code as an alist file; fecd reads it through its codes_dir setting.
#  1. fecd-feed -c and fecd-sink -c, with no endpoint, socket or codes folder on their command
#     lines: channel 1's endpoints (a PUSH output, and channel 2's SUB input and PUB output, each
#     with the socket kind that talks to it) and the file's codes_dir; every frame checked.
#  2. --codes-dir wins over the file's codes_dir (a folder without the file: refused, naming the
#     path it looked for), and works without -c.
#  3. fecdctl -c: the control socket the file names (not the default one).
#  4. -c with a channel the file lacks, and a file that is not JSON: the error names the channel,
#     or the line, the column and what was found there.
. "$(dirname "$0")/lib.sh"

CODES=$IT_TMP/codes
mkdir -p "$CODES"
printf '7 3\n3 4\n2 2 2 3 1 1 1\n4 4 4\n1 2 0\n1 3 0\n2 3 0\n1 2 3\n1 0 0\n2 0 0\n3 0 0\n1 2 4 5\n1 3 4 6\n2 3 4 7\n' \
	>"$CODES/h74.alist"
CODE='{"family": "ldpc", "code": "h74.alist"}'
IT_GLOBALS="\"codes_dir\": \"$CODES\", "
write_config "$(chan_json 1 h74 "$CODE" 0 1)" \
	"$(chan_json 2 h74pub "$CODE" 2 3 ', "socket": "sub"' ', "socket": "pub"')"
CFG=$IT_TMP/fecd.json
start_fecd

# --- 1: endpoints, socket kinds and the codes folder from the file.
NF=50
start_sink sink1 -c "$CFG" --code "ldpc,code=h74.alist" --expect-frames $NF --until-eos --timeout 20000
run_feed feed1 30 -c "$CFG" --code "ldpc,code=h74.alist" --frames $NF --ebn0 8
check_sink sink1 30
expect_eq "$(sink_field sink1 frames)" $NF "channel 1: frames"
expect_eq "$(sink_field sink1 bits)" $((NF * 4)) "channel 1: bits (k = 4 from the code)"
start_sink sink2 --config "$CFG" --channel 2 --code "ldpc,code=h74.alist" --until-eos --timeout 20000
run_feed feed2 30 --config "$CFG" --channel 2 --code "ldpc,code=h74.alist" --frames $NF --ebn0 8 \
	--start-delay 500
check_sink sink2 30
expect_eq "$(sink_field sink2 frames)" $NF "channel 2 (SUB in, PUB out): frames"
expect_eq "$(chan_stat 2 msgs_in)" $NF "channel 2: messages in"

# --- 2: --codes-dir.
out=$(timeout 10 "$FEED" -c "$CFG" --codes-dir "$IT_TMP" --code "ldpc,code=h74.alist" --frames 1 2>&1) &&
	fail "--codes-dir without the file was accepted: $out"
case $out in *"$IT_TMP/h74.alist"*) ;; *) fail "--codes-dir: the message names no path: $out" ;; esac
out=$(timeout 10 "$SINK" --codes-dir "$CODES" --code "ldpc,code=h74.alist" --frame-bits 5 2>&1) &&
	fail "the sink took --frame-bits 5 for a code of k = 4"
case $out in *"carry 4 bits"*) ;; *) fail "--codes-dir without -c: $out" ;; esac

# --- 3: fecdctl -c finds the socket the file names.
res=$(cd "$IT_TMP" && RUNTIME_DIRECTORY=/nonexistent timeout 10 "$FECDCTL" -c "$CFG" channel.list) ||
	fail "fecdctl -c: $res"
case $res in *'"h74pub"'*) ;; *) fail "fecdctl -c channel.list: $res" ;; esac

# --- 4: errors.
out=$(timeout 10 "$FEED" -c "$CFG" --channel 9 --frames 1 2>&1) && fail "channel 9 accepted: $out"
case $out in *"has no channel 9"*) ;; *) fail "missing channel: $out" ;; esac
printf '{"codes_dir": "%s",\n "channels": [{"id": 1 "name": "x"}]}\n' "$CODES" >"$IT_TMP/bad.json"
for prog in "$FEED" "$SINK" "$FECDCTL"; do
	if [ "$prog" = "$FECDCTL" ]; then
		out=$(timeout 10 "$prog" -c "$IT_TMP/bad.json" channel.list 2>&1)
	else
		out=$(timeout 10 "$prog" -c "$IT_TMP/bad.json" 2>&1)
	fi && fail "$(basename "$prog"): a broken file was accepted: $out"
	case $out in *"bad.json:2:24: not valid JSON: found '\"name\"'"*) ;;
	*) fail "$(basename "$prog"): JSON error: $out" ;; esac
done
log "PASS"
