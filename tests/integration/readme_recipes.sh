#!/bin/bash
# Integration ac: README's recipes run as written. Each recipe is a ```sh block after a line
# `<!-- recipe:NAME -->` in README.md; this test copies the block out and runs it with bash in a
# folder whose build/bin/ holds one small wrapper per program. The wrappers change only what a
# shared test machine needs changed: fecd gets a configuration equal to its defaults except the
# endpoints (this test's ports) and the control socket (this test's folder), fecd-feed and
# fecd-sink get those endpoints, and fecdctl that socket, waiting for it to appear as a person
# typing the next line would. The recipe's own exit status, and what its programs print, are then
# checked against what the feed actually sent: a verifier that says PASS with bits missing fails
# here. Endpoints a recipe names itself (tcp://127.0.0.1:55NN) move with the defaults: port
# 55NN becomes this test's port NN - 50. Each recipe runs under bash -e: every line must succeed.
#  0. first-run: the first block of "Using fecd": a stream through the default channel, verified,
#     then stats.get, channel.create and channel.update.
#  1. live-code-change: channel.update at_seq, fecd-sink --until-eos, fecd-feed --switch. The sink
#     must see every bit the feed sent, over two code generations, and stop at the feed's end,
#     not at the END_OF_STREAM fecd marks where the code changes.
. "$(dirname "$0")/lib.sh"

README=$(dirname "$0")/../../README.md

# recipe NAME: the recipe's commands.
recipe() {
	awk -v tag="<!-- recipe:$1 -->" '
		$0 == tag { want = 1; next }
		want && /^```sh$/ { inside = 1; next }
		inside && /^```$/ { exit }
		inside { print }' "$README"
}

# Wrappers in $IT_TMP/run/build/bin, and fecd's configuration: the defaults on this test's ports.
make_wrappers() {
	local bin=$IT_TMP/run/build/bin
	mkdir -p "$bin"
	cat >"$IT_TMP/recipe-fecd.json" <<EOF
{"control": {"socket": "$CTL_SOCK"}, "channels": [{"id": 1,
 "input": {"endpoint": "$(ep 0)"}, "output": {"endpoint": "$(ep 1)"}}]}
EOF
	cat >"$bin/fecd" <<EOF
#!/bin/bash
echo \$\$ >"$IT_TMP/recipe-fecd.pid"
exec "$FECD" --config "$IT_TMP/recipe-fecd.json" "\$@" 2>>"$IT_TMP/recipe-fecd.log"
EOF
	cat >"$bin/fecd-feed" <<EOF
#!/bin/bash
exec "$FEED" --endpoint "$(ep 0)" "\$@"
EOF
	cat >"$bin/fecd-sink" <<EOF
#!/bin/bash
exec "$SINK" --endpoint "$(ep 1)" "\$@"
EOF
	cat >"$bin/fecdctl" <<EOF
#!/bin/bash
for i in \$(seq 150); do [ -S "$CTL_SOCK" ] && break; sleep 0.1; done
exec "$FECDCTL" --socket "$CTL_SOCK" "\$@"
EOF
	chmod +x "$bin"/*
}

# run_recipe NAME SECONDS: runs it; its output in $IT_TMP/NAME.out, its status in RECIPE_RC.
# fecd, if the recipe started it, is stopped afterwards (by the PID its wrapper wrote).
run_recipe() {
	local name=$1 secs=$2
	recipe "$name" | sed -E 's|tcp://127\.0\.0\.1:55([5-9][0-9])|tcp://127.0.0.1:P\1|g' |
		awk -v base="$IT_PORT" '{ while (match($0, /:P[5-9][0-9]/)) {
			p = substr($0, RSTART + 2, 2) - 50 + base
			$0 = substr($0, 1, RSTART) p substr($0, RSTART + RLENGTH) } print }' \
		>"$IT_TMP/$name.sh"
	[ -s "$IT_TMP/$name.sh" ] || fail "README has no recipe '$name'"
	log "recipe $name:"
	cat "$IT_TMP/$name.sh"
	rm -f "$IT_TMP/recipe-fecd.pid"
	(cd "$IT_TMP/run" && exec timeout "$secs" bash -e "$IT_TMP/$name.sh") >"$IT_TMP/$name.out" 2>&1
	RECIPE_RC=$?
	log "recipe $name: exit $RECIPE_RC"
	cat "$IT_TMP/$name.out"
	if [ -s "$IT_TMP/recipe-fecd.pid" ]; then
		local pid
		pid=$(cat "$IT_TMP/recipe-fecd.pid")
		kill -TERM "$pid" 2>/dev/null
		for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
	fi
}

# out_field NAME PROGRAM KEY: the value of KEY=N on the summary line PROGRAM printed
# ("fecd-feed: ..." or "fecd-sink: ...") in the recipe's output.
out_field() {
	grep "^$2: messages=" "$IT_TMP/$1.out" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$3=//p"
}

make_wrappers

# --- 0: the first run.
run_recipe first-run 90
[ "$RECIPE_RC" -eq 0 ] || fail "first-run: the recipe failed (exit $RECIPE_RC)"
grep -q '^  PASS$' "$IT_TMP/first-run.out" || fail "first-run: no PASS from fecd-sink"
sent=$(out_field first-run fecd-feed bits)
got=$(out_field first-run fecd-sink bits)
expect_eq "$sent" 1000000 "first-run: bits the feed says it sent"
expect_eq "$got" "$sent" "first-run: bits fecd-sink checked"
grep -q '"name": "dvbs"' "$IT_TMP/first-run.out" || fail "first-run: channel 2 was not created"
grep -q '"code_gen": 2' "$IT_TMP/first-run.out" || fail "first-run: channel 1 was not updated"

# --- 1: the live code change.
run_recipe live-code-change 90
[ "$RECIPE_RC" -eq 0 ] || fail "live-code-change: the recipe failed (exit $RECIPE_RC)"
grep -q '^  PASS$' "$IT_TMP/live-code-change.out" || fail "live-code-change: no PASS from fecd-sink"
sent=$(out_field live-code-change fecd-feed bits)
got=$(out_field live-code-change fecd-sink bits)
# At least the 10^6 asked for: the feed rounds its last message up to a whole puncturing period.
[ "${sent:-0}" -ge 1000000 ] || fail "live-code-change: the feed says it sent ${sent:-no} bits"
expect_eq "$got" "$sent" "live-code-change: bits fecd-sink checked before its PASS"
grep -q 'code_gens=1,2 ' "$IT_TMP/live-code-change.out" ||
	fail "live-code-change: fecd-sink did not see both code generations"
log "PASS"
