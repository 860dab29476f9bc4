#!/usr/bin/env python3
"""torch.nn benchmarks: module call overhead (with and without hooks) and an MLP 784-256-256-10
SGD training step at batch 1 and 64, each script run unchanged under Ember and under PyTorch
(/usr/bin/python3) in the same run, one BLAS/OpenMP thread; plus the peak RSS of the training
process.  Figures are CPU time (time.process_time inside the scripts), which this shared machine
keeps steadier than wall time.  Prints each figure, the Ember/PyTorch ratio and the target.  Not a
test: nothing here asserts a timing.

usage: bench/nn/run.py [--ember build/src/cli/ember] [--python /usr/bin/python3] [--rounds 3]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def run(cmd):
    """stdout as {name: float} and the child's peak RSS in KiB"""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit("benchmark failed: %s\n%s" % (" ".join(cmd), err.decode()))
    vals = {}
    for line in out.decode().splitlines():
        parts = line.split()
        if len(parts) == 2:
            vals[parts[0]] = float(parts[1])
    return vals, usage.ru_maxrss


def best(cmd, rounds):
    """per-figure minimum over rounds; the peak RSS of the last round"""
    acc, rss = {}, 0
    for _ in range(rounds):
        vals, rss = run(cmd)
        for k, v in vals.items():
            acc[k] = min(acc.get(k, v), v)
    return acc, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ember", default=os.path.join(HERE, "..", "..", "build", "src", "cli", "ember"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    have_torch = subprocess.run([args.python, "-c", "import torch"], capture_output=True).returncode == 0
    if not have_torch:
        print("PyTorch not available for %s: PyTorch figures skipped" % args.python)
    rows = [
        # (script, figure, target as text, ratio target or None)
        ("module_call.py", "forward_direct", "", None),
        ("module_call.py", "overhead_no_hooks", "<= 0.1 us", None),
        ("module_call.py", "overhead_two_hooks", "", None),
        ("mlp_step.py", "mlp_step_b1", "ember/torch <= 0.4", 0.4),
        ("mlp_step.py", "mlp_step_b64", "ember/torch <= 0.85", 0.85),
    ]
    results = {}
    for script in ("module_call.py", "mlp_step.py"):
        path = os.path.join(HERE, script)
        e, e_rss = best([args.ember, "run", path], args.rounds)
        t, t_rss = best([args.python, path], args.rounds) if have_torch else ({}, 0)
        results[script] = (e, t, e_rss, t_rss)
    print("%-20s %12s %12s %12s  %s" % ("figure (us)", "ember", "pytorch", "ember/torch", "target"))
    for script, key, target, _ in rows:
        e, t = results[script][0], results[script][1]
        ev, tv = e.get(key), t.get(key)
        ratio = "%.3f" % (ev / tv) if ev is not None and tv else "-"
        print("%-20s %12s %12s %12s  %s" % (key, "%.4f" % ev if ev is not None else "-",
                                           "%.4f" % tv if tv is not None else "-", ratio, target))
    _, _, e_rss, t_rss = results["mlp_step.py"]
    print("%-20s %12s %12s %12s  %s" % ("peak RSS (MiB)", "%.1f" % (e_rss / 1024.0),
                                       "%.1f" % (t_rss / 1024.0) if t_rss else "-",
                                       "%.3f" % (e_rss / t_rss) if t_rss else "-", "ember <= 30 MiB"))


if __name__ == "__main__":
    main()
