#!/usr/bin/env python3
"""torch.distributed benchmarks, Ember against PyTorch 1.13 with gloo in the same run, 2 ranks on
this machine, one BLAS/OpenMP thread per rank.  Not a test: nothing here asserts a timing.

  all_reduce  seconds per call for float32 tensors of 4 KB ... 64 MB (Ember gloo, PyTorch gloo,
              their ratio; and Ember on Open MPI)
  DDP step    seconds per training step of an MLP (4 x 1024) and of a small GPT, and the share of
              the gradient all-reduce time that backward hid (Ember)
  FSDP memory peak tensor memory per rank of a step of a 4-layer model, FSDP vs DDP (Ember only:
              PyTorch 1.13's FSDP does not import on CPython 3.11)

usage: bench/dist/run.py [--ember build/src/cli/ember] [--python /usr/bin/python3] [--rounds 1]
"""
import argparse
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
           OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def launch(kind, args):
    """{name: float} printed by rank 0 of a 2-rank run"""
    script = os.path.join(HERE, args[0])
    if kind == "ember":
        cmd = [ARGS.ember, "-m", "torch.distributed.run", "--nproc-per-node=2", "--master-port=%d" % free_port(),
               script] + args[1:]
    elif kind == "ember-mpi":
        cmd = ["mpirun", "--oversubscribe", "-np", "2", ARGS.ember, script] + args[1:] + ["--backend", "mpi"]
    else:
        cmd = [ARGS.python, os.path.join(TOP, "tests", "dist", "torchrun_py311.py"), "--nproc_per_node=2",
               "--master_port=%d" % free_port(), script] + args[1:]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, timeout=1800)
    if proc.returncode != 0:
        sys.exit("benchmark failed: %s\n%s" % (" ".join(cmd), proc.stderr.decode()[-3000:]))
    vals = {}
    for line in proc.stdout.decode().splitlines():
        parts = line.split()
        if len(parts) == 2:
            vals[parts[0]] = float(parts[1])
    return vals


def best(kind, args):
    acc = {}
    for _ in range(ARGS.rounds):
        for k, v in launch(kind, args).items():
            acc[k] = min(acc.get(k, v), v)
    return acc


def fmt_size(n):
    return "%d KB" % (n // 1024) if n < 1024 * 1024 else "%d MB" % (n // (1024 * 1024))


def main():
    print("torch.distributed on 2 ranks (one BLAS thread each); seconds per call, lower is better")
    print()
    em, py = best("ember", ["allreduce.py"]), best("pytorch", ["allreduce.py"])
    mpi = best("ember-mpi", ["allreduce.py"]) if not ARGS.no_mpi else {}
    print("all_reduce float32   Ember gloo   PyTorch gloo   Ember/PyTorch   Ember MPI   (target ~1.0x: same engine)")
    for key in sorted(em, key=lambda k: int(k.split("_")[1])):
        n = int(key.split("_")[1])
        print("  %-8s %13.6f %14.6f %13.2fx %11s" % (fmt_size(n), em[key], py[key], em[key] / py[key],
                                                    "%.6f" % mpi[key] if key in mpi else "-"))
    print()
    print("DDP training step    Ember gloo   PyTorch gloo   Ember/PyTorch   hidden   (target <= 0.8x)")
    for model in ["mlp", "gpt"]:
        e = best("ember", ["ddp_step.py", "--model", model])
        p = best("pytorch", ["ddp_step.py", "--model", model])
        print("  %-8s %13.4f %14.4f %13.2fx %8.0f%%   (%d parameters; all-reduce %.3f s over 10 steps)"
              % (model, e["step_s"], p["step_s"], e["step_s"] / p["step_s"], 100 * e["hidden"], e["params"],
                 e["comm_s"]))
    print("  hidden: share of the all-reduce time that ran while backward was still computing (Ember's "
          "group counters)")
    print()
    d = best("ember", ["fsdp_memory.py", "--mode", "ddp"])
    f = best("ember", ["fsdp_memory.py", "--mode", "fsdp"])
    print("peak tensor memory per rank, 4 x Linear(1024) + Adam step (target FSDP/DDP <= 0.6x)")
    print("  DDP %.2f MiB   FSDP (FULL_SHARD) %.2f MiB   FSDP/DDP %.2fx" % (d["peak_mb"], f["peak_mb"],
                                                                          f["peak_mb"] / d["peak_mb"]))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--ember", default=os.path.join(TOP, "build", "src", "cli", "ember"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--no-mpi", action="store_true")
    ARGS = ap.parse_args()
    main()
