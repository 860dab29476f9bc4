"""Data-parallel training with DistributedDataParallel, as a PyTorch user writes it.

    ember -m torch.distributed.run --nproc-per-node=2 examples/ddp/train_ddp.py
    mpirun -np 2 ember examples/ddp/train_ddp.py --backend mpi
    torchrun --nproc_per_node=2 examples/ddp/train_ddp.py        # the same script on PyTorch

Each process trains on its share of every batch (DistributedSampler hands out the indices, the
DataLoader batches them) and DDP averages the gradients, so the printed losses are those of one
process training on the whole batches (--nproc-per-node=1 prints them).  The sampler keeps the
dataset's order: shuffle=True needs PyTorch's random generator, which Ember does not have yet.
"""
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)
rank, world = dist.get_rank(), dist.get_world_size()

# a regression problem: 64 samples of 10 features, 3 targets (deterministic data)
n = 64
x = torch.sin(torch.arange(n * 10).float().reshape(n, 10) * 0.37)
y = torch.stack([x[:, :4].sum(1), (x[:, 3:7] * 2).sum(1).tanh(), x[:, 8] - x[:, 9]], dim=1)
dataset = TensorDataset(x, y)
global_batch = 16
sampler = DistributedSampler(dataset, shuffle=False)
loader = DataLoader(dataset, batch_size=global_batch // world, sampler=sampler)

model = nn.Sequential(nn.Linear(10, 32), nn.GELU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 3))
with torch.no_grad():     # the same starting point on PyTorch and Ember (their generators differ)
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.cos(torch.arange(p.numel()).float() * 0.7 + i).reshape(p.shape) * 0.3)
ddp = DDP(model)
opt = torch.optim.AdamW(ddp.parameters(), lr=0.01)

for epoch in range(4):
    sampler.set_epoch(epoch)
    total = torch.zeros(1)
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(ddp(xb), yb)
        loss.backward()
        opt.step()
        total += loss.detach()
    dist.all_reduce(total)
    if rank == 0:
        print("epoch %d  loss %.4f" % (epoch, total.item() / world / len(loader)))
dist.destroy_process_group()
