#!/usr/bin/env bash
# Fails if a switch over tensor ops (`case TENSOR_OP_X:`) appears anywhere in src/ outside the
# table's generated expansions (`case TENSOR_OP_##NAME` in an X-macro): what an op is lives in
# its ops.def row and its own kernel functions (issue 13).
set -euo pipefail
root=${1:?usage: check_no_op_switch.sh SOURCE_ROOT}
if grep -rnE 'case[[:space:]]+TENSOR_OP_[A-Z0-9_]+[[:space:]]*:' "$root/src" "$root/include"; then
  echo "error: a switch over tensor ops; give the op a column or kernel function in ember/ops.def instead" >&2
  exit 1
fi
echo "ok: no per-op switch in src/ or include/ outside the ops.def expansions"
