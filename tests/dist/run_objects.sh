#!/usr/bin/env bash
# objects.py under a launcher.  With CPython's pickle (once Ember imports it) it runs as is; with
# --repr-pickle it runs on repr_pickle/pickle.py (repr/eval), which checks the object collectives'
# transport against PyTorch's output while CPython's pickle is not importable yet.
# usage: run_objects.sh EMBER MODE [--repr-pickle]
here=$(cd "$(dirname "$0")" && pwd)
if [[ ${3:-} == --repr-pickle ]]; then
  exec "$here/run_dist.sh" "$1" "$2" "$here/objects.py" --stand-in-pickle
fi
if ! ASAN_OPTIONS=detect_leaks=0 "$1" -c "import pickle" >/dev/null 2>&1; then
  echo "object collectives: pickle is not importable in Ember yet: skipped"
  exit 77
fi
exec "$here/run_dist.sh" "$1" "$2" "$here/objects.py"
