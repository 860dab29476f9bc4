#!/usr/bin/env bash
# Golden disassembly: for each NAME.py in DIR, `ember dis NAME.py` must print NAME.dis exactly.
# usage: run_bytecode.sh EMBER DIR
set -u
ember=$(realpath "$1"); dir=$2
pass=0 fail=0
for script in "$dir"/*.py; do
  [[ -f $script ]] || continue
  exp="${script%.py}.dis"
  got=$(cd "$dir" && "$ember" dis "$(basename "$script")" 2>&1)
  if [[ "$got" == "$(cat "$exp")" ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL $script"; diff <(printf '%s\n' "$got") "$exp" | head -n 20
  fi
done
echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
