# examples/modtracker.py as a golden program: the module hierarchy ModTracker sees in forward and
# backward of a two-block attention model (user hooks at every enter/leave, parents, is_bw).
import torch
import torch.nn as nn
from torch.distributed._tools.mod_tracker import ModTracker


class Attention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)

    def forward(self, x):
        w = torch.softmax(self.q(x) @ self.k(x).t(), dim=-1)
        return w @ self.v(x)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = Attention(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        x = x + self.attn(x)
        return x + self.mlp(x)


class Model(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d), Block(d)])
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)


def depth(tracker):
    return len(tracker.parents) - 1


def show(event, mod):
    name = tracker.get_known_fqn(mod)
    active = sorted(p for p in tracker.parents if p != "Global")
    print(f"{'  ' * depth(tracker)}{event:<8} {name:<24} active={len(active)}")


torch.manual_seed(0)
model = Model()
x = torch.randn(3, 4, requires_grad=True)
with ModTracker() as tracker:
    tracker.register_user_hooks(
        pre_fw_hook=lambda m, inp: show("enter", m),
        post_fw_hook=lambda m, inp, out: show("leave", m),
        pre_bw_hook=lambda m, grads: show("bw enter", m),
        post_bw_hook=lambda m, grads: show("bw leave", m),
    )
    print("--- forward (is_bw=%s)" % tracker.is_bw)
    out = model(x).sum()
    print("--- backward")
    out.backward()
    print("--- done: parents =", sorted(tracker.parents), "is_bw =", tracker.is_bw)
print("x.grad shape", list(x.grad.shape))
