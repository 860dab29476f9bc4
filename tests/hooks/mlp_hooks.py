# An MLP trained for three SGD steps with hooks on its parameters (tensor hooks scaling the
# gradient, post-accumulate hooks reading .grad), a hook on an activation and a retained
# logit gradient: the hook trace, the losses and the parameters after each step.
import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t):
    return None if t is None else [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def rs(ts):
    return [r(t) for t in ts]

model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.0, 0.5, -0.5], [0.2, 0.2, 0.2], [-0.3, 0.1, 0.4]]))
    model[0].bias.copy_(torch.tensor([0.01, -0.02, 0.03, 0.0]))
    model[2].weight.copy_(torch.tensor([[0.5, -0.4, 0.3, 0.2], [-0.1, 0.2, -0.3, 0.4]]))
    model[2].bias.copy_(torch.tensor([0.1, -0.1]))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
log = []
for name, p in model.named_parameters():
    if name.endswith("weight"):
        p.register_hook(lambda g, name=name: log.append(("hook", name)) or g * 0.5)
    p.register_post_accumulate_grad_hook(lambda p, name=name: log.append(("post acc", name, round(p.grad.abs().sum().item(), 4))))
x = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 0.0], [2.0, 0.0, 1.0]])
target = torch.tensor([1, 0, 1])
for step in range(3):
    log.clear()
    opt.zero_grad()
    h = model[1](model[0](x))
    h.register_hook(lambda g: log.append(("activation", r(g.sum(0)))))
    logits = model[2](h)
    logits.retain_grad()
    loss = F.cross_entropy(logits, target)
    loss.backward()
    opt.step()
    print("step", step, "loss", round(loss.item(), 4))
    for entry in log:
        print(" ", entry)
    print("  logits.grad", r(logits.grad))
    for name, p in model.named_parameters():
        print(" ", name, r(p))
