#!/usr/bin/env bash
# Third-party pure-Python packages under Ember (issue 18 item 4):
#   - EMBERPATH puts directories on sys.path after the script's (as PYTHONPATH), -E ignores it;
#   - the system CPython's packages are not importable by default, and are with
#     --system-site-packages (or -X system_site_packages): tqdm_train.py trains with tqdm's
#     progress bar and reads its config with yaml, output byte-identical to CPython + PyTorch's
#     (tqdm_train.expected, recorded with ../shared/oracle/run_oracle.py);
#   - a C extension among those packages raises ImportError naming its file.
# usage: site_packages.sh EMBER TESTDIR [tqdm]   (exit 77 = skipped: no python3-tqdm / python3-yaml)
#   without "tqdm": the paths and the C extension; with it: also tqdm_train.py's run
set -uo pipefail
ember=$1 dir=$2 mode=${3:-paths}
fail=0
check() { # what, command status (0 = ok)
  if [[ $2 != 0 ]]; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi
}
if ! /usr/bin/python3 -c 'import tqdm, yaml' 2>/dev/null; then
  echo "skipped: the system's CPython 3.11 has no tqdm/yaml (Debian: apt-get install python3-tqdm python3-yaml)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# EMBERPATH
mkdir -p "$tmp/p1/probe_pkg" "$tmp/p2" "$tmp/script"
echo 'WHERE = "p1"' > "$tmp/p1/probe_pkg/__init__.py"
echo 'WHERE = "p2"' > "$tmp/p2/probe_mod.py"
cat > "$tmp/script/main.py" <<'PY'
import sys
import probe_pkg
import probe_mod
print(probe_pkg.WHERE, probe_mod.WHERE, sys.path[:3] == [sys.argv[1], sys.argv[2], sys.argv[3]])
PY
out=$(EMBERPATH="$tmp/p1:$tmp/p2" "$ember" "$tmp/script/main.py" "$tmp/script" "$tmp/p1" "$tmp/p2" 2>&1)
check "EMBERPATH entries are importable, after the script's directory, in order (got: $out)" \
  "$([[ $out == 'p1 p2 True' ]]; echo $?)"
out=$(EMBERPATH="$tmp/p1" "$ember" -c 'import sys; print(sys.path[:2])' 2>&1)
check "-c: sys.path starts with '' then EMBERPATH (got: $out)" "$([[ $out == "['', '$tmp/p1']" ]]; echo $?)"
out=$(EMBERPATH="$tmp/p1" "$ember" -E -c 'import probe_pkg' 2>&1)
check "-E ignores EMBERPATH (got: ${out##*$'\n'})" "$([[ $out == *"ModuleNotFoundError: No module named 'probe_pkg'"* ]]; echo $?)"

# the system's site-packages: not by default, then with the flag
out=$("$ember" -c 'import tqdm' 2>&1)
check "tqdm is not importable without --system-site-packages (got: ${out##*$'\n'})" \
  "$([[ $out == *"ModuleNotFoundError: No module named 'tqdm'"* ]]; echo $?)"
out=$("$ember" --system-site-packages -c 'import sys; print(sys.path[-3:])' 2>&1)
check "--system-site-packages appends CPython's site directories (got: $out)" \
  "$([[ $out == *"/usr/lib/python3/dist-packages"* ]]; echo $?)"
out=$("$ember" -X system_site_packages -c 'import sys; print(sys.path[-3:])' 2>&1)
check "-X system_site_packages is the same switch (got: $out)" "$([[ $out == *"/usr/lib/python3/dist-packages"* ]]; echo $?)"
if [[ $mode == tqdm ]]; then
  "$ember" --system-site-packages "$dir/tqdm_train.py" > "$tmp/tqdm.out" 2> "$tmp/tqdm.err"
  rc=$?
  tail -3 "$tmp/tqdm.err"
  check "tqdm_train.py runs under --system-site-packages (status $rc)" "$rc"
  cmp -s "$tmp/tqdm.out" "$dir/tqdm_train.expected"
  rc=$?
  check "its output (tqdm's bar, yaml's config) is CPython + PyTorch's" "$rc"
  ((rc == 0)) || diff <(tr '\r' '\n' < "$dir/tqdm_train.expected") <(tr '\r' '\n' < "$tmp/tqdm.out") | head -20
  exit $fail
fi

# a C extension among the system's packages: ImportError naming its file
so=$(ls /usr/lib/python3/dist-packages/*.cpython-311-*.so 2>/dev/null | head -1)
if [[ -n $so ]]; then
  mod=$(basename "$so"); mod=${mod%%.*}
  out=$("$ember" --system-site-packages -c "import $mod" 2>&1)
  echo "${out##*$'\n'}"
  check "a C extension's ImportError names its file ($mod)" "$([[ $out == *ImportError* && $out == *"$so"* ]]; echo $?)"
fi
exit $fail
