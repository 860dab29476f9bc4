#!/usr/bin/env bash
# Fails if any file of the standalone tensor/autograd library includes a vm/ header
# (DESIGN.md: src/tensor and src/autograd never include vm/).
set -euo pipefail
root=${1:?usage: check_no_vm_includes.sh SOURCE_ROOT}
if grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](vm/|\.\./\.\./vm/|ember/ember\.h|ember/vm)' \
     "$root/src/tensor" "$root/src/autograd" "$root/include/ember/tensor.h" "$root/include/ember/autograd.h"; then
  echo "error: the tensor/autograd layer includes VM headers" >&2
  exit 1
fi
n=$(ls "$root"/src/tensor/*.[ch] "$root"/src/autograd/*.[ch] | wc -l)
echo "ok: $n files in src/tensor and src/autograd include no vm/ header"
