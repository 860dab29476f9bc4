#!/usr/bin/env bash
# Records NAME.expected for golden programs from the real thing: CPython 3.11 for pure-language
# tests (`python3 -X no_debug_ranges`, whose traceback layout Ember matches), or the PyTorch
# oracle (../shared/oracle/run_oracle.py) with --torch.  Never hand-edit an expected file;
# tests of Ember-only output (syntax-error diagnostics, dis) are recorded with --ember after
# checking by eye that the message text is CPython's.  --torch runs the shared oracle through
# tests/torch/oracle_backports.py, which adds the torch 2.x autograd APIs the shared prelude lacks.
# CPython 3.9+ makes the main script's path absolute, so its tracebacks and warnings name
# "/abs/dir/NAME.py"; Ember prints the file name as given on the command line ("NAME.py", see
# LANGUAGE.md), so the script directory's absolute prefix is removed from CPython's output.
# usage: record_golden.sh [--torch|--ember EMBER] FILE.py...
set -eu
mode=python
if [[ ${1:-} == --torch ]]; then mode=torch; shift; fi
if [[ ${1:-} == --ember ]]; then mode=ember; ember=$(realpath "$2"); shift 2; fi
top=$(cd "$(dirname "$0")/.." && pwd)
# OpenBLAS as the suite runs it (meson.build's test setup): its kernels decide products' last bits
export OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=512
# CPython's deterministic string hashes, which are Ember's default (vm/pyhash.c): a program that
# prints a set of strings records the order Ember prints
export PYTHONHASHSEED=0
for f in "$@"; do
  d=$(dirname "$f"); b=$(basename "$f")
  case $mode in
    python) out=$(cd "$d" && python3 -X no_debug_ranges "$b" 2>&1; rc=$?; [[ $rc != 0 ]] && echo "[exit $rc]") || true ;;
    torch) out=$(cd "$d" && /usr/bin/python3 "$top/tests/torch/oracle_backports.py" "$b" 2>&1; rc=$?; [[ $rc != 0 ]] && echo "[exit $rc]") || true ;;
    ember) out=$(cd "$d" && "$ember" run "$b" 2>&1; rc=$?; [[ $rc != 0 ]] && echo "[exit $rc]") || true ;;
  esac
  absd=$(cd "$d" && pwd)
  [[ $mode != ember ]] && out=${out//"$absd/"/}
  printf '%s\n' "$out" > "${f%.py}.expected"
  echo "recorded ${f%.py}.expected"
done
