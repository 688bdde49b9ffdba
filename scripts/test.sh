#!/bin/bash
# Sets everything up and runs the whole test suite: dependencies, a Release build with warnings as
# errors, then ctest (unit and integration tests; GPU tests skip on machines without one).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${FECD_BUILD:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-Werror" >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 300
