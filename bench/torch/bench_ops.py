"""bench_ops.py — the tensor issue's per-op overhead and 100-op backward benchmarks, driven from a
script: the same file runs under Ember (`ember run`) and under CPython + PyTorch, and prints
"name wall_us cpu_us" lines (best of several repetitions, wall clock and process CPU time) for
run.sh to compare.  CPU time is the robust figure on a loaded machine: wall clock counts the time
the process waited for a core.  BENCH_ONLY=prefix1,prefix2 runs only the cases whose names start
with one of the prefixes (the per-op kernel rows; the fixed sections still run).  Not a test."""
import time

try:
    import os
    _env = os.environ
except ImportError:   # an Ember without the os module (bench/compare.py runs older builds)
    _env = {}

import torch

if hasattr(torch, "set_num_threads"):
    torch.set_num_threads(1)
torch.manual_seed(0)


_only = [p for p in _env.get("BENCH_ONLY", "").split(",") if p]


def wanted(name):
    return not _only or any(name.startswith(p) for p in _only)


class Best:
    """The best wall-clock and the best CPU-time figure (microseconds) over repetitions."""

    def __init__(self):
        self.wall = float("inf")
        self.cpu = float("inf")

    def add(self, wall_s, cpu_s, n=1):
        self.wall = min(self.wall, wall_s / n * 1e6)
        self.cpu = min(self.cpu, cpu_s / n * 1e6)


def best_of(iters, fn, reps=5):
    best = Best()
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(iters):
            fn()
        best.add(time.perf_counter() - t0, time.process_time() - c0, iters)
    return best


def report(name, best):
    print("%s %.4f %.4f" % (name, best.wall, best.cpu))


def case(name, iters, fn, reps=5):
    if wanted(name):
        report(name, best_of(iters, fn, reps))


# ---- per-op overhead on 4-element tensors: the cost of a call, not of the arithmetic ----
a = torch.randn(4)
b = torch.randn(4)
ga = torch.randn(4, requires_grad=True)
gb = torch.randn(4, requires_grad=True)
m = torch.randn(2, 2)
case("add_nograd", 100000, lambda: a + b)
case("add_graph", 100000, lambda: ga + gb)
case("mul_scalar", 100000, lambda: a * 2.0)
case("method_sum", 100000, lambda: a.sum())
case("method_exp", 100000, lambda: a.exp())
case("matmul_2x2", 100000, lambda: m @ m)
case("index_int", 100000, lambda: a[1])
case("index_slice", 100000, lambda: a[1:3])
case("view", 100000, lambda: m.view(4))
case("inplace_add_", 100000, lambda: a.add_(1.0))
case("tensor_from_list", 50000, lambda: torch.tensor([1.0, 2.0, 3.0, 4.0]))
case("item", 100000, lambda: b.sum().item())


# ---- backward through a chain of n ops: per-node engine cost and fixed cost per call ----
def chain_backward(n, reps=300):
    x = torch.randn(4, requires_grad=True)
    best = Best()
    for _ in range(reps):
        y = x
        for i in range(n - 1):
            y = y + 0.5 if i & 1 else y * 1.0001
        loss = y.sum()
        t0, c0 = time.perf_counter(), time.process_time()
        loss.backward()
        best.add(time.perf_counter() - t0, time.process_time() - c0)
        x.grad = None
    return best


def chain_forward_backward(n, reps=300):
    x = torch.randn(4, requires_grad=True)
    best = Best()
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        y = x
        for i in range(n - 1):
            y = y + 0.5 if i & 1 else y * 1.0001
        y.sum().backward()
        best.add(time.perf_counter() - t0, time.process_time() - c0)
        x.grad = None
    return best


