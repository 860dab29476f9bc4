#!/usr/bin/env bash
# Runs a Criterion suite and fails if a sanitizer reported anything. Criterion runs each test in
# a child process and ignores how the child exited after the test body, so a LeakSanitizer or
# UBSan report in a child would otherwise not fail the suite.
# usage: run_criterion.sh TEST_BINARY [criterion args...]
set -uo pipefail
bin=$1
shift
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$bin" "$@" >"$log" 2>&1
rc=$?
cat "$log"
if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer' "$log"; then
  echo "run_criterion.sh: sanitizer report in $(basename "$bin")" >&2
  exit 1
fi
exit $rc
