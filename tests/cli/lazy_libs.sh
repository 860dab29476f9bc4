#!/usr/bin/env bash
# OpenBLAS, libcrypto, Sleef and libedit are loaded when first needed, not at start-up
# (src/tensor/blas_lib.h, vm/mod_hashlib.c, src/tensor/vmath.h, src/cli/repl.c: loading them was
# most of every start-up).  Checked from inside the process, by what /proc/self/maps shows
# mapped: none after `import torch` and an addition; Sleef after the first exp (whose value is
# checked), OpenBLAS after the first matrix product (whose result is checked), libcrypto after
# `import hashlib` (whose digest is checked); libedit never (no interactive prompt).
# usage: lazy_libs.sh EMBER
set -uo pipefail
ember=$1
out=$("$ember" -c '
def mapped(name):
    with open("/proc/self/maps") as f:
        return name in f.read()
import torch
x = torch.ones(3) + 1
print("start", mapped("libopenblas"), mapped("libcrypto"), mapped("libsleef"), mapped("libedit"))
print("exp", torch.tensor([0.0, 1.0]).exp().tolist(), mapped("libsleef"), mapped("libopenblas"))
a = torch.arange(4.0).reshape(2, 2)
print("product", (a @ a).tolist(), mapped("libopenblas"), mapped("libcrypto"))
import hashlib
print("hash", hashlib.sha256(b"abc").hexdigest()[:16], mapped("libcrypto"), mapped("libedit"))
' 2>&1)
# Sleef serves only CPUs with AVX2 + FMA (PyTorch's AVX2 kernels; elsewhere libm, as its DEFAULT ones)
sleef=False
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then sleef=True; fi
want="start False False False False
exp [1.0, 2.7182817459106445] $sleef False
product [[2.0, 3.0], [6.0, 11.0]] True False
hash ba7816bf8f01cfea True False"
if [[ $out != "$want" ]]; then
  printf 'FAIL: expected\n%s\ngot\n%s\n' "$want" "$out"
  exit 1
fi
echo ok
