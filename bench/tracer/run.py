#!/usr/bin/env python3
"""Tracer benchmarks (issue 6): runs bench_tracer (Ember, one embedded VM) and torchscript_peer.py
(PyTorch's TorchScript, the nearest peer PyTorch 1.13 has) in the same run, one BLAS thread, and
prints each figure with its target and the Ember/peer ratio.  Figures are CPU time.  Not a test.

usage: bench/tracer/run.py [--build build] [--python /usr/bin/python3]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def figures(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if out.returncode != 0:
        sys.exit("benchmark failed: %s\n%s" % (" ".join(cmd), out.stderr))
    vals = {}
    for line in out.stdout.splitlines():
        k, v = line.split()
        vals[k] = float(v)
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--python", default="/usr/bin/python3")
    args = ap.parse_args()
    ember = figures([os.path.join(args.build, "bench", "tracer", "bench_tracer")])
    have_torch = subprocess.run([args.python, "-c", "import torch"], capture_output=True).returncode == 0
    peer = figures([args.python, os.path.join(HERE, "torchscript_peer.py")]) if have_torch else {}
    if not have_torch:
        print("PyTorch not available for %s: peer figures skipped" % args.python)
    rows = [
        ("trace_mlp", "us", "< 1000", "jit_trace_mlp"),
        ("trace_mlp12", "us", "< 1000", "jit_trace_mlp12"),
        ("trace_plan_mlp", "us", "(+ runtime plan)", "jit_script_mlp"),
        ("trace_plan_mlp12", "us", "(+ runtime plan)", "jit_script_mlp12"),
        ("guard_check", "us", "< 0.5", None),
        ("call_overhead", "us", "< 1", "call_overhead"),
    ]
    print("%-18s %12s %-18s %-18s %12s %8s" % ("figure", "ember", "target", "peer", "peer value", "ratio"))
    for name, unit, target, pname in rows:
        e = ember[name]
        p = peer.get(pname) if pname else None
        ratio = "%.3f" % (e / p) if p else "-"
        print("%-18s %10.3f%s %-18s %-18s %12s %8s" % (name, e, unit, target, pname or "-",
                                                     "%.3f" % p if p is not None else "-", ratio))
    print("guards in the MLP frame: %d" % ember["guard_count"])


if __name__ == "__main__":
    main()
