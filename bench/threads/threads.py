"""Thread-count figures (issue 20, "two cores"): runs unchanged under Ember and PyTorch 1.13.
Each figure is wall time (the point is two threads finishing sooner), the best of `reps` rounds,
after torch.set_num_threads(N) on both sides:
  sgemm_1024   1024 x 1024 @ 1024 x 1024 float32 (OpenBLAS on both sides here)
  chain_4m     a pointwise chain over 4M floats: tanh(x * 2 + 1).exp() * y + x (eager kernels, or
               one fused loop under `ember --compile-all --backend ember`)
  sum_rows_4m  x.exp().sum(dim=1) on 2048 x 2048 (a pointwise producer and a row reduction)
Prints "name milliseconds" lines.

usage: threads.py THREADS [reps]"""
import sys
import time

import torch

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
torch.set_num_threads(threads)
assert torch.get_num_threads() == threads


def best_ms(fn, iters):
    for _ in range(2):
        fn()
    best = None
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        t = (time.perf_counter() - t0) / iters * 1e3
        best = t if best is None or t < best else best
    return best


torch.manual_seed(0)
a = torch.randn(1024, 1024)
b = torch.randn(1024, 1024)


def sgemm():
    return a @ b


x = torch.randn(4 * 1024 * 1024)
y = torch.randn(4 * 1024 * 1024)


def chain(x, y):
    return torch.tanh(x * 2.0 + 1.0).exp() * y + x


m = torch.randn(2048, 2048)


def sum_rows(m):
    return m.exp().sum(dim=1)


print("sgemm_1024", round(best_ms(sgemm, 5), 3))
print("chain_4m", round(best_ms(lambda: chain(x, y), 5), 3))
print("sum_rows_4m", round(best_ms(lambda: sum_rows(m), 5), 3))
