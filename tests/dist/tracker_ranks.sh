#!/usr/bin/env bash
# Runs tracker_ranks.py in one process and on 2 ranks (torchrun --tee 1 prefixes each line with
# its rank) and requires each rank's lines to equal the single process's.
# usage: tracker_ranks.sh EMBER [--backend mpi]
set -u
ember=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
ASAN_OPTIONS=detect_leaks=0 "$ember" -c "import torch.distributed as d; assert d.is_gloo_available()" 2>/dev/null ||
  { echo "Ember was built without its gloo engine: skipped"; exit 77; }
# in an ASan build: the engines' libraries keep some memory until exit (lsan.supp)
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export OMP_NUM_THREADS=1
one=$(timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" -m torch.distributed.run --standalone --nproc-per-node=1 tracker_ranks.py 2>/dev/null)
errs=$(mktemp); trap 'rm -f "$errs"' EXIT
two=$(timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" -m torch.distributed.run --standalone --nproc-per-node=2 --tee 1 tracker_ranks.py 2>"$errs")
[[ -n $one ]] || { echo "FAIL: the single process printed nothing"; exit 1; }
fail=0
for r in 0 1; do
  mine=$(printf '%s\n' "$two" | sed -n "s/^\[default$r\]://p")
  if [[ "$mine" == "$one" ]]; then echo "ok rank $r sees what one process sees ($(printf '%s\n' "$mine" | wc -l) lines)"
  else echo "FAIL rank $r differs from one process:"; diff <(printf '%s\n' "$mine") <(printf '%s\n' "$one") | head -20; fail=1; fi
done
# a failing run shows what the launcher reported (a rank's traceback, its exit code)
((fail)) && { echo "--- the 2-process run's stderr:"; tail -30 "$errs"; }
exit $fail
