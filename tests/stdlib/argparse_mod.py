# argparse: a training script's parser as minGPT/nanoGPT/examples write it, its --help text,
# parsed values, and its errors (usage + message on stderr, exit status 2).
import os, sys, io
os.environ["COLUMNS"] = "80"
import argparse


def make():
    p = argparse.ArgumentParser(prog="train.py", description="Train a small GPT on a text file.")
    p.add_argument("data", help="path to the training text")
    p.add_argument("--batch-size", type=int, default=64, metavar="N", help="input batch size (default: %(default)s)")
    p.add_argument("--lr", type=float, default=3e-4, help="learning rate")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--device", choices=["cpu", "cuda", "mps"], default="cpu")
    p.add_argument("--compile", action="store_true", help="use torch.compile")
    p.add_argument("--no-cuda", dest="cuda", action="store_false")
    p.add_argument("-v", "--verbose", action="count", default=0)
    p.add_argument("--layers", nargs="+", type=int, default=[4])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--save", metavar="PATH")
    g.add_argument("--dry-run", action="store_true")
    sub = p.add_subparsers(dest="cmd")
    s = sub.add_parser("sample", help="sample from a checkpoint")
    s.add_argument("--n", type=int, default=5)
    return p


p = make()
p.print_help()
for argv in [["input.txt"], ["in.txt", "--batch-size", "32", "--lr", "1e-3", "-vv", "--compile", "--layers", "2", "3"],
             ["in.txt", "--device=cuda", "--no-cuda", "--save", "ck.pt", "sample", "--n", "3"],
             ["in.txt", "--batch-size=7", "--epochs", "1"]]:
    print(sorted(vars(p.parse_args(argv)).items()))
ns, rest = p.parse_known_args(["x.txt", "--unknown"])
print(ns.data, rest)
for argv in [[], ["in.txt", "--batch-size", "abc"], ["in.txt", "--device", "tpu"], ["in.txt", "--save", "a", "--dry-run"],
             ["in.txt", "--bogus"], ["in.txt", "--layers"]]:
    err = io.StringIO()
    old, sys.stderr = sys.stderr, err
    try:
        p.parse_args(argv)
    except SystemExit as e:
        print("exit", e.code)
    finally:
        sys.stderr = old
    print(err.getvalue(), end="")
