#!/bin/bash
# Integration ae: `cmake --install` puts everything where the prefix says (issue 19's second item).
#  1. DESTDIR=D --prefix /usr, as a package build does: the configuration is D/etc/fecd/fecd.json
#     (what fecd.service reads), the programs D/usr/bin, the units D/usr/lib/systemd/system naming
#     /usr/bin/fecd and /etc/fecd/fecd.json; every file installed lies under D, in D/usr but for
#     that one.
#  2. --prefix P, a throw-away prefix: every file under P, the configuration P/etc/fecd/fecd.json,
#     the units naming P/bin/fecd and that file; the unit's ExecStartPre, run as written, passes
#     with the installed fecd and example configuration.
#  3. A second install keeps a configuration the administrator changed.
# The build folder is the one whose bin/ holds $FECD; the manifest cmake writes there lists what
# each install wrote.
. "$(dirname "$0")/lib.sh"

BUILD=$(cd "$(dirname "$FECD")/.." && pwd)
[ -f "$BUILD/cmake_install.cmake" ] || skip "no cmake_install.cmake in $BUILD"

# install_to LOG DESTDIR PREFIX: runs cmake --install (DESTDIR empty: none), output in LOG.
install_to() {
	local log=$1
	DESTDIR=$2 cmake --install "$BUILD" --prefix "$3" >"$IT_TMP/$log" 2>&1 ||
		fail "DESTDIR=$2 cmake --install --prefix $3: $(tail -n 20 "$IT_TMP/$log")"
	cp "$BUILD/install_manifest.txt" "$IT_TMP/$log.manifest"
}

# all_under MANIFEST DIR: every installed path lies under DIR.
all_under() {
	local outside
	outside=$(grep -v "^$2/" "$IT_TMP/$1") && fail "$1: installed outside $2: $outside"
	[ -s "$IT_TMP/$1" ] || fail "$1: nothing installed"
}

# unit_line FILE KEY: the unit's KEY=... line (its first).
unit_line() { grep -m1 "^$2=" "$1"; }

# --- 1: a package build.
D=$IT_TMP/destdir
install_to usr.log "$D" /usr
# The manifest names the paths without DESTDIR: each must be under /usr or be the configuration,
# and have landed under D.
grep -v -e '^/usr/' -e '^/etc/fecd/fecd.json$' "$IT_TMP/usr.log.manifest" &&
	fail "--prefix /usr: installed outside /usr (listed above)"
while read -r f; do
	[ -z "$f" ] || [ -f "$D$f" ] || fail "--prefix /usr: $f did not land under DESTDIR $D"
done < <(cat "$IT_TMP/usr.log.manifest"; echo)
expect_eq "$(find "$D" -type f -o -type l | wc -l)" "$(grep -c "" "$IT_TMP/usr.log.manifest")" \
	"--prefix /usr: files under DESTDIR against the manifest"
[ -f "$D/etc/fecd/fecd.json" ] || fail "--prefix /usr: no $D/etc/fecd/fecd.json: $(cat "$IT_TMP/usr.log.manifest")"
[ -x "$D/usr/bin/fecd" ] || fail "--prefix /usr: no /usr/bin/fecd"
U=$D/usr/lib/systemd/system/fecd.service
[ -f "$U" ] || fail "--prefix /usr: no fecd.service"
expect_eq "$(unit_line "$U" ExecStart)" 'ExecStart=/usr/bin/fecd --config ${FECD_CONFIG} $FECD_OPTS' \
	"--prefix /usr: ExecStart"
expect_eq "$(unit_line "$U" Environment)" 'Environment=FECD_CONFIG=/etc/fecd/fecd.json' \
	"--prefix /usr: the configuration the unit reads"
expect_eq "$(unit_line "$D/usr/lib/systemd/system/fecd@.service" Environment)" \
	'Environment=FECD_CONFIG=/etc/fecd/%i.json' "--prefix /usr: the template's configuration"
grep -q '@FECD_' "$U" "$D/usr/lib/systemd/system/fecd@.service" && fail "a placeholder left in a unit"

# --- 2: a throw-away prefix.
P=$IT_TMP/prefix
install_to prefix.log "" "$P"
all_under prefix.log.manifest "$P"
[ -f "$P/etc/fecd/fecd.json" ] || fail "--prefix P: no P/etc/fecd/fecd.json"
U=$P/lib/systemd/system/fecd.service
expect_eq "$(unit_line "$U" ExecStartPre)" "ExecStartPre=$P/bin/fecd --config \${FECD_CONFIG} --check-config" \
	"--prefix P: ExecStartPre"
expect_eq "$(unit_line "$U" Environment)" "Environment=FECD_CONFIG=$P/etc/fecd/fecd.json" \
	"--prefix P: the configuration the unit reads"
# The unit's check, as systemd would run it (its ${FECD_CONFIG} from its Environment= line).
FECD_CONFIG=${P}/etc/fecd/fecd.json
check=$(unit_line "$U" ExecStartPre | sed 's/^ExecStartPre=//; s|${FECD_CONFIG}|'"$FECD_CONFIG"'|')
out=$(FECD_CODES_DIR=${FECD_CODES_DIR:-} timeout 20 $check 2>&1) ||
	fail "the unit's ExecStartPre ($check) failed: $out"
log "ExecStartPre: $out"

# --- 3: a reinstall keeps the administrator's configuration.
echo '{"log_level": "debug"}' >"$P/etc/fecd/fecd.json"
install_to again.log "" "$P"
expect_eq "$(cat "$P/etc/fecd/fecd.json")" '{"log_level": "debug"}' "reinstall: the changed fecd.json"
grep -q "Kept: $P/etc/fecd/fecd.json" "$IT_TMP/again.log" || fail "reinstall: not said: $(cat "$IT_TMP/again.log")"
log "PASS"
