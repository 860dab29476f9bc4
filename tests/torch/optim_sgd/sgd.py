# SGD: plain, momentum, dampening, Nesterov, weight decay, maximize; parameters without grads
# are skipped; momentum buffers in state; closures; errors for invalid hyper-parameters.
import torch
import torch.nn as nn


def r(t):
    return [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def run(label, steps=3, **kw):
    w = nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
    opt = torch.optim.SGD([w], **kw)
    for i in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = ((w * torch.tensor([1.0, 2.0, 3.0]) - 1.0) ** 2).sum()
        loss.backward()
        opt.step()
    print(label, r(w))
    return opt, w


run("plain", lr=0.01)
opt, w = run("momentum", lr=0.01, momentum=0.9)
print("  buffer", r(opt.state[w]["momentum_buffer"]), sorted(opt.state[w].keys()))
run("dampening", lr=0.01, momentum=0.9, dampening=0.5)
run("nesterov", lr=0.01, momentum=0.9, nesterov=True)
run("weight_decay", lr=0.01, weight_decay=0.1)
run("momentum+weight_decay", lr=0.01, momentum=0.5, weight_decay=0.1)
run("maximize", lr=0.01, maximize=True)
run("everything", lr=0.02, momentum=0.8, weight_decay=0.05, nesterov=True, maximize=False, steps=5)

a = nn.Parameter(torch.ones(2))
b = nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([a, b], lr=0.1)
(a * 3).sum().backward()
opt.step()
print("param without grad untouched", r(a), r(b))


def closure():
    opt.zero_grad(set_to_none=True)
    loss = (a ** 2).sum()
    loss.backward()
    return loss


print("closure loss", round(opt.step(closure).item(), 4), r(a))
print("step returns None", opt.step())

for kw in (dict(lr=-1.0), dict(lr=0.1, momentum=-0.5), dict(lr=0.1, weight_decay=-1),
           dict(lr=0.1, nesterov=True), dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)):
    try:
        torch.optim.SGD([a], **kw)
    except ValueError as e:
        print("ValueError", e)
