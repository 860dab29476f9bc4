#!/usr/bin/env bash
# A rank that dies, raises, hangs or never arrives makes the others fail within the timeout with a
# clear error, and nothing hangs: each case runs under `timeout`, and its time is checked.
# usage: failures.sh EMBER
set -u
ember=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
ASAN_OPTIONS=detect_leaks=0 "$ember" -c "import torch.distributed as d; assert d.is_gloo_available()" 2>/dev/null ||
  { echo "Ember was built without its gloo engine: skipped"; exit 77; }
# in an ASan build: the engines' libraries keep some memory until exit (lsan.supp)
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MASTER_ADDR=127.0.0.1 WORLD_SIZE=2
fail=0
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
expect() {   # expect NAME FILE PATTERN: the output holds PATTERN (a fixed string)
  if grep -qF -- "$3" "$2"; then echo "ok $1: $3"; else echo "FAIL $1: no '$3' in:"; head -c 3000 "$2"; fail=1; fi
}
# A slow build (sanitizers, GC stress) sets EMBER_TEST_TIMEOUT above the default 60 s; the
# limits below (which include starting two processes and importing torch) scale with it.
scale=$(( ${EMBER_TEST_TIMEOUT:-60} > 60 ? ${EMBER_TEST_TIMEOUT:-60} / 60 : 1 ))
within() {   # within NAME SECONDS START
  local took=$(( $(date +%s) - $3 )) limit=$(( $2 * scale ))
  if (( took <= limit )); then echo "ok $1: finished in ${took}s (limit ${limit}s)"; else echo "FAIL $1: took ${took}s"; fail=1; fi
}
out=$(mktemp); out1=$(mktemp)

# 1. rank 1 is killed (SIGKILL) mid-run, ranks started by hand: rank 0's all_reduce fails at once
export MASTER_PORT=$(port)
start=$(date +%s)
RANK=1 timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" run failing.py --mode kill >"$out1" 2>&1 &
RANK=0 timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" run failing.py --mode kill >"$out" 2>&1; rc=$?
wait
[[ $rc != 0 && $rc != 124 ]] && echo "ok killed peer: rank 0 exits with status $rc" || { echo "FAIL killed peer: status $rc"; fail=1; }
expect "killed peer" "$out" "RuntimeError: [Rank 0] all_reduce failed:"
expect "killed peer" "$out" "by peer"
expect "killed peer" "$out" "(a peer process may have exited or stopped responding)"
within "killed peer" 10 "$start"

# 2. rank 1 stops taking part (sleeps): rank 0 times out after 2 s with gloo's message
export MASTER_PORT=$(port)
start=$(date +%s)
RANK=1 timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" run failing.py --mode hang >"$out1" 2>&1 & p1=$!
RANK=0 timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" run failing.py --mode hang >"$out" 2>&1; rc=$?
kill $p1 2>/dev/null; wait
[[ $rc != 0 && $rc != 124 ]] && echo "ok hung peer: rank 0 exits with status $rc" || { echo "FAIL hung peer: status $rc"; fail=1; }
expect "hung peer" "$out" "RuntimeError: [Rank 0] all_reduce failed:"
expect "hung peer" "$out" "Timed out"
within "hung peer" 10 "$start"

# 3. the peer never arrives: rank 0 alone, then rank 1 alone
export MASTER_PORT=$(port)
start=$(date +%s)
RANK=0 timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" run failing.py --mode alone >"$out" 2>&1
expect "peer never arrives (rank 0)" "$out" "RuntimeError: Timed out after 2 seconds waiting for clients. 1/2 clients joined."
RANK=1 timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" run failing.py --mode alone >"$out" 2>&1
expect "master never arrives (rank 1)" "$out" "RuntimeError: The client socket has timed out after 2s while trying to connect to (127.0.0.1, $MASTER_PORT)."
within "never arrives" 12 "$start"

# 4. under torchrun: a rank that raises stops the other; the report names it with its traceback
start=$(date +%s)
timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" -m torch.distributed.run --standalone --nproc-per-node=2 failing.py --mode raise >"$out" 2>&1; rc=$?
[[ $rc == 1 ]] && echo "ok torchrun, rank raises: exit 1" || { echo "FAIL torchrun, rank raises: exit $rc"; fail=1; }
sed -n '/Root Cause/,$p' "$out" >"$out1"
expect "torchrun, rank raises" "$out1" "rank      : 1 (local_rank: 1)"
expect "torchrun, rank raises" "$out1" 'raise ValueError("bad batch on rank 1")'
expect "torchrun, rank raises" "$out1" "ValueError: bad batch on rank 1"
within "torchrun, rank raises" 15 "$start"

# 5. under torchrun: a rank killed by a signal
start=$(date +%s)
timeout "${EMBER_TEST_TIMEOUT:-60}" "$ember" -m torch.distributed.run --standalone --nproc-per-node=2 failing.py --mode kill >"$out" 2>&1; rc=$?
[[ $rc == 1 ]] && echo "ok torchrun, rank killed: exit 1" || { echo "FAIL torchrun, rank killed: exit $rc"; fail=1; }
sed -n '/Root Cause/,$p' "$out" >"$out1"
expect "torchrun, rank killed" "$out1" "rank      : 1 (local_rank: 1)"
expect "torchrun, rank killed" "$out1" "exitcode  : -9"
expect "torchrun, rank killed" "$out1" "Signal 9 (SIGKILL) received by PID"
within "torchrun, rank killed" 15 "$start"

# 6. under mpirun: a killed rank ends the job (MPI has no timeouts; mpirun tears the job down)
if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LSAN_OPTIONS="$LSAN_OPTIONS:detect_leaks=0"
  start=$(date +%s)
  timeout "${EMBER_TEST_TIMEOUT:-60}" mpirun --oversubscribe -np 2 "$ember" failing.py --mode kill --backend mpi >"$out" 2>&1; rc=$?
  [[ $rc != 0 && $rc != 124 ]] && echo "ok mpirun, rank killed: exit $rc" || { echo "FAIL mpirun, rank killed: exit $rc"; fail=1; }
  expect "mpirun, rank killed" "$out" "exited on signal 9"
  within "mpirun, rank killed" 20 "$start"
fi
rm -f "$out" "$out1"
exit $fail
