#!/bin/bash
# libfecd as a user takes it (docs/libfecd.md): installed with `cmake --install BUILD --prefix P
# --component libfecd` into a temporary prefix, the example clients/examples/libfecd_example.c
# built with `cc $(pkg-config --cflags --libs fecd)` against what was installed and run there
# (ldd must show the installed library), every installed header compiling on its own, the SONAME
# carrying the major version, and nothing exported but fec_* and fecd_* (no fec__*, no family
# internals, no SIMD level).
# Usage: install_example.sh BUILD_DIR EXAMPLE.c
set -euo pipefail
build=$1 example=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" --component libfecd >"$tmp/install.log" ||
	{ cat "$tmp/install.log"; fail "cmake --install"; }
pc=$(find "$tmp/prefix" -name fecd.pc)
[ -n "$pc" ] || fail "no fecd.pc under the prefix"
export PKG_CONFIG_PATH=$(dirname "$pc")
echo "fecd.pc: $pc, version $(pkg-config --modversion fecd)"
libdir=$(pkg-config --variable=libdir fecd)
[ "$(realpath "$libdir")" = "$(realpath "$(dirname "$pc")/..")" ] ||
	fail "pkg-config's libdir $libdir is not where fecd.pc lies"

# Every public header compiles alone, in C11 with warnings as errors.
for h in "$(pkg-config --variable=includedir fecd)"/fecd/*.h; do
	printf '#include <%s>\nint main(void) { return 0; }\n' "$(basename "$h")" >"$tmp/h.c"
	cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags fecd) -c "$tmp/h.c" -o "$tmp/h.o" ||
		fail "header $(basename "$h") does not compile on its own"
done

cc -std=c11 -Wall -Wextra -Werror "$example" $(pkg-config --cflags --libs fecd) -o "$tmp/example" ||
	fail "the example does not build against the installed library"
export LD_LIBRARY_PATH=$libdir
# ldd's output taken whole first: piped into grep -q, which leaves at its first match, ldd could
# be killed writing the rest and pipefail then failed the check (seen under a loaded ctest -j2)
deps=$(ldd "$tmp/example")
grep -qF "libfecd.so.0 => $libdir/" <<<"$deps" ||
	fail "the example is not linked to the installed library: $(grep fecd <<<"$deps")"

# A regular LDPC code at 2.5 dB, and far above the threshold, where nothing may be wrong.
"$tmp/example" "ldpc,code=regular,n=576,dv=3,dc=6" 2.5 64 | tee "$tmp/out1"
grep -q '64 frames' "$tmp/out1" || fail "example output"
"$tmp/example" "ldpc,code=regular,n=576,dv=3,dc=6" 6 64 | tee "$tmp/out2"
grep -q ' 0 bit errors, 0 frame errors' "$tmp/out2" || fail "errors at 6 dB"
"$tmp/example" "whd-k7,frame_bits=200" 5 32 | tee "$tmp/out3"
grep -q '32 frames' "$tmp/out3" || fail "fano example output"
if "$tmp/example" "no-such-code" 2>"$tmp/err"; then fail "an unknown code was taken"; fi
grep -q "no-such-code" "$tmp/err" || fail "the unknown code's message: $(cat "$tmp/err")"

lib=$(realpath "$libdir/libfecd.so")
nm -D --defined-only "$lib" >"$tmp/syms"
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
[ "$soname" = libfecd.so.0 ] || fail "SONAME '$soname', want libfecd.so.0"
leaked=$(awk '$2 != "A" {print $3}' "$tmp/syms" | grep -vE '^fecd?_[a-z0-9]' || true)
[ -z "$leaked" ] || fail "exported beyond fec_* and fecd_*: $(echo $leaked | head -c 400)"
leaked=$(awk '{print $3}' "$tmp/syms" | grep -E '^fecd?__|^fec_simd_' || true)
[ -z "$leaked" ] || fail "internal symbols exported: $(echo $leaked | head -c 400)"
for sym in fec_spec_from_string fec_decode fec_encode fec_channel_apply fec_prng_seed \
	fec_version fec_abi_size fecd_status_name; do
	grep -qE " T $sym(@@FECD_0)?\$" "$tmp/syms" || fail "$sym is not exported"
done
echo "PASS: $(grep -c ' T ' "$tmp/syms") functions exported"
