#!/usr/bin/env bash
# Golden-program runner: runs every NAME.py under the given directories with `ember run` (from
# the script's own directory, by its bare name, so tracebacks print "NAME.py") and compares
# stdout+stderr with NAME.expected.  A non-zero exit status is part of the output, as a last
# line "[exit N]".  The script directory's absolute path is removed from the output, as
# record_golden.sh removes it from CPython's.  Prints a diff per failure and "N passed, N failed";
# exits 1 on failure.
# usage: run_golden.sh EMBER [--flags-for-run ...] -- DIR...
set -u
ember=$(realpath "$1"); shift
flags=()
while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift
pass=0 fail=0
for dir in "$@"; do
  for script in $(find "$dir" -name '*.py' -not -name '_*' | sort); do
    exp="${script%.py}.expected"
    [[ -f $exp ]] || continue
    d=$(dirname "$script"); b=$(basename "$script")
    got=$(cd "$d" && timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" run "${flags[@]}" "$b" 2>&1; rc=$?; [[ $rc != 0 ]] && echo "[exit $rc]")
    # modules imported from the script's directory have absolute paths (sys.path[0] is the
    # absolute directory, as in CPython); record_golden.sh strips the same prefix
    absd=$(cd "$d" && pwd)
    got=${got//"$absd/"/}
    if [[ "$got" == "$(cat "$exp")" ]]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL $script"
      diff <(printf '%s\n' "$got") "$exp" | head -n 15
    fi
  done
done
echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
