#!/usr/bin/env bash
# Runs rows.py (softmax / log_softmax / cross_entropy / layer_norm rows, CPU us per call) under
# each Ember binary given (default: build/src/cli/ember) and under PyTorch 1.13 (/usr/bin/python3)
# in the same run, one thread, and prints the figures side by side with each Ember's ratio to
# PyTorch (< 1: Ember faster).  Two binaries (a base build's and a new one's) give a before/after
# table.  ROUNDS=n (default 1) alternates the programs n times and keeps each one's best figure.
# Not a test: nothing here asserts a timing.
# usage: [ROUNDS=n] bench/torch/rows.sh [EMBER_BINARY ...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
(($#)) || set -- "$here/../../build/src/cli/ember"
for e in "$@"; do [[ -x $e ]] || { echo "rows.sh: $e is not an executable (ninja -C build)" >&2; exit 1; }; done
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
have_torch=0
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then have_torch=1
else echo "PyTorch not available for /usr/bin/python3 (import torch failed): PyTorch figures skipped"; fi
# best of the rounds, per name: lines "name us"
merge() { awk 'NF >= 2 { if (!($1 in b)) { o[n++] = $1; b[$1] = $2 } if ($2 < b[$1]) b[$1] = $2 }
               END { for (i = 0; i < n; i++) print o[i], b[o[i]] }'; }
declare -a out
t=""
for ((r = 0; r < ${ROUNDS:-1}; r++)); do
  k=0
  for e in "$@"; do out[k]+=$("$e" run "$here/rows.py")$'\n'; k=$((k + 1)); done
  if ((have_torch)); then t+=$(/usr/bin/python3 "$here/rows.py")$'\n'; fi
done
t=$(merge <<<"$t")
for ((k = 0; k < $#; k++)); do out[k]=$(merge <<<"${out[k]}"); done
get() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }
ratio() { if [[ -n $2 ]]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; else echo -; fi; }
for ((k = 1; k <= $#; k++)); do echo "ember$k = ${!k}"; done
printf '%-30s' case
for ((k = 1; k <= $#; k++)); do printf ' %10s %6s' "ember$k us" ratio; done
printf ' %10s\n' "torch us"
while read -r name _; do
  [[ -n $name ]] || continue
  tv=$(get "$name" "$t")
  printf '%-30s' "$name"
  for ((k = 0; k < $#; k++)); do v=$(get "$name" "${out[k]}"); printf ' %10s %6s' "$v" "$(ratio "$v" "$tv")"; done
  printf ' %10s\n' "${tv:--}"
done <<<"${out[0]}"
