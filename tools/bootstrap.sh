#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for Ember: installs the packages that are missing
# (apt-get, through sudo when not root; nothing happens when all are present), configures
# the build directory with meson and builds it.  Idempotent; every README command starts here.
# With --tests it also installs what only the test suite uses (tools/test.sh passes it).
# usage: tools/bootstrap.sh [--tests] [build-dir] [extra meson setup args...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tests=0; [[ ${1:-} == --tests ]] && { tests=1; shift; }
build=${1:-$top/build}; shift || true
# One package a line (branches adding packages merge cleanly), with what needs it.
pkgs=(
  meson ninja-build pkg-config gcc
  libffi-dev          # ctypes and custom ops (libffi)
  libcriterion-dev    # unit suites
  libopenblas-dev     # GEMM
  libgmp-dev          # big ints
  g++                 # torch.distributed: Ember's C++ shim over Gloo
  libgloo-dev         # torch.distributed: the gloo backend
  libopenmpi-dev      # torch.distributed: the mpi backend
  openmpi-bin         # mpirun
  libedit-dev         # the interactive prompt's line editing
  libpython3.11-stdlib  # CPython's standard library, which Ember runs (found by meson)
  zlib1g-dev          # the zlib and binascii modules
  libssl-dev          # _hashlib (OpenSSL's digests)
  libsleef-dev        # exp, tanh, erf, ... as PyTorch's kernels compute them (Sleef)
)
# only the test suite's (--tests)
((tests)) && pkgs+=(
  chromium            # the compile report rendered in a browser (tests/report)
  python3-tqdm        # a third-party pure-Python package under --system-site-packages (tests/cli)
  python3-yaml        # the same: yaml's pure-Python loader (tests/cli)
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [[ $(id -u) == 0 ]] || sudo="sudo"
  echo "bootstrap: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [[ ! -f $build/build.ninja ]]; then
  meson setup "$build" "$top" "$@" >/dev/null
fi
ninja -C "$build" >/dev/null
