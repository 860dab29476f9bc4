#!/usr/bin/env python3
"""Start-up benchmark: the time to start and import a model script's usual standard modules,
Ember against CPython 3.11 (/usr/bin/python3, whose standard library Ember runs) in the same run,
with warm caches (each command runs once before timing, so Ember's __pycache__/*.ember-*.pyc
and CPython's .pyc files exist).  Prints the best-of-N CPU time (user + system) of each and
the ratio; the target is Ember <= 0.5 x CPython for the full import line.  Not a test: nothing
here asserts a timing.

usage: bench/vm/startup.py [--ember build/src/cli/ember] [--runs 10] [--python /usr/bin/python3]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")

CASES = [
    # name, code, target ratio
    ("empty", "pass", None),
    ("os,sys", "import os, sys", None),
    ("model imports", "import os, sys, argparse, json, random, re, dataclasses, typing, inspect, logging", 0.5),
]


def best_time(cmd, runs):
    """Best-of-runs CPU time (user + system) of the child (see run.py: wall time swings with
    the load of the other core, CPU time by a few percent)."""
    best = None
    for _ in range(runs):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        err = proc.stderr.read()
        proc.stderr.close()
        if status != 0:
            return None, err.decode(errors="replace").strip().splitlines()[-1:]
        t = usage.ru_utime + usage.ru_stime
        best = t if best is None else min(best, t)
    return best, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ember", default=os.path.join(HERE, "..", "..", "build", "src", "cli", "ember"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    print("%-14s %10s %10s %7s %7s" % ("start-up", "ember ms", "cpython ms", "e/cpy", "target"))
    for name, code, target in CASES:
        ecmd = [args.ember, "-c", code]
        ccmd = [args.python, "-c", code]
        best_time(ecmd, 1)   # warm the caches
        best_time(ccmd, 1)
        e, eerr = best_time(ecmd, args.runs)
        c, cerr = best_time(ccmd, args.runs)
        if e is None or c is None:
            print("%-14s %10s %10s   (%s)" % (name, "failed" if e is None else "%.1f" % (e * 1e3),
                                            "failed" if c is None else "%.1f" % (c * 1e3), (eerr or cerr or [""])[0]))
            continue
        print("%-14s %10.1f %10.1f %7.2f %7s" % (name, e * 1e3, c * 1e3, e / c, "%.2f" % target if target else "-"))


if __name__ == "__main__":
    sys.exit(main())
