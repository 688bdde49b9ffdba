#!/bin/bash
# Integration: the code files a control client may make fecd read (issue 14).
#  1. Under the default codes_paths ("codes_dir"), channel.create naming an absolute path (a
#     mode-600 file holding a marker), a "../" path, a link out of the codes folder, a FIFO, a
#     folder, and a file in the folder that is no code, each gets -32602 within a few seconds
#     (a FIFO used to block the daemon for good), saying what is allowed and quoting nothing of
#     any file; the daemon goes on decoding (a feed and sink run after them) and answering.
#  2. After a reload with "codes_paths": "any", an absolute path to a code file works, the link
#     out is read (and still quoted nowhere), and a FIFO or a device is still refused at once.
# Skips where ../shared/codes is absent.
. "$(dirname "$0")/lib.sh"

CODES=${FECD_CODES_DIR:-}
[ -n "$CODES" ] && [ -f "$CODES/WIMAX_288_576.alist" ] ||
	skip "no WIMAX_288_576.alist in ${CODES:-../shared/codes (FECD_CODES_DIR is not set)}"

MARK=Zq7secretmark
FOLDER=$IT_TMP/codes
mkdir "$FOLDER" "$FOLDER/folder.alist" && cp "$CODES/WIMAX_288_576.alist" "$FOLDER/" &&
	printf 'root:$6$%s$abc:19000:0:99999:7:::\n' "$MARK" >"$IT_TMP/secret" &&
	chmod 600 "$IT_TMP/secret" &&
	printf '6 3\n%s 4\n' "$MARK" >"$FOLDER/notacode.alist" &&
	mkfifo "$FOLDER/fifo.alist" && ln -s "$IT_TMP/secret" "$FOLDER/link.alist" ||
	fail "cannot make the codes folder"

IT_GLOBALS="\"codes_dir\": \"$FOLDER\", "
write_config "$(chan_json 1 wimax '{"preset": "wimax-576"}' 0 1)"
start_fecd
expect_eq "$(ctl config.get | jq_get codes_paths)" codes_dir "config.get codes_paths"

CH='"input": {"endpoint": "'$(ep 4)'"}, "output": {"endpoint": "'$(ep 5)'"}'

# refused CODE PATTERN...: channel.create with that LDPC code file answers -32602 within 5 s,
# matching every PATTERN (grep -E) and holding nothing of the secret file.
refused() {
	local code=$1 out t0 ms
	shift
	t0=$(date +%s%N)
	if out=$(timeout 10 "$FECDCTL" --socket "$CTL_SOCK" channel.create \
		'{"id": 9, "code": {"family": "ldpc", "code": "'"$code"'"}, '"$CH"'}' 2>&1); then
		fail "channel.create with $code succeeded: $out"
	fi
	ms=$((($(date +%s%N) - t0) / 1000000))
	log "$code: refused in $ms ms: $out"
	[ "$ms" -lt 5000 ] || fail "$code: the answer took $ms ms"
	grep -q -- "error -32602: params\.code: " <<<"$out" || fail "$code: expected -32602: $out"
	grep -q -- "$MARK" <<<"$out" && fail "$code: the error quotes a file: $out"
	for p in "$@"; do
		grep -Eq -- "$p" <<<"$out" || fail "$code: the error does not match '$p': $out"
	done
}

# --- 1: confined to the codes folder.
refused "$IT_TMP/secret" 'an absolute path; expected a file in the codes folder' \
	"codes_paths setting .any. allows other paths"
refused "$CODES/WIMAX_288_576.alist" 'an absolute path'
refused "../secret" 'a path with ".."' 'codes_paths'
refused "link.alist" 'a link leads out of the codes folder' 'codes_paths'
refused "fifo.alist" 'fifo\.alist: a FIFO; expected a regular file'
refused "folder.alist" 'folder\.alist: a folder; expected a regular file'
refused "notacode.alist" 'notacode\.alist:2: expected a number, found a word'
ctl channel.list | "$IT_JSONQ" channels.1 >/dev/null 2>&1 && fail "a refused channel.create left a channel"
fecd_alive || fail "fecd died on the refused paths"

start_sink sink --endpoint "$(ep 1)" --seed 71 --frame-bits 288 --expect-frames 30 --timeout 30000
run_feed feed 30 --endpoint "$(ep 0)" --channel 1 --seed 71 --code wimax-576 --frames 30 --ebn0 6
check_sink sink 30
expect_eq "$(sink_field sink bit_errors)" 0 "frames after the refused paths: bit errors"

# --- 2: widened by the configuration (a reload).
IT_GLOBALS="\"codes_dir\": \"$FOLDER\", \"codes_paths\": \"any\", "
write_config "$(chan_json 1 wimax '{"preset": "wimax-576"}' 0 1)"
kill -HUP "$IT_FECD_PID"
wait_for 15 '[ "$(ctl config.get | jq_get codes_paths)" = any ]' ||
	fail "codes_paths is not \"any\" after the reload"
grep -q 'reload: codes_paths changes to "any"' "$IT_TMP/fecd.log" ||
	fail "no log line for the codes_paths change"

out=$(ctl channel.create '{"id": 9, "code": {"family": "ldpc", "code": "'"$CODES/WIMAX_288_576.alist"'"}, '"$CH"'}')
log "absolute path under \"any\": $out"
ctl channel.get '{"id": 9}' | jq_get config.code.code | grep -qx "$CODES/WIMAX_288_576.alist" ||
	fail "channel 9 does not have the absolute path as its code"
ctl channel.delete '{"id": 9}' >/dev/null
refused "link.alist" 'link\.alist:1: expected a number, found a word'
refused "$IT_TMP/secret" 'secret:1: expected a number, found a word'
refused "$FOLDER/fifo.alist" 'a FIFO; expected a regular file'
refused "/dev/null" '/dev/null: a character device; expected a regular file'

fecd_alive || fail "fecd died"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS"
