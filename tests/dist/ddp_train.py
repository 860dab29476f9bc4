# DistributedDataParallel training on 2 ranks, each on its half of the batch, checked against one
# process training on the whole batch: (a) one SGD step with dyadic data, weights and learning
# rate, where every sum is exact, so the parameters must be bit-for-bit equal whatever the
# reduction order (a second step already needs more than float32's 24 bits); (b) SGD steps with
# ordinary values, where the summation order differs (per-rank partial sums, then the all-reduce),
# so each parameter tensor must agree to 1e-6 relative to its largest magnitude.  (b) has several
# gradient buckets (bucket_cap_mb=0.25 over 1.5 MB of parameters), reduced while backward is still
# running.
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)
rank, world = dist.get_rank(), dist.get_world_size()


def fill_(model, denom, salt):
    """Deterministic weights (k - 8) / denom(fan_in), k in 0..16 (Ember's generator is not PyTorch's)."""
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            n = p.numel()
            d = denom if not callable(denom) else denom(p.shape[-1])
            p.copy_((((torch.arange(n) * 37 + 11 * i + salt) % 17) - 8).float().reshape(p.shape) / d)


def train(model, opt, X, Y, steps, ddp=None):
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss((ddp or model)(X), Y)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return losses


def compare(name, model, ref, exact):
    if rank != 0:
        return
    if exact:
        same = all(torch.equal(p, q) for p, q in zip(model.parameters(), ref.parameters()))
        print(name, "parameters bit-for-bit equal to one process:", same)
    else:
        worst = max((p - q).abs().max().item() / q.abs().max().item()
                    for p, q in zip(model.parameters(), ref.parameters()))
        print(name, "parameters equal to one process within 1e-6 relative:", worst < 1e-6)


def mean_loss(loss):
    l = loss.clone()
    dist.all_reduce(l)
    return l.item() / world


# (a) exact
B = 8
X = (((torch.arange(B * 4) * 13) % 11) - 5).float().reshape(B, 4) / 4.0
Y = (((torch.arange(B * 2) * 5) % 7) - 3).float().reshape(B, 2) / 2.0
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
fill_(model, 8.0, salt=rank)            # each rank starts elsewhere: DDP broadcasts rank 0's
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.125)
lo, hi = rank * B // world, (rank + 1) * B // world
losses = train(model, opt, X[lo:hi], Y[lo:hi], 1, ddp)
if rank == 0:
    print("(a) losses", ["%.6f" % v for v in [mean_loss(l) for l in losses]])
else:
    [mean_loss(l) for l in losses]
ref = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
fill_(ref, 8.0, salt=0)
train(ref, torch.optim.SGD(ref.parameters(), lr=0.125), X, Y, 1)
compare("(a)", model, ref, exact=True)

# (b) 1e-6
B = 16
X = (((torch.arange(B * 16) * 13) % 11) - 5).float().reshape(B, 16) / 7.0
Y = (((torch.arange(B * 3) * 5) % 7) - 3).float().reshape(B, 3) / 3.0


def big():
    return nn.Sequential(nn.Linear(16, 600), nn.Tanh(), nn.Linear(600, 600), nn.Tanh(), nn.Linear(600, 3))


model = big()
fill_(model, lambda fan_in: 2.0 * fan_in, salt=0)
ddp = DDP(model, bucket_cap_mb=0.25)
opt = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
lo, hi = rank * B // world, (rank + 1) * B // world
losses = [mean_loss(l) for l in train(model, opt, X[lo:hi], Y[lo:hi], 3, ddp)]
if rank == 0:
    print("(b) losses", ["%.4f" % v for v in losses])
ref = big()
fill_(ref, lambda fan_in: 2.0 * fan_in, salt=0)
train(ref, torch.optim.SGD(ref.parameters(), lr=0.01, momentum=0.9), X, Y, 3)
compare("(b)", model, ref, exact=False)
dist.destroy_process_group()
