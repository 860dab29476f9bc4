"""Fully sharded training with FullyShardedDataParallel, as a PyTorch user writes it.

    ember -m torch.distributed.run --nproc-per-node=2 examples/ddp/train_fsdp.py
    mpirun -np 2 ember examples/ddp/train_fsdp.py --backend mpi

Each residual block is its own FSDP unit (auto_wrap_policy by module type): a rank keeps half of
each block's parameters, gathers a block's parameters just before it runs (the next block's gather
is already under way: prefetching follows the execution order traced with torch.fx) and frees them
after; gradients are reduce-scattered as each block's backward finishes.  The losses are those of
one process training on the whole batches (--nproc-per-node=1 prints them).  (PyTorch 2.x runs
this script unchanged; PyTorch 1.13's FSDP does not import on CPython 3.11.)
"""
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, StateDictType
from torch.distributed.fsdp.wrap import ModuleWrapPolicy

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)
rank, world = dist.get_rank(), dist.get_world_size()


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


class Net(nn.Module):
    def __init__(self, width=32, depth=4):
        super().__init__()
        self.inp = nn.Linear(10, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.out = nn.Linear(width, 3)

    def forward(self, x):
        h = self.inp(x)
        for b in self.blocks:
            h = b(h)
        return self.out(h)


n = 64
x = torch.sin(torch.arange(n * 10).float().reshape(n, 10) * 0.37)
y = torch.stack([x[:, :4].sum(1), (x[:, 3:7] * 2).sum(1).tanh(), x[:, 8] - x[:, 9]], dim=1)
model = Net()
with torch.no_grad():     # the same starting point everywhere (Ember's generator is not PyTorch's)
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.cos(torch.arange(p.numel()).float() * 0.7 + i).reshape(p.shape) * 0.2)
model = FSDP(model, auto_wrap_policy=ModuleWrapPolicy({Block}), forward_prefetch=True)
opt = torch.optim.AdamW(model.parameters(), lr=0.003)

global_batch = 16
local = global_batch // world
for epoch in range(4):
    total = torch.zeros(1)
    for start in range(0, n, global_batch):
        lo = start + rank * local
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x[lo:lo + local]), y[lo:lo + local])
        loss.backward()
        opt.step()
        total += loss.detach()
    dist.all_reduce(total)
    if rank == 0:
        print("epoch %d  loss %.4f" % (epoch, total.item() / world / (n // global_batch)))
with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT):
    state = model.state_dict()
if rank == 0:
    print("full state dict:", len(state), "tensors,", sum(v.numel() for v in state.values()), "parameters")
dist.destroy_process_group()
