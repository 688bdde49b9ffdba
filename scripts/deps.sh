#!/bin/bash
# Installs what fecd needs to build, test and run on Debian 12: the compiler and CMake, the four
# libraries (libzmq, libuv, cJSON, libmicrohttpd for the metrics server), curl (the metrics test),
# libfec0 (fecd-bench's libfec anchor, loaded with dlopen), clang and its runtime libraries
# (libFuzzer, the sanitizers) for the fuzz harnesses, gnuplot-nox (fecd-sim --plot), python3 and
# python3-numpy (the Python module over libfecd, python/fecd.py, and its test) and, for the GNU
# Radio example and its test and fecd-bench's GNU Radio anchor, GNU Radio itself.
# Set FECD_NO_GNURADIO=1 to skip GNU Radio (the example's test then skips).
set -euo pipefail
pkgs="build-essential cmake pkg-config libzmq3-dev libuv1-dev libcjson-dev libmicrohttpd-dev curl libfec0"
pkgs="$pkgs clang libclang-rt-14-dev"
pkgs="$pkgs gnuplot-nox python3 python3-numpy"
[ "${FECD_NO_GNURADIO:-0}" = 1 ] || pkgs="$pkgs gnuradio python3-zmq"
missing=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null | awk '$NF != "installed" {print $1}' || true)
for p in $pkgs; do dpkg-query -W "$p" >/dev/null 2>&1 || missing="$missing $p"; done
missing=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
if [ -z "${missing// /}" ]; then
	echo "deps: all present"
	exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
echo "deps: installing $missing"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps: done"
