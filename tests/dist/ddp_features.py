# DistributedDataParallel's options on 2 ranks, as PyTorch 1.13 runs them: find_unused_parameters
# (a parameter no output uses keeps grad None), broadcast_buffers (rank 1's buffer becomes rank
# 0's before each forward), no_sync (local accumulation, then one synchronised backward), and the
# communication hooks (allreduce_hook, fp16_compress_hook: gradients rounded to float16 and summed
# as float16, so the printed values differ from the float32 ones in the last digits).
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

def fill_(model, salt):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            n = p.numel()
            p.copy_((((torch.arange(n) * 37 + 11 * i + salt) % 17) - 8).float().reshape(p.shape) / 40.0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 8)
        self.b = nn.Linear(8, 2)
        self.unused = nn.Linear(3, 3)
        self.register_buffer("calls", torch.zeros(1))
    def forward(self, x, use_unused=False):
        self.calls += 1
        h = torch.relu(self.a(x))
        return self.b(h)

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)
rank, world = dist.get_rank(), dist.get_world_size()
X = ((torch.arange(8 * 4) * 13 % 11) - 5).float().reshape(8, 4) / 7.0
Y = ((torch.arange(8 * 2) * 5 % 7) - 3).float().reshape(8, 2) / 3.0
lo, hi = rank * 4, rank * 4 + 4

def fmt(t):
    return ["%.5f" % v for v in t.reshape(-1).tolist()]

# find_unused_parameters + buffers (rank 1's buffer differs: broadcast_buffers makes it rank 0's)
net = Net(); fill_(net, rank)
if rank == 1:
    net.calls.fill_(100.0)
ddp = DDP(net, find_unused_parameters=True)
for it in range(2):
    out = ddp(X[lo:hi])
    ((out - Y[lo:hi]) ** 2).mean().backward()
if rank == 0:
    print("unused grad", net.unused.weight.grad)
    print("a.bias grad", fmt(net.a.bias.grad))
    print("calls", net.calls.tolist())

# no_sync: accumulate two local backwards, then one synced
net2 = Net(); fill_(net2, 0)
ddp2 = DDP(net2, find_unused_parameters=True)
with ddp2.no_sync():
    ((ddp2(X[lo:hi]) - Y[lo:hi]) ** 2).mean().backward()
    g_local = net2.b.weight.grad.clone()
((ddp2(X[lo:hi]) - Y[lo:hi]) ** 2).mean().backward()
gl = [torch.zeros_like(g_local) for _ in range(world)]
dist.all_gather(gl, g_local)
if rank == 0:
    print("no_sync local grads differ", not torch.equal(gl[0], gl[1]))
    print("b.weight grad after sync", fmt(net2.b.weight.grad))

# comm hooks
for name, hook in [("allreduce", default_hooks.allreduce_hook), ("fp16", default_hooks.fp16_compress_hook)]:
    net3 = Net(); fill_(net3, 0)
    ddp3 = DDP(net3, find_unused_parameters=True)
    ddp3.register_comm_hook(None, hook)
    ((ddp3(X[lo:hi]) - Y[lo:hi]) ** 2).mean().backward()
    if rank == 0:
        print(name, "hook a.weight grad", fmt(net3.a.weight.grad)[:6])
try:
    ddp3.register_comm_hook(None, default_hooks.allreduce_hook)
except RuntimeError as e:
    if rank == 0:
        print("RuntimeError", e)
dist.destroy_process_group()
