#!/usr/bin/env bash
# Runs ../shared/conformance/run.sh with the ember binary, eagerly or with extra `ember run`
# flags (--compile-all).  Exits 77 (meson: skipped) if the folder is not present.
# usage: conformance.sh EMBER CONFORMANCE_DIR [flags...]
set -u
ember=$(realpath "$1"); dir=$2; shift 2
if [[ ! -x $dir/run.sh ]]; then
  echo "conformance folder $dir not found: skipped"
  exit 77
fi
"$dir/run.sh" "$ember" "$@"
