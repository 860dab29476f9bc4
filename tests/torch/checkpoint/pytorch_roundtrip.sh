#!/usr/bin/env bash
# Checkpoint round trip PyTorch -> Ember -> PyTorch (issue 16): PyTorch saves (_rt_pytorch.py
# save), Ember loads and re-saves (_rt_ember.py), PyTorch loads Ember's files and compares them
# with its own object bit for bit.  Skipped (77) where PyTorch is not installed.
# usage: pytorch_roundtrip.sh EMBER DIR
set -eu
ember=$(realpath "$1")
here=$(realpath "$2")
/usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || { echo "PyTorch not installed: skipped"; exit 77; }
tmp=$(mktemp -d /tmp/ember_ckpt_rt.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$here/_rt_pytorch.py" save "$tmp"
"$ember" run "$here/_rt_ember.py" "$tmp"
/usr/bin/python3 "$here/_rt_pytorch.py" check "$tmp"
