#!/usr/bin/env bash
# torchrun's options on Ember's launcher: 1.13 spellings (--nproc_per_node) and 2.x ones
# (--nproc-per-node), --nnodes/--node-rank/--master-addr/--master-port, --rdzv-endpoint,
# --role, -t/--tee (lines prefixed "[role local_rank]:"), usage errors, and `ember FILE.py` (the
# form mpirun starts).
# usage: launcher.sh EMBER
set -u
ember=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
ASAN_OPTIONS=detect_leaks=0 "$ember" -c "import torch.distributed as d; assert d.is_gloo_available()" 2>/dev/null ||
  { echo "Ember was built without its gloo engine: skipped"; exit 77; }
# in an ASan build: the engines' libraries keep some memory until exit (lsan.supp)
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export OMP_NUM_THREADS=1
fail=0
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
run() {   # run NAME EXPECTED-LINES... -- ARGS: the sorted stdout must be the expected lines
  local name=$1; shift
  local want=()
  while [[ $1 != -- ]]; do want+=("$1"); shift; done
  shift
  local got
  got=$(timeout 60 "$ember" "$@" 2>/dev/null | sort)
  if [[ "$got" == "$(printf '%s\n' "${want[@]}" | sort)" ]]; then echo "ok $name"; else
    echo "FAIL $name:"; printf '%s\n' "$got"; fail=1; fi
}
p=$(port)
run "1.13 spellings" "worker 0 environment ok" "worker 1 environment ok" -- \
    -m torch.distributed.run --nnodes=1 --nproc_per_node=2 --node_rank=0 --master_addr=127.0.0.1 --master_port=$p \
    launcher_env.py world=2 local_world=2 node_rank=0 nnodes=1 addr=127.0.0.1 port=$p
p=$(port)
run "2.x spellings" "worker 0 environment ok" "worker 1 environment ok" "worker 2 environment ok" -- \
    -m torch.distributed.run --nnodes 1 --nproc-per-node 3 --node-rank 0 --master-addr localhost --master-port $p \
    --role trainer launcher_env.py world=3 local_world=3 node_rank=0 nnodes=1 addr=localhost port=$p role=trainer
p=$(port)
run "rdzv endpoint" "worker 0 environment ok" "worker 1 environment ok" -- \
    -m torch.distributed.run --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:$p --rdzv-id=job7 \
    launcher_env.py world=2 local_world=2 node_rank=0 nnodes=1 addr=127.0.0.1 port=$p run_id=job7
p=$(port)
run "--tee 1 prefixes stdout" "[default0]:worker 0 environment ok" "[default1]:worker 1 environment ok" -- \
    -m torch.distributed.run --nproc-per-node=2 --master-port=$p --tee 1 \
    launcher_env.py world=2 local_world=2 node_rank=0 nnodes=1 addr=127.0.0.1 port=$p
p=$(port)
run "one worker" "worker 0 environment ok" -- \
    -m torch.distributed.run --nproc-per-node=1 --master-port=$p launcher_env.py world=1 local_world=1 node_rank=0 \
    nnodes=1 addr=127.0.0.1 port=$p
err=$(timeout 20 "$ember" -m torch.distributed.run --nproc-per-node=2 --bogus x.py 2>&1); rc=$?
if [[ $rc == 2 && $err == *"torchrun: error: unrecognized arguments: --bogus"* ]]; then echo "ok usage error"; else
  echo "FAIL usage error ($rc): $err"; fail=1; fi
err=$(timeout 20 "$ember" -m torch.distributed.run --nproc-per-node=2 2>&1); rc=$?
if [[ $rc == 2 && $err == *"the following arguments are required: training_script"* ]]; then echo "ok missing script"; else
  echo "FAIL missing script ($rc): $err"; fail=1; fi
exit $fail