if wanted("chain"):
    c10 = chain_backward(10)
    c100 = chain_backward(100)
    per_node, fixed = Best(), Best()
    per_node.wall = (c100.wall - c10.wall) / 90.0
    per_node.cpu = (c100.cpu - c10.cpu) / 90.0
    fixed.wall = c10.wall - 10 * per_node.wall
    fixed.cpu = c10.cpu - 10 * per_node.cpu
    report("chain100_backward", c100)
    report("chain_per_node", per_node)
    report("chain_fixed", fixed)
    report("chain100_fwd_bwd", chain_forward_backward(100))


# ---- a hook-heavy backward: tensor hooks on every node of a 100-op chain ----
def chain_with_hooks(reps=200):
    x = torch.randn(4, requires_grad=True)
    best = Best()
    for _ in range(reps):
        y = x
        for i in range(99):
            y = y * 1.0001
            y.register_hook(lambda g: None)
        loss = y.sum()
        t0, c0 = time.perf_counter(), time.process_time()
        loss.backward()
        best.add(time.perf_counter() - t0, time.process_time() - c0)
        x.grad = None
    return best


if wanted("chain100_hooks"):
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


if wanted("mlp_step_b1"):
    report("mlp_step_b1", mlp_step_bench(1, 2000))
if wanted("mlp_step_b64"):
    report("mlp_step_b64", mlp_step_bench(64, 1000))


# ---- issue 16's ops and dtypes at moderate sizes: kernels, not call overhead ----
big = torch.randn(256, 256)
d64 = torch.randn(128, 128).double()
sidx = torch.randint(0, 64, (256, 256))
case("randn_65536", 200, lambda: torch.randn(256, 256))
case("topk_256x256_k8", 200, lambda: big.topk(8, dim=1))
case("sort_256x256", 100, lambda: big.sort(dim=1))
case("matmul_f64_128", 200, lambda: d64 @ d64)
case("scatter_add_256x256", 200, lambda: torch.zeros(256, 64).scatter_add(1, sidx, big))
case("cumsum_256x256", 200, lambda: big.cumsum(1))

# ---- branch opsmath: einsum lowered to bmm, the scans, LAPACK ----
eb1 = torch.randn(32, 64, 64)
eb2 = torch.randn(32, 64, 64)
e3 = torch.randn(16, 32, 48)
e4 = torch.randn(32, 48, 24)
spd = torch.randn(128, 128).double()
spd = spd @ spd.t() + 128 * torch.eye(128).double()
case("einsum_bij_bjk_32x64", 200, lambda: torch.einsum("bij,bjk->bik", eb1, eb2))
case("einsum_ijk_jkl_il", 200, lambda: torch.einsum("ijk,jkl->il", e3, e4))
case("einsum_ii_diag_256", 2000, lambda: torch.einsum("ii->i", big))
case("cumprod_256x256", 200, lambda: big.cumprod(1))
case("logcumsumexp_256x256", 100, lambda: big.logcumsumexp(1))
case("cholesky_f64_128", 200, lambda: torch.linalg.cholesky(spd))
case("vector_norm_256x256", 500, lambda: torch.linalg.vector_norm(big, dim=1))

# ---- the random kernels (issue 16): PyTorch's streams, so the same draws on both sides ----
def random_bench():
    x = torch.ones(100000)
    case("randn_16", 20000, lambda: torch.randn(16))
    case("randn_1e5", 100, lambda: torch.randn(100000))
    case("rand_1e5", 100, lambda: torch.rand(100000))
    case("randperm_1e4", 200, lambda: torch.randperm(10000))
    case("dropout_1e5", 100, lambda: torch.nn.functional.dropout(x, 0.5))
    case("multinomial_1e3x16", 200, lambda: torch.multinomial(torch.ones(1000), 16))


random_bench()


# ---- checkpoints (issue 16): torch.save / torch.load of a 25M-float state dict, in memory ----
def checkpoint_bench():
    if not (wanted("save_state_dict_25M") or wanted("load_state_dict_25M")):
        return
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

    case("save_state_dict_25M", 1, save, reps=3)
    case("load_state_dict_25M", 1, load, reps=3)


checkpoint_bench()
