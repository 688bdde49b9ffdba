#!/bin/bash
# Integration: ZMQ CURVE on the data sockets, on loopback.
#  1. Keys from fecd --curve-keygen. Channel "sec" binds both sockets with CURVE (allowed clients:
#     the feed's key on the input, the sink's on the output); channel "plain" beside it has none.
#  2. The authorised feed and sink pass a stream with the same bit errors as the plain channel
#     gives the same symbols (4 dB: some errors, so the comparison means something), and nothing
#     is lost.
#  3. Nothing gets through from a feed with an unlisted key (refused by fecd's key check, logged
#     once with the key), a feed with the wrong server key, a feed without CURVE, or a sink with an
#     unlisted key; each is counted in handshake_failures.
#  4. fecd as the CURVE client: channel "client" connects to a feed that binds as the server.
#  5. config.get and channel.get show key file paths, never keys.
#  6. Bad key files and settings are refused with messages that name the file and what was
#     expected, and never quote the file.
. "$(dirname "$0")/lib.sh"

K=$IT_TMP/keys
mkdir -p "$K"
for k in server feed sink intruder fecdcli feedsrv; do
	"$FECD" --curve-keygen "$K/$k" >"$IT_TMP/keygen.log" 2>&1 || fail "--curve-keygen: $(cat "$IT_TMP/keygen.log")"
done
[ "$(stat -c %a "$K/server.key")" = 600 ] || fail "the secret key file is not mode 0600"
pubkey() { grep -v '^# ' "$1"; }
SECRET=$(grep -v '^# ' "$K/server.key")
{ echo "# senders allowed in"; echo "$(pubkey "$K/feed.pub") host-b feed"; } >"$K/in_clients"
pubkey "$K/sink.pub" >"$K/out_clients"
pubkey "$K/fecdcli.pub" >/dev/null

curve_in='"curve": {"secret_key_file": "'$K/server.key'", "clients_file": "'$K/in_clients'"}'
curve_out='"curve": {"secret_key_file": "'$K/server.key'", "clients_file": "'$K/out_clients'"}'
curve_cli='"curve": {"secret_key_file": "'$K/fecdcli.key'", "server_key_file": "'$K/feedsrv.pub'"}'
write_config \
	"$(chan_json 1 sec '{"preset": "ccsds"}' 0 1 ", $curve_in" ", $curve_out")" \
	"$(chan_json 2 plain '{"preset": "ccsds"}' 2 3)" \
	"$(chan_json 3 client '{"preset": "ccsds"}' 4 5 ", \"bind\": false, $curve_cli")"
start_fecd
FEED_KEYS=(--curve-secret-key "$K/feed.key" --curve-server-key "$K/server.pub")
SINK_KEYS=(--curve-secret-key "$K/sink.key" --curve-server-key "$K/server.pub")

# --- 2: the authorised pair, and the same symbols through the plain channel.
BITS=200000
start_sink sink --endpoint "$(ep 1)" "${SINK_KEYS[@]}" --seed 91 --expect-bits $BITS --until-eos \
	--timeout 30000 --max-ber 0.1
run_feed feed 60 --endpoint "$(ep 0)" "${FEED_KEYS[@]}" --channel 1 --seed 91 --bits $BITS --ebn0 4
check_sink sink 40
start_sink sinkp --endpoint "$(ep 3)" --seed 91 --expect-bits $BITS --until-eos --timeout 30000 \
	--max-ber 0.1
run_feed feedp 60 --endpoint "$(ep 2)" --channel 2 --seed 91 --bits $BITS --ebn0 4
check_sink sinkp 40
errs=$(sink_field sink bit_errors)
[ "$errs" -gt 0 ] || fail "no bit errors at 4 dB: the comparison with the plain channel shows nothing"
expect_eq "$errs" "$(sink_field sinkp bit_errors)" "bit errors with CURVE against without"
expect_eq "$(sink_field sink bits_delivered)" $BITS "CURVE: bits delivered"
expect_eq "$(sink_field sink lost_bits)" 0 "CURVE: bits lost"
expect_eq "$(chan_stat 1 handshake_failures)" 0 "handshake_failures of the authorised pair"
MSGS=$(chan_stat 1 msgs_in)

# --- 3: nothing gets through without the right keys.
# try_feed NAME ARGS...: a feed that must not get its messages in (its messages wait in its
# queue; it is stopped after 4 s).
try_feed() {
	local name=$1
	shift
	timeout 4 "$FEED" --endpoint "$(ep 0)" --channel 1 --seed 92 --bits 20000 --ebn0 7 \
		--send-timeout 3000 "$@" >"$IT_TMP/$name.log" 2>&1
	log "$name: exit $?: $(tail -n 1 "$IT_TMP/$name.log")"
}
# The socket monitor's events reach the counter on the channel's loop shortly after the refusal.
try_feed unlisted --curve-secret-key "$K/intruder.key" --curve-server-key "$K/server.pub"
wait_for 10 '[ "$(chan_stat 1 handshake_failures)" -ge 1 ]' ||
	fail "an unlisted client key was not counted"
f1=$(chan_stat 1 handshake_failures)
INTRUDER=$(pubkey "$K/intruder.pub")
n=$(grep -cF "refused the CURVE client key $INTRUDER from 127.0.0.1: not in $K/in_clients" "$IT_TMP/fecd.log")
expect_eq "$n" 1 "log lines for the unlisted key"
try_feed wrongserver --curve-secret-key "$K/feed.key" --curve-server-key "$K/intruder.pub"
wait_for 10 '[ "$(chan_stat 1 handshake_failures)" -gt "$f1" ]' ||
	fail "a client with the wrong server key was not counted"
