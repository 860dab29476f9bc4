#!/usr/bin/env python3
"""Issue-17 model benchmarks (layers_models.py), Ember vs PyTorch 1.13 in the same run, one
BLAS/OpenMP thread: each model in its own process under each runtime, CPU time per step and the
process's peak RSS beside it.  Target: Ember/PyTorch <= 1.0.  Not a test: nothing asserts a timing.

usage: bench/nn/run_layers.py [--ember build/src/cli/ember] [--python /usr/bin/python3] [--rounds 1] [model...]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import run  # noqa: E402  (same child runner: stdout figures + ru_maxrss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ember", default=os.path.join(HERE, "..", "..", "build", "src", "cli", "ember"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("models", nargs="*", default=["resnet18", "lstm", "transformer"])
    args = ap.parse_args()
    script = os.path.join(HERE, "layers_models.py")
    print("%-12s %12s %12s %12s %14s %14s" % ("model (ms)", "ember", "pytorch", "ember/torch", "ember RSS MiB",
                                              "torch RSS MiB"))
    for m in args.models:
        e = t = None
        e_rss = t_rss = 0
        for _ in range(args.rounds):
            ev, e_rss = run([args.ember, "run", script, m])
            tv, t_rss = run([args.python, script, m])
            e = min(e, ev[m + "_ms"]) if e is not None else ev[m + "_ms"]
            t = min(t, tv[m + "_ms"]) if t is not None else tv[m + "_ms"]
        print("%-12s %12.1f %12.1f %12.3f %14.1f %14.1f" % (m, e, t, e / t, e_rss / 1024.0, t_rss / 1024.0))


if __name__ == "__main__":
    main()
