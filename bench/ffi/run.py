#!/usr/bin/env python3
"""FFI benchmark: ctypes call overhead under Ember and the local CPython in the same run
(bench/ffi/call_overhead.py, identical source), printed per call with the ratio Ember/CPython
(lower is better; the issue's target for fmax_2double is <= 0.5).  Not a test.

usage: bench/ffi/run.py [--ember build/src/cli/ember] [--calls 1000000]
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = {"fmax_2double": "<= 0.50", "abs_default_int": "", "callback_2double": ""}


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {k: float(v) for k, v in (line.split() for line in out.strip().splitlines())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ember", default=os.path.join(HERE, "..", "..", "build", "src", "cli", "ember"))
    ap.add_argument("--calls", type=int, default=1000000)
    args = ap.parse_args()
    script = os.path.join(HERE, "call_overhead.py")
    e = run([args.ember, "run", script, str(args.calls)])
    c = run([shutil.which("python3") or sys.executable, script, str(args.calls)])
    print("%-18s %10s %12s %10s %8s" % ("call", "ember ns", "cpython ns", "e/cpy", "target"))
    for k in e:
        print("%-18s %10.1f %12.1f %10.2f %8s" % (k, e[k], c[k], e[k] / c[k], TARGETS.get(k, "")))


if __name__ == "__main__":
    main()
