#!/usr/bin/env bash
# objects.py under a launcher, once Ember imports CPython's pickle (stdlib work); skipped until then.
# usage: run_objects.sh EMBER MODE
here=$(cd "$(dirname "$0")" && pwd)
if ! "$1" -c "import pickle" >/dev/null 2>&1; then
  echo "object collectives: pickle is not importable in Ember yet: skipped"
  exit 77
fi
exec "$here/run_dist.sh" "$1" "$2" "$here/objects.py"
