#!/usr/bin/env bash
# Runs the libFuzzer targets of a -Dfuzz=true build, each for SECONDS (default 1800), seeded
# from tests/lang's programs; findings (crash-*, leak-*, timeout-*) land in tests/fuzz/artifacts.
#   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
#   tools/run_libfuzzer.sh build-fuzz 1800 [fuzz_frontend|fuzz_vm]
set -eu
build=${1:?usage: run_libfuzzer.sh BUILD_DIR [SECONDS] [TARGET...]}
secs=${2:-1800}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz_frontend fuzz_vm)
root=$(cd "$(dirname "$0")/.." && pwd)
ninja -C "$build" "${targets[@]/#/tests/fuzz/}"
seeds=$(mktemp -d)
find "$root/tests/lang" -name '*.py' -exec cp {} "$seeds/" \;
mkdir -p "$root/tests/fuzz/artifacts"
for t in "${targets[@]}"; do
  corpus="$build/tests/fuzz/corpus_$t"
  mkdir -p "$corpus"
  echo "== $t for $secs s"
  ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
    "$build/tests/fuzz/$t" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=16384 \
      -artifact_prefix="$root/tests/fuzz/artifacts/$t-" -print_final_stats=1 "$corpus" "$seeds"
done
rm -rf "$seeds"
