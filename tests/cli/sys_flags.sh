#!/usr/bin/env bash
# The command line as CPython 3.11 reports it: sys.flags under option sets and their PYTHON*
# variables (-E / -I ignoring them), sys.warnoptions (-X dev, -W, -b / -bb), the int-digit limit
# (-X int_max_str_digits, PYTHONINTMAXSTRDIGITS, sys.set_int_max_str_digits and their errors,
# the fatal errors of bad values), safe_path (-P, -I, PYTHONSAFEPATH: no directory first on
# sys.path), and -i on a piped stdin (the prompt on stderr, as CPython
# prints it without line editing).  sys_flags.expected was recorded from CPython with
# `tests/cli/sys_flags.sh python3 > tests/cli/sys_flags.expected`; no_site, hash_randomization
# and optimize are left out (Ember never runs site.py, keys str hashes as PYTHONHASHSEED=0 when
# the variable is unset, and keeps assert statements under -O).
# usage: sys_flags.sh INTERPRETER [EXPECTED]   (with EXPECTED: compare, exit 1 on a difference)
set -u
py=$1; [[ $py == */* ]] && py=$(realpath "$py")
run() {
  local code='import sys; d = {k: getattr(sys.flags, k) for k in ("debug", "inspect", "interactive", "dont_write_bytecode", "no_user_site", "ignore_environment", "verbose", "bytes_warning", "quiet", "isolated", "dev_mode", "utf8_mode", "warn_default_encoding", "safe_path", "int_max_str_digits")}; print(d, sys.warnoptions, sys.get_int_max_str_digits())'
  local clean=(env -u PYTHONDONTWRITEBYTECODE -u PYTHONUNBUFFERED -u PYTHONINSPECT -u PYTHONVERBOSE -u PYTHONDEBUG
               -u PYTHONNOUSERSITE -u PYTHONSAFEPATH -u PYTHONDEVMODE -u PYTHONUTF8 -u PYTHONINTMAXSTRDIGITS
               -u PYTHONWARNDEFAULTENCODING)
  echo "== none"; "${clean[@]}" "$py" -c "$code"
  echo "== -I -q -B -s -v -b -d -P -X dev -X utf8 -X int_max_str_digits=5000"
  "${clean[@]}" "$py" -I -q -B -s -v -b -d -P -X dev -X utf8 -X int_max_str_digits=5000 -c "$code" 2>/dev/null
  echo "== -i -E (stdin empty)"; "${clean[@]}" "$py" -i -E -c "$code" </dev/null 2>/dev/null
  echo "== PYTHONINSPECT=1"; "${clean[@]}" PYTHONINSPECT=1 "$py" -c "$code" </dev/null 2>/dev/null
  echo "== -bb -vv -W error -b"; "${clean[@]}" "$py" -bb -vv -W error -b -c "$code" 2>/dev/null
  echo "== variables"
  "${clean[@]}" PYTHONDONTWRITEBYTECODE=1 PYTHONNOUSERSITE=1 PYTHONSAFEPATH=1 PYTHONDEVMODE=1 PYTHONUTF8=1 \
    PYTHONVERBOSE=3 PYTHONDEBUG=x PYTHONINTMAXSTRDIGITS=0 PYTHONWARNDEFAULTENCODING=1 "$py" -c "$code" 2>/dev/null
  echo "== variables under -E, -X utf8=0"
  "${clean[@]}" PYTHONDONTWRITEBYTECODE=1 PYTHONUTF8=1 PYTHONINTMAXSTRDIGITS=900 "$py" -E -X utf8=0 -c "$code" 2>/dev/null
  echo "== bad values"
  "${clean[@]}" PYTHONINTMAXSTRDIGITS=7 "$py" -c 1 2>&1; echo "rc=$?"
  "${clean[@]}" "$py" -X int_max_str_digits=12 -c 1 2>&1; echo "rc=$?"
  "${clean[@]}" "$py" -X int_max_str_digits -c 1 2>&1; echo "rc=$?"
  "${clean[@]}" "$py" -X utf8=5 -c 1 2>&1; echo "rc=$?"
  echo "== set_int_max_str_digits"
  "${clean[@]}" "$py" -c '
import sys
print(sys.get_int_max_str_digits())
sys.set_int_max_str_digits(5000); print(sys.get_int_max_str_digits(), sys.flags.int_max_str_digits)
sys.set_int_max_str_digits(maxdigits=0); print(sys.get_int_max_str_digits())
print(len(str(10**6000)))
sys.set_int_max_str_digits(700)
for bad in (100, -1, "x", 2**70):
    try: sys.set_int_max_str_digits(bad)
    except Exception as e: print(type(e).__name__, e)
try: sys.set_int_max_str_digits()
except Exception as e: print(type(e).__name__, e)
try: str(10**800)
except ValueError as e: print(e)
' 2>&1
  echo "== safe_path: is the script's directory / the current directory first on sys.path?"
  local d; d=$(mktemp -d)
  printf 'import os, sys\nprint(sys.path[0] in (os.path.dirname(os.path.realpath(__file__)), os.getcwd()))\n' >"$d/first.py"
  for opt in "" -P -I; do (cd "$d" && "${clean[@]}" "$py" $opt first.py; "${clean[@]}" "$py" $opt -m first 2>&1 | sed 's/^.*: No module/No module/'); done
  (cd "$d" && "${clean[@]}" PYTHONSAFEPATH=1 "$py" -c 'import sys; print(sys.path[0] == "")')
  rm -rf "$d"
  echo "== -i -q on a piped stdin: stdout, then stderr"
  local prog=$'x = 3\nif x:\n  print(x)\n\nx + 1\n'
  "${clean[@]}" "$py" -i -q <<<"$prog" 2>/dev/null
  "${clean[@]}" "$py" -i -q <<<"$prog" 2>&1 >/dev/null; echo
}
if (($# < 2)); then run; exit 0; fi
diff <(run 2>&1) "$2" && echo "ok: sys.flags, warnoptions, the digit limit and -i as CPython's"
