#!/usr/bin/env python3
"""Runtime benchmarks (issue 7) in one run, one BLAS thread:
  - train_step.py as a user runs it: Ember eager, Ember with torch.compile (the "ember" backend),
    and PyTorch 1.13 eager (/usr/bin/python3, skipped when PyTorch is absent);
  - mlp_floor (C): the MLP step on cblas_sgemm with preallocated buffers, the floor of issue 20;
  - gemm_floor (C): the sgemm calls alone of the GELU-MLP and minGPT-block steps (the bound on
    compiled / eager: no compiled step makes fewer products);
  - bench_runtime (C): the same graphs as plans vs eager interpretation, with the saved-activation
    and peak memory figures (the runtime's arenas included).
Prints each figure and the ratios.  Not a test: nothing here asserts a timing.

usage: bench/runtime/run.py [--build build] [--python /usr/bin/python3] [--scale 1]
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
        parts = line.split()
        if len(parts) == 2:
            vals[parts[0]] = float(parts[1])
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--scale", default="1")
    args = ap.parse_args()
    ember = os.path.join(args.build, "src", "cli", "ember")
    script = os.path.join(HERE, "train_step.py")
    eager = figures([ember, "run", script, "eager", args.scale])
    compiled = figures([ember, "run", script, "compiled", args.scale])
    have_torch = subprocess.run([args.python, "-c", "import torch"], capture_output=True).returncode == 0
    torch_eager = figures([args.python, script, "eager", args.scale]) if have_torch else {}
    print("training step, microseconds (CPU time, best of 5)")
    print("%-14s %12s %14s %14s %12s %14s" % ("model", "ember eager", "ember compiled", "pytorch eager",
                                               "eager/compiled", "compiled/pytorch"))
    for name in ["mlp_b1", "mlp_b64", "gelu_mlp_b32", "gpt_block_b4"]:
        e, c, p = eager[name], compiled[name], torch_eager.get(name)
        print("%-14s %12.1f %14.1f %14s %12.2fx %14s" % (name, e, c, "%.1f" % p if p else "-", e / c,
                                                        "%.3f" % (c / p) if p else "-"))
    print("targets: compiled >= 1.5x Ember eager on the pointwise-heavy model; saved activations <= 0.7x eager")
    print()
    floor = figures([os.path.join(args.build, "bench", "runtime", "mlp_floor"), args.scale])
    p64 = torch_eager.get("mlp_b64")
    print("issue 20 (one BLAS thread)                      figure    target")
    gemm = figures([os.path.join(args.build, "bench", "runtime", "gemm_floor"), args.scale])
    print("GELU-MLP + LayerNorm step, compiled / eager     %5.2fx   >= 2.0x  (its sgemm calls alone %.1f us: at most %.2fx)" %
          (eager["gelu_mlp_b32"] / compiled["gelu_mlp_b32"], gemm["gemm_gelu_mlp_b32"],
           eager["gelu_mlp_b32"] / gemm["gemm_gelu_mlp_b32"]))
    print("minGPT block step, compiled / eager             %5.2fx   >= 1.5x  (its sgemm calls alone %.1f us: at most %.2fx)" %
          (eager["gpt_block_b4"] / compiled["gpt_block_b4"], gemm["gemm_gpt_block_b4"],
           eager["gpt_block_b4"] / gemm["gemm_gpt_block_b4"]))
    print("MLP batch 1 step, eager / C floor               %5.2fx   <= 1.3x  (%.1f us vs %.1f us; compiled %.2fx)" %
          (eager["mlp_b1"] / floor["floor_mlp_b1"], eager["mlp_b1"], floor["floor_mlp_b1"],
           compiled["mlp_b1"] / floor["floor_mlp_b1"]))
    print("MLP batch 1 step, eager / C floor on sgemm      %5.2fx   (%.1f us: the calls PyTorch makes, for its bits)" %
          (eager["mlp_b1"] / floor["floor_mlp_b1_gemm"], floor["floor_mlp_b1_gemm"]))
    print("MLP batch 64 step, eager / PyTorch 1.13         %5s    <= 0.7x  (C floor %.1f us, Ember %.1f us)" %
          ("%.2fx" % (eager["mlp_b64"] / p64) if p64 else "-", floor["floor_mlp_b64"], eager["mlp_b64"]))
    print()
    print("C level: plans vs eager interpretation of the same graphs (bench_runtime)")
    sys.stdout.flush()
    subprocess.run([os.path.join(args.build, "bench", "runtime", "bench_runtime")], env=ENV)


if __name__ == "__main__":
    main()
