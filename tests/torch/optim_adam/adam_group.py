# Adam / AdamW over whole param groups (Ember updates a group in one native call): several
# parameters of different shapes, one without a gradient (skipped, no state), a non-contiguous
# parameter, two groups with their own hyper-parameters, add_param_group mid-training (its
# parameters' steps count from 1), a state_dict round trip, and step tensors' values.
import torch
import torch.nn as nn


def r(t):
    return [round(v, 5) for v in t.detach().reshape(-1).tolist()]


def make():
    torch.manual_seed(3)
    a = nn.Parameter(torch.randn(3, 4))
    b = nn.Parameter(torch.randn(4))
    c = nn.Parameter(torch.randn(5, 2).t())          # non-contiguous
    unused = nn.Parameter(torch.randn(2))
    return a, b, c, unused


def loss_of(a, b, c):
    x = torch.linspace(-1.0, 1.0, 12).reshape(3, 4)
    return ((a * x).sum(0) * b).pow(2).sum() + (c @ torch.ones(5)).tanh().sum() + (a ** 3).mean()


for cls, kw in ((torch.optim.Adam, dict(lr=0.05)),
                (torch.optim.Adam, dict(lr=0.05, amsgrad=True, weight_decay=0.1)),
                (torch.optim.AdamW, dict(lr=0.05, betas=(0.4, 0.95), maximize=True)),
                (torch.optim.AdamW, dict(lr=0.02, amsgrad=True, eps=1e-3))):
    a, b, c, unused = make()
    opt = cls([{"params": [a, unused]}, {"params": [b, c], "lr": 0.01, "betas": (0.8, 0.9)}], **kw)
    for i in range(5):
        opt.zero_grad()
        loss_of(a, b, c).backward()
        opt.step()
    print(cls.__name__, kw)
    print("  a", r(a), "\n  b", r(b), "\n  c", r(c), c.is_contiguous())
    print("  unused state", len(opt.state[unused]), "steps", [opt.state[p]["step"].item() for p in (a, b, c)])
    if kw.get("amsgrad"):
        print("  max_exp_avg_sq b", r(opt.state[b]["max_exp_avg_sq"]))

a, b, c, unused = make()
opt = torch.optim.Adam([a], lr=0.1)
for i in range(3):
    opt.zero_grad()
    loss_of(a, b, c).backward()
    opt.step()
opt.add_param_group({"params": [b, c], "lr": 0.03})
for i in range(2):
    opt.zero_grad()
    loss_of(a, b, c).backward()
    opt.step()
print("add_param_group", r(b), [opt.state[p]["step"].item() for p in (a, b, c)])
sd = opt.state_dict()
a2, b2, c2, _ = make()
opt2 = torch.optim.Adam([a2], lr=0.1)
opt2.add_param_group({"params": [b2, c2], "lr": 0.03})
opt2.load_state_dict(sd)
with torch.no_grad():
    a2.copy_(a), b2.copy_(b), c2.copy_(c)
for o, (p, q, s) in ((opt, (a, b, c)), (opt2, (a2, b2, c2))):
    o.zero_grad()
    loss_of(p, q, s).backward()
    o.step()
print("after load_state_dict equal", torch.equal(a, a2), torch.equal(b, b2), torch.equal(c, c2))
print("steps", [opt2.state[p]["step"].item() for p in (a2, b2, c2)])
