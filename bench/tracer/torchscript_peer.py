"""PyTorch peers of bench_tracer.c (run with /usr/bin/python3 and PyTorch): torch.jit.trace and
torch.jit.script compile times of the same MLPs, and the call overhead of a scripted tiny
function over the eager call.  PyTorch 1.13 has no torch.compile, so TorchScript is the peer
(the issue's figures for dynamo: ~0.1 s warm compile, ~6 us call overhead).  Prints "name
microseconds" lines."""
import time

import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
layers = []
for i in range(12):
    layers += [nn.Linear(64, 64), nn.ReLU()]
mlp12 = nn.Sequential(*layers)
x = torch.randn(1, 784)
x12 = torch.randn(1, 64)


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def timed(fn, rounds=7):
    out = []
    for _ in range(rounds):
        t0 = time.process_time()
        fn()
        out.append(time.process_time() - t0)
    return median(out) * 1e6


print("jit_trace_mlp %.1f" % timed(lambda: torch.jit.trace(mlp, x)))
print("jit_trace_mlp12 %.1f" % timed(lambda: torch.jit.trace(mlp12, x12)))
print("jit_script_mlp %.1f" % timed(lambda: torch.jit.script(mlp)))
print("jit_script_mlp12 %.1f" % timed(lambda: torch.jit.script(mlp12)))


def tiny(t):
    return t + 1


stiny = torch.jit.script(tiny)
t = torch.ones(1)
N = 200000


def loop(fn):
    def run():
        for _ in range(N):
            fn(t)
    return run


for _ in range(3):
    stiny(t)
c = timed(loop(stiny)) / N
e = timed(loop(tiny)) / N
print("call_scripted %.4f" % c)
print("call_eager %.4f" % e)
print("call_overhead %.4f" % (c - e))
