"""Peak tensor memory per rank of a training step (forward, backward, Adam step) of a 4-layer
model (4 x Linear(1024) + ReLU) under DDP and under FSDP (FULL_SHARD, one unit per layer), on
2 ranks, Ember only (PyTorch 1.13's FSDP does not import on CPython 3.11).  Ember frees tensors
when the collector runs, so the live bytes are sampled after a collection at every module
boundary of forward and backward and after each gradient lands: the peak of what is reachable,
which is what PyTorch's refcounting would hold.  Prints `peak_mb <MiB>`.
usage (under a launcher): fsdp_memory.py --mode ddp|fsdp [--backend gloo|mpi]"""
import gc
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch._C._distributed_c10d import _storage_bytes
from torch.distributed._tools.mod_tracker import ModTracker
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import ModuleWrapPolicy
from torch.nn.modules.module import register_module_forward_hook
from torch.nn.parallel import DistributedDataParallel as DDP


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


mode = arg("--mode", "ddp")
dist.init_process_group(arg("--backend", "gloo"))
model = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(1024, 1024), nn.ReLU())])
m = DDP(model) if mode == "ddp" else FSDP(model, auto_wrap_policy=ModuleWrapPolicy({nn.Linear}))
opt = torch.optim.Adam(m.parameters(), lr=1e-3)
x = torch.ones(32, 1024)
samples = []


def sample(*args):
    gc.collect()
    samples.append(_storage_bytes()[0])


handle = register_module_forward_hook(sample)
for p in m.parameters():
    p.register_post_accumulate_grad_hook(sample)
tracker = ModTracker()
tracker.register_user_hooks(pre_bw_hook=sample, post_bw_hook=sample)
for _ in range(3):
    opt.zero_grad()
    with tracker:
        loss = m(x).pow(2).mean()
    loss.backward()
    sample()
    opt.step()
    sample()
peak = torch.tensor([max(samples) / 2 ** 20])
dist.all_reduce(peak, op=dist.ReduceOp.MAX)
if dist.get_rank() == 0:
    print("peak_mb %.3f" % peak.item())
dist.destroy_process_group()
