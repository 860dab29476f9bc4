"""bench_ops.py — the tensor issue's per-op overhead and 100-op backward benchmarks, driven from a
script: the same file runs under Ember (`ember run`) and under CPython + PyTorch, and prints
"name microseconds" lines (best of several repetitions) for run.sh to compare.  Not a test."""
import time

import torch

if hasattr(torch, "set_num_threads"):
    torch.set_num_threads(1)
torch.manual_seed(0)


def best_of(iters, fn, reps=5):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) / iters * 1e6)
    return best


def report(name, us):
    print("%s %.4f" % (name, us))


# ---- per-op overhead on 4-element tensors: the cost of a call, not of the arithmetic ----
a = torch.randn(4)
b = torch.randn(4)
ga = torch.randn(4, requires_grad=True)
gb = torch.randn(4, requires_grad=True)
m = torch.randn(2, 2)
report("add_nograd", best_of(100000, lambda: a + b))
report("add_graph", best_of(100000, lambda: ga + gb))
report("mul_scalar", best_of(100000, lambda: a * 2.0))
report("method_sum", best_of(100000, lambda: a.sum()))
report("method_exp", best_of(100000, lambda: a.exp()))
report("matmul_2x2", best_of(100000, lambda: m @ m))
report("index_int", best_of(100000, lambda: a[1]))
report("index_slice", best_of(100000, lambda: a[1:3]))
report("view", best_of(100000, lambda: m.view(4)))
report("inplace_add_", best_of(100000, lambda: a.add_(1.0)))
report("tensor_from_list", best_of(50000, lambda: torch.tensor([1.0, 2.0, 3.0, 4.0])))
report("item", best_of(100000, lambda: b.sum().item()))


# ---- backward through a chain of n ops: per-node engine cost and fixed cost per call ----
def chain_backward(n, reps=300):
    x = torch.randn(4, requires_grad=True)
    best = float("inf")
    for _ in range(reps):
        y = x
        for i in range(n - 1):
            y = y + 0.5 if i & 1 else y * 1.0001
        loss = y.sum()
        t0 = time.perf_counter()
        loss.backward()
        best = min(best, (time.perf_counter() - t0) * 1e6)
        x.grad = None
    return best


def chain_forward_backward(n, reps=300):
    x = torch.randn(4, requires_grad=True)
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        y = x
        for i in range(n - 1):
            y = y + 0.5 if i & 1 else y * 1.0001
        y.sum().backward()
        best = min(best, (time.perf_counter() - t0) * 1e6)
        x.grad = None
    return best


c10 = chain_backward(10)
c100 = chain_backward(100)
per_node = (c100 - c10) / 90.0
report("chain100_backward", c100)
report("chain_per_node", per_node)
report("chain_fixed", c10 - 10 * per_node)
report("chain100_fwd_bwd", chain_forward_backward(100))


# ---- a hook-heavy backward: tensor hooks on every node of a 100-op chain ----
def chain_with_hooks(reps=200):
    x = torch.randn(4, requires_grad=True)
    best = float("inf")
    for _ in range(reps):
        y = x
        for i in range(99):
            y = y * 1.0001
            y.register_hook(lambda g: None)
        loss = y.sum()
        t0 = time.perf_counter()
        loss.backward()
        best = min(best, (time.perf_counter() - t0) * 1e6)
        x.grad = None
    return best


report("chain100_hooks_backward", chain_with_hooks())


# ---- a small MLP training step (script-level: linear layers as matmuls) ----
def mlp_step_bench(batch, iters):
    W1 = torch.randn(64, 32, requires_grad=True)
    W2 = torch.randn(10, 64, requires_grad=True)
    x = torch.randn(batch, 32)
    t = torch.randn(batch, 10)

    def step():
        h = (x @ W1.t()).relu()
        out = h @ W2.t()
        loss = ((out - t) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            W1.sub_(0.01 * W1.grad)
            W2.sub_(0.01 * W2.grad)
        W1.grad = None
        W2.grad = None

    return best_of(iters, step, reps=3)


report("mlp_step_b1", mlp_step_bench(1, 2000))
report("mlp_step_b64", mlp_step_bench(64, 1000))


# ---- issue 16's ops and dtypes at moderate sizes: kernels, not call overhead ----
big = torch.randn(256, 256)
d64 = torch.randn(128, 128).double()
sidx = torch.randint(0, 64, (256, 256))
report("randn_65536", best_of(200, lambda: torch.randn(256, 256)))
report("topk_256x256_k8", best_of(200, lambda: big.topk(8, dim=1)))
report("sort_256x256", best_of(100, lambda: big.sort(dim=1)))
report("matmul_f64_128", best_of(200, lambda: d64 @ d64))
report("scatter_add_256x256", best_of(200, lambda: torch.zeros(256, 64).scatter_add(1, sidx, big)))
report("cumsum_256x256", best_of(200, lambda: big.cumsum(1)))

# ---- branch opsmath: einsum lowered to bmm, the scans, LAPACK ----
eb1 = torch.randn(32, 64, 64)
eb2 = torch.randn(32, 64, 64)
e3 = torch.randn(16, 32, 48)
e4 = torch.randn(32, 48, 24)
spd = torch.randn(128, 128).double()
spd = spd @ spd.t() + 128 * torch.eye(128).double()
report("einsum_bij_bjk_32x64", best_of(200, lambda: torch.einsum("bij,bjk->bik", eb1, eb2)))
report("einsum_ijk_jkl_il", best_of(200, lambda: torch.einsum("ijk,jkl->il", e3, e4)))
report("einsum_ii_diag_256", best_of(2000, lambda: torch.einsum("ii->i", big)))
report("cumprod_256x256", best_of(200, lambda: big.cumprod(1)))
report("logcumsumexp_256x256", best_of(100, lambda: big.logcumsumexp(1)))
report("cholesky_f64_128", best_of(200, lambda: torch.linalg.cholesky(spd)))
report("vector_norm_256x256", best_of(500, lambda: torch.linalg.vector_norm(big, dim=1)))

# ---- the random kernels (issue 16): PyTorch's streams, so the same draws on both sides ----
def random_bench():
    x = torch.ones(100000)
    report("randn_16", best_of(20000, lambda: torch.randn(16)))
    report("randn_1e5", best_of(100, lambda: torch.randn(100000)))
    report("rand_1e5", best_of(100, lambda: torch.rand(100000)))
    report("randperm_1e4", best_of(200, lambda: torch.randperm(10000)))
    report("dropout_1e5", best_of(100, lambda: torch.nn.functional.dropout(x, 0.5)))
    report("multinomial_1e3x16", best_of(200, lambda: torch.multinomial(torch.ones(1000), 16)))


random_bench()


# ---- checkpoints (issue 16): torch.save / torch.load of a 25M-float state dict, in memory ----
def checkpoint_bench():
    import collections
    import io
    sd = collections.OrderedDict((f"layer{i}.weight", torch.randn(2500, 2000)) for i in range(5))
    buf = io.BytesIO()

    def save():
        buf.seek(0)
        buf.truncate()
        torch.save(sd, buf)

    def load():
        buf.seek(0)
        torch.load(buf)

    report("save_state_dict_25M", best_of(1, save, reps=3))
    report("load_state_dict_25M", best_of(1, load, reps=3))


checkpoint_bench()
