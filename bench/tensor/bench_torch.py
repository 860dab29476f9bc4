"""bench_torch.py — PyTorch twin of bench_tensor.c: the same workloads, printed as
"name microseconds" lines for run.sh to compare. One intra-op thread; thread CPU time, as
bench_tensor.c measures."""
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)


def best_of(iters, fn, reps=5):
    best = float("inf")
    for _ in range(reps):
        t0 = time.thread_time()
        for _ in range(iters):
            fn()
        best = min(best, (time.thread_time() - t0) / iters * 1e6)
    return best


def bench_add(rg):
    a = torch.randn(4, requires_grad=rg)
    b = torch.randn(4, requires_grad=rg)
    return best_of(200000, lambda: a + b)


def bench_chain(n):
    x = torch.randn(4, requires_grad=True)
    best = float("inf")
    for _ in range(2000):
        y = x
        for i in range(n - 1):
            y = y + 0.5 if i & 1 else y * 1.0001
        loss = y.sum()
        t0 = time.thread_time()
        loss.backward()
        best = min(best, (time.thread_time() - t0) * 1e6)
        x.grad = None
    return best


def bench_sgemm():
    a = torch.randn(512, 512)
    b = torch.randn(512, 512)
    return best_of(20, lambda: torch.mm(a, b))


def bench_mlp(batch):
    W1 = torch.randn(256, 784, requires_grad=True)
    b1 = torch.randn(256, requires_grad=True)
    W2 = torch.randn(256, 256, requires_grad=True)
    b2 = torch.randn(256, requires_grad=True)
    W3 = torch.randn(10, 256, requires_grad=True)
    b3 = torch.randn(10, requires_grad=True)
    params = [W1, b1, W2, b2, W3, b3]
    x = torch.randn(batch, 784)
    target = torch.randint(0, 10, (batch,))

    def step():
        h1 = F.relu(F.linear(x, W1, b1))
        h2 = F.relu(F.linear(h1, W2, b2))
        out = F.linear(h2, W3, b3)
        loss = F.cross_entropy(out, target)
        loss.backward()
        for p in params:
            p.grad = None

    return best_of(2000 if batch == 1 else 200, step)


print("add4_nograd %.4f" % bench_add(False))
print("add4_graph %.4f" % bench_add(True))
c10 = bench_chain(10)
c100 = bench_chain(100)
per_node = (c100 - c10) / 90.0
print("chain100_backward %.4f" % c100)
print("chain_per_node %.4f" % per_node)
print("chain_fixed %.4f" % (c10 - 10 * per_node))
print("sgemm512_lib %.4f" % bench_sgemm())
print("mlp_b1 %.4f" % bench_mlp(1))
print("mlp_b64 %.4f" % bench_mlp(64))
