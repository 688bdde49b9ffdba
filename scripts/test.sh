#!/bin/bash
# Sets everything up and runs the whole test suite: dependencies, a Release build with warnings as
# errors, then ctest (unit and integration tests; GPU tests skip on machines without one); then
# the fuzz harnesses (tests/fuzz), built with clang, libFuzzer, ASan and UBSan in a second build
# folder, each run for a bounded time from its committed corpus (about two minutes in all).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${FECD_BUILD:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-Werror" >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 300
fuzz_build=${FECD_FUZZ_BUILD:-build-fuzz}
CC=clang cmake -S . -B "$fuzz_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFECD_FUZZ=ON \
	-DCMAKE_C_FLAGS="-Werror" >/dev/null
cmake --build "$fuzz_build" --target fuzz -j"$(nproc)"
ctest --test-dir "$fuzz_build" -L fuzz --output-on-failure -j"$(nproc)"
