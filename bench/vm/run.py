#!/usr/bin/env python3
"""VM benchmarks: each program runs under Ember, the local CPython and Lua 5.4 (when a .lua twin
exists and lua5.4 is installed) in the same run; prints the best-of-N CPU time of each and the
ratios Ember/CPython and Ember/Lua.  Not a test: nothing here asserts a timing.

usage: bench/vm/run.py [--ember build/src/cli/ember] [--python CPYTHON] [--runs 5]

The CPython peer is Debian's /usr/bin/python3 (the oracle's CPython 3.11) unless --python names
another; without /usr/bin/python3, the first python3 on PATH.  The line before the table says which
ran.  (Figures before 2026-11-28 used PATH's python3, on the lead's machine a pyenv shim: a bash
script starting pyenv's own 3.11.7, ~20 ms and ~10% slower than /usr/bin/python3, which made the
e/cpy ratios look lower; see bench/README.md, "Targets missed".)
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHES = [
    # name, what, target ratio to CPython 3.11, target ratio to Lua 5.4 (issue 20's table; None:
    # no target for that column)
    ("fib", "fib(30), recursive calls", 0.4, 1.0),
    ("while_loop", "10M-iteration while loop, int and float arithmetic", 0.2, 1.0),
    ("method_calls", "5M method calls updating an attribute", 0.5, 0.8),
    ("float_list", "build and sum a 1M-float list", None, 0.9),
    ("closures", "5M calls of a closure", None, 0.9),
]


# The pthread build of OpenBLAS (which ember links for its GEMMs) starts a worker thread per core
# when it loads, and each spins for ~0.1 s before it sleeps: CPU time a pure-language run does
# not need, counted here as system time.  One BLAS thread, as in the other benches.
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1")


def best_time(cmd, runs):
    """Best-of-runs CPU time (user + system) of the child: on these machines wall time swings
    by 50% with the load of the other core, CPU time by a few percent."""
    best = None
    for _ in range(runs):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        err = proc.stderr.read()
        proc.stderr.close()
        if status != 0:
            sys.exit("benchmark failed: %s\n%s" % (" ".join(cmd), err.decode()))
        t = usage.ru_utime + usage.ru_stime
        best = t if best is None else min(best, t)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ember", default=os.path.join(HERE, "..", "..", "build", "src", "cli", "ember"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--python", default=None,
                    help="the CPython peer (default: /usr/bin/python3, else python3 on PATH)")
    args = ap.parse_args()
    lua = shutil.which("lua5.4")
    py = args.python or ("/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else shutil.which("python3"))
    print("CPython peer: %s (%s)" % (py, os.path.realpath(py)))
    print("%-13s %9s %9s %9s %8s %8s %9s %9s" % ("bench", "ember s", "cpython s", "lua s", "e/cpy", "e/lua",
                                                  "cpy goal", "lua goal"))
    goal = lambda t: "<=%.1f" % t if t is not None else "-"
    for name, what, t_cpy, t_lua in BENCHES:
        path = os.path.join(HERE, name + ".py")
        e = best_time([args.ember, "run", path], args.runs)
        c = best_time([py, path], args.runs)
        lua_path = os.path.join(HERE, name + ".lua")
        l = best_time([lua, lua_path], args.runs) if lua and os.path.exists(lua_path) else None
        print("%-13s %9.3f %9.3f %9s %8.2f %8s %9s %9s" % (
            name, e, c, "%.3f" % l if l else "-", e / c, "%.2f" % (e / l) if l else "-", goal(t_cpy), goal(t_lua)))
    empty = os.path.join(HERE, "empty.py")
    e = best_time([args.ember, "run", empty], args.runs * 4)
    c = best_time([py, empty], args.runs * 4)
    print("%-13s %8.1fms %8.1fms %9s %8.2f %8s %9s %9s" % ("startup", e * 1e3, c * 1e3, "-", e / c, "-", "<=5ms", "-"))


if __name__ == "__main__":
    main()
