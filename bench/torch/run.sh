#!/usr/bin/env bash
# Runs bench_ops.py under Ember and under PyTorch 1.13 (/usr/bin/python3) in the same run, one
# BLAS thread, and prints the figures side by side with the ratio ember/torch (< 1: Ember faster).
# Not a test: nothing here asserts a timing.
# usage: bench/torch/run.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
ember="$build/src/cli/ember"
[[ -x $ember ]] || { echo "run.sh: $ember not built (ninja -C $build)" >&2; exit 1; }
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
e=$("$ember" run "$here/bench_ops.py")
t=""
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  t=$(/usr/bin/python3 "$here/bench_ops.py")
else
  echo "PyTorch not available for /usr/bin/python3 (import torch failed): PyTorch figures skipped"
fi
get() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }
printf '%-24s %12s %12s %12s\n' benchmark "ember (us)" "torch (us)" "ember/torch"
while read -r name _; do
  ev=$(get "$name" "$e"); tv=$(get "$name" "$t"); ratio="-"
  if [[ -n $tv ]]; then ratio=$(awk -v a="$ev" -v b="$tv" 'BEGIN { printf "%.2f", a / b }'); fi
  printf '%-24s %12s %12s %12s\n' "$name" "$ev" "${tv:--}" "$ratio"
done <<<"$e"
