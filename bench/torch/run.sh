#!/usr/bin/env bash
# Runs bench_ops.py under Ember and under PyTorch 1.13 (/usr/bin/python3) in the same run, one
# BLAS thread, and prints the figures side by side with the ratio ember/torch (< 1: Ember faster),
# for wall clock and for process CPU time (the robust one when the machine is loaded).
# ROUNDS=n (default 1) alternates Ember and PyTorch n times and keeps each side's best figure, so
# both sides see the same load.  BENCH_ONLY=prefix,... selects cases (see bench_ops.py).
# Not a test: nothing here asserts a timing.
# usage: [ROUNDS=n] [BENCH_ONLY=...] bench/torch/run.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
ember="$build/src/cli/ember"
[[ -x $ember ]] || { echo "run.sh: $ember not built (ninja -C $build)" >&2; exit 1; }
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
have_torch=0
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  have_torch=1
else
  echo "PyTorch not available for /usr/bin/python3 (import torch failed): PyTorch figures skipped"
fi
# best of the rounds, per name: lines "name wall cpu"
merge() { awk 'NF >= 3 { if (!($1 in w)) { o[n++] = $1; w[$1] = $2; c[$1] = $3 }
                 if ($2 < w[$1]) w[$1] = $2; if ($3 < c[$1]) c[$1] = $3 }
               END { for (i = 0; i < n; i++) print o[i], w[o[i]], c[o[i]] }'; }
e=""; t=""
for ((r = 0; r < ${ROUNDS:-1}; r++)); do
  e+=$("$ember" run "$here/bench_ops.py")$'\n'
  if ((have_torch)); then t+=$(/usr/bin/python3 "$here/bench_ops.py")$'\n'; fi
done
e=$(merge <<<"$e"); t=$(merge <<<"$t")
get() { awk -v k="$1" -v f="$2" '$1 == k { print $f }' <<<"$3"; }
ratio() { if [[ -n $2 ]]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; else echo -; fi; }
printf '%-24s %11s %11s %7s %11s %11s %7s\n' benchmark "ember wall" "torch wall" ratio \
  "ember cpu" "torch cpu" ratio
while read -r name ew ec; do
  [[ -n $name ]] || continue
  tw=$(get "$name" 2 "$t"); tc=$(get "$name" 3 "$t")
  printf '%-24s %11s %11s %7s %11s %11s %7s\n' "$name" "$ew" "${tw:--}" "$(ratio "$ew" "$tw")" \
    "$ec" "${tc:--}" "$(ratio "$ec" "$tc")"
done <<<"$e"
echo "(microseconds, best of ${ROUNDS:-1} round(s); $(uptime | sed 's/.*load/load/'))"
