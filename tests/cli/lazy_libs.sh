#!/usr/bin/env bash
# OpenBLAS and libcrypto are loaded when first needed, not at start-up (src/tensor/blas_lib.h,
# vm/mod_hashlib.c: loading them was two thirds of every start-up).  Checked from inside the
# process, by what /proc/self/maps shows mapped: neither after `import torch` and a pointwise op;
# OpenBLAS after the first matrix product (whose result is checked), libcrypto after
# `import hashlib` (whose digest is checked).
# usage: lazy_libs.sh EMBER
set -uo pipefail
ember=$1
out=$("$ember" -c '
def mapped(name):
    with open("/proc/self/maps") as f:
        return name in f.read()
import torch
x = torch.ones(3) + 1
print("start", mapped("libopenblas"), mapped("libcrypto"))
a = torch.arange(4.0).reshape(2, 2)
print("product", (a @ a).tolist(), mapped("libopenblas"), mapped("libcrypto"))
import hashlib
print("hash", hashlib.sha256(b"abc").hexdigest()[:16], mapped("libcrypto"))
' 2>&1)
want='start False False
product [[2.0, 3.0], [6.0, 11.0]] True False
hash ba7816bf8f01cfea True'
if [[ $out != "$want" ]]; then
  printf 'FAIL: expected\n%s\ngot\n%s\n' "$want" "$out"
  exit 1
fi
echo ok
