#!/usr/bin/env bash
# Runs the whole test suite: every Criterion suite, golden program, golden disassembly,
# finite-difference check and conformance script, through `meson test`.
# usage: tools/test.sh [build-dir]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
"$top/tools/bootstrap.sh" --tests "$build"
meson test -C "$build" --print-errorlogs --num-processes 2
