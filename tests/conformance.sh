#!/usr/bin/env bash
# Runs ../shared/conformance/run.sh with the ember binary (eager; again with --compile-all once
# torch.compile exists).  Exits 77 (meson: skipped) if the folder is not present.
#
# As the conformance README allows, only the areas whose issues are resolved run; the others are
# listed as skipped.  Add an area's range to `enabled` when its issue is done; EMBER_CONFORMANCE=all
# runs every script.  The scripts and run.sh are used unchanged (linked into a scratch folder).
# usage: conformance.sh EMBER CONFORMANCE_DIR [ember-run flags, e.g. --compile-all]
set -u
ember=$(realpath "$1"); dir=$2; shift 2
if [[ ! -x $dir/run.sh ]]; then
  echo "conformance folder $dir not found: skipped"
  exit 77
fi
dir=$(realpath "$dir")
if [[ ${EMBER_CONFORMANCE:-} == all ]]; then
  exec "$dir/run.sh" "$ember" "$@"
fi

# resolved areas: "first-last  description"
enabled=(
  "01-26  tensors, autograd graph API, multi-grad hooks, saved tensors, custom Functions (issue 4)"
  "27-42  nn.Module, hooks, layers, optimizers, ModTracker (issue 5)"
  "43-54  side effects, hooks and graph breaks under torch.compile (issue 6)"
  "55-57  execution order (issue 8)"
)

in_enabled() {
  local n=$((10#$1)) range lo hi
  for range in "${enabled[@]}"; do
    range=${range%% *}
    lo=$((10#${range%-*})); hi=$((10#${range#*-}))
    (( n >= lo && n <= hi )) && return 0
  done
  return 1
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ln -s "$dir/run.sh" "$scratch/run.sh"
skipped=()
for script in "$dir"/[0-9]*.py; do
  name=$(basename "$script" .py)
  if in_enabled "${name%%_*}"; then
    ln -s "$script" "$scratch/$name.py"
    ln -s "$dir/$name.expected" "$scratch/$name.expected"
  else
    skipped+=("$name")
  fi
done
for range in "${enabled[@]}"; do echo "conformance: running ${range}"; done
if (( ${#skipped[@]} )); then
  echo "conformance: skipped ${#skipped[@]} scripts of areas not resolved yet (EMBER_CONFORMANCE=all runs them): ${skipped[*]}"
fi
# run.sh resolves its own folder with `cd "$(dirname "$0")"`: the scratch folder of links
"$scratch/run.sh" "$ember" "$@"
