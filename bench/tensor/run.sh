#!/usr/bin/env bash
# Runs the tensor/autograd benchmarks and their PyTorch twin in the same run, one BLAS thread,
# and prints the figures side by side with ratios (>1 means Ember is faster / at target).
# usage: bench/tensor/run.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD_DIR}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
bin="$build/bench/tensor/bench_tensor"
[[ -x $bin ]] || { echo "run.sh: $bin not built (ninja -C $build)" >&2; exit 1; }
ember=$("$bin")
torch=""
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  torch=$(/usr/bin/python3 "$here/bench_torch.py")
else
  echo "PyTorch not available for /usr/bin/python3 (import torch failed): PyTorch figures skipped"
fi
get() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }
printf '%-22s %12s %12s %10s  %s\n' benchmark "ember (us)" "torch (us)" "torch/ember" target
row() {
  local key=$1 target=$2 e t ratio="-"
  e=$(get "$key" "$ember"); t=$(get "$key" "$torch")
  if [[ -n $t && -n $e ]]; then ratio=$(awk -v a="$t" -v b="$e" 'BEGIN { printf "%.2fx", a / b }'); fi
  printf '%-22s %12s %12s %10s  %s\n' "$key" "$e" "${t:--}" "$ratio" "$target"
}
row add4_nograd "<= 0.25 us"
row add4_graph "<= 0.35 us"
row chain100_backward ""
row chain_per_node "<= 0.5 us/node"
row chain_fixed "<= 3 us/call"
row mlp_b1 ""
row mlp_b64 ""
lib=$(get sgemm512_lib "$ember"); direct=$(get sgemm512_direct "$ember")
printf '%-22s %12s %12s %10s  %s\n' sgemm512_lib "$lib" "$(get sgemm512_lib "$torch")" \
  "$( [[ -n $torch ]] && awk -v a="$(get sgemm512_lib "$torch")" -v b="$lib" 'BEGIN { printf "%.2fx", a / b }' || echo -)" ""
awk -v d="$direct" -v l="$lib" 'BEGIN { printf "sgemm 512x512: library %.1f us, direct cblas_sgemm %.1f us, direct/library = %.3f (target >= 0.95)\n", l, d, d / l }'
