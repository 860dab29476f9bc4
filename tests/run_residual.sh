#!/usr/bin/env bash
# Golden residual code: for each NAME.py in DIR, the bytecode artifacts `ember compile --show
# bytecode` prints (ORIGINAL and MODIFIED BYTECODE of every compiled frame, on stderr) must equal
# NAME.residual.  Names are stable (__compiled_fn_N, __resume_at_X_N), so runs compare exactly.
# usage: run_residual.sh EMBER DIR
set -u
ember=$(realpath "$1"); dir=$2
pass=0 fail=0
for script in "$dir"/*.py; do
  [[ -f $script ]] || continue
  exp="${script%.py}.residual"
  got=$(cd "$dir" && "$ember" compile --show bytecode "$(basename "$script")" 2>&1 >/dev/null)
  if [[ "$got" == "$(cat "$exp")" ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL $script"; diff <(printf '%s\n' "$got") "$exp" | head -n 30
  fi
done
echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
