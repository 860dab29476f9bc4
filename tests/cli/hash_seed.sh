#!/usr/bin/env bash
# PYTHONHASHSEED as CPython 3.11 reads it (vm/pyhash.c): a seed keys str hashes as CPython's
# lcg_urandom(seed) does (values recorded with `PYTHONHASHSEED=N /usr/bin/python3 -c ...`: one
# ASCII, one Latin-1, one BMP and one astral string, the last two hashed as a stream of 2- and
# 4-byte code units); a bad value is CPython's fatal error, exit 1; under -E and -I the variable
# is not read at all (CPython ignores every PYTHON* variable then), so the key is the unset one,
# which in Ember is PYTHONHASHSEED=0's.
# usage: hash_seed.sh EMBER
set -uo pipefail
ember=$1
prog='print(hash("abc"), hash("héllo wörld"), hash("日本語"), hash("𝔘x"))'
seed0="-4594863902769663758 2851654936439523187 7116994712188270 3124882103437326520"
seed7="-7459679063432183616 8969507831169877959 -8919996470435188823 7676181793411149960"
fail=0
check() {   # name got want
  if [[ "$2" != "$3" ]]; then echo "FAIL $1: got [$2] want [$3]"; fail=1; else echo "ok $1"; fi
}
check unset "$(env -u PYTHONHASHSEED "$ember" -c "$prog" 2>&1)" "$seed0"
check seed0 "$(PYTHONHASHSEED=0 "$ember" -c "$prog" 2>&1)" "$seed0"
check seed7 "$(PYTHONHASHSEED=7 "$ember" -c "$prog" 2>&1)" "$seed7"
check seed7_E "$(PYTHONHASHSEED=7 "$ember" -E -c "$prog" 2>&1)" "$seed0"
check seed7_I "$(PYTHONHASHSEED=7 "$ember" -I -c "$prog" 2>&1)" "$seed0"
check bad_E "$(PYTHONHASHSEED=bad "$ember" -E -c "$prog" 2>&1)" "$seed0"
out=$(PYTHONHASHSEED=bad "$ember" -c "$prog" 2>&1); rc=$?
check bad "$rc: $(head -1 <<<"$out")" '1: Fatal Python error: config_init_hash_seed: PYTHONHASHSEED must be "random" or an integer in range [0; 4294967295]'
exit $fail