f2=$(chan_stat 1 handshake_failures)
grep -q "channel sec: input $(ep 0): handshake failed: a CURVE message that does not decrypt" "$IT_TMP/fecd.log" ||
	fail "no log line for the wrong server key"
try_feed nocurve
wait_for 10 '[ "$(chan_stat 1 handshake_failures)" -gt "$f2" ]' ||
	fail "a client without CURVE was not counted"
f3=$(chan_stat 1 handshake_failures)
expect_eq "$(chan_stat 1 msgs_in)" "$MSGS" "messages in from refused feeds"
start_sink badsink --endpoint "$(ep 1)" --curve-secret-key "$K/intruder.key" \
	--curve-server-key "$K/server.pub" --seed 93 --timeout 3000
wait_pid "$SINK_PID" 20 || fail "the refused sink did not give up"
expect_eq "$(sink_field badsink messages)" 0 "messages reaching a sink with an unlisted key"
wait_for 10 '[ "$(chan_stat 1 handshake_failures)" -gt "$f3" ]' ||
	fail "the refused sink was not counted"

# --- 4: fecd as the CURVE client of a feed that binds.
start_sink sinkc --endpoint "$(ep 5)" --seed 94 --expect-bits 100000 --until-eos --timeout 30000
run_feed feedc 60 --endpoint "$(ep 4)" --bind --curve-secret-key "$K/feedsrv.key" --channel 3 \
	--seed 94 --bits 100000 --ebn0 7
check_sink sinkc 40
expect_eq "$(sink_field sinkc bit_errors)" 0 "fecd as CURVE client: bit errors"

# --- 5: paths, never keys, in what fecd prints.
cfg=$(ctl config.get)
chan=$(ctl channel.get '{"id": 1}')
case "$cfg$chan" in *"$SECRET"*) fail "a secret key appears in config.get or channel.get" ;; esac
case $chan in *"$K/server.key"*) ;; *) fail "channel.get does not show the key file path" ;; esac

# --- 6: bad key files and settings.
# create_err CODE PATTERN CURVE-JSON: channel.create of an input with these CURVE settings fails
# with CODE and a message matching PATTERN, and without the file's text.
create_err() {
	local code=$1 pattern=$2 curve=$3 out
	out=$(timeout 10 "$FECDCTL" --socket "$CTL_SOCK" channel.create \
		"$(chan_json 9 bad '{"preset": "ccsds"}' 6 7 ", $curve")" 2>&1) &&
		fail "channel.create with $curve succeeded"
	case $out in
	*"error $code"*$pattern*) log "refused: $out" ;;
	*) fail "channel.create with $curve: expected $code and '$pattern', got: $out" ;;
	esac
	case $out in *SECRETTEXT*) fail "the message quotes the file: $out" ;; esac
}
with_secret() { echo '"curve": {"secret_key_file": "'"$1"'", "clients_file": "'$K/in_clients'"}'; }
create_err -32003 "input.curve.secret_key_file: $K/none.key: No such file or directory" \
	"$(with_secret "$K/none.key")"
cp "$K/feed.key" "$K/open.key" && chmod 0644 "$K/open.key"
create_err -32003 "input.curve.secret_key_file: $K/open.key: mode 0644 gives other users access to a secret key" \
	"$(with_secret "$K/open.key")"
(umask 077 && echo "SECRETTEXT" >"$K/short.key")
create_err -32003 "input.curve.secret_key_file: $K/short.key:1: expected a key of 40 Z85 characters, found a word of 10 characters" \
	"$(with_secret "$K/short.key")"
(umask 077 && echo "SECRETTEXT\"SECRETTEXTSECRETTEXTSECRETTEX" >"$K/badchar.key") # 40 characters
create_err -32003 "input.curve.secret_key_file: $K/badchar.key:1: character 11 of the key is not a Z85 character" \
	"$(with_secret "$K/badchar.key")"
(umask 077 && cat "$K/feed.key" "$K/sink.key" >"$K/two.key")
create_err -32003 "$K/two.key:6: a second key; expected one secret key" "$(with_secret "$K/two.key")"
echo "# nobody" >"$K/empty_clients"
create_err -32003 "input.curve.clients_file: $K/empty_clients: no key in it" \
	'"curve": {"secret_key_file": "'$K/server.key'", "clients_file": "'$K/empty_clients'"}'
mkfifo "$K/fifo"
create_err -32003 "input.curve.clients_file: $K/fifo: not a regular file" \
	'"curve": {"secret_key_file": "'$K/server.key'", "clients_file": "'$K/fifo'"}'
create_err -32602 "input.curve.clients_file: expected the file of client public keys allowed in" \
	'"curve": {"secret_key_file": "'$K/server.key'"}'
create_err -32602 "input.curve.secret_key_file: expected an absolute path" \
	'"curve": {"secret_key_file": "server.key", "clients_file": "'$K/in_clients'"}'
create_err -32602 "input.curve.secret_key_file: expected this end's secret key file, since input.curve.clients_file is set" \
	'"curve": {"clients_file": "'$K/in_clients'"}'
out=$("$FEED" --endpoint "$(ep 6)" --curve-secret-key "$K/open.key" --curve-server-key "$K/server.pub" 2>&1) &&
	fail "fecd-feed accepted a secret key file others can read"
case $out in *"mode 0644 gives other users access"*) ;; *) fail "fecd-feed: $out" ;; esac

fecd_alive || fail "fecd died"
stop_fecd
expect_eq "$FECD_RC" 0 "fecd exit status after SIGTERM"
log "PASS: CURVE: authorised pairs pass, others are refused and counted, bad keys refused"
