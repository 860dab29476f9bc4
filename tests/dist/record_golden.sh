#!/usr/bin/env bash
# Records NAME.expected for a distributed golden program from PyTorch 1.13 with gloo: the script
# runs under torchrun (torchrun_py311.py) with 2 processes, each through the torch oracle
# (tests/torch/oracle_backports.py: the 2.x APIs the seeds describe, torch.compile as identity).
# Only stdout is recorded (the scripts print on rank 0); stderr (launcher warnings) is dropped.
# With --single the scripts run as one process without torchrun (references, samplers).
# usage: tests/dist/record_golden.sh [--single] FILE.py...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
single=0
if [[ ${1:-} == --single ]]; then single=1; shift; fi
for f in "$@"; do
  d=$(cd "$(dirname "$f")" && pwd); b=$(basename "$f")
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if [[ $single == 1 ]]; then
    out=$(cd "$d" && /usr/bin/python3 "$top/tests/torch/oracle_backports.py" "$b" 2>/dev/null)
  else
    out=$(cd "$d" && OMP_NUM_THREADS=1 timeout 300 /usr/bin/python3 "$here/torchrun_py311.py" --nproc_per_node=2 \
          --master_port="$port" --no_python /usr/bin/python3 "$top/tests/torch/oracle_backports.py" "$b" 2>/dev/null)
  fi
  printf '%s\n' "$out" > "${f%.py}.expected"
  echo "recorded ${f%.py}.expected"
done
