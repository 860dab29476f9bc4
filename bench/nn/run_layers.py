#!/usr/bin/env python3
"""Issue-17 model benchmarks (layers_models.py), Ember vs PyTorch 1.13 in the same run, one
BLAS/OpenMP thread: each model in its own process under each runtime, alternating Ember and
PyTorch round by round; CPU time per step (the ratio's basis: the machine is shared), wall clock
and the process's peak RSS beside it.  Target: Ember/PyTorch <= 1.0.  Not a test: nothing asserts
a timing.

Both runtimes get the same environment: one thread (OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1) and,
unless --keep-coretype, without OPENBLAS_CORETYPE.  That variable forces OpenBLAS's kernels for
one CPU; this machine's environment sets it to Haswell (AVX2) on an AVX-512 CPU, where OpenBLAS
would pick its AVX-512 kernels.  Ember's convolutions and linears and PyTorch's linears and LSTM
run on that OpenBLAS, while PyTorch's convolutions run on oneDNN, which detects the CPU itself;
so the forced Haswell kernels slow Ember's ResNet-18 (~25%) but not PyTorch's.  The bench prints
which OpenBLAS core both ran with.

usage: bench/nn/run_layers.py [--ember build/src/cli/ember] [--python /usr/bin/python3] [--rounds 1]
                              [--keep-coretype] [model...]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as runner  # noqa: E402  (same child runner: stdout figures + ru_maxrss)
from run import run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ember", default=os.path.join(HERE, "..", "..", "build", "src", "cli", "ember"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--keep-coretype", action="store_true",
                    help="keep the environment's OPENBLAS_CORETYPE (default: removed for both runtimes)")
    ap.add_argument("models", nargs="*", default=["resnet18", "lstm", "transformer"])
    args = ap.parse_args()
    if not args.keep_coretype:
        runner.ENV.pop("OPENBLAS_CORETYPE", None)
    core = subprocess.run([args.python, "-c", "import ctypes; l = ctypes.CDLL('libopenblas.so.0'); "
                           "l.openblas_get_corename.restype = ctypes.c_char_p; print(l.openblas_get_corename().decode())"],
                          capture_output=True, text=True, env=runner.ENV).stdout.strip() or "?"
    print("OPENBLAS_CORETYPE=%s (OpenBLAS core: %s), one thread" % (runner.ENV.get("OPENBLAS_CORETYPE", "unset"), core))
    script = os.path.join(HERE, "layers_models.py")
    print("%-12s %10s %10s %12s %11s %11s %14s %14s" % ("model (ms)", "ember cpu", "torch cpu", "ember/torch",
                                                        "ember wall", "torch wall", "ember RSS MiB", "torch RSS MiB"))
    for m in args.models:
        e = t = ew = tw = None
        e_rss = t_rss = 0
        for _ in range(args.rounds):
            ev, e_rss = run([args.ember, "run", script, m])
            tv, t_rss = run([args.python, script, m])
            e = min(e, ev[m + "_ms"]) if e is not None else ev[m + "_ms"]
            t = min(t, tv[m + "_ms"]) if t is not None else tv[m + "_ms"]
            ew = min(ew, ev[m + "_wall_ms"]) if ew is not None else ev[m + "_wall_ms"]
            tw = min(tw, tv[m + "_wall_ms"]) if tw is not None else tv[m + "_wall_ms"]
        print("%-12s %10.1f %10.1f %12.3f %11.1f %11.1f %14.1f %14.1f" % (m, e, t, e / t, ew, tw, e_rss / 1024.0,
                                                                         t_rss / 1024.0))


if __name__ == "__main__":
    main()
