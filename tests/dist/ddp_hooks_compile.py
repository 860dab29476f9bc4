# DistributedDataParallel with module hooks and a ModTracker (seed 001), run eagerly, under
# torch.compile, under compiled autograd, or both (--mode eager|compile|ca|both): the hooks fire in
# the same order, the tracker sees the same hierarchy in forward and backward, and the gradients
# are the same, because DDP's reducer is made of ordinary post-accumulate-grad hooks that every
# backward fires.  Recorded from PyTorch with torch.compile as the identity (the eager contract).
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed._tools.mod_tracker import ModTracker
from torch.nn.parallel import DistributedDataParallel as DDP


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


backend = arg("--backend", "gloo")
mode = arg("--mode", "eager")
dist.init_process_group(backend)
rank = dist.get_rank()


def fill_(model, salt):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            n = p.numel()
            p.copy_((((torch.arange(n) * 37 + 11 * i + salt) % 17) - 8).float().reshape(p.shape) / 40.0)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return torch.tanh(self.fc(x)) + x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1 = Block()
        self.b2 = Block()
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        return self.head(self.b2(self.b1(x)))


X = (((torch.arange(8 * 4) * 13) % 11) - 5).float().reshape(8, 4) / 7.0
lo, hi = rank * 4, rank * 4 + 4
net = Net()
fill_(net, rank)
events = []
net.b1.register_forward_hook(lambda m, i, o: events.append("forward hook b1"))
net.b2.register_full_backward_hook(lambda m, gi, go: events.append("full backward hook b2"))
net.head.weight.register_hook(lambda g: events.append("tensor hook head.weight"))
ddp = DDP(net)
model = ddp
if mode in ("ca", "both"):
    import torch._dynamo.compiled_autograd
    torch._dynamo.compiled_autograd.enable(lambda gm: gm).__enter__()
if mode in ("compile", "both"):
    model = torch.compile(ddp)
tracker = ModTracker()
tracker.register_user_hooks(
    pre_fw_hook=lambda m, i: events.append("pre_fw " + tracker.get_known_fqn(m)),
    pre_bw_hook=lambda m, g: events.append("pre_bw " + tracker.get_known_fqn(m)),
    post_bw_hook=lambda m, g: events.append("post_bw " + tracker.get_known_fqn(m)))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    events.clear()
    with tracker:
        loss = model(X[lo:hi]).pow(2).mean()
        loss.backward()
    opt.step()
    l = loss.detach().clone()
    dist.all_reduce(l)
    if rank == 0:
        print("step", step, "loss %.6f" % (l.item() / 2))
        if step == 0:
            for e in events:
                print("  ", e)
if rank == 0:
    print("head.weight", ["%.6f" % v for v in net.head.weight.reshape(-1).tolist()])
dist.destroy_process_group()
