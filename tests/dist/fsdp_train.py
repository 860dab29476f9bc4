# FullyShardedDataParallel on 2 ranks, each on its half of the batch, in four configurations
# (FULL_SHARD wrapping every Linear with forward prefetch, SHARD_GRAD_OP wrapping by size,
# NO_SHARD, FULL_SHARD wrapped by hand), printing the losses and the trained parameters from the
# full state dict.  The expected output is fsdp_train_ref.expected: PyTorch training the same
# model in one process on the whole batch (PyTorch 1.13 cannot run FSDP on CPython 3.11).
import functools
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
from torch.distributed.fsdp.wrap import ModuleWrapPolicy, size_based_auto_wrap_policy

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)
rank, world = dist.get_rank(), dist.get_world_size()


def fill_(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            n = p.numel()
            p.copy_((((torch.arange(n) * 37 + 11 * i) % 17) - 8).float().reshape(p.shape) / 24.0)


def make():
    blocks = [nn.Sequential(nn.Linear(8, 8), nn.Tanh()) for _ in range(4)]
    return nn.Sequential(*blocks, nn.Linear(8, 2))


B = 8
X = (((torch.arange(B * 8) * 13) % 11) - 5).float().reshape(B, 8) / 5.0
Y = (((torch.arange(B * 2) * 5) % 7) - 3).float().reshape(B, 2) / 3.0
lo, hi = rank * B // world, (rank + 1) * B // world


def by_hand(m):
    for i in range(4):
        m[i] = FSDP(m[i])
    return FSDP(m)


configs = [
    ("FULL_SHARD, every Linear", lambda m: FSDP(m, auto_wrap_policy=ModuleWrapPolicy({nn.Linear}), forward_prefetch=True)),
    ("SHARD_GRAD_OP, by size", lambda m: FSDP(m, sharding_strategy=ShardingStrategy.SHARD_GRAD_OP,
                                              auto_wrap_policy=functools.partial(size_based_auto_wrap_policy,
                                                                                 min_num_params=60))),
    ("NO_SHARD", lambda m: FSDP(m, sharding_strategy=ShardingStrategy.NO_SHARD)),
    ("FULL_SHARD, wrapped by hand", by_hand),
]
for name, wrap in configs:
    model = make()
    fill_(model)
    fsdp = wrap(model)
    opt = torch.optim.SGD(fsdp.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for step in range(3):
        opt.zero_grad()
        loss = nn.functional.mse_loss(fsdp(X[lo:hi]), Y[lo:hi])
        loss.backward()
        opt.step()
        l = loss.detach().clone()
        dist.all_reduce(l)
        losses.append("%.5f" % (l.item() / world))
    sd = fsdp.state_dict()
    if rank == 0:
        print(name)
        print("  losses", losses)
        for k in sorted(sd):
            print("  ", k, ["%.5f" % v for v in sd[k].reshape(-1)[:4].tolist()])
dist.destroy_process_group()
