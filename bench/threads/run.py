#!/usr/bin/env python3
"""1-thread vs 2-thread figures, paired and repeated (issue 20, "two cores").

Each round runs, back to back: Ember eager, Ember with every function compiled (`--compile-all
--backend ember`) and PyTorch 1.13 (skipped when absent), each at 1 and then 2 threads
(threads.py), plus bench/runtime/train_step.py's MLP 784-256-256-10 batch-64 training step at 1
and 2 threads on both sides.  A round's figures are paired (taken within seconds of each other);
the table shows each figure's median over the rounds and every round's 2-thread / 1-thread
ratio, with `uptime` before each round: the second core is shared with other work on this
machine, so a 2-thread figure is only as good as the core it got.  Not a test.

usage: bench/threads/run.py [--build build] [--python /usr/bin/python3] [--rounds 3]
"""
import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the thread count is set by torch.set_num_threads inside the scripts; the environment must not
# pin either side (OpenBLAS reads OPENBLAS_NUM_THREADS itself)
ENV = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                                         "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS")}


def figures(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if out.returncode != 0:
        sys.exit("benchmark failed: %s\n%s" % (" ".join(cmd), out.stderr))
    vals = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                vals[parts[0]] = float(parts[1])
            except ValueError:
                pass
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    ember = os.path.join(args.build, "src", "cli", "ember")
    script = os.path.join(HERE, "threads.py")
    step = os.path.join(HERE, "..", "runtime", "train_step.py")
    have_torch = subprocess.run([args.python, "-c", "import torch"], capture_output=True).returncode == 0
    sides = [("ember", [ember, "run", script]), ("ember compiled", [ember, "run", "--compile-all", "--backend", "ember", script])]
    if have_torch:
        sides.append(("pytorch", [args.python, script]))
    steps = [("ember", [ember, "run", step, "eager", "1"])]
    if have_torch:
        steps.append(("pytorch", [args.python, step, "eager", "1"]))
    # train_step.py's other models are skipped: thread count, then the model list
    table = {}
    for r in range(args.rounds):
        load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        print("round %d: %s" % (r + 1, load))
        sys.stdout.flush()
        for side, cmd in sides:
            for t in (1, 2):
                for name, v in figures(cmd + [str(t)]).items():
                    table.setdefault((name, side), {}).setdefault(t, []).append(v)
        for side, cmd in steps:
            for t in (1, 2):
                v = figures(cmd + [str(t), "mlp_b64"])["mlp_b64"] / 1e3
                table.setdefault(("mlp_b64_step", side), {}).setdefault(t, []).append(v)
        # each round's figures as they come (a round takes minutes on a loaded machine)
        print("  " + "  ".join("%s/%s: %s" % (name, side, "/".join("%.3f" % by[t][-1] for t in (1, 2)))
                               for (name, side), by in table.items()))
        sys.stdout.flush()
    print("milliseconds (wall, best of 7 within a round; median over %d rounds); 2t/1t per round" % args.rounds)
    print("%-14s %-15s %9s %9s %7s   %s" % ("figure", "side", "1 thread", "2 threads", "2t/1t", "rounds"))
    for (name, side), by in table.items():
        one, two = statistics.median(by[1]), statistics.median(by[2])
        ratios = " ".join("%.2f" % (b / a) for a, b in zip(by[1], by[2]))
        print("%-14s %-15s %9.3f %9.3f %7.2f   %s" % (name, side, one, two, two / one, ratios))


if __name__ == "__main__":
    main()
