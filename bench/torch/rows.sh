#!/usr/bin/env bash
# Runs bench/torch/rows.py under Ember and PyTorch 1.13 (/usr/bin/python3) and prints each
# figure with the Ember / PyTorch ratio.  usage: bench/torch/rows.sh [EMBER]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ember=${1:-$here/../../build/src/cli/ember}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
e=$("$ember" run "$here/rows.py")
if /usr/bin/python3 -c "import torch" 2>/dev/null; then p=$(/usr/bin/python3 "$here/rows.py"); else p=""; fi
printf '%-30s %10s %10s %8s\n' figure "ember us" "torch us" ratio
while read -r name ev; do
  pv=$(printf '%s\n' "$p" | awk -v n="$name" '$1 == n {print $2}')
  if [[ -n $pv ]]; then r=$(awk -v a="$ev" -v b="$pv" 'BEGIN {printf "%.2f", a / b}'); else pv=-; r=-; fi
  printf '%-30s %10s %10s %8s\n' "$name" "$ev" "$pv" "$r"
done <<< "$e"
