#!/usr/bin/env bash
# Runs a distributed golden program under one of Ember's launchers and compares its stdout with
# NAME.MODE.expected, NAME.expected or EXPECTED when given, within a time limit (a hang is a failure, never a wait).
#   torchrun: ember -m torch.distributed.run --standalone --nproc-per-node=2 NAME.py ARGS
#   mpirun:   mpirun --oversubscribe -np 2 ember NAME.py --backend mpi ARGS
#   torchrun1: the same with one process
#   single:   ember run NAME.py ARGS  (one process, no launcher)
# usage: run_dist.sh EMBER MODE NAME.py [--expected FILE] [ARGS...]
set -u
ember=$(realpath "$1"); mode=$2; script=$3; shift 3
exp="${script%.py}.expected"
[[ -f "${script%.py}.$mode.expected" ]] && exp="${script%.py}.$mode.expected"
if [[ ${1:-} == --expected ]]; then exp=$2; shift 2; fi
d=$(dirname "$script"); b=$(basename "$script")
# in an ASan build: the engines' libraries keep some memory until exit (lsan.supp)
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
engine=gloo; [[ $mode == mpirun ]] && engine=mpi
if [[ $mode != single ]] && ! ASAN_OPTIONS=detect_leaks=0 "$ember" -c "import torch.distributed as d; assert d.is_${engine}_available()" 2>/dev/null; then
  echo "Ember was built without its $engine engine (tools/bootstrap.sh installs it): skipped"; exit 77
fi
case $mode in
  torchrun) cmd=("$ember" -m torch.distributed.run --standalone --nproc-per-node=2 "$b" "$@") ;;
  torchrun1) cmd=("$ember" -m torch.distributed.run --standalone --nproc-per-node=1 "$b" "$@") ;;
  mpirun)
    command -v mpirun >/dev/null || { echo "mpirun not installed: skipped"; exit 77; }
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
    # ASan builds: Open MPI unloads its components in MPI_Finalize, so what they keep shows up as
    # leaks from "<unknown module>" that no suppression can name; leak checking is left to the gloo
    # runs of the same scripts (address and UB checks stay on)
    export LSAN_OPTIONS="$LSAN_OPTIONS:detect_leaks=0"
    cmd=(mpirun --oversubscribe -np 2 "$ember" "$b" --backend mpi "$@") ;;
  single) cmd=("$ember" run "$b" "$@") ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
err=$(mktemp)
got=$(cd "$d" && timeout "${EMBER_TEST_TIMEOUT:-120}" "${cmd[@]}" 2>"$err"); rc=$?
if [[ $rc != 0 ]]; then
  echo "FAIL $script ($mode): exit $rc"; tail -n 30 "$err"; rm -f "$err"; exit 1
fi
if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$err"; then   # sanitizer builds
  echo "FAIL $script ($mode): sanitizer report"; grep -A12 -E 'ERROR: |runtime error:' "$err" | head -40; rm -f "$err"; exit 1
fi
rm -f "$err"
if [[ "$got" != "$(cat "$exp")" ]]; then
  echo "FAIL $script ($mode): output differs from $(basename "$exp")"
  diff <(printf '%s\n' "$got") "$exp" | head -n 30
  exit 1
fi
echo "ok $script ($mode)"
